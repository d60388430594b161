//! `layoutrand build --extend`: seeds added later from the recording are byte-identical to
//! the same seeds built at once, and nothing already built (or measured) is touched.

use crate::experiment_support;

use std::path::Path;

use crate::snapshot_support::{in_dir, stderr_in};
use experiment_support::*;
use layoutrand::files::manifest::{BuildStatus, Granularity, Manifest};

fn build(src: &Path, out: &Path, seeds: u32, extra: &[&str]) -> std::process::Output {
    layoutrand()
        .current_dir(src)
        .args(["build", "-q", "--seeds", &seeds.to_string(), "--out"])
        .arg(out)
        .args(extra)
        .args(["--", "make", "-j2"])
        .output()
        .unwrap()
}

fn sha_of(manifest: &Manifest, label: &str) -> String {
    manifest
        .binary_sets()
        .find(|v| v.label() == label)
        .unwrap_or_else(|| panic!("no {label}"))
        .binaries[0]
        .sha256
        .clone()
}

#[test]
fn extended_seeds_equal_seeds_built_at_once_and_old_ones_stay() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo_sources(dir.path());
    let (at_once, grown) = (dir.path().join("at-once"), dir.path().join("grown"));

    let o = build(&src, &at_once, 4, &[]);
    assert!(o.status.success(), "{}", describe(&o));
    std::process::Command::new("make")
        .arg("clean")
        .current_dir(&src)
        .status()
        .unwrap();
    let o = build(&src, &grown, 2, &[]);
    assert!(o.status.success(), "{}", describe(&o));
    let before = Manifest::load(&grown).unwrap();
    let seed1 = grown.join("seed-1/demo");
    let mtime = std::fs::metadata(&seed1).unwrap().modified().unwrap();
    // Measurements exist now: a plain rebuild into this directory must be refused...
    std::fs::write(grown.join("results.jsonl"), "").unwrap();
    // (each refusal's message pinned whole)
    let o = build(&src, &grown, 4, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    insta::assert_snapshot!("measured_not_rebuilt", stderr_in(&o, dir.path()));
    // ...and so is an extension that would change the granularity.
    let o = build(&src, &grown, 4, &["--extend", "--granularity", "link"]);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    insta::assert_snapshot!("other_granularity", stderr_in(&o, dir.path()));

    // The build command and granularity may be left out: the recorded ones are used.
    let o = layoutrand()
        .current_dir(&src)
        .args(["build", "-q", "--extend", "--seeds", "4", "--out"])
        .arg(&grown)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    // It says how many seeds this run relinked, not only the manifest's total: the summary,
    // pinned whole (times written [t]).
    insta::assert_snapshot!(
        "extended_summary",
        crate::summary::without_times(&in_dir(&String::from_utf8_lossy(&o.stdout), dir.path()))
    );
    let after = Manifest::load(&grown).unwrap();
    let reference = Manifest::load(&at_once).unwrap();
    assert_eq!(after.seeds.len(), 4);
    assert!(after.seeds.iter().all(|v| v.status == BuildStatus::Ok));
    assert_eq!(
        after.baseline, before.baseline,
        "the baseline is not relinked"
    );
    assert_eq!(
        after.seeds[..2],
        before.seeds[..2],
        "built seeds stay as they are"
    );
    assert_eq!(
        std::fs::metadata(&seed1).unwrap().modified().unwrap(),
        mtime
    );
    for label in ["baseline", "seed-1", "seed-2", "seed-3", "seed-4"] {
        assert_eq!(sha_of(&after, label), sha_of(&reference, label), "{label}");
    }
    // Another build command is refused; asking for seeds that exist already (with the
    // recorded command) changes nothing.
    let o = layoutrand()
        .current_dir(&src)
        .args(["build", "-q", "--extend", "--seeds", "5", "--out"])
        .arg(&grown)
        .args(["--", "make", "-j1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    insta::assert_snapshot!("other_command", stderr_in(&o, dir.path()));
    let o = build(&src, &grown, 3, &["--extend"]);
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(Manifest::load(&grown).unwrap(), after);
}

#[test]
fn extend_keeps_the_recorded_granularity_when_none_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo_sources(dir.path());
    let out = dir.path().join("out");
    let o = build(&src, &out, 1, &["--granularity", "link"]);
    assert!(o.status.success(), "{}", describe(&o));
    let o = layoutrand()
        .current_dir(&src)
        .args(["build", "-q", "--extend", "--seeds", "2", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    let m = Manifest::load(&out).unwrap();
    assert_eq!(m.granularity, Granularity::Link);
    assert_eq!(m.seeds.len(), 2);
    assert!(m.seeds.iter().all(|v| v.status == BuildStatus::Ok));
}
