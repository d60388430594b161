//! Issue 52: cachegrind's counts of every case of a suite (`--metric cachegrind:gbench`,
//! `cachegrind:criterion`), each case run alone. Real suites: the fixture's Google Benchmark
//! suite against the system's libbenchmark (1.7, refused with the reason) and against
//! Google Benchmark 1.9.1 built from Debian's source (network), and a criterion suite from
//! crates.io (network).

use crate::build_support;
use crate::stderr_in;

use std::path::{Path, PathBuf};
use std::process::Command;

use build_support::{assert_success, build, built_fixture, top_fixture};
use serde_json::Value;

use crate::suite::{json_report, layoutrand};

/// Each stored value of `case`, per binary, in execution order.
fn values_by_binary(dir: &Path, case: &str) -> Vec<(String, Vec<f64>)> {
    let store = std::fs::read_to_string(dir.join("out/results.jsonl")).unwrap();
    let mut by_binary: Vec<(String, Vec<f64>)> = Vec::new();
    for line in store.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        if record["record"] != "measurement" || record["metric"] != case {
            continue;
        }
        assert_eq!(record["unit"], "count", "{record}");
        let binary = record["binary"].as_str().unwrap().to_string();
        let value = record["value"].as_f64().unwrap();
        match by_binary.iter_mut().find(|(b, _)| *b == binary) {
            Some((_, values)) => values.push(value),
            None => by_binary.push((binary, vec![value])),
        }
    }
    by_binary
}

/// The mean of `case` over every binary and execution.
fn mean_of(dir: &Path, case: &str) -> f64 {
    let all: Vec<f64> = values_by_binary(dir, case)
        .into_iter()
        .flat_map(|(_, v)| v)
        .collect();
    assert!(!all.is_empty(), "no value of {case}");
    all.iter().sum::<f64>() / all.len() as f64
}

/// The cases of the report's one suite (the report checked against its schema).
fn reported_cases(dir: &Path) -> Vec<String> {
    let report = json_report(dir);
    let mut cases: Vec<String> = report["suites"][0]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["case"].as_str().unwrap().to_string())
        .collect();
    cases.sort();
    cases
}

/// Google Benchmark 1.7 (Debian 12's) cannot be given a number of iterations: the first
/// execution stops the run, saying so.
#[test]
fn google_benchmark_before_1_8_is_refused_with_the_reason() {
    let (_tmp, dir) = built_fixture(
        "suite",
        &["--seeds", "4", "--out", "out"],
        &["make", "gbench"],
    );
    let version = Command::new("dpkg-query")
        .args(["-W", "-f", "${Version}", "libbenchmark-dev"])
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(
        version.starts_with("1.7"),
        "this test needs the system's Google Benchmark to be 1.7 (Debian 12), not {version:?}"
    );
    // One execution at a time: the output shown is then the first failure's, from the one
    // worker's staging folder (`.run`), not whichever of two parallel workers' came first.
    let run = layoutrand(&dir)
        .args([
            "run",
            "--out",
            "out",
            "--metric",
            "cachegrind:gbench",
            "--jobs",
            "1",
        ])
        .args(["--executions", "1", "--schedule-seed", "3", "--"])
        .args(["{bin}", "--benchmark_format=json"])
        .output()
        .unwrap();
    assert_ne!(run.status.code(), Some(0));
    // The error, the step that failed and the suite's own complaint; valgrind's warnings
    // (with process ids) left out.
    let stderr = stderr_in(&run, &dir);
    let shown: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.starts_with("layoutrand: error:"))
        .filter(|l| !l.contains("-- warning:"))
        .collect();
    insta::assert_snapshot!(shown.join("\n"));
}

