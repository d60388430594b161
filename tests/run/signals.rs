//! The runner and the benchmark's process tree: nothing a benchmark starts outlives its
//! execution, not even processes that left its session with setsid(), and an interrupted
//! run (SIGINT, SIGTERM) kills the whole tree before it exits and says what it kept.

use crate::run_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::stderr_in;
use layoutrand::files::store::read_results;
use run_support::*;

/// True while `pid` runs (a zombie awaiting its reaper counts as gone).
fn alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(')')
        .next()
        .is_some_and(|rest| !rest.trim_start().starts_with('Z') && !rest.is_empty())
}

fn wait_for_file(path: &Path) -> String {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if let Ok(text) = std::fs::read_to_string(path) {
            if text.ends_with('\n') {
                return text;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} never appeared", path.display());
}

fn pid_in(path: &Path) -> i32 {
    wait_for_file(path).trim().parse().unwrap()
}

/// Kills `pid` if a test failed and left it running.
struct Reap(i32);
impl Drop for Reap {
    fn drop(&mut self) {
        if alive(self.0) {
            // SAFETY: kill(2) on a pid this test started.
            unsafe { libc::kill(self.0, libc::SIGKILL) };
        }
    }
}

/// A process that leaves the benchmark's session and records its pid in `escaped.pid`.
const ESCAPE: &str =
    r#"setsid sh -c 'echo $$ > escaped.pid.tmp; mv escaped.pid.tmp escaped.pid; exec sleep 300' &"#;

#[test]
fn a_process_that_called_setsid_dies_with_its_execution() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    let script = format!("{ESCAPE}\nwhile [ ! -e escaped.pid ]; do sleep 0.05; done\n\"$0\" ok");
    run_in(d.path())
        .current_dir(d.path())
        .args(["--executions", "1", "--", "sh", "-c", &script, "{bin}"])
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let escaped = pid_in(&d.path().join("escaped.pid"));
    let _reap = Reap(escaped);
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !alive(escaped),
        "the setsid'd process {escaped} outlived its execution"
    );
    // The store says so: the execution left one process behind, which was killed.
    let r = read_results(d.path()).unwrap();
    let left: Vec<u32> = r.executions.iter().map(|e| e.abandoned).collect();
    assert_eq!(left, [1], "{:?}", r.executions);
    // As written on disk, too.
    let text = std::fs::read_to_string(d.path().join("results.jsonl")).unwrap();
    let written: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["record"] == "execution")
        .map(|v| v["abandoned"].clone())
        .collect();
    assert_eq!(written, [1], "{text}");
}

#[test]
fn sigint_and_sigterm_kill_the_whole_tree_and_say_what_was_kept() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let d = tempfile::tempdir().unwrap();
        same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
        // The first execution finishes; the second starts an escaping process and a hanging
        // program with a child of its own, and is interrupted.
        let script = format!(
            "if [ -e first-done ]; then {ESCAPE}\n\"$0\" hang & echo $! > hang.pid; wait; else touch first-done; \"$0\" ok; fi"
        );
        let child = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
            .current_dir(d.path())
            .args(["run", "--out"])
            .arg(d.path())
            .args(["--executions", "3", "--metric", r"regex:value (\d+)"])
            .args(["--", "sh", "-c", &script, "{bin}"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let escaped = pid_in(&d.path().join("escaped.pid"));
        let _reap_escaped = Reap(escaped);
        let hang = pid_in(&d.path().join("hang.pid"));
        let _reap_hang = Reap(hang);
        std::thread::sleep(Duration::from_millis(100));
        let out = signal_and_wait(child, signal, Duration::from_secs(20));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(128 + signal), "{stderr}");
        // Pinned whole (SIGTERM, then SIGINT): interrupted, what was kept, how to resume.
        insta::assert_snapshot!(stderr_in(&out, d.path()));
        std::thread::sleep(Duration::from_millis(100));
        assert!(!alive(escaped), "the setsid'd process {escaped} survived");
        assert!(!alive(hang), "the benchmark {hang} survived");
        let r = read_results(d.path()).unwrap();
        assert_eq!(r.executions.len(), 1, "only the finished execution is kept");
    }
}

/// A whole-job kill (`scancel`, a Slurm time limit) signals the benchmark and the runner in
/// no set order. When the benchmark dies of SIGTERM *before* the runner's own SIGTERM
/// arrives, its end is the run's interruption — discarded and rerun on `--resume` — not a
/// benchmark failure stored as "killed by signal 15". (Slurm CI caught this race.)
#[test]
fn a_benchmark_killed_by_the_same_sigterm_just_before_the_runner_is_not_a_failure() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    // The first execution finishes; the second announces itself and dies of SIGTERM; the
    // test then sends SIGTERM to the runner, as the rest of a whole-job kill would.
    let script =
        "if [ -e first-done ]; then echo $$ > dying.pid; kill -TERM $$; else touch first-done; \"$0\" ok; fi";
    let child = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
        .current_dir(d.path())
        .args(["run", "--out"])
        .arg(d.path())
        .args(["--executions", "3", "--metric", r"regex:value (\d+)"])
        .args(["--", "sh", "-c", script, "{bin}"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    pid_in(&d.path().join("dying.pid"));
    let out = signal_and_wait(child, libc::SIGTERM, Duration::from_secs(20));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + libc::SIGTERM), "{stderr}");
    insta::assert_snapshot!(stderr_in(&out, d.path()));
    let r = read_results(d.path()).unwrap();
    assert_eq!(
        r.executions.len(),
        1,
        "the killed execution was stored: {:?}",
        r.executions
    );
    assert!(
        r.executions
            .iter()
            .all(|e| e.status == layoutrand::files::store::ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
}

/// Issue 22, item 5: kill -9 of the runner. The benchmark dies of its parent-death signal;
/// what it started (here a `sh -c` script's `sleep`) is killed by the executions' watchdog
/// when the runner's socket closes, instead of running on under init.
#[test]
fn kill_9_of_the_runner_takes_the_executions_children_with_it() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    let script = "sleep 300 & echo $! > child.pid; wait";
    let mut runner = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
        .current_dir(d.path())
        .args(["run", "--out"])
        .arg(d.path())
        .args(["--executions", "1", "--", "sh", "-c", script, "{bin}"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = pid_in(&d.path().join("child.pid"));
    let _reap = Reap(child);
    assert!(alive(child));
    runner.kill().unwrap();
    runner.wait().unwrap();
    let start = Instant::now();
    while alive(child) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !alive(child),
        "the benchmark's child {child} outlived the killed runner"
    );
}
