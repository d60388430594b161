//! The pull-request check of docs/ci.md, run as its workflow runs it
//! (docs/ci/layoutrand.yml's gate step: `layoutrand-gate.sh BASE HEAD OUT BUILD RUN`) on a
//! git repository holding the demo: unchanged code passes, a planted 2 % slowdown fails after
//! its confirmation round. Under cachegrind, so both are deterministic.

use std::path::Path;
use std::process::{Command, Output};

use crate::experiment_support::{demo_sources, plant_slowdown, repo};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.email=ci@example.org", "-c", "user.name=ci"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// The workflow's gate step on `base`..`head` of `dir`, into `out`.
fn gate(dir: &Path, base: &str, head: &str, out: &Path) -> Output {
    Command::new("bash")
        .current_dir(dir)
        .arg(repo().join("docs/ci/layoutrand-gate.sh"))
        .args([base, head])
        .arg(out)
        .args(["make -j2", "{bin} 1"])
        .env("LAYOUTRAND", assert_cmd::cargo::cargo_bin("layoutrand"))
        .env("GATE_SEEDS", "5")
        .env("GATE_EXECUTIONS", "1")
        .env("GATE_RUN_FLAGS", "--metric cachegrind")
        .output()
        .unwrap()
}

#[test]
fn the_workflow_gate_passes_unchanged_code_and_fails_a_confirmed_slowdown() {
    assert!(
        crate::build_support::have("valgrind"),
        "valgrind is not installed (the CI installs it: .ci/run)"
    );
    let workflow = std::fs::read_to_string(repo().join("docs/ci/layoutrand.yml")).unwrap();
    assert!(workflow
        .contains("layoutrand-gate.sh\" \"${{ github.event.pull_request.base.sha }}\" HEAD"));
    let tmp = tempfile::tempdir().unwrap();
    let src = demo_sources(tmp.path());
    git(&src, &["init", "-q"]);
    git(&src, &["add", "-A"]);
    git(&src, &["commit", "-qm", "base"]);
    plant_slowdown(&src, 420_000);
    git(&src, &["commit", "-qam", "2 % slower"]);

    let same = gate(&src, "HEAD~1", "HEAD~1", &tmp.path().join("same"));
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        crate::experiment_support::describe(&same)
    );
    assert!(tmp.path().join("same/report.txt").is_file());
    assert!(
        !tmp.path().join("same.confirm/results.jsonl").exists(),
        "no confirmation needed"
    );

    let slower = gate(&src, "HEAD~1", "HEAD", &tmp.path().join("slower"));
    assert_eq!(
        slower.status.code(),
        Some(1),
        "{}",
        crate::experiment_support::describe(&slower)
    );
    for round in ["slower", "slower.confirm"] {
        assert!(
            tmp.path().join(round).join("results.jsonl").is_file(),
            "{round} ran"
        );
    }
    // The worktrees are gone: only the two commits' repository is left.
    let trees = Command::new("git")
        .current_dir(&src)
        .args(["worktree", "list"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&trees.stdout).lines().count(), 1);
}