/// Google Benchmark 1.9.1, built once (shared) from Debian's source into the test build's
/// target directory; its install prefix.
fn google_benchmark_1_9() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let root = target.join("test-cache/benchmark-1.9.1");
    let prefix = root.join("prefix");
    if prefix.join("include/benchmark/benchmark.h").exists() {
        return prefix;
    }
    std::fs::create_dir_all(&root).unwrap();
    let url = "http://deb.debian.org/debian/pool/main/b/benchmark/benchmark_1.9.1.orig.tar.gz";
    let script = format!(
        "set -e; cd '{root}'; curl -sSf -o src.tar.gz {url}; rm -rf src; mkdir src; \
         tar xzf src.tar.gz -C src --strip-components=1; \
         cmake -S src -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
           -DBENCHMARK_ENABLE_TESTING=OFF -DCMAKE_INSTALL_PREFIX='{prefix}' >/dev/null; \
         cmake --build build -j2 >/dev/null; cmake --install build >/dev/null",
        root = root.display(),
        prefix = prefix.display()
    );
    let built = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(
        built.status.success(),
        "Google Benchmark 1.9.1 from deb.debian.org: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    prefix
}

/// Every case the command's own filter keeps is counted alone, per iteration: the fixture
/// hashes 64·(k+1) bytes in case k, so case 19 costs twice case 9 and case 9 twice case 4
/// once the processes' start-up and the library's per-case work have cancelled out (with
/// them left in, the ratios would be near 1). Counts repeat between executions of a binary.
#[test]
#[ignore = "needs deb.debian.org (network) for Google Benchmark 1.9.1, and cmake; run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn every_case_of_a_google_benchmark_suite_is_counted_alone() {
    let prefix = google_benchmark_1_9();
    let (_tmp, dir) = top_fixture("suite");
    let make = format!(
        "make gbench BENCHMARK_CFLAGS=-I{p}/include \
         'BENCHMARK_LDFLAGS=-L{p}/lib -Wl,-rpath,{p}/lib'",
        p = prefix.display()
    );
    assert_success(
        &build(
            &dir,
            &["--seeds", "3", "--out", "out"],
            &["sh", "-c", &make],
        ),
        "build",
    );
    let run = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "cachegrind:gbench"])
        .args(["--executions", "2", "--schedule-seed", "3", "--"])
        .args(["{bin}", "--benchmark_format=json"])
        .arg("--benchmark_filter=BM_hash/(4|9|19)$")
        .output()
        .unwrap();
    assert_success(&run, "run --metric cachegrind:gbench");
    assert_eq!(
        reported_cases(&dir),
        ["BM_hash/19", "BM_hash/4", "BM_hash/9"]
    );
    for case in ["BM_hash/4", "BM_hash/9", "BM_hash/19"] {
        let by_binary = values_by_binary(&dir, case);
        assert_eq!(
            by_binary.len(),
            5,
            "baseline, as built, 3 seeds: {by_binary:?}"
        );
        for (binary, values) in &by_binary {
            assert_eq!(values.len(), 2, "{case} {binary}");
            let spread = (values[0] - values[1]).abs() / values[0];
            assert!(spread < 1e-3, "{case} {binary}: {values:?}");
        }
    }
    let (c4, c9, c19) = (
        mean_of(&dir, "BM_hash/4"),
        mean_of(&dir, "BM_hash/9"),
        mean_of(&dir, "BM_hash/19"),
    );
    for (ratio, what) in [(c19 / c9, "19 vs 9"), (c9 / c4, "9 vs 4")] {
        assert!(
            (1.9..2.1).contains(&ratio),
            "{what}: {ratio} ({c4}, {c9}, {c19})"
        );
    }
}

