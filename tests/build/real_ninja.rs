//! A real C++ program with templates: ninja, from the Debian source package `ninja-build`
//! (upstream, without Debian's patches), built by `benches/ninja.mk` (libninja.a + ninja.cc,
//! as ninja's own build does) with `layoutrand build --seeds 3`, with plain `-O2`, with gcc
//! `-flto=auto` and with clang `-flto=thin` (lld). For each build it checks: every seed built and passes ninja's
//! own check (`--version`, and a small build.ninja built, then found up to date); every seed
//! holds the baseline's code (the manifest's code check, `layoutrand layout` finding no
//! function on one side only, and every function of the same size, COMDAT template copies
//! such as `vector<...>::_M_realloc_insert` included); the seeds' layouts are distinct and
//! moved; the baseline's function order is the plain build's (the recorded build's own
//! `ninja`). With LTO the code is the recorded link's own (its partitions' objects kept by
//! the shim, never generated again: the mechanism and the summary say so), so the baseline
//! has the plain LTO build's functions, sizes and order (docs/build.md, "LTO").
//!
//! Needs the Debian archive: ignored by default, failing when the archive cannot be reached;
//! .ci/run runs it.

use crate::build_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use build_support::{
    assert_lto_code_kept, assert_success, build, fetch_debian_source, function_list_differences,
    function_sizes, layout_distance,
};
use layoutrand::files::manifest::{Binary, BuildStatus, LtoCode, Manifest, Mechanism};
use layoutrand::layout::binary::{self, FunctionId};

const SEEDS: usize = 3;

/// Runs `ninja ARGS` in `dir` and returns its standard output; panics unless it exits 0.
fn ninja(ninja: &Path, dir: &Path, args: &[&str]) -> String {
    let out = Command::new(ninja)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} {args:?} failed ({}):\n{}\n{}",
        ninja.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// ninja's own check of a binary: its version, then a build.ninja with a rule, a variable,
/// an implicit dependency chain and a phony target, built once (both outputs right), then
/// found up to date, then rebuilt after its input changed.
fn ninja_check(binary: &Path, version: &str) {
    assert_eq!(
        ninja(binary, Path::new("/"), &["--version"]).trim(),
        version
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("build.ninja"),
        "greeting = hello\n\
         rule cat\n  command = cat $in > $out\n\
         rule upper\n  command = tr a-z A-Z < $in > $out && echo $greeting >> $out\n\
         build mid.txt: cat in.txt\n\
         build out.txt: upper mid.txt\n\
         build all: phony out.txt\n\
         default all\n",
    )
    .unwrap();
    std::fs::write(d.join("in.txt"), "layout\n").unwrap();
    ninja(binary, d, &[]);
    assert_eq!(
        std::fs::read_to_string(d.join("out.txt")).unwrap(),
        "LAYOUT\nhello\n"
    );
    let again = ninja(binary, d, &[]);
    assert!(again.contains("no work to do"), "{again}");
    // A changed input, strictly newer than the outputs whatever the clock's resolution.
    std::fs::write(d.join("in.txt"), "random\n").unwrap();
    std::fs::File::options()
        .append(true)
        .open(d.join("in.txt"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    ninja(binary, d, &[]);
    assert_eq!(
        std::fs::read_to_string(d.join("out.txt")).unwrap(),
        "RANDOM\nhello\n"
    );
}

/// The function sizes of a binary by identity.
fn sizes(path: &Path) -> BTreeMap<FunctionId, u64> {
    binary::functions(path)
        .unwrap()
        .into_iter()
        .map(|f| (f.id, f.size))
        .collect()
}

fn names(path: &Path) -> Vec<String> {
    binary::functions(path)
        .unwrap()
        .into_iter()
        .map(|f| f.name)
        .collect()
}

fn ninja_of<'a>(binaries: &'a [Binary], what: &str) -> &'a Binary {
    binaries
        .iter()
        .find(|b| b.name == "ninja")
        .unwrap_or_else(|| panic!("{what}: no ninja among {binaries:?}"))
}

