//! The as-built binary's answer in `report --format csv`: its columns carry the JSON
//! report's numbers and verdicts (`series[].as_built`), are empty when the build kept no
//! as-built binary, and come after every earlier column, which keep their places.

use crate::report_support;

use std::path::Path;

use report_support::{report_stdout, write_dir, Design, ThreeLevel};
use serde_json::Value;

/// The CSV columns before the as-built ones, in the order readers of older reports know.
const EARLIER_COLUMNS: [&str; 36] = [
    "program",
    "metric",
    "unit",
    "confidence",
    "binaries",
    "executions",
    "iterations",
    "mean",
    "ci_lower",
    "ci_upper",
    "relative_half_width",
    "t_iteration",
    "t_execution",
    "t_binary",
    "anova_f",
    "anova_p",
    "icc",
    "sensitivity",
    "shift_ratio",
    "shift_ci_lower",
    "shift_ci_upper",
    "shift",
    "variant",
    "bootstrap_lower",
    "bootstrap_upper",
    "default_layout",
    "default_layout_pi_lower",
    "default_layout_pi_upper",
    "kind",
    "base",
    "ratio",
    "ratio_lower",
    "ratio_upper",
    "p_value",
    "verdict",
    "direction",
];

/// Each as-built column with where its value is in the JSON report's `series[].as_built`.
const AS_BUILT_COLUMNS: [(&str, &str); 10] = [
    ("as_built_mean", "/binary/mean"),
    ("as_built_ci_lower", "/binary/ci/lower"),
    ("as_built_ci_upper", "/binary/ci/upper"),
    ("as_built_shift_ratio", "/shift/ratio"),
    ("as_built_shift_ci_lower", "/shift/ci/lower"),
    ("as_built_shift_ci_upper", "/shift/ci/upper"),
    ("as_built_shift", "/shift/verdict"),
    ("as_built_layout", "/placement/verdict"),
    (
        "as_built_layout_pi_lower",
        "/placement/prediction_interval/lower",
    ),
    (
        "as_built_layout_pi_upper",
        "/placement/prediction_interval/upper",
    ),
];

/// A layout-sensitive experiment of 12 seeds whose baseline is 5 % below the layouts' mean;
/// with `as_built`, the build's own binary is measured too, its values the baseline's times
/// that factor.
fn store(dir: &Path, as_built: Option<f64>) {
    let mut design = Design::new(12, 3, 4);
    design.as_built = as_built;
    let mut gen = ThreeLevel::new(5, 2.5e6, 0.03, 0.002, 0.004, -0.05);
    write_dir(dir, &design, &mut |_, seed, e, _, _| gen.value(seed, e));
}

/// The CSV's header and its one series row.
fn csv_series_row(dir: &Path) -> (csv::StringRecord, csv::StringRecord) {
    let csv = report_stdout(dir, &["--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1, "{csv}");
    (headers, rows[0].clone())
}

fn column(headers: &csv::StringRecord, name: &str) -> usize {
    headers
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}: {headers:?}"))
}

#[test]
fn the_csv_carries_the_json_as_built_answer() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), Some(1.08));
    let json: Value =
        serde_json::from_str(&report_stdout(tmp.path(), &["--format", "json"])).unwrap();
    let series = &json["series"][0];
    let a = &series["as_built"];
    assert!(a.is_object(), "no as_built answer: {series:#}");
    let (headers, row) = csv_series_row(tmp.path());
    // Every earlier column keeps its place; the as-built ones follow, in this order.
    let names: Vec<&str> = headers.iter().collect();
    assert_eq!(names[..36], EARLIER_COLUMNS);
    let as_built_names: Vec<&str> = AS_BUILT_COLUMNS.iter().map(|(c, _)| *c).collect();
    assert_eq!(names[36..], as_built_names);
    for (name, pointer) in AS_BUILT_COLUMNS {
        let cell = &row[column(&headers, name)];
        let want = a
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{pointer}: {a:#}"));
        // This design answers every one of them (an empty cell would pass for a null).
        match want {
            Value::Number(n) => {
                let csv: f64 = cell
                    .parse()
                    .unwrap_or_else(|e| panic!("{name} {cell:?}: {e}"));
                assert_eq!(csv, n.as_f64().unwrap(), "{name}");
            }
            Value::String(s) => assert_eq!(cell, s, "{name}"),
            other => panic!("{name}: JSON {pointer} is {other}"),
        }
    }
    // The as-built columns are its own answer, not the baseline's: its binary runs 8 % above
    // the baseline, and a shift ratio read from the wrong place would show it.
    let cell = |name: &str| row[column(&headers, name)].parse::<f64>().unwrap();
    assert_eq!(
        cell("shift_ratio"),
        series["shift"]["ratio"].as_f64().unwrap()
    );
    assert_ne!(cell("as_built_shift_ratio"), cell("shift_ratio"));
    assert!(cell("as_built_mean") > cell("mean"), "{row:?}");
}

#[test]
fn the_as_built_columns_are_empty_when_the_build_kept_none() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), None);
    let json: Value =
        serde_json::from_str(&report_stdout(tmp.path(), &["--format", "json"])).unwrap();
    assert!(json["series"][0].get("as_built").is_none(), "{json:#}");
    let (headers, row) = csv_series_row(tmp.path());
    for (name, _) in AS_BUILT_COLUMNS {
        assert_eq!(&row[column(&headers, name)], "", "{name}");
    }
    // The series' own answer is there all the same.
    assert_eq!(&row[column(&headers, "shift")], "detected");
}
