//! Which metrics the CI gate (`--fail-if-slower`) judges, in `report` (variants) and
//! `compare` (directories): the metric the run was asked for, or the metrics named by
//! `--metric`; never a metric recorded on the way (a higher `max_rss` is not "slower").

use crate::report_support;

use std::path::Path;
use std::process::Output;

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

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
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
    assert!(
        stderr(&named).contains("  demo max_rss: O2 against O1: "),
        "{}",
        stderr(&named)
    );

    // O2 takes 20 % more time: the asked metric trips the gate without any --metric.
    let time = tmp.path().join("time");
    std::fs::create_dir(&time).unwrap();
    experiment(&time, Some((1.2, vec![0])), [1.0, 1.0], 2);
    let out = layoutrand(&gate, &[&time]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr(&out).contains("  demo wall: O2 against O1: "),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("max_rss"), "{}", stderr(&out));
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
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("demo — max_rss"), "{text}");

    let named = layoutrand(
        &["compare", "--metric", "max_rss", "--fail-if-slower", "5%"],
        &[&base, &new],
    );
    assert_eq!(named.status.code(), Some(1), "{named:?}");
    assert!(
        stderr(&named).contains("  demo max_rss: "),
        "{}",
        stderr(&named)
    );
    let text = String::from_utf8_lossy(&named.stdout);
    assert!(
        !text.contains("demo — wall"),
        "only the named metric: {text}"
    );

    // A metric neither run recorded is an error naming the ones recorded.
    let unknown = layoutrand(&["compare", "--metric", "cycles"], &[&base, &new]);
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");
    assert!(
        stderr(&unknown).contains("--metric cycles: not recorded")
            && stderr(&unknown).contains("max_rss, wall"),
        "{}",
        stderr(&unknown)
    );
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
    assert!(
        stderr(&out).contains("--metric applies to experiment directories"),
        "{}",
        stderr(&out)
    );
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
    let err = stderr(&out);
    assert!(
        err.contains("layoutrand report: --fail-if-slower 5.0 %: pass: demo wall: O2 against O1: "),
        "{err}"
    );
    // One line per judged comparison: the time only (max_rss is not gated).
    assert_eq!(err.matches(": pass: ").count(), 1, "{err}");
    assert!(!err.contains("FAIL"), "{err}");

    let plain = tmp.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    experiment(&plain, None, [1.0, 1.0], 6);
    let out = layoutrand(&["report", "--fail-if-slower", "5%"], &[&plain]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = stderr(&out);
    assert!(
        err.contains("--fail-if-slower 5.0 % judged nothing") && err.contains("build --variant"),
        "{err}"
    );
    // Without the flag, nothing about a gate.
    let out = layoutrand(&["report"], &[&plain]);
    assert!(!stderr(&out).contains("fail-if-slower"), "{out:?}");
}

/// Issue 55, item 10: a negative gate (`--fail-if-slower -5%`) was clap's "unexpected
/// argument '-5'"; it now reaches the parser and gets the share's own message, exit 2.
#[test]
fn a_negative_gate_is_refused_with_the_shares_message() {
    let tmp = tempfile::tempdir().unwrap();
    for command in ["report", "compare"] {
        let out = layoutrand(&[command, "--fail-if-slower", "-5%"], &[tmp.path()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{command}: {err}");
        assert!(
            err.contains("\"-5%\" must be at least 0% and below 100%")
                && err.contains("never negative"),
            "{command}: {err}"
        );
    }
}
