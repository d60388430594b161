//! `build --data-order`: each seed permutes the static data (from a stream of its own) on gcc
//! and clang with every linker, "same code, different data layout" checked from the ELF, the
//! order read back from the binaries, a seed's code order unchanged by the data order, the
//! check catching other contents, and the refusals.

use crate::build_support;

use std::collections::BTreeSet;
use std::path::Path;

use build_support::{assert_success, build, fixture, have, run};
use layoutrand::files::manifest::{BuildStatus, Manifest};
use layoutrand::layout::binary::{self, Function};
use layoutrand::layout::same_data;

const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

/// The staticdata fixture's own data objects (tables.c, buffers.c, names.c, main.c).
const FIXTURE_OBJECTS: [&str; 17] = [
    "squares",
    "weights",
    "primes",
    "crc_table",
    "counters",
    "offsets",
    "scratch_init",
    "tls_calls",
    "small",
    "medium",
    "shared_buffer",
    "big",
    "tls_scratch",
    "colours",
    "animals",
    "banner",
    "runs",
];

fn data_objects(path: &Path) -> Vec<Function> {
    binary::data_objects_from_bytes(&std::fs::read(path).unwrap()).unwrap()
}

/// The fixture's objects in address order (the data order the binary has).
fn fixture_order(path: &Path) -> Vec<String> {
    data_objects(path)
        .into_iter()
        .filter(|f| FIXTURE_OBJECTS.contains(&f.name.as_str()))
        .map(|f| f.name)
        .collect()
}

fn path_of(out: &Path, m: &Manifest, seed: Option<u64>) -> std::path::PathBuf {
    let set = m.binary_sets().find(|v| v.seed == seed).unwrap();
    out.join(&set.find("staticdata").unwrap().path)
}

/// gcc and clang with bfd, gold, lld and mold: four seeds with `--data-order` each build,
/// pass the checks and print the baseline's output; every fixture object is found in every
/// binary; the baseline and the four seeds have five different data orders (read from the
/// ELF); the manifest's count of moved objects is the count of objects at another address
/// than in the baseline, recounted here; and the summary says what moved.
#[test]
fn data_order_on_gcc_and_clang_with_every_linker() {
    for cc in ["gcc", "clang"] {
        assert!(have(cc), "{cc} is not installed");
        for linker in LINKERS {
            assert!(
                have(&format!("ld.{linker}")),
                "ld.{linker} is not installed"
            );
            let what = format!("staticdata {cc} {linker}");
            let (_tmp, dir) = fixture("staticdata");
            let out = build(&dir, &four_seeds_on(linker), &["make", &format!("CC={cc}")]);
            assert_success(&out, &what);
            // The summary's lines on the data order, pinned whole, the same for every compiler
            // and linker (the counts of objects and functions, theirs, written [n]).
            let stdout = String::from_utf8_lossy(&out.stdout);
            let data: Vec<&str> = stdout.lines().filter(|l| l.starts_with("data")).collect();
            insta::assert_snapshot!(
                "data_summary",
                crate::snapshot_support::redact(
                    &data.join("\n"),
                    &[
                        (
                            r"\d+ data objects, \d+(-\d+)? moved per seed \(\d+(\.\d+)? % on average\)",
                            "[n] data objects, [n] moved per seed ([n] % on average)"
                        ),
                        (r"up to \d+ of \d+ functions", "up to [n] of [n] functions"),
                    ]
                )
            );
            check_seeds(&dir.join("out"), &what, FIXTURE_OBJECTS.len());
        }
    }
}

/// Under LTO (`-O2 -flto`) with gcc and clang, on bfd and lld: the data sections the LTO
/// code generator makes are ordered per seed, and every seed passes the check. clang's
/// vector constants are read with SSE2 instructions the displacement check once did not
/// know (`pxor .LCPI(%rip)`), so every clang seed failed it. LTO drops two of the fixture's
/// objects (`crc_table` and `offsets`, folded into their only users).
#[test]
fn data_order_under_lto_on_gcc_and_clang() {
    for cc in ["gcc", "clang"] {
        for linker in ["bfd", "lld"] {
            let what = format!("staticdata {cc} -flto {linker}");
            let (_tmp, dir) = fixture("staticdata");
            let make = ["make", &format!("CC={cc}"), "CFLAGS=-O2 -flto"];
            let out = build(&dir, &four_seeds_on(linker), &make);
            assert_success(&out, &what);
            check_seeds(&dir.join("out"), &what, FIXTURE_OBJECTS.len() - 2);
        }
    }
}

/// `build`'s arguments: four seeds with `--data-order` on `linker`, into `out`.
fn four_seeds_on(linker: &str) -> [&str; 7] {
    [
        "--seeds",
        "4",
        "--data-order",
        "--linker",
        linker,
        "--out",
        "out",
    ]
}

