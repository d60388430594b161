//! `run --wait-for-quiet`: each execution waits, up to the limit, for a host with no runnable
//! task beyond the run's own; the store says how long it waited and whether the host was
//! quiet, the report sums it up, and a signal ends the wait at once.

use crate::run_support;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::stderr_in;
use layoutrand::files::store::read_results;
use run_support::*;

/// A process that is always runnable (a busy loop), killed when dropped: while it lives,
/// the host is never quiet for a run of one job.
struct Spinner(Child);

impl Spinner {
    fn start() -> Spinner {
        let child = Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        Spinner(child)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// With another task always runnable, every execution waits the whole limit (0.5 s) and
/// starts on a busy host; each record and the report say so.
#[test]
fn a_busy_host_holds_each_execution_back_to_the_limit_and_the_store_says_so() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let _spinner = Spinner::start();
    run_in(d.path())
        .args(["--executions", "2", "--wait-for-quiet", "500ms"])
        .args(["--", "{bin}", "ok"])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    assert_eq!(r.executions.len(), 4);
    for e in &r.executions {
        let wait = e.host.and_then(|h| h.quiet_wait).expect("a recorded wait");
        assert!(!wait.quiet, "{wait:?}");
        // The limit less the first look (0.1 s), give or take a look.
        assert!((0.3..5.0).contains(&wait.seconds), "{wait:?}");
    }
    let out = layoutrand()
        .args(["report", "--format", "json"])
        .arg(d.path())
        .assert()
        .success();
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let waits = &report["setup"]["quiet_waits"];
    assert_eq!(waits["executions"], 4, "{waits}");
    assert_eq!(waits["waited"], 4, "{waits}");
    assert_eq!(waits["started_busy"], 4, "{waits}");
    let text = layoutrand().arg("report").arg(d.path()).assert().success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    // The report's set-up line says so, pinned whole (the CPU and the times written as
    // placeholders).
    let setup = text
        .lines()
        .find(|l| l.starts_with("Set-up: "))
        .unwrap_or_else(|| panic!("no set-up line: {text}"));
    insta::assert_snapshot!(crate::snapshot_support::redact(
        setup,
        &[
            (r"CPU [^;]*;", "CPU [cpu];"),
            (r"ASLR \w+", "ASLR [aslr]"),
            (
                r"longest [0-9.]+ m?s, [0-9.]+ m?s in all",
                "longest [t], [t] in all"
            ),
        ]
    ));
}

/// SIGTERM while an execution waits for a quiet host ends the run at once (not after the
/// minute the wait allows), with nothing half-done in the store; a run without the flag
/// records no wait.
#[test]
fn a_signal_ends_the_wait_and_a_run_without_it_records_none() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let spinner = Spinner::start();
    let child = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
        .current_dir(d.path())
        .args(["run", "--out"])
        .arg(d.path())
        .args(["--executions", "2", "--wait-for-quiet", "1m"])
        .args(["--", "{bin}", "ok"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The header is written after the runner catches signals; the first wait follows.
    let results = d.path().join("results.jsonl");
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&results).is_ok_and(|t| t.ends_with('\n')) {
        assert!(start.elapsed() < Duration::from_secs(60), "no header");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    // Well within the minute the wait allows.
    let out = signal_and_wait(child, libc::SIGTERM, Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + libc::SIGTERM), "{stderr}");
    insta::assert_snapshot!(stderr_in(&out, d.path()));
    let r = read_results(d.path()).unwrap();
    assert!(r.executions.is_empty());
    drop(spinner);
    run_in(d.path())
        .args(["--resume", "--trust"])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    assert_eq!(r.executions.len(), 4);
    assert!(r
        .executions
        .iter()
        .all(|e| e.host.is_some_and(|h| h.quiet_wait.is_none())));
}

/// Slurm nodes are the tasks' own: the wait is refused there, before anything is planned.
#[test]
fn waiting_for_quiet_is_refused_with_slurm() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let out = run_in(d.path())
        .args(["--slurm", "--dry-run", "--wait-for-quiet", "30s"])
        .args(["--", "{bin}", "ok"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join("slurm").exists());
}
