//! Issue 22 item 7: `report`, `compare` and `dimension` on a directory that holds only
//! `results.jsonl`. The store describes itself, so every number must be the one the same
//! directory gives with its manifest; what only the manifest knows is null ("unknown (no
//! manifest.json)" in words), and a warning says why.

use crate::report_support;
use crate::snapshot_support::{in_dir, stderr_in};

use std::path::Path;
use std::process::Output;

use layoutrand::analysis::answers::compare::compare_directories;
use layoutrand::analysis::compare::CompareOptions;
use layoutrand::analysis::vocabulary::Thresholds;
use layoutrand::report::export::svg::escape;
use layoutrand::report::words::UNKNOWN_WITHOUT_MANIFEST;
use report_support::{layoutrand, write_dir, Design, Normal, ThreeLevel};
use serde_json::Value;

/// The setup fields only the manifest records (null without it).
const MANIFEST_ONLY: [&str; 7] = [
    "granularity",
    "estimand",
    "linker",
    "achieved",
    "mode",
    "pad",
    "seeds_built",
];

/// An experiment with everything the report derives from the store: a baseline (default
/// layout, shift), layout sensitivity, two metrics, variants O1 and O2 (O2 4 % slower, so the
/// gate at 1 % has something to judge), padding recorded in the manifest.
fn rich_dir(dir: &Path) {
    let mut design = Design::new(8, 3, 2);
    design.pad = 64;
    design.metrics = vec![
        ("wall".into(), "ns".into()),
        ("max_rss".into(), "KiB".into()),
    ];
    design.variants = vec![("O1".into(), 1.0), ("O2".into(), 1.04)];
    let mut gen = ThreeLevel::new(11, 2.5e6, 0.03, 0.002, 0.004, -0.05);
    write_dir(dir, &design, &mut |_, seed, e, _, m| {
        gen.value(seed, e) * [1.0, 1e-3][m]
    });
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn remove_manifest(dir: &Path) {
    std::fs::remove_file(dir.join("manifest.json")).unwrap();
}

#[test]
fn a_store_alone_gives_the_same_numbers_and_says_what_is_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    rich_dir(tmp.path());
    let args = ["report", "--format", "json", "--fail-if-slower", "1%"];
    let with = layoutrand(&args, &[tmp.path()]);
    remove_manifest(tmp.path());
    let without = layoutrand(&args, &[tmp.path()]);
    // The same gate verdict (O2 is 4 % slower: the gate trips on both).
    assert_eq!(with.status.code(), without.status.code(), "{without:?}");
    assert_ne!(with.status.code(), Some(0), "{with:?}");
    let with: Value = serde_json::from_str(&stdout(&with)).unwrap();
    let without: Value = serde_json::from_str(&stdout(&without)).unwrap();

    // Every number of every series (levels, intervals, sensitivity, shift, default layout),
    // the variant comparisons and the failures are the same.
    assert_eq!(with["series"].as_array().unwrap().len(), 4);
    assert!(
        with["series"][0]["shift"].is_object(),
        "{}",
        with["series"][0]
    );
    assert!(!with["comparisons"].as_array().unwrap().is_empty());
    for field in ["series", "comparisons", "multiple", "failures", "machines"] {
        assert_eq!(with[field], without[field], "{field}");
    }
    // The setup: the store's fields unchanged, the manifest's null.
    let (a, b) = (&with["setup"], &without["setup"]);
    for (name, value) in a.as_object().unwrap() {
        if MANIFEST_ONLY.contains(&name.as_str()) {
            assert!(!value.is_null(), "{name} with the manifest");
            assert!(b[name].is_null(), "{name} without: {}", b[name]);
        } else {
            assert_eq!(value, &b[name], "{name}");
        }
    }
    assert_eq!(a["pad"], 64);
    // One more warning, naming the file and what is therefore not shown.
    let (wa, wb) = (
        with["warnings"].as_array().unwrap(),
        without["warnings"].as_array().unwrap(),
    );
    assert_eq!(wb.len(), wa.len() + 1, "{wb:?}");
    let missing: Vec<&Value> = wb.iter().filter(|w| !wa.contains(w)).collect();
    // The warning, pinned whole: the directory has no manifest.json, the report rests on
    // results.jsonl alone, and the granularity, link times … are therefore not shown.
    let warning = missing[0].as_str().unwrap();
    insta::assert_snapshot!(in_dir(warning, tmp.path()));
}

