//! `layout::binary::functions`, `layout::fingerprint` and `layout::object_file` on real
//! objects and binaries built from fixtures/layout with gcc, g++, clang and the four linkers.

use crate::layout_support;

use std::process::Command;

use crate::snapshot_support::in_dir;
use layout_support::{c_build, fixtures, run_ok, LINKERS};
use layoutrand::layout::{self, binary, object_file::TextGroup};

#[test]
fn functions_are_in_address_order_with_statics_told_apart() {
    let build = c_build();
    let inputs = build.program();
    for linker in LINKERS {
        let bin = build.link(linker, &inputs, &[], &format!("functions_{linker}"));
        let functions = binary::functions(&bin).unwrap();
        assert!(
            functions.windows(2).all(|w| w[0].address < w[1].address),
            "{linker}: not strictly increasing addresses"
        );
        assert!(functions.iter().all(|f| f.size > 0));
        // Same-named statics: two `helper`s, each qualified with its own file.
        let helpers: Vec<_> = functions.iter().filter(|f| f.name == "helper").collect();
        assert_eq!(helpers.len(), 2, "{linker}");
        let mut files: Vec<_> = helpers.iter().map(|f| f.id.file.clone()).collect();
        files.sort();
        assert_eq!(
            files,
            [Some("calc.c".into()), Some("util.c".into())],
            "{linker}"
        );
        // Unique names are not qualified, whatever the linker did with their binding.
        let main = functions.iter().find(|f| f.name == "main").unwrap();
        assert_eq!(main.id.file, None, "{linker}");
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        for expected in [
            "util_sum",
            "util_sum.cold",
            "calc_mix",
            "report_negative",
            "dup_one",
            "dup_two",
            "member_long_name",
        ] {
            assert!(
                names.contains(&expected),
                "{linker}: {expected} missing from {names:?}"
            );
        }
        // The alias at calc_gcd's address: one entry, the deterministic choice.
        assert!(
            names.contains(&"calc_gcd") && !names.contains(&"calc_gcd_alias"),
            "{linker}: {names:?}"
        );
        assert!(
            !names
                .iter()
                .any(|n| n.ends_with("@plt") || n.contains("$plt")),
            "{linker}: PLT stubs listed: {names:?}"
        );
    }
}

#[test]
fn fingerprint_follows_order_not_addresses() {
    let build = c_build();
    let objects = build.program();
    let a = build.link("bfd", &objects, &[], "fp_a");
    let b = build.link("bfd", &objects, &[], "fp_b");
    // Same order, but every address shifted by an extra leading object with code.
    let mut shifted = vec!["padding.o".to_string()];
    shifted.extend(objects.iter().cloned());
    let c = build.link("bfd", &shifted, &[], "fp_c");
    let mut reversed = build.objects();
    reversed.reverse();
    reversed.push("libfix.a".into());
    let d = build.link("bfd", &reversed, &[], "fp_d");

    let fa = binary::functions(&a).unwrap();
    let fc = binary::functions(&c).unwrap();
    let fd = binary::functions(&d).unwrap();
    assert_eq!(
        layout::fingerprint(&fa),
        layout::fingerprint(&binary::functions(&b).unwrap())
    );
    assert_ne!(layout::fingerprint(&fa), layout::fingerprint(&fd));

    let same = layout::distance::compare(&fa, &fa);
    assert_eq!(same.distance.kendall_tau, 0.0);
    assert_eq!(same.distance.share_moved, 0.0);
    let shifted = layout::distance::compare(&fa, &fc);
    assert_eq!(shifted.only_in_other, 1); // layout_padding
    assert_eq!(
        shifted.distance.kendall_tau, 0.0,
        "extra leading object keeps the relative order"
    );
    assert!(shifted.distance.share_moved > 0.5);
    let permuted = layout::distance::between(&fa, &fd);
    assert!(permuted.kendall_tau > 0.1, "{permuted:?}");
}

#[test]
fn stripped_and_non_elf_inputs_are_named_errors() {
    let build = c_build();
    let bin = build.link("bfd", &build.program(), &[], "to_strip");
    let stripped = build.path("stripped");
    run_ok(Command::new("strip").arg("-o").arg(&stripped).arg(&bin));
    // Each message, pinned whole, names the file and what is wrong with it (the build's
    // directory and the fixtures' are both written [dir]).
    let pinned = |err: String| in_dir(&in_dir(&err, build.dir.path()), &fixtures());
    let err = format!("{:#}", binary::functions(&stripped).unwrap_err());
    insta::assert_snapshot!("stripped", pinned(err));

    let source = fixtures().join("c/main.c");
    let err = format!("{:#}", binary::functions(&source).unwrap_err());
    insta::assert_snapshot!("not_elf", pinned(err));

    let err = format!(
        "{:#}",
        binary::functions(&build.path("util.o")).unwrap_err()
    );
    insta::assert_snapshot!("relocatable", pinned(err));

    let err = format!(
        "{:#}",
        binary::functions(&build.path("no-such-binary")).unwrap_err()
    );
    insta::assert_snapshot!("missing", pinned(err));
}

