//! Issue 22, item 4: every count, duration and seed range is checked before anything is
//! allocated or written. Each case below used to panic, abort, exhaust memory, wrap around,
//! or write a store header before failing (so that the next plain `run` was refused).

use crate::run_support;

use crate::snapshot_support::redact;
use crate::{in_dir, stderr_in};
use layoutrand::files::store::{read_results, RESULTS_FILE};
use run_support::*;

/// Exit status of an input error (clap's own, and every error layoutrand reports).
const INPUT_ERROR: i32 = 2;

#[test]
fn run_refuses_bad_counts_and_durations_before_writing_anything() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let not_a_cpu = (nix::sched::CpuSet::count() - 1).to_string();
    let cases: &[&[&str]] = &[
        &["--executions", "4000000000"],
        &["--timeout", "1e30"],
        &["--timeout", "1e19"],
        &["--timeout", "0"],
        &["--timeout=-3"],
        &["--budget", "99999999999999999999h"],
        &["--budget", "0"],
        &["--budget", "0s"],
        &["--cpus", &not_a_cpu],
        &["--env-pad", "4000000000"],
        &["--iterations", "4000000000"],
    ];
    // Each case's message (no panic), pinned whole in one snapshot, the CPU that is not
    // one written `[cpu]` and the machine's usable CPUs `[cpus]`.
    let mut said = String::new();
    for flags in cases {
        let out = run_in(d.path())
            .args(*flags)
            .args(["--metric", r"regex:value (\d+)"])
            .args(["--", "{bin}", "ok"])
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(INPUT_ERROR), "{flags:?}: {stderr}");
        said += &format!("$ run {}\n{}", flags.join(" "), in_dir(&stderr, d.path()));
        assert!(
            !d.path().join(RESULTS_FILE).exists(),
            "{flags:?} wrote a store before failing"
        );
    }
    let said = said
        .replace(&format!("--cpus {not_a_cpu}"), "--cpus [cpu]")
        .replace(&format!("CPU {not_a_cpu}"), "CPU [cpu]");
    insta::assert_snapshot!(redact(&said, &[(r"\(usable: [^)]*\)", "(usable: [cpus])")]));
    // So the next plain run starts as if nothing had happened.
    run_in(d.path())
        .args(["--executions", "1", "--timeout", "30s", "--", "{bin}", "ok"])
        .assert()
        .success();
    assert_eq!(read_results(d.path()).unwrap().executions.len(), 2);
}

/// Plain seconds (what `--timeout` always took) and humantime durations mean the same, and
/// the store records the timeout in seconds.
#[test]
fn timeouts_take_plain_seconds_or_durations() {
    for (given, seconds) in [("2.5", 2.5), ("1m 30s", 90.0), ("500ms", 0.5)] {
        let d = tempfile::tempdir().unwrap();
        same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
        run_in(d.path())
            .args(["--executions", "1", "--timeout", given, "--", "{bin}", "ok"])
            .assert()
            .success();
        let header = read_results(d.path()).unwrap().header.unwrap();
        assert_eq!(header.timeout_seconds, Some(seconds), "{given}");
    }
}

/// A schedule too large to plan is refused with the product named, not allocated.
#[test]
fn an_oversized_schedule_is_refused_before_it_is_planned() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 19);
    let out = run_in(d.path())
        .args(["--executions", "100000", "--", "{bin}", "ok"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(INPUT_ERROR);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join(RESULTS_FILE).exists());
}

