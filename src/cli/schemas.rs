//! The JSON Schema of every JSON output and file layoutrand writes, derived (schemars) from the
//! very types that serde serialises, so a schema cannot drift from its output:
//! `layoutrand generate schemas DIR` writes them, docs/schemas/ holds them checked in, and
//! tests/report/schemas.rs fails when the checked-in ones differ from a fresh generation or
//! when a real output does not validate.

use regex::Regex;
use schemars::{generate::SchemaSettings, JsonSchema, Schema};
use serde_json::Value;

/// The export JSON as written (src/run/export.rs streams it row by row): the output's
/// schema and version, then the rows. Only its schema is derived from this type.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct ExportDocument {
    /// The JSON outputs' schema version (docs/formats.md).
    schema: u32,
    /// The layoutrand version that wrote it.
    tool_version: String,
    /// One object per measurement.
    measurements: Vec<layoutrand::run::export::ExportRow>,
}

/// One output: its file's stem (`NAME.schema.json`) and its schema (whose description says
/// what writes it).
pub struct OutputSchema {
    /// The stem: `report`, `compare-files`, …
    pub name: &'static str,
    /// The schema.
    pub schema: Schema,
}

fn output<T: JsonSchema>(name: &'static str, written_by: &'static str) -> OutputSchema {
    // What serde *writes* (a field skipped when empty is optional), not what it would read.
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = Value::from(schema);
    strip_doc_links(&mut value, &doc_link());
    let mut schema = Schema::try_from(value).expect("a root schema is an object");
    schema.insert("$id".into(), format!("{name}.schema.json").into());
    schema.insert("description".into(), written_by.into());
    OutputSchema { name, schema }
}

/// Rustdoc's intra-doc link: ``[`Foo`]``, ``[`crate::x::Y`]``.
fn doc_link() -> Regex {
    Regex::new(r"\[(`[^`\]]+`)\]").expect("a valid pattern")
}

/// The descriptions come from doc comments, whose intra-doc links (``[`Foo`]``) are markup
/// for rustdoc only: in a schema they read as prose with code (`` `Foo` ``), so the brackets
/// go and the code stays. Other keys are schemas or names, walked into, never rewritten.
fn strip_doc_links(value: &mut Value, link: &Regex) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(text) if key == "description" => {
                        *text = link.replace_all(text, "$1").into_owned();
                    }
                    _ => strip_doc_links(v, link),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| strip_doc_links(v, link)),
        _ => {}
    }
}

/// Every JSON output and file, in the order docs/formats.md lists them.
pub fn all() -> Vec<OutputSchema> {
    use layoutrand::analysis;
    vec![
        output::<layoutrand::files::manifest::Manifest>(
            "manifest",
            "OUT/manifest.json, written by `layoutrand build`",
        ),
        output::<layoutrand::files::results::Record>(
            "results-record",
            "one line of OUT/results.jsonl, written by `layoutrand run`",
        ),
        output::<layoutrand::files::stopping::StoppingFile>(
            "stopping",
            "OUT/stopping.json, written by `layoutrand experiment` when it grows the design",
        ),
        output::<analysis::single::Analysis>("analyze", "`layoutrand analyze --format json`"),
        output::<analysis::compare::Comparison>(
            "compare-files",
            "`layoutrand compare A.csv B.csv --format json`",
        ),
        output::<analysis::answers::compare::ExperimentComparison>(
            "compare-directories",
            "`layoutrand compare BASE_DIR NEW_DIR --format json`",
        ),
        output::<layoutrand::files::watch::WatchFile>(
            "watch",
            "OUT/watch.json, written by `layoutrand watch`",
        ),
        output::<analysis::answers::model::Report>("report", "`layoutrand report --format json`"),
        output::<layoutrand::report::export::bmf::Bmf>(
            "bmf",
            "`layoutrand report --format bmf` (Bencher Metric Format)",
        ),
        output::<analysis::answers::dimension::DimensionReport>(
            "dimension",
            "`layoutrand dimension --format json`",
        ),
        output::<analysis::explain::Explanation>(
            "explain",
            "`layoutrand explain --format json` and OUT/explain/explanation.json",
        ),
        output::<analysis::explain_variants::VariantExplanations>(
            "explain-variants",
            "`layoutrand explain --format json` on an experiment with variants",
        ),
        output::<layoutrand::layout::shown::LayoutReport>(
            "layout",
            "`layoutrand layout BINARY --format json`",
        ),
        output::<layoutrand::layout::shown::DistanceReport>(
            "layout-distance",
            "`layoutrand layout BASE OTHER --format json`",
        ),
        output::<layoutrand::files::pin::PinFile>(
            "pin-file",
            "the pin file `layoutrand pin` writes and `build --pin FILE` reads",
        ),
        output::<analysis::pin::PinAnswer>("pin", "`layoutrand pin --format json`"),
        output::<layoutrand::analysis::doctor::DoctorReport>(
            "doctor",
            "`layoutrand doctor --format json`",
        ),
        output::<ExportDocument>("export", "`layoutrand export --format json`"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn descriptions_lose_rustdoc_link_brackets_only() {
        let mut v = json!({
            "description": "[`Foo`] and [`crate::x::Y`], [not code] and `[]`",
            "properties": {
                "description": {"description": "see [`Bar::baz`]", "enum": ["[`kept`]"]}
            },
            "examples": ["[`kept`]"]
        });
        strip_doc_links(&mut v, &doc_link());
        assert_eq!(
            v,
            json!({
                "description": "`Foo` and `crate::x::Y`, [not code] and `[]`",
                "properties": {
                    "description": {"description": "see `Bar::baz`", "enum": ["[`kept`]"]}
                },
                "examples": ["[`kept`]"]
            })
        );
    }
}
