//! `layoutrand build --rebuild`: one full build per binary in a copy of the tree, each link
//! randomised in place as the build makes it. The build's own later steps see the randomised
//! program, the source tree is left untouched, and the results satisfy the same checks as
//! relinked ones.

use crate::build_support;

use build_support::{assert_success, build, check_binaries, fixture};
use layoutrand::files::manifest::{BuildMode, Manifest};

#[test]
fn rebuild_mode_builds_each_seed_in_a_copy_and_randomises_it() {
    let (tmp, dir) = fixture("archive");
    // The build's own later step sees the program as linked for its binary: each build
    // appends the hash of the `calc` it made to a log outside the tree.
    let log = tmp.path().join("hashes.log");
    let script = format!(
        "make && ./calc > ran-in-build.txt && sha256sum calc >> {}",
        log.display()
    );
    let out = build(
        &dir,
        &["--seeds", "3", "--rebuild", "--out", "out"],
        &["sh", "-c", &script],
    );
    assert_success(&out, "--rebuild");
    let m = check_binaries(&dir.join("out"), "calc", 3, "--rebuild");
    assert_eq!(m.mode, BuildMode::Rebuild);
    assert!(
        m.mechanism.starts_with("full rebuild per seed"),
        "{}",
        m.mechanism
    );
    // The source tree itself was never built in.
    assert!(!dir.join("calc").exists());
    assert!(!dir.join("ran-in-build.txt").exists());
    assert!(!dir.join("out/.work").exists(), "the copies are removed");
    let again = Manifest::load(&dir.join("out")).unwrap();
    assert_eq!(again, m);
    let mut seen: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let mut built: Vec<String> = m
        .binary_sets()
        .map(|v| v.binaries[0].sha256.clone())
        .collect();
    seen.sort();
    built.sort();
    assert_eq!(seen, built, "the in-build program is the binary's binary");
}

#[test]
fn a_failing_rebuild_of_the_baseline_is_fatal_and_names_the_baseline() {
    let (_tmp, dir) = fixture("multimodule");
    let out = build(
        &dir,
        &["--seeds", "2", "--rebuild", "--out", "out"],
        &["sh", "-c", "exit 4"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("baseline build") && stderr.contains("exit status 4"),
        "{stderr}"
    );
    assert!(!dir.join("out/manifest.json").exists());
}
