//! `layoutrand report` and `layoutrand dimension` on synthetic experiment directories:
//! every format, the confidence level, mixed metrics, interrupted runs and bad input.

use crate::report_support;

use std::path::Path;

use assert_cmd::Command;
use layoutrand::files::store::ExecutionStatus;
use report_support::{
    report_stdout as stdout, store_on_machines, write_dir, write_dir_with_status, Design,
    ThreeLevel,
};

fn layoutrand() -> Command {
    Command::cargo_bin("layoutrand").unwrap()
}

fn sensitive_dir(dir: &Path) {
    let design = Design::new(12, 3, 4);
    let mut gen = ThreeLevel::new(5, 2.5e6, 0.03, 0.002, 0.004, -0.05);
    write_dir(dir, &design, &mut |_, seed, e, _, _| gen.value(seed, e));
}

fn failure(args: &[&str], dir: &Path) -> String {
    let out = layoutrand().args(args).arg(dir).assert().failure();
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

#[test]
fn text_report_states_confidence_units_and_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    sensitive_dir(tmp.path());
    let text = stdout(tmp.path(), &[]);
    // The wording of the confidence line, the intervals and the levels table: the snapshots
    // (tests/report/snapshot.rs); here the verdicts and the level carried through.
    assert!(text.contains("layout-sensitive"), "{text}");
    assert!(text.contains("faster"), "{text}");
    assert!(!text.contains('σ'), "no ± σ anywhere: {text}");
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");

    let ninety = stdout(tmp.path(), &["--confidence", "0.9"]);
    assert!(
        ninety.contains("two-sided 90 % confidence interval"),
        "{ninety}"
    );
    assert!(ninety.contains("(90 % CI"), "{ninety}");
}

