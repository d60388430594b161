//! Snapshots (insta) of every format of `layoutrand report` on three fixture experiments,
//! and of `explain`'s three renderings of a stored explanation: a change of any word, number
//! or tag in any of them fails `cargo test` until it is accepted (`INSTA_UPDATE=always cargo
//! test --test report snapshot::`, or `cargo insta review`) and shows in the diff of
//! tests/report/snapshots/.
//!
//! The experiments are deterministic: two are synthetic stores written by seeded code with
//! fixed host facts (tests/support/report.rs), one a committed store
//! (tests/report/fixtures/explained: the explain fixture built with 14 seeds, run once per
//! binary and explained with `--permutation-seed 7`, its header's host facts replaced by
//! fixed ones). Each report is run from the store's parent directory with a relative DIR,
//! so that the directory the reports name is the same on every machine.

use std::path::Path;

use crate::report_support;

use report_support::{write_dir, Design, ThreeLevel};

/// Every format of `report`, in the order `--help` lists them.
const FORMATS: [&str; 7] = ["text", "markdown", "json", "csv", "html", "bmf", "summary"];

/// `layoutrand report NAME --format F ARGS…` run in `parent` (the command must succeed).
fn report_in(parent: &Path, name: &str, format: &str, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(parent)
        .arg("report")
        .arg(name)
        .args(["--format", format])
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// Snapshots `report NAME ARGS…` in every format as `SNAPSHOT_FORMAT`.
fn snapshot_every_format(snapshot: &str, parent: &Path, name: &str, args: &[&str]) {
    for format in FORMATS {
        let out = report_in(parent, name, format, args);
        insta::assert_snapshot!(format!("{snapshot}_{format}"), out);
    }
}

/// Three variants of `demo` (`base`; `fast`, 5 % faster; `same`), 8 seeds × 3 executions × 5
/// iterations, a 3 % layout effect, a baseline and an as-built binary 1 % slower than it.
fn variants_store(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut design = Design::new(8, 3, 5);
    design.variants = vec![
        ("base".into(), 1.0),
        ("fast".into(), 0.95),
        ("same".into(), 1.0),
    ];
    design.as_built = Some(1.01);
    let mut gen = ThreeLevel::new(37, 4e6, 0.03, 0.004, 0.01, 0.0);
    write_dir(dir, &design, &mut |_, seed, e, _, _| gen.value(seed, e));
}

/// 12 seeds × 3 executions × 5 iterations of `demo`, a 3 % layout effect, grown on-line
/// (`stopping.json` as `experiment` writes it: the calibrated sequence up to 12 binaries).
fn sequential_store(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let design = Design::new(12, 3, 5);
    let mut gen = ThreeLevel::new(7, 4e6, 0.03, 0.004, 0.01, 0.0);
    write_dir(dir, &design, &mut |_, seed, e, _, _| gen.value(seed, e));
    let log = serde_json::json!({
        "rule": {"target": 0.02, "confidence": 0.95, "max_binaries": 12, "metric": "wall"},
        "start_binaries": 5,
        "rounds": [
            {"binaries": 5, "relative_half_width": 0.061},
            {"binaries": 8, "relative_half_width": 0.034},
            {"binaries": 12, "relative_half_width": 0.024}
        ],
        "outcome": "max_reached",
        "caveat": "the calibrated confidence sequence holds at every look 5 to 12 at once.",
        "method": "lai_calibrated",
    });
    std::fs::write(dir.join("stopping.json"), log.to_string()).unwrap();
}

#[test]
fn a_variants_experiment_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    variants_store(&tmp.path().join("variants"));
    snapshot_every_format("variants", tmp.path(), "variants", &[]);
}

#[test]
fn a_sequential_report_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    sequential_store(&tmp.path().join("sequential"));
    snapshot_every_format(
        "sequential",
        tmp.path(),
        "sequential",
        &["--sequential", "--target", "2%"],
    );
}

/// The committed store with a stored explanation (`DIR/explain/explanation.json`).
fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/report/fixtures")
}

#[test]
fn an_explained_experiment_in_every_format() {
    snapshot_every_format("explained", &fixtures(), "explained", &[]);
}

/// `explain`'s text, JSON and HTML of the stored explanation: the command itself profiles the
/// program under cachegrind again before it renders, so its renderers are called on the
/// explanation it stored (the same functions `explain --format F` prints with).
#[test]
fn a_stored_explanation_in_explains_formats() {
    use layoutrand::report::export::{explain, explain_html};
    let e = layoutrand::analysis::explain::stored(&fixtures().join("explained"))
        .unwrap()
        .expect("the fixture stores an explanation");
    insta::assert_snapshot!("explain_text", explain::text(&e));
    insta::assert_snapshot!("explain_json", explain::json(&e).unwrap());
    insta::assert_snapshot!("explain_html", explain_html::html(&e));
}

/// `explain`'s text of real programs' stored answers under cachegrind with a 4 KiB I1, where
/// the differential profile leads (tests/report/fixtures/differential: Debian gzip 1.12
/// `-c -6` and bzip2 1.0.8 `-c -9` on 300 KiB of their own sources, and zstd 1.5.4 `-d`, a
/// layout effect too small to explain, from `benches/explain_corpus`): the findings lettered
/// by where the cost lands, a crowding pair and a placement finding as the why, and "no
/// finding" below the relevance threshold.
#[test]
fn stored_differential_answers_in_text() {
    use layoutrand::report::export::explain;
    for case in ["gzip-6", "bzip2-9", "zstd-d"] {
        let e = layoutrand::analysis::explain::stored(&fixtures().join("differential").join(case))
            .unwrap()
            .expect("the fixture stores an explanation");
        insta::assert_snapshot!(format!("explain_differential_{case}"), explain::text(&e));
    }
}

/// `explain`'s text, JSON and HTML for an experiment with variants, from the stored
/// explanation: variant `a` is it as stored (spin a finding), variant `b` the same with
/// nothing found (its screening's culprits, findings and plots emptied, `not_detected`).
#[test]
fn stored_explanations_of_two_variants_in_explains_formats() {
    use layoutrand::analysis::explain_variants::VariantExplanations;
    use layoutrand::analysis::vocabulary::Verdict;
    use layoutrand::report::export::{explain, explain_html};
    let e = layoutrand::analysis::explain::stored(&fixtures().join("explained"))
        .unwrap()
        .expect("the fixture stores an explanation");
    let mut a = e.clone();
    a.variant = Some("a".to_string());
    let mut b = e;
    b.variant = Some("b".to_string());
    b.screening.culprits.clear();
    b.screening.findings.clear();
    b.screening.verdict = Verdict::NotDetected;
    b.plots.clear();
    let v = VariantExplanations::of(vec![a, b]);
    assert_eq!(v.across.len(), 1, "{:?}", v.across);
    insta::assert_snapshot!("explain_variants_text", explain::variants_text(&v));
    insta::assert_snapshot!("explain_variants_json", explain::variants_json(&v).unwrap());
    insta::assert_snapshot!("explain_variants_html", explain_html::variants_html(&v));
}
