//! Issue 22, item 5: a signal to `build` (or to `experiment` during its build stage) kills
//! the recorded build's whole process group, says what was kept and how to continue, and
//! exits 128 + signal; a kill -9 of layoutrand takes the build command with it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};

use crate::processes_support::live_processes;
use nix::unistd::Pid;

/// Pids of the live `sleep MARKER` processes (an unusual duration), not the shells or the
/// layoutrand whose command lines also name it.
fn processes_with(marker: &str) -> Vec<i32> {
    live_processes(|c| c.starts_with(&format!("sleep {marker}")))
}

/// Waits up to `limit` for `test` to hold.
fn eventually(limit: Duration, mut test: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if test() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    test()
}

fn start(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_layoutrand"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn stop_and_check(child: Child, signal: Signal, marker: &str) -> (Option<i32>, String) {
    assert!(
        eventually(Duration::from_secs(20), || processes_with(marker).len()
            >= 2),
        "the build never started its two sleeps"
    );
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        eventually(Duration::from_secs(5), || processes_with(marker).is_empty()),
        "processes of the build survived: {:?}; {stderr}",
        processes_with(marker)
    );
    (out.status.code(), stderr)
}

#[test]
fn sigterm_to_build_kills_the_whole_build_and_says_how_to_continue() {
    let d = tempfile::tempdir().unwrap();
    let marker = "31.4159";
    // A background job and a foreground one: the group, not only the direct child, must die.
    let script = format!("sleep {marker} & sleep {marker}; wait");
    let child = start(
        d.path(),
        &[
            "build", "--seeds", "2", "--out", "out", "--", "sh", "-c", &script,
        ],
    );
    let (code, stderr) = stop_and_check(child, Signal::SIGTERM, marker);
    assert_eq!(code, Some(128 + libc::SIGTERM), "{stderr}");
    // The message, pinned whole, names the signal and says how to continue.
    insta::assert_snapshot!(crate::snapshot_support::in_dir(&stderr, d.path()));
}

#[test]
fn sigterm_to_an_experiment_in_its_build_stage_kills_the_build_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let marker = "27.1828";
    let file = d.path().join("experiment.toml");
    std::fs::write(
        &file,
        format!(
            "[build]\ncommand = [\"sh\", \"-c\", \"sleep {marker} & sleep {marker}; wait\"]\n\
             [run]\ncommand = [\"{{bin}}\"]\n"
        ),
    )
    .unwrap();
    let child = start(d.path(), &["experiment", "experiment.toml", "--out", "out"]);
    let (code, stderr) = stop_and_check(child, Signal::SIGTERM, marker);
    assert_eq!(code, Some(128 + libc::SIGTERM), "{stderr}");
    // The message, pinned whole, names the signal and the stage and says how to continue.
    insta::assert_snapshot!(crate::snapshot_support::in_dir(&stderr, d.path()));
}

#[test]
fn kill_9_of_build_takes_the_build_command_with_it() {
    let d = tempfile::tempdir().unwrap();
    let marker = "14.1421";
    // The build command itself is the process that must not outlive layoutrand.
    let child = start(
        d.path(),
        &[
            "build", "--seeds", "2", "--out", "out", "--", "sleep", marker,
        ],
    );
    assert!(
        eventually(Duration::from_secs(20), || !processes_with(marker)
            .is_empty()),
        "the build never started"
    );
    kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL).unwrap();
    let _ = child.wait_with_output().unwrap();
    assert!(
        eventually(Duration::from_secs(5), || processes_with(marker).is_empty()),
        "the build command survived kill -9 of layoutrand"
    );
}
