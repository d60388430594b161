//! `layoutrand run` end to end on real gcc-built fixtures: indices, warmup, interleaving,
//! paddings, failures, export.

use crate::run_support;

use std::collections::{BTreeMap, BTreeSet};

use crate::stdout_in;
use layoutrand::files::store::{read_results, ExecutionStatus};
use run_support::*;

#[test]
fn iterations_land_with_the_right_indices_and_warmup_marks() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "iters", "iters.c", 2);
    run_in(d.path())
        .args([
            "--executions",
            "3",
            "--iterations",
            "5",
            "--warmup",
            "2",
            "--schedule-seed",
            "4",
            "--metric",
            r"regex:iter \d+: (?P<value>[0-9.]+) (?P<unit>ms)",
            "--",
            "{bin}",
            "{iterations}",
            "1000",
        ])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    let h = r.header.as_ref().unwrap();
    assert_eq!(h.binaries, vec!["baseline", "seed-1", "seed-2"]);
    assert_eq!(
        (h.executions, h.iterations, h.warmup, h.schedule_seed),
        (3, 5, 2, 4)
    );
    assert_eq!(
        h.toolchain.get("cc").map(String::as_str),
        Some("gcc (test fixture)")
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.executions.len(), 9);
    assert!(r.executions.iter().all(|e| e.status == ExecutionStatus::Ok));
    let reported: Vec<_> = r
        .measurements
        .iter()
        .filter(|m| m.metric == "reported")
        .collect();
    assert_eq!(reported.len(), 3 * 3 * 5);
    let mut seen = BTreeSet::new();
    for m in &reported {
        assert!(seen.insert((m.binary.clone(), m.execution, m.iteration)));
        assert_eq!(m.warmup, m.iteration < 2, "{m:?}");
        assert_eq!(m.unit, "ms");
        assert!(m.value > 0.0);
    }
    let expected: BTreeSet<_> = ["baseline", "seed-1", "seed-2"]
        .iter()
        .flat_map(|v| (0..3).flat_map(move |e| (0..5).map(move |i| (v.to_string(), e, i))))
        .collect();
    assert_eq!(seen, expected);
    // One wall/cpu/max_rss value per execution next to the reported ones.
    assert_eq!(
        r.measurements.iter().filter(|m| m.metric == "wall").count(),
        9
    );

    // Export: live values only by default, in analyze's columns.
    let out = layoutrand().arg("export").arg(d.path()).assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("program,binary,layout,execution,iteration,value")
    );
    assert_eq!(lines.count(), 3 * 3 * 3);
    let out = layoutrand()
        .arg("export")
        .arg(d.path())
        .args(["--include-warmup", "--format", "json"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let rows = json["measurements"].as_array().unwrap();
    assert_eq!(rows.len(), 45);
    assert_eq!(rows.iter().filter(|r| r["warmup"] == true).count(), 18);
}

#[test]
fn schedule_interleaves_and_paddings_vary_in_steps_of_16() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 3);
    run_in(d.path())
        .args([
            "--executions",
            "8",
            "--schedule-seed",
            "21",
            "--env-pad",
            "4096",
        ])
        .args(["--", "{bin}", "ok"])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    let mut by_index: Vec<_> = r.executions.clone();
    by_index.sort_by_key(|e| e.schedule_index);
    assert_eq!(by_index.len(), 32);
    // File order is schedule order.
    assert!(r
        .executions
        .windows(2)
        .all(|w| w[0].schedule_index < w[1].schedule_index));
    // Not one binary's executions as a block: each binary's span covers more than its 8.
    for v in ["baseline", "seed-1", "seed-2", "seed-3"] {
        let pos: Vec<u64> = by_index
            .iter()
            .filter(|e| e.binary == v)
            .map(|e| e.schedule_index)
            .collect();
        assert!(
            pos.last().unwrap() - pos[0] + 1 > 8,
            "{v} ran back to back: {pos:?}"
        );
    }
    let switches = by_index
        .windows(2)
        .filter(|w| w[0].binary != w[1].binary)
        .count();
    assert!(switches >= 16, "{switches} switches of binary in 31 steps");
    // Execution numbers of a binary follow the schedule.
    let mut next: BTreeMap<String, u32> = BTreeMap::new();
    for e in &by_index {
        let n = next.entry(e.binary.clone()).or_default();
        assert_eq!(e.execution, *n);
        *n += 1;
    }
    let pads: BTreeSet<u32> = r.executions.iter().map(|e| e.env_pad).collect();
    assert!(pads.iter().all(|p| p % 16 == 0 && *p < 4096), "{pads:?}");
    assert!(
        pads.len() >= 20,
        "32 draws out of 256 sizes gave only {} distinct",
        pads.len()
    );
}

