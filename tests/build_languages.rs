//! `layoutrand build` on programs in other languages than C and C++: a gfortran program (two
//! modules and a main program, through `make` and as one compile-and-link command) and a
//! cargo crate. Every seed prints what the baseline prints, holds the baseline's code (the
//! manifest's code check), the seeds' layouts are distinct, and a seed is byte-reproducible.

mod build_support;

use std::path::Path;

use build_support::{assert_success, build, check_binaries, fixture, have, run};
use layoutrand::files::manifest::Manifest;

const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

/// Every seed of `program` passed the code check with as many functions as the baseline.
fn assert_same_code(out_dir: &Path, m: &Manifest, program: &str, what: &str) {
    let base_path = m
        .baseline
        .binaries
        .iter()
        .find(|b| b.name == program)
        .map(|b| out_dir.join(&b.path))
        .unwrap();
    let base = layoutrand::layout::binary::functions(&base_path).unwrap();
    for v in &m.seeds {
        let b = v.binaries.iter().find(|b| b.name == program).unwrap();
        let code = b.code.as_ref().expect("every seed is code-checked");
        assert_eq!(code.functions, base.len(), "{what}: seed {:?}", v.seed);
    }
}

/// The names of the functions of `path` (symbol names, demangling aside).
fn function_names(path: &Path) -> Vec<String> {
    layoutrand::layout::binary::functions(path)
        .unwrap()
        .into_iter()
        .map(|f| f.name)
        .collect()
}

/// The `DT_NEEDED` libraries of an ELF file (from `readelf -d`).
fn needed(path: &Path) -> Vec<String> {
    let out = std::process::Command::new("readelf")
        .arg("-d")
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "readelf -d {}", path.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split_once('[')?.1.trim_end_matches(']').to_string()))
        .collect()
}

/// gfortran through `make`, on every linker gfortran can use with `-fuse-ld`: the shim adds
/// `-ffunction-sections` to the Fortran compiles (so functions move within each module, not
/// only the objects) and the relinks go through gfortran's driver, which links libgfortran.
#[test]
fn gfortran_make_on_every_linker() {
    assert!(
        have("gfortran"),
        "gfortran is not installed (scripts/setup.sh)"
    );
    for linker in LINKERS {
        for granularity in ["module", "global"] {
            let what = format!("fortran {granularity} {linker}");
            let (_tmp, dir) = fixture("fortran");
            let out = build(
                &dir,
                &[
                    "--seeds",
                    "3",
                    "--granularity",
                    granularity,
                    "--linker",
                    linker,
                    "--out",
                    "out",
                ],
                &["make"],
            );
            assert_success(&out, &what);
            let out_dir = dir.join("out");
            let m = check_binaries(&out_dir, "fortdemo", 3, &what);
            assert_eq!(m.linker, linker, "{what}");
            assert_same_code(&out_dir, &m, "fortdemo", &what);
            let achieved = m.programs[0].achieved.as_ref().expect("achieved");
            assert_eq!(
                achieved.modules_with_function_order, 3,
                "{what}: {achieved:?}"
            );
            // The relinked seed is gfortran's program: the module procedures are there and
            // gfortran's driver linked its runtime.
            let seed = out_dir.join("seed-1/fortdemo");
            let names = function_names(&seed);
            assert!(
                names.iter().any(|n| n == "__vectors_MOD_axpy"),
                "{what}: {names:?}"
            );
            assert!(
                needed(&seed)
                    .iter()
                    .any(|l| l.starts_with("libgfortran.so")),
                "{what}: {:?}",
                needed(&seed)
            );
            assert_eq!(
                run(&out_dir.join("seed-1/fortdemo")),
                run(&dir.join("fortdemo")),
                "{what}: the seed prints what the plain build prints"
            );
        }
    }
}

/// One `gfortran a.f90 b.f90 c.f90 -o p` command: the shim compiles the sources one by one
/// (module files where gfortran puts them) and records the link; the same seed built twice
/// from scratch is the same file.
#[test]
fn gfortran_compile_and_link_command_is_split_and_reproducible() {
    let command = [
        "gfortran",
        "-O2",
        "vectors.f90",
        "stats.f90",
        "main.f90",
        "-o",
        "fortdemo",
    ];
    let (_tmp, dir) = fixture("fortran");
    let a = build(
        &dir,
        &["--seeds", "3", "--seed-base", "40", "--out", "out-a"],
        &command,
    );
    assert_success(&a, "gfortran command");
    let m = check_binaries(&dir.join("out-a"), "fortdemo", 3, "gfortran command");
    assert_same_code(&dir.join("out-a"), &m, "fortdemo", "gfortran command");
    assert!(
        dir.join("vectors.mod").is_file(),
        "module file beside the sources"
    );
    let achieved = m.programs[0].achieved.as_ref().expect("achieved");
    assert_eq!(achieved.modules_with_function_order, 3, "{achieved:?}");
    let b = build(
        &dir,
        &["--seeds", "1", "--seed-base", "41", "--out", "out-b"],
        &command,
    );
    assert_success(&b, "gfortran command, again");
    let bytes = |out: &str, seed: &str| std::fs::read(dir.join(out).join(seed).join("fortdemo"));
    assert!(
        bytes("out-a", "seed-41").unwrap() == bytes("out-b", "seed-41").unwrap(),
        "seed 41 differs between two builds"
    );
}
