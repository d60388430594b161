//! Growth on-line with `[[variant]]` (issue 27): the demo program at -O0 and -O2, whose
//! estimated cycles under cachegrind differ by construction (far fewer at -O2, on any
//! machine: the metric is deterministic), starting from 3 seeds with at most 12. Each round
//! extends both variants with the same new seeds; the experiment must stop on the
//! comparison's verdict ("lower") well before the maximum, and `stopping.json` must hold
//! the same look, verdict and interval as `report --sequential` over the same store.

use crate::experiment_support;

use experiment_support::*;
use layoutrand::files::manifest::Manifest;

const FILE: &str = r#"
name = "sequential-variants"

[build]
seeds = 3

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

[target]
precision = "1%"
max_binaries = 12
"#;

const MAX: u64 = 12;

#[test]
fn variants_grow_together_and_stop_on_the_comparisons_verdict() {
    let dir = tempfile::tempdir().unwrap();
    demo_sources(dir.path());
    let file = dir.path().join("experiment.toml");
    std::fs::write(&file, FILE).unwrap();
    let out = dir.path().join("out");
    let output = layoutrand()
        .current_dir(dir.path())
        .arg("experiment")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);

    // Both variants hold the same seeds 1..=n, n below the maximum: grown together, paired.
    let m = Manifest::load(&out).unwrap();
    let seeds: Vec<Vec<u64>> = m
        .variants
        .iter()
        .map(|v| v.build.seeds.iter().filter_map(|s| s.seed).collect())
        .collect();
    assert_eq!(seeds.len(), 2);
    assert_eq!(seeds[0], seeds[1], "the variants' seeds pair up");
    let n = seeds[0].len() as u64;
    assert_eq!(seeds[0], (1..=n).collect::<Vec<_>>());
    assert!(
        (5..MAX).contains(&n),
        "stopped before the cap: {n} binaries"
    );
    // The first round's stages, pinned whole (the counts, the rule's, written [n]): both
    // variants extended, O0 then O2.
    let extended: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("== layoutrand experiment: extend "))
        .take(2)
        .collect();
    insta::assert_snapshot!(
        "first_extension",
        crate::snapshot_support::redact(
            &extended.join("\n"),
            &[(r"to \d+ randomised", "to [n] randomised")]
        )
    );

    let stopping: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stopping.json")).unwrap()).unwrap();
    assert_eq!(stopping["outcome"], "verdict_reached", "{stopping:#}");
    crate::schemas_support::assert_valid("stopping", "stopping.json (variants)", &stopping);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    crate::schemas_support::assert_valid("manifest", "manifest.json (variants)", &manifest);
    let label = "O2 against O0 (demo estimated_cycles)";
    assert_eq!(stopping["stopped_by"], label, "{stopping:#}");
    let watched = stopping["watched"].as_array().unwrap();
    let w = watched
        .iter()
        .find(|w| w["label"] == label)
        .unwrap_or_else(|| panic!("{stopping:#}"));
    assert_eq!(w["reason"], "verdict");
    assert_eq!(w["verdict"], "lower");
    // Every look from the fifth binary to the last measured is recorded.
    let looks = w["looks"].as_array().unwrap();
    assert_eq!(looks.len() as u64, n - 4, "{w:#}");
    let ci = &w["at_stop"]["ci"];
    assert!(ci["upper"].as_f64().unwrap() < 0.9, "wholly lower: {w:#}");
    assert!(
        ci["lower"].as_f64().unwrap() > 0.0,
        "a ratio stays positive: {w:#}"
    );
    assert!(
        stderr.contains(&format!("the last to meet it was {label}: stopped at")),
        "the final words name the comparison and its answer:\n{stderr}"
    );

    // `report --sequential` with the experiment's target replays the same store: the same
    // look, verdict and interval.
    let report = layoutrand()
        .args([
            "report",
            "--format",
            "json",
            "--sequential",
            "--target",
            "1%",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", describe(&report));
    let r: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    let c = r["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "estimated_cycles" && c["new"] == "O2")
        .unwrap_or_else(|| panic!("{r:#}"));
    let q = &c["sequential"];
    assert_eq!(q["stopped_at"], w["stopped_at"], "{q:#}");
    assert_eq!(q["verdict"], w["verdict"]);
    assert_eq!(q["reason"], w["reason"]);
    assert_eq!(q["at_stop"], w["at_stop"]);
    // The log keeps the replay's figures, not its words; the experiment's last words, worded
    // from them, are the report's.
    assert!(w.get("text").is_none(), "{w:#}");
    assert_eq!(w["replay"]["available"], q["available"]);
    assert_eq!(w["replay"]["looks"], q["looks"]);
    let said = format!(
        "the last to meet it was {label}: {}",
        q["text"].as_str().unwrap()
    );
    assert!(stderr.contains(&said), "{said}\n{stderr}");
}
