//! `layoutrand build` on programs in other languages than C and C++: a gfortran program (two
//! modules and a main program, through `make` and as one compile-and-link command) and a
//! cargo crate. Every seed prints what the baseline prints, holds the baseline's code (the
//! manifest's code check), the seeds' layouts are distinct, and a seed is byte-reproducible.

use crate::build_support;

use std::path::Path;

use build_support::{assert_success, build, build_three_seeds, check_binaries, fixture, have, run};
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

/// Builds seeds 40, 41, 42 into `out-a`, then (after `clean`) seed 41 alone into `out-b`
/// with `command` in `dir`, and asserts that both seeds 41 are the same file and seed 40
/// another.
fn assert_seed_reproducible(dir: &Path, program: &str, command: &[&str], clean: impl FnOnce()) {
    let a = build(
        dir,
        &["--seeds", "3", "--seed-base", "40", "--out", "out-a"],
        command,
    );
    assert_success(&a, &format!("{command:?}"));
    clean();
    let b = build(
        dir,
        &["--seeds", "1", "--seed-base", "41", "--out", "out-b"],
        command,
    );
    assert_success(&b, &format!("{command:?}, again"));
    let bytes = |out: &str, seed: &str| std::fs::read(dir.join(out).join(seed).join(program));
    assert!(
        bytes("out-a", "seed-41").unwrap() == bytes("out-b", "seed-41").unwrap(),
        "{command:?}: seed 41 differs between two builds"
    );
    assert!(bytes("out-a", "seed-40").unwrap() != bytes("out-a", "seed-41").unwrap());
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
            let out = build_three_seeds(&dir, granularity, linker, &["make"]);
            assert_success(&out, &what);
            let out_dir = dir.join("out");
            let m = check_binaries(&out_dir, "fortdemo", 3, &what);
            assert_eq!(m.linker, linker, "{what}");
            assert_same_code(&out_dir, &m, "fortdemo", &what);
            let achieved = m.programs[0].achieved.as_ref().expect("achieved");
            // main.f90's two functions (`main` in .text.startup, `MAIN__`) never trade
            // places: the two modules' do.
            assert_eq!(
                achieved.modules_with_function_order, 2,
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
    let out_a = dir.join("out-a");
    assert_seed_reproducible(&dir, "fortdemo", &command, || {});
    let m = check_binaries(&out_a, "fortdemo", 3, "gfortran command");
    assert_same_code(&out_a, &m, "fortdemo", "gfortran command");
    assert!(
        dir.join("vectors.mod").is_file(),
        "module file beside the sources"
    );
    let achieved = m.programs[0].achieved.as_ref().expect("achieved");
    assert_eq!(achieved.modules_with_function_order, 2, "{achieved:?}");
}

/// `cargo build --release` of the fixture crate (a library and a binary, no dependencies),
/// with the environment variables that would send cargo's output elsewhere removed.
const CARGO_BUILD: [&str; 10] = [
    "env",
    "-u",
    "CARGO_TARGET_DIR",
    "-u",
    "RUSTFLAGS",
    "-u",
    "CARGO_ENCODED_RUSTFLAGS",
    "cargo",
    "build",
    "--release",
];

/// A cargo crate: rustc links through `cc` (the shim records it; rustc's own objects already
/// have one section per function, so `module`/`global` need no recompilation), the program
/// is named after the crate's binary (not `rustdemo-<cargo's hash>`), the crate's rlib (an
/// ar archive with a non-object `lib.rmeta` member) is reordered, the standard library's
/// rlibs are used in place (as libc is), and every seed holds the baseline's code.
#[test]
fn cargo_crate_on_every_linker() {
    let cases = [
        ("lld", "module"),
        ("lld", "global"),
        ("bfd", "module"),
        ("gold", "global"),
        ("mold", "module"),
    ];
    for (linker, granularity) in cases {
        let what = format!("cargo {granularity} {linker}");
        let (_tmp, dir) = fixture("cargo");
        let out = build_three_seeds(
            &dir,
            granularity,
            linker,
            &[&CARGO_BUILD[..], &["--offline"]].concat(),
        );
        assert_success(&out, &what);
        let out_dir = dir.join("out");
        let m = check_binaries(&out_dir, "rustdemo", 3, &what);
        let names: Vec<&str> = m.programs.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["rustdemo"], "{what}: named without cargo's hash");
        assert_eq!(m.baseline.binaries[0].path, Path::new("baseline/rustdemo"));
        assert_same_code(&out_dir, &m, "rustdemo", &what);
        let achieved = m.programs[0].achieved.as_ref().expect("achieved");
        assert!(
            achieved.modules_with_function_order >= 2,
            "{what}: {achieved:?}"
        );
        assert_eq!(achieved.modules_one_section, 0, "{what}: {achieved:?}");
        // std's rlibs are linked in place: most of the binary's functions are not the
        // crate's, and the count says so (issue 53: "functions moved" overstated it).
        let placed = achieved.functions_placed.expect("functions placed");
        let all = m.baseline.binaries[0].functions;
        assert!(placed >= 3 && placed * 4 < all, "{what}: {placed} of {all}");
        // What cargo's own build prints (its `target/release/rustdemo`, the copy of the
        // `deps/rustdemo-<hash>` that rustc linked) is what every seed prints.
        let plain = run(&dir.join("target/release/rustdemo"));
        assert!(plain.starts_with("sum "), "{what}: {plain}");
        assert_eq!(run(&out_dir.join("seed-1/rustdemo")), plain, "{what}");
        // The crate's own functions move: their order differs between the seeds.
        let own_order = |seed: &str| -> Vec<String> {
            function_names(&out_dir.join(seed).join("rustdemo"))
                .into_iter()
                .filter(|n| n.contains("8rustdemo"))
                .collect()
        };
        let base = own_order("baseline");
        assert!(base.len() >= 7, "{what}: {base:?}");
        assert!(
            ["seed-1", "seed-2", "seed-3"]
                .iter()
                .any(|s| own_order(s) != base),
            "{what}: the crate's functions never moved"
        );
    }
}

