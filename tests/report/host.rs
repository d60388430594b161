//! The report's host conditions: a loaded host is warned about with its figures (and a
//! quiet one is not), and every report says what the noise cost (minimum detectable effect).

use crate::report_support;
use crate::snapshot_support::in_dir;

use std::path::Path;

use assert_cmd::Command;
use report_support::{write_dir, Design, ThreeLevel};

/// A synthetic wall-time experiment whose header records `load` (1-minute average) on 2
/// cores at the start and whose run ended with `load_after`.
fn experiment_with_load(dir: &Path, load: f64, load_after: f64) {
    let design = Design::new(8, 3, 1);
    let mut gen = ThreeLevel::new(5, 2.5e6, 0.03, 0.002, 0.04, 0.0);
    write_dir(dir, &design, &mut |_, seed, e, _, _| gen.value(seed, e));
    let path = dir.join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
    header["host"]["cores"] = 2.into();
    header["conditions"] = serde_json::json!({
        "load": {"average": [load, load, load], "other_running": 4},
        "governors": [], "boost": null, "smt": false
    });
    let finish = serde_json::json!({
        "record": "finish", "started_unix": 0.0, "ended_unix": 1.0,
        "load_before": {"average": [load, load, load], "other_running": 4},
        "load_after": {"average": [load_after, load_after, load_after], "other_running": 6},
        "jobs": 1, "executed": 9
    });
    std::fs::write(&path, format!("{header}\n{rest}{finish}\n")).unwrap();
}

fn report(dir: &Path) -> String {
    let out = Command::cargo_bin("layoutrand")
        .unwrap()
        .arg("report")
        .arg(dir)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn a_loaded_host_is_warned_about_with_its_figures() {
    let loaded = tempfile::tempdir().unwrap();
    experiment_with_load(loaded.path(), 0.5, 6.25);
    // The report, pinned whole: the host was loaded (1-minute load average up to 6.25 on
    // 2 cores, after 6.25 with 6 other running processes), and (issue 21) the verdicts on
    // a time from a loaded host are qualified in the summary, not stated as fact.
    let text = report(loaded.path());
    insta::assert_snapshot!("loaded_report", in_dir(&text, loaded.path()));
    let in_short = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("In short:"))
            .unwrap()
            .to_string()
    };

    // A quiet host: no host warning, and the summary (pinned whole) not qualified.
    let quiet = tempfile::tempdir().unwrap();
    experiment_with_load(quiet.path(), 0.3, 0.9);
    let text = report(quiet.path());
    let json: serde_json::Value = serde_json::from_str(&report_json(quiet.path())).unwrap();
    assert_eq!(
        json["setup"]["host_warnings"],
        serde_json::json!([]),
        "{text}"
    );
    insta::assert_snapshot!("quiet_in_short", in_short(&text));
}

#[test]
fn every_report_says_what_the_noise_cost() {
    let d = tempfile::tempdir().unwrap();
    experiment_with_load(d.path(), 0.3, 0.3);
    let text = report(d.path());
    // The line, pinned whole: the effect that cannot be detected with these counts (3
    // executions).
    let line = text
        .lines()
        .find(|l| l.starts_with("  - Noise: "))
        .unwrap_or_else(|| panic!("{text}"));
    insta::assert_snapshot!(line);
}

