//! `layoutrand report` and `layoutrand dimension` on synthetic experiment directories:
//! every format, the confidence level, mixed metrics, interrupted runs and bad input.

use crate::report_support;
use crate::snapshot_support::{in_dir, redact, stderr_in};

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

/// The standard error of `layoutrand ARGS DIR`, which must end with exit status 2 (an input
/// error), with `dir` written `[dir]` and this tool's version `[version]`.
fn failure(args: &[&str], dir: &Path) -> String {
    let out = layoutrand().args(args).arg(dir).assert().code(2);
    let version = format!(r"\b{}\b", regex::escape(env!("CARGO_PKG_VERSION")));
    redact(
        &stderr_in(out.get_output(), dir),
        &[(&version, "[version]")],
    )
}

/// The first line of `text` that starts with `prefix` (the test fails without one).
fn line_starting<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?}: {text}"))
}

#[test]
fn text_report_states_confidence_units_and_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    sensitive_dir(tmp.path());
    let text = stdout(tmp.path(), &[]);
    // The wording of the confidence line, the intervals and the levels table: the snapshots
    // (tests/report/snapshot.rs); here the verdicts (layout-sensitive; the default layout
    // faster than the average random one) and the level carried through.
    let json: serde_json::Value =
        serde_json::from_str(&stdout(tmp.path(), &["--format", "json"])).unwrap();
    let s = &json["series"][0];
    assert_eq!(s["sensitivity"]["verdict"], "detected", "{s}");
    assert_eq!(s["shift"]["verdict"], "detected", "{s}");
    assert!(s["shift"]["ci"]["upper"].as_f64().unwrap() < 1.0, "{s}");
    assert!(!text.contains('σ'), "no ± σ anywhere: {text}");
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");

    // At 90 %, every interval of the text says so: the report pinned whole.
    let ninety = stdout(tmp.path(), &["--confidence", "0.9"]);
    insta::assert_snapshot!("ninety_text", in_dir(&ninety, tmp.path()));
    let ninety: serde_json::Value = serde_json::from_str(&stdout(
        tmp.path(),
        &["--format", "json", "--confidence", "0.9"],
    ))
    .unwrap();
    assert_eq!(ninety["confidence"], 0.9);
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
    // The set-up line, pinned whole: no padding claimed.
    insta::assert_snapshot!("setup_unpadded", line_starting(&text, "Set-up: "));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(plain.path(), &["--format", "json"])).unwrap();
    assert_eq!(json["setup"]["pad"], 0);

    let padded = tempfile::tempdir().unwrap();
    let mut design = Design::new(4, 2, 3);
    design.pad = 256;
    write_dir(padded.path(), &design, &mut |_, seed, e, i, _| {
        1.0e6 + seed.unwrap_or(0) as f64 * 10.0 + f64::from(e + i)
    });
    // The set-up line of each format, pinned whole: the padding of up to 256 bytes named.
    for format in ["text", "markdown"] {
        let out = stdout(padded.path(), &["--format", format]);
        insta::assert_snapshot!(
            format!("setup_padded_{format}"),
            line_starting(&out, "Set-up: ")
        );
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
    // The set-up line of each format, pinned whole: "padding only, order kept", never "none
    // granularity".
    for (format, prefix) in [
        ("text", "Set-up: "),
        ("markdown", "Set-up: "),
        ("html", "<p>Set-up: "),
    ] {
        let out = stdout(tmp.path(), &["--format", format]);
        insta::assert_snapshot!(
            format!("setup_padding_only_{format}"),
            line_starting(&out, prefix)
        );
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
    assert_eq!(json["schema"], 4);
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
    assert!(md.lines().any(|l| l == "## demo — wall (ms)"), "{md}");
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
    let titles: Vec<&str> = text.lines().filter(|l| l.starts_with("demo — ")).collect();
    assert_eq!(
        titles,
        ["demo — wall (ms)", "demo — max_rss (KiB)"],
        "{text}"
    );
    // Not a time: "lower"/"higher", never "faster" (its section pinned whole).
    assert_eq!(series[1]["is_time"], false);
    let rss = &text[text.find("demo — max_rss").unwrap()..];
    insta::assert_snapshot!("max_rss_section", rss);

    let only: serde_json::Value = serde_json::from_str(&stdout(
        tmp.path(),
        &["--format", "json", "--metric", "max_rss"],
    ))
    .unwrap();
    assert_eq!(only["series"].as_array().unwrap().len(), 1);
    assert_eq!(only["series"][0]["metric"], "max_rss");
    // The message, pinned whole, names the metric asked for and those recorded.
    let err = failure(&["report", "--metric", "I1_misses"], tmp.path());
    insta::assert_snapshot!("unrecorded_metric", err);
    // One answer across the metrics, the metric the run measured first, each verdict with
    // its magnitude: the layout moves wall time (1 % from seed to seed), and max_rss too
    // (the line pinned whole).
    insta::assert_snapshot!("across_metrics", line_starting(&text, "Across metrics: "));
    // One metric only: its "In short" is the answer.
    let one = stdout(tmp.path(), &["--metric", "wall"]);
    assert!(
        !one.lines().any(|l| l.starts_with("Across metrics")),
        "{one}"
    );
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
    // Found by its raw name, reported (pinned whole) under its own: titled `I1_misses`,
    // described as L1 instruction-cache misses.
    let by_raw = stdout(tmp.path(), &["--metric", "I1mr"]);
    assert!(
        by_raw.lines().any(|l| l == "demo — I1_misses (count)"),
        "{by_raw}"
    );
    insta::assert_snapshot!("counter_by_raw_name", in_dir(&by_raw, tmp.path()));
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
    // The warning (pinned whole) names seed-4 with 2 of 3 executions.
    insta::assert_snapshot!(
        "trimmed_warnings",
        serde_json::to_string_pretty(&json["warnings"]).unwrap()
    );
    assert_eq!(json["series"][0]["levels"][2]["repetitions"], 5);
    assert_eq!(json["failures"][0]["program"], "demo");
    assert_eq!(json["failures"][0]["label"], "demo");
    assert_eq!(json["failures"][0]["signal"], 1);
    let text = stdout(tmp.path(), &[]);
    insta::assert_snapshot!(
        "trimmed_failed_line",
        line_starting(&text, "  - Failed executions: ")
    );
}

#[test]
fn bad_input_gets_a_precise_error() {
    // No manifest.
    let tmp = tempfile::tempdir().unwrap();
    // Each message pinned whole.
    let err = failure(&["report"], tmp.path());
    insta::assert_snapshot!("no_manifest", err);

    // Manifest but no store, then an empty store.
    let design = Design::new(3, 2, 1);
    report_support::manifest(&design).save(tmp.path()).unwrap();
    let err = failure(&["report"], tmp.path());
    insta::assert_snapshot!("no_store", err);
    std::fs::write(tmp.path().join("results.jsonl"), "").unwrap();
    let err = failure(&["report"], tmp.path());
    insta::assert_snapshot!("empty_store", err);

    // Only failures.
    let tmp = tempfile::tempdir().unwrap();
    write_dir_with_status(tmp.path(), &design, &mut |_, _, _, _, _| 1.0, &|_, _, _| {
        ExecutionStatus::Exit
    });
    let err = failure(&["report"], tmp.path());
    insta::assert_snapshot!("only_failures", err);

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
    insta::assert_snapshot!("newer_schema", err);
    let older = text.replacen(&schema, "\"schema\":0", 1);
    std::fs::write(&path, older).unwrap();
    let err = failure(&["report"], tmp.path());
    insta::assert_snapshot!("older_schema", err);

    // Not a confidence level.
    let tmp = tempfile::tempdir().unwrap();
    write_dir(tmp.path(), &design, &mut |_, _, _, _, _| 1.0);
    let err = failure(&["report", "--confidence", "1.5"], tmp.path());
    insta::assert_snapshot!("confidence_out_of_range", err);
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
    // The noise line, pinned whole: none, and no smallest detectable effect.
    insta::assert_snapshot!("no_noise", line_starting(&text, "  - Noise: "));
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
    // The table of each variant, titled with it: pinned whole.
    let text = stdout_of(&["dimension"], tmp.path());
    insta::assert_snapshot!("dimension_variants", in_dir(&text, tmp.path()));
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
    assert!(
        text.contains('∞'),
        "0.01 % needs more than 1000 binaries: {text}"
    );
    // The tables (confidence level, optimal r, the costs read from the manifest), pinned
    // whole.
    insta::assert_snapshot!("dimension_targets", in_dir(&text, tmp.path()));

    let out = layoutrand()
        .args(["dimension", "--json", "--costs", "binary=2s"])
        .arg(tmp.path())
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["schema"], 4);
    assert_eq!(json["series"][0]["variant"], serde_json::Value::Null);
    let levels = json["series"][0]["levels"].as_array().unwrap();
    assert_eq!(levels[2]["cost_seconds"], 2.0);
    assert_eq!(levels[2]["cost_source"], "given with --costs");
    // 5 is the floor of every row.
    for row in json["series"][0]["rows"].as_array().unwrap() {
        assert!(row["top_repetitions"].as_u64().unwrap() >= 5);
    }

    // Each message pinned whole.
    let err = failure(&["dimension", "--costs", "link=3s"], tmp.path());
    insta::assert_snapshot!("dimension_unknown_level", err);
    let err = failure(&["dimension", "--target", "abc"], tmp.path());
    insta::assert_snapshot!("dimension_not_a_percentage", err);

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
    // The warnings (pinned whole) name seed-3, how it failed, and no other binary.
    insta::assert_snapshot!(
        "failed_binary_warnings",
        serde_json::to_string_pretty(&json["warnings"]).unwrap()
    );
    assert_eq!(json["failures"][0]["exit"], 3);
    // The text report, pinned whole: the same warning, and the failed executions counted
    // as non-zero exits.
    let text = stdout(tmp.path(), &[]);
    insta::assert_snapshot!("failed_binary_text", in_dir(&text, tmp.path()));
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
    assert_eq!(json["schema"], 4);
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
