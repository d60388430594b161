//! No interval of a positive quantity reaches zero or below, in any output (issue 36, item 5):
//! one walk over every output that prints or writes intervals — `report` in every format,
//! `compare` of directories and of CSV files in text and JSON, `analyze`, `dimension` — on
//! seeded stores whose binaries vary as much as their mean (3 binaries: the symmetric t,
//! Fieller's and Tukey's intervals would reach below zero) and whose binaries are constant
//! (a bootstrap of 3 units whose resampled standard errors are rounding residues would print
//! "0 to ∞"). Every such interval is either above zero or withheld with the rule's reason.

use crate::csv_support;
use crate::report_support;

use std::collections::HashMap;
use std::path::Path;

use crate::compare_pair::subdir;
use report_support::{layoutrand, write_dir, Design, Normal};
use serde_json::Value;

/// 3 binaries per variant whose means are lognormal with σ = 1.5 (each variant and seed its
/// own draw from stream `stream`), 2 executions of 3 iterations with 1 % noise, a baseline;
/// `variants` variants (none for 0).
fn wild(dir: &Path, variants: usize, stream: u64) {
    let mut design = Design::new(3, 2, 3);
    design.variants = (0..variants)
        .map(|v| (format!("O{}", v + 1), 1.0))
        .collect();
    // The store writer asks each (binary, execution, iteration) once per variant, the
    // variants in order: the count of earlier calls is the variant.
    let mut calls: HashMap<(Option<u64>, u32, u32, usize), u64> = HashMap::new();
    let mut noise = Normal::new(stream, "wild-noise");
    write_dir(dir, &design, &mut |_, seed, execution, iteration, m| {
        let count = calls.entry((seed, execution, iteration, m)).or_default();
        let variant = *count;
        *count += 1;
        let layout = Normal::new(
            stream * 1000 + variant * 100 + seed.unwrap_or(99),
            "wild-layout",
        )
        .draw();
        1e7 * (1.5 * layout).exp() * (1.0 + 0.01 * noise.draw())
    });
}

/// 3 binaries whose every value is their own constant (1.0, 1.1, 1.2 × 10⁷ ns), a baseline.
fn constant(dir: &Path) {
    let design = Design::new(3, 2, 2);
    write_dir(dir, &design, &mut |_, seed, _, _, _| {
        1e7 * (1.0 + 0.1 * (seed.unwrap_or(1) - 1) as f64)
    });
}

