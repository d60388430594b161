//! `layoutrand build` on the four fixture programs, for every granularity and every linker:
//! each seed's binary runs and prints what the baseline prints, N seeds give N distinct
//! layouts, each differs from the baseline's, and the same seed built twice (in a different
//! output directory, from a fresh build) gives a byte-identical binary.

use crate::build_support;

use build_support::{assert_success, build, build_three_seeds, check_binaries, fixture, have};

const SEEDS: usize = 3;
const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

/// Builds `fixture` for `granularity` with every linker it supports and checks each result.
fn matrix(fixture_name: &str, program: &str, granularity: &str, linkers: &[&str]) {
    for linker in linkers {
        assert!(
            have(&format!("ld.{linker}")),
            "ld.{linker} is not installed"
        );
        let (_tmp, dir) = fixture(fixture_name);
        let out_dir = dir.join("out");
        let what = format!("{fixture_name} --granularity {granularity} --linker {linker}");
        let out = build_three_seeds(&dir, granularity, linker, &["make", "-j2"]);
        assert_success(&out, &what);
        let m = check_binaries(&out_dir, program, SEEDS, &what);
        assert_eq!(m.linker, *linker, "{what}");
        assert_eq!(format!("{:?}", m.granularity).to_lowercase(), granularity);
        assert!(
            m.toolchain.contains_key(&format!("ld.{linker}")),
            "{what}: {:?}",
            m.toolchain
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        // The legend sits right under the table's rows, before the timing line.
        let lines: Vec<&str> = stdout.lines().collect();
        let at = |p: &dyn Fn(&str) -> bool| lines.iter().position(|l| p(l));
        let header = at(&|l| l.starts_with("program "));
        let legend = at(&|l| l == layoutrand::report::build_summary::LEGEND.trim_end());
        let timing = at(&|l| l.starts_with("relinked baseline"));
        assert!(
            matches!((header, legend, timing), (Some(h), Some(l), Some(t)) if h < l && l + 1 == t),
            "{what}: no summary table, or its legend misplaced:\n{stdout}"
        );
    }
}

#[test]
fn multimodule_link() {
    matrix("multimodule", "multimodule", "link", &LINKERS);
}

#[test]
fn multimodule_module() {
    matrix("multimodule", "multimodule", "module", &LINKERS);
}

#[test]
fn multimodule_global() {
    matrix("multimodule", "multimodule", "global", &LINKERS);
}

#[test]
fn archive_link() {
    matrix("archive", "calc", "link", &LINKERS);
}

#[test]
fn archive_module() {
    matrix("archive", "calc", "module", &LINKERS);
}

#[test]
fn archive_global() {
    matrix("archive", "calc", "global", &LINKERS);
}

#[test]
fn cxx_link() {
    matrix("cxx", "shapes", "link", &LINKERS);
}

#[test]
fn cxx_module() {
    matrix("cxx", "shapes", "module", &LINKERS);
}

#[test]
fn cxx_global() {
    matrix("cxx", "shapes", "global", &LINKERS);
}

// gcc -flto: the code is generated once (with bfd), so every final linker works, lld too.
#[test]
fn lto_link() {
    matrix("lto", "ltoprog", "link", &LINKERS);
}

#[test]
fn lto_module() {
    matrix("lto", "ltoprog", "module", &LINKERS);
}

#[test]
fn lto_global() {
    matrix("lto", "ltoprog", "global", &LINKERS);
}

/// The same seed, built by two separate runs (the program compiled afresh each time, in the
/// same source directory: compilers embed it in debug info) into two output directories, is
/// the same file.
#[test]
fn the_same_seed_twice_gives_byte_identical_binaries() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("multimodule", "multimodule", "module", "bfd"),
        ("multimodule", "multimodule", "global", "gold"),
        ("multimodule", "multimodule", "module", "mold"),
        ("archive", "calc", "link", "lld"),
        ("cxx", "shapes", "module", "bfd"),
        ("lto", "ltoprog", "global", "bfd"),
    ];
    for (fixture_name, program, granularity, linker) in cases {
        let what = format!("{fixture_name} {granularity} {linker}");
        let common = ["--granularity", granularity, "--linker", linker];
        let (_tmp, dir) = fixture(fixture_name);
        let a = build(
            &dir,
            &[
                &common[..],
                &["--seeds", "2", "--seed-base", "40", "--out", "out-a"],
            ]
            .concat(),
            &["make", "-j2"],
        );
        assert_success(&a, &what);
        let clean = std::process::Command::new("make")
            .arg("clean")
            .current_dir(&dir)
            .output();
        assert!(clean.unwrap().status.success());
        let b = build(
            &dir,
            &[
                &common[..],
                &["--seeds", "1", "--seed-base", "41", "--out", "out-b"],
            ]
            .concat(),
            &["make", "-j2"],
        );
        assert_success(&b, &what);
        let bytes_a = std::fs::read(dir.join("out-a/seed-41").join(program)).unwrap();
        let bytes_b = std::fs::read(dir.join("out-b/seed-41").join(program)).unwrap();
        assert!(
            bytes_a == bytes_b,
            "{what}: seed 41 differs between two builds"
        );
        let other = std::fs::read(dir.join("out-a/seed-40").join(program)).unwrap();
        assert!(
            other != bytes_a,
            "{what}: seeds 40 and 41 are the same file"
        );
    }
}
