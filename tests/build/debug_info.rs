//! The relinks' debug information: left out by default (`--strip-debug` on the merged object
//! and on each final link), kept with `--keep-debug`; the same layout either way, read from
//! the ELF; the build's own binary keeps its own; `--extend` keeps the recorded setting.

use crate::build_support;

use std::path::{Path, PathBuf};

use build_support::{assert_success, build, fixture, run, section_names};
use layoutrand::files::manifest::Manifest;
use layoutrand::layout::binary;

const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

/// The names of `path`'s `.debug_*` sections.
fn debug_sections(path: &Path) -> Vec<String> {
    section_names(path)
        .into_iter()
        .filter(|name| name.starts_with(".debug_"))
        .collect()
}

/// The multimodule program of `seed` (`None`: the baseline) in the build at `out`.
fn program(out: &Path, seed: Option<u64>) -> PathBuf {
    let m = Manifest::load(out).unwrap();
    let set = m.binary_sets().find(|v| v.seed == seed).unwrap();
    out.join(&set.find("multimodule").unwrap().path)
}

/// On every linker, the multimodule fixture (compiled with -g) relinked with and without
/// `--keep-debug`: by default the baseline and the seeds have no `.debug_*` section while the
/// build's own binary has them; with `--keep-debug` the seeds have them too; the manifests
/// record it; every binary still has its symbol table, and each seed has the same functions
/// at the same addresses in both builds and runs the same.
#[test]
fn relinks_leave_the_debug_information_out_unless_kept() {
    for linker in LINKERS {
        let what = format!("multimodule {linker}");
        let builds: Vec<(tempfile::TempDir, PathBuf)> = [false, true]
            .into_iter()
            .map(|keep| {
                let (tmp, dir) = fixture("multimodule");
                let mut args = vec!["--seeds", "2", "--linker", linker, "--out", "out"];
                if keep {
                    args.push("--keep-debug");
                }
                assert_success(&build(&dir, &args, &["make"]), &what);
                (tmp, dir.join("out"))
            })
            .collect();
        let (stripped, kept) = (&builds[0].1, &builds[1].1);
        assert!(Manifest::load(stripped).unwrap().strip_debug, "{what}");
        assert!(!Manifest::load(kept).unwrap().strip_debug, "{what}");
        let own = builds[0].0.path().join("multimodule/multimodule");
        assert!(
            !debug_sections(&own).is_empty(),
            "{what}: the build's own binary"
        );
        for seed in [None, Some(1), Some(2)] {
            let (a, b) = (program(stripped, seed), program(kept, seed));
            assert_eq!(debug_sections(&a), Vec::<String>::new(), "{what} {seed:?}");
            assert!(
                debug_sections(&b).contains(&".debug_info".to_string()),
                "{what} {seed:?}"
            );
            let (fa, fb) = (
                binary::functions(&a).unwrap(),
                binary::functions(&b).unwrap(),
            );
            assert!(fa.len() >= 8, "{what} {seed:?}: the symbol table is kept");
            let placed = |fs: &[binary::Function]| {
                fs.iter()
                    .map(|f| (f.id.clone(), f.size, f.address))
                    .collect::<Vec<_>>()
            };
            assert_eq!(placed(&fa), placed(&fb), "{what} {seed:?}");
            assert_eq!(run(&a), run(&b), "{what} {seed:?}");
        }
    }
}

/// `--extend --keep-debug` of a build relinked without debug information is refused (exit
/// 2), saying why; `--extend` alone adds seeds without it, as recorded.
#[test]
fn extend_keeps_the_recorded_debug_setting() {
    let (_tmp, dir) = fixture("multimodule");
    assert_success(
        &build(&dir, &["--seeds", "1", "--out", "out"], &["make"]),
        "build",
    );
    let out = build(
        &dir,
        &["--extend", "--seeds", "2", "--keep-debug", "--out", "out"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(
        "extend_keep_debug",
        crate::snapshot_support::stderr_in(&out, &dir)
    );
    assert_success(
        &build(&dir, &["--extend", "--seeds", "2", "--out", "out"], &[]),
        "extend",
    );
    let out = dir.join("out");
    assert!(Manifest::load(&out).unwrap().strip_debug);
    assert_eq!(
        debug_sections(&program(&out, Some(2))),
        Vec::<String>::new()
    );
}