/// The output of `layoutrand ARGS DIRS`, which must not be an error (a crash, a refusal).
fn stdout(args: &[&str], dirs: &[&Path]) -> String {
    let out = layoutrand(args, dirs);
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{args:?} {dirs:?}: {out:?}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Interval objects whose quantity may be negative (a difference) or is a share or spread
/// that may be zero (written `≥ 0`).
fn kind_of(key: &str, parent: &serde_json::Map<String, Value>) -> Bound {
    match key {
        "welch" | "paired_difference" | "paired_relative_ci" => Bound::Signed,
        "ci" if parent.contains_key("difference") => Bound::Signed,
        "spread_ci" | "cv_across_binaries_ci" | "sped_up_ci" | "share_below" => Bound::NonNegative,
        _ => Bound::Positive,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Bound {
    Positive,
    NonNegative,
    Signed,
}

/// The interval's bounds when `v` is one: `lower`/`upper` or `lower_value`/`upper_value`.
fn bounds(v: &serde_json::Map<String, Value>) -> Option<(f64, f64)> {
    for (l, u) in [("lower", "upper"), ("lower_value", "upper_value")] {
        if let (Some(l), Some(u)) = (v.get(l), v.get(u)) {
            return Some((l.as_f64()?, u.as_f64()?));
        }
    }
    None
}

/// Walks a JSON output; every interval of a positive quantity must lie above zero, every
/// share or spread at or above zero. Returns how many intervals it checked.
fn walk(v: &Value, key: &str, parent: &serde_json::Map<String, Value>, what: &str) -> usize {
    match v {
        Value::Object(o) => {
            let mut n = 0;
            if let Some((lower, upper)) = bounds(o) {
                n += 1;
                assert!(upper.is_finite(), "{what}: {key} = {v}");
                match kind_of(key, parent) {
                    Bound::Positive => assert!(lower > 0.0, "{what}: {key} = {v}"),
                    Bound::NonNegative => assert!(lower >= 0.0, "{what}: {key} = {v}"),
                    Bound::Signed => {}
                }
            }
            n + o.iter().map(|(k, x)| walk(x, k, o, what)).sum::<usize>()
        }
        Value::Array(a) => a.iter().map(|x| walk(x, key, parent, what)).sum(),
        _ => 0,
    }
}

fn check_json(text: &str, what: &str) -> usize {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}: {text}"));
    walk(&v, "", &serde_json::Map::new(), what)
}

/// Text, Markdown, HTML: no bound below zero after an interval's opening, no zero lower
/// bound of a time, no infinite upper bound.
fn check_prose(text: &str, what: &str) {
    let below_zero = regex::Regex::new(r"(CI|interval|…|\bto)\s*:?\s*[−-]\s?\d").unwrap();
    let zero_time = regex::Regex::new(r"\b0(\.0+)? ?(ns|µs|ms|s) (to|…)").unwrap();
    // An infinite bound (dimension's "∞" binaries needed is a count, not a bound).
    let infinite = regex::Regex::new(r"(to|…)\s*∞").unwrap();
    for line in text.lines() {
        // The differences (Welch, matched pairs) are signed quantities.
        if line.contains("new − base") || line.contains("of the base mean") {
            continue;
        }
        assert!(!below_zero.is_match(line), "{what}: {line}");
        assert!(!zero_time.is_match(line), "{what}: {line}");
        assert!(!infinite.is_match(line), "{what}: {line}");
    }
}

/// The report CSV: every interval column holds a positive quantity.
fn check_csv(text: &str, what: &str) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let headers = r.headers().unwrap().clone();
    for row in r.records() {
        let row = row.unwrap();
        for (h, cell) in headers.iter().zip(row.iter()) {
            if (h.ends_with("_lower") || h.ends_with("_upper")) && !cell.is_empty() {
                let x: f64 = cell.parse().unwrap();
                assert!(x > 0.0 && x.is_finite(), "{what}: {h} = {cell}");
            }
        }
    }
}

/// Bencher Metric Format: each measure's value within its bounds, the mean's bounds above 0.
fn check_bmf(text: &str, what: &str) {
    let v: Value = serde_json::from_str(text).unwrap();
    for (bench, measures) in v.as_object().unwrap() {
        for (slug, m) in measures.as_object().unwrap() {
            let value = m["value"].as_f64().unwrap();
            if let Some((lower, upper)) = bounds(m.as_object().unwrap()) {
                assert!(
                    lower <= value && value <= upper,
                    "{what}: {bench} {slug}: {m}"
                );
                if !slug.ends_with("-percent") {
                    assert!(lower > 0.0, "{what}: {bench} {slug}: {m}");
                }
            }
        }
    }
}

/// Tukey's pairs in a report's JSON: a pair's ratio interval is given, or withheld with the
/// reason ("cannot tell how precisely: …"), never both, never neither. Returns the pairs
/// whose interval was withheld.
fn check_tukey_notes(text: &str, what: &str) -> usize {
    let v: Value = serde_json::from_str(text).unwrap();
    let mut withheld = 0;
    for family in v["multiple"].as_array().unwrap() {
        for pair in family["pairs"].as_array().unwrap() {
            let (ci, note) = (&pair["ratio_ci"], &pair["ratio_ci_note"]);
            match (ci.is_null(), note.as_str()) {
                (true, Some(n)) if n.starts_with("cannot tell how precisely: ") => withheld += 1,
                (false, None) => {}
                _ => panic!("{what}: Tukey pair {pair}"),
            }
        }
    }
    withheld
}

/// Every format of `report DIR --bootstrap 1000`; returns the intervals the JSON held.
fn check_report(dir: &Path, what: &str) -> usize {
    let base = ["report", "--bootstrap", "1000", "--format"];
    let with = |f: &str| {
        let mut a = base.to_vec();
        a.push(f);
        stdout(&a, &[dir])
    };
    for f in ["text", "markdown", "html", "summary"] {
        check_prose(&with(f), &format!("{what} report {f}"));
    }
    check_csv(&with("csv"), &format!("{what} report csv"));
    check_bmf(&with("bmf"), &format!("{what} report bmf"));
    let json = with("json");
    let tukey_withheld = check_tukey_notes(&json, what);
    // The variants are as wild as the binaries: some Tukey ratio reaches below zero.
    assert!(what != "variants" || tukey_withheld > 0, "{what}: {json}");
    check_json(&json, &format!("{what} report json"))
}

#[test]
fn no_output_prints_an_interval_of_a_positive_quantity_at_or_below_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, plain2) = (subdir(&tmp, "plain"), subdir(&tmp, "plain2"));
    wild(&plain, 0, 1);
    wild(&plain2, 0, 2);
    let (three, three2) = (subdir(&tmp, "three"), subdir(&tmp, "three2"));
    wild(&three, 3, 3);
    wild(&three2, 3, 4);
    let flat = subdir(&tmp, "constant");
    constant(&flat);

    let mut checked = 0;
    for (dir, what) in [(&plain, "plain"), (&three, "variants"), (&flat, "constant")] {
        checked += check_report(dir, what);
        check_prose(
            &stdout(&["dimension"], &[dir]),
            &format!("{what} dimension"),
        );
        checked += check_json(
            &stdout(&["dimension", "--format", "json"], &[dir]),
            &format!("{what} dimension json"),
        );
    }
    for (a, b, what) in [(&plain, &plain2, "plain"), (&three, &three2, "variants")] {
        let compare = ["compare", "--bootstrap", "1000"];
        check_prose(&stdout(&compare, &[a, b]), &format!("compare {what}"));
        let mut json = compare.to_vec();
        json.extend(["--format", "json"]);
        checked += check_json(&stdout(&json, &[a, b]), &format!("compare {what} json"));
    }
    checked += check_csv_commands();
    // The walk saw intervals (a walk over nothing would pass).
    assert!(checked >= 20, "only {checked} intervals checked");
}