#[test]
fn the_set_up_line_says_whether_functions_were_padded() {
    let plain = tempfile::tempdir().unwrap();
    write_dir(
        plain.path(),
        &Design::new(4, 2, 3),
        &mut |_, seed, e, i, _| 1.0e6 + seed.unwrap_or(0) as f64 * 10.0 + f64::from(e + i),
    );
    let text = stdout(plain.path(), &[]);
    // The set-up line's wording is in the snapshots; here: no padding claimed.
    assert!(!text.contains("padding"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(plain.path(), &["--format", "json"])).unwrap();
    assert_eq!(json["setup"]["pad"], 0);

    let padded = tempfile::tempdir().unwrap();
    let mut design = Design::new(4, 2, 3);
    design.pad = 256;
    write_dir(padded.path(), &design, &mut |_, seed, e, i, _| {
        1.0e6 + seed.unwrap_or(0) as f64 * 10.0 + f64::from(e + i)
    });
    let want = "relink mode, seeded padding of up to 256 bytes before each function);";
    for format in ["text", "markdown"] {
        let out = stdout(padded.path(), &["--format", format]);
        assert!(out.contains(want), "{format}: {out}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&stdout(padded.path(), &["--format", "json"])).unwrap();
    assert_eq!(json["setup"]["pad"], 256);
}

/// Issue 23: a padding-only build (`--granularity none`) is named as such, since its seeds
/// estimate another quantity (the build as shipped, jittered) than shuffles do.
#[test]
fn the_set_up_line_names_a_padding_only_estimand() {
    let tmp = tempfile::tempdir().unwrap();
    let mut design = Design::new(4, 2, 3);
    design.pad = 256;
    design.granularity = "none";
    write_dir(tmp.path(), &design, &mut |_, seed, e, i, _| {
        1.0e6 + seed.unwrap_or(0) as f64 * 10.0 + f64::from(e + i)
    });
    let want = "4 seeds (padding only, order kept, bfd linker, relink mode, seeded padding of up \
                to 256 bytes before each function);";
    for format in ["text", "markdown", "html"] {
        let out = stdout(tmp.path(), &["--format", format]);
        assert!(out.contains(want), "{format}: {out}");
        assert!(!out.contains("none granularity"), "{format}: {out}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&stdout(tmp.path(), &["--format", "json"])).unwrap();
    assert_eq!(json["setup"]["granularity"], "none");
    assert_eq!(json["setup"]["estimand"], "padding only, order kept");
}

#[test]
fn json_csv_and_markdown_carry_the_same_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    sensitive_dir(tmp.path());
    let json: serde_json::Value =
        serde_json::from_str(&stdout(tmp.path(), &["--format", "json"])).unwrap();
    assert_eq!(json["schema"], 3);
    assert_eq!(json["confidence"], 0.95);
    let s = &json["series"][0];
    assert_eq!(s["program"], "demo");
    assert_eq!(s["unit"], "ns");
    assert_eq!(s["levels"].as_array().unwrap().len(), 3);
    assert_eq!(s["levels"][2]["repetitions"], 12);
    assert_eq!(s["sensitivity"]["verdict"], "detected");
    assert_eq!(s["shift"]["verdict"], "detected");
    let mean = s["mean"].as_f64().unwrap();
    let (lo, hi) = (
        s["ci"]["lower"].as_f64().unwrap(),
        s["ci"]["upper"].as_f64().unwrap(),
    );
    assert!(lo < mean && mean < hi);

    let csv = stdout(tmp.path(), &["--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(headers.get(0), Some("program"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1);
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    assert_eq!(rows[0][col("mean")].parse::<f64>().unwrap(), mean);
    assert_eq!(&rows[0][col("sensitivity")], "detected");
    assert_eq!(&rows[0][col("binaries")], "12");

    let md = stdout(tmp.path(), &["--format", "markdown"]);
    // The title names the unit its numbers are printed in (the store holds ns).
    assert!(md.contains("## demo — wall (ms)"), "{md}");
}

#[test]
fn each_metric_is_reported_separately() {
    let tmp = tempfile::tempdir().unwrap();
    let mut design = Design::new(6, 2, 1);
    design.metrics = vec![
        ("wall".into(), "ns".into()),
        ("max_rss".into(), "KiB".into()),
    ];
    write_dir(tmp.path(), &design, &mut |_, seed, e, _, m| {
        if m == 0 {
            1e6 + 1e4 * seed.unwrap_or(0) as f64 + 100.0 * e as f64
        } else {
            2048.0 + seed.unwrap_or(0) as f64
        }
    });
    let json: serde_json::Value =
        serde_json::from_str(&stdout(tmp.path(), &["--format", "json"])).unwrap();
    let series = json["series"].as_array().unwrap();
    let names: Vec<(&str, &str)> = series
        .iter()
        .map(|s| (s["metric"].as_str().unwrap(), s["unit"].as_str().unwrap()))
        .collect();
    // The metric asked of `run` (the header's) first, then the others.
    assert_eq!(names, [("wall", "ns"), ("max_rss", "KiB")]);
    // Every binary summarised as hyperfine exports a command: seed 3's wall values are
    // 1e6 + 3e4 + {0, 100} (two executions of one iteration).
    let binaries = series[0]["binaries"].as_array().unwrap();
    assert_eq!(binaries.len(), 7, "the baseline and 6 seeds");
    assert_eq!(binaries[0]["binary"], "baseline");
    let seed3 = binaries.iter().find(|b| b["seed"] == 3).unwrap();
    assert_eq!(seed3["executions"], 2);
    assert_eq!(seed3["values"], 2);
    assert_eq!(seed3["min"].as_f64().unwrap(), 1_030_000.0);
    assert_eq!(seed3["max"].as_f64().unwrap(), 1_030_100.0);
    assert_eq!(seed3["median"].as_f64().unwrap(), 1_030_050.0);
    assert_eq!(seed3["mean"].as_f64().unwrap(), 1_030_050.0);
    // sd of {0, 100}: 100/√2.
    let sd = seed3["stddev"].as_f64().unwrap();
    assert!((sd - 100.0 / 2f64.sqrt()).abs() < 1e-6, "{sd}");
    let text = stdout(tmp.path(), &[]);
    assert!(
        text.contains("demo — max_rss (KiB)") && text.contains("demo — wall (ms)"),
        "{text}"
    );
    // Not a time: "lower"/"higher", never "faster".
    let rss = text.split("demo — max_rss").nth(1).unwrap();
    assert!(!rss.contains("faster"), "{rss}");

    let only: serde_json::Value = serde_json::from_str(&stdout(
        tmp.path(),
        &["--format", "json", "--metric", "max_rss"],
    ))
    .unwrap();
    assert_eq!(only["series"].as_array().unwrap().len(), 1);
    assert_eq!(only["series"][0]["metric"], "max_rss");
    let err = failure(&["report", "--metric", "I1_misses"], tmp.path());
    assert!(
        err.contains("--metric I1_misses: not recorded") && err.contains("max_rss, wall"),
        "{err}"
    );
    // One answer across the metrics, the metric the run measured first, each verdict with
    // its magnitude: the layout moves wall time (1 % from seed to seed), and max_rss too.
    let across = text
        .lines()
        .find(|l| l.starts_with("Across metrics: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        across.starts_with("Across metrics: demo, layout sensitivity by metric: by wall (the metric the run measured), layout-sensitive (varies by "),
        "{across}"
    );
    assert!(across.contains("max_rss"), "{across}");
    // One metric only: its "In short" is the answer.
    let one = stdout(tmp.path(), &["--metric", "wall"]);
    assert!(!one.contains("Across metrics"), "{one}");
}

#[test]
fn a_counter_recorded_under_two_names_is_reported_once() {
    // cachegrind's I1mr is I1_misses by definition: one series, found by either name.
    let tmp = tempfile::tempdir().unwrap();
    let mut design = Design::new(6, 2, 1);
    design.metrics = vec![
        ("I1_misses".into(), "count".into()),
        ("I1mr".into(), "count".into()),
    ];
    write_dir(tmp.path(), &design, &mut |_, seed, e, _, _| {
        1000.0 + 50.0 * seed.unwrap_or(0) as f64 + e as f64
    });
    let json: serde_json::Value =
        serde_json::from_str(&stdout(tmp.path(), &["--format", "json"])).unwrap();
    let metrics: Vec<&str> = json["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["metric"].as_str().unwrap())
        .collect();
    assert_eq!(metrics, ["I1_misses"]);
    let by_raw = stdout(tmp.path(), &["--metric", "I1mr"]);
    assert!(by_raw.contains("demo — I1_misses (count)"), "{by_raw}");
    assert!(
        by_raw.contains("L1 instruction-cache misses (I1_misses)"),
        "{by_raw}"
    );
}

#[test]
fn interrupted_run_is_trimmed_to_its_balanced_part_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let design = Design::new(6, 3, 2);
    // seed-4's third execution crashed: seed-4 has 2 executions, the others 3.
    write_dir_with_status(
        tmp.path(),
        &design,
        &mut |_, seed, e, i, _| 1e6 + 1e3 * seed.unwrap_or(0) as f64 + 10.0 * (e + i) as f64,
        &|_, seed, e| {
            if seed == Some(4) && e == 2 {
                ExecutionStatus::Signal
            } else {
                ExecutionStatus::Ok
            }
        },
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(tmp.path(), &["--format", "json"])).unwrap();
    let warnings = json["warnings"].to_string();
    assert!(warnings.contains("seed-4 (2 of 3)"), "{warnings}");
    assert_eq!(json["series"][0]["levels"][2]["repetitions"], 5);
    assert_eq!(json["failures"][0]["program"], "demo");
    assert_eq!(json["failures"][0]["label"], "demo");
    assert_eq!(json["failures"][0]["signal"], 1);
    let text = stdout(tmp.path(), &[]);
    assert!(text.contains("Failed executions: 1 of"), "{text}");
}

#[test]
fn bad_input_gets_a_precise_error() {
    // No manifest.
    let tmp = tempfile::tempdir().unwrap();
    let err = failure(&["report"], tmp.path());
    assert!(err.contains("has no manifest.json"), "{err}");

    // Manifest but no store, then an empty store.
    let design = Design::new(3, 2, 1);
    report_support::manifest(&design).save(tmp.path()).unwrap();
    let err = failure(&["report"], tmp.path());
    assert!(err.contains("has no results.jsonl"), "{err}");
    std::fs::write(tmp.path().join("results.jsonl"), "").unwrap();
    let err = failure(&["report"], tmp.path());
    assert!(err.contains("results.jsonl is empty"), "{err}");

    // Only failures.
    let tmp = tempfile::tempdir().unwrap();
    write_dir_with_status(tmp.path(), &design, &mut |_, _, _, _, _| 1.0, &|_, _, _| {
        ExecutionStatus::Exit
    });
    let err = failure(&["report"], tmp.path());
    assert!(err.contains("all 8 execution(s) failed"), "{err}");
    assert!(err.contains("synthetic failure"), "{err}");

    // A store from another (newer) tool version and schema.
    let tmp = tempfile::tempdir().unwrap();
    write_dir(tmp.path(), &design, &mut |_, _, _, _, _| 1.0);
    let path = tmp.path().join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let schema = format!("\"schema\":{}", layoutrand::files::results::RESULTS_SCHEMA);
    let newer = text.replacen(&schema, "\"schema\":7", 1).replacen(
        &format!("\"tool_version\":\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"tool_version\":\"9.9.9\"",
        1,
    );
    std::fs::write(&path, newer).unwrap();
    let err = failure(&["report"], tmp.path());
    assert!(err.contains("schema 7") && err.contains("9.9.9"), "{err}");
    let older = text.replacen(&schema, "\"schema\":0", 1);
    std::fs::write(&path, older).unwrap();
    let err = failure(&["report"], tmp.path());
    assert!(err.contains("schema 0"), "{err}");

    // Not a confidence level.
    let tmp = tempfile::tempdir().unwrap();
    write_dir(tmp.path(), &design, &mut |_, _, _, _, _| 1.0);
    let out = layoutrand()
        .args(["report", "--confidence", "1.5"])
        .arg(tmp.path())
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--confidence 1.5"), "{err}");
}

#[test]
fn a_deterministic_metric_is_said_to_have_no_noise() {
    // Before: "with executions varying by 0.0 %, an effect below ≈ 0.0 % cannot be detected".
    let tmp = tempfile::tempdir().unwrap();
    write_dir(
        tmp.path(),
        &Design::new(6, 3, 2),
        &mut |_, seed, _, _, _| 1.0e6 + seed.unwrap_or(0) as f64 * 1.0e3,
    );
    let text = stdout(tmp.path(), &[]);
    assert!(
        text.contains("Noise: none: the executions of each binary gave the same value"),
        "{text}"
    );
    assert!(!text.contains("an effect below"), "{text}");
}

#[test]
fn dimension_names_each_variant() {
    // Before: two series both titled "demo", and no variant in the JSON.
    let tmp = tempfile::tempdir().unwrap();
    let mut design = Design::new(6, 3, 4);
    design.variants = vec![("O2".into(), 1.0), ("O3".into(), 0.9)];
    let mut gen = ThreeLevel::new(11, 2.5e6, 0.03, 0.002, 0.004, 0.0);
    write_dir(tmp.path(), &design, &mut |_, seed, e, i, _| {
        gen.value(seed, e) * (1.0 + 1e-3 * f64::from(i))
    });
    let text = stdout_of(&["dimension"], tmp.path());
    assert!(text.contains("demo [O2] — wall"), "{text}");
    assert!(text.contains("demo [O3] — wall"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["dimension", "--format", "json"], tmp.path())).unwrap();
    let variants: Vec<_> = json["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["variant"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(variants, ["O2", "O3"]);
}

fn stdout_of(args: &[&str], dir: &Path) -> String {
    let out = layoutrand().args(args).arg(dir).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn dimension_prints_a_table_per_target_and_rejects_bad_flags() {
    let tmp = tempfile::tempdir().unwrap();
    sensitive_dir(tmp.path());
    let out = layoutrand()
        .args(["dimension", "--target", "1%,5%,0.01%"])
        .arg(tmp.path())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("95 % confidence interval"), "{text}");
    assert!(text.contains("optimal r"), "{text}");
    assert!(
        text.contains('∞'),
        "0.01 % needs more than 1000 binaries: {text}"
    );
    assert!(text.contains("manifest: mean link"), "{text}");

    let out = layoutrand()
        .args(["dimension", "--json", "--costs", "binary=2s"])
        .arg(tmp.path())
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["schema"], 3);
    assert_eq!(json["series"][0]["variant"], serde_json::Value::Null);
    let levels = json["series"][0]["levels"].as_array().unwrap();
    assert_eq!(levels[2]["cost_seconds"], 2.0);
    assert_eq!(levels[2]["cost_source"], "given with --costs");
    // 5 is the floor of every row.
    for row in json["series"][0]["rows"].as_array().unwrap() {
        assert!(row["top_repetitions"].as_u64().unwrap() >= 5);
    }

    let out = layoutrand()
        .args(["dimension", "--costs", "link=3s"])
        .arg(tmp.path())
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--costs: unknown level `link`"), "{err}");
    let out = layoutrand()
        .args(["dimension", "--target", "abc"])
        .arg(tmp.path())
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--target abc"), "{err}");
    assert!(err.contains("not a percentage"), "{err}");

    // One percent parser (issue 10: `--target 0.02` meant 0.02 % here and 2 % in
    // `experiment`): `2%` and `0.02` give the same table.
    let table = |target: &str| {
        let out = layoutrand()
            .args(["dimension", "--format", "json", "--target", target])
            .arg(tmp.path())
            .assert()
            .success();
        let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        json["series"][0]["rows"].clone()
    };
    assert_eq!(table("2%"), table("0.02"));
    assert_eq!(table("0.02")[0]["target"], 0.02);
}

#[test]
fn report_and_dimension_default_to_the_directory_build_and_run_use() {
    // Issue 10: `build; run; report` failed because report looked in `.`.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("layoutrand-out");
    std::fs::create_dir(&out).unwrap();
    sensitive_dir(&out);
    for sub in ["report", "dimension"] {
        layoutrand()
            .arg(sub)
            .current_dir(tmp.path())
            .assert()
            .success();
    }
}

#[test]
fn a_schema_1_store_reports_as_it_did() {
    // The same store in the format written before schema 2, where a binary's label was
    // `variant` (header: `variants`), gives the same report as in schema 2.
    let tmp = tempfile::tempdir().unwrap();
    sensitive_dir(tmp.path());
    let now = stdout(tmp.path(), &["--format", "json"]);
    let path = tmp.path().join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let schema = format!("\"schema\":{}", layoutrand::files::results::RESULTS_SCHEMA);
    assert!(text.contains(&schema) && text.contains("\"binary\":\"seed-1\""));
    let old = text
        .replacen(&schema, "\"schema\":1", 1)
        .replace("\"binaries\":", "\"variants\":")
        .replace("\"binary\":", "\"variant\":");
    std::fs::write(&path, old).unwrap();
    assert_eq!(stdout(tmp.path(), &["--format", "json"]), now);
}

/// A binary none of whose executions succeeded (a benchmark failing on one layout only) is
/// named, with how it failed, in the report's warnings (text and JSON), not only counted:
/// before, the report said "Failed executions: 3 of 18 (exit 3, …)", which read as an exit
/// status, and never said which layout had dropped out of the analysis.
#[test]
fn a_binary_that_failed_in_every_execution_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let design = Design::new(5, 3, 1);
    write_dir_with_status(
        tmp.path(),
        &design,
        &mut |_, seed, e, _, _| 1e6 + 1e3 * seed.unwrap_or(0) as f64 + 10.0 * e as f64,
        &|_, seed, _| {
            if seed == Some(3) {
                ExecutionStatus::Exit
            } else {
                ExecutionStatus::Ok
            }
        },
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(tmp.path(), &["--format", "json"])).unwrap();
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("demo seed-3: every execution failed (3 of 3; exit status 1)"),
        "{warnings}"
    );
    assert!(!warnings.contains("seed-2:"), "{warnings}");
    let text = stdout(tmp.path(), &[]);
    assert!(
        text.contains("demo seed-3: every execution failed (3 of 3; exit status 1)"),
        "{text}"
    );
    assert!(
        text.contains("Failed executions: 3 of 18 (non-zero exit 3,"),
        "{text}"
    );
}

#[test]
fn report_output_file_holds_what_stdout_would_and_nothing_is_printed() {
    let tmp = tempfile::tempdir().unwrap();
    sensitive_dir(tmp.path());
    for (flag, format) in [("-o", "text"), ("--output", "json"), ("-o", "csv")] {
        let file = tmp.path().join(format!("report.{format}"));
        let out = layoutrand()
            .arg("report")
            .arg(tmp.path())
            .args(["--format", format, flag])
            .arg(&file)
            .assert()
            .success();
        assert!(out.get_output().stdout.is_empty(), "{flag} {format}");
        let written = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            written,
            stdout(tmp.path(), &["--format", format]),
            "{format}"
        );
    }
    // A file that cannot be written is an error, and no stray temporary file is left.
    let missing = tmp.path().join("no-such-dir").join("r.txt");
    let out = layoutrand()
        .arg("report")
        .arg(tmp.path())
        .arg("-o")
        .arg(&missing)
        .assert()
        .failure();
    assert!(out.get_output().stdout.is_empty());
    assert!(!missing.parent().unwrap().exists());
}

/// `export` of a store whose executions record their machine (a Slurm run's): each row
/// names the machine of its execution, in CSV (an extra last column) and JSON.
#[test]
fn export_carries_each_executions_machine_when_the_store_has_one() {
    let tmp = tempfile::tempdir().unwrap();
    // Executions 0–1 on n1, 2–3 on n2 (4 executions × 5 iterations per binary).
    store_on_machines(tmp.path(), &|e| if e < 2 { "n1" } else { "n2" }, 0.0);
    let out = layoutrand()
        .arg("export")
        .arg(tmp.path())
        .assert()
        .success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "program,binary,layout,execution,iteration,value,machine"
    );
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let execution: u32 = f[3].parse().unwrap();
        assert_eq!(f[6], if execution < 2 { "n1" } else { "n2" }, "{line}");
        rows += 1;
    }
    // 8 seeds + baseline, 4 executions of 5 iterations.
    assert_eq!(rows, 9 * 4 * 5);
    let out = layoutrand()
        .arg("export")
        .arg(tmp.path())
        .args(["--format", "json"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["schema"], 3);
    let rows = json["measurements"].as_array().unwrap();
    assert_eq!(rows.len(), 9 * 4 * 5);
    for r in rows {
        let e = r["execution"].as_u64().unwrap();
        assert_eq!(r["machine"], if e < 2 { "n1" } else { "n2" }, "{r}");
    }
    // A local store (no machine recorded) keeps its columns: what `analyze` reads.
    let local = tempfile::tempdir().unwrap();
    sensitive_dir(local.path());
    let out = layoutrand()
        .arg("export")
        .arg(local.path())
        .assert()
        .success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(
        csv.lines().next().unwrap(),
        "program,binary,layout,execution,iteration,value"
    );
    let out = layoutrand()
        .arg("export")
        .arg(local.path())
        .args(["--format", "json"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let first = &json["measurements"][0];
    assert!(first.is_object(), "{json}");
    assert!(first.get("machine").is_none(), "{first}");
}
