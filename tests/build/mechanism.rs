//! The relink mechanism on every linker: seeds are pure re-layouts of the baseline (same
//! symbol resolution, same code), the baseline is the plain build's layout, and seeds are
//! layouts the toolchain could produce (no added section, start-up code in place, gcc's
//! groups in their order).

use crate::build_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use build_support::{assert_success, build, check_binaries, fixture, have, run, section_names};
use layoutrand::files::manifest::Manifest;
use layoutrand::layout::binary::{self, Function};
use layoutrand::layout::object_file::{self, TextGroup};

const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

fn build_fixture(
    name: &str,
    linker: &str,
    granularity: &str,
    seeds: &str,
) -> (tempfile::TempDir, std::path::PathBuf) {
    build_fixture_target(name, linker, granularity, seeds, None)
}

/// [`build_fixture`] making `target` (the fixture's default target when `None`).
fn build_fixture_target(
    name: &str,
    linker: &str,
    granularity: &str,
    seeds: &str,
    target: Option<&str>,
) -> (tempfile::TempDir, std::path::PathBuf) {
    assert!(
        have(&format!("ld.{linker}")),
        "ld.{linker} is not installed"
    );
    let (tmp, dir) = fixture(name);
    let out = build(
        &dir,
        &[
            "--seeds",
            seeds,
            "--granularity",
            granularity,
            "--out",
            "out",
        ],
        &[
            &[
                "make",
                "-j2",
                &format!("CC=cc -fuse-ld={linker}"),
                &format!("CXX=c++ -fuse-ld={linker}"),
            ][..],
            target.as_slice(),
        ]
        .concat(),
    );
    assert_success(&out, &format!("{name} {granularity} {linker}"));
    (tmp, dir)
}

/// COMDAT copies and weak definitions that differ between objects: permuting the objects on
/// the link line used to change which copy won (other code, other output); every seed must
/// print what the plain build prints and pass the code check.
#[test]
fn symbol_resolution_is_the_recorded_links_in_every_seed() {
    for linker in LINKERS {
        for granularity in ["link", "global"] {
            let (_tmp, dir) = build_fixture("resolution", linker, granularity, "4");
            let what = format!("resolution {granularity} {linker}");
            let plain = run(&dir.join("resolution"));
            assert!(plain.starts_with("picked(4)=5 weak=1 "), "{what}: {plain}");
            let m = check_binaries(&dir.join("out"), "resolution", 4, &what);
            assert_eq!(run(&dir.join("out/baseline/resolution")), plain, "{what}");
            for v in &m.seeds {
                let code = v.binaries[0].code.as_ref().expect("seeds are code-checked");
                assert!(code.functions > 10, "{what}: {code:?}");
            }
        }
    }
}

/// Names of the functions of the program's own objects, with their gcc group (from the
/// fixture's objects, compiled with one section per function by the shim).
fn groups_of(dir: &Path) -> BTreeMap<String, TextGroup> {
    let mut groups = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "o") {
            for s in object_file::text_sections(&path).unwrap() {
                for f in s.functions {
                    groups.insert(f, s.group);
                }
            }
        }
    }
    groups
}

fn names(fs: &[Function]) -> Vec<String> {
    fs.iter().map(|f| f.name.clone()).collect()
}

/// The baseline goes through the mechanism with the identity order and equals the plain
/// build's function order; seeds add no output section (and have the plain build's but its
/// debug information), keep the start-up code where it
/// was (`_start` before the program's code) and, on bfd and gold, keep gcc's groups
/// (unlikely, exit, startup, hot, ordinary) in their order.
#[test]
fn baseline_is_the_plain_layout_and_seeds_are_natural_layouts() {
    for linker in LINKERS {
        let (_tmp, dir) = build_fixture("multimodule", linker, "global", "3");
        let what = format!("multimodule {linker}");
        let plain = binary::functions(&dir.join("multimodule")).unwrap();
        let out = dir.join("out");
        let m = Manifest::load(&out).unwrap();
        let base_path = out.join(&m.baseline.binaries[0].path);
        let base = binary::functions(&base_path).unwrap();
        assert_eq!(names(&base), names(&plain), "{what}: baseline order");
        // The relinks leave the debug information out (tests/build/debug_info.rs).
        let plain_sections: BTreeSet<String> = section_names(&dir.join("multimodule"))
            .into_iter()
            .filter(|name| !name.starts_with(".debug_"))
            .collect();
        let groups = groups_of(&dir);
        let before_start = |fs: &[Function]| -> BTreeSet<String> {
            let at = fs.iter().position(|f| f.name == "_start").expect("_start");
            fs[..at].iter().map(|f| f.name.clone()).collect()
        };
        for v in &m.seeds {
            let path = out.join(&v.binaries[0].path);
            let seed = binary::functions(&path).unwrap();
            assert_ne!(names(&seed), names(&base), "{what}: seed {:?}", v.seed);
            assert_eq!(
                section_names(&path),
                plain_sections,
                "{what}: seed {:?} has other sections than the plain build",
                v.seed
            );
            assert_eq!(
                before_start(&seed),
                before_start(&plain),
                "{what}: {:?}",
                v.seed
            );
            if linker == "bfd" || linker == "gold" {
                let ranks: Vec<usize> = seed
                    .iter()
                    .filter_map(|f| groups.get(&f.name))
                    .map(|g| TextGroup::REORDERABLE.iter().position(|x| x == g).unwrap())
                    .collect();
                assert!(ranks.contains(&0), "{what}: no cold function found");
                assert!(
                    ranks.windows(2).all(|w| w[0] <= w[1]),
                    "{what}: seed {:?} mixes gcc's groups: {ranks:?}",
                    v.seed
                );
            }
        }
    }
}

