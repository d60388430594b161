//! `build --granularity none --pad MAX` (issue 23): the build's order kept, only seeded
//! padding varies, as LLVM lld's `--randomize-section-padding` does. On every linker each
//! seed has the baseline's function order and code and other function offsets; archive
//! members keep their order too; a seed is byte-reproducible; `none` without `--pad` is
//! refused.

use crate::build_support;

use std::path::Path;

use build_support::{assert_success, build, fixture, have, run};
use layoutrand::files::manifest::{BuildStatus, Granularity, Manifest};
use layoutrand::layout::binary::{self, Function};

const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

fn functions(out: &Path, m: &Manifest, seed: Option<u64>, program: &str) -> Vec<Function> {
    let set = m.binary_sets().find(|v| v.seed == seed).unwrap();
    binary::functions(&out.join(&set.find(program).unwrap().path)).unwrap()
}

fn names(fs: &[Function]) -> Vec<&str> {
    fs.iter().map(|f| f.name.as_str()).collect()
}

/// Checks a padding-only build of `program` with `seeds` seeds in `out`: every seed built,
/// runs and prints the baseline's output, has the baseline's function order (names in
/// address order) and sizes, passed the code check, and starts more than half of its
/// functions at another cache-line offset than the baseline and than every other seed; the
/// seeds' layouts are pairwise distinct and none is called the baseline's.
fn check_order_kept(out: &Path, program: &str, seeds: u64, what: &str) -> Manifest {
    let m = Manifest::load(out).unwrap();
    assert_eq!(m.granularity, Granularity::None, "{what}");
    assert_eq!(m.seeds.len() as u64, seeds, "{what}");
    let base = functions(out, &m, None, program);
    let expected = run(&out.join(&m.baseline.find(program).unwrap().path));
    let mut all = vec![base.clone()];
    for seed in 1..=seeds {
        let set = &m.seeds[seed as usize - 1];
        assert_eq!(
            set.status,
            BuildStatus::Ok,
            "{what} seed {seed}: {:?}",
            set.error
        );
        let bin = set.find(program).unwrap();
        assert_eq!(run(&out.join(&bin.path)), expected, "{what} seed {seed}");
        let fs = functions(out, &m, Some(seed), program);
        assert_eq!(
            names(&fs),
            names(&base),
            "{what} seed {seed}: the order moved"
        );
        let sizes = |fs: &[Function]| fs.iter().map(|f| f.size).collect::<Vec<_>>();
        assert_eq!(sizes(&fs), sizes(&base), "{what} seed {seed}");
        let code = bin.code.as_ref().expect("the code check ran");
        assert_eq!(code.functions, base.len(), "{what} seed {seed}");
        let d = bin.distance.expect("a seed has a distance to the baseline");
        assert_eq!(d.kendall_tau, 0.0, "{what} seed {seed}: order distance");
        for (k, other) in all.iter().enumerate() {
            let moved = fs
                .iter()
                .zip(other)
                .filter(|(x, y)| x.address % 64 != y.address % 64)
                .count();
            assert!(
                moved * 2 > fs.len(),
                "{what} seed {seed} vs binary {k} (0: baseline): only {moved} of {} functions \
                 at another cache-line offset",
                fs.len()
            );
        }
        all.push(fs);
    }
    let summary = m.programs.iter().find(|p| p.name == program).unwrap();
    assert_eq!(summary.excluded, None, "{what}: left out");
    assert_eq!(summary.distinct_layouts as u64, seeds, "{what}");
    assert!(
        summary.coinciding.is_empty(),
        "{what}: {:?}",
        summary.coinciding
    );
    m
}

/// On bfd, gold, lld and mold: a multi-module program built with `--granularity none --pad
/// 256` keeps the baseline's order in every seed and moves its functions' offsets; the
/// summary names the estimand.
#[test]
fn padding_only_on_every_linker_keeps_order_and_code_and_moves_offsets() {
    for linker in LINKERS {
        assert!(
            have(&format!("ld.{linker}")),
            "ld.{linker} is not installed"
        );
        let (_tmp, dir) = fixture("multimodule");
        let make = ["make", "-j2", &format!("CC=cc -fuse-ld={linker}")];
        let what = format!("multimodule {linker}");
        let args = [
            "--seeds",
            "3",
            "--granularity",
            "none",
            "--pad",
            "256",
            "--out",
            "out",
        ];
        let out = build(&dir, &args, &make);
        assert_success(&out, &what);
        // The summary's achieved line, pinned whole, the same on every linker.
        let stdout = String::from_utf8_lossy(&out.stdout);
        let achieved: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("achieved:"))
            .collect();
        insta::assert_snapshot!("achieved", achieved.join("\n"));
        let m = check_order_kept(&dir.join("out"), "multimodule", 3, &what);
        assert_eq!(m.linker, linker, "{what}");
        assert_eq!(m.pad, 256, "{what}");
    }
}

/// Static archive members keep their order (the member order and each member's function
/// order) and are padded; building again from a fresh recording gives byte-identical seeds.
#[test]
fn padding_only_keeps_archive_order_and_is_byte_reproducible() {
    let (_tmp, dir) = fixture("archive");
    let args = |out: &'static str| {
        [
            "--seeds",
            "2",
            "--granularity",
            "none",
            "--pad",
            "128",
            "--out",
            out,
        ]
    };
    assert_success(&build(&dir, &args("a"), &["make"]), "archive a");
    let status = std::process::Command::new("make")
        .arg("clean")
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    assert_success(&build(&dir, &args("b"), &["make"]), "archive b");
    let a = check_order_kept(&dir.join("a"), "calc", 2, "archive a");
    let b = check_order_kept(&dir.join("b"), "calc", 2, "archive b");
    let lib = functions(&dir.join("a"), &a, Some(1), "calc")
        .into_iter()
        .filter(|f| f.file.as_deref().is_some_and(|f| f.starts_with("lib")))
        .count();
    assert!(lib >= 6, "archive functions in the binary: {lib}");
    for (x, y) in a.seeds.iter().zip(&b.seeds) {
        let (x, y) = (x.find("calc").unwrap(), y.find("calc").unwrap());
        assert_eq!(x.sha256, y.sha256, "{}: not reproducible", x.path.display());
        assert_eq!(x.fingerprint, y.fingerprint);
    }
    assert_ne!(
        a.seeds[0].find("calc").unwrap().sha256,
        a.seeds[1].find("calc").unwrap().sha256
    );
}

/// `--granularity none` without `--pad` would build seeds identical to the baseline: refused
/// before anything is built, with the fix.
#[test]
fn none_without_pad_is_refused() {
    let (_tmp, dir) = fixture("multimodule");
    let out = build(&dir, &["--seeds", "1", "--granularity", "none"], &["make"]);
    let err = crate::snapshot_support::stderr_in(&out, &dir);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // The message, pinned whole, gives the fix.
    insta::assert_snapshot!(err);
    assert!(!dir.join("multimodule").exists(), "the build ran");
}
