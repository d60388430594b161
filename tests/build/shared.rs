//! Shared libraries (`-shared` links) are recorded and relinked per seed like programs. The
//! fixture `fixtures/build/shared` is a program whose work is done in its own library (-fPIC
//! objects, a soname, a version script that makes the helpers local), linked with
//! `-L. -lkernels` as a build tree does; the program prints the offset of the library's
//! `kn_sum` from the library's load base, so a test can tell which copy a process loaded.
//!
//! Asserted: every linker relinks the library per seed into distinct layouts with the
//! baseline's code and the same dynamic interface (soname, exported symbols and their
//! versions); each seed's program, pointed at its seed's directory, loads that seed's
//! library and prints the baseline's checksum; `layoutrand run` makes every execution load
//! its own seed's copy and refuses a binary whose RPATH would load the build tree's;
//! `--extend` and a second build give byte-identical libraries for the same seed.

use crate::build_support;

use std::path::Path;
use std::process::Command;

use build_support::{assert_success, build, fixture, have};
use layoutrand::files::manifest::{Binary, BuildStatus, Manifest};
use layoutrand::files::store::{read_results, ExecutionStatus};

const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];
const LIBRARY: &str = "libkernels.so.1.2";
const SONAME: &str = "libkernels.so.1";

/// The address of `symbol` in the ELF file at `path` (its offset from the load base).
fn symbol_offset(path: &Path, symbol: &str) -> u64 {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(path).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.symbols()
        .find(|s| s.name() == Ok(symbol))
        .unwrap_or_else(|| panic!("no {symbol} in {}", path.display()))
        .address()
}

