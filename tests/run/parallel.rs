//! `run --jobs`: parallel executions of a deterministic metric write the store a serial run
//! writes; time metrics are refused in parallel; cachegrind's estimated cycles follow the
//! documented formula on cachegrind's own counts.

use crate::run_support;

use std::path::Path;

use crate::stderr_in;
use layoutrand::files::store::{read_results, ExecutionStatus, Record};
use layoutrand::run::metric::read_cachegrind_totals;
use run_support::*;

/// The two-layout experiment of the cachegrind fixture (link orders a,b and b,a) with a
/// third binary, in `dir`.
fn two_layouts(dir: &Path) {
    let build = dir.join("build");
    std::fs::create_dir_all(&build).unwrap();
    let a = object(&build, "layout_a.c", &["-O1"]);
    let b = object(&build, "layout_b.c", &["-O1"]);
    let ab = build.join("ab");
    let ba = build.join("ba");
    gcc(&ab, &[a.clone(), b.clone()], &["-fuse-ld=lld"]);
    gcc(&ba, &[b, a], &["-fuse-ld=lld"]);
    experiment(
        dir,
        &[
            (None, vec![("prog", ab.clone())]),
            (Some(1), vec![("prog", ba)]),
            (Some(2), vec![("prog", ab)]),
        ],
    );
}

fn run_cachegrind(dir: &Path, jobs: &str) {
    run_in(dir)
        .args([
            "--executions",
            "2",
            "--metric",
            "cachegrind",
            "--jobs",
            jobs,
        ])
        .args(["--schedule-seed", "5", "--", "{bin}"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success();
}

/// The store's records without what legitimately differs between two runs (times, the
/// host's state), in file order.
fn comparable_records(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    text.lines()
        .filter_map(|line| match serde_json::from_str::<Record>(line).unwrap() {
            Record::Measurement(m) => Some(format!("{m:?}")),
            Record::Execution(mut e) => {
                e.start_unix = 0.0;
                e.wall_ns = 0;
                e.host = None;
                Some(format!("{e:?}"))
            }
            Record::Header(_) | Record::Finish(_) | Record::Extension(_) => None,
        })
        .collect()
}

#[test]
fn a_parallel_cachegrind_store_equals_the_serial_one() {
    let serial = tempfile::tempdir().unwrap();
    let parallel = tempfile::tempdir().unwrap();
    two_layouts(serial.path());
    two_layouts(parallel.path());
    run_cachegrind(serial.path(), "1");
    run_cachegrind(parallel.path(), "2");
    let r = read_results(parallel.path()).unwrap();
    assert_eq!(r.executions.len(), 6);
    assert!(r.executions.iter().all(|e| e.status == ExecutionStatus::Ok));
    assert_eq!(r.finishes.len(), 1);
    assert_eq!(r.finishes[0].jobs, 2);
    assert_eq!(read_results(serial.path()).unwrap().finishes[0].jobs, 1);
    // Schedule order in the file, as a serial run writes it.
    let order: Vec<u64> = r.executions.iter().map(|e| e.schedule_index).collect();
    assert_eq!(order, (0..6).collect::<Vec<u64>>());
    let (s, p) = (
        comparable_records(serial.path()),
        comparable_records(parallel.path()),
    );
    assert_eq!(s.len(), p.len());
    for (a, b) in s.iter().zip(&p) {
        assert_eq!(a, b);
    }
    // The comparison means something: the two layouts differ in the primary metric.
    let cycles = |binary: &str| {
        r.measurements
            .iter()
            .find(|m| m.binary == binary && m.metric == "estimated_cycles")
            .unwrap()
            .value
    };
    assert_ne!(cycles("baseline"), cycles("seed-1"));
}

#[test]
fn parallel_time_measurements_are_refused_unless_forced() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "iters", "iters.c", 1);
    let out = run_in(d.path())
        .args(["--executions", "1", "--metric", "wall", "--jobs", "2"])
        .args(["--", "{bin}"])
        .assert()
        .code(2);
    // Pinned whole: the flags refused together, and the one that forces them.
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join("results.jsonl").exists(), "nothing was run");
    run_in(d.path())
        .args(["--executions", "1", "--metric", "wall", "--jobs", "2"])
        .args(["--force-parallel", "--", "{bin}"])
        .assert()
        .success();
    assert_eq!(read_results(d.path()).unwrap().executions.len(), 2);
}

/// The events and totals of a cachegrind output file, read here independently of the
/// crate's parser.
fn summary_of(file: &Path) -> Vec<(String, f64)> {
    let text = std::fs::read_to_string(file).unwrap();
    let events = text
        .lines()
        .find_map(|l| l.strip_prefix("events: "))
        .unwrap();
    let summary = text
        .lines()
        .find_map(|l| l.strip_prefix("summary: "))
        .unwrap();
    events
        .split(' ')
        .map(String::from)
        .zip(summary.split(' ').map(|v| v.parse::<f64>().unwrap()))
        .collect()
}

#[test]
fn estimated_cycles_follow_the_formula_on_cachegrinds_own_counts() {
    let d = tempfile::tempdir().unwrap();
    let build = d.path().join("build");
    std::fs::create_dir_all(&build).unwrap();
    let a = object(&build, "layout_a.c", &["-O1"]);
    let b = object(&build, "layout_b.c", &["-O1"]);
    let exe = build.join("prog");
    gcc(&exe, &[a, b], &[]);
    let cg = d.path().join("cg");
    std::fs::create_dir_all(&cg).unwrap();
    let status = std::process::Command::new("valgrind")
        .args(["--tool=cachegrind", "--cache-sim=yes", "--quiet"])
        .arg(format!(
            "--cachegrind-out-file={}/cachegrind.out.1",
            cg.display()
        ))
        .arg(&exe)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("valgrind runs");
    assert!(status.success());
    let own = summary_of(&cg.join("cachegrind.out.1"));
    let ev = |n: &str| own.iter().find(|(k, _)| k == n).unwrap().1;
    // iai-callgrind's model: RAM hits = LL misses; LL hits = L1 misses − RAM hits;
    // L1 hits = all references − L1 misses; cycles = L1 hits + 5·LL hits + 35·RAM hits.
    let ram = ev("ILmr") + ev("DLmr") + ev("DLmw");
    let l1_misses = ev("I1mr") + ev("D1mr") + ev("D1mw");
    let l1_hits = ev("Ir") + ev("Dr") + ev("Dw") - l1_misses;
    let expected = l1_hits + 5.0 * (l1_misses - ram) + 35.0 * ram;
    let totals = read_cachegrind_totals(&cg).unwrap();
    let got = totals
        .iter()
        .find(|(k, _)| k == "estimated_cycles")
        .unwrap()
        .1;
    assert_eq!(got, expected);
    assert!(
        expected > ev("Ir"),
        "more cycles than instructions: {own:?}"
    );
    assert_eq!(totals.iter().find(|(k, _)| k == "Ir").unwrap().1, ev("Ir"));
}
