//! Interrupting an experiment (SIGINT, then SIGKILL) and running the same command again
//! resumes it without losing or repeating work: every (binary, execution) is in the store
//! exactly once at the end, and no orphaned runner keeps writing after its experiment died.

use crate::experiment_support;

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use experiment_support::*;
use layoutrand::files::store::{read_results, ExecutionStatus, RESULTS_FILE};

const SEEDS: usize = 3;
/// The fixed layouts run beside the seeds: the baseline and the build's own binary.
const FIXED: usize = 2;
const EXECUTIONS: usize = 5;

fn experiment(src: &Path, out: &Path) -> Command {
    let mut cmd = layoutrand();
    cmd.current_dir(src)
        .arg("experiment")
        .arg(demo_experiment())
        .arg("--out")
        .arg(out)
        .args([
            "--seeds",
            &SEEDS.to_string(),
            "--executions",
            &EXECUTIONS.to_string(),
        ])
        .args(["--metric", "wall", "--run-cmd", "{bin} 3"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // A harness started in the background by a non-interactive shell (`cmd &`) ignores
    // SIGINT, and an ignored signal stays ignored across exec: the experiment would then run
    // through the SIGINT this test sends. Give it the default action back.
    // SAFETY: signal(2) is async-signal-safe, the only call between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    cmd
}

fn committed_executions(out: &Path) -> usize {
    if !out.join(RESULTS_FILE).exists() {
        return 0;
    }
    read_results(out).map(|r| r.executions.len()).unwrap_or(0)
}

/// Waits until the store holds at least `n` executions, or panics after two minutes.
fn wait_for_executions(child: &mut Child, out: &Path, n: usize) {
    let start = Instant::now();
    while committed_executions(out) < n {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("experiment ended ({status}) before {n} executions were stored");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no progress to {n} executions"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

#[test]
fn sigint_then_sigkill_then_rerun_completes_without_loss_or_repetition() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo_sources(dir.path());
    let out = dir.path().join("out");

    let mut first = experiment(&src, &out).spawn().unwrap();
    wait_for_executions(&mut first, &out, 2);
    signal(&first, libc::SIGINT);
    assert!(!first.wait().unwrap().success());
    let after_sigint = committed_executions(&out);

    let mut second = experiment(&src, &out).spawn().unwrap();
    wait_for_executions(&mut second, &out, after_sigint + 2);
    signal(&second, libc::SIGKILL);
    second.wait().unwrap();
    // The runner died with its experiment: nothing is appended any more.
    std::thread::sleep(Duration::from_millis(300));
    let after_sigkill = committed_executions(&out);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        committed_executions(&out),
        after_sigkill,
        "an orphaned runner kept writing"
    );
    assert!(
        after_sigkill < (SEEDS + FIXED) * EXECUTIONS,
        "interrupted too late to test resuming"
    );

    let third = experiment(&src, &out).output().unwrap();
    assert!(third.status.success(), "{}", describe(&third));

    let results = read_results(&out).unwrap();
    let mut seen: BTreeMap<(String, u32), usize> = BTreeMap::new();
    for e in &results.executions {
        assert_eq!(e.status, ExecutionStatus::Ok, "{e:?}");
        *seen.entry((e.binary.clone(), e.execution)).or_default() += 1;
    }
    assert_eq!(seen.len(), (SEEDS + FIXED) * EXECUTIONS, "{seen:?}");
    assert!(
        seen.values().all(|&n| n == 1),
        "an execution was repeated: {seen:?}"
    );
    // Each committed execution has exactly its own measurements (one wall value each).
    let walls = results
        .measurements
        .iter()
        .filter(|m| m.metric == "wall")
        .count();
    assert_eq!(walls, (SEEDS + FIXED) * EXECUTIONS);
    assert!(out.join("report.json").exists());
}
