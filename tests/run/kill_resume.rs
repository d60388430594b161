//! Fault injection: `layoutrand run` killed with SIGKILL at random moments, then resumed.
//! Every execution committed before a kill must survive unchanged, none may be repeated, and
//! the final store must hold the whole schedule exactly once.

use crate::run_support;

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::stderr_in;
use layoutrand::files::store::{read_results, Execution};
use layoutrand::seeded::SeededRng;
use run_support::*;

const BINARIES: usize = 3;
const EXECUTIONS: u32 = 5;

fn key(e: &Execution) -> (String, u32) {
    (e.binary.clone(), e.execution)
}

/// Runs (or resumes) in `dir` and SIGKILLs it after `delay`; true if it finished first.
fn run_and_kill(dir: &std::path::Path, resume: bool, delay: Duration) -> bool {
    let exe = assert_cmd::cargo::cargo_bin("layoutrand");
    let mut cmd = Command::new(exe);
    cmd.args(["run", "--out"]).arg(dir);
    if resume {
        cmd.arg("--resume");
    } else {
        cmd.args([
            "--executions",
            &EXECUTIONS.to_string(),
            "--schedule-seed",
            "99",
        ]);
        cmd.args(["--metric", r"regex:value (\d+)"]);
    }
    cmd.args(["--", "{bin}", "ok"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    std::thread::sleep(delay);
    let finished = matches!(child.try_wait(), Ok(Some(_)));
    if !finished {
        // SIGKILL: no destructor, no flush, exactly what a power cut leaves behind.
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    finished && status.success()
}

#[test]
fn sigkill_at_random_moments_then_resume_keeps_every_execution_exactly_once() {
    let mut rng = SeededRng::new(2026, "kill-delays");
    let template = tempfile::tempdir().unwrap();
    same_binary_experiment(template.path(), "faulty", "faulty.c", BINARIES as u64 - 1);
    let total = BINARIES * EXECUTIONS as usize;
    let copy_experiment = |to: &std::path::Path| {
        for f in ["manifest.json", "bin"] {
            let status = Command::new("cp")
                .arg("-r")
                .arg(template.path().join(f))
                .arg(to)
                .status()
                .unwrap();
            assert!(status.success());
        }
    };
    // Calibrate: kill delays are drawn up to 1.2 × one uninterrupted run, so on a fast or a
    // slow machine alike most kills land between start-up and the last commit.
    let calibration = tempfile::tempdir().unwrap();
    copy_experiment(calibration.path());
    let t = std::time::Instant::now();
    let status = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
        .args(["run", "--out"])
        .arg(calibration.path())
        .args(["--executions", &EXECUTIONS.to_string(), "--", "{bin}", "ok"])
        .output()
        .unwrap()
        .status;
    assert!(status.success());
    let full_run_us = (t.elapsed().as_micros() as u64).max(1000);
    eprintln!("one uninterrupted run takes {full_run_us} µs");
    let mut kills_with_partial_store = 0;
    // 24 trials at least; on a loaded host, whose speed drifts away from the calibration,
    // more (up to 60) until 10 kills have hit the middle of a run.
    for trial in 0..60 {
        if trial >= 24 && kills_with_partial_store >= 10 {
            break;
        }
        let d = tempfile::tempdir().unwrap();
        copy_experiment(d.path());
        // Committed executions seen so far, with their full records.
        let mut committed: BTreeMap<(String, u32), Execution> = BTreeMap::new();
        let mut resume = false;
        for attempt in 0..40 {
            // Delays cover start-up, mid-schedule and the final writes.
            let delay = Duration::from_micros(rng.below(full_run_us * 6 / 5));
            let finished = run_and_kill(d.path(), resume, delay);
            if !d.path().join("results.jsonl").exists() {
                continue; // killed before the header was written: a fresh start again
            }
            let r = read_results(d.path())
                .unwrap_or_else(|e| panic!("trial {trial} attempt {attempt}: unreadable: {e:#}"));
            resume = r.header.is_some();
            let keys: Vec<_> = r.executions.iter().map(key).collect();
            let unique: BTreeSet<_> = keys.iter().cloned().collect();
            assert_eq!(
                keys.len(),
                unique.len(),
                "trial {trial}: an execution was repeated"
            );
            for (k, e) in &committed {
                let now = r.executions.iter().find(|x| &key(x) == k);
                assert_eq!(
                    now,
                    Some(e),
                    "trial {trial}: committed execution {k:?} changed or lost"
                );
            }
            for e in &r.executions {
                committed.insert(key(e), e.clone());
            }
            if !finished && r.executions.len() < total {
                kills_with_partial_store += usize::from(!r.executions.is_empty());
            }
            if finished {
                break;
            }
        }
        // Whatever happened, one last resume completes the run.
        let out = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
            .args(["run", "--resume", "--out"])
            .arg(d.path())
            .args(["--", "{bin}", "ok"])
            .output()
            .unwrap();
        if resume {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let r = read_results(d.path()).unwrap();
        if r.header.is_none() {
            continue; // never got past start-up in any attempt and the last resume had no header
        }
        let keys: BTreeSet<_> = r.executions.iter().map(key).collect();
        assert_eq!(r.executions.len(), total, "trial {trial}");
        assert_eq!(
            keys.len(),
            total,
            "trial {trial}: duplicates in the final store"
        );
        for (k, e) in &committed {
            assert_eq!(
                r.executions.iter().find(|x| &key(x) == k),
                Some(e),
                "trial {trial}"
            );
        }
        // Every committed execution has exactly its one reported value plus wall/cpu/rss.
        for e in &r.executions {
            let n = r
                .measurements
                .iter()
                .filter(|m| m.binary == e.binary && m.execution == e.execution)
                .count();
            assert_eq!(n, 4, "trial {trial}: {e:?}");
        }
    }
    eprintln!("{kills_with_partial_store} kills left a partial store");
    assert!(
        kills_with_partial_store >= 10,
        "only {kills_with_partial_store} kills hit the middle of a run: the delays miss the schedule"
    );
}

/// `run --resume` started from another directory runs the rest of the schedule where the run
/// began (the header's `cwd`, with its recorded environment): a relative input path still
/// resolves, and `PWD`, part of the environment's size and so of the stack's placement, is
/// the one of the executions already stored. Before, the rest ran in the new directory and
/// failed (here) or silently measured other inputs.
#[test]
fn resume_from_another_directory_runs_in_the_recorded_one() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 2);
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("input.txt"), "data").unwrap();
    let script = r#"test -f input.txt && test "$PWD" = "$(pwd -P)" && exec "$0" ok"#;
    let status = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
        .current_dir(work.path().canonicalize().unwrap())
        .args(["run", "--out"])
        .arg(d.path())
        .args([
            "--executions",
            "2",
            "--metric",
            "wall",
            "--",
            "sh",
            "-c",
            script,
        ])
        .arg("{bin}")
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    // Keep the header and the first two executions, as an interruption there would.
    let store = d.path().join("results.jsonl");
    let text = std::fs::read_to_string(&store).unwrap();
    let mut kept = String::new();
    let mut executions = 0;
    for line in text.lines() {
        if line.contains(r#""record":"execution""#) {
            executions += 1;
            if executions > 2 {
                break;
            }
        }
        kept.push_str(line);
        kept.push('\n');
    }
    std::fs::write(&store, kept).unwrap();
    assert_eq!(read_results(d.path()).unwrap().executions.len(), 2);

    let elsewhere = tempfile::tempdir().unwrap();
    let resumed = Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
        .current_dir(elsewhere.path())
        .args(["run", "--resume", "--out"])
        .arg(d.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{stderr}");
    // Pinned whole: it says it resumes in the recorded working directory, written [work].
    let work_dir = work.path().canonicalize().unwrap();
    insta::assert_snapshot!(
        stderr_in(&resumed, d.path()).replace(&*work_dir.to_string_lossy(), "[work]")
    );
    let r = read_results(d.path()).unwrap();
    assert_eq!(r.executions.len(), 6);
    let failed: Vec<_> = r
        .executions
        .iter()
        .filter(|e| e.status != layoutrand::files::store::ExecutionStatus::Ok)
        .map(|e| (e.binary.clone(), e.execution, e.output_tail.clone()))
        .collect();
    assert!(failed.is_empty(), "resumed executions failed: {failed:?}");
}
