//! A real CMake program through the launcher, with a one-function program among its targets:
//! the Debian source package of libjpeg-turbo (upstream, without Debian's patches), configured
//! as a new user would (Release, static libraries only, no SIMD: no nasm, and the cheapest
//! build), once without and once with layoutrand's launcher.
//!
//! Its targets are `cjpeg-static`, `djpeg-static`, `jpegtran-static` (each ~60 modules: its
//! own objects and the members of `libjpeg.a`), `md5cmp` (three modules; the test suite's
//! checker), `rdjpgcom` and `wrjpgcom` (one module each) and `strtest`, whose only function is
//! `main`: nothing to move.
//!
//! Without the launcher CMake calls `/usr/bin/cc` by its absolute path, past the PATH shim:
//! the objects come without one section per function (the link is still recorded, through
//! the `ld` that gcc's collect2 finds on PATH). `build` with the default `module`
//! granularity must stop with an error naming those objects and the fixes, not shuffle link
//! order only under a summary saying "module"; `--granularity link` accepts them.
//!
//! With the launcher: exit 0; strtest is left out with a note and keeps its baseline (and
//! `run` skips it unless named); every other program has all its seeds, each holding the
//! baseline's code (the manifest's check, and here independently every function symbol's
//! size) in a layout distinct from the baseline's and the other seeds'; every binary passes
//! libjpeg-turbo's own test suite (`ctest`: 115 encodes, decodes and transforms of the
//! shipped test images, each output compared with the MD5 sum CMakeLists.txt gives) with the
//! seed's binaries in place of the built ones, and wrjpgcom/rdjpgcom write and read back a
//! comment byte for byte as the baseline does; and the baseline's layout equals the plain
//! build's (the build without any layoutrand, and the recorded build's own binaries).
//!
//! Needs the Debian archive and cmake (scripts/setup.sh): ignored by default, failing when
//! either is missing; .ci/run runs it. About a minute on a 2-core machine.

use crate::build_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use build_support::{assert_success, build, fetch_debian_source, layout_distance, run_in};
use layoutrand::files::manifest::{
    BinarySet, BuildStatus, Exclusion, Granularity, LeftOut, Manifest, Mechanism,
};
use layoutrand::files::store::read_results;
use layoutrand::layout::same_code::COMPARED;

/// The programs of the build: manifest name and path in the CMake build directory.
const PROGRAMS: [(&str, &str); 7] = [
    ("cjpeg-static", "cjpeg-static"),
    ("djpeg-static", "djpeg-static"),
    ("jpegtran-static", "jpegtran-static"),
    ("md5cmp", "md5/md5cmp"),
    ("rdjpgcom", "rdjpgcom"),
    ("wrjpgcom", "wrjpgcom"),
    ("strtest", "strtest"),
];

/// The one-function program.
const ONLY_MAIN: &str = "strtest";

/// What `ctest` runs: the programs it calls, each with its path in the build directory.
const TESTED_BY_CTEST: [&str; 4] = ["cjpeg-static", "djpeg-static", "jpegtran-static", "md5cmp"];

/// `cmake` for a static, SIMD-less Release build of `src` in the new directory `dir`;
/// `launcher`: the `layoutrand launch` list form for the compiler and linker launchers
/// (docs/build.md, "CMake and other absolute compiler paths").
fn configure(src: &Path, dir: &Path, launcher: Option<&Path>) {
    std::fs::create_dir_all(dir).unwrap();
    let mut argv: Vec<String> = [
        "cmake",
        "-G",
        "Unix Makefiles",
        "-DCMAKE_BUILD_TYPE=Release",
        "-DENABLE_SHARED=0",
        "-DWITH_SIMD=0",
        "-DWITH_TURBOJPEG=0",
    ]
    .map(String::from)
    .to_vec();
    if let Some(layoutrand) = launcher {
        for what in ["C_COMPILER", "C_LINKER"] {
            argv.push(format!(
                "-DCMAKE_{what}_LAUNCHER={};launch",
                layoutrand.display()
            ));
        }
    }
    argv.push(src.display().to_string());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    run_in(dir, &argv);
}

