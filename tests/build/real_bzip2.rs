//! A real third-party program, tried as a new user would: the Debian source package of bzip2
//! (plain Makefile) is fetched at test time through a private apt configuration derived from
//! the machine's own sources (recipes/debian-source.sh), built with
//! `layoutrand build --seeds 5 -- make`, and every binary must pass bzip2's own test: the
//! comparisons of its `make test` target (compress sample1–3 at levels 1–3 and compare with
//! the shipped .bz2 files, decompress them and compare with the references).
//!
//! Needs the Debian archive: ignored by default, failing when the archive cannot be reached;
//! .ci/run runs it.

use crate::build_support;

use build_support::{assert_success, build, bzip2_check, fetch_debian_source};
use layoutrand::files::manifest::{BuildStatus, Manifest};

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn bzip2_seeds_pass_bzip2s_own_test() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fetch_debian_source("bzip2", tmp.path(), false);
    let out = build(&src, &["--seeds", "5"], &["make"]);
    assert_success(&out, "layoutrand build");
    let out_dir = src.join("layoutrand-out");
    let m = Manifest::load(&out_dir).unwrap();
    assert_eq!(m.seeds.len(), 5);
    let names: Vec<&str> = m
        .baseline
        .binaries
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert!(names.contains(&"bzip2"), "{names:?}");
    let mut fingerprints = std::collections::BTreeSet::new();
    for v in m.binary_sets() {
        assert_eq!(v.status, BuildStatus::Ok, "{:?}: {:?}", v.seed, v.error);
        let b = v.binaries.iter().find(|b| b.name == "bzip2").unwrap();
        fingerprints.insert(b.fingerprint.clone());
        let bzip2 = out_dir.join(&b.path);
        bzip2_check(&bzip2, &src, &src);
    }
    assert_eq!(
        fingerprints.len(),
        6,
        "baseline and 5 seeds must have distinct layouts"
    );
}

/// `--data-order` under clang ThinLTO on bzip2 (issue 53): LLVM turns a switch of string
/// literals into a relative lookup table (`reltable.uncompress`, 32-bit offsets from the
/// table's own address), whose bytes change when the data moves; the same-data check reads
/// such words as relative pointers, so every seed passes it, and every seed passes bzip2's
/// own test.
#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn bzip2_under_thinlto_with_data_order_passes_the_data_check() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fetch_debian_source("bzip2", tmp.path(), false);
    let make = [
        "make",
        "CC=clang",
        "CFLAGS=-O2 -flto=thin",
        "LDFLAGS=-flto=thin -fuse-ld=lld",
        "AR=llvm-ar",
        "RANLIB=llvm-ranlib",
        "bzip2",
    ];
    let out = build(&src, &["--seeds", "3", "--data-order"], &make);
    assert_success(&out, "layoutrand build --data-order under ThinLTO");
    let out_dir = src.join("layoutrand-out");
    let m = Manifest::load(&out_dir).unwrap();
    let base = m.baseline.find("bzip2").unwrap();
    let symbols = std::process::Command::new("nm")
        .arg(out_dir.join(&base.path))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&symbols.stdout).contains("reltable."),
        "the build has no relative lookup table: the test tests nothing"
    );
    for v in &m.seeds {
        assert_eq!(v.status, BuildStatus::Ok, "{:?}: {:?}", v.seed, v.error);
        let b = v.find("bzip2").unwrap();
        let data = b.data.as_ref().expect("the data check's figures");
        assert!(data.moved > 0, "seed {:?}: no data moved", v.seed);
        bzip2_check(&out_dir.join(&b.path), &src, &src);
    }
}