/// Fetches ninja, builds it with `layoutrand build --seeds 3 -- make -j2 LTO=lto` (`0`,
/// `1`: gcc `-flto=auto`, `thin`: clang `-flto=thin`) and checks every promise listed at the
/// top of this file.
fn ninja_case(lto: &str) {
    let what = match lto {
        "1" => "ninja, gcc -flto",
        "thin" => "ninja, clang -flto=thin",
        _ => "ninja, -O2",
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = fetch_debian_source("ninja-build", tmp.path(), true);
    let makefile = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/ninja.mk");
    std::fs::copy(makefile, src.join("Makefile")).unwrap();
    let version = std::fs::read_to_string(src.join("src/version.cc"))
        .unwrap()
        .lines()
        .find_map(|l| l.split("kNinjaVersion = \"").nth(1))
        .and_then(|rest| rest.split('"').next())
        .expect("kNinjaVersion in src/version.cc")
        .to_string();
    let out_dir = tmp.path().join("out");
    let lto_arg = format!("LTO={lto}");
    let out = build(
        &src,
        &[
            "--seeds",
            &SEEDS.to_string(),
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &["make", "-s", "-j2", &lto_arg],
    );
    assert_success(&out, what);
    let m = Manifest::load(&out_dir).unwrap();
    assert_eq!(m.seeds.len(), SEEDS, "{what}");

    let plain = src.join("ninja");
    ninja_check(&plain, &version);
    let baseline = ninja_of(&m.baseline.binaries, what);
    let base_path = out_dir.join(&baseline.path);
    ninja_check(&base_path, &version);
    let base_sizes = sizes(&base_path);
    let comdat: BTreeMap<&FunctionId, u64> = base_sizes
        .iter()
        .filter(|(id, _)| id.name.contains("_M_realloc_insert"))
        .map(|(id, &size)| (id, size))
        .collect();
    assert!(
        !comdat.is_empty(),
        "{what}: no _M_realloc_insert instantiation in the baseline"
    );
    if lto != "0" {
        let relinked: Vec<Mechanism> = m.mechanisms.iter().map(|r| r.mechanism).collect();
        assert_eq!(relinked, [Mechanism::LtoKept], "{what}");
        let achieved = m.programs[0].achieved.as_ref().expect("achieved");
        assert_eq!(achieved.lto, Some(LtoCode::Kept), "{what}: {achieved:?}");
        assert_lto_code_kept(&out_dir, what);
        let differences = function_list_differences(
            "the recorded build",
            &function_sizes(&plain),
            "the baseline",
            &function_sizes(&base_path),
        );
        assert!(differences.is_empty(), "{what}: {differences:#?}");
    }
    // The baseline's layout is the plain build's: the recorded build left its own ninja.
    let (base, plain_order) = (names(&base_path), names(&plain));
    let first = base.iter().zip(&plain_order).position(|(a, b)| a != b);
    assert!(
        first.is_none() && base.len() == plain_order.len(),
        "{what}: the baseline's order is not the plain build's: first difference at rank \
         {first:?} of {}/{} functions: {:?} instead of {:?}",
        base.len(),
        plain_order.len(),
        first.map(|k| &base[k]),
        first.map(|k| &plain_order[k])
    );
    let d = layout_distance(&plain, &base_path);
    assert_eq!(d["base_fingerprint"], d["other_fingerprint"], "{d}");

    let mut fingerprints = BTreeSet::from([baseline.fingerprint.clone()]);
    for v in &m.seeds {
        let seed = format!("{what}: seed {:?}", v.seed);
        assert_eq!(v.status, BuildStatus::Ok, "{seed}: {v:?}");
        let b = ninja_of(&v.binaries, &seed);
        fingerprints.insert(b.fingerprint.clone());
        let code = b.code.as_ref().expect("every seed is code-checked");
        assert_eq!(code.functions, base_sizes.len(), "{seed}");
        let path = out_dir.join(&b.path);
        let d = layout_distance(&base_path, &path);
        assert_eq!(d["only_in_base"], 0, "{seed}: {d}");
        assert_eq!(d["only_in_other"], 0, "{seed}: {d}");
        assert!(
            d["distance"]["share_moved"].as_f64().unwrap() > 0.5,
            "{seed}: {d}"
        );
        let seed_sizes = sizes(&path);
        let differing: Vec<_> = base_sizes
            .iter()
            .filter(|(id, size)| seed_sizes.get(id) != Some(size))
            .map(|(id, size)| (id, size, seed_sizes.get(id)))
            .collect();
        assert!(
            differing.is_empty(),
            "{seed}: functions of another size: {differing:?}"
        );
        for (id, size) in &comdat {
            assert_eq!(seed_sizes.get(*id), Some(size), "{seed}: {id:?}");
        }
        ninja_check(&path, &version);
    }
    assert_eq!(
        fingerprints.len(),
        SEEDS + 1,
        "{what}: baseline and seeds: distinct layouts"
    );
}

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn ninja_from_debian_every_seed_holds_the_same_code_and_passes_its_check() {
    ninja_case("0");
}

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn ninja_with_gcc_lto_relinks_its_own_code_and_every_seed_passes_its_check() {
    ninja_case("1");
}

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn ninja_with_clang_thin_lto_relinks_its_own_code_and_every_seed_passes_its_check() {
    ninja_case("thin");
}
