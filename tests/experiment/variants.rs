//! `[[variant]]` in an experiment file: the demo program at -O0 and -O2 (compiler flags from
//! each variant's `env`, sources in its `dir`, `make clean` as its `prepare`), built with the
//! same seeds, run in one interleaved schedule under cachegrind (a deterministic metric, so
//! the verdict — -O2 executes fewer instructions — holds on any machine), and reported with a
//! comparison. Running the same command again resumes without rebuilding.

use crate::experiment_support;

use experiment_support::*;
use layoutrand::files::manifest::Manifest;

const FILE: &str = r#"
name = "variants"

[build]
seeds = 2

[[variant]]
name = "O0"
command = ["make"]
env = { CFLAGS = "-O0 -g" }
prepare = [["make", "clean"]]
dir = "src"

[[variant]]
name = "O2"
command = ["make"]
env = { CFLAGS = "-O2 -g" }
prepare = [["make", "clean"]]
dir = "src"

[run]
command = ["{bin}", "1"]
metric = "cachegrind"
executions = 2
timeout = 300

[check]
command = ["sh", "-c", "{bin} 2 | grep -qx 'checksum: 1053781503078618688'"]
"#;

#[test]
fn variants_in_the_experiment_file_are_built_run_interleaved_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    demo_sources(dir.path());
    let file = dir.path().join("experiment.toml");
    std::fs::write(&file, FILE).unwrap();
    let out = dir.path().join("out");
    // Run from elsewhere: `dir` is relative to the experiment file, not to the current
    // directory.
    let elsewhere = tempfile::tempdir().unwrap();
    let experiment = || {
        layoutrand()
            .current_dir(elsewhere.path())
            .arg("experiment")
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap()
    };
    let output = experiment();
    assert!(output.status.success(), "{}", describe(&output));
    // The check stage, pinned whole: both variants' baseline, as-built binary and 2 seeds
    // pass.
    let stderr = String::from_utf8_lossy(&output.stderr);
    let check: Vec<&str> = stderr
        .lines()
        .skip_while(|l| *l != "== layoutrand experiment: check every binary ==")
        .take(2)
        .collect();
    insta::assert_snapshot!("check_stage", check.join("\n"));

    let m = Manifest::load(&out).unwrap();
    let names: Vec<&str> = m.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["O0", "O2"]);
    for v in &m.variants {
        let seeds: Vec<Option<u64>> = v.build.seeds.iter().map(|s| s.seed).collect();
        assert_eq!(seeds, [Some(1), Some(2)], "{}", v.name);
    }
    // The env reached the compiler: the two variants are different code.
    assert_ne!(
        m.variants[0].build.baseline.binaries[0].sha256,
        m.variants[1].build.baseline.binaries[0].sha256
    );

    let report = report_json(&out);
    let comparisons = report["comparisons"].as_array().unwrap();
    let c = comparisons
        .iter()
        .find(|c| c["metric"] == "estimated_cycles")
        .unwrap_or_else(|| panic!("no comparison of estimated_cycles: {report:#}"));
    assert_eq!(c["base"], "O0");
    assert_eq!(c["new"], "O2");
    let ratio = c["ratio"].as_f64().unwrap();
    assert!(ratio < 0.9, "-O2 takes far fewer estimated cycles: {c:#}");
    assert_eq!(c["share_below"]["compared"], 2, "{c:#}");
    assert_eq!(c["share_below"]["below"], 2, "{c:#}");
    assert!(
        c["text"].as_str().unwrap().starts_with("O2 is") && c["direction"] == "lower",
        "the verdict says so (estimated cycles are a count: lower, not faster): {c:#}"
    );
    // The report's part on the variants, by its heading pinned whole.
    let text = String::from_utf8_lossy(&output.stdout);
    let heading: Vec<&str> = text.lines().filter(|l| l.starts_with("Variants")).collect();
    insta::assert_snapshot!("variants_heading", heading.join("\n"));

    // Again: every stage is complete, nothing is rebuilt and nothing run twice.
    let again = experiment();
    assert!(again.status.success(), "{}", describe(&again));
    let stderr = String::from_utf8_lossy(&again.stderr);
    for v in ["O0", "O2"] {
        assert!(
            stderr.contains(&format!("variant {v} already has 2 seeds; not rebuilding")),
            "{stderr}"
        );
    }
    let results = layoutrand::files::store::read_results(&out).unwrap();
    assert_eq!(
        results.executions.len(),
        2 * 4 * 2,
        "2 variants × 4 binaries (baseline, as built, 2 seeds) × 2"
    );
}

#[test]
fn invalid_variant_tables_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("experiment.toml");
    let cases = [
        (
            FILE.replace("name = \"O2\"", "name = \"O0\""),
            "the name is used by an earlier [[variant]]",
        ),
        (
            FILE.replacen("command = [\"make\"]", "command = []", 1),
            "[[variant]] number 1 (name = \"O0\"): command is empty",
        ),
        (
            FILE.replacen("dir = \"src\"", "dir = \"src\"\nflags = 1", 1),
            "unknown field `flags`",
        ),
        (
            FILE.replace("seeds = 2", "seeds = 2\ncommand = [\"make\"]"),
            "[build] command",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(&file, &text).unwrap();
        let output = layoutrand()
            .current_dir(dir.path())
            .arg("experiment")
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{expected:?} in:\n{stderr}");
        assert!(
            !dir.path().join("layoutrand-out").exists(),
            "nothing is created for an invalid file"
        );
    }
}
