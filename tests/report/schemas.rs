//! The checked-in JSON Schemas (docs/schemas/) are what `layoutrand generate schemas` makes
//! from the types serde writes today, and the stored files of the committed fixture validate
//! against them (every command's `--format json` is validated in json_vocabulary.rs).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::report_support::{write_dir, Design, ThreeLevel};
use crate::schemas_support::{assert_valid, schema_dir, schema_violations};

/// The `*.schema.json` files of `dir`, by name, with their text.
fn schemas_in(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".schema.json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_checked_in_schemas_are_the_generated_ones() {
    let tmp = tempfile::tempdir().unwrap();
    assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(["generate", "schemas"])
        .arg(tmp.path())
        .assert()
        .success();
    let generated = schemas_in(tmp.path());
    let checked_in = schemas_in(&schema_dir());
    assert!(generated.len() >= 14, "{:?}", generated.keys());
    assert_eq!(
        generated.keys().collect::<Vec<_>>(),
        checked_in.keys().collect::<Vec<_>>(),
        "docs/schemas/ lists other outputs than `generate schemas` writes: run \
         `layoutrand generate schemas docs/schemas`"
    );
    for (name, text) in &generated {
        assert!(
            !text.contains("[`"),
            "{name}: a description keeps rustdoc's link brackets"
        );
        assert!(
            checked_in[name] == *text,
            "docs/schemas/{name} differs from the generated one: run `layoutrand generate \
             schemas docs/schemas` and review the diff"
        );
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The committed explained store: its manifest, every line of its results, and the JSON
/// `explain` prints of its stored explanation (the file itself was written by an older
/// version: it is read, with defaults for later fields, then written as today) validate.
#[test]
fn the_stored_files_of_an_explained_experiment_validate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/report/fixtures/explained");
    assert_valid(
        "manifest",
        "manifest.json",
        &read_json(&dir.join("manifest.json")),
    );
    let stored = layoutrand::analysis::explain::stored(&dir)
        .unwrap()
        .expect("the fixture stores an explanation");
    let printed = layoutrand::report::export::explain::json(&stored).unwrap();
    assert_valid(
        "explain",
        "explain --format json",
        &serde_json::from_str(&printed).unwrap(),
    );
    // The same explanation as two variants' (the second with nothing found), as `explain`
    // prints an experiment with variants.
    let mut a = stored.clone();
    a.variant = Some("a".to_string());
    let mut b = stored;
    b.variant = Some("b".to_string());
    b.screening.culprits.clear();
    b.screening.findings.clear();
    let variants = layoutrand::analysis::explain_variants::VariantExplanations::of(vec![a, b]);
    let printed = layoutrand::report::export::explain::variants_json(&variants).unwrap();
    assert_valid(
        "explain-variants",
        "explain --format json (variants)",
        &serde_json::from_str(&printed).unwrap(),
    );
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut found = Vec::new();
    for (i, line) in results.lines().enumerate() {
        let record: Value = serde_json::from_str(line).unwrap();
        found.extend(schema_violations(
            "results-record",
            &format!("results.jsonl line {}", i + 1),
            &record,
        ));
    }
    assert!(results.lines().count() > 10);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The schemas can fail: a report with a field of the wrong type, or without a required
/// field, does not validate.
#[test]
fn a_broken_output_does_not_validate() {
    let tmp = tempfile::tempdir().unwrap();
    let mut gen = ThreeLevel::new(3, 1e6, 0.02, 0.004, 0.01, 0.0);
    write_dir(
        tmp.path(),
        &Design::new(4, 2, 3),
        &mut |_, seed, e, _, _| gen.value(seed, e),
    );
    let report = |format: &str| -> Value {
        let out = assert_cmd::Command::cargo_bin("layoutrand")
            .unwrap()
            .arg("report")
            .arg(tmp.path())
            .args(["--format", format])
            .assert()
            .success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let json = report("json");
    assert_valid("report", "report", &json);
    assert_valid("bmf", "report --format bmf", &report("bmf"));
    let mut wrong_type = json.clone();
    wrong_type["series"][0]["program"] = Value::from(7);
    assert!(!schema_violations("report", "wrong type", &wrong_type).is_empty());
    let mut missing = json;
    missing["series"][0]
        .as_object_mut()
        .unwrap()
        .remove("program");
    assert!(!schema_violations("report", "missing field", &missing).is_empty());
}