/// The path of a program in the CMake build directory `dir`.
fn in_tree(dir: &Path, name: &str) -> PathBuf {
    let (_, path) = PROGRAMS.iter().find(|(n, _)| *n == name).unwrap();
    dir.join(path)
}

/// Every defined function symbol of an ELF file with its size, as a sorted list per name (a
/// name may be defined by several files' static functions): the code a layout must keep.
/// Read with the `object` crate directly, independently of layoutrand's own reader.
fn function_sizes(path: &Path) -> BTreeMap<String, Vec<u64>> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let data = std::fs::read(path).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let mut sizes: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for s in file.symbols() {
        if s.kind() == SymbolKind::Text && s.is_definition() {
            sizes
                .entry(s.name().unwrap().to_string())
                .or_default()
                .push(s.size());
        }
    }
    for v in sizes.values_mut() {
        v.sort_unstable();
    }
    sizes
}

/// libjpeg-turbo's own test suite in the build directory `dir` (it runs the programs there).
fn ctest(dir: &Path, what: &str) {
    let log = run_in(dir, &["ctest", "-j2", "--output-on-failure"]);
    assert!(
        log.contains("100% tests passed, 0 tests failed out of"),
        "{what}: ctest:\n{log}"
    );
}

/// wrjpgcom adds a comment to a shipped image, rdjpgcom reads it back: the two outputs.
fn comment_round_trip(set: &Path, src: &Path, scratch: &Path) -> (Vec<u8>, String) {
    let image = src.join("testimages/testorig.jpg");
    let out = std::process::Command::new(set.join("wrjpgcom"))
        .args(["-comment", "randomised layout"])
        .arg(&image)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}: wrjpgcom: {out:?}", set.display());
    let with_comment = scratch.join("comment.jpg");
    std::fs::write(&with_comment, &out.stdout).unwrap();
    let read = run_in(
        scratch,
        &[
            set.join("rdjpgcom").to_str().unwrap(),
            with_comment.to_str().unwrap(),
        ],
    );
    assert!(read.contains("randomised layout"), "{read}");
    (out.stdout, read)
}

fn binary<'a>(set: &'a BinarySet, name: &str) -> &'a layoutrand::files::manifest::Binary {
    set.find(name)
        .unwrap_or_else(|| panic!("{}: no {name}", set.label()))
}