#[test]
fn failures_are_recorded_counted_and_kept_out_of_the_values() {
    let d = tempfile::tempdir().unwrap();
    let build = d.path().join("build");
    std::fs::create_dir_all(&build).unwrap();
    let exe = build.join("faulty");
    gcc(&exe, &[fixture("faulty.c")], &["-O1"]);
    experiment(d.path(), &[(None, vec![("faulty", exe.clone())])]);
    for (mode, status) in [
        ("fail", ExecutionStatus::Exit),
        ("crash", ExecutionStatus::Signal),
        ("hang", ExecutionStatus::Timeout),
    ] {
        let _ = std::fs::remove_file(d.path().join("results.jsonl"));
        let assert = run_in(d.path())
            .args(["--executions", "2", "--timeout", "0.3", "--", "{bin}", mode])
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(5); // the program failed on every execution: nothing to analyse
        insta::assert_snapshot!(stdout_in(assert.get_output(), d.path()));
        let r = read_results(d.path()).unwrap();
        assert_eq!(r.executions.len(), 2, "{mode}");
        assert!(
            r.executions.iter().all(|e| e.status == status),
            "{mode}: {:?}",
            r.executions
        );
        assert!(
            r.measurements.is_empty(),
            "{mode}: failed executions left values"
        );
        if mode != "hang" {
            let tail = r.executions[0].output_tail.as_deref().unwrap_or("");
            assert!(
                tail.contains("faulty:"),
                "{mode}: stderr tail missing: {tail:?}"
            );
        }
    }
    assert_eq!(
        read_results(d.path()).unwrap().executions[0].signal,
        Some(libc::SIGKILL),
        "a timeout records the SIGKILL it sent"
    );
}

