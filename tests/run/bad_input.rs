//! Bad input gets a precise error, before anything runs where possible, and never a damaged
//! store.

use crate::run_support;

use crate::snapshot_support::redact;
use crate::stderr_in;
use layoutrand::files::store::{read_results, ExecutionStatus, StoreWarning, RESULTS_FILE};
use run_support::*;

#[test]
fn missing_manifest_names_the_file() {
    let d = tempfile::tempdir().unwrap();
    let out = run_in(d.path()).args(["--", "{bin}"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join(RESULTS_FILE).exists());
}

#[test]
fn missing_binary_names_variant_and_path() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 2);
    std::fs::remove_file(d.path().join("bin/seed-2/faulty")).unwrap();
    let out = run_in(d.path())
        .args(["--", "{bin}", "ok"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(
        !d.path().join(RESULTS_FILE).exists(),
        "nothing may run or be written"
    );
}

#[test]
fn command_without_placeholder_or_unknown_program_is_refused() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let bin = d.path().join("bin/baseline/faulty");
    let out = run_in(d.path())
        .arg("--")
        .arg(&bin)
        .arg("ok")
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = run_in(d.path())
        .args(["--", "{bin:nosuch}"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = run_in(d.path())
        .args(["--warmup", "2", "--", "{bin}"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = run_in(d.path())
        .args(["--iterations", "3", "--metric", "cpu", "--", "{bin}"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join(RESULTS_FILE).exists());
}

#[test]
fn a_regex_that_never_matches_stops_after_the_first_execution() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let out = run_in(d.path())
        .args(["--executions", "5", "--metric", r"regex:time=([0-9.]+)"])
        .args(["--schedule-seed", "1"])
        .args(["--", "{bin}", "ok"])
        .assert()
        .code(2);
    // The message, pinned whole, names the regex and shows the output's tail.
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let r = read_results(d.path()).unwrap();
    assert_eq!(
        r.executions.len(),
        1,
        "the run must stop after the first execution"
    );
    assert_eq!(r.executions[0].status, ExecutionStatus::Metric);
    assert!(r.measurements.is_empty());
}

/// `regex(UNIT):PATTERN` declares the unit of values printed without one (a throughput
/// under a header, as nettle-benchmark prints it): every reported value is stored in it, so
/// the report and the gates read it as a rate (higher is faster).
#[test]
fn a_declared_unit_is_stored_with_every_reported_value() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    run_in(d.path())
        .args([
            "--executions",
            "2",
            "--metric",
            r"regex(MB/s):value ([0-9.]+)",
        ])
        .args(["--schedule-seed", "1", "--", "{bin}", "ok"])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    let reported: Vec<&str> = (r.measurements.iter())
        .filter(|m| m.metric == "reported")
        .map(|m| m.unit.as_str())
        .collect();
    assert_eq!(reported, ["MB/s"; 4], "{:?}", r.measurements);
    let out = layoutrand()
        .args(["report", "--format", "json"])
        .arg(d.path())
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let units: Vec<&str> = (v["series"].as_array().unwrap().iter())
        .filter(|s| s["metric"] == "reported")
        .map(|s| s["unit"].as_str().unwrap())
        .collect();
    assert_eq!(units, ["MB/s"], "{v:#}");
}

#[test]
fn an_unwritable_store_is_refused_before_any_execution() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    // A directory where the staging area must go: nothing can be created there.
    std::fs::write(d.path().join(".run"), "in the way").unwrap();
    let out = run_in(d.path())
        .args(["--", "{bin}", "ok"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join(RESULTS_FILE).exists());
    std::fs::remove_file(d.path().join(".run")).unwrap();
    // The store itself unwritable (a directory in its place).
    std::fs::create_dir(d.path().join(RESULTS_FILE)).unwrap();
    let out = run_in(d.path())
        .args(["--", "{bin}", "ok"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(
        !d.path().join(".run/stdout").exists(),
        "no execution may have started"
    );
}

#[test]
fn existing_results_need_resume_and_resume_refuses_other_settings() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let run = |extra: &[&str]| {
        let mut c = run_in(d.path());
        c.args(extra);
        c
    };
    run(&[
        "--executions",
        "2",
        "--schedule-seed",
        "5",
        "--",
        "{bin}",
        "ok",
    ])
    .assert()
    .success();
    let before = std::fs::read(d.path().join(RESULTS_FILE)).unwrap();
    let out = run(&["--", "{bin}", "ok"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = run(&[
        "--resume",
        "--executions",
        "3",
        "--schedule-seed",
        "6",
        "--",
        "{bin}",
        "ok",
    ])
    .assert()
    .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = run(&["--resume", "--", "{bin}", "fail"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(
        std::fs::read(d.path().join(RESULTS_FILE)).unwrap(),
        before,
        "store untouched"
    );
    // Resuming a complete run with the recorded settings runs nothing and changes nothing.
    let out = run(&["--resume"]).assert().success();
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(std::fs::read(d.path().join(RESULTS_FILE)).unwrap(), before);
}

#[test]
fn budget_stops_between_executions_and_resume_finishes() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let out = run_in(d.path())
        .args(["--executions", "3", "--budget", "1ns", "--", "{bin}", "ok"])
        .assert()
        .code(4); // stopped early, resumable
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let r = read_results(d.path()).unwrap();
    assert!(r.header.is_some() && r.executions.is_empty());
    layoutrand()
        .args(["run", "--resume", "--out"])
        .arg(d.path())
        .assert()
        .success();
    assert_eq!(read_results(d.path()).unwrap().executions.len(), 6);
}

#[test]
#[ignore = "needs root (mounts a tmpfs); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn a_full_disk_is_refused_before_any_execution() {
    let d = tempfile::tempdir().unwrap();
    let small = SmallTmpfs::mount(d.path());
    let mnt = small.0.clone();
    let exp = mnt.join("exp");
    std::fs::create_dir(&exp).unwrap();
    same_binary_experiment(&exp, "faulty", "faulty.c", 0);
    std::fs::remove_dir_all(exp.join("build")).unwrap();
    // Fill the filesystem up to the last byte.
    let mut filler = std::fs::File::create(mnt.join("filler")).unwrap();
    let block = vec![0u8; 64 * 1024];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    let _ = std::io::Write::write_all(&mut filler, &block[..4096]);
    drop(filler);
    let out = run_in(&exp).args(["--", "{bin}", "ok"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), &mnt));
    assert!(!exp.join(RESULTS_FILE).exists(), "nothing may be written");
    assert!(
        !exp.join(".run/stdout").exists(),
        "no execution may have started"
    );
}

#[test]
fn non_finite_values_are_metric_failures_and_the_store_stays_readable() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    // The first execution reports a number so the run goes on; the others print values that
    // parse as f64 but are not finite, which JSON cannot hold.
    let script = r#"n=$(cat count 2>/dev/null || echo 0); echo $((n+1)) > count
case $n in 0) echo "value 7";; 1) echo "value nan";; 2) echo "value inf";; *) echo "value 1e400";; esac
"$0" ok > /dev/null"#;
    run_in(d.path())
        .current_dir(d.path())
        .args(["--executions", "4", "--metric", r"regex:value ([^ ]+)"])
        .args(["--", "sh", "-c", script, "{bin}"])
        .assert()
        .success();
    let r = read_results(d.path()).expect("every read of the store works");
    let statuses: Vec<_> = r.executions.iter().map(|e| e.status).collect();
    assert_eq!(
        statuses,
        [
            ExecutionStatus::Ok,
            ExecutionStatus::Metric,
            ExecutionStatus::Metric,
            ExecutionStatus::Metric
        ]
    );
    // What each failed execution's output tail says (the value not finite), pinned whole.
    let tails: Vec<_> = r.executions[1..]
        .iter()
        .map(|e| e.output_tail.as_deref().unwrap_or_default())
        .collect();
    insta::assert_snapshot!(tails.join("\n---\n"));
    assert!(r.measurements.iter().all(|m| m.value.is_finite()));
    // The rest of the tool reads it too.
    layoutrand().arg("export").arg(d.path()).assert().success();
}

