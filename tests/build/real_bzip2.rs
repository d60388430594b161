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
