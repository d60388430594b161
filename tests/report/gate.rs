//! Which metrics the CI gate (`--fail-if-slower`) judges, in `report` (variants) and
//! `compare` (directories): the metric the run was asked for, or the metrics named by
//! `--metric`; never a metric recorded on the way (a higher `max_rss` is not "slower").

use crate::report_support;
use crate::snapshot_support::stderr_in;

use std::path::Path;

use report_support::{layoutrand, write_dir, Design, Normal};

/// An experiment measuring `wall` (asked for) and `max_rss` (recorded on the way), with
/// layout and noise, and variants O1 and O2 when `o2` is given: O2's values of the metrics
/// `o2_metrics` (indices: 0 wall, 1 max_rss) are `o2` times O1's.
fn experiment(dir: &Path, o2: Option<(f64, Vec<usize>)>, factor: [f64; 2], noise_seed: u64) {
    let mut design = Design::new(10, 2, 1);
    design.baseline = false;
    design.metrics = vec![
        ("wall".into(), "ns".into()),
        ("max_rss".into(), "KiB".into()),
    ];
    if let Some((o2, metrics)) = o2 {
        design.variants = vec![("O1".into(), 1.0), ("O2".into(), o2)];
        design.variant_factor_metrics = Some(metrics);
    }
    let mut noise = Normal::new(noise_seed, "gate-noise");
    write_dir(dir, &design, &mut |_, seed, _, _, m| {
        let layout = 0.03 * Normal::new(seed.unwrap(), "gate-layout").draw();
        let size = [1e7, 5e3][m];
        size * factor[m] * (1.0 + layout + 0.003 * noise.draw())
    });
}

/// The titles of the sections of a text report or comparison (`demo — wall (ms)`, …).
fn titles(text: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| l.starts_with("demo — "))
        .map(str::to_string)
        .collect()
}

#[test]
fn report_gates_the_asked_metric_and_the_named_ones_only() {
    let tmp = tempfile::tempdir().unwrap();
    // O2 uses 20 % more memory, in the same time.
    let memory = tmp.path().join("memory");
    std::fs::create_dir(&memory).unwrap();
    experiment(&memory, Some((1.2, vec![1])), [1.0, 1.0], 1);
    let gate = ["report", "--fail-if-slower", "5%"];
    let out = layoutrand(&gate, &[&memory]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The report still says that O2 takes more memory, and its JSON that no gate tripped.
    let json = layoutrand(
        &["report", "--format", "json", "--fail-if-slower", "5%"],
        &[&memory],
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let rss = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "max_rss")
        .expect("a max_rss comparison");
    assert!(rss["ratio"].as_f64().unwrap() > 1.15, "{rss}");
    assert_eq!(rss["slower_beyond_threshold"], false, "{rss}");
    // Named, it is gated (and only it is reported).
    let named = layoutrand(
        &["report", "--metric", "max_rss", "--fail-if-slower", "5%"],
        &[&memory],
    );
    assert_eq!(named.status.code(), Some(1), "{named:?}");
    // The gate's message, pinned whole: demo max_rss, O2 against O1.
    insta::assert_snapshot!("report_named_max_rss", stderr_in(&named, tmp.path()));

    // O2 takes 20 % more time: the asked metric trips the gate without any --metric.
    let time = tmp.path().join("time");
    std::fs::create_dir(&time).unwrap();
    experiment(&time, Some((1.2, vec![0])), [1.0, 1.0], 2);
    let out = layoutrand(&gate, &[&time]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // The gate's message, pinned whole: demo wall, O2 against O1, and no max_rss.
    insta::assert_snapshot!("report_asked_wall", stderr_in(&out, tmp.path()));
}

#[test]
fn compare_gates_the_asked_metric_and_the_named_ones_only() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, new) = (tmp.path().join("base"), tmp.path().join("new"));
    std::fs::create_dir(&base).unwrap();
    std::fs::create_dir(&new).unwrap();
    experiment(&base, None, [1.0, 1.0], 3);
    // The new version uses 20 % more memory in the same time.
    experiment(&new, None, [1.0, 1.2], 4);
    let gate = ["compare", "--fail-if-slower", "5%"];
    let out = layoutrand(&gate, &[&base, &new]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        titles(&out.stdout),
        ["demo — wall (ms)", "demo — max_rss (KiB)"],
        "{out:?}"
    );

    let named = layoutrand(
        &["compare", "--metric", "max_rss", "--fail-if-slower", "5%"],
        &[&base, &new],
    );
    assert_eq!(named.status.code(), Some(1), "{named:?}");
    // The gate's message, pinned whole: demo max_rss.
    insta::assert_snapshot!("compare_named_max_rss", stderr_in(&named, tmp.path()));
    assert_eq!(
        titles(&named.stdout),
        ["demo — max_rss (KiB)"],
        "only the named metric: {named:?}"
    );

    // A metric neither run recorded is an error naming the ones recorded.
    let unknown = layoutrand(&["compare", "--metric", "cycles"], &[&base, &new]);
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");
    insta::assert_snapshot!("compare_unknown_metric", stderr_in(&unknown, tmp.path()));
}

