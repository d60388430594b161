//! Helpers shared by the `build_*` integration tests: copies of the fixture programs, running
//! the real `layoutrand` binary, reading the manifest it wrote.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use layoutrand::files::manifest::{BuildStatus, Manifest};

/// A fresh copy of `fixtures/build/<name>` in a temporary directory (the build writes into
/// its source tree, and tests run in parallel).
pub fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    copy_of(&format!("build/{name}"))
}

/// A fresh copy of `fixtures/<name>` (a top-level fixture such as the demo) in a temporary
/// directory (the build writes into its source tree).
pub fn top_fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    copy_of(name)
}

/// A fresh copy of `fixtures/<rel>` in a temporary directory, named as its last component.
fn copy_of(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel);
    let dst = tmp.path().join(src.file_name().unwrap());
    copy_dir(&src, &dst);
    (tmp, dst)
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// `layoutrand build -q ARGS -- COMMAND...` run in `dir`.
pub fn build(dir: &Path, args: &[&str], command: &[&str]) -> Output {
    let mut cmd = assert_cmd::Command::cargo_bin("layoutrand").unwrap();
    cmd.current_dir(dir)
        .arg("build")
        .arg("-q")
        .args(args)
        .arg("--")
        .args(command);
    cmd.output().unwrap()
}

/// A fresh copy of `fixtures/<name>` built with `layoutrand build -q ARGS -- COMMAND...`,
/// which must succeed: the opening of most tests that run a fixture.
pub fn built_fixture(name: &str, args: &[&str], command: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = top_fixture(name);
    assert_success(&build(&dir, args, command), &format!("build of {name}"));
    (tmp, dir)
}

/// `layoutrand build -q --seeds 3 --granularity G --linker L --out out -- COMMAND...` in `dir`.
pub fn build_three_seeds(dir: &Path, granularity: &str, linker: &str, command: &[&str]) -> Output {
    build(
        dir,
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
        command,
    )
}