#[test]
fn the_text_and_markdown_reports_say_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    rich_dir(tmp.path());
    let setup = |out: &str, prefix: &str| {
        out.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} in {out}"))
            .to_string()
    };
    // The set-up line, pinned whole: 8 seeds, module granularity, bfd linker …
    let text = stdout(&layoutrand(&["report"], &[tmp.path()]));
    insta::assert_snapshot!("setup_with_manifest", setup(&text, "Set-up: "));
    assert!(!text.contains(UNKNOWN_WITHOUT_MANIFEST), "{text}");
    remove_manifest(tmp.path());
    let json: Value = serde_json::from_str(&stdout(&layoutrand(
        &["report", "--format", "json"],
        &[tmp.path()],
    )))
    .unwrap();
    let warnings = json["warnings"].as_array().unwrap();
    for (format, prefix) in [
        ("text", "Set-up: "),
        ("markdown", "Set-up: "),
        ("html", "<p>Set-up: "),
    ] {
        let out = stdout(&layoutrand(&["report", "--format", format], &[tmp.path()]));
        // The set-up line, pinned whole: seeds built, granularity, linker, build mode and
        // padding unknown (no manifest.json), no linker named; every warning (the missing
        // manifest's among them) shown.
        insta::assert_snapshot!(
            format!("setup_without_manifest_{format}"),
            setup(&out, prefix)
        );
        for w in warnings {
            let w = w.as_str().unwrap();
            let shown = if format == "html" {
                escape(w)
            } else {
                w.to_string()
            };
            assert!(out.contains(&shown), "{format}: {w} not in {out}");
        }
    }
}

/// Two experiments of the same layouts, the new one `factor` times the base.
fn compare_pair(base: &Path, new: &Path) {
    let mut design = Design::new(8, 2, 1);
    design.baseline = false;
    for (dir, factor, noise_seed) in [(base, 1.0, 1), (new, 1.03, 2)] {
        let mut noise = Normal::new(noise_seed, "store-only-noise");
        write_dir(dir, &design, &mut |_, seed, _, _, _| {
            let layout = 0.03 * Normal::new(seed.unwrap(), "store-only-layout").draw();
            1e7 * factor * (1.0 + layout + 0.003 * noise.draw())
        });
    }
}

#[test]
fn compare_works_on_two_stores_alone_with_the_same_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let (base, new) = (tmp.path().join("base"), tmp.path().join("new"));
    std::fs::create_dir(&base).unwrap();
    std::fs::create_dir(&new).unwrap();
    compare_pair(&base, &new);
    let options = CompareOptions {
        thresholds: Thresholds::default(),
        is_time: true,
        is_rate: false,
        bootstrap: None,
        fail_if_slower: Some(0.01),
    };
    let with = serde_json::to_value(compare_directories(&base, &new, &[], &options).unwrap());
    remove_manifest(&base);
    remove_manifest(&new);
    let without = serde_json::to_value(compare_directories(&base, &new, &[], &options).unwrap());
    let (with, mut without) = (with.unwrap(), without.unwrap());
    // The comparison carries each side's warnings: one per directory without its manifest.
    assert_eq!(with["warnings"], serde_json::json!([]));
    let warnings = without["warnings"].take();
    let warnings: Vec<&str> = warnings
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    // Pinned whole: base's, then new's, each saying its directory has no manifest.json.
    insta::assert_snapshot!("compare_warnings", in_dir(&warnings.join("\n"), tmp.path()));
    without["warnings"] = serde_json::json!([]);
    assert_eq!(with, without);
    assert_eq!(with["programs"].as_array().unwrap().len(), 1, "{with}");
    // And through the command line, the gate (3 % slower against 1 %) trips as before.
    let out = layoutrand(&["compare", "--fail-if-slower", "1%"], &[&base, &new]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    insta::assert_snapshot!("compare_gate", stderr_in(&out, tmp.path()));
}

#[test]
fn dimension_without_a_manifest_asks_for_the_binary_cost() {
    let tmp = tempfile::tempdir().unwrap();
    rich_dir(tmp.path());
    let args = ["dimension", "--json", "--costs", "binary=2s"];
    let with = stdout(&layoutrand(&args, &[tmp.path()]));
    remove_manifest(tmp.path());
    // The link time was the manifest's: now unknown, and said so rather than guessed.
    // The message, pinned whole: the cost of one binary is unknown (no manifest.json).
    let out = layoutrand(&["dimension"], &[tmp.path()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    insta::assert_snapshot!(stderr_in(&out, tmp.path()));
    // Given with --costs, the same table as with the manifest.
    let without = stdout(&layoutrand(&args, &[tmp.path()]));
    assert_eq!(with, without);
}

#[test]
fn neither_file_is_still_refused_and_a_store_must_name_its_programs() {
    let tmp = tempfile::tempdir().unwrap();
    // Each message pinned whole.
    let out = layoutrand(&["report"], &[tmp.path()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    insta::assert_snapshot!("neither_file", stderr_in(&out, tmp.path()));

    // Without the manifest the header is the list of programs: a measurement of another
    // program is a store that contradicts itself.
    write_dir(tmp.path(), &Design::new(3, 2, 1), &mut |_, _, _, _, _| 1.0);
    remove_manifest(tmp.path());
    let path = tmp.path().join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\"programs\":[\"demo\"]", "\"programs\":[\"other\"]", 1),
    )
    .unwrap();
    let out = layoutrand(&["report"], &[tmp.path()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    insta::assert_snapshot!("unknown_program", stderr_in(&out, tmp.path()));
}
