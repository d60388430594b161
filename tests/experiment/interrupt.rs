//! Issue 54: an experiment interrupted while a step of its own runs (a variant's
//! `prepare`) stops the step and everything it started, says so and exits 128 + signal.

use crate::experiment_support;

use std::time::{Duration, Instant};

use experiment_support::*;

/// Pids of the live processes whose command line holds `marker`.
fn processes_holding(marker: &str) -> Vec<i32> {
    crate::processes_support::live_processes(|c| c.contains(marker))
}

#[test]
fn an_interrupted_prepare_step_leaves_no_process_behind() {
    let marker = "23.4567";
    let file_text = format!(
        r#"
name = "hang"

[build]
seeds = 2

[[variant]]
name = "A"
command = ["make"]
prepare = [["sh", "-c", "sleep {marker} & sleep {marker}; wait"]]
dir = "src"

[[variant]]
name = "B"
command = ["make"]
dir = "src"

[run]
command = ["{{bin}}", "1"]
"#
    );
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let dir = tempfile::tempdir().unwrap();
        demo_sources(dir.path());
        let file = dir.path().join("experiment.toml");
        std::fs::write(&file, &file_text).unwrap();
        let mut child = crate::processes_support::start_for_interrupt(
            std::process::Command::new(env!("CARGO_BIN_EXE_layoutrand"))
                .current_dir(dir.path())
                .arg("experiment")
                .arg(&file)
                .arg("--out")
                .arg(dir.path().join("out")),
        );
        let started = Instant::now();
        while processes_holding(&format!("sleep {marker}")).len() < 2 {
            if child.try_wait().unwrap().is_some() {
                let out = child.wait_with_output().unwrap();
                panic!("{}", String::from_utf8_lossy(&out.stderr));
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the prepare step never started its sleeps"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: kill(2) on the child this test started and has not reaped.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(128 + signal), "{stderr}");
        // The message, pinned whole, names the signal and says the prepare step was stopped
        // with every process it started.
        let said: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("layoutrand experiment: interrupted by "))
            .collect();
        let name = if signal == libc::SIGINT {
            "SIGINT"
        } else {
            "SIGTERM"
        };
        insta::assert_snapshot!(
            format!("interrupted_by_{name}"),
            crate::snapshot_support::in_dir(&said.join("\n"), dir.path())
        );
        let gone = (0..40).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            processes_holding(marker).is_empty()
        });
        assert!(
            gone,
            "the prepare step's processes survived: {:?}",
            processes_holding(marker)
        );
    }
}