/// `compare A.csv B.csv` and `analyze A.csv` on three binaries as wild as the stores'.
fn check_csv_commands() -> usize {
    let rows = |means: [f64; 3]| {
        let mut text = "binary,execution,value\n".to_string();
        let mut noise = Normal::new(means[0] as u64, "csv-noise");
        for (b, m) in means.iter().enumerate() {
            for e in 0..3 {
                let v = m * (1.0 + 0.01 * noise.draw());
                text.push_str(&format!("seed-{b},{e},{v}\n"));
            }
        }
        csv_support::temp_csv(&text)
    };
    let (a, b) = (rows([1.0, 2.0, 30.0]), rows([2.0, 1.0, 25.0]));
    let (a, b) = (csv_support::arg(&a), csv_support::arg(&b));
    let columns = ["--levels", "binary,execution", "--value", "value"];
    let mut compare = vec!["compare", a, b, "--bootstrap", "1000"];
    compare.extend(columns);
    check_prose(&stdout(&compare, &[]), "compare csv");
    compare.extend(["--format", "json"]);
    let mut n = check_json(&stdout(&compare, &[]), "compare csv json");
    let mut analyze = vec!["analyze", a, "--bootstrap", "1000"];
    analyze.extend(columns);
    check_prose(&stdout(&analyze, &[]), "analyze");
    analyze.extend(["--format", "json"]);
    n += check_json(&stdout(&analyze, &[]), "analyze json");
    n
}
