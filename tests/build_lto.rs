//! `-flto` programs: the LTO code is generated once per program (`-r` into one object with a
//! section per function, kept under `.record/lto/`) and every binary is relinked from it, so
//! every seed holds exactly the baseline's code, on every final linker, with gcc and clang.

mod build_support;

use std::path::Path;

use build_support::{
    assert_success, build, build_three_seeds, check_binaries, fixture, have, run, section_names,
};
use layoutrand::files::manifest::Manifest;
use layoutrand::layout::binary;

/// Builds the `lto` fixture with `cc` (and its usual linker: bfd for gcc, which lld cannot
/// serve), relinks with `linker`, 3 seeds, and checks: every seed built,
/// prints the baseline's output, passed the code check (same functions, same sizes), has
/// the baseline's sections (no section added) and `_start` in the baseline's place; the
/// LTO code was generated into exactly one object.
fn lto_case(cc: &str, linker: &str, granularity: &str) {
    assert!(have(cc), "{cc} is not installed");
    assert!(
        have(&format!("ld.{linker}")),
        "ld.{linker} is not installed"
    );
    let what = format!("{cc} -flto, {linker}, {granularity}");
    let (_tmp, dir) = fixture("lto");
    let out = build_three_seeds(&dir, granularity, linker, &["make", &format!("CC={cc}")]);
    assert_success(&out, &what);
    let out_dir = dir.join("out");
    let m = check_binaries(&out_dir, "ltoprog", 3, &what);
    assert!(
        m.mechanism.contains("code generated once"),
        "{what}: {}",
        m.mechanism
    );
    assert_eq!(
        run(&dir.join("ltoprog")),
        run(&out_dir.join("baseline/ltoprog"))
    );
    let lto_objects: Vec<_> = std::fs::read_dir(out_dir.join(".record/lto"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "o"))
        .collect();
    assert_eq!(lto_objects.len(), 1, "{what}: {lto_objects:?}");
    let achieved = m.programs[0].achieved.as_ref().expect("achieved");
    assert!(
        achieved
            .words
            .starts_with("LTO code generated once, functions moved"),
        "{what}: {}",
        achieved.words
    );
    let base_path = out_dir.join(&m.baseline.binaries[0].path);
    let base_sections = section_names(&base_path);
    let base = binary::functions(&base_path).unwrap();
    let start_rank = |fs: &[binary::Function]| fs.iter().position(|f| f.name == "_start");
    for v in &m.seeds {
        let b = &v.binaries[0];
        let code = b.code.as_ref().expect("every seed is code-checked");
        assert_eq!(code.functions, base.len(), "{what}: seed {:?}", v.seed);
        let path = out_dir.join(&b.path);
        assert_eq!(
            section_names(&path),
            base_sections,
            "{what}: seed {:?} has other sections than the baseline",
            v.seed
        );
        let seed = binary::functions(&path).unwrap();
        assert_eq!(start_rank(&seed), start_rank(&base), "{what}: {:?}", v.seed);
    }
}

#[test]
fn gcc_lto_generates_code_once_on_every_linker() {
    for linker in ["bfd", "gold", "lld", "mold"] {
        lto_case("gcc", linker, "module");
    }
}

#[test]
fn clang_lto_generates_code_once() {
    lto_case("clang", "lld", "global");
    lto_case("clang", "bfd", "link");
}

/// `--extend` relinks from the same LTO object: the extra seeds pass the code check
/// against the first build's baseline and no second object is generated.
#[test]
fn extend_reuses_the_lto_object() {
    let (_tmp, dir) = fixture("lto");
    let out = build(&dir, &["--seeds", "2", "--out", "out"], &["make"]);
    assert_success(&out, "lto build");
    let objects = |dir: &Path| {
        std::fs::read_dir(dir.join("out/.record/lto"))
            .unwrap()
            .count()
    };
    let before = objects(&dir);
    let out = build(
        &dir,
        &["--seeds", "4", "--extend", "--out", "out"],
        &["make"],
    );
    assert_success(&out, "lto --extend");
    let m = Manifest::load(&dir.join("out")).unwrap();
    assert_eq!(m.seeds.len(), 4);
    assert!(m.seeds.iter().all(|v| v.binaries[0].code.is_some()));
    assert_eq!(objects(&dir), before);
}
