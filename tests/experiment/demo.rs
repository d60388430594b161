//! End to end on the bundled demo: `layoutrand experiment` builds randomised binaries with the
//! real toolchain, checks them, runs them under cachegrind and reports. Cachegrind's simulated
//! I1 misses are deterministic, so executions of one binary agree exactly and any variance is
//! the layout's: the report must detect binary-level variance.

use crate::experiment_support;

use crate::snapshot_support::{in_dir, redact};
use experiment_support::*;
use layoutrand::files::manifest::{BuildStatus, Manifest};

#[test]
fn cachegrind_experiment_detects_binary_level_variance() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo_sources(dir.path());
    let out = dir.path().join("out");
    let output = layoutrand()
        .current_dir(&src)
        .arg("experiment")
        .arg(demo_experiment())
        .arg("--out")
        .arg(&out)
        .args(["--seeds", "5", "--executions", "2", "--iterations", "1"])
        .args(["--metric", "cachegrind", "--run-cmd", "{bin} 1"])
        // Not the default (the number of cores): the store's finish record shows that the
        // experiment passed it on to `run --jobs`.
        .args(["--jobs", "3"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The check stage, pinned whole: the baseline, the build's own binary (as built) and the
    // 5 seeds pass.
    let check: Vec<&str> = stderr
        .lines()
        .skip_while(|l| *l != "== layoutrand experiment: check every binary ==")
        .take(2)
        .collect();
    insta::assert_snapshot!("check_stage", check.join("\n"));
    let results = layoutrand::files::store::read_results(&out).unwrap();
    let jobs: Vec<u32> = results.finishes.iter().map(|f| f.jobs).collect();
    assert_eq!(
        jobs,
        vec![3],
        "one run invocation, with the experiment's --jobs"
    );

    // Six distinct, verified layouts: the baseline and the seeds (the as-built binary is
    // the build's own, whose order the baseline keeps).
    let manifest = Manifest::load(&out).unwrap();
    assert_eq!(manifest.seeds.len(), 5);
    let mut fingerprints: Vec<&str> = manifest
        .binary_sets()
        .filter(|v| v.kind.is_none())
        .inspect(|v| assert_eq!(v.status, BuildStatus::Ok, "{:?}", v.error))
        .map(|v| v.binaries[0].fingerprint.as_str())
        .collect();
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 6, "every seed has its own layout");

    let report = report_json(&out);
    let i1 = series(&report, "demo", "I1_misses");
    assert_eq!(i1["sensitivity"]["verdict"], "detected", "{i1:#}");
    // Deterministic simulation: executions of one binary differ only through the environment
    // padding (a few start-up instructions), so the execution level's variance is tiny next
    // to the layout's.
    let execution = i1["levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "execution")
        .expect("execution level present");
    let binary = i1["levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "binary")
        .expect("binary level present");
    let (s2_execution, t2_binary) = (
        execution["s2"].as_f64().unwrap(),
        binary["t2"].as_f64().unwrap(),
    );
    assert!(t2_binary > 100.0 * s2_execution, "{i1:#}");
    let mean = i1["mean"].as_f64().unwrap();
    assert!(s2_execution.sqrt() / mean < 1e-3, "{i1:#}");

    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for id in [
        "glance",
        "contents",
        "summary",
        "sensitivity-",
        "shift-",
        "binaries-",
    ] {
        assert!(html.contains(&format!("id=\"{id}")), "section {id} missing");
    }
}

/// Kalibera & Jones §9: a real experiment takes its counts from the initial experiment's
/// dimensioning and grows the top level on-line up to a fixed maximum, recording the rule.
#[test]
fn real_experiment_uses_dimensioned_counts_and_records_its_stopping_rule() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo_sources(dir.path());
    let (initial, real) = (dir.path().join("initial"), dir.path().join("real"));
    let common = ["--metric", "cachegrind", "--run-cmd", "{bin} 1"];
    let output = layoutrand()
        .current_dir(&src)
        .args(["experiment", "--initial"])
        .arg(demo_experiment())
        .arg("--out")
        .arg(&initial)
        .args(["--seeds", "5", "--executions", "2"])
        .args(common)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    // The dimensioning's heading and its table's, pinned whole.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let dimension: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Dimensioning") || l.starts_with("  half-width "))
        .take(2)
        .collect();
    insta::assert_snapshot!("dimension_table", dimension.join("\n"));
    // Its rows: the default half-widths, the experiment's own (1 %, one of them) once.
    let rows: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("  half-width "))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|width| width.parse::<f64>().is_ok())
        .collect();
    let mut distinct = rows.clone();
    distinct.dedup();
    assert_eq!(rows, distinct, "{stdout}");
    assert_eq!(rows.len(), 4, "{stdout}");

    std::process::Command::new("make")
        .arg("clean")
        .current_dir(&src)
        .status()
        .unwrap();
    // I1 misses vary by several per cent between layouts: 0.1 % is out of reach, so the
    // experiment must grow to its maximum and say that the target was not met.
    let output = layoutrand()
        .current_dir(&src)
        .arg("experiment")
        .arg(demo_experiment())
        .arg("--from")
        .arg(&initial)
        .arg("--out")
        .arg(&real)
        .args(["--target", "0.1%", "--max-binaries", "7"])
        .args(common)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    // The announcement, pinned whole, says where the counts come from.
    let stderr = in_dir(&String::from_utf8_lossy(&output.stderr), dir.path());
    let announced: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("layoutrand experiment: 7 binaries "))
        .collect();
    insta::assert_snapshot!("announced", announced.join("\n"));

    let stopping: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(real.join("stopping.json")).unwrap())
            .unwrap();
    assert_eq!(stopping["outcome"], "max_reached", "{stopping:#}");
    // The files a real experiment writes validate against their JSON Schemas (docs/schemas/).
    crate::schemas_support::assert_valid("stopping", "stopping.json", &stopping);
    let manifest_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(real.join("manifest.json")).unwrap())
            .unwrap();
    crate::schemas_support::assert_valid("manifest", "manifest.json", &manifest_json);
    let results_text = std::fs::read_to_string(real.join("results.jsonl")).unwrap();
    for (i, line) in results_text.lines().enumerate() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        crate::schemas_support::assert_valid(
            "results-record",
            &format!("results.jsonl line {}", i + 1),
            &record,
        );
    }
    let rounds = stopping["rounds"].as_array().unwrap();
    assert_eq!(rounds.last().unwrap()["binaries"], 7, "{stopping:#}");
    let manifest = Manifest::load(&real).unwrap();
    assert_eq!(manifest.seeds.len(), 7);
    // Executions add almost no variance under cachegrind: eq. 3 says one per binary, but
    // the dimensioning never advises fewer than 2, the least with which the report can
    // test layout sensitivity (binaries against their executions).
    let results = layoutrand::files::store::read_results(&real).unwrap();
    assert_eq!(results.header.as_ref().unwrap().executions, 2);
    assert_eq!(
        results.executions.len(),
        18,
        "baseline + as built + 7 seeds, two executions each"
    );
    if rounds.len() > 1 {
        assert!(
            !results.extensions.is_empty(),
            "grown binaries are recorded as an extension"
        );
    }
    let report = report_json(&real);
    assert_eq!(report["setup"]["stopping"]["outcome"], "max_reached");
    // The report's stopping rule, pinned whole (the half-widths reached, cachegrind's,
    // written [w]).
    let text = String::from_utf8_lossy(&output.stdout);
    let rule: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Stopping rule:"))
        .collect();
    insta::assert_snapshot!(
        "stopping_rule",
        redact(
            &rule.join("\n"),
            &[
                (r"→ \d+(\.\d+)? %", "→ [w] %"),
                (r"half-width \d+(\.\d+)? % with", "half-width [w] % with"),
            ]
        )
    );
}
