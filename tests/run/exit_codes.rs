//! Issue 22, item 6: documented, distinct exit statuses (docs/run.md, *Exit codes*): a run
//! stopped by its budget is not "done", and a program that failed on every execution is
//! named once with its stored output instead of a warning per binary.

use crate::run_support;

use std::os::unix::fs::PermissionsExt;

use crate::stderr_in;
use layoutrand::exit::Exit;
use run_support::*;

/// An experiment with two programs: `faulty` (the fixture, which succeeds with `ok`) and
/// `broken`, a script that fails on every execution, as a program run with the wrong
/// arguments would.
fn two_programs(dir: &std::path::Path, seeds: u64) {
    let build = dir.join("build");
    std::fs::create_dir_all(&build).unwrap();
    let good = build.join("faulty");
    gcc(&good, &[fixture("faulty.c")], &["-O1"]);
    let bad = build.join("broken");
    std::fs::write(
        &bad,
        "#!/bin/sh\necho \"broken: no such input: $1\" >&2\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut sets = vec![(
        None,
        vec![("faulty", good.clone()), ("broken", bad.clone())],
    )];
    for s in 1..=seeds {
        sets.push((
            Some(s),
            vec![("faulty", good.clone()), ("broken", bad.clone())],
        ));
    }
    experiment(dir, &sets);
}

#[test]
fn a_program_failing_on_every_execution_has_its_own_status_and_output_shown_once() {
    let d = tempfile::tempdir().unwrap();
    two_programs(d.path(), 4);
    let out = run_in(d.path())
        .args(["--executions", "2", "--", "{bin}", "ok"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(Exit::ProgramFailed.code()),
        "{stderr}"
    );
    assert_eq!(Exit::ProgramFailed.code(), 5);
    // Pinned whole: the failing program named once with its output, the other not at all.
    insta::assert_snapshot!(stderr_in(&out, d.path()));

    // The report names the program once, with its output, and no per-binary repetition.
    let report = layoutrand().arg("report").arg(d.path()).output().unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(report.status.success(), "{text}");
    assert_eq!(
        text.matches("broken: every execution of every binary failed (10 executions of 5 binaries; exit status 3)")
            .count(),
        1,
        "{text}"
    );
    assert_eq!(text.matches("no such input: ok").count(), 1, "{text}");
    assert!(!text.contains("worth a look"), "{text}");
}

#[test]
fn a_budget_stop_is_status_4_and_a_complete_resume_is_0() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 2);
    let out = run_in(d.path())
        .args(["--executions", "2", "--budget", "1ns", "--", "{bin}", "ok"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(Exit::StoppedEarly.code()),
        "{stderr}"
    );
    // Pinned whole: the status it exits with and the command that continues.
    insta::assert_snapshot!(stderr_in(&out, d.path()));
    layoutrand()
        .args(["run", "--resume", "--out"])
        .arg(d.path())
        .assert()
        .code(Exit::Complete.code());
}

/// Issue 22, item 7: output that cannot be written (a full disk behind `>` or `2>`) is an
/// error of the environment, not a panic: stderr's failures are ignored (the run goes on and
/// its store is complete), stdout's end the command with status 2 and a plain message.
#[test]
fn a_full_disk_behind_stdout_or_stderr_is_no_panic() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    // std's Command: assert_cmd's captures both streams.
    let command = || std::process::Command::new(assert_cmd::cargo::cargo_bin("layoutrand"));
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 2);
    // Every progress line and the summary go to a full stderr: the run completes all the
    // same, with every execution stored.
    let out = command()
        .args(["run", "--out"])
        .arg(d.path())
        .args(["--executions", "2", "--", "{bin}", "ok"])
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(Exit::Complete.code()));
    let stored = layoutrand::files::store::read_results(d.path()).unwrap();
    assert_eq!(
        stored.executions.len(),
        3 * 2,
        "baseline + 2 seeds, 2 executions each"
    );
    // An error message that cannot be written still gives the error's status.
    let out = command()
        .args(["report", "--out-of-nowhere"])
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(Exit::InputError.code()));
    let out = command()
        .args(["report"])
        .arg(d.path().join("no-such-experiment"))
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(Exit::InputError.code()));
    // A report written to a full stdout: status 2 and why, no backtrace.
    let out = command()
        .arg("report")
        .arg(d.path())
        .stdout(full())
        .output()
        .unwrap();
    let stderr = stderr_in(&out, d.path());
    assert_eq!(out.status.code(), Some(Exit::InputError.code()), "{stderr}");
    insta::assert_snapshot!(stderr);
}

/// `--ok-exit-codes`: a program whose normal ending is a status other than 0 (a SAT solver's
/// 10 and 20, grep's 1) is measured, not failed; the codes are recorded in the store's
/// header, and a resume asking for other codes is refused, since its executions would not
/// be judged alike.
#[test]
fn ok_exit_codes_count_those_endings_as_ok_and_a_resume_keeps_them() {
    let d = tempfile::tempdir().unwrap();
    two_programs(d.path(), 2);
    let out = run_in(d.path())
        .args([
            "--executions",
            "2",
            "--ok-exit-codes",
            "3,3",
            "--",
            "{bin}",
            "ok",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    crate::build_support::assert_success(&out, "run --ok-exit-codes 3,3");
    let results = layoutrand::files::store::read_results(d.path()).unwrap();
    let header = results.header.expect("a header");
    assert_eq!(header.ok_exit_codes, vec![3]);
    let broken: Vec<_> = results
        .executions
        .iter()
        .filter(|e| e.program == "broken")
        .collect();
    assert_eq!(
        broken.len(),
        2 * 3,
        "2 executions of the baseline and 2 seeds"
    );
    assert!(broken.iter().all(|e| e.exit_code == Some(3)));
    assert!(broken
        .iter()
        .all(|e| e.status == layoutrand::files::store::ExecutionStatus::Ok));

    let again = run_in(d.path())
        .args(["--resume", "--ok-exit-codes", "4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(
        again.status.code(),
        Some(Exit::InputError.code()),
        "{stderr}"
    );
    assert!(
        stderr.contains("--ok-exit-codes: 4 now, 3 in the stored run"),
        "{stderr}"
    );
}
