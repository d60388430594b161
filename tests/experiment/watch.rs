//! `layoutrand watch BASE HEAD`, the pull-request check of docs/ci.md, on a git repository
//! holding the demo, as docs/ci/layoutrand.yml runs it: unchanged code passes in one round; a
//! planted 2 % slowdown fails, confirmed by a second round of the same binaries; a watch
//! stopped by its budget is not gated and the same command finishes it; a version whose build
//! stopped half-way is built again in a fresh worktree; another watch's directory, a revision
//! that names no commit and a directory outside git are refused.
//! Under cachegrind, so every verdict is deterministic.

use std::path::Path;
use std::process::{Command, Output};

use crate::experiment_support::{demo_sources, describe, layoutrand, plant_slowdown, repo};
use crate::snapshot_support::{machine_free, redact, stderr_in, stdout_in};

/// `git ARGS` in `dir` with a fixed author and dates, so that commits are the same on every
/// run.
fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.email=ci@example.org", "-c", "user.name=ci"])
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-12-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-12-01T00:00:00Z")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// The demo in a git repository of two commits: the base, and the base made 2 % slower.
fn demo_repository(tmp: &Path) -> std::path::PathBuf {
    let src = demo_sources(tmp);
    git(&src, &["init", "-q"]);
    git(&src, &["add", "-A"]);
    git(&src, &["commit", "-qm", "base"]);
    plant_slowdown(&src, 420_000);
    git(&src, &["commit", "-qam", "2 % slower"]);
    src
}

/// `layoutrand watch BASE HEAD` in `dir` with the workflow's flags but a small design (5
/// seeds × 1 execution under cachegrind) and `extra` flags, into `out`.
fn watch(dir: &Path, base: &str, head: &str, out: &Path, extra: &[&str]) -> Output {
    layoutrand()
        .current_dir(dir)
        .args([
            "watch",
            base,
            head,
            "--build-cmd",
            "make -j2",
            "--seeds",
            "5",
        ])
        .args(["--executions", "1", "--metric", "cachegrind", "--out"])
        .arg(out)
        .args(extra)
        .args(["--", "{bin}", "1"])
        .output()
        .unwrap()
}

/// The watch's stdout, the same on every run: the temporary directory, commit hashes and the
/// effect's numbers (cachegrind's counts move by sub-ppm amounts with the environment's
/// padding) written as placeholders.
fn summary(output: &Output, tmp: &Path) -> String {
    redact_numbers(&machine_free(&stdout_in(output, tmp)))
}

/// `text` with commit hashes and percentages written as placeholders.
fn redact_numbers(text: &str) -> String {
    redact(
        text,
        &[
            (r"\b[0-9a-f]{12}\b", "[commit]"),
            (r"(< )?\b\d+(\.\d+)? %", "[x] %"),
        ],
    )
}

fn watch_json(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("watch.json")).unwrap()).unwrap()
}

