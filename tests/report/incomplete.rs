//! Issue 55, item 7: an unfinished store must not read as final. Every format says first
//! that it holds fewer executions than the run planned, BMF refuses it, and the CI gate does
//! not judge it (exit 2) — in `report` and in `compare` of two directories.

use crate::report_support;
use crate::snapshot_support::{in_dir, stderr_in};

use std::path::Path;

use report_support::{layoutrand, report_stdout, write_dir, Design, Normal};

/// A store of baseline + 4 seeds × 2 variants (O2 5 % slower) × 3 executions whose header
/// plans 6 executions per binary: 30 of 60 executions stored.
fn half_done(dir: &Path) {
    let mut design = Design::new(4, 3, 2);
    design.variants = vec![("O1".into(), 1.0), ("O2".into(), 1.05)];
    let mut noise = Normal::new(55, "incomplete");
    write_dir(dir, &design, &mut |_, _, _, _, _| {
        1e6 * (1.0 + 0.01 * noise.draw())
    });
    let store = dir.join("results.jsonl");
    let text = std::fs::read_to_string(&store).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    assert!(header.contains("\"executions\":3"), "{header}");
    let header = header.replace("\"executions\":3", "\"executions\":6");
    std::fs::write(&store, format!("{header}\n{rest}")).unwrap();
}

#[test]
fn every_format_says_first_that_the_store_is_incomplete() {
    let d = tempfile::tempdir().unwrap();
    half_done(d.path());
    let text = report_stdout(d.path(), &[]);
    // The first line of each format, pinned whole: (incomplete: 30 of 60 executions).
    let first = text.lines().next().unwrap();
    insta::assert_snapshot!("first_line_text", in_dir(first, d.path()));
    assert!(
        text.lines()
            .take(4)
            .any(|l| l.starts_with("Incomplete: 30 of the 60 planned executions are stored")),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&report_stdout(d.path(), &["--format", "json"])).unwrap();
    assert_eq!(json["incomplete"]["stored"], 30, "{}", json["incomplete"]);
    assert_eq!(json["incomplete"]["planned"], 60);
    let raw = report_stdout(d.path(), &["--format", "json"]);
    assert!(
        raw.trim_start().starts_with("{\n  \"incomplete\""),
        "{}",
        &raw[..80]
    );
    for format in ["markdown", "summary"] {
        let out = report_stdout(d.path(), &["--format", format]);
        let first = out.lines().next().unwrap();
        insta::assert_snapshot!(format!("first_line_{format}"), in_dir(first, d.path()));
    }
    let html = report_stdout(d.path(), &["--format", "html"]);
    let title = &html[html.find("<h1").expect("a title")..];
    let title = &title[..title.find("</h1>").expect("the title's end") + 5];
    insta::assert_snapshot!("title_html", in_dir(title, d.path()));
    let csv = report_stdout(d.path(), &["--format", "csv"]);
    let header = csv.lines().next().unwrap();
    assert!(
        header.ends_with("executions_stored,executions_planned"),
        "{header}"
    );
    assert!(csv.lines().nth(1).unwrap().ends_with(",30,60"), "{csv}");
    let bmf = layoutrand(&["report", "--format", "bmf"], &[d.path()]);
    assert_eq!(bmf.status.code(), Some(2), "{bmf:?}");
    // The refusal, pinned whole: the store is incomplete (30 of 60 …).
    insta::assert_snapshot!("bmf_refused", stderr_in(&bmf, d.path()));
}

#[test]
fn the_gate_does_not_judge_an_incomplete_store() {
    let d = tempfile::tempdir().unwrap();
    half_done(d.path());
    let out = layoutrand(&["report", "--fail-if-slower", "1%"], &[d.path()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The message, pinned whole: --fail-if-slower 1.0 %: not judged: the store is
    // incomplete (30 of 60 …).
    insta::assert_snapshot!("report_not_judged", stderr_in(&out, d.path()));
    // The same store complete (the header's plan met) is judged: O2 is 5 % slower.
    let complete = tempfile::tempdir().unwrap();
    let mut design = Design::new(4, 3, 2);
    design.variants = vec![("O1".into(), 1.0), ("O2".into(), 1.05)];
    let mut noise = Normal::new(55, "incomplete");
    write_dir(complete.path(), &design, &mut |_, _, _, _, _| {
        1e6 * (1.0 + 0.01 * noise.draw())
    });
    let out = layoutrand(&["report", "--fail-if-slower", "1%"], &[complete.path()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // compare of two directories: the incomplete side is said first and not gated.
    let out = layoutrand(
        &["compare", "--fail-if-slower", "1%"],
        &[complete.path(), d.path()],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("new Incomplete: 30 of the 60 planned executions"),
        "{stdout}"
    );
    let stderr = in_dir(&stderr_in(&out, d.path()), complete.path());
    insta::assert_snapshot!("compare_not_judged", stderr);
}
