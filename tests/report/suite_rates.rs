//! Issue 52: a suite of many cases claims no more than its cases' count allows. Seeded
//! simulations of suites of 100 cases none of which the layout moves (each case its own
//! noise per binary, execution and iteration): the report's "layout-sensitive" claims across
//! the cases (held at a false discovery rate by Benjamini–Hochberg, which under this global
//! null holds the family-wise rate) and, for two identical variants, its "faster"/"slower"
//! claims across the cases (Bonferroni over the cases) and for the suite (one ratio of
//! geometric means) are each made in at most about 5 % of experiments; the same tests
//! uncorrected would claim something in nearly every one. Last, the page a suite gets.

use crate::report_support;

use std::path::Path;

use layoutrand::analysis::answers::builder::analyse;
use layoutrand::analysis::answers::experiment::from_parts;
use layoutrand::analysis::vocabulary::Thresholds;
use report_support::{manifest, results, Design, Normal};

const CASES: usize = 100;

/// A suite of [`CASES`] cases (`case_000` …), `lines` in the header, 6 seeds × 2 executions ×
/// 2 iterations; with `variants`, two of them with the same values' law.
fn design(variants: bool) -> Design {
    let mut d = Design::new(6, 2, 2);
    d.baseline = false;
    d.metrics = (0..CASES)
        .map(|c| (format!("case_{c:03}"), "ns".to_string()))
        .collect();
    d.spec = Some("lines".into());
    if variants {
        d.variants = vec![("A".into(), 1.0), ("B".into(), 1.0)];
    }
    d
}

/// The report of one simulated experiment: every value 1000 ns · (1 + 0.01 N) with a fresh
/// draw per execution (a process's own noise) and per iteration; no binary effect.
fn report(seed: u64, variants: bool) -> layoutrand::analysis::answers::model::Report {
    let d = design(variants);
    let mut noise = Normal::new(seed, "suite-rates");
    let mut per_execution = std::collections::HashMap::new();
    let r = results(&d, &mut |_, binary, execution, _, metric| {
        let e = *per_execution
            .entry((binary, execution, metric))
            .or_insert_with(|| 0.01 * noise.draw());
        1000.0 * (1.0 + e + 0.002 * noise.draw())
    });
    let e = from_parts(Path::new("synthetic"), manifest(&d), r).unwrap();
    analyse(&e, &Thresholds::default()).unwrap()
}

fn json(report: &layoutrand::analysis::answers::model::Report) -> serde_json::Value {
    serde_json::to_value(report).unwrap()
}

#[test]
fn a_suite_of_unmoved_cases_is_rarely_called_layout_sensitive() {
    let experiments = 40;
    let (mut claimed, mut uncorrected) = (0, 0);
    for seed in 0..experiments {
        let r = json(&report(seed, false));
        let cases: Vec<&serde_json::Value> = r["series"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["metric"].as_str().unwrap().starts_with("case_"))
            .map(|s| &s["sensitivity"])
            .collect();
        assert_eq!(cases.len(), CASES);
        // Every tested case carries its q-value among the suite's.
        assert!(cases
            .iter()
            .all(|s| s["p_value"].is_null()
                || s["suite_fdr"]["cases"].as_u64() <= Some(CASES as u64)));
        claimed += usize::from(cases.iter().any(|s| s["verdict"] == "detected"));
        uncorrected += usize::from(
            cases
                .iter()
                .any(|s| s["p_value"].as_f64().is_some_and(|p| p <= 0.05)),
        );
    }
    eprintln!("layout-sensitive claims: {claimed} of {experiments} experiments ({uncorrected} uncorrected)");
    // Binomial(40, 0.05): at most 6 claims with probability 0.99 when the rate holds.
    assert!(
        claimed <= 6,
        "{claimed} of {experiments} experiments claimed a case"
    );
    assert!(uncorrected >= 35, "only {uncorrected} uncorrected");
}

