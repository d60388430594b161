//! `layoutrand build` on bad input: a failing build command, a relink that fails for one
//! seed only, builds that link nothing, and a CMake tree that bypasses the shim.

use crate::build_support;

use crate::snapshot_support::{in_dir, redact, stderr_in, stdout_in};

/// The linker's path as the linker writes it (`/usr/bin/ld.bfd: …`), written `[ld]`: where
/// binutils is installed is the machine's.
fn without_linker_path(text: &str) -> String {
    redact(text, &[(r"(/[\w.+-]+)+/ld(\.\w+)?:", "[ld]:")])
}
use build_support::{assert_success, build, fixture, run};
use layoutrand::files::manifest::{BuildStatus, Manifest};

#[test]
fn a_failing_build_reports_its_status_and_output_tail_and_writes_no_manifest() {
    let (_tmp, dir) = fixture("multimodule");
    // A first, good build leaves a manifest that must not survive a failed one.
    assert_success(
        &build(&dir, &["--seeds", "1", "--out", "out"], &["make"]),
        "good build",
    );
    assert!(dir.join("out/manifest.json").exists());
    let script = "echo compiling step one; echo 'fatal: the compiler broke' >&2; exit 3";
    let out = build(
        &dir,
        &["--seeds", "2", "--out", "out"],
        &["sh", "-c", script],
    );
    assert_eq!(out.status.code(), Some(2));
    // The message, pinned whole, gives the exit status and the tail of both outputs.
    insta::assert_snapshot!(stderr_in(&out, &dir));
    assert!(
        !dir.join("out/manifest.json").exists(),
        "a stale manifest was left"
    );
    assert!(
        !dir.join("out/baseline").exists(),
        "stale binaries were left"
    );
}

#[test]
fn a_relink_failing_for_one_seed_marks_that_seed_failed_and_the_others_complete() {
    let (_tmp, dir) = fixture("archive");
    // After the real build, block seed 2's output path with a directory: the linker cannot
    // write its output there and says so; the other seeds are unaffected.
    let script = "make && mkdir -p out/seed-2/calc/blocker";
    let out = build(
        &dir,
        &["--seeds", "3", "--out", "out"],
        &["sh", "-c", script],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The summary, pinned whole (times written [t]), counts the failed seed and gives its
    // error.
    insta::assert_snapshot!(
        "relink_failed_stdout",
        without_linker_path(&crate::summary::without_times(&stdout_in(&out, &dir)))
    );
    let m = Manifest::load(&dir.join("out")).unwrap();
    let failed: Vec<_> = m
        .seeds
        .iter()
        .filter(|v| v.status == BuildStatus::Failed)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].seed, Some(2));
    let error = failed[0].error.as_deref().unwrap();
    // The error, pinned whole, carries the linker's own message.
    insta::assert_snapshot!(
        "relink_failed_error",
        without_linker_path(&in_dir(error, &dir))
    );
    assert!(failed[0].binaries.is_empty());
    let expected = run(&dir.join("out/baseline/calc"));
    for v in m.seeds.iter().filter(|v| v.status == BuildStatus::Ok) {
        assert_eq!(run(&dir.join("out").join(&v.binaries[0].path)), expected);
    }
    assert!(
        !dir.join("out/seed-2").exists(),
        "the failed seed's files were left behind"
    );
}

#[test]
fn a_corrupt_recorded_object_fails_the_baseline_with_the_reason() {
    let (_tmp, dir) = fixture("multimodule");
    // Corrupt every recorded object right after the build (the record lives in out/.record).
    let script = "make && for f in out/.record/blobs/*.o; do printf 'garbage' > \"$f\"; done";
    let out = build(
        &dir,
        &["--seeds", "2", "--out", "out"],
        &["sh", "-c", script],
    );
    assert_eq!(out.status.code(), Some(2));
    // The merge step reads each module's sections before any linker runs: the message,
    // pinned whole, names the baseline and the object that is not ELF (its name, the hash
    // of the compiler's output, written [hash]).
    insta::assert_snapshot!(redact(
        &stderr_in(&out, &dir),
        &[(r"blobs/[0-9a-f]{64}\.o", "blobs/[hash].o")]
    ));
    assert!(!dir.join("out/manifest.json").exists());
}

#[test]
fn a_build_that_only_archives_says_so() {
    let (_tmp, dir) = fixture("archive");
    let out = build(
        &dir,
        &["--seeds", "2", "--out", "out"],
        &["make", "libcalc.a"],
    );
    assert_eq!(out.status.code(), Some(2));
    // The message, pinned whole, counts the calls seen (6 compiles, 1 ar) and names the
    // static library.
    insta::assert_snapshot!(stderr_in(&out, &dir));
}

