//! Issue 52: benchmark suites as they are. A Google Benchmark suite (the system's
//! libbenchmark) and a suite printing `name value unit` lines, each built under layoutrand
//! and run once per execution: every case becomes a series with every answer, the suite's
//! layout verdicts are held at a false discovery rate, variants' suites are compared, and a
//! suite that does not give what the run asks for fails with a message naming the case.

use crate::build_support;
use crate::stderr_in;

use std::path::Path;

use build_support::{assert_success, build, built_fixture, top_fixture};
use serde_json::Value;

#[path = "../support/schemas.rs"]
mod schemas;

pub(crate) fn layoutrand(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("layoutrand").unwrap();
    cmd.current_dir(dir);
    cmd
}

/// `layoutrand report --format json out` in `dir`, checked against its schema.
pub(crate) fn json_report(dir: &Path) -> Value {
    let out = layoutrand(dir)
        .args(["report", "--format", "json", "out"])
        .output()
        .unwrap();
    assert_success(&out, "report --format json");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    schemas::assert_valid("report", "a suite's report", &report);
    report
}

fn text_report(dir: &Path) -> String {
    let out = layoutrand(dir).args(["report", "out"]).output().unwrap();
    assert_success(&out, "report");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_google_benchmark_suite_runs_in_one_run_and_every_case_is_answered() {
    let (_tmp, dir) = built_fixture(
        "suite",
        &["--seeds", "4", "--out", "out"],
        &["make", "gbench"],
    );
    // The suite writes its JSON to a file of its own (`@FILE`), its console table to stdout.
    let run = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "gbench@gb.json"])
        .args([
            "--executions",
            "2",
            "--iterations",
            "2",
            "--schedule-seed",
            "3",
        ])
        .args([
            "--",
            "{bin}",
            "--benchmark_out=gb.json",
            "--benchmark_out_format=json",
        ])
        .args(["--benchmark_repetitions=2", "--benchmark_min_time=0.001"])
        .output()
        .unwrap();
    assert_success(&run, "run --metric gbench@gb.json");
    let report = json_report(&dir);
    let suite = &report["suites"][0];
    let cases: Vec<&str> = suite["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["case"].as_str().unwrap())
        .collect();
    let mut names = cases.clone();
    names.sort_by_key(|n| n.trim_start_matches("BM_hash/").parse::<u32>().unwrap());
    let expected: Vec<String> = (0..20).map(|k| format!("BM_hash/{k}")).collect();
    assert_eq!(names, expected);
    // Every case is a series of its own, in nanoseconds, beside the process's metrics.
    let series = report["series"].as_array().unwrap();
    for case in &expected {
        let s = series
            .iter()
            .find(|s| s["metric"] == case.as_str())
            .unwrap();
        assert_eq!(s["unit"], "ns", "{case}");
    }
    for case in suite["cases"].as_array().unwrap() {
        // Each tested case carries its q-value, never below its own p-value (BH).
        if let (Some(p), Some(q)) = (case["p_value"].as_f64(), case["q_value"].as_f64()) {
            assert!(q >= p - 1e-12 && q <= 1.0, "{case}");
        }
    }
    let mean = &suite["geometric_mean"];
    assert!(mean["lower"].as_f64().unwrap() > 0.0, "{mean}");
    assert!(
        mean["lower"].as_f64() <= mean["estimate"].as_f64(),
        "{mean}"
    );
    assert!(
        mean["estimate"].as_f64() <= mean["upper"].as_f64(),
        "{mean}"
    );
    assert_eq!(mean["units"], 4);
    let text = text_report(&dir);
    assert!(text.contains("\nSuite of gbench (20 cases):\n"), "{text}");
}