/// The same seed of a cargo build, built twice from scratch (`target/` removed), is the same
/// file.
#[test]
fn cargo_seed_is_byte_reproducible() {
    let (_tmp, dir) = fixture("cargo");
    let command = [&CARGO_BUILD[..], &["--offline"]].concat();
    assert_seed_reproducible(&dir, "rustdemo", &command, || {
        std::fs::remove_dir_all(dir.join("target")).unwrap()
    });
}

/// A crate with a proc macro of its own (a path dependency, `fixtures/build/procmacro`):
/// rustc links the proc macro as a shared library that it loads itself, a tool of the build,
/// which is not relinked (a note names it) while the program is, and every seed prints what
/// cargo's build prints. Named with `--programs all`, the proc macro's relink fails (rustc
/// deleted the version script its link used) and the message says how to leave it out.
#[test]
fn cargo_proc_macro_is_a_tool_of_the_build() {
    let (_tmp, dir) = fixture("procmacro");
    let command = [&CARGO_BUILD[..], &["--offline"]].concat();
    let out = build(&dir, &["--seeds", "2", "--out", "out"], &command);
    assert_success(&out, "cargo with a proc macro");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let m = Manifest::load(&dir.join("out")).unwrap();
    let names: Vec<&str> = m.programs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["pmdemo"], "{stdout}");
    assert!(
        stdout.lines().any(|l| l.starts_with("note: libdescribe-")
            && l.contains(
                ".so is a tool the build runs (a Rust proc-macro library, loaded by rustc)"
            )),
        "{stdout}"
    );
    let plain = run(&dir.join("target/release/pmdemo"));
    assert!(plain.ends_with("Sample Kind\n"), "{plain}");
    for seed in ["seed-1", "seed-2"] {
        assert_eq!(run(&dir.join("out").join(seed).join("pmdemo")), plain);
    }

    std::fs::remove_dir_all(dir.join("target")).unwrap();
    let out = build(
        &dir,
        &["--seeds", "1", "--out", "out-all", "--programs", "all"],
        &command,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // The summary's error line, pinned whole: why the proc macro could not be relinked and
    // how to leave it out.
    let errors: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(|l| {
            // The library's hash (cargo's) and rustc's temporary directory are written by name.
            crate::snapshot_support::redact(
                &crate::snapshot_support::in_dir(l, &dir),
                &[
                    (r"libdescribe-[0-9a-f]+\.so", "libdescribe-[hash].so"),
                    (r"/rustc[A-Za-z0-9]+/", "/rustc[tmp]/"),
                ],
            )
        })
        .collect();
    insta::assert_snapshot!("proc_macro_relink_failed", errors.join("\n"));
}