/// In CSV mode the metric is the `--value` column: `--metric` is refused, not ignored.
#[test]
fn compare_refuses_metric_on_csv_files() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("a.csv");
    std::fs::write(&csv, "binary,value\n1,1.0\n1,1.1\n2,1.2\n2,1.3\n").unwrap();
    let out = layoutrand(
        &[
            "compare", "--levels", "binary", "--value", "value", "--metric", "wall",
        ],
        &[&csv, &csv],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The message, pinned whole: --metric applies to experiment directories.
    insta::assert_snapshot!(stderr_in(&out, tmp.path()));
}

/// `report --fail-if-slower` says what it judged: a pass line per variant and gated metric
/// when the gate passes, and that it judged nothing on an experiment without variants; it
/// exited 0 saying nothing in both cases (issue 36, item 3).
#[test]
fn report_gate_says_what_it_passed_and_when_it_judged_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let same = tmp.path().join("same");
    std::fs::create_dir(&same).unwrap();
    experiment(&same, Some((1.0, vec![0, 1])), [1.0, 1.0], 5);
    let out = layoutrand(&["report", "--fail-if-slower", "5%"], &[&same]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // One pass line per judged comparison, pinned whole: the time only (max_rss is not
    // gated), no FAIL.
    insta::assert_snapshot!("report_pass_lines", stderr_in(&out, tmp.path()));

    let plain = tmp.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    experiment(&plain, None, [1.0, 1.0], 6);
    let out = layoutrand(&["report", "--fail-if-slower", "5%"], &[&plain]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The message, pinned whole: the gate judged nothing, and `build --variant` is how to
    // give it something to judge.
    insta::assert_snapshot!("report_judged_nothing", stderr_in(&out, tmp.path()));
    // Without the flag, nothing about a gate.
    let out = layoutrand(&["report"], &[&plain]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    insta::assert_snapshot!("report_ungated", stderr_in(&out, tmp.path()));
}

/// Issue 55, item 10: a negative gate (`--fail-if-slower -5%`) was clap's "unexpected
/// argument '-5'"; it now reaches the parser and gets the share's own message, exit 2.
#[test]
fn a_negative_gate_is_refused_with_the_shares_message() {
    let tmp = tempfile::tempdir().unwrap();
    for command in ["report", "compare"] {
        let out = layoutrand(&[command, "--fail-if-slower", "-5%"], &[tmp.path()]);
        let err = stderr_in(&out, tmp.path());
        assert_eq!(out.status.code(), Some(2), "{command}: {err}");
        // The share's own message, pinned whole.
        insta::assert_snapshot!(format!("negative_gate_{command}"), err);
    }
}