#[test]
fn an_up_to_date_build_says_nothing_was_seen() {
    let (_tmp, dir) = fixture("multimodule");
    assert!(std::process::Command::new("make")
        .current_dir(&dir)
        .output()
        .unwrap()
        .status
        .success());
    let out = build(&dir, &["--seeds", "2", "--out", "out"], &["make"]);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(stderr_in(&out, &dir));
}

/// An up-to-date tree whose Makefile links a feature probe on every run (as zstd's does):
/// the shim sees a link but no compile, and the message says the tree was already built.
#[test]
fn an_up_to_date_build_that_still_links_probes_says_it_compiled_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("probe.c"), "int main(void) { return 0; }\n").unwrap();
    let compiled = std::process::Command::new("cc")
        .current_dir(dir)
        .args(["-c", "probe.c", "-o", "probe.o"])
        .status()
        .unwrap();
    assert!(compiled.success());
    std::fs::write(
        dir.join("Makefile"),
        "all:\n\tcc probe.o -o have_probe && rm -f have_probe\n",
    )
    .unwrap();
    let out = build(dir, &["--seeds", "2", "--out", "out"], &["make"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    insta::assert_snapshot!(stderr_in(&out, dir));
}

#[test]
fn a_cmake_tree_with_absolute_compiler_paths_gets_the_launcher_hint() {
    let (_tmp, dir) = fixture("multimodule");
    std::fs::write(
        dir.join("CMakeCache.txt"),
        "CMAKE_C_COMPILER:FILEPATH=/usr/bin/cc\nCMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++\n",
    )
    .unwrap();
    // The build calls the compiler by absolute path, as CMake's makefiles do.
    let script = "/usr/bin/cc -O2 -c main.c -o main.o";
    let out = build(
        &dir,
        &["--seeds", "2", "--out", "out"],
        &["sh", "-c", script],
    );
    assert_eq!(out.status.code(), Some(2));
    // The message, pinned whole, names the compiler called by path and the launcher setting.
    insta::assert_snapshot!(stderr_in(&out, &dir));
}

/// A CMake tree configured with the launcher (list form for C, by name for C++) that has
/// nothing left to build: the hint says so instead of asking for the launcher again, and a
/// tree with it for C only asks for it for C++.
#[test]
fn a_cmake_tree_with_the_launcher_and_nothing_to_build_is_told_to_clean() {
    let (_tmp, dir) = fixture("multimodule");
    let cache = |cxx_launcher: &str| {
        format!(
            "CMAKE_C_COMPILER:FILEPATH=/usr/bin/cc\n\
             CMAKE_C_COMPILER_LAUNCHER:UNINITIALIZED=/opt/bin/layoutrand;launch\n\
             CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++\n{cxx_launcher}"
        )
    };
    let nothing_to_do = |cache: String| {
        std::fs::write(dir.join("CMakeCache.txt"), cache).unwrap();
        let out = build(&dir, &["--seeds", "2", "--out", "out"], &["true"]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        stderr_in(&out, &dir)
    };
    let launched = nothing_to_do(cache(
        "CMAKE_CXX_COMPILER_LAUNCHER:STRING=/usr/local/bin/layoutrand-launch\n",
    ));
    insta::assert_snapshot!("cmake_launched_nothing_to_do", launched);
    // Compiles seen through the launcher, but no link: the cache is not the cause, no hint.
    std::fs::write(
        dir.join("CMakeCache.txt"),
        cache("CMAKE_CXX_COMPILER_LAUNCHER:STRING=layoutrand-launch\n"),
    )
    .unwrap();
    let compiled = build(
        &dir,
        &["--seeds", "2", "--out", "out"],
        &["sh", "-c", "cc -c main.c -o main.o"],
    );
    assert_eq!(compiled.status.code(), Some(2), "{compiled:?}");
    insta::assert_snapshot!(
        "cmake_launched_compiled_no_link",
        stderr_in(&compiled, &dir)
    );
    let half = nothing_to_do(cache("CMAKE_CXX_COMPILER_LAUNCHER:STRING=ccache\n"));
    insta::assert_snapshot!("cmake_launched_for_c_only", half);
}

#[test]
fn bad_options_are_refused() {
    let (_tmp, dir) = fixture("multimodule");
    let out = build(&dir, &["--seeds", "2", "--granularity", "wild"], &["make"]);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!("bad_granularity", stderr_in(&out, &dir));
    let out = build(&dir, &["--seeds", "2", "--jobs", "0"], &["make"]);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!("bad_jobs", stderr_in(&out, &dir));
}
