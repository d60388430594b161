//! Issue 22, item 6: documented, distinct exit statuses (docs/run.md, *Exit codes*): a run
//! stopped by its budget is not "done", and a program that failed on every execution is
//! named once with its stored output instead of a warning per binary.

mod run_support;

use std::os::unix::fs::PermissionsExt;

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
    assert_eq!(
        stderr
            .matches("broken: all 10 execution(s) of its 5 binaries failed")
            .count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("broken: no such input: ok").count(),
        1,
        "{stderr}"
    );
    assert!(!stderr.contains("faulty: all"), "{stderr}");

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
    assert!(stderr.contains("exit status 4"), "{stderr}");
    assert!(stderr.contains("layoutrand run --resume --out"), "{stderr}");
    layoutrand()
        .args(["run", "--resume", "--out"])
        .arg(d.path())
        .assert()
        .code(Exit::Complete.code());
}
