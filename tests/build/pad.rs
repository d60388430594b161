//! `build --pad MAX`: seeded padding before functions on every linker, from a stream of its
//! own (a seed's function order is the same with and without padding), recorded in the
//! manifest with the spread of function start offsets, the code invariant kept, and
//! byte-reproducible (also through `--extend`).

use crate::build_support;

use std::path::Path;

use build_support::{assert_success, build, check_binaries, fixture, have};
use layoutrand::files::manifest::Manifest;
use layoutrand::layout::binary::{self, Function};

const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

/// `make clean` in `dir` (a build needs a clean tree).
fn make_clean(dir: &Path) {
    let status = std::process::Command::new("make")
        .arg("clean")
        .current_dir(dir)
        .output()
        .unwrap()
        .status;
    assert!(status.success(), "make clean in {}", dir.display());
}

fn functions(out: &Path, m: &Manifest, seed: Option<u64>, program: &str) -> Vec<Function> {
    let set = m.binary_sets().find(|v| v.seed == seed).unwrap();
    binary::functions(&out.join(&set.find(program).unwrap().path)).unwrap()
}

fn names(fs: &[Function]) -> Vec<&str> {
    fs.iter().map(|f| f.name.as_str()).collect()
}

/// On every linker, a fixture built with `--pad 256` and without: every seed runs and prints
/// the baseline's output, passes the code check, has the same function order as the same
/// seed without padding but other cache-line offsets; the baseline is the unpadded one.
#[test]
fn padding_on_every_linker_keeps_order_and_code_and_moves_offsets() {
    for linker in LINKERS {
        assert!(
            have(&format!("ld.{linker}")),
            "ld.{linker} is not installed"
        );
        let (_tmp, dir) = fixture("multimodule");
        let make = ["make", "-j2", &format!("CC=cc -fuse-ld={linker}")];
        let what = format!("multimodule {linker}");
        let args = |out: &'static str, pad: &'static str| {
            [
                "--seeds",
                "3",
                "--granularity",
                "module",
                "--out",
                out,
                "--pad",
                pad,
            ]
        };
        assert_success(&build(&dir, &args("plain", "0"), &make), &what);
        make_clean(&dir);
        let padded_out = build(&dir, &args("padded", "256"), &make);
        assert_success(&padded_out, &what);
        // The summary's lines on the padding and the offsets it gave, pinned whole, the same
        // on every linker (the counts of offsets, each linker's, written [n]).
        let stdout = String::from_utf8_lossy(&padded_out.stdout);
        let padding: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("padding:") || l.starts_with("offsets:"))
            .collect();
        insta::assert_snapshot!(
            "padded_summary",
            crate::snapshot_support::redact(
                &padding.join("\n"),
                &[
                    (
                        r"(mod \d+) \d+(-\d+)? \(baseline \d+\)",
                        "${1} [n] (baseline [n])"
                    ),
                    (r"changed for \d+(\.\d+)? %", "changed for [n] %"),
                ]
            )
        );

        let (plain, padded) = (dir.join("plain"), dir.join("padded"));
        let mp = check_binaries(&plain, "multimodule", 3, &what);
        let m = check_binaries(&padded, "multimodule", 3, &what);
        assert_eq!((mp.pad, m.pad), (0, 256), "{what}");
        assert_eq!(
            functions(&plain, &mp, None, "multimodule"),
            functions(&padded, &m, None, "multimodule"),
            "{what}: the baseline is never padded"
        );
        for seed in 1..=3 {
            let a = functions(&plain, &mp, Some(seed), "multimodule");
            let b = functions(&padded, &m, Some(seed), "multimodule");
            assert_eq!(
                names(&a),
                names(&b),
                "{what} seed {seed}: padding changed the order"
            );
            let sizes = |fs: &[Function]| fs.iter().map(|f| f.size).collect::<Vec<_>>();
            assert_eq!(sizes(&a), sizes(&b), "{what} seed {seed}");
            let other_line = a
                .iter()
                .zip(&b)
                .filter(|(x, y)| x.address % 64 != y.address % 64)
                .count();
            assert!(
                other_line * 2 > a.len(),
                "{what} seed {seed}: only {other_line} of {} functions changed cache-line offset",
                a.len()
            );
            let bin = m.seeds[seed as usize - 1].find("multimodule").unwrap();
            let code = bin.code.as_ref().expect("the code check ran");
            assert_eq!(code.functions, a.len(), "{what} seed {seed}");
            let offsets = bin.offsets.expect("offsets recorded");
            assert!(
                offsets.distinct_mod_64 > 1,
                "{what} seed {seed}: {offsets:?}"
            );
            assert!(
                offsets.distinct_mod_4096 > 1,
                "{what} seed {seed}: {offsets:?}"
            );
        }
    }
}

fn args_unpadded() -> [&'static str; 6] {
    ["--seeds", "1", "--granularity", "global", "--out", "c"]
}

