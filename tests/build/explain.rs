//! `layoutrand explain` on real builds (gcc, the linker, valgrind): a program whose metric
//! depends by construction on where ONE function starts in its cache line is explained by
//! that function first, and its null twin (the same code, the dependence compiled out) gets
//! no culprit. Seeded: the build's seeds, the schedule seed and the permutations' seed are
//! fixed, so the outcome is the same on every run.

use crate::build_support;

use std::path::Path;

use build_support::{assert_success, build};

/// Builds fixtures/explain with `make SENSITIVE=s` (20 seeds, the build's order kept, up to
/// 64 bytes of padding before each function), runs every binary once with the work it
/// prints as the metric, and returns `explain --format json EXTRA`'s answer.
fn explain_fixture(sensitive: u8, extra: &[&str]) -> (tempfile::TempDir, serde_json::Value) {
    let (tmp, dir) = fixture_explain();
    let make = format!("SENSITIVE={sensitive}");
    let args = [
        "--seeds",
        "20",
        "--granularity",
        "none",
        "--pad",
        "64",
        "--out",
        "out",
    ];
    assert_success(&build(&dir, &args, &["make", &make]), "build");
    let out = dir.join("out");
    let run = layoutrand(&dir)
        .args(["run", "--out", "out", "--executions", "1", "--env-pad", "0"])
        .args([
            "--schedule-seed",
            "1",
            "--metric",
            r"regex:work (\d+)",
            "--",
            "{bin}",
        ])
        .output()
        .unwrap();
    assert_success(&run, "run");
    let json = layoutrand(&dir)
        .args(["explain", "--format", "json", "--seed", "7"])
        .args(extra)
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&json, "explain");
    let value = serde_json::from_slice(&json.stdout).unwrap();
    (tmp, value)
}

/// A fresh copy of fixtures/explain (the build writes into its source tree).
fn fixture_explain() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/explain");
    let dst = tmp.path().join("explain");
    std::fs::create_dir_all(&dst).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
    }
    (tmp, dst)
}

fn layoutrand(dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_layoutrand"));
    cmd.current_dir(dir);
    cmd
}

/// Screening and confirmation: `spin` named first, and confirmed by relinks moving it alone
/// (+50 % exactly, by construction); any other function named (a neighbour whose padding
/// moves with spin's) is not confirmed, since moving it alone changes nothing.
#[test]
fn the_function_whose_placement_matters_is_named_first_and_confirmed() {
    let (tmp, e) = explain_fixture(1, &["--confirm", "--confirm-seeds", "6"]);
    assert_eq!(e["program"], "placed");
    assert_eq!(e["verdict"], "detected", "{e:#}");
    let hot: Vec<&str> = e["hot"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        hot[0], "spin",
        "the hottest function by instructions: {hot:?}"
    );
    let first = &e["culprits"][0];
    assert_eq!(first["function"], "spin", "{e:#}");
    assert_eq!(first["feature"], "upper_half_line", "{e:#}");
    // By construction the work is 30000 instead of 20000 in the upper half: +50 %, all of
    // the variance between the binaries.
    assert!(
        (first["effect"].as_f64().unwrap() - 0.5).abs() < 1e-9,
        "{first:#}"
    );
    assert!(
        (first["share"].as_f64().unwrap() - 1.0).abs() < 1e-9,
        "{first:#}"
    );
    assert!(first["q"].as_f64().unwrap() <= 0.05, "{first:#}");
    let confirmed = &first["confirmation"];
    assert_eq!(confirmed["confirmed"], true, "{first:#}");
    assert_eq!(confirmed["verdict"], "detected", "{first:#}");
    assert_eq!(confirmed["relinks"], 6, "{first:#}");
    assert!(
        (confirmed["ratio"].as_f64().unwrap() - 1.5).abs() < 1e-9,
        "{first:#}"
    );
    let ci = &confirmed["ci"];
    assert!(ci["lower"].as_f64().unwrap() > 1.0, "{first:#}");
    for c in e["culprits"].as_array().unwrap() {
        if c["function"] != "spin" && !c["confirmation"].is_null() {
            assert_eq!(c["confirmation"]["confirmed"], false, "{c:#}");
        }
    }
    // Everything the confirmation wrote is under DIR/explain/.
    let dir = confirmed["dir"].as_str().unwrap();
    assert!(dir.starts_with("explain/"), "{dir}");
    let out = tmp.path().join("explain/out");
    let store = out.join(dir).join("results.jsonl");
    assert!(store.is_file(), "{}", store.display());
    // The text a performance engineer reads names the same finding, with its magnitude.
    let text = layoutrand(tmp.path())
        .arg("explain")
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&text, "explain (text)");
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains(
            "1. spin: binaries where it starts in the upper half of a 64-byte line have 50.0 % \
             higher reported"
        ),
        "{text}"
    );
}

#[test]
fn the_null_twin_has_no_culprit() {
    let (_tmp, e) = explain_fixture(0, &["--confirm"]);
    assert_eq!(e["culprits"].as_array().unwrap().len(), 0, "{e:#}");
    assert_eq!(e["verdict"], "not_detected", "{e:#}");
    assert!(e["tests"].as_u64().unwrap() > 0, "{e:#}");
}
