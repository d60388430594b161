//! One pair analysis (issue 21): the same two builds give the same ratio, interval and
//! verdict through `report` (two variants in one experiment), `compare DIR DIR` (one
//! experiment per build) and `compare A.csv B.csv` (their exports, rows carrying the binary
//! ids); without seeds in common, `compare` falls back to eq. 5 and says so. The stores are
//! written with the real store writer (`report_support`).

use crate::report_support;

use std::path::{Path, PathBuf};

use report_support::{write_dir, Design, Normal};
use serde_json::Value;

const SEEDS: u64 = 12;
const EXECUTIONS: u32 = 3;
const ITERATIONS: u32 = 2;
/// The true time of each variant relative to the first: O2 is 4 % faster.
const FACTOR: [f64; 2] = [1.0, 0.96];

/// The keys of the pair object that `report` (variants) and `compare` (both modes) share.
const SHARED: [&str; 11] = [
    "ratio",
    "ci",
    "paired",
    "bootstrap",
    "share_below",
    "interaction",
    "binaries",
    "basis",
    "effect",
    "direction",
    "slower_beyond_threshold",
];

/// One measurement of variant `v` on binary `seed`: a 3 % layout effect shared by both
/// variants (the seed's own stream), a 0.5 % layout effect of the variant's own, and
/// execution and iteration noise, each drawn from a stream named by what it depends on, so
/// that every store holding (seed, variant, execution, iteration) holds the same value.
fn value(seed: u64, v: usize, execution: u32, iteration: u32) -> f64 {
    let v = v as u64;
    let (e, i) = (u64::from(execution), u64::from(iteration));
    let layout = 0.03 * Normal::new(seed, "pair-layout").draw();
    let own = 0.005 * Normal::new(seed * 10 + v, "pair-own-layout").draw();
    let exec = 0.004 * Normal::new((seed * 10 + v) * 100 + e, "pair-execution").draw();
    let iter = 0.002 * Normal::new(((seed * 10 + v) * 100 + e) * 100 + i, "pair-iter").draw();
    1e7 * FACTOR[v as usize] * (1.0 + layout + own + exec + iter)
}

fn design(first_seed: u64) -> Design {
    let mut d = Design::new(SEEDS, EXECUTIONS, ITERATIONS);
    d.baseline = false;
    d.first_seed = first_seed;
    d
}

/// One experiment holding both variants O1 and O2 on the same seeds. The writer asks for
/// the values of one (binary, variant) after the other, `ITERATIONS` at a time (one metric,
/// no warmup, O1 before O2), which tells the variant of each call.
fn variants_experiment(dir: &Path) {
    let mut d = design(1);
    d.variants = vec![("O1".into(), 1.0), ("O2".into(), 1.0)];
    let mut calls = 0u32;
    write_dir(dir, &d, &mut |_, seed, execution, iteration, _| {
        let v = ((calls / ITERATIONS) % 2) as usize;
        calls += 1;
        value(seed.unwrap(), v, execution, iteration)
    });
}

/// One experiment holding variant `v` alone, on the seeds from `first_seed`.
fn single_experiment(dir: &Path, v: usize, first_seed: u64) {
    write_dir(
        dir,
        &design(first_seed),
        &mut |_, seed, execution, iteration, _| value(seed.unwrap(), v, execution, iteration),
    );
}

