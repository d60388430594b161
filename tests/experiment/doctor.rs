//! `layoutrand doctor` on this machine: it prints a verdict and a noise figure, and its exit
//! code matches the verdict (0 fit, 1 deterministic metrics only, 3 not fit).

use std::process::Command;

fn doctor() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_layoutrand"));
    // A short calibration keeps the test quick; the figures are still measured.
    cmd.args(["doctor", "--executions", "3", "--iterations", "2"]);
    cmd
}

#[test]
fn doctor_prints_its_verdict_and_a_noise_figure_with_the_matching_exit_code() {
    let out = doctor().args(["--format", "json"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    let code = out.status.code().expect("exited");
    let expected = match json["verdict"].as_str().unwrap() {
        "fit" => 0,
        "deterministic_only" => 1,
        "not_fit" => 3,
        other => panic!("unknown verdict {other}"),
    };
    assert_eq!(code, expected, "{json:#}");
    assert_eq!(json["exit_code"], expected);
    // This machine has the tools (scripts/setup.sh), so it is fit at least for cachegrind.
    assert_ne!(json["verdict"], "not_fit", "{json:#}");
    let calibration = &json["calibration"];
    assert_eq!(calibration["executions"], 3);
    assert_eq!(calibration["live_iterations"], 1);
    let cv = calibration["cv_between_executions"].as_f64().unwrap();
    // Positive and finite; not small: the suite runs test crates side by side on two cores,
    // and one execution slowed threefold by a neighbour gives a CV above 1 (CI saw 1.06).
    assert!(
        cv > 0.0 && cv < 5.0,
        "executions of a real loop differ, by a sane amount: {cv}"
    );
    assert!(
        json["counts"]["executions_to_detect"].is_u64()
            || json["counts"]["executions_to_detect"].is_null()
    );
    let names: Vec<&str> = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for name in [
        "ASLR control",
        "/dev/null",
        "valgrind",
        "linkers",
        "compilers",
        "load",
        "noise",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }

    let out = doctor().output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The calibration's line, pinned whole (what this machine measured written [n], [t]).
    let calibration: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Calibration: "))
        .collect();
    insta::assert_snapshot!(
        "calibration_line",
        crate::snapshot_support::redact(
            &calibration.join("\n"),
            &[
                (r"\d+(\.\d+)? ms per iteration", "[t] ms per iteration"),
                (r"ASLR (off|on)", "ASLR [state]"),
                (r"\d+(\.\d+)? s:", "[t] s:"),
                (r"vary by \d+(\.\d+)? %", "vary by [n] %"),
            ]
        )
    );
    let code = out.status.code().unwrap();
    let verdict: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Verdict: "))
        .collect();
    assert_eq!(verdict.len(), 1, "{text}");
    assert!(
        verdict[0].ends_with(&format!("(exit code {code}).")),
        "the text names the exit code the process returns: {text}"
    );
}

#[test]
fn a_machine_without_compilers_is_not_fit() {
    // An empty PATH hides every compiler, linker and valgrind.
    let empty = tempfile::tempdir().unwrap();
    let out = doctor()
        .env("PATH", empty.path())
        .args(["--no-calibration", "--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["verdict"], "not_fit", "{json:#}");
    let check = |name: &str| {
        json["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name} check: {json:#}"))
            .clone()
    };
    for name in ["compilers", "linkers"] {
        assert_eq!(check(name)["status"], "problem", "{json:#}");
    }
    // The compilers' problem, pinned whole: no C compiler.
    insta::assert_snapshot!(
        "no_compiler",
        check("compilers")["detail"].as_str().unwrap()
    );
}

/// Issue 54: `doctor` interrupted (SIGINT, SIGTERM) while its calibration loop runs leaves
/// no loop behind: the loop runs as an execution (its own process group, killed with the
/// runner by a parent-death signal), and the doctor ends with the signal.
#[test]
fn an_interrupted_doctor_leaves_no_calibration_loop_behind() {
    use std::time::{Duration, Instant};
    // A calibration of thousands of iterations: it is surely running when the signal comes.
    let marker = "calibration-loop";
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let mut child = crate::processes_support::start_for_interrupt(
            Command::new(env!("CARGO_BIN_EXE_layoutrand")).args([
                "doctor",
                "--executions",
                "3",
                "--iterations",
                "100000",
            ]),
        );
        let started = Instant::now();
        let doctor = child.id() as i32;
        // The loops this doctor started (another test's doctor may run one too).
        let loops = || -> Vec<i32> {
            crate::processes_support::live_processes(|c| c.contains(marker))
                .into_iter()
                .filter(|&p| parent_of(p) == Some(doctor))
                .collect()
        };
        while loops().is_empty() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "doctor ended before its calibration loop ran"
            );
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the calibration loop never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let loops = loops();
        // SAFETY: kill(2) on the child this test started and has not reaped.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let status = child.wait().unwrap();
        assert!(!status.success(), "doctor went on after the signal");
        let gone = (0..40).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            loops.iter().all(|&p| !alive(p))
        });
        assert!(gone, "the calibration loop {loops:?} outlived the doctor");
    }
}

/// The parent of `pid`, from /proc.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Whether `pid` runs (a zombie counts as gone).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}
