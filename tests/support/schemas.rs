//! Validation of real outputs against the checked-in JSON Schemas (docs/schemas/, generated
//! by `layoutrand generate schemas` from the types serde writes).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// docs/schemas/ of this checkout.
pub fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schemas")
}

/// Every way `instance` breaks `docs/schemas/NAME.schema.json`, one line each (`what` names
/// the output in the lines).
pub fn schema_violations(name: &str, what: &str, instance: &Value) -> Vec<String> {
    let path = schema_dir().join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{} is not a valid schema: {e}", path.display()));
    validator
        .iter_errors(instance)
        .map(|e| format!("{what} against {name}: {} at {}", e, e.instance_path()))
        .collect()
}

/// Fails with every violation when `instance` breaks `docs/schemas/NAME.schema.json`.
pub fn assert_valid(name: &str, what: &str, instance: &Value) {
    let found = schema_violations(name, what, instance);
    assert!(found.is_empty(), "{}", found.join("\n"));
}