#[test]
fn a_hanging_execution_times_out_and_the_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    // The fixture hangs when the padding is ≥ 32 bytes, so some executions hang and others
    // succeed in one run.
    run_in(d.path())
        .args([
            "--executions",
            "6",
            "--env-pad",
            "64",
            "--schedule-seed",
            "3",
        ])
        .args(["--timeout", "0.3", "--metric", r"regex:value (\d+)"])
        .args(["--", "{bin}", "sometimes-hang"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    assert_eq!(r.executions.len(), 12);
    for e in &r.executions {
        let want = if e.env_pad >= 32 {
            ExecutionStatus::Timeout
        } else {
            ExecutionStatus::Ok
        };
        assert_eq!(e.status, want, "{e:?}");
    }
    assert!(r
        .executions
        .iter()
        .any(|e| e.status == ExecutionStatus::Timeout));
    assert!(r.executions.iter().any(|e| e.status == ExecutionStatus::Ok));
    let ok = r
        .executions
        .iter()
        .filter(|e| e.status == ExecutionStatus::Ok)
        .count();
    assert_eq!(
        r.measurements
            .iter()
            .filter(|m| m.metric == "reported")
            .count(),
        ok
    );
}

#[test]
fn exported_csv_is_what_analyze_reads() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "iters", "iters.c", 3);
    run_in(d.path())
        .args(["--executions", "3", "--iterations", "4", "--warmup", "1"])
        .args([
            "--metric",
            r"regex:iter \d+: ([0-9.]+) ms",
            "--schedule-seed",
            "8",
        ])
        .args(["--", "{bin}", "{iterations}", "2000"])
        .assert()
        .success();
    let csv = d.path().join("m.csv");
    layoutrand()
        .arg("export")
        .arg(d.path())
        .arg("-o")
        .arg(&csv)
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 1 + 4 * 3 * 3, "{text}");
    // The bootstrap draws binaries by position: list them as the report does (by label,
    // then execution and iteration), not in run order, so that one seed gives one draw.
    let mut rows: Vec<&str> = text.lines().skip(1).collect();
    let key = |row: &&str| {
        let f: Vec<&str> = row.split(',').collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        (f[1].to_string(), n(3), n(4))
    };
    rows.sort_by_key(key);
    let sorted = d.path().join("sorted.csv");
    let header = text.lines().next().unwrap();
    assert_eq!(header, "program,binary,layout,execution,iteration,value");
    std::fs::write(&sorted, format!("{header}\n{}\n", rows.join("\n"))).unwrap();
    let out = layoutrand()
        .arg("analyze")
        .arg(&sorted)
        .args(["--levels", "binary,execution,iteration", "--value", "value"])
        .args(["--format", "json", "--bootstrap", "500", "--seed", "7"])
        .assert()
        .success();
    let analysis: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let out = layoutrand()
        .arg("report")
        .arg(d.path())
        .args(["--format", "json", "--bootstrap", "500", "--seed", "7"])
        .assert()
        .success();
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    // export → analyze equals report: the baseline is left out of the random layouts.
    let series = &report["series"][0];
    let (a, r) = (
        analysis["mean"].as_f64().unwrap(),
        series["mean"].as_f64().unwrap(),
    );
    assert!(
        (a - r).abs() <= 1e-12 * r.abs(),
        "analyze {a} vs report {r}"
    );
    // One engine: the same interval, level estimates and bootstrap from both routes.
    let close = |a: &serde_json::Value, r: &serde_json::Value| {
        let (a, r) = match (a.as_f64(), r.as_f64()) {
            (Some(a), Some(r)) => (a, r),
            _ => panic!("analyze {a} vs report {r}: analyze {analysis:#} report {series:#}"),
        };
        assert!((a - r).abs() <= 1e-9 * r.abs(), "analyze {a} vs report {r}");
    };
    // The interval may be withheld (measured wall times: one slow iteration can widen it
    // past zero, and a positive quantity's interval is then "cannot tell"): both routes then
    // withhold it, for the same reason.
    if analysis["ci"].is_null() || series["ci"].is_null() {
        assert!(
            analysis["ci"].is_null() && series["ci"].is_null(),
            "analyze {analysis:#} report {series:#}"
        );
        assert!(analysis["ci_note"].is_string(), "{analysis:#}");
        // (`analyze` calls it `ci_note`, the report's series `interval_note`.)
        assert_eq!(analysis["ci_note"], series["interval_note"]);
    } else {
        close(&analysis["ci"]["lower"], &series["ci"]["lower"]);
        close(&analysis["ci"]["upper"], &series["ci"]["upper"]);
    }
    for (a, r) in analysis["levels"]
        .as_array()
        .unwrap()
        .iter()
        .zip(series["levels"].as_array().unwrap())
    {
        assert_eq!(a["name"], r["name"]);
        close(&a["s2"], &r["s2"]);
        close(&a["t2"], &r["t2"]);
    }
    // Three random binaries (the fourth is the baseline): 1 resample in 9 draws one binary
    // three times, so the studentized bootstrap has no bounded interval; both routes
    // withhold it for the same reason.
    assert!(series["bootstrap"].is_null() && analysis["bootstrap"].is_null());
    let reason = "no bootstrap interval: not computable: too few distinct units";
    assert!(
        analysis["warnings"].to_string().contains(reason),
        "{analysis}"
    );
    assert_eq!(series["bootstrap_note"], analysis["bootstrap_note"]);
    assert!(series["bootstrap_note"]
        .as_str()
        .unwrap()
        .starts_with(reason));
    let text = layoutrand()
        .arg("report")
        .arg(d.path())
        .args(["--bootstrap", "500"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    assert!(text.contains(reason), "{text}");
    let top = analysis["levels"].as_array().unwrap().last().unwrap();
    assert_eq!(top["name"], "binary");
    assert_eq!(top["repetitions"], 3);
    assert_eq!(analysis["measurements"], 3 * 3 * 3);
    assert_eq!(analysis["excluded"].as_array().unwrap().len(), 1);
}

#[test]
fn programs_select_what_bin_stands_for_and_named_placeholders_reach_the_others() {
    let d = tempfile::tempdir().unwrap();
    let build = d.path().join("build");
    std::fs::create_dir_all(&build).unwrap();
    let faulty = build.join("faulty");
    let stack = build.join("stack");
    gcc(&faulty, &[fixture("faulty.c")], &["-O1"]);
    gcc(&stack, &[fixture("stack.c")], &["-O1"]);
    let both = vec![("faulty", faulty), ("stack", stack)];
    experiment(d.path(), &[(None, both.clone()), (Some(7), both)]);
    let note = "{bin} stands for each of the build's 2 relinked programs (faulty, stack)";
    let run_noting = |args: &[&str]| {
        let _ = std::fs::remove_file(d.path().join("results.jsonl"));
        let out = run_in(d.path())
            .args(["--executions", "2"])
            .args(args)
            .assert()
            .success();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        (read_results(d.path()).unwrap(), stderr.contains(note))
    };
    let run = |args: &[&str]| {
        let (r, noted) = run_noting(args);
        assert!(!noted, "{args:?}");
        r
    };
    // Default: {bin} is every program in turn, and the run says so before it starts (mujs's
    // build links `mujs-pp` too, which `{bin} bench.js` timed unasked).
    let (r, noted) = run_noting(&["--metric", r"regex:(?:value|stack) (\d+)", "--", "{bin}"]);
    assert!(noted);
    let programs: BTreeSet<_> = r.executions.iter().map(|e| e.program.clone()).collect();
    assert_eq!(
        programs,
        BTreeSet::from(["faulty".to_string(), "stack".to_string()])
    );
    assert_eq!(r.executions.len(), 8);
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
    // --programs narrows it.
    let r = run(&["--programs", "stack", "--", "{bin}"]);
    assert!(r.executions.iter().all(|e| e.program == "stack"));
    assert_eq!(r.header.unwrap().programs, vec!["stack"]);
    // Only named placeholders: one program label, and the named binary of each binary runs
    // (from its fixed path: the shell sees DIR/.run/bin/faulty).
    let r = run(&[
        "--",
        "sh",
        "-c",
        "test \"$0\" = \"$1\" && \"$0\" ok",
        "{bin:faulty}",
        &d.path().join(".run/bin/faulty").display().to_string(),
    ]);
    assert!(r
        .executions
        .iter()
        .all(|e| e.program == "faulty" && e.status == ExecutionStatus::Ok));
    assert_eq!(r.executions.len(), 4);
}

/// Issue 24, item 4: with stderr in a log (not a terminal) a run that lasts is not silent: a
/// line at each tenth of the executions once it has run 3 s, with the count, the share and
/// the time (a stage done in a moment prints none).
#[test]
fn a_run_logged_to_a_file_says_its_progress_each_tenth() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 4);
    let progress = regex::Regex::new(r"^layoutrand: \d+ of 10 executions \(").unwrap();
    let progress_lines = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter(|l| progress.is_match(l))
            .map(str::to_string)
            .collect()
    };
    let quick = run_in(d.path())
        .args(["--executions", "2", "--", "{bin}", "ok"])
        .output()
        .unwrap();
    assert!(quick.status.success(), "{quick:?}");
    let stderr = String::from_utf8_lossy(&quick.stderr);
    assert!(progress_lines(&stderr).is_empty(), "{stderr}");
    // 10 executions of 0.5 s: past 3 s, each tenth gets its line.
    std::fs::remove_file(d.path().join("results.jsonl")).unwrap();
    let slow = run_in(d.path())
        .args([
            "--executions",
            "2",
            "--",
            "sh",
            "-c",
            "sleep 0.5; \"$0\" ok",
            "{bin}",
        ])
        .output()
        .unwrap();
    assert!(slow.status.success(), "{slow:?}");
    let stderr = String::from_utf8_lossy(&slow.stderr);
    let lines = progress_lines(&stderr);
    assert!(!lines.is_empty(), "{stderr}");
    // Each line the count, the share, the time so far and (but at the end) the time left;
    // the last pinned whole, its time written [t].
    let shape = regex::Regex::new(
        r"^layoutrand: \d+ of 10 executions \(\d+ %\), \d+s so far(, about \d+s left)?$",
    )
    .unwrap();
    assert!(lines.iter().all(|l| shape.is_match(l)), "{stderr}");
    insta::assert_snapshot!(crate::snapshot_support::redact(
        lines.last().unwrap(),
        &[(r"\d+s so far", "[t] so far")]
    ));
}

