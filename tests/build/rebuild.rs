//! `layoutrand build --rebuild`: one full build per binary in a copy of the tree, each link
//! randomised in place as the build makes it. The build's own later steps see the randomised
//! program, the source tree is left untouched, and the results satisfy the same checks as
//! relinked ones.

use crate::build_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use build_support::{assert_success, build, check_binaries, fixture};
use layoutrand::files::manifest::{sha256_of_file, BuildMode, Manifest, SetKind};
use layoutrand::relink::live::ENV_LIVE_BINARY;
use layoutrand::wrap::ENV_REAL_PATH;

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
    assert!(!m.mechanisms.is_empty(), "{m:?}");
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
    // The baseline's and the seeds' binaries ran in the builds; the as-built copy is what
    // the baseline's link wrote before its live relink, which the build never ran.
    let mut built: Vec<String> = m
        .binary_sets()
        .filter(|v| v.kind.is_none())
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
    // The message, pinned whole, names the baseline build and its exit status.
    insta::assert_snapshot!(crate::snapshot_support::stderr_in(&out, &dir));
    assert!(!dir.join("out/manifest.json").exists());
}

/// The baseline's build keeps the binary its own link wrote, before the live relink replaced
/// it, as the `as-built` layout, as a relink build keeps its recorded link's output: read-only,
/// hashed in the manifest, compared with the baseline, never a seed.
#[test]
fn rebuild_mode_keeps_the_builds_own_binary_as_built() {
    let (tmp, dir) = fixture("multimodule");
    // In the baseline's build only, the Makefile's link once more with the real cc (PATH
    // without the shim's directory, so neither recorded nor relinked), on the same objects in
    // the same tree: the bytes the build's own link wrote.
    let own = tmp.path().join("own-link");
    let script = format!(
        "make && if [ \"${ENV_LIVE_BINARY}\" = baseline ]; then PATH=\"${ENV_REAL_PATH}\" cc -O2 \
         -g -o {} main.o m1.o m2.o m3.o m4.o m5.o m6.o m7.o; fi",
        own.display()
    );
    let o = build(
        &dir,
        &["--seeds", "2", "--rebuild", "--out", "out"],
        &["sh", "-c", &script],
    );
    assert_success(&o, "--rebuild");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let out = dir.join("out");
    let m = check_binaries(&out, "multimodule", 2, "--rebuild");
    let set = m.as_built.as_ref().expect("the as-built set is recorded");
    assert_eq!((set.kind, set.seed), (Some(SetKind::AsBuilt), None));
    let b = set.find("multimodule").expect("its program");
    assert_eq!(b.path, Path::new("as-built/multimodule"));
    let copy = out.join(&b.path);
    let own_bytes = std::fs::read(&own).expect("the baseline's build linked it again");
    assert_eq!(std::fs::read(&copy).unwrap(), own_bytes);
    assert_eq!(b.sha256, sha256_of_file(&copy).unwrap());
    let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
    assert_eq!(mode & 0o222, 0, "writable copy: {mode:o}");
    // Not the baseline: that is the live relink of the same link, which the build ran on.
    let base = m.baseline.find("multimodule").unwrap();
    assert_ne!(std::fs::read(out.join(&base.path)).unwrap(), own_bytes);
    assert_ne!(b.sha256, base.sha256);
    // Compared with the baseline as in a relink build, in the manifest and the summary.
    assert_eq!(b.functions, base.functions);
    assert!(
        b.functions_versus_baseline.is_some(),
        "the difference measured"
    );
    assert!(
        stdout.contains("baseline vs as built: program multimodule: "),
        "{stdout}"
    );
    let labels: Vec<String> = m.binary_sets().map(|s| s.label()).collect();
    assert_eq!(labels, ["baseline", "as-built", "seed-1", "seed-2"]);
    assert!(!out.join(".work").exists(), "the copies are removed");
}