/// Issue 55, noise the tool sees: each execution records the runnable tasks at its start and
/// the CPU time stolen while it ran, and the report says how many executions a busy host
/// disturbed, with the figures; a quiet run says nothing of it.
#[test]
fn executions_started_on_a_busy_host_are_counted_and_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let mut design = Design::new(8, 3, 1);
    // Execution 1 of every binary started beside two other runnable tasks; execution 2 of
    // every binary lost 4 % of the CPU time to the hypervisor.
    design.busy = vec![(1, 3, 0.0), (2, 1, 0.04)];
    let mut gen = ThreeLevel::new(5, 2.5e6, 0.03, 0.002, 0.04, 0.0);
    write_dir(dir.path(), &design, &mut |_, seed, e, _, _| {
        gen.value(seed, e)
    });
    let text = report(dir.path());
    // The warning, pinned whole: 18 of 27 executions (66.7 %) started beside other
    // runnable tasks (up to 2) or lost more than 2.0 % of the CPU time (up to 4.0 %); the
    // text says it too.
    let json: serde_json::Value = serde_json::from_str(&report_json(dir.path())).unwrap();
    let warnings = json["setup"]["host_warnings"].as_array().unwrap();
    insta::assert_snapshot!(
        "busy_host_warnings",
        serde_json::to_string_pretty(warnings).unwrap()
    );
    for w in warnings {
        assert!(text.contains(w.as_str().unwrap()), "{w} not in {text}");
    }
    // The same store with every execution alone and nothing stolen: no such warning.
    let quiet = tempfile::tempdir().unwrap();
    let design = Design::new(8, 3, 1);
    let mut gen = ThreeLevel::new(5, 2.5e6, 0.03, 0.002, 0.04, 0.0);
    write_dir(quiet.path(), &design, &mut |_, seed, e, _, _| {
        gen.value(seed, e)
    });
    let json: serde_json::Value = serde_json::from_str(&report_json(quiet.path())).unwrap();
    assert_eq!(json["setup"]["host_warnings"], serde_json::json!([]));
}

/// Issue 55, a verdict tied to the noise it rests on: an execution set aside as outlying
/// says whether the host was busy around it, and the sentence counts them.
#[test]
fn a_set_aside_execution_says_whether_it_started_on_a_busy_host() {
    let dir = tempfile::tempdir().unwrap();
    let mut design = Design::new(10, 3, 1);
    // Execution 1 of every binary started beside two other runnable tasks; seed 4's was
    // 40 % slow.
    design.busy = vec![(1, 3, 0.0)];
    let mut gen = ThreeLevel::new(5, 2.5e6, 0.03, 0.002, 0.04, 0.0);
    write_dir(dir.path(), &design, &mut |_, seed, e, _, _| {
        let burst = if (seed, e) == (Some(4), 1) { 1.4 } else { 1.0 };
        gen.value(seed, e) * burst
    });
    let json: serde_json::Value = serde_json::from_str(&report_json(dir.path())).unwrap();
    let set_aside = json["series"][0]["sensitivity"]["set_aside"]
        .as_array()
        .unwrap();
    let burst = set_aside
        .iter()
        .find(|s| s["binary"] == "seed-4" && s["execution"] == 1)
        .unwrap_or_else(|| panic!("{set_aside:?}"));
    assert_eq!(burst["busy"], true, "{burst}");
    assert!(
        set_aside.iter().all(|s| s["busy"] == (s["execution"] == 1)),
        "{set_aside:?}"
    );
    // The sensitivity's sentence, pinned whole: the set-aside executions started on a busy
    // host (beside other runnable tasks).
    let text = report(dir.path());
    let line = text
        .lines()
        .find(|l| l.starts_with("Layout sensitivity: "))
        .unwrap_or_else(|| panic!("{text}"));
    insta::assert_snapshot!(line);
    // The table of levels counts them, the sentences do not (mujs: "t = 2.5 %" in the table
    // beside "1.0 % between executions" in the sentence): the note under the table says so,
    // before the sentences it sets apart.
    let note = format!(
        "The table counts every execution, the {} set aside",
        set_aside.len()
    );
    let at = text.find(&note).unwrap_or_else(|| panic!("{text}"));
    assert!(at > text.find("t = √T²/mean").unwrap(), "{text}");
    assert!(at < text.find("Layout sensitivity: ").unwrap(), "{text}");
}

fn report_json(dir: &Path) -> String {
    let out = Command::cargo_bin("layoutrand")
        .unwrap()
        .args(["report", "--format", "json"])
        .arg(dir)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}