/// C++ inline and template functions (COMDAT groups: `vector<...>::_M_realloc_insert`) move
/// like the others and keep their code: their groups are de-duplicated by the merge and then
/// placed by its script. The baseline's order is the plain build's, COMDAT functions
/// included (before, the merge left them after the program's other code).
#[test]
fn cxx_comdat_functions_move_and_keep_their_code() {
    for (linker, granularity) in [("bfd", "global"), ("lld", "module")] {
        let (_tmp, dir) = build_fixture("cxx", linker, granularity, "4");
        let what = format!("cxx {granularity} {linker}");
        let out = dir.join("out");
        let m = check_binaries(&out, "shapes", 4, &what);
        let plain = binary::functions(&dir.join("shapes")).unwrap();
        let base = binary::functions(&out.join(&m.baseline.binaries[0].path)).unwrap();
        assert_eq!(names(&base), names(&plain), "{what}: baseline order");
        let rank = |fs: &[Function]| {
            fs.iter()
                .position(|f| f.name.contains("_M_realloc_insert"))
                .expect("a _M_realloc_insert instantiation")
        };
        let mut ranks = BTreeSet::new();
        for v in &m.seeds {
            let b = &v.binaries[0];
            assert!(
                b.code.is_some(),
                "{what}: seed {:?} not code-checked",
                v.seed
            );
            ranks.insert(rank(&binary::functions(&out.join(&b.path)).unwrap()));
        }
        assert!(
            ranks.len() > 1 && ranks.iter().any(|&r| r != rank(&base)),
            "{what}: the COMDAT function stayed in place: ranks {ranks:?}, baseline {}",
            rank(&base)
        );
    }
}

/// A C++ link whose static archive shares COMDAT groups with its objects (every C++ object
/// has `DW.ref.__gxx_personality_v0`): the merge cannot dissolve the groups, which `ld -r`
/// then keeps after the code its script places. The permuted section table still puts them
/// in the plain build's order in the baseline (before, they came after the objects' other
/// functions) and moves them in the seeds; every seed passes the code check.
#[test]
fn comdats_shared_with_an_archive_are_in_the_plain_order_and_move() {
    for (linker, granularity) in [("bfd", "module"), ("lld", "global")] {
        let (_tmp, dir) = build_fixture_target("cxx", linker, granularity, "4", Some("shapes-ar"));
        let what = format!("cxx archive {granularity} {linker}");
        let out = dir.join("out");
        let m = check_binaries(&out, "shapes-ar", 4, &what);
        assert_eq!(
            run(&dir.join("shapes-ar")),
            run(&out.join(&m.baseline.binaries[0].path)),
            "{what}"
        );
        let plain = binary::functions(&dir.join("shapes-ar")).unwrap();
        let base = binary::functions(&out.join(&m.baseline.binaries[0].path)).unwrap();
        assert_eq!(names(&base), names(&plain), "{what}: baseline order");
        let rank = |fs: &[Function]| {
            fs.iter()
                .position(|f| {
                    f.name.contains("unique_ptrI5Shape") && f.name.contains("_M_realloc_insert")
                })
                .expect("vector<unique_ptr<Shape>>::_M_realloc_insert")
        };
        let ranks: BTreeSet<usize> = m
            .seeds
            .iter()
            .map(|v| rank(&binary::functions(&out.join(&v.binaries[0].path)).unwrap()))
            .collect();
        assert!(
            ranks.iter().any(|&r| r != rank(&base)),
            "{what}: the COMDAT function stayed in place: ranks {ranks:?}, baseline {}",
            rank(&base)
        );
    }
}