/// Issue 36: a new run is planned in rounds and says so; the report blocks on them.
#[test]
fn a_run_plans_rounds_records_the_design_and_the_report_blocks_on_rounds() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 4);
    run_in(d.path())
        .args(["--executions", "3", "--schedule-seed", "8"])
        .args(["--", "{bin}", "ok"])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    let h = r.header.as_ref().unwrap();
    assert_eq!(
        h.schedule_design,
        layoutrand::files::results::ScheduleDesign::Rounds
    );
    let mut by_index = r.executions.clone();
    by_index.sort_by_key(|e| e.schedule_index);
    // 5 binaries (baseline and 4 seeds) × 3 rounds: round k is execution k of each, once.
    assert_rounds(&by_index, 3);
    let sensitivity = report_sensitivity(d.path());
    assert_eq!(sensitivity["test"], "blocked_f", "{sensitivity}");
    assert_eq!(sensitivity["permutations"], 1999, "{sensitivity}");
    assert_eq!(
        sensitivity["df_numerator"].as_f64(),
        Some(3.0),
        "{sensitivity}"
    );
    // (k − 1)(b − 1) = 6 residual degrees of freedom.
    assert_residual_df(&sensitivity, 6.0);
    // Two more rounds, resumable and balanced: every binary once in each, after the first 15.
    run_in(d.path())
        .args(["--resume", "--extend-executions", "2"])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    assert_eq!(r.planned_executions(), Some(5));
    assert_eq!(r.extensions.len(), 1);
    assert!(r.extensions[0].binaries.is_empty());
    let mut by_index = r.executions.clone();
    by_index.sort_by_key(|e| e.schedule_index);
    assert_rounds(&by_index, 5);
    let sensitivity = report_sensitivity(d.path());
    assert_eq!(sensitivity["test"], "blocked_f", "{sensitivity}");
    assert_residual_df(&sensitivity, 12.0);
}