/// A store header is data: a crafted `timeout_seconds` is refused on `--resume`, not a
/// worker-thread panic.
#[test]
fn a_resumed_header_with_an_absurd_timeout_is_refused() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 0);
    run_in(d.path())
        .args(["--executions", "1", "--timeout", "10", "--", "{bin}", "ok"])
        .assert()
        .success();
    let store = d.path().join(RESULTS_FILE);
    let text = std::fs::read_to_string(&store).unwrap();
    let crafted = text.replacen("\"timeout_seconds\":10.0", "\"timeout_seconds\":1e30", 1);
    assert_ne!(crafted, text, "the header holds timeout_seconds");
    std::fs::write(&store, &crafted).unwrap();
    // The edited header is no longer the user's own: refused as such (tests/safety/trust.rs);
    // trusted anyway, its absurd timeout is still refused.
    let out = layoutrand()
        .args(["run", "--resume", "--trust", "--out"])
        .arg(d.path())
        .output()
        .unwrap();
    let stderr = stderr_in(&out, d.path());
    assert_eq!(out.status.code(), Some(INPUT_ERROR), "{stderr}");
    insta::assert_snapshot!(stderr);
    assert_eq!(std::fs::read_to_string(&store).unwrap(), crafted);
}

/// `build` checks its seed range before it runs the build command (here one that would
/// leave a marker).
#[test]
fn build_refuses_seed_ranges_before_running_the_build() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[&[&str]] = &[
        &["--seeds", "4294967296"],
        &["--seeds", "4294967296", "--allow-many-seeds"],
        &["--seed-base", "18446744073709551615", "--seeds", "3"],
        &["--seeds", "2", "--jobs", "100000000"],
    ];
    // Each case's message, pinned whole in one snapshot.
    let mut said = String::new();
    for flags in cases {
        let out = layoutrand()
            .current_dir(d.path())
            .arg("build")
            .args(*flags)
            .args(["--out", "out", "--", "touch", "built"])
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(INPUT_ERROR), "{flags:?}: {stderr}");
        said += &format!("$ build {}\n{}", flags.join(" "), in_dir(&stderr, d.path()));
        assert!(!d.path().join("built").exists(), "{flags:?} ran the build");
        assert!(!d.path().join("out").exists(), "{flags:?} created --out");
    }
    insta::assert_snapshot!(said);
}

#[test]
fn analyze_refuses_an_absurd_cost_without_panicking() {
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("m.csv");
    std::fs::write(&csv, "binary,execution,value\na,1,1\na,2,2\nb,1,3\nb,2,4\n").unwrap();
    let out = layoutrand()
        .args([
            "analyze",
            "--levels",
            "binary,execution",
            "--value",
            "value",
        ])
        .args(["--costs", "binary=99999999999999999999h"])
        .arg(&csv)
        .assert()
        .code(INPUT_ERROR);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
}

/// An experiment file's counts, metric and timeout are checked before its build stage runs
/// (its build command would leave a marker).
#[test]
fn experiment_file_values_are_checked_before_the_build() {
    let cases = [
        "[run]\nexecutions = 0\n",
        "[run]\nmetric = \"regex:([0-9\"\n",
        "[run]\ntimeout = 1e30\n",
        "[build]\nseeds = 4000000000\n",
    ];
    // Each case's message, pinned whole in one snapshot.
    let mut said = String::new();
    for extra in cases {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("experiment.toml");
        let (build, rest) = match extra.strip_prefix("[build]\n") {
            Some(keys) => (keys, String::new()),
            None => ("", extra.to_string()),
        };
        let text = format!(
            "[build]\ncommand = [\"touch\", \"built\"]\n{build}\n{}\n",
            if rest.is_empty() {
                "[run]\ncommand = [\"{bin}\"]\n".to_string()
            } else {
                rest.replacen("[run]\n", "[run]\ncommand = [\"{bin}\"]\n", 1)
            }
        );
        std::fs::write(&file, text).unwrap();
        let out = layoutrand()
            .current_dir(d.path())
            .arg("experiment")
            .arg(&file)
            .args(["--out", "out"])
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(INPUT_ERROR), "{extra}: {stderr}");
        said += &format!("$ experiment with {extra:?}\n{}", in_dir(&stderr, d.path()));
        assert!(!d.path().join("built").exists(), "{extra}: the build ran");
    }
    insta::assert_snapshot!(said);
}