#[test]
fn variants_of_a_lines_suite_are_compared_case_by_case_and_as_a_suite() {
    let (_tmp, dir) = top_fixture("suite");
    for (name, flags) in [("O1", "-O1"), ("O2", "-O2")] {
        let script = format!("make clean >/dev/null && make lines CFLAGS='{flags}'");
        let mut args = vec!["--out", "out", "--variant", name];
        if name == "O1" {
            args.extend(["--seeds", "3"]);
        }
        assert_success(&build(&dir, &args, &["sh", "-c", &script]), name);
    }
    let run = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "lines"])
        .args(["--executions", "2", "--iterations", "3", "--warmup", "1"])
        .args(["--schedule-seed", "3", "--", "{bin}", "3", "2000"])
        .output()
        .unwrap();
    assert_success(&run, "run --metric lines");
    let report = json_report(&dir);
    assert_eq!(report["suites"].as_array().unwrap().len(), 2);
    let compared = &report["suite_comparisons"][0];
    assert_eq!(
        (compared["base"].as_str(), compared["new"].as_str()),
        (Some("O1"), Some("O2"))
    );
    assert_eq!(compared["cases"], 24);
    // Each case's comparison is held at the Bonferroni level of all 24.
    let comparisons = report["comparisons"].as_array().unwrap();
    let case_comparisons: Vec<&Value> = comparisons
        .iter()
        .filter(|c| c["metric"].as_str().unwrap().starts_with("case_"))
        .collect();
    assert_eq!(case_comparisons.len(), 24);
    for c in case_comparisons {
        assert_eq!(c["adjustment"]["suite_cases"], 24, "{c}");
        assert_eq!(c["adjustment"]["comparisons"], 24, "{c}");
        let each = c["adjustment"]["confidence"].as_f64().unwrap();
        assert!((each - (1.0 - 0.05 / 24.0)).abs() < 1e-12, "{each}");
    }
    let text = text_report(&dir);
    assert!(
        text.contains("\nSuites compared:\n  - suite O2 against O1: "),
        "{text}"
    );
}

/// `compare` of two experiments of one suite gives the ratio of their geometric means over
/// the cases (as `report` does between variants), and its gate judges that ratio too.
#[test]
fn two_experiments_of_a_suite_are_compared_as_a_suite() {
    let (_tmp, dir) = top_fixture("suite");
    for (out, flags) in [("out-a", "-O1"), ("out-b", "-O2")] {
        let script = format!("make clean >/dev/null && make lines CFLAGS='{flags}'");
        let args = ["--out", out, "--seeds", "3"];
        assert_success(&build(&dir, &args, &["sh", "-c", &script]), out);
        let run = layoutrand(&dir)
            .args(["run", "--out", out, "--metric", "lines"])
            .args(["--executions", "2", "--iterations", "3", "--warmup", "1"])
            .args(["--schedule-seed", "3", "--", "{bin}", "3", "2000"])
            .output()
            .unwrap();
        assert_success(&run, out);
    }
    let compare = layoutrand(&dir)
        .args(["compare", "out-a", "out-b", "--format", "json"])
        .args(["--fail-if-slower", "50%"])
        .output()
        .unwrap();
    assert_success(&compare, "compare of two suites");
    let compared: Value = serde_json::from_slice(&compare.stdout).unwrap();
    schemas::assert_valid("compare-directories", "two suites compared", &compared);
    let suites = compared["suites"].as_array().unwrap();
    assert_eq!(suites.len(), 1, "{compared:#}");
    let suite = &suites[0];
    assert_eq!(
        (
            suite["program"].as_str(),
            suite["base"].as_str(),
            suite["new"].as_str()
        ),
        (Some("lines"), Some("base"), Some("new"))
    );
    assert_eq!(suite["cases"], 24);
    let ratio = &suite["ratio"];
    let (lower, estimate, upper) = (
        ratio["lower"].as_f64().unwrap(),
        ratio["estimate"].as_f64().unwrap(),
        ratio["upper"].as_f64().unwrap(),
    );
    assert!(
        0.0 < lower && lower <= estimate && estimate <= upper,
        "{ratio}"
    );
    assert_eq!(suite["gated"], true);
    // The case comparisons it counts are the 24 of the cases, each at Bonferroni.
    let cases = compared["programs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["suite_cases"] == 24)
        .count();
    assert_eq!(cases, 24);
    let moved = suite["cases_lower"].as_u64().unwrap() + suite["cases_higher"].as_u64().unwrap();
    assert!(moved <= 24, "{suite}");
}

/// `--cases` keeps the cases its pattern matches (the others are not stored), is recorded
/// for `--resume`, and is refused without a suite or as no regular expression.
#[test]
fn cases_keeps_the_cases_its_pattern_matches() {
    let (_tmp, dir) = built_fixture(
        "suite",
        &["--seeds", "2", "--out", "out"],
        &["make", "lines"],
    );
    let run = |extra: &[&str]| {
        layoutrand(&dir)
            .args(["run", "--out", "out", "--executions", "1"])
            .args(extra)
            .args(["--schedule-seed", "3", "--", "{bin}", "2", "100"])
            .output()
            .unwrap()
    };
    let no_suite = run(&["--cases", "case_1"]);
    let bad = run(&["--metric", "lines", "--cases", "case_(1"]);
    let none = run(&["--metric", "lines", "--cases", "^nothing$"]);
    // Its executions failed into a store of their own: a new run starts afresh.
    std::fs::remove_file(dir.join("out/results.jsonl")).unwrap();
    std::fs::remove_file(dir.join("out/results.jsonl.mac")).unwrap();
    let kept = run(&["--metric", "lines", "--cases", r"^case_1\d$"]);
    assert_success(&kept, "run --cases");
    let report = json_report(&dir);
    let mut cases: Vec<&str> = report["suites"][0]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["case"].as_str().unwrap())
        .collect();
    cases.sort();
    let expected: Vec<String> = (10..20).map(|k| format!("case_{k}")).collect();
    assert_eq!(cases, expected);
    let store = std::fs::read_to_string(dir.join("out/results.jsonl")).unwrap();
    let header: Value = serde_json::from_str(store.lines().next().unwrap()).unwrap();
    assert_eq!(header["cases"], r"^case_1\d$");
    let refusals: Vec<String> = [&no_suite, &bad, &none]
        .iter()
        .map(|o| {
            assert_ne!(o.status.code(), Some(0));
            let stderr = stderr_in(o, &dir);
            let error = stderr.lines().find(|l| l.contains("--cases"));
            error.unwrap_or(&stderr).to_string()
        })
        .collect();
    insta::assert_snapshot!(refusals.join("\n"));
}

