//! Shared helpers of the end-to-end experiment tests: the demo sources in a scratch
//! directory, the layoutrand executable, and the JSON report.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A `Command` for the layoutrand binary under test.
pub fn layoutrand() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
}

/// Copies the demo program's sources into `dir/src` and returns that directory.
pub fn demo_sources(dir: &Path) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for entry in std::fs::read_dir(repo().join("fixtures/demo")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "Makefile" || name.ends_with(".c") || name.ends_with(".h") {
            std::fs::copy(&path, src.join(&name)).unwrap();
        }
    }
    src
}

/// The demo's experiment file.
pub fn demo_experiment() -> PathBuf {
    repo().join("fixtures/demo/experiment.toml")
}

/// Reads `out/report.json`.
pub fn report_json(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", out.join("report.json").display()));
    serde_json::from_str(&text).unwrap()
}

/// The report's series for `metric` of `program`.
pub fn series<'a>(
    report: &'a serde_json::Value,
    program: &str,
    metric: &str,
) -> &'a serde_json::Value {
    report["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["program"] == program && s["metric"] == metric)
        .unwrap_or_else(|| panic!("no series {program}/{metric} in {report:#}"))
}

/// Output of a finished command as text, for assertion messages.
pub fn describe(output: &std::process::Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The demo's main.c made slower by a known amount: `rounds` more steps of a dependent
/// multiply-add chain per iteration (5 instructions a step), in a function of its own.
pub fn plant_slowdown(dir: &Path, rounds: u32) {
    let path = dir.join("main.c");
    let source = std::fs::read_to_string(&path).unwrap();
    let planted = source
        .replacen(
            "#include \"demo.h\"\n",
            "#include \"demo.h\"\n\nstatic volatile uint64_t planted_sink;\n\
             static __attribute__((noinline)) uint64_t planted_work(unsigned rounds) {\n\
             uint64_t x = 1;\n\
             for (unsigned i = 0; i < rounds; i++) x = x * 6364136223846793005ULL + i;\n\
             return x;\n}\n",
            1,
        )
        .replacen(
            "checksum = checksum * 31 + c;",
            &format!(
                "checksum = checksum * 31 + c; planted_sink ^= planted_work({rounds}u * scale);"
            ),
            1,
        );
    assert_eq!(planted.matches("planted_work").count(), 2, "main.c changed");
    std::fs::write(&path, planted).unwrap();
}