fn worktrees(dir: &Path) -> usize {
    let listed = Command::new("git")
        .current_dir(dir)
        .args(["worktree", "list"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&listed.stdout).lines().count()
}

#[test]
fn unchanged_code_passes_and_a_planted_slowdown_fails_after_its_confirmation() {
    assert!(
        crate::build_support::have("valgrind"),
        "valgrind is not installed (the CI installs it: .ci/run)"
    );
    let workflow = std::fs::read_to_string(repo().join("docs/ci/layoutrand.yml")).unwrap();
    // The workflow's step is the watch below with the default design.
    assert!(workflow.contains(
        "layoutrand watch \"${{ github.event.pull_request.base.sha }}\" HEAD \\\n            \
         --build-cmd \"make -j2\" --metric cachegrind --fail-if-slower 0.1% \\\n            \
         --out \"$RUNNER_TEMP/watch\" --format markdown -- '{bin}' 1 \\\n            \
         | tee -a \"$GITHUB_STEP_SUMMARY\""
    ));
    let tmp = tempfile::tempdir().unwrap();
    let src = demo_repository(tmp.path());

    let same_out = tmp.path().join("same");
    let same = watch(&src, "HEAD~1", "HEAD~1", &same_out, &[]);
    assert_eq!(same.status.code(), Some(0), "{}", describe(&same));
    // Identical binaries: the effect is a few parts per million either way, its words too.
    let effect = [(
        r"estimated_cycles: .*; this design",
        "estimated_cycles: [effect]; this design",
    )];
    insta::assert_snapshot!("unchanged", redact(&summary(&same, tmp.path()), &effect));
    let record = watch_json(&same_out);
    assert_eq!(record["verdict"], "pass");
    assert_eq!(record["rounds"].as_array().unwrap().len(), 1);
    assert!(same_out.join("round-1/report.txt").is_file());
    assert!(!same_out.join("round-2").exists(), "no confirmation needed");

    let slower_out = tmp.path().join("slower");
    let slower = watch(&src, "HEAD~1", "HEAD", &slower_out, &[]);
    assert_eq!(slower.status.code(), Some(1), "{}", describe(&slower));
    insta::assert_snapshot!("slower", summary(&slower, tmp.path()));
    // What it says as it goes: the announcement, each round's gate lines, the confirmation.
    let mut said: Vec<String> = Vec::new();
    for line in stderr_in(&slower, tmp.path()).lines() {
        // Its own lines, and the failed comparisons listed under a FAIL line.
        let under_fail = line.starts_with("  ")
            && said
                .last()
                .is_some_and(|l| l.contains(": FAIL: ") || l.starts_with("  "));
        if line.starts_with("layoutrand watch:") || under_fail {
            said.push(line.to_string());
        }
    }
    insta::assert_snapshot!("slower_progress", redact_numbers(&said.join("\n")));
    let record = watch_json(&slower_out);
    crate::schemas_support::assert_valid("watch", "watch.json", &record);
    assert_eq!(record["verdict"], "fail");
    for round in record["rounds"].as_array().unwrap() {
        let judged = &round["comparisons"][0];
        assert_eq!(judged["failed"], true);
        // The planted work costs 2.2 % more estimated cycles (1.7 % to 2.7 %).
        let ratio = judged["ratio"].as_f64().unwrap();
        assert!((1.015..1.03).contains(&ratio), "{ratio}");
        assert!(judged["detectable_slowdown"].as_f64().unwrap() < 0.02);
    }
    // The confirmation ran the first round's binaries (hard links), without its recording.
    let binary = |round: &str| slower_out.join(round).join("head/seed-3/demo");
    assert_eq!(
        std::fs::read(binary("round-1")).unwrap(),
        std::fs::read(binary("round-2")).unwrap()
    );
    assert!(!slower_out.join("round-2/head/.record").exists());
    assert_eq!(worktrees(&src), 1, "the worktrees are removed");
    assert!(!slower_out.join("trees").exists());

    // Done: the same command says the verdict again without running anything.
    let again = watch(&src, "HEAD~1", "HEAD", &slower_out, &[]);
    assert_eq!(again.status.code(), Some(1), "{}", describe(&again));
    assert_eq!(summary(&again, tmp.path()), summary(&slower, tmp.path()));
    assert!(!String::from_utf8_lossy(&again.stderr).contains("execution(s) run"));
    // The same verdict as a table for a pull request, and as the record itself.
    let table = watch(
        &src,
        "HEAD~1",
        "HEAD",
        &slower_out,
        &["--format", "markdown"],
    );
    assert_eq!(table.status.code(), Some(1), "{}", describe(&table));
    insta::assert_snapshot!("slower_markdown", summary(&table, tmp.path()));
    let json = watch(&src, "HEAD~1", "HEAD", &slower_out, &["--format", "json"]);
    let printed: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(printed, watch_json(&slower_out));
}

#[test]
fn a_watch_stopped_by_its_budget_is_not_gated_and_the_same_command_finishes_it() {
    assert!(
        crate::build_support::have("valgrind"),
        "valgrind is not installed (the CI installs it: .ci/run)"
    );
    let tmp = tempfile::tempdir().unwrap();
    let src = demo_repository(tmp.path());
    let out = tmp.path().join("w");
    let stopped = watch(&src, "HEAD~1", "HEAD~1", &out, &["--budget", "1ms"]);
    assert_eq!(stopped.status.code(), Some(4), "{}", describe(&stopped));
    let said = String::from_utf8_lossy(&stopped.stdout);
    assert!(
        said.starts_with("STOPPED: "),
        "no verdict: {}",
        describe(&stopped)
    );
    assert!(!out.join("round-1/report.txt").exists(), "never gated");
    assert_eq!(watch_json(&out)["verdict"], serde_json::Value::Null);

    let finished = watch(&src, "HEAD~1", "HEAD~1", &out, &[]);
    assert_eq!(finished.status.code(), Some(0), "{}", describe(&finished));
    let err = String::from_utf8_lossy(&finished.stderr);
    assert!(
        !err.contains("== layoutrand experiment: build"),
        "not rebuilt: {err}"
    );
    assert_eq!(worktrees(&src), 1);

    // A build stopped half-way leaves a worktree whose objects are up to date: the version
    // is built again in a fresh one (make would otherwise compile and link nothing).
    let half = tmp.path().join("half");
    let stopped = watch(&src, "HEAD~1", "HEAD", &half, &["--budget", "1ms"]);
    assert_eq!(stopped.status.code(), Some(4), "{}", describe(&stopped));
    assert!(
        half.join("trees/head/demo").is_file(),
        "the head's tree holds its build"
    );
    std::fs::remove_dir_all(half.join("round-1")).unwrap();
    let rebuilt = watch(&src, "HEAD~1", "HEAD", &half, &[]);
    assert_eq!(rebuilt.status.code(), Some(1), "{}", describe(&rebuilt));

    // Another watch's directory is refused, naming what differs; so are a revision that
    // names no commit and a directory outside git.
    let other = watch(&src, "HEAD~1", "HEAD", &out, &[]);
    let no_commit = watch(&src, "HEAD~1", "no-such-branch", &tmp.path().join("x"), &[]);
    let outside = watch(tmp.path(), "HEAD~1", "HEAD", &tmp.path().join("y"), &[]);
    let mut refusals = String::new();
    for output in [&other, &no_commit, &outside] {
        assert_eq!(output.status.code(), Some(2), "{}", describe(output));
        let text = stderr_in(output, tmp.path());
        refusals.push_str(text.lines().last().unwrap_or_default());
        refusals.push('\n');
    }
    insta::assert_snapshot!("refusals", refusals);
}