/// The blocked F test's residual degrees of freedom are exactly `full` = (k − 1)(b − 1)
/// less one per cell the table that decided (named in the JSON) replaced by its fit.
fn assert_residual_df(sensitivity: &serde_json::Value, full: f64) {
    let table = sensitivity["deciding_table"].as_str().unwrap();
    assert!(
        [
            "low_fitted",
            "plain",
            "round_screened_tight",
            "round_screened_loose"
        ]
        .contains(&table),
        "{sensitivity}"
    );
    let replaced = sensitivity["cells_replaced"].as_f64().unwrap();
    if table == "plain" {
        assert_eq!(replaced, 0.0, "{sensitivity}");
    }
    assert_eq!(
        sensitivity["df_denominator"].as_f64(),
        Some(full - replaced),
        "{sensitivity}"
    );
}

/// `executions` in schedule order are `rounds` rounds of the 5 binaries, round k holding
/// execution k of each once.
fn assert_rounds(executions: &[layoutrand::files::store::Execution], rounds: usize) {
    assert_eq!(executions.len(), 5 * rounds);
    for (k, round) in executions.chunks(5).enumerate() {
        let binaries: BTreeSet<&str> = round.iter().map(|e| e.binary.as_str()).collect();
        assert_eq!(binaries.len(), 5, "round {k}: {round:?}");
        assert!(round.iter().all(|e| e.execution == k as u32), "round {k}");
    }
}

/// The first series' `sensitivity` of `layoutrand report DIR --format json`.
fn report_sensitivity(dir: &std::path::Path) -> serde_json::Value {
    let out = layoutrand()
        .args(["report", "--format", "json"])
        .arg(dir)
        .assert()
        .success();
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    report["series"][0]["sensitivity"].clone()
}