fn layoutrand(args: &[&str], paths: &[&Path]) -> Value {
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

pub(crate) fn subdir(tmp: &tempfile::TempDir, name: &str) -> PathBuf {
    let d = tmp.path().join(name);
    std::fs::create_dir(&d).unwrap();
    d
}

/// `|a − b| ≤ tol·|b|` for every number of two JSON values of the same shape.
fn assert_close(a: &Value, b: &Value, tol: f64, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= tol * y.abs(), "{at}: {x} against {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (k, (x, y)) in x.iter().zip(y).enumerate() {
                assert_close(x, y, tol, &format!("{at}[{k}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: {x:?} against {y:?}");
            for (k, v) in x {
                assert_close(v, &y[k], tol, &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

#[test]
fn report_and_compare_give_one_answer_for_the_same_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let (both, o1, o2) = (subdir(&tmp, "both"), subdir(&tmp, "o1"), subdir(&tmp, "o2"));
    variants_experiment(&both);
    single_experiment(&o1, 0, 1);
    single_experiment(&o2, 1, 1);
    let report = layoutrand(&["report", "--format", "json"], &[&both]);
    let r = &report["comparisons"][0];
    assert_eq!((&r["base"], &r["new"]), (&"O1".into(), &"O2".into()));
    // `report` draws 2000 bootstrap resamples with seed 1 by default; `compare` the same
    // when asked for 2000.
    let cmp = layoutrand(
        &["compare", "--format", "json", "--bootstrap", "2000"],
        &[&o1, &o2],
    );
    let c = &cmp["programs"][0];
    for key in SHARED {
        assert_eq!(
            r[key], c[key],
            "{key}: report {} compare {}",
            r[key], c[key]
        );
    }
    // And the answer is the paired one: 4 % faster, within an interval narrower than eq. 5's.
    assert_eq!(c["basis"], "paired");
    assert_eq!(c["direction"], "faster");
    assert_eq!(c["binaries"].as_array().unwrap().len(), SEEDS as usize);
    let (lo, hi) = (
        c["effect"]["ci"]["lower"].as_f64().unwrap(),
        c["effect"]["ci"]["upper"].as_f64().unwrap(),
    );
    assert!(lo < 0.96 && 0.96 < hi, "{lo} {hi}");
    let eq5 = c["ci"]["upper"].as_f64().unwrap() - c["ci"]["lower"].as_f64().unwrap();
    assert!(hi - lo < eq5 / 2.0, "paired {lo}..{hi}, eq. 5 width {eq5}");
    // The words agree too: `compare`'s summary carries the report's effect words.
    let words = r["effect"]["words"].as_str().unwrap();
    assert!(c["summary"].as_str().unwrap().contains(words), "{c}");
    // The summary, pinned whole: (paired by binary, 12 pairs).
    insta::assert_snapshot!("paired_summary", c["summary"].as_str().unwrap());
    // The text shows eq. 5 beside the verdict's interval, with the JSON's numbers.
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .arg("compare")
        .args([&o1, &o2])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let eq5 = format!(
        "  eq. 5 (Fieller, independent sides): new/base {:.4} … {:.4}",
        c["ci"]["lower"].as_f64().unwrap(),
        c["ci"]["upper"].as_f64().unwrap()
    );
    assert!(text.contains(&eq5), "{eq5} not in {text}");
}

#[test]
fn compare_of_csv_exports_with_matching_binary_ids_gives_the_same_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let (o1, o2) = (subdir(&tmp, "o1"), subdir(&tmp, "o2"));
    single_experiment(&o1, 0, 1);
    single_experiment(&o2, 1, 1);
    let (a, b) = (tmp.path().join("o1.csv"), tmp.path().join("o2.csv"));
    for (dir, csv) in [(&o1, &a), (&o2, &b)] {
        let out = assert_cmd::Command::cargo_bin("layoutrand")
            .unwrap()
            .args(["export", "-o"])
            .arg(csv)
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let dirs = layoutrand(&["compare", "--format", "json"], &[&o1, &o2]);
    let d = &dirs["programs"][0];
    let csv = layoutrand(
        &[
            "compare",
            "--format",
            "json",
            "--levels",
            "binary,execution,iteration",
            "--value",
            "value",
        ],
        &[&a, &b],
    );
    assert_eq!(csv["basis"], "paired");
    // The CSV loader may order the binaries differently: compare them by name.
    let by_name = |v: &Value| {
        let mut m: Vec<Value> = v["binaries"].as_array().unwrap().clone();
        m.sort_by_key(|b| b["binary"].as_str().unwrap().to_string());
        Value::Array(m)
    };
    assert_close(&by_name(&csv), &by_name(d), 1e-12, "binaries");
    for key in SHARED
        .iter()
        .filter(|k| !matches!(**k, "binaries" | "bootstrap"))
    {
        // The same statistics on the same binary means, summed in another order.
        assert_close(&csv[key], &d[key], 1e-9, key);
    }
}

#[test]
fn compare_without_seeds_in_common_falls_back_to_eq5_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (o1, o2) = (subdir(&tmp, "o1"), subdir(&tmp, "o2"));
    single_experiment(&o1, 0, 1);
    single_experiment(&o2, 1, 101);
    let cmp = layoutrand(&["compare", "--format", "json"], &[&o1, &o2]);
    let c = &cmp["programs"][0];
    assert_eq!(c["basis"], "fieller");
    assert!(c["paired"].is_null() && c["share_below"].is_null(), "{c}");
    assert_eq!(c["binaries"], Value::Array(Vec::new()));
    // The verdict's interval is eq. 5's.
    assert_eq!(c["effect"]["ci"], c["ci"]);
    // The summary and the warnings, pinned whole: the Fieller interval (independent
    // sides), for fewer than two binaries in common (0 of 12 and 12).
    insta::assert_snapshot!("unpaired_summary", c["summary"].as_str().unwrap());
    insta::assert_snapshot!(
        "unpaired_warnings",
        serde_json::to_string_pretty(&c["warnings"]).unwrap()
    );
}

/// Bencher Metric Format (`report --format bmf`, issue 24): every benchmark → measure →
/// `{value, lower_value?, upper_value?}` as Bencher's published JSON schema requires (an
/// object of objects of objects, `value` a required number, the bounds optional numbers), and
/// the numbers are the JSON report's: the mean and its interval, the layout variation, the
/// default layout's shift and the variant against the base on the verdict's interval.
#[test]
fn the_bencher_metric_format_carries_the_reports_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let both = subdir(&tmp, "both");
    variants_experiment(&both);
    let report = layoutrand(&["report", "--format", "json"], &[&both]);
    let bmf = layoutrand(&["report", "--format", "bmf"], &[&both]);
    // The schema (https://bencher.dev/bmf.json, draft-07), checked by hand: no other shape.
    let benchmarks = bmf.as_object().expect("an object of benchmarks");
    assert!(!benchmarks.is_empty());
    for (name, measures) in benchmarks {
        assert!(!name.is_empty() && name.len() <= 1024, "{name}");
        for (slug, metric) in measures.as_object().expect("an object of measures") {
            assert!(!slug.is_empty() && slug.len() <= 64, "{slug}");
            let m = metric.as_object().expect("a metric object");
            assert!(m["value"].is_f64(), "{name} {slug}: {metric}");
            for (key, v) in m {
                assert!(
                    ["value", "lower_value", "upper_value"].contains(&key.as_str()) && v.is_f64(),
                    "{name} {slug}: {key} = {v}"
                );
            }
            if let (Some(l), Some(u)) = (m.get("lower_value"), m.get("upper_value")) {
                let (l, u, v) = (
                    l.as_f64().unwrap(),
                    u.as_f64().unwrap(),
                    m["value"].as_f64().unwrap(),
                );
                assert!(l <= v && v <= u, "{name} {slug}: {metric}");
            }
        }
    }
    let close = |a: &Value, b: f64| {
        a.as_f64()
            .is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1e-300))
    };
    for s in report["series"].as_array().unwrap() {
        let name = format!(
            "{} [{}]",
            s["program"].as_str().unwrap(),
            s["variant"].as_str().unwrap()
        );
        let metric = s["metric"].as_str().unwrap().replace('_', "-");
        let b = &bmf[&name];
        assert!(
            close(&b[&metric]["value"], s["mean"].as_f64().unwrap()),
            "{name} {metric}"
        );
        assert!(
            close(
                &b[&metric]["lower_value"],
                s["ci"]["lower"].as_f64().unwrap()
            ),
            "{name} {metric}: {bmf}"
        );
        assert!(
            close(
                &b[&metric]["upper_value"],
                s["ci"]["upper"].as_f64().unwrap()
            ),
            "{name} {metric}: {bmf}"
        );
        let variation = s["sensitivity"]["layout_variation"].as_f64().unwrap();
        let layout = &b[&format!("{metric}-layout-variation-percent")];
        assert!(
            close(&layout["value"], 100.0 * variation),
            "{name} {metric}: {bmf}"
        );
        // The layout's own share has no interval: the chi-square interval is the binaries'
        // spread's, written with its own value (issue 36, item 4: value 0.0 sat below
        // bounds 8.17–21.68).
        assert!(
            layout.get("lower_value").is_none(),
            "{name} {metric}: {layout}"
        );
        let spread = &b[&format!("{metric}-binary-spread-percent")];
        let sens = &s["sensitivity"];
        assert!(
            close(
                &spread["value"],
                100.0 * sens["cv_across_binaries"].as_f64().unwrap()
            ),
            "{name} {metric}: {spread}"
        );
        for (bound, key) in [("lower_value", "lower"), ("upper_value", "upper")] {
            let want = sens["cv_across_binaries_ci"][key].as_f64().unwrap();
            assert!(
                close(&spread[bound], 100.0 * want),
                "{name} {metric}: {spread}"
            );
        }
    }
    let c = &report["comparisons"][0];
    let ratio = c["effect"]["ratio"].as_f64().unwrap();
    let new = format!("{} [O2]", c["program"].as_str().unwrap());
    let measure = &bmf[&new][&format!(
        "{}-vs-o1-percent",
        c["metric"].as_str().unwrap().replace('_', "-")
    )];
    assert!(
        close(&measure["value"], 100.0 * (ratio - 1.0)),
        "{measure} {c}"
    );
    let lower = c["effect"]["ci"]["lower"].as_f64().unwrap();
    assert!(
        close(&measure["lower_value"], 100.0 * (lower - 1.0)),
        "{measure} {c}"
    );
}

/// `report --format summary` (issue 24): a few lines of Markdown that lead with the
/// answers — the comparison's verdict and effect words first, then a row per series — in the
/// JSON report's words.
#[test]
fn the_summary_leads_with_the_reports_answers_in_a_few_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let both = subdir(&tmp, "both");
    variants_experiment(&both);
    let report = layoutrand(&["report", "--format", "json"], &[&both]);
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(["report", "--format", "summary"])
        .arg(&both)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().count() <= 40, "{text}");
    let c = &report["comparisons"][0];
    let first_row = text
        .lines()
        .find(|l| l.starts_with("| ") && !l.starts_with("| variant"))
        .unwrap();
    for word in [
        c["direction"].as_str().unwrap(),
        c["effect"]["words"].as_str().unwrap(),
        c["base"].as_str().unwrap(),
    ] {
        assert!(first_row.contains(word), "{word} not in {first_row}");
    }
    let series = report["series"].as_array().unwrap();
    let rows = text
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(" [O"))
        .count();
    assert_eq!(
        rows,
        series.len() + report["comparisons"].as_array().unwrap().len(),
        "{text}"
    );
}