#[test]
fn a_suite_that_does_not_give_what_the_run_asks_names_the_case() {
    let (_tmp, dir) = built_fixture(
        "suite",
        &["--seeds", "1", "--out", "out"],
        &["make", "lines"],
    );
    // Three repetitions printed, five asked for.
    let run = layoutrand(&dir)
        .args([
            "run",
            "--out",
            "out",
            "--metric",
            "lines",
            "--executions",
            "1",
        ])
        .args([
            "--iterations",
            "5",
            "--schedule-seed",
            "3",
            "--",
            "{bin}",
            "3",
            "100",
        ])
        .output()
        .unwrap();
    assert_ne!(run.status.code(), Some(0));
    // The first line (the output's tail after it holds the times measured).
    let stderr = stderr_in(&run, &dir);
    insta::assert_snapshot!(stderr.lines().next().unwrap_or_default());
}

/// A case renamed between executions (here by the command, from its fifth process on) leaves
/// two cases that each ran where the other did not: the suite says which, in how many
/// executions, and that they never ran in one, where a case that ran in every execution is
/// not named.
#[test]
fn a_case_renamed_between_executions_is_said() {
    let (_tmp, dir) = built_fixture(
        "suite",
        &["--seeds", "2", "--out", "out"],
        &["make", "lines"],
    );
    // One process at a time, in rounds of the four binaries: rounds 0 and 1 print case_01,
    // rounds 2 and 3 case_one.
    let rename = r#"n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count
if [ "$n" -lt 8 ]; then exec "$0" 3 100; fi
"$0" 3 100 | sed 's/^case_01 /case_one /'"#;
    let run = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "lines", "--jobs", "1"])
        .args([
            "--executions",
            "4",
            "--iterations",
            "3",
            "--schedule-seed",
            "3",
        ])
        .args(["--", "sh", "-c", rename, "{bin}"])
        .output()
        .unwrap();
    assert_success(&run, "run of a suite renaming a case");
    let report = json_report(&dir);
    let partial = &report["suites"][0]["partial_cases"];
    assert_eq!(
        partial,
        &serde_json::json!([
            {"case": "case_01", "executions": 4, "of": 8, "never_with_cases": 1, "never_with_only": "case_one"},
            {"case": "case_one", "executions": 4, "of": 8, "never_with_cases": 1, "never_with_only": "case_01"},
        ])
    );
    let text = text_report(&dir);
    assert!(
        text.contains(
            "Not every case ran in every execution: of the 8 executions of the randomised \
             binaries that ran the suite, case_01 in 4, case_one in 4; each case's answers \
             rest on the executions it ran in. case_01 and case_one never ran in one execution: \
             one case renamed between executions?"
        ),
        "{text}"
    );

    // Every case renamed from the fifth process on: no case ran in every execution, no pair
    // is singled out, and all 48 names (24 cases under two names) are said.
    std::fs::remove_file(dir.join("out/results.jsonl")).unwrap();
    std::fs::remove_file(dir.join("count")).unwrap();
    let run = layoutrand(&dir)
        .args(["run", "--out", "out", "--metric", "lines", "--jobs", "1"])
        .args(["--executions", "4", "--iterations", "3"])
        .args(["--schedule-seed", "3", "--"])
        .args([
            "sh",
            "-c",
            &rename.replace("s/^case_01 /case_one /", "s/^case_/other_/"),
        ])
        .arg("{bin}")
        .output()
        .unwrap();
    assert_success(&run, "run of a suite renaming every case");
    let text = text_report(&dir);
    assert!(
        text.contains(
            "rest on the executions it ran in. 48 cases never ran in one execution with \
             several others: cases renamed between executions?"
        ),
        "{text}"
    );
}
