//! The sentences of the report, built from the model's numbers and enums: one file per
//! question. The analysis ([`crate::analysis`]) holds no sentence: it says what it found as
//! figures and grounds (e.g. [`crate::analysis::answers::model::SensitivityGrounds`]), with
//! the context its words need (the thresholds, whether the metric is a time). The text,
//! Markdown and HTML documents call the functions here as they are built; the JSON carries
//! the same words beside the numbers, written as it is serialised ([`on_the_wire!`],
//! [`said_as!`]). Nothing is filled in later, so no output can lack its words. Functions
//! here are pure: model in, `String` out.

pub(crate) mod across_programs;
pub(crate) mod answers;
pub(crate) mod as_built;
pub(crate) mod balance;
pub mod build;
pub(crate) mod comparison;
pub(crate) mod crossed_mean;
pub(crate) mod data_sensitivity;
pub(crate) mod default_layout;
pub(crate) mod diagnostics;
pub mod dimension;
pub mod effect;
pub(crate) mod experiment;
pub(crate) mod explain;
pub(crate) mod host_conditions;
pub(crate) mod incomplete;
pub(crate) mod interaction;
pub mod machines;
pub(crate) mod pair;
pub(crate) mod plots;
pub mod run_summary;
pub(crate) mod sensitivity;
pub(crate) mod sequential;
pub(crate) mod setup;
pub(crate) mod shift;
pub mod single;
pub(crate) mod spread;
pub(crate) mod stopping;
pub(crate) mod suite;
pub(crate) mod summary;
pub mod variance_split;
pub(crate) mod variants;
pub(crate) mod versus_baseline;
pub(crate) mod withheld;

/// Implements `Serialize` for a model type marked `#[serde(remote = "Self")]` (see
/// [`crate::wire`]): its numbers, as derived, then each word field, built from
/// them by the function named, so that the model holds no sentence and the wire carries
/// every one. `on_the_wire!(Sensitivity { text: String = sensitivity_words })`.
macro_rules! on_the_wire {
    ($model:ty { $($field:ident: $kind:ty = $words:expr),+ $(,)? }) => {
        impl serde::Serialize for $model {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                if !crate::wire::with_words() {
                    // A stored file: the data alone.
                    return <$model>::serialize(self, serializer);
                }
                struct Numbers<'a>(&'a $model);
                impl serde::Serialize for Numbers<'_> {
                    fn serialize<S: serde::Serializer>(
                        &self,
                        serializer: S,
                    ) -> Result<S::Ok, S::Error> {
                        // The derived serialisation (`remote = "Self"`).
                        <$model>::serialize(self.0, serializer)
                    }
                }
                #[derive(serde::Serialize)]
                struct Wire<'a> {
                    #[serde(flatten)]
                    numbers: Numbers<'a>,
                    $($field: $kind,)+
                }
                Wire {
                    numbers: Numbers(self),
                    $($field: ($words)(self),)+
                }
                .serialize(serializer)
            }
        }
    };
}
pub(crate) use on_the_wire;

/// Implements `Serialize` and `JsonSchema` for grounds that the wire carries as their
/// sentence (a string built by the function named): the model holds the figures, the
/// wire their words. `said_as!(IntervalNote = single::interval_note)`.
macro_rules! said_as {
    ($grounds:ty = $words:expr) => {
        impl serde::Serialize for $grounds {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&($words)(self))
            }
        }

        impl schemars::JsonSchema for $grounds {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($grounds).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string"})
            }
        }
    };
}
pub(crate) use said_as;

use crate::analysis::answers::model::Report;

/// How every report names what only `manifest.json` records (the build's granularity,
/// linker, mode, padding, link times) when the directory holds only `results.jsonl`: the
/// store cannot tell, so the report says so rather than guess (JSON: `null`).
pub const UNKNOWN_WITHOUT_MANIFEST: &str = "unknown (no manifest.json)";

/// Why a statistic of finite values is not computable: their spread (a sum of squares)
/// overflows f64. One wording for every command that says it (`analyze`, `report`).
pub(crate) const OVERFLOW_REASON: &str =
    "the spread of the values exceeds the range of double precision (values near ±1.8e308)";

on_the_wire!(Report {
    across_metrics: Vec<String> = |r: &Report| answers::across_metrics(&r.series),
    warnings: Vec<String> = warnings,
});

/// The report's warnings: the analysis's, then the machines', then the series and
/// comparisons that `--sequential` could not replay.
pub(crate) fn warnings(report: &Report) -> Vec<String> {
    let analysis = (report.warning_grounds.iter()).map(experiment::report_warning);
    let unreplayed = report.unreplayed.iter().map(sequential::unreplayed);
    (analysis.chain(machines::warnings(&report.machines)))
        .chain(unreplayed)
        .collect()
}

/// "a", "a and b", "a, b and c".
pub(crate) fn and_list<S: AsRef<str>>(names: &[S]) -> String {
    match names {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}