/// criterion's test mode runs each case's routine once, and only what runs inside
/// criterion's timing loop is counted: an empty routine is its clock reads and their cold
/// misses (a few thousand cycles at most), and what fib/15 adds to it is about 11 times what
/// fib/10 adds (1973 calls against 177), and fib(10) through iter_batched counts about as
/// much as through iter. The same with Rust's v0 symbols. A filter in the
/// command is refused with the reason; `--cases` chooses the cases instead.
#[test]
#[ignore = "needs crates.io (network) for criterion; run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn every_case_of_a_criterion_suite_is_counted_alone() {
    let (_tmp, dir) = top_fixture("criterion-suite");
    let target = dir.join("target");
    let built = build(
        &dir,
        &["--seeds", "2", "--out", "out", "--programs", "fib"],
        &["env", &format!("CARGO_TARGET_DIR={}", target.display())]
            .into_iter()
            .chain(["cargo", "bench", "--no-run"])
            .collect::<Vec<_>>(),
    );
    assert_success(&built, "build of the criterion suite");
    let run = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "cachegrind:criterion"])
        .args(["--executions", "2", "--schedule-seed", "3", "--"])
        .args(["{bin}", "--bench"])
        .output()
        .unwrap();
    assert_success(&run, "run --metric cachegrind:criterion");
    assert_eq!(
        reported_cases(&dir),
        ["batched/10", "empty", "fib/10", "fib/15", "fib/5"]
    );
    let empty = mean_of(&dir, "empty");
    let (fib5, fib10, fib15) = (
        mean_of(&dir, "fib/5"),
        mean_of(&dir, "fib/10"),
        mean_of(&dir, "fib/15"),
    );
    assert!(
        empty < fib5 && fib5 < fib10 && fib10 < fib15,
        "{empty} {fib5} {fib10} {fib15}"
    );
    assert!(empty < 5_000.0, "{empty}");
    // iter_batched is counted too: fib(10) and its setup, within a few hundred cycles of
    // fib(10) through iter (its batch's vectors and the setup's call besides).
    let batched = mean_of(&dir, "batched/10");
    assert!(
        (fib10 - 100.0..fib10 + 1_500.0).contains(&batched),
        "batched {batched}, fib/10 {fib10}"
    );
    let ratio = (fib15 - empty) / (fib10 - empty);
    assert!(
        (10.0..12.0).contains(&ratio),
        "{ratio}: {empty} {fib10} {fib15}"
    );

    std::fs::remove_file(dir.join("out/results.jsonl")).unwrap();
    std::fs::remove_file(dir.join("out/results.jsonl.mac")).unwrap();
    let filtered = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "cachegrind:criterion"])
        .args(["--executions", "1", "--schedule-seed", "3", "--"])
        .args(["{bin}", "--bench", "fib"])
        .output()
        .unwrap();
    assert_ne!(filtered.status.code(), Some(0));
    let stderr = stderr_in(&filtered, &dir);
    assert!(stderr.contains("must name no filter"), "{stderr}");

    // layoutrand's own choice of cases instead: only those run.
    std::fs::remove_file(dir.join("out/results.jsonl")).unwrap();
    std::fs::remove_file(dir.join("out/results.jsonl.mac")).unwrap();
    let chosen = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "cachegrind:criterion"])
        .args([
            "--cases",
            "^fib/1",
            "--executions",
            "1",
            "--schedule-seed",
            "3",
        ])
        .args(["--", "{bin}", "--bench"])
        .output()
        .unwrap();
    assert_success(&chosen, "run --cases under cachegrind:criterion");
    assert_eq!(reported_cases(&dir), ["fib/10", "fib/15"]);

    // Symbols mangled as v0 name the timing loop otherwise; it is found all the same.
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    let v0_target = dir.join("target-v0");
    let built = build(
        &dir,
        &["--seeds", "1", "--out", "out", "--programs", "fib"],
        &[
            "env",
            "RUSTFLAGS=-C symbol-mangling-version=v0",
            &format!("CARGO_TARGET_DIR={}", v0_target.display()),
            "cargo",
            "bench",
            "--no-run",
        ],
    );
    assert_success(&built, "build of the criterion suite with v0 symbols");
    let v0 = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "cachegrind:criterion"])
        .args(["--cases", "^fib/15$", "--executions", "1", "--"])
        .args(["{bin}", "--bench"])
        .output()
        .unwrap();
    assert_success(&v0, "run of the v0 build");
    let v0_fib15 = mean_of(&dir, "fib/15");
    assert!(
        (v0_fib15 / fib15 - 1.0).abs() < 0.2,
        "v0 {v0_fib15}, legacy {fib15}"
    );
}