/// The checks of [`data_order_on_gcc_and_clang_with_every_linker`] on one build, whose
/// baseline must hold at least `objects` of the fixture's data objects.
fn check_seeds(out: &Path, what: &str, objects: usize) {
    let m = Manifest::load(out).unwrap();
    assert!(m.data_order, "{what}");
    let base_path = path_of(out, &m, None);
    let expected = run(&base_path);
    let base = data_objects(&base_path);
    let mut orders = BTreeSet::from([fixture_order(&base_path)]);
    assert!(
        orders.first().unwrap().len() >= objects,
        "{what}: {orders:?}"
    );
    for v in &m.seeds {
        assert_eq!(v.status, BuildStatus::Ok, "{what}: {:?}", v.error);
        let path = path_of(out, &m, v.seed);
        assert_eq!(run(&path), expected, "{what} seed {:?}", v.seed);
        orders.insert(fixture_order(&path));
        let check = v
            .find("staticdata")
            .unwrap()
            .data
            .clone()
            .expect("the data check ran");
        let seed_objects = data_objects(&path);
        let moved = base
            .iter()
            .filter(|a| {
                seed_objects
                    .iter()
                    .any(|b| b.id == a.id && b.address != a.address)
            })
            .count();
        assert_eq!(check.moved, moved, "{what} seed {:?}", v.seed);
        assert_eq!(check.objects, base.len(), "{what} seed {:?}", v.seed);
        assert!(moved > 0, "{what} seed {:?}", v.seed);
    }
    assert_eq!(orders.len(), 5, "{what}: data orders {orders:#?}");
}

/// A seed's functions come in the same order, with the same sizes, whether or not its data
/// is ordered (the data order has a stream of its own, and its sections take the data's
/// places only). With bfd and gold, whose default layout puts the code before the data,
/// at the same addresses too; lld and mold put `.rodata` before `.text`, so there the code
/// starts where the permuted `.rodata` (whose alignment padding depends on its order)
/// ends: same order, addresses shifted.
#[test]
fn a_seeds_code_order_is_the_same_with_and_without_data_order() {
    for linker in LINKERS {
        let what = format!("staticdata gcc {linker}");
        let builds: Vec<(tempfile::TempDir, std::path::PathBuf, Manifest)> = [false, true]
            .into_iter()
            .map(|data| {
                let (tmp, dir) = fixture("staticdata");
                let mut args = vec!["--seeds", "3", "--linker", linker, "--out", "out"];
                if data {
                    args.push("--data-order");
                }
                assert_success(&build(&dir, &args, &["make", "CC=gcc"]), &what);
                let m = Manifest::load(&dir.join("out")).unwrap();
                (tmp, dir.join("out"), m)
            })
            .collect();
        let (plain, ordered) = (&builds[0], &builds[1]);
        for seed in [Some(1), Some(2), Some(3)] {
            let a = binary::functions(&path_of(&plain.1, &plain.2, seed)).unwrap();
            let b = binary::functions(&path_of(&ordered.1, &ordered.2, seed)).unwrap();
            let ids = |fs: &[Function]| {
                fs.iter()
                    .map(|f| (f.id.clone(), f.size))
                    .collect::<Vec<_>>()
            };
            assert_eq!(ids(&a), ids(&b), "{what} seed {seed:?}");
            if matches!(linker, "bfd" | "gold") {
                let at = |fs: &[Function]| fs.iter().map(|f| f.address).collect::<Vec<_>>();
                assert_eq!(at(&a), at(&b), "{what} seed {seed:?}");
            }
        }
    }
}

/// The data check on binaries compiled from sources that differ in one initialiser: it
/// fails naming the object; on the same program linked twice it passes with nothing moved.
#[test]
fn the_data_check_names_an_object_with_other_contents() {
    let tmp = tempfile::tempdir().unwrap();
    let compile = |name: &str, value: u32| {
        let src = tmp.path().join(format!("{name}.c"));
        std::fs::write(
            &src,
            format!(
                "static unsigned table[4] = {{1, 2, {value}, 4}};\n\
                 const char *names[] = {{\"one\", \"two\"}};\n\
                 int main(int c, char **v) {{ (void)v; return (int)table[c] + names[c][0]; }}\n"
            ),
        )
        .unwrap();
        let out = tmp.path().join(name);
        let status = std::process::Command::new("gcc")
            .args(["-O1", "-fdata-sections", "-o"])
            .arg(&out)
            .arg(&src)
            .status()
            .unwrap();
        assert!(status.success());
        same_data::Placed::read(&out).unwrap()
    };
    let base = compile("a", 3);
    let same = compile("b", 3);
    let other = compile("c", 7);
    let check = same_data::check(&base, &same).unwrap();
    assert_eq!(check.moved, 0);
    assert!(check.contents >= 2, "{check:?}");
    let err = format!("{:#}", same_data::check(&base, &other).unwrap_err());
    // The message, pinned whole, names the object with other contents.
    insta::assert_snapshot!(
        "other_data_objects",
        crate::snapshot_support::in_dir(&err, tmp.path())
    );
}

/// `--data-order` with `--rebuild` is refused before anything runs (exit 2); `--extend
/// --data-order` of a build made without it is refused, naming why.
#[test]
fn data_order_refusals() {
    let (_tmp, dir) = fixture("staticdata");
    let out = build(
        &dir,
        &["--seeds", "1", "--data-order", "--rebuild", "--out", "r"],
        &["make"],
    );
    assert_eq!(out.status.code(), Some(2));
    // Each refusal, pinned whole, says why.
    insta::assert_snapshot!(
        "with_rebuild",
        crate::snapshot_support::stderr_in(&out, &dir)
    );
    assert_success(
        &build(&dir, &["--seeds", "1", "--out", "p"], &["make"]),
        "plain",
    );
    let out = build(
        &dir,
        &["--extend", "--seeds", "2", "--data-order", "--out", "p"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(
        "extend_without",
        crate::snapshot_support::stderr_in(&out, &dir)
    );
}