#[test]
fn gcc_object_sections_are_grouped() {
    let build = c_build();
    let util = layout::object_file::text_sections(&build.path("util.o")).unwrap();
    let find = |name: &str| {
        util.iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} in {util:?}"))
    };
    assert_eq!(find(".text.unlikely.util_sum").group, TextGroup::Unlikely);
    assert_eq!(find(".text.unlikely.util_sum").functions, ["util_sum.cold"]);
    assert_eq!(find(".text.util_sum").group, TextGroup::Normal);
    assert_eq!(find(".text.helper").functions, ["helper"]);
    assert!(util.iter().all(|s| !s.comdat));

    let main = layout::object_file::text_sections(&build.path("main.o")).unwrap();
    let startup = main.iter().find(|s| s.functions == ["main"]).unwrap();
    assert_eq!(
        (startup.name.as_str(), startup.group),
        (".text.startup.main", TextGroup::Startup)
    );

    let calc = layout::object_file::text_sections(&build.path("calc.o")).unwrap();
    let hot = calc.iter().find(|s| s.functions == ["calc_mix"]).unwrap();
    assert_eq!(hot.group, TextGroup::Hot);
    let gcd = calc.iter().find(|s| s.name == ".text.calc_gcd").unwrap();
    assert_eq!(gcd.functions, ["calc_gcd", "calc_gcd_alias"]);
    // Section sizes agree with readelf's.
    let readelf = run_ok(Command::new("readelf").arg("-SW").arg(build.path("calc.o")));
    let line = readelf
        .lines()
        .find(|l| l.contains(" .text.calc_gcd "))
        .unwrap();
    let size_hex = line.split_whitespace().rev().nth(5).unwrap();
    assert_eq!(
        gcd.size,
        u64::from_str_radix(size_hex, 16).unwrap(),
        "{line}"
    );
}

#[test]
fn cpp_comdat_sections_are_flagged_for_gcc_and_clang() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixtures().join("cpp");
    for compiler in ["g++", "clang++"] {
        let object = dir.path().join(format!("shapes-{compiler}.o"));
        run_ok(
            Command::new(compiler)
                .current_dir(&src)
                .args(["-O2", "-ffunction-sections", "-c", "shapes.cpp", "-o"])
                .arg(&object),
        );
        let sections = layout::object_file::text_sections(&object).unwrap();
        let template = sections
            .iter()
            .find(|s| s.functions.iter().any(|f| f == "_Z13checked_twiceIiET_S0_"))
            .unwrap_or_else(|| panic!("{compiler}: no template section in {sections:?}"));
        assert!(template.comdat, "{compiler}: template not COMDAT");
        assert!(!template.is_reorderable());
        let area = sections
            .iter()
            .find(|s| s.functions.iter().any(|f| f == "_Z4areaii"))
            .unwrap();
        assert!(
            !area.comdat && area.is_reorderable(),
            "{compiler}: {area:?}"
        );
    }
}

#[test]
fn clang_c_objects_have_one_section_per_function() {
    let dir = tempfile::tempdir().unwrap();
    let object = dir.path().join("util-clang.o");
    run_ok(
        Command::new("clang")
            .current_dir(fixtures().join("c"))
            .args([
                "-O2",
                "-Wno-unknown-attributes",
                "-ffunction-sections",
                "-c",
                "util.c",
                "-o",
            ])
            .arg(&object),
    );
    let sections = layout::object_file::text_sections(&object).unwrap();
    for function in [
        "util_sum",
        "util_scale",
        "util_clamp",
        "util_digits",
        "helper",
    ] {
        let s = sections
            .iter()
            .find(|s| s.functions == [function])
            .unwrap_or_else(|| panic!("{function} not alone in a section: {sections:?}"));
        assert_eq!(s.name, format!(".text.{function}"));
        assert_eq!(s.group, TextGroup::Normal);
    }
}

/// A library stripped of its `.symtab` (as distributions ship them) still places its
/// exported functions by its dynamic symbol table, at the addresses and sizes its full
/// table gives; its local functions are not there.
#[test]
fn a_stripped_librarys_exported_functions_come_from_its_dynamic_table() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("lib.c");
    std::fs::write(
        &source,
        "static int helper(int x) { return x * 3 + 1; }\n\
         int exported_one(int x) { return helper(x) + helper(x + 1); }\n\
         int exported_two(int x) { return x ^ 0x55; }\n",
    )
    .unwrap();
    let lib = dir.path().join("libx.so");
    run_ok(
        Command::new("gcc")
            .args(["-O0", "-shared", "-fPIC", "-o"])
            .arg(&lib)
            .arg(&source),
    );
    let stripped = dir.path().join("libx-stripped.so");
    run_ok(Command::new("strip").arg("-o").arg(&stripped).arg(&lib));
    assert!(binary::functions(&stripped).is_err());
    let full = binary::functions(&lib).unwrap();
    let exported = binary::exported_functions(&stripped).unwrap();
    let names: Vec<&str> = exported.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["exported_one", "exported_two"], "{exported:?}");
    for f in &exported {
        let same = full.iter().find(|g| g.name == f.name).unwrap();
        assert_eq!((f.address, f.size), (same.address, same.size), "{}", f.name);
    }
    assert!(full.iter().any(|f| f.name == "helper"));
}