/// Panics with the command's output unless it succeeded.
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs a built binary and returns its standard output (it must exit 0).
pub fn run(binary: &Path) -> String {
    let out = std::process::Command::new(binary).output().unwrap();
    assert!(
        out.status.success(),
        "{} exited {}",
        binary.display(),
        out.status
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Checks a finished build of one program: every seed built, every binary prints what the
/// baseline prints, the seeds' layouts are pairwise distinct and differ from the baseline's.
pub fn check_binaries(out_dir: &Path, program: &str, seeds: usize, what: &str) -> Manifest {
    let m = Manifest::load(out_dir).unwrap();
    assert_eq!(m.seeds.len(), seeds, "{what}");
    let base = m
        .baseline
        .binaries
        .iter()
        .find(|b| b.name == program)
        .unwrap_or_else(|| panic!("{what}: no baseline binary {program}"));
    let expected = run(&out_dir.join(&base.path));
    assert!(!expected.is_empty(), "{what}: the baseline printed nothing");
    let mut fingerprints = std::collections::BTreeSet::new();
    for v in &m.seeds {
        assert_eq!(
            v.status,
            BuildStatus::Ok,
            "{what}: seed {:?}: {:?}",
            v.seed,
            v.error
        );
        let b = v.binaries.iter().find(|b| b.name == program).unwrap();
        assert_eq!(
            run(&out_dir.join(&b.path)),
            expected,
            "{what}: seed {:?}",
            v.seed
        );
        assert_ne!(b.fingerprint, base.fingerprint, "{what}: seed {:?}", v.seed);
        let d = b.distance.expect("a seed has a distance to the baseline");
        assert!(
            d.kendall_tau > 0.0,
            "{what}: seed {:?} kendall {}",
            v.seed,
            d.kendall_tau
        );
        fingerprints.insert(b.fingerprint.clone());
    }
    assert_eq!(
        fingerprints.len(),
        seeds,
        "{what}: seeds with equal layouts"
    );
    m
}

/// Runs `argv` in `dir` and returns its standard output; panics with its output when it
/// fails (the real-program tests' configure, make and test-suite steps).
pub fn run_in(dir: &Path, argv: &[&str]) -> String {
    let out = std::process::Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert!(
        out.status.success(),
        "{argv:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `layoutrand layout --format json BASE OTHER`: the two binaries' fingerprints, the
/// functions only in one of them and the distance between their orders.
pub fn layout_distance(base: &Path, other: &Path) -> serde_json::Value {
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(["layout", "--format", "json"])
        .arg(base)
        .arg(other)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Asserts that the LTO code of the build in `out_dir` is the recorded link's own: every
/// link record kept the objects its LTO code generation produced (src/wrap/lto_keep.rs) and
/// no code was generated again (no `.record/lto/*.o`, the fallback of
/// src/relink/lto_once.rs), nor left behind in `.record/lto-temps`.
pub fn assert_lto_code_kept(out_dir: &Path, what: &str) {
    let records = layoutrand::wrap::record::read_records(&out_dir.join(".record")).unwrap();
    assert!(!records.is_empty(), "{what}: no link recorded");
    for r in &records {
        assert!(
            !r.lto_objects.is_empty(),
            "{what}: the LTO objects of {} were not kept",
            r.output.display()
        );
    }
    let regenerated: Vec<_> = std::fs::read_dir(out_dir.join(".record/lto"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    assert!(
        regenerated.is_empty(),
        "{what}: code generated again: {regenerated:?}"
    );
    let temps: Vec<_> = std::fs::read_dir(out_dir.join(".record/lto-temps"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    assert!(temps.is_empty(), "{what}: temporaries left: {temps:?}");
}

/// The functions of an ELF binary as (name, size), sorted, from its symbol table: what a
/// plain build and a baseline are compared by.
pub fn function_sizes(path: &Path) -> std::collections::BTreeMap<String, Vec<u64>> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let data = std::fs::read(path).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let mut out: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    for s in file.symbols() {
        if s.kind() == SymbolKind::Text && s.size() > 0 {
            out.entry(s.name().unwrap().to_string())
                .or_default()
                .push(s.size());
        }
    }
    for sizes in out.values_mut() {
        sizes.sort();
    }
    out
}

/// What differs between two function lists, in words (empty: nothing).
pub fn function_list_differences(
    a_name: &str,
    a: &std::collections::BTreeMap<String, Vec<u64>>,
    b_name: &str,
    b: &std::collections::BTreeMap<String, Vec<u64>>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, sizes) in a {
        match b.get(name) {
            None => out.push(format!("{name} only in {a_name} ({sizes:?} bytes)")),
            Some(other) if other != sizes => out.push(format!(
                "{name}: {sizes:?} bytes in {a_name}, {other:?} in {b_name}"
            )),
            _ => {}
        }
    }
    for (name, sizes) in b {
        if !a.contains_key(name) {
            out.push(format!("{name} only in {b_name} ({sizes:?} bytes)"));
        }
    }
    out
}

/// Whether a linker program is installed (CI installs all four; a bare machine may not).
pub fn have(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// The section names of an ELF file.
pub fn section_names(path: &Path) -> std::collections::BTreeSet<String> {
    use object::{Object, ObjectSection};
    let data = std::fs::read(path).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.sections()
        .filter_map(|s| s.name().ok().map(str::to_string))
        .collect()
}

/// Fetches the Debian source package `package` into `dest` with the shipped
/// `recipes/debian-source.sh` (upstream only with `skip_patches`) and returns the unpacked
/// source directory; panics with the script's message when the archive cannot be reached.
pub fn fetch_debian_source(package: &str, dest: &Path, skip_patches: bool) -> PathBuf {
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/debian-source.sh");
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(recipe);
    if skip_patches {
        cmd.arg("--skip-patches");
    }
    let out = cmd.arg(package).arg(dest).output().unwrap();
    match out.status.code() {
        Some(0) => PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()),
        _ => panic!(
            "fetching {package} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// bzip2's own test (its `make test` target) on the bzip2 program `bzip2`, with the sample
/// files of the source tree `src` and `LD_LIBRARY_PATH` at `libraries`: compress sample1–3
/// at levels 1–3 and compare with the shipped .bz2 files, decompress them and compare with
/// the references.
pub fn bzip2_check(bzip2: &Path, src: &Path, libraries: &Path) {
    let steps = [
        ("-1", "sample1.ref", "sample1.bz2"),
        ("-2", "sample2.ref", "sample2.bz2"),
        ("-3", "sample3.ref", "sample3.bz2"),
        ("-d", "sample1.bz2", "sample1.ref"),
        ("-d", "sample2.bz2", "sample2.ref"),
        ("-ds", "sample3.bz2", "sample3.ref"),
    ];
    for (args, input, expected) in steps {
        let out = std::process::Command::new(bzip2)
            .arg(args)
            .stdin(std::fs::File::open(src.join(input)).unwrap())
            .env("LD_LIBRARY_PATH", libraries)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} {args} < {input}: {}",
            bzip2.display(),
            out.status
        );
        let want = std::fs::read(src.join(expected)).unwrap();
        assert!(
            out.stdout == want,
            "{} {args} < {input} differs from {expected}",
            bzip2.display()
        );
    }
}