/// Under LTO (code generated once, the global order) with `--pad`: every seed checks out,
/// and each seed's binary is byte-identical when built again from another recording, also
/// when it is added later by `--extend` (which keeps the recorded padding and refuses
/// another).
#[test]
fn padding_under_lto_is_reproducible_and_kept_by_extend() {
    let (_tmp, dir) = fixture("lto");
    let args = |out: &'static str, seeds: &'static str| {
        [
            "--seeds",
            seeds,
            "--granularity",
            "global",
            "--out",
            out,
            "--pad",
            "128",
        ]
    };
    assert_success(&build(&dir, &args("a", "2"), &["make"]), "lto a");
    make_clean(&dir);
    assert_success(&build(&dir, &args("b", "1"), &["make"]), "lto b");
    let extend = |pad: &[&str]| {
        let mut args = vec![
            "--seeds",
            "2",
            "--out",
            "b",
            "--extend",
            "--granularity",
            "global",
        ];
        args.extend(pad);
        build(&dir, &args, &["make"])
    };
    let refused = extend(&["--pad", "64"]);
    assert_eq!(
        refused.status.code(),
        Some(2),
        "a different --pad is refused"
    );
    // The message, pinned whole, gives the recorded padding.
    insta::assert_snapshot!(crate::snapshot_support::stderr_in(&refused, &dir));
    let extended = extend(&[]);
    assert_success(&extended, "lto b --extend");

    make_clean(&dir);
    assert_success(&build(&dir, &args_unpadded(), &["make"]), "lto c");

    let c = check_binaries(&dir.join("c"), "ltoprog", 1, "lto c");
    let a = check_binaries(&dir.join("a"), "ltoprog", 2, "lto a");
    let (fa, fc) = (
        functions(&dir.join("a"), &a, Some(1), "ltoprog"),
        functions(&dir.join("c"), &c, Some(1), "ltoprog"),
    );
    assert_eq!(names(&fa), names(&fc), "padding changed the LTO order");
    assert!(
        fa.iter()
            .zip(&fc)
            .any(|(x, y)| x.address % 64 != y.address % 64),
        "no LTO function changed cache-line offset"
    );
    let b = check_binaries(&dir.join("b"), "ltoprog", 2, "lto b");
    assert_eq!(b.pad, 128);
    for (x, y) in a.seeds.iter().zip(&b.seeds) {
        let (x, y) = (x.find("ltoprog").unwrap(), y.find("ltoprog").unwrap());
        assert_eq!(x.sha256, y.sha256, "{}: not reproducible", x.path.display());
    }
}

/// Archive members are padded too (their section tables are rewritten per seed under
/// `module`): the archive fixture's functions live mostly in `libcalc.a`.
#[test]
fn archive_members_are_padded() {
    let (_tmp, dir) = fixture("archive");
    let args = |out: &'static str, pad: &'static str| ["--seeds", "2", "--out", out, "--pad", pad];
    assert_success(
        &build(&dir, &args("plain", "0"), &["make"]),
        "archive plain",
    );
    make_clean(&dir);
    assert_success(
        &build(&dir, &args("padded", "256"), &["make"]),
        "archive padded",
    );
    let (plain, padded) = (dir.join("plain"), dir.join("padded"));
    let mp = check_binaries(&plain, "calc", 2, "archive plain");
    let m = check_binaries(&padded, "calc", 2, "archive padded");
    for seed in 1..=2 {
        let a = functions(&plain, &mp, Some(seed), "calc");
        let b = functions(&padded, &m, Some(seed), "calc");
        assert_eq!(names(&a), names(&b), "seed {seed}");
        let lib: Vec<_> = a
            .iter()
            .zip(&b)
            .filter(|(x, _)| x.file.as_deref().is_some_and(|f| f.starts_with("lib")))
            .collect();
        assert!(
            !lib.is_empty(),
            "seed {seed}: no library function in {:?}",
            names(&a)
        );
        assert!(
            lib.iter().any(|(x, y)| x.address % 64 != y.address % 64),
            "seed {seed}: no archive function changed cache-line offset"
        );
    }
}

/// Bad `--pad` values and `--pad` with `link` granularity: a precise message, exit 2,
/// nothing built.
#[test]
fn bad_pad_values_and_link_granularity_are_refused() {
    let (_tmp, dir) = fixture("multimodule");
    for (value, granularity, expected) in [
        ("-1", "module", "\"-1\" is not a number of bytes"),
        ("abc", "module", "\"abc\" is not a number of bytes"),
        ("99999", "module", "99999 bytes is more than 4096"),
        (
            "256",
            "link",
            "--pad needs --granularity module, global or none",
        ),
        ("0", "none", "--granularity none needs --pad MAX"),
    ] {
        let out = build(
            &dir,
            &["--seeds", "1", "--granularity", granularity, "--pad", value],
            &["make"],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--pad {value}: {err}");
        assert!(err.contains(expected), "--pad {value}: {err}");
        assert!(
            !dir.join("multimodule").exists(),
            "--pad {value}: the build ran"
        );
    }
}

/// Variants share the first variant's padding like its seeds: a later variant without
/// `--pad` gets it, one with another value is refused.
#[test]
fn variants_share_the_first_variants_padding() {
    let (_tmp, dir) = fixture("multimodule");
    let variant = |name: &str, pad: &[&str]| {
        let mut args = vec!["--out", "exp", "--variant", name];
        args.extend(pad);
        if name == "a" {
            args.extend(["--seeds", "2"]);
        }
        build(&dir, &args, &["make"])
    };
    assert_success(&variant("a", &["--pad", "256"]), "variant a");
    make_clean(&dir);
    let refused = variant("b", &["--pad", "64"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    // The message, pinned whole, names variant a and its padding.
    insta::assert_snapshot!(crate::snapshot_support::stderr_in(&refused, &dir));
    assert_success(&variant("b", &[]), "variant b");
    let m = Manifest::load(&dir.join("exp")).unwrap();
    let pads: Vec<u64> = m.variants.iter().map(|v| v.build.pad).collect();
    assert_eq!(pads, [256, 256]);
}