/// The exported interface of a library: soname, and each dynamic symbol with its version.
fn interface(path: &Path) -> Vec<String> {
    let out = Command::new("readelf")
        .args(["-W", "--dyn-syms", "-d"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<String> = text
        .lines()
        .filter_map(|l| {
            if l.contains("(SONAME)") {
                return Some(l.split_whitespace().last()?.to_string());
            }
            let fields: Vec<&str> = l.split_whitespace().collect();
            (fields.len() == 8 && fields[0].ends_with(':'))
                .then(|| format!("{} {} {}", fields[3], fields[4], fields[7]))
        })
        .collect();
    lines.sort();
    lines
}

/// Runs `label`'s program with `LD_LIBRARY_PATH` at its directory: its checksum line and
/// the offset of `kn_sum` in the library it loaded.
fn run_seed(out: &Path, set_dir: &Path) -> (String, u64) {
    let o = Command::new(out.join(set_dir).join("kernels"))
        .env("LD_LIBRARY_PATH", out.join(set_dir))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}: {o:?}", set_dir.display());
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    let checksum = lines.next().unwrap().to_string();
    let offset = lines
        .next()
        .and_then(|l| l.strip_prefix("kn_sum offset "))
        .unwrap_or_else(|| panic!("{}: no offset line in {text}", set_dir.display()))
        .parse()
        .unwrap();
    (checksum, offset)
}

fn library(set: &layoutrand::files::manifest::BinarySet) -> &Binary {
    set.libraries
        .iter()
        .find(|b| b.name == LIBRARY)
        .unwrap_or_else(|| panic!("{}: no library {LIBRARY}: {:?}", set.label(), set))
}

#[test]
fn libraries_are_relinked_per_seed_with_every_linker() {
    for linker in LINKERS {
        assert!(
            have(&format!("ld.{linker}")),
            "ld.{linker} is not installed"
        );
        let (_tmp, dir) = fixture("shared");
        let what = format!("shared --linker {linker}");
        let o = build(
            &dir,
            &["--seeds", "3", "--linker", linker, "--out", "out"],
            &["make"],
        );
        assert_success(&o, &what);
        let out = dir.join("out");
        let m = Manifest::load(&out).unwrap();
        let base = library(&m.baseline);
        assert_eq!(base.soname.as_deref(), Some(SONAME), "{what}");
        assert!(
            m.baseline.binaries.iter().all(|b| b.name != LIBRARY),
            "{what}: a library is not a program"
        );
        let summary = m.programs.iter().find(|p| p.name == LIBRARY).unwrap();
        assert!(summary.library && summary.excluded.is_none(), "{what}");
        let achieved = summary.achieved.as_ref().unwrap();
        assert!(
            achieved.modules_with_function_order > 0,
            "{what}: {achieved:?}"
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains(&format!("achieved: library {LIBRARY}")),
            "{what}: {stdout}"
        );

        let base_interface = interface(&out.join(&base.path));
        assert!(
            base_interface
                .iter()
                .any(|l| l.contains("kn_sum@@KERNELS_1")),
            "{what}: {base_interface:?}"
        );
        assert!(
            !base_interface.iter().any(|l| l.contains("step_a")),
            "{what}: the version script hides the helpers: {base_interface:?}"
        );
        let (expected, base_offset) = run_seed(&out, Path::new("baseline"));
        assert_eq!(
            base_offset,
            symbol_offset(&out.join(&base.path), "kn_sum"),
            "{what}"
        );
        let mut fingerprints = std::collections::BTreeSet::from([base.fingerprint.clone()]);
        for v in &m.seeds {
            assert_eq!(v.status, BuildStatus::Ok, "{what}: {:?}", v.error);
            let lib = library(v);
            assert!(lib.code.is_some(), "{what}: {} not verified", v.label());
            assert_eq!(lib.soname.as_deref(), Some(SONAME));
            fingerprints.insert(lib.fingerprint.clone());
            let path = out.join(&lib.path);
            assert_eq!(interface(&path), base_interface, "{what}: {}", v.label());
            let (checksum, offset) = run_seed(&out, Path::new(&v.label()));
            assert_eq!(checksum, expected, "{what}: {}", v.label());
            assert_eq!(
                offset,
                symbol_offset(&path, "kn_sum"),
                "{what}: {} loaded another copy of the library",
                v.label()
            );
            let program = v.binaries.iter().find(|b| b.name == "kernels").unwrap();
            assert!(program.code.is_some(), "{what}: program not verified");
        }
        assert_eq!(
            fingerprints.len(),
            4,
            "{what}: baseline and 3 seeds must give the library 4 layouts"
        );
    }
}

/// `layoutrand run` with a metric that is the offset of `kn_sum` in the library each
/// execution loaded: every execution reports its own seed's offset.
#[test]
fn run_loads_each_seeds_own_library() {
    let (_tmp, dir) = fixture("shared");
    assert_success(
        &build(&dir, &["--seeds", "2", "--out", "out"], &["make"]),
        "build",
    );
    let out = dir.join("out");
    let run = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(&dir)
        .args(["run", "--out", "out", "--executions", "2", "--env-pad", "0"])
        .args(["--metric", "regex:kn_sum offset (?P<value>[0-9]+)"])
        .args(["--schedule-seed", "1", "--", "{bin}"])
        .output()
        .unwrap();
    assert_success(&run, "run");
    let m = Manifest::load(&out).unwrap();
    let r = read_results(&out).unwrap();
    // Baseline, as built (the build's own program and library) and 2 seeds, 2 executions each.
    assert_eq!(r.executions.len(), 8);
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
    let mut offsets = std::collections::BTreeSet::new();
    for v in m.binary_sets() {
        let want = symbol_offset(&out.join(&library(v).path), "kn_sum") as f64;
        let got: Vec<f64> = r
            .measurements
            .iter()
            .filter(|x| x.binary == v.label() && x.metric == "reported")
            .map(|x| x.value)
            .collect();
        assert_eq!(got, vec![want, want], "{}", v.label());
        offsets.insert(want as u64);
    }
    assert!(
        offsets.len() > 1,
        "the seeds' libraries should differ: {offsets:?}"
    );
}

/// Variants of a program with its own shared library: the top manifest names each
/// variant's libraries under that variant's directory (as it names its programs), so `run`
/// loads every variant's own library and every execution succeeds.
#[test]
fn variants_run_with_their_own_shared_libraries() {
    let (_tmp, dir) = fixture("shared");
    for (name, flags, extra) in [("O1", "-O1", &["--seeds", "2"][..]), ("O2", "-O2", &[][..])] {
        let script = format!("make clean >/dev/null && make CFLAGS='{flags}'");
        let mut args = vec!["--out", "out", "--variant", name];
        args.extend_from_slice(extra);
        assert_success(&build(&dir, &args, &["sh", "-c", &script]), name);
    }
    let out = dir.join("out");
    let m = Manifest::load(&out).unwrap();
    for v in &m.variants {
        for set in v.build.binary_sets() {
            let lib = library(set);
            assert!(
                lib.path.starts_with(&v.name) && out.join(&lib.path).is_file(),
                "{} {}: library at {}",
                v.name,
                set.label(),
                lib.path.display()
            );
        }
    }
    let run = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(&dir)
        .args(["run", "--out", "out", "--executions", "1", "--env-pad", "0"])
        .args(["--metric", "regex:kn_sum offset (?P<value>[0-9]+)"])
        .args(["--schedule-seed", "1", "--", "{bin}"])
        .output()
        .unwrap();
    assert_success(&run, "run");
    let r = read_results(&out).unwrap();
    assert!(!r.executions.is_empty());
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
}

/// An RPATH (DT_RPATH, searched before LD_LIBRARY_PATH) pointing at the build tree would
/// load the build's own library in every binary: the run refuses each execution and says
/// which library would come from where.
#[test]
fn an_rpath_to_the_build_tree_fails_the_binary_precisely() {
    let (_tmp, dir) = fixture("shared");
    let rpath = format!(
        "RPATH_FLAGS=-Wl,--disable-new-dtags,-rpath,{}",
        dir.display()
    );
    assert_success(
        &build(
            &dir,
            &["--seeds", "1", "--linker", "bfd", "--out", "out"],
            &["make", &rpath],
        ),
        "build",
    );
    let run = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(&dir)
        .args(["run", "--out", "out", "--executions", "1", "--env-pad", "0"])
        .args(["--schedule-seed", "1", "--", "{bin}"])
        .output()
        .unwrap();
    let r = read_results(&dir.join("out")).unwrap();
    // The baseline, the build's own binary and the seed: each refused.
    assert_eq!(r.executions.len(), 3, "{run:?}");
    let wanted = format!("would load {SONAME} from {}", dir.join(SONAME).display());
    for e in &r.executions {
        assert_eq!(e.status, ExecutionStatus::Spawn, "{e:?}");
        let tail = e.output_tail.as_deref().unwrap_or("");
        assert!(tail.contains(&wanted), "{}: {tail}", e.binary);
    }
    // The refusal, pinned whole: which library the binary would load, and from where.
    let tail = r.executions[0].output_tail.as_deref().unwrap_or("");
    insta::assert_snapshot!("refused_load", crate::snapshot_support::in_dir(tail, &dir));
}

/// The same seed from `--extend` and from a second build is the same library, byte for byte.
#[test]
fn extended_and_rebuilt_seeds_give_byte_identical_libraries() {
    let (_tmp, dir) = fixture("shared");
    let make_clean = || {
        let s = Command::new("make")
            .arg("clean")
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(s.success());
    };
    assert_success(
        &build(&dir, &["--seeds", "1", "--out", "a"], &["make"]),
        "a",
    );
    assert_success(
        &build(&dir, &["--seeds", "3", "--out", "a", "--extend"], &["make"]),
        "a --extend",
    );
    make_clean();
    assert_success(
        &build(&dir, &["--seeds", "3", "--out", "b"], &["make"]),
        "b",
    );
    let a = Manifest::load(&dir.join("a")).unwrap();
    let b = Manifest::load(&dir.join("b")).unwrap();
    assert_eq!(a.seeds.len(), 3);
    for (x, y) in a.binary_sets().zip(b.binary_sets()) {
        assert_eq!(x.label(), y.label());
        assert_eq!(x.status, BuildStatus::Ok, "{:?}", x.error);
        assert_eq!(library(x).sha256, library(y).sha256, "{}", x.label());
        assert_eq!(x.binaries[0].sha256, y.binaries[0].sha256, "{}", x.label());
    }
}
