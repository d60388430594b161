//! Real programs that no one here wrote, tried as a new user would: each recipe fetches its
//! Debian source package at test time, builds it under layoutrand, checks every seed's binary
//! with the program's own test, runs and reports. Counts are reduced to keep CI short; the
//! recipes' full counts are for real use. They need the Debian archive, so they are ignored by
//! default and fail when it cannot be reached; .ci/run runs them.

use crate::experiment_support;

use experiment_support::*;

fn recipe_end_to_end(recipe: &str, program: &str, metric: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = layoutrand()
        .current_dir(dir.path())
        .arg("experiment")
        .arg(repo().join("recipes").join(recipe).join("experiment.toml"))
        .arg("--out")
        .arg(&out)
        // The recipes grow the top level on-line; a maximum of 3 stops that after one round.
        .args(["--seeds", "3", "--executions", "2", "--max-binaries", "3"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}", describe(&output));
    // The baseline, the 3 seeds and, when the build kept it, the build's own binary.
    let checked = 4 + usize::from(
        layoutrand::files::manifest::Manifest::load(&out)
            .unwrap()
            .as_built
            .is_some(),
    );
    assert!(
        stderr.contains(&format!("all {checked} binaries pass the check")),
        "every seed's binary must pass the program's own check:\n{stderr}"
    );
    let report = report_json(&out);
    let s = series(&report, program, metric);
    for section in ["levels", "sensitivity", "shift", "diagnostics", "summary"] {
        assert!(!s[section].is_null(), "section {section} missing: {s:#}");
    }
    assert!(s["mean"].as_f64().unwrap() > 0.0);
    // Two executions of each binary checked (as built included), none failed.
    assert_eq!(s["diagnostics"]["failures"]["ok"], 2 * checked, "{s:#}");
    let stopping: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stopping.json")).unwrap()).unwrap();
    assert_eq!(
        stopping["rounds"].as_array().unwrap().len(),
        1,
        "{stopping:#}"
    );
    // The file stores the rule's data; the report says what it means (its caveat).
    assert!(stopping.get("caveat").is_none(), "{stopping:#}");
    let caveat = report["setup"]["stopping"]["caveat"].as_str().unwrap();
    assert!(caveat.contains("optional stopping"), "{caveat}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("id=\"summary\""));
}

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn bzip2_recipe_static_archive() {
    recipe_end_to_end("bzip2", "bzip2", "wall");
}

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn lua_recipe_program_reported_iterations() {
    recipe_end_to_end("lua", "lua", "reported");
}

/// Issue 52: snappy's own Google Benchmark suite (recipes/snappy-gbench), configured by CMake
/// through the launcher in `[source] prepare`, every seed checked by the suite's own round
/// trips, all 24 cases measured in each execution and answered as a suite.
#[test]
#[ignore = "needs the Debian archive (network), cmake and libbenchmark-dev; run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn snappy_gbench_recipe_every_case_of_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = layoutrand()
        .current_dir(dir.path())
        .arg("experiment")
        .arg(repo().join("recipes/snappy-gbench/experiment.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--seeds", "3", "--executions", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}", describe(&output));
    assert!(
        stderr.contains("all 5 binaries pass the check"),
        "the baseline, the build's own binary and 3 seeds pass the suite's round trips:\n{stderr}"
    );
    let report = report_json(&out);
    let suite = &report["suites"][0];
    assert_eq!(suite["program"], "snappy_benchmark");
    let cases = suite["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 24, "{suite:#}");
    for case in cases {
        let name = case["case"].as_str().unwrap();
        assert!(
            name.starts_with("BM_UFlat/") || name.starts_with("BM_ZFlat/"),
            "{name}"
        );
        let s = series(&report, "snappy_benchmark", name);
        assert_eq!(s["unit"], "ns", "{name}");
        // Three repetitions per case in each of the 2 executions of the 5 binaries.
        assert_eq!(s["diagnostics"]["failures"]["ok"], 10, "{s:#}");
    }
    assert!(
        suite["geometric_mean"]["lower"].as_f64().unwrap() > 0.0,
        "{suite:#}"
    );
}

/// Every recipe file (the variant experiments too) parses and validates, without network:
/// the Lua variant recipes have the variants they promise.
#[test]
fn recipe_files_parse_and_validate() {
    use layoutrand::experiment::ExperimentConfig;
    let lua = repo().join("recipes/lua");
    for (file, names) in [
        ("o2-vs-o3.toml", &["O2", "O3"][..]),
        ("three-way.toml", &["O1", "O2", "O3"][..]),
    ] {
        let c = ExperimentConfig::load(&lua.join(file)).unwrap();
        c.validate().unwrap_or_else(|e| panic!("{file}: {e:#}"));
        let got: Vec<&str> = c.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(got, names, "{file}");
        assert!(c.check.is_some(), "{file}");
    }
}

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn lua_o2_vs_o3_recipe_compares_the_variants() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = layoutrand()
        .current_dir(dir.path())
        .arg("experiment")
        .arg(repo().join("recipes/lua/o2-vs-o3.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--seeds", "2", "--executions", "2", "--iterations", "3"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Per variant: the baseline, 2 seeds and, when the build kept it, its own binary.
    let manifest = layoutrand::files::manifest::Manifest::load(&out).unwrap();
    let checked: usize = manifest
        .variants
        .iter()
        .map(|v| 3 + usize::from(v.build.as_built.is_some()))
        .sum();
    assert!(
        stderr.contains(&format!("all {checked} binaries pass the check")),
        "both variants' baseline and seeds pass the program's own check:\n{stderr}"
    );
    let report = report_json(&out);
    let c = &report["comparisons"][0];
    assert_eq!(
        (&c["base"], &c["new"]),
        (&"O2".into(), &"O3".into()),
        "{c:#}"
    );
    assert_eq!(c["share_below"]["compared"], 2, "{c:#}");
    assert!(
        c["text"].as_str().is_some_and(|t| t.contains("O3")),
        "{c:#}"
    );
}