#[test]
fn an_old_store_holding_null_values_is_read_with_a_warning() {
    // What layoutrand 0.1 wrote for a benchmark printing `nan`: a null value, status ok.
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    run_in(d.path())
        .args(["--executions", "2", "--metric", r"regex:value ([^ ]+)"])
        .args(["--", "{bin}", "ok"])
        .assert()
        .success();
    let path = d.path().join(RESULTS_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let last_reported = lines
        .iter()
        .rposition(|l| l.contains("\"metric\":\"reported\""))
        .unwrap();
    let nulled = lines[last_reported].replace("\"value\":42.0", "\"value\":null");
    assert_ne!(nulled, lines[last_reported], "no value 42.0 to replace");
    lines[last_reported] = nulled;
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();

    let r = read_results(d.path()).expect("a null value must not make the store unreadable");
    assert_eq!(r.executions[0].status, ExecutionStatus::Ok);
    assert_eq!(r.executions[1].status, ExecutionStatus::Metric);
    assert!(r.measurements.iter().all(|m| m.execution == 0));
    assert!(
        r.warnings
            .iter()
            .any(|w| matches!(w, StoreWarning::NullValue { execution: 1, .. })),
        "{:?}",
        r.warnings
    );
    // Resume reads it and finishes the run; export reads it.
    let out = layoutrand()
        .args(["run", "--resume", "--out"])
        .arg(d.path())
        .assert()
        .success();
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    layoutrand().arg("export").arg(d.path()).assert().success();
}

#[test]
fn a_binary_replaced_after_the_build_is_refused_before_it_runs() {
    let d = tempfile::tempdir().unwrap();
    let build = d.path().join("build");
    std::fs::create_dir_all(&build).unwrap();
    let (o1, o2) = (build.join("o1"), build.join("o2"));
    gcc(&o1, &[fixture("faulty.c")], &["-O1"]);
    gcc(&o2, &[fixture("faulty.c")], &["-O2", "-DVARIANT=2"]);
    experiment(
        d.path(),
        &[
            (None, vec![("faulty", o1.clone())]),
            (Some(1), vec![("faulty", o2.clone())]),
        ],
    );
    // seed-1's binary copied over the baseline's: it must not be measured as the baseline.
    std::fs::copy(
        d.path().join("bin/seed-1/faulty"),
        d.path().join("bin/baseline/faulty"),
    )
    .unwrap();
    let out = run_in(d.path())
        .args(["--executions", "2", "--", "{bin}", "ok"])
        .assert()
        .code(2);
    // The refusal, pinned whole (the hashes depend on the compiler).
    insta::assert_snapshot!(redact(
        &stderr_in(out.get_output(), d.path()),
        &[(r"\b[0-9a-f]{64}\b", "[sha256]")]
    ));
    let r = read_results(d.path()).unwrap_or_default();
    assert!(
        r.executions.iter().all(|e| e.binary != "baseline"),
        "the replaced binary must never run under its label"
    );
}

#[test]
fn a_run_whose_every_execution_failed_exits_non_zero() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let out = run_in(d.path())
        .args(["--executions", "2", "--", "{bin}", "fail"])
        .assert()
        .code(5);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    // One success among failures is a normal run.
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    let script = r#"if [ -e once ]; then "$0" fail; else touch once; "$0" ok; fi"#;
    run_in(d.path())
        .current_dir(d.path())
        .args(["--executions", "2", "--", "sh", "-c", script, "{bin}"])
        .assert()
        .success();
}
