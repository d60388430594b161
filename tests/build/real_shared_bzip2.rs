//! A real program whose hot code lives in its own shared library: upstream bzip2's
//! `Makefile-libbz2_so` (Debian source package, without Debian's patches) compiles the
//! library's seven modules with -fPIC, links `libbz2.so.1.0.8` with the soname
//! `libbz2.so.1.0`, and links `bzip2-shared` against it; compression and decompression run
//! in the library. The machine has its own `libbz2.so.1.0` (Debian's), so a seed's program
//! that found no copy of the build's would silently load the system's.
//!
//! Asserted: the library is recorded and relinked per seed, with distinct layouts and the
//! baseline's code; every binary (program with its seed's library) passes bzip2's own
//! test; `layoutrand run` checks that every execution loads its seed's library and runs.
//!
//! Needs the Debian archive: ignored by default, failing when the archive cannot be reached;
//! .ci/run runs it.

use crate::build_support;

use build_support::{assert_success, build, bzip2_check, fetch_debian_source};
use layoutrand::files::manifest::{BuildStatus, Manifest, SetKind};
use layoutrand::files::store::{read_results, ExecutionStatus};

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn libbz2_is_relinked_per_seed_and_each_seed_loads_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fetch_debian_source("bzip2", tmp.path(), true);
    let out = build(
        &src,
        &["--seeds", "3", "--out", "out"],
        &["make", "-f", "Makefile-libbz2_so"],
    );
    assert_success(&out, "layoutrand build");
    let out_dir = src.join("out");
    let m = Manifest::load(&out_dir).unwrap();
    assert_eq!(m.seeds.len(), 3);
    let mut fingerprints = std::collections::BTreeSet::new();
    for v in m.binary_sets() {
        assert_eq!(v.status, BuildStatus::Ok, "{:?}: {:?}", v.seed, v.error);
        let lib = v
            .libraries
            .iter()
            .find(|b| b.name == "libbz2.so.1.0.8")
            .unwrap_or_else(|| panic!("{}: no libbz2 in {v:?}", v.label()));
        assert_eq!(lib.soname.as_deref(), Some("libbz2.so.1.0"));
        // The seeds and the build's own copy (as built) are checked against the baseline's code.
        let as_built = v.kind == Some(SetKind::AsBuilt);
        assert_eq!(
            lib.code.is_some(),
            v.seed.is_some() || as_built,
            "{}",
            v.label()
        );
        if !as_built {
            fingerprints.insert(lib.fingerprint.clone());
        }
        let program = v
            .binaries
            .iter()
            .find(|b| b.name == "bzip2-shared")
            .unwrap();
        let dir = out_dir.join(v.label());
        bzip2_check(&out_dir.join(&program.path), &src, &dir);
    }
    assert_eq!(
        fingerprints.len(),
        4,
        "baseline and 3 seeds: 4 library layouts"
    );
    let summary = m
        .programs
        .iter()
        .find(|p| p.name == "libbz2.so.1.0.8")
        .unwrap();
    let achieved = summary.achieved.as_ref().unwrap();
    assert!(achieved.modules_with_function_order > 0, "{achieved:?}");

    let run = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(&src)
        .args(["run", "--out", "out", "--executions", "1", "--env-pad", "0"])
        .args([
            "--schedule-seed",
            "1",
            "--",
            "{bin}",
            "-1",
            "-c",
            "sample3.ref",
        ])
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let r = read_results(&out_dir).unwrap();
    // Baseline, as built and 3 seeds, one execution each.
    assert_eq!(r.executions.len(), 5);
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
}
