//! `report --sequential [--target P]` on synthetic stores with known answers: where each
//! series and comparison stops, why, with which interval, and how every format shows it.

use crate::report_support;
use crate::snapshot_support::{in_dir, stderr_in};

use report_support::{report_stdout as report, write_dir, Design, ThreeLevel};
use serde_json::Value;

/// `seeds` seeds × 3 executions × 5 iterations of `demo` under `variants` (name, factor on
/// every value), a 3 % layout effect shared by the variants of one seed.
fn store(dir: &std::path::Path, seeds: u64, variants: &[(&str, f64)]) {
    let mut design = Design::new(seeds, 3, 5);
    design.variants = variants.iter().map(|(n, f)| (n.to_string(), *f)).collect();
    let mut gen = ThreeLevel::new(7, 4e6, 0.03, 0.004, 0.01, 0.0);
    write_dir(dir, &design, &mut |_, seed, e, _, _| gen.value(seed, e));
}

fn json(dir: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["--format", "json", "--sequential"];
    all.extend_from_slice(args);
    serde_json::from_str(&report(dir, &all)).unwrap()
}

#[test]
fn a_five_percent_speedup_stops_early_with_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 30, &[("base", 1.0), ("fast", 0.95)]);
    let r = json(dir.path(), &[]);
    let q = &r["comparisons"][0]["sequential"];
    assert_eq!(q["reason"], "verdict", "{q}");
    // One vocabulary: the verdict is the effect's word, the metric's word is the direction.
    assert_eq!(q["verdict"], "lower");
    assert_eq!(q["verdict"], q["effect"]["verdict"]);
    assert_eq!(q["direction"], "faster");
    let stopped = q["stopped_at"].as_u64().unwrap();
    assert!((5..30).contains(&stopped), "{stopped}");
    assert_eq!(q["looks"].as_u64().unwrap(), stopped - 4);
    assert_eq!(q["available"], 30);
    let ci = &q["at_stop"]["ci"];
    let (lo, hi) = (ci["lower"].as_f64().unwrap(), ci["upper"].as_f64().unwrap());
    assert!(0.0 < lo && lo < 0.95 && 0.95 < hi && hi < 1.0, "{ci}");
    // A look after every binary from the fifth, each positive, narrowing overall.
    let seq = q["sequence"].as_array().unwrap();
    assert_eq!(seq.len(), 26);
    assert_eq!(seq[0]["binaries"], 5);
    for l in seq.iter().filter(|l| !l["ci"].is_null()) {
        assert!(l["ci"]["lower"].as_f64().unwrap() > 0.0);
    }
    let width = |l: &Value| l["relative_half_width"].as_f64().unwrap();
    assert!(width(&seq[25]) < width(&seq[stopped as usize - 5]));
}

#[test]
fn series_stop_at_the_target_or_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 12, &[]);
    // 3 % layout spread: ± 1 % needs far more than 12 binaries, ± 20 % is met early.
    let r = json(dir.path(), &[]);
    let q = &r["series"][0]["sequential"];
    assert_eq!(q["reason"], "cap", "{q}");
    assert_eq!(q["stopped_at"], 12);
    assert_eq!(q["target"], 0.01);
    assert!(q["verdict"].is_null() && q["direction"].is_null());
    let r = json(dir.path(), &["--target", "20%"]);
    let q = &r["series"][0]["sequential"];
    assert_eq!(q["reason"], "target_reached", "{q}");
    assert!(q["at_stop"]["relative_half_width"].as_f64().unwrap() <= 0.2);
    assert!(q["stopped_at"].as_u64().unwrap() < 12);
    // Without --sequential the field is absent.
    let plain: Value = serde_json::from_str(&report(dir.path(), &["--format", "json"])).unwrap();
    assert!(plain["series"][0].get("sequential").is_none());
}

#[test]
fn text_and_html_show_the_section() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 10, &[("base", 1.0), ("fast", 0.95)]);
    // The section's title and place: the snapshots; here the sequence without a horizon.
    // A store not grown with a maximum: the calibrated sequence (Lai's t-mixture, its
    // level calibrated), no horizon; the comparison's line (fast against base: stopped at
    // …) and its sequence. The text pinned whole.
    let text = report(dir.path(), &["--sequential"]);
    insta::assert_snapshot!("sequential_text", in_dir(&text, dir.path()));
    let html = report(dir.path(), &["--sequential", "--format", "html"]);
    let at = html
        .find("<section id=\"sequential\">")
        .expect("the section");
    let svg = &html[at..];
    let svg = &svg[svg.find("<svg").unwrap()..];
    let svg = &svg[..svg.find("</svg>").unwrap() + 6];
    roxmltree::Document::parse(svg).unwrap();
    // The figure, pinned whole (its stopping point marked).
    insta::assert_snapshot!("sequential_svg", svg);
}

