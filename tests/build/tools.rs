//! What a build makes besides the programs it measures: the fixture `fixtures/build/tools`
//! links `gen` and runs it to write a header its program `prog` includes (as CPython runs
//! `_freeze_module`), links `plugin.so`, which no program loads, and `libone.so`, one
//! function that `prog` loads; `make check` runs `prog` once everything is linked.
//!
//! Asserted: by default `gen` (run before `prog` was linked) and `plugin.so` (needed by no
//! program) are not relinked, while `prog`, run only after the last link, is; each seed's
//! `libone.so`, of which nothing can move, is a copy of the baseline's (its manifest entry
//! says so and the bytes are the same) rather than another link; `--programs all` relinks
//! the tool and the plugin too.

use crate::build_support::{assert_success, build, fixture};
use layoutrand::files::manifest::Manifest;

fn names(m: &Manifest) -> Vec<String> {
    let mut names: Vec<String> = m.baseline.all().map(|b| b.name.clone()).collect();
    names.sort();
    names
}

#[test]
fn a_tool_the_build_runs_and_a_plugin_are_left_out_and_what_cannot_move_is_linked_once() {
    let (_tmp, dir) = fixture("tools");
    let o = build(
        &dir,
        &["--seeds", "3", "--out", "out"],
        &["make", "all", "check"],
    );
    assert_success(&o, "tools");
    let m = Manifest::load(&dir.join("out")).unwrap();
    assert_eq!(names(&m), ["libone.so", "prog"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let said = format!("{stdout}{stderr}");
    assert!(
        said.contains("gen is a tool the build runs (the build ran it before it linked prog)"),
        "{said}"
    );
    // The note on the library no program needs, pinned whole.
    let plugins = said
        .lines()
        .find(|l| l.contains("(plugin.so)"))
        .unwrap_or_else(|| panic!("{said}"));
    insta::assert_snapshot!(plugins);

    let base = m.baseline.find("libone.so").unwrap();
    for set in &m.seeds {
        let lib = set.find("libone.so").unwrap();
        assert_eq!(
            lib.copy_of.as_deref(),
            Some("baseline"),
            "seed {:?}",
            set.seed
        );
        assert_eq!(lib.sha256, base.sha256);
        let prog = set.find("prog").unwrap();
        assert_eq!(prog.copy_of, None, "prog's seeds draw their own orders");
    }
    let distinct: std::collections::BTreeSet<&str> = m
        .seeds
        .iter()
        .map(|s| s.find("prog").unwrap().fingerprint.as_str())
        .collect();
    assert_eq!(distinct.len(), 3, "prog is randomised");

    let (_tmp, dir) = fixture("tools");
    let o = build(
        &dir,
        &["--seeds", "2", "--out", "out", "--programs", "all"],
        &["make", "all", "check"],
    );
    assert_success(&o, "tools --programs all");
    let m = Manifest::load(&dir.join("out")).unwrap();
    assert_eq!(names(&m), ["gen", "libone.so", "plugin.so", "prog"]);
}

/// `--programs prog` relinks prog and the build's library it loads: prog's code runs with
/// libone.so's, and a seed without its own copy would load another (nettle 3.8's
/// `--programs nettle-hash` measured the system's libnettle.so.8 in every seed).
#[test]
fn a_named_program_brings_the_libraries_of_the_build_it_loads() {
    let (_tmp, dir) = fixture("tools");
    let o = build(
        &dir,
        &["--seeds", "2", "--out", "out", "--programs", "prog"],
        &["make", "all", "check"],
    );
    assert_success(&o, "tools --programs prog");
    let m = Manifest::load(&dir.join("out")).unwrap();
    assert_eq!(names(&m), ["libone.so", "prog"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let note = said
        .lines()
        .find(|l| l.starts_with("note: relinked"))
        .unwrap_or_else(|| panic!("{said}"));
    insta::assert_snapshot!(note);
}