#[test]
fn identical_variants_of_a_suite_are_rarely_called_faster_or_slower() {
    let experiments = 40;
    let (mut case_claims, mut suite_claims) = (0, 0);
    for seed in 100..100 + experiments {
        let r = json(&report(seed, true));
        let comparisons = r["comparisons"].as_array().unwrap();
        assert_eq!(comparisons.len(), CASES);
        case_claims += usize::from(
            comparisons
                .iter()
                .any(|c| matches!(c["verdict"].as_str(), Some("lower" | "higher"))),
        );
        let suite = &r["suite_comparisons"][0];
        assert_eq!(suite["cases"], CASES);
        suite_claims += usize::from(matches!(
            suite["verdict"].as_str(),
            Some("lower" | "higher")
        ));
    }
    eprintln!("identical variants: a case claimed in {case_claims}, the suite in {suite_claims} of {experiments}");
    assert!(
        case_claims <= 6,
        "{case_claims} of {experiments}: a case claimed"
    );
    assert!(
        suite_claims <= 6,
        "{suite_claims} of {experiments}: the suite claimed"
    );
}

/// The page of a suite: its section with the table ranked, the same table by name, by q-value
/// and by mean folded under it (no script: the page has none), and one dot per case; the text
/// report has the section and the table once.
#[test]
fn a_suite_page_has_its_table_in_every_order_and_a_dot_per_case() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = design(false);
    d.metrics.truncate(12);
    let mut noise = Normal::new(7, "suite-page");
    // Case k moved by the layout in proportion to k: the ranking has something to rank.
    report_support::write_dir(dir.path(), &d, &mut |_, binary, _, _, metric| {
        let layout = binary.map_or(0.0, |b| ((b * 7 + metric as u64) % 5) as f64 - 2.0);
        1000.0 * (1.0 + 0.002 * metric as f64 * layout + 0.001 * noise.draw())
    });
    let html = report_support::report_stdout(dir.path(), &["--format", "html"]);
    assert!(html.contains("<section id=\"suite-0\"><h2>Suite of demo (12 cases)</h2>"));
    for order in [
        "by name",
        "by q-value, the lowest first",
        "by mean, the largest first",
    ] {
        let summary = format!("<summary>The same cases {order}</summary>");
        assert_eq!(html.matches(&summary).count(), 1, "{summary}");
    }
    assert!(html.contains("How far one layout moves each case"));
    assert!(!html.contains("<script"), "the page has no script");
    let text = report_support::report_stdout(dir.path(), &[]);
    assert_eq!(text.matches("Suite of demo (12 cases):").count(), 1);
    assert!(
        !text.contains("The same cases by"),
        "the other orders are the page's"
    );
}

/// One execution per binary, no layout effect: each binary is one process, so a case's
/// process noise (1 %, against 0.2 % between iterations) sets its binaries apart. Counted
/// as layout effects, nearly every case would be "layout-sensitive"; on this time metric
/// none is, and the suite says how many cases cannot tell a layout from a process.
#[test]
fn one_execution_per_binary_calls_no_case_sensitive_for_its_process_noise() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = design(false);
    d.executions = 1;
    d.iterations = 4;
    let mut noise = Normal::new(3, "suite-one-process");
    let mut per_process = std::collections::HashMap::new();
    report_support::write_dir(dir.path(), &d, &mut |_, binary, execution, _, metric| {
        let e = *per_process
            .entry((binary, execution, metric))
            .or_insert_with(|| 0.01 * noise.draw());
        1000.0 * (1.0 + e + 0.002 * noise.draw())
    });
    let json: serde_json::Value = serde_json::from_str(&report_support::report_stdout(
        dir.path(),
        &["--format", "json"],
    ))
    .unwrap();
    let suite = &json["suites"][0];
    assert_eq!(suite["sensitive"], 0);
    let apart = suite["cases_one_process"].as_u64().unwrap();
    assert!(apart >= 90, "{apart} of {CASES}");
    let text = report_support::report_stdout(dir.path(), &[]);
    assert!(
        text.contains(&format!(
            "{apart} cases whose binaries differ cannot be told from their processes: each \
             binary ran in one process"
        )),
        "{text}"
    );
}