#[test]
fn target_takes_the_one_percent_parser_and_needs_sequential() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 6, &[]);
    let run = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("layoutrand")
            .unwrap()
            .arg("report")
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--target", "1%"]);
    assert!(!out.status.success());
    let out = run(&["--sequential", "--target", "2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The message, pinned whole: did you mean 2%?
    insta::assert_snapshot!(stderr_in(&out, dir.path()));
    assert!(run(&["--sequential", "--target", "0.02"]).status.success());
}

/// Writes `OUT/stopping.json` as `experiment` does for a rule watching `method` with a
/// maximum of `max_binaries` (the fields the report reads; the rounds do not matter).
fn stopping_log(dir: &std::path::Path, method: &str, max_binaries: u32) {
    let log = serde_json::json!({
        "rule": {"target": 0.01, "confidence": 0.95, "max_binaries": max_binaries, "metric": "wall"},
        "start_binaries": 5,
        "rounds": [{"binaries": max_binaries, "relative_half_width": 0.02}],
        "outcome": "max_reached",
        "caveat": "",
        "method": method,
    });
    std::fs::write(dir.join("stopping.json"), log.to_string()).unwrap();
}

#[test]
fn a_store_without_a_horizon_tunes_the_sequence_to_its_size() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 30, &[("base", 1.0), ("fast", 0.99)]);
    let r = json(dir.path(), &[]);
    for q in [
        &r["series"][0]["sequential"],
        &r["comparisons"][0]["sequential"],
    ] {
        assert_eq!(q["method"], "lai_calibrated", "{q}");
        assert_eq!(q["planned_binaries"], 30, "{q}");
        assert!(q.get("horizon").is_none(), "{q}");
    }
    // A store grown by the first rule, which watched Lai's mixture tuned at 20 binaries, is
    // replayed as that rule saw it, and its intervals are narrower than the engine's (the
    // nominal level against the calibrated one, which is at most the nominal).
    let engine = r["series"][0]["sequential"].clone();
    stopping_log(dir.path(), "lai_t_mixture", 30);
    let r = json(dir.path(), &[]);
    let old = &r["series"][0]["sequential"];
    assert_eq!(old["method"], "lai_t_mixture", "{old}");
    assert_eq!(old["planned_binaries"], 20);
    assert_ne!(old["sequence"], engine["sequence"]);
}

#[test]
fn a_store_grown_by_the_calibrated_rule_replays_up_to_its_maximum() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 30, &[]);
    stopping_log(dir.path(), "lai_calibrated", 20);
    let r = json(dir.path(), &["--target", "0.1%"]);
    let q = &r["series"][0]["sequential"];
    assert_eq!(q["method"], "lai_calibrated", "{q} {}", r["warnings"]);
    // Tuned and calibrated at the maximum, the looks up to it, the rest outside the plan.
    assert_eq!(q["horizon"], 20);
    assert_eq!(q["planned_binaries"], 20);
    assert_eq!(q["available"], 20);
    assert_eq!(q["beyond_horizon"], 10);
    let seq = q["sequence"].as_array().unwrap();
    assert_eq!(seq.len(), 16);
    // Lai's sequence is unbounded at the first looks ("cannot tell"), bounded and positive
    // by the maximum.
    assert!(seq[0]["ci"].is_null(), "{}", seq[0]);
    assert!(seq.last().unwrap()["ci"]["lower"].as_f64().unwrap() > 0.0);
    // The sentence, pinned whole: a 95 % confidence sequence (looks 5 to 20), the 10 later
    // binaries outside the plan (past the maximum of 20).
    insta::assert_snapshot!(q["text"].as_str().unwrap());
    // The same store as an old repeated-t store gives other numbers: each replays as
    // recorded.
    stopping_log(dir.path(), "repeated_t", 20);
    let old = &json(dir.path(), &["--target", "0.1%"])["series"][0]["sequential"];
    assert_eq!(old["method"], "repeated_t");
    assert_ne!(old["sequence"], q["sequence"]);
}

#[test]
fn a_store_grown_past_its_maximum_keeps_the_looks_up_to_it() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 30, &[]);
    stopping_log(dir.path(), "repeated_t", 20);
    let r = json(dir.path(), &["--target", "0.1%"]);
    let q = &r["series"][0]["sequential"];
    assert_eq!(q["method"], "repeated_t", "{q} {}", r["warnings"]);
    assert_eq!(q["horizon"], 20);
    assert_eq!(q["available"], 20);
    assert_eq!(q["beyond_horizon"], 10);
    assert_eq!(q["reason"], "cap");
    // Every look up to the maximum, each bounded (repeated t intervals are from the first).
    let seq = q["sequence"].as_array().unwrap();
    assert_eq!(seq.len(), 16);
    assert_eq!(seq.last().unwrap()["binaries"], 20);
    assert!(seq.iter().all(|l| l["ci"]["lower"].as_f64().unwrap() > 0.0));
    // The sentence, pinned whole: the 10 later binaries outside the plan (past the maximum
    // of 20).
    insta::assert_snapshot!("past_the_maximum", q["text"].as_str().unwrap());
    // Within the maximum nothing is outside the plan.
    stopping_log(dir.path(), "repeated_t", 30);
    let q = &json(dir.path(), &[])["series"][0]["sequential"];
    assert_eq!(q["beyond_horizon"], 0, "{q}");
    insta::assert_snapshot!("within_the_maximum", q["text"].as_str().unwrap());
}