#[test]
#[ignore = "needs the Debian archive (network) and cmake; run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn libjpeg_turbo_with_cmake_through_the_launcher_every_seed_passes_ctest() {
    assert!(
        build_support::have("cmake"),
        "cmake is not installed (scripts/setup.sh installs it)"
    );
    let tmp = tempfile::tempdir().unwrap();
    let src = fetch_debian_source("libjpeg-turbo", &tmp.path().join("fetch"), true);
    let layoutrand = assert_cmd::cargo::cargo_bin("layoutrand");

    // 1. Configured without the launcher and built plainly (no layoutrand at all): the
    // reference layouts. Then relinked under `build` (the programs removed, the objects left
    // from the plain build, as after CMake without the launcher): refused under `module`,
    // accepted under `link`.
    let plain = tmp.path().join("plain");
    configure(&src, &plain, None);
    run_in(&plain, &["make", "-j2"]);
    let reference = tmp.path().join("reference");
    std::fs::create_dir_all(&reference).unwrap();
    let remove_programs = || {
        for (name, _) in PROGRAMS {
            std::fs::remove_file(in_tree(&plain, name)).unwrap();
        }
    };
    for (name, _) in PROGRAMS {
        std::fs::copy(in_tree(&plain, name), reference.join(name)).unwrap();
    }
    remove_programs();
    let refused_out = tmp.path().join("out-refused");
    let o = build(
        &plain,
        &["--seeds", "3", "--out", refused_out.to_str().unwrap()],
        &["make", "-j2"],
    );
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    // The message, pinned whole, names the objects without one section per function and
    // the fixes (`make clean`, the CMake launcher, `--granularity link`).
    insta::assert_snapshot!(
        "refused_without_launcher",
        crate::snapshot_support::stderr_in(&o, tmp.path())
    );
    assert!(
        !refused_out.join("seed-1").exists(),
        "a refused build relinked seeds"
    );
    remove_programs();
    let link_out = tmp.path().join("out-link");
    let o = build(
        &plain,
        &[
            "--seeds",
            "3",
            "--granularity",
            "link",
            "--out",
            link_out.to_str().unwrap(),
        ],
        &["make", "-j2"],
    );
    assert_success(
        &o,
        "build --granularity link of the tree built without the launcher",
    );
    let m = Manifest::load(&link_out).unwrap();
    assert_eq!(m.granularity, Granularity::Link);
    assert!(m.seeds.iter().all(|v| v.status == BuildStatus::Ok));
    let cjpeg = m
        .programs
        .iter()
        .find(|p| p.name == "cjpeg-static")
        .unwrap();
    let achieved = cjpeg.achieved.as_ref().unwrap();
    assert!(
        achieved.modules_with_function_order == 0 && achieved.modules_one_section > 0,
        "functions not moved: {achieved:?}"
    );
    // Under `link` a program of one object has nothing to move.
    assert_eq!(
        m.excluded_programs(),
        ["rdjpgcom", "strtest", "wrjpgcom"],
        "{:?}",
        m.programs
    );
    let rdjpgcom = m.programs.iter().find(|p| p.name == "rdjpgcom").unwrap();
    // The reason: its every seed has the baseline's layout (one object under `link`), through
    // the link-order mechanism.
    assert!(
        matches!(
            rdjpgcom.excluded,
            Some(Exclusion::Known(LeftOut::NothingToMove {
                built: 3,
                seeds: 3
            }))
        ),
        "{rdjpgcom:?}"
    );
    let relinked = rdjpgcom.relinking.map(|r| r.mechanism);
    assert_eq!(relinked, Some(Mechanism::MergedLink));

    // 2. Configured with the launcher in a fresh directory and built under `build`.
    let tree = tmp.path().join("launcher");
    configure(&src, &tree, Some(&layoutrand));
    let out_dir = tmp.path().join("out");
    let o = build(
        &tree,
        &["--seeds", "3", "--out", out_dir.to_str().unwrap()],
        &["make", "-j2"],
    );
    assert_success(
        &o,
        "layoutrand build of the CMake build through the launcher",
    );
    // The summary's note on strtest, pinned whole.
    let stdout = crate::snapshot_support::stdout_in(&o, tmp.path());
    let note: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("note: program strtest "))
        .collect();
    insta::assert_snapshot!("strtest_left_out", note.join("\n"));
    let m = Manifest::load(&out_dir).unwrap();
    assert_eq!(m.granularity, Granularity::Module);
    assert_eq!(m.seeds.len(), 3);
    assert_eq!(m.excluded_programs(), [ONLY_MAIN], "{:?}", m.programs);
    // The baseline (every program) has the plain build's layout, and the recorded build's.
    for (name, _) in PROGRAMS {
        let base = out_dir.join(&binary(&m.baseline, name).path);
        for other in [reference.join(name), in_tree(&tree, name)] {
            let d = layout_distance(&other, &base);
            assert_eq!(d["base_fingerprint"], d["other_fingerprint"], "{name}: {d}");
            assert_eq!(d["only_in_base"], 0, "{name}: {d}");
            assert_eq!(d["only_in_other"], 0, "{name}: {d}");
            assert_eq!(d["distance"]["kendall_tau"], 0.0, "{name}: {d}");
        }
    }

    // The one-function program: its baseline kept and working, in no seed.
    let only_main = run_in(
        &out_dir,
        &[out_dir
            .join(&binary(&m.baseline, ONLY_MAIN).path)
            .to_str()
            .unwrap()],
    );
    assert!(only_main.contains("SUCCESS"), "{only_main}");
    for v in &m.seeds {
        assert!(v.find(ONLY_MAIN).is_none(), "{}", v.label());
        assert!(!out_dir.join(v.label()).join(ONLY_MAIN).exists());
    }

    // Every other program: all seeds, the baseline's code, distinct layouts, the checks.
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let expected_comment = comment_round_trip(&out_dir.join("baseline"), &src, &scratch);
    let mut layouts: BTreeMap<&str, std::collections::BTreeSet<String>> = BTreeMap::new();
    for set in m.binary_sets() {
        let what = set.label();
        assert_eq!(set.status, BuildStatus::Ok, "{what}: {:?}", set.error);
        for (name, _) in PROGRAMS.iter().filter(|(n, _)| *n != ONLY_MAIN) {
            let b = binary(set, name);
            let base = binary(&m.baseline, name);
            layouts
                .entry(name)
                .or_default()
                .insert(b.fingerprint.clone());
            if set.seed.is_some() {
                let code = b
                    .code
                    .as_ref()
                    .unwrap_or_else(|| panic!("{what} {name}: no code check"));
                assert_eq!(code.functions, base.functions, "{what} {name}");
                assert_eq!(code.compared, COMPARED, "{what} {name}");
                assert_eq!(
                    function_sizes(&out_dir.join(&b.path)),
                    function_sizes(&out_dir.join(&base.path)),
                    "{what} {name}: not the baseline's functions and sizes"
                );
            }
        }
        // ctest runs the programs in the build directory: this binary set's in their place.
        for name in TESTED_BY_CTEST {
            std::fs::copy(out_dir.join(&binary(set, name).path), in_tree(&tree, name)).unwrap();
        }
        ctest(&tree, &what);
        assert_eq!(
            comment_round_trip(&out_dir.join(&what), &src, &scratch),
            expected_comment,
            "{what}: wrjpgcom/rdjpgcom"
        );
    }
    for (name, fingerprints) in &layouts {
        assert_eq!(
            fingerprints.len(),
            4,
            "{name}: baseline and 3 seeds should have 4 distinct layouts"
        );
    }

    // `run` leaves the one-function program out unless it is named.
    // `failed_everywhere`: the programs expected to fail on every execution (named
    // on stderr with their output; exit 5 then, docs/run.md "Exit codes").
    let run = |args: &[&str], failed_everywhere: &[&str]| {
        let o = assert_cmd::Command::cargo_bin("layoutrand")
            .unwrap()
            .current_dir(&scratch)
            .args(["run", "--out", out_dir.to_str().unwrap()])
            .args([
                "--executions",
                "1",
                "--env-pad",
                "0",
                "--schedule-seed",
                "1",
            ])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        if failed_everywhere.is_empty() {
            assert_success(&o, "layoutrand run");
        } else {
            assert_eq!(o.status.code(), Some(5), "layoutrand run: {stderr}");
            for program in failed_everywhere {
                assert!(
                    stderr.contains(&format!("error: {program}: all ")),
                    "{program} should be named as failing everywhere: {stderr}"
                );
            }
        }
        let r = read_results(&out_dir).unwrap();
        std::fs::remove_file(out_dir.join("results.jsonl")).unwrap();
        r.executions
            .iter()
            .map(|e| (e.program.clone(), e.binary.clone()))
            .collect::<std::collections::BTreeSet<_>>()
    };
    // Three of the six programs take no -version (they print their usage and fail): the run
    // still measures all six, and says which never ran.
    let ran = run(
        &["--", "{bin}", "-version"],
        &["wrjpgcom", "rdjpgcom", "md5cmp"],
    );
    // Six programs, each as baseline, as built and 3 seeds.
    assert_eq!(ran.len(), 6 * 5, "{ran:?}");
    assert!(ran.iter().all(|(p, _)| p != ONLY_MAIN), "{ran:?}");
    let ran = run(&["--programs", ONLY_MAIN, "--", "{bin}"], &[]);
    assert_eq!(
        ran,
        [
            (ONLY_MAIN.to_string(), "as-built".to_string()),
            (ONLY_MAIN.to_string(), "baseline".to_string())
        ]
        .into(),
        "{ran:?}"
    );
}
