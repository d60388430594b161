//! The reordering primitives end to end: fixtures compiled with gcc/g++ -O2 -g
//! -ffunction-sections, reordered, linked with ld.bfd, gold, lld and mold, run, and their
//! function order read back with `layout::binary::functions`.

use crate::layout_support;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::snapshot_support::redact;
use layout_support::{c_build, fixtures, module_sequence, run_binary, run_ok, CBuild, LINKERS};
use layoutrand::layout::binary::{self, Function};
use layoutrand::layout::fingerprint;
use layoutrand::layout::object_file::{text_sections, TextGroup, TextSection};
use layoutrand::layout::reorder::{reorder_sections, shuffle_within_groups};
use layoutrand::seeded::SeededRng;

/// Functions of `sections` in that order (aliases included; callers filter by presence).
fn functions_of(sections: &[TextSection]) -> Vec<String> {
    sections
        .iter()
        .flat_map(|s| s.functions.iter().cloned())
        .collect()
}

/// `object` with its sections `order` (indices) in that order, written to `out`.
fn reorder_file(object: &Path, out: &Path, order: &[usize]) {
    let bytes = reorder_sections(&std::fs::read(object).unwrap(), order, &[], &[]).unwrap();
    std::fs::write(out, bytes).unwrap();
}

#[test]
fn section_table_reorder_orders_each_module_for_every_linker() {
    orders_each_module_for_every_linker("st", &|object, out, order| {
        let indices: Vec<usize> = order.iter().map(|s| s.index).collect();
        reorder_file(object, out, &indices);
    });
}

/// Reorders every module of the C fixture with `reorder(object, out, order)`, links the
/// results with each linker, and checks the program's output and each module's function
/// order per group.
fn orders_each_module_for_every_linker(tag: &str, reorder: &dyn Fn(&Path, &Path, &[TextSection])) {
    let build = c_build();
    let baseline_bin = build.link("bfd", &build.program(), &[], &format!("{tag}_baseline"));
    let reference = run_binary(&baseline_bin);

    // Module → (source file, requested order).
    let mut requested: Vec<(String, Vec<TextSection>)> = Vec::new();
    let mut some_order_changed = false;
    for module in CBuild::MODULES {
        let object = build.path(&format!("{module}.o"));
        let sections = text_sections(&object).unwrap();
        let order = shuffle_within_groups(
            &sections,
            &mut SeededRng::new(11, &format!("test {module}")),
        );
        let original: Vec<&str> = sections
            .iter()
            .filter(|s| s.is_reorderable())
            .map(|s| s.name.as_str())
            .collect();
        let chosen: Vec<&str> = order.iter().map(|s| s.name.as_str()).collect();
        some_order_changed |= original != chosen;
        reorder(&object, &build.path(&format!("{tag}_{module}.o")), &order);
        requested.push((format!("{module}.c"), order));
    }
    assert!(
        some_order_changed,
        "precondition: the seed must change some module's order"
    );

    let mut inputs: Vec<String> = CBuild::MODULES
        .iter()
        .map(|m| format!("{tag}_{m}.o"))
        .collect();
    inputs.push("libfix.a".into());
    for linker in LINKERS {
        let bin = build.link(linker, &inputs, &[], &format!("{tag}_{linker}"));
        assert_eq!(
            run_binary(&bin),
            reference,
            "{linker}: output differs from the default link"
        );
        let functions = binary::functions(&bin).unwrap();
        for (source, order) in &requested {
            for group in TextGroup::REORDERABLE {
                let in_group: Vec<TextSection> =
                    order.iter().filter(|s| s.group == group).cloned().collect();
                let wanted = functions_of(&in_group);
                let got = module_sequence(&functions, &wanted, source);
                let expected: Vec<String> =
                    wanted.iter().filter(|n| got.contains(n)).cloned().collect();
                assert_eq!(got, expected, "{linker}: {source} {group:?}");
                assert!(
                    got.len() + 1 >= wanted.len(),
                    "{linker}: {source}: functions lost: {wanted:?} vs {got:?}"
                );
            }
        }
        if linker == "bfd" {
            assert_ne!(
                fingerprint(&functions),
                fingerprint(&binary::functions(&baseline_bin).unwrap())
            );
            assert_groups_gathered(&functions, &requested);
        }
    }
}

/// bfd's default script gathers cold, startup and hot code of all modules ahead of ordinary
/// code: the `ld -r` output must still let it (one output section per group).
fn assert_groups_gathered(functions: &[Function], requested: &[(String, Vec<TextSection>)]) {
    let address = |name: &str| functions.iter().find(|f| f.name == name).unwrap().address;
    let normal_start = requested
        .iter()
        .flat_map(|(_, o)| o.iter().filter(|s| s.group == TextGroup::Normal))
        .flat_map(|s| s.functions.iter())
        .filter_map(|n| functions.iter().find(|f| &f.name == n))
        .map(|f| f.address)
        .min()
        .unwrap();
    let cold = [address("util_sum.cold"), address("report_negative")];
    let (main, hot) = (address("main"), address("calc_mix"));
    assert!(
        cold.iter().all(|&c| c < main) && main < hot && hot < normal_start,
        "groups scattered"
    );
}

fn compile_cpp(dir: &Path) -> Vec<PathBuf> {
    ["shapes", "main"]
        .iter()
        .map(|unit| {
            let object = dir.join(format!("{unit}.o"));
            run_ok(
                Command::new("g++")
                    .current_dir(fixtures().join("cpp"))
                    .args([
                        "-O2",
                        "-g",
                        "-ffunction-sections",
                        "-c",
                        &format!("{unit}.cpp"),
                        "-o",
                    ])
                    .arg(&object),
            );
            object
        })
        .collect()
}

fn link_cpp(dir: &Path, linker: &str, objects: &[PathBuf], out: &str) -> PathBuf {
    let bin = dir.join(out);
    run_ok(
        Command::new("g++")
            .arg(format!("-fuse-ld={linker}"))
            .args(objects)
            .arg("-o")
            .arg(&bin),
    );
    bin
}

/// `addr2line` file:line of each function's first byte, by name.
fn source_lines(bin: &Path, functions: &[Function]) -> HashMap<String, String> {
    let mut cmd = Command::new("addr2line");
    cmd.arg("-e").arg(bin);
    for f in functions {
        cmd.arg(format!("{:#x}", f.address));
    }
    let out = run_ok(&mut cmd);
    functions
        .iter()
        .zip(out.lines())
        .map(|(f, line)| {
            (
                format!("{}@{:?}", f.name, f.file),
                line.split(" (").next().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn cpp_keeps_comdat_unwinding_and_debug_info_after_reordering() {
    let dir = tempfile::tempdir().unwrap();
    let objects = compile_cpp(dir.path());
    let baseline = link_cpp(dir.path(), "bfd", &objects, "cpp_base");
    let reference = run_binary(&baseline);
    assert!(reference.contains("thrown=4"), "{reference}");
    let base_functions = binary::functions(&baseline).unwrap();
    let base_lines = source_lines(&baseline, &base_functions);

    let mut reordered = Vec::new();
    for object in &objects {
        let sections = text_sections(object).unwrap();
        assert!(
            sections.iter().any(|s| s.comdat),
            "fixture must have COMDAT sections"
        );
        // Reverse each group: a deterministic order surely different from the compiler's.
        let mut order: Vec<usize> = Vec::new();
        for group in TextGroup::REORDERABLE {
            let mut indices: Vec<usize> = sections
                .iter()
                .filter(|s| s.is_reorderable() && s.group == group)
                .map(|s| s.index)
                .collect();
            indices.reverse();
            order.extend(indices);
        }
        let out = object.with_extension("r.o");
        reorder_file(object, &out, &order);
        // The COMDAT groups survive as groups.
        let after = text_sections(&out).unwrap();
        let comdat_before: HashSet<_> = sections
            .iter()
            .filter(|s| s.comdat)
            .map(|s| s.name.clone())
            .collect();
        let comdat_after: HashSet<_> = after
            .iter()
            .filter(|s| s.comdat)
            .map(|s| s.name.clone())
            .collect();
        assert_eq!(comdat_before, comdat_after);
        reordered.push(out);
    }
    for linker in LINKERS {
        let bin = link_cpp(dir.path(), linker, &reordered, &format!("cpp_{linker}"));
        assert_eq!(
            run_binary(&bin),
            reference,
            "{linker}: exceptions or output broken"
        );
        let functions = binary::functions(&bin).unwrap();
        let template = functions
            .iter()
            .filter(|f| f.name == "_Z13checked_twiceIiET_S0_")
            .count();
        assert_eq!(template, 1, "{linker}: COMDAT template not de-duplicated");
        if linker == "bfd" {
            assert_ne!(fingerprint(&functions), fingerprint(&base_functions));
            // Debug info still maps every function to the same source line as before.
            let lines = source_lines(&bin, &functions);
            let mut checked = 0;
            for (key, line) in &lines {
                if let Some(base_line) = base_lines.get(key) {
                    if key.contains("area") || key.contains("ratio") || key.contains("helper") {
                        assert!(!line.starts_with("??"), "{key}: no line info");
                        checked += 1;
                    }
                    assert_eq!(line, base_line, "{key}");
                }
            }
            assert!(checked >= 4, "too few functions checked: {lines:?}");
        }
    }
}

#[test]
fn clang_objects_reorder_too() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixtures().join("c");
    let compile = |extra: &[&str], source: &str, object: &str| {
        run_ok(
            Command::new("clang")
                .current_dir(&src)
                .args([
                    "-O2",
                    "-g",
                    "-Wno-unknown-attributes",
                    "-ffunction-sections",
                ])
                .args(extra)
                .args(["-c", source, "-o"])
                .arg(dir.path().join(object)),
        );
    };
    let mut objects = Vec::new();
    for unit in [
        "main",
        "util",
        "calc",
        "errlog",
        "libmember_with_a_long_name",
        "dup1/dup",
        "dup2/dup",
    ] {
        let object = format!("{}.o", unit.replace('/', "_"));
        compile(&[], &format!("{unit}.c"), &object);
        objects.push(dir.path().join(object));
    }
    // Also a module whose sections all share one name.
    compile(
        &["-fno-unique-section-names"],
        "calc.c",
        "calc_same_names.o",
    );
    let link = |inputs: &[PathBuf], out: &str| {
        let bin = dir.path().join(out);
        run_ok(
            Command::new("clang")
                .arg("-fuse-ld=lld")
                .args(inputs)
                .arg("-o")
                .arg(&bin),
        );
        bin
    };
    let reference = run_binary(&link(&objects, "clang_base"));

    let util = &objects[1];
    let sections = text_sections(util).unwrap();
    let mut order: Vec<&TextSection> = sections.iter().filter(|s| s.is_reorderable()).collect();
    order.reverse();
    let wanted = functions_of(&order.iter().map(|&s| s.clone()).collect::<Vec<_>>());
    let indices: Vec<usize> = order.iter().map(|s| s.index).collect();
    let mut inputs = objects.clone();
    inputs[1] = dir.path().join("util_r.o");
    reorder_file(util, &inputs[1], &indices);

    let same_names = dir.path().join("calc_same_names.o");
    let same_sections = text_sections(&same_names).unwrap();
    let mut same_order: Vec<usize> = same_sections
        .iter()
        .filter(|s| s.is_reorderable())
        .map(|s| s.index)
        .collect();
    same_order.reverse();
    inputs[2] = dir.path().join("calc_same_names_r.o");
    reorder_file(&same_names, &inputs[2], &same_order);

    let bin = link(&inputs, "clang_r");
    assert_eq!(run_binary(&bin), reference);
    let functions = binary::functions(&bin).unwrap();
    assert_eq!(module_sequence(&functions, &wanted, "util.c"), wanted);
}

/// Padding in front of every movable section: with every linker the program runs as
/// before, has the same functions with the same sizes, and its functions sit at other
/// offsets (the padding is between functions, never inside one).
#[test]
fn section_table_padding_moves_functions_and_keeps_their_code() {
    let build = c_build();
    let reference = run_binary(&build.link("bfd", &build.program(), &[], "pad_reference"));
    let mut inputs = Vec::new();
    for (m, module) in CBuild::MODULES.iter().enumerate() {
        let object = build.path(&format!("{module}.o"));
        let sections = text_sections(&object).unwrap();
        let movable: Vec<usize> = sections
            .iter()
            .filter(|s| s.is_reorderable())
            .map(|s| s.index)
            .collect();
        // Not multiples of 64: the cache-line offsets must change.
        let padding: Vec<(usize, u64)> = movable
            .iter()
            .enumerate()
            .map(|(k, &i)| (i, 16 * (1 + ((m + k) % 3) as u64)))
            .collect();
        let data = std::fs::read(&object).unwrap();
        let same = reorder_sections(&data, &movable, &[], &[]).unwrap();
        assert_eq!(
            same, data,
            "{module}: the identity order must give the same bytes"
        );
        let padded = reorder_sections(&data, &movable, &padding, &[]).unwrap();
        assert_eq!(
            padded,
            reorder_sections(&data, &movable, &padding, &[]).unwrap(),
            "{module}: not reproducible"
        );
        let name = format!("pad_{module}.o");
        std::fs::write(build.path(&name), padded).unwrap();
        inputs.push(name);
    }
    let mut plain = build.objects();
    plain.push("libfix.a".into());
    inputs.push("libfix.a".into());
    for linker in LINKERS {
        let unpadded =
            binary::functions(&build.link(linker, &plain, &[], &format!("unpad_{linker}")))
                .unwrap();
        let bin = build.link(linker, &inputs, &[], &format!("pad_{linker}"));
        assert_eq!(run_binary(&bin), reference, "{linker}: output changed");
        let functions = binary::functions(&bin).unwrap();
        let sizes = |f: &[Function]| -> Vec<(String, u64)> {
            let mut v: Vec<(String, u64)> = f.iter().map(|f| (f.name.clone(), f.size)).collect();
            v.sort();
            v
        };
        assert_eq!(
            sizes(&functions),
            sizes(&unpadded),
            "{linker}: code changed"
        );
        let moved = functions
            .iter()
            .filter(|f| {
                unpadded
                    .iter()
                    .find(|u| u.name == f.name)
                    .is_some_and(|u| u.address % 64 != f.address % 64)
            })
            .count();
        assert!(
            moved >= 5,
            "{linker}: only {moved} functions changed their offset mod 64"
        );
    }
}

#[test]
fn section_table_reorder_reports_bad_input() {
    let build = c_build();
    let data = std::fs::read(build.path("util.o")).unwrap();
    let sections = text_sections(&build.path("util.o")).unwrap();
    let movable = sections.iter().find(|s| s.is_reorderable()).unwrap().index;
    let symtab = object::File::parse(&*data)
        .ok()
        .and_then(|f| {
            use object::{Object, ObjectSection};
            f.sections()
                .find(|s| s.name() == Ok(".symtab"))
                .map(|s| s.index().0)
        })
        .unwrap();
    // The section count of the ELF header (e_shnum, the null section included).
    let count = u16::from_le_bytes([data[0x3c], data[0x3d]]);
    let err = |order: &[usize], padding: &[(usize, u64)]| {
        format!(
            "{:#}",
            reorder_sections(&data, order, padding, &[]).unwrap_err()
        )
    };
    // Each message is pinned whole (the section indices and count are the compiler's,
    // written by role).
    let pinned = |text: String| {
        redact(
            &text,
            &[
                (&format!(r"\b{movable}\b"), "[movable]"),
                (&format!(r"\b{symtab}\b"), "[symtab]"),
                (
                    &format!(r"the object has {count}\)"),
                    "the object has [count])",
                ),
            ],
        )
    };
    insta::assert_snapshot!("listed_twice", pinned(err(&[movable, movable], &[])));
    insta::assert_snapshot!("out_of_range", pinned(err(&[100_000], &[])));
    insta::assert_snapshot!("null_section", pinned(err(&[0], &[])));
    insta::assert_snapshot!("symtab_ordered", pinned(err(&[symtab], &[])));
    insta::assert_snapshot!("symtab_padded", pinned(err(&[movable], &[(symtab, 16)])));
    insta::assert_snapshot!(
        "not_elf",
        format!(
            "{:#}",
            reorder_sections(b"not an object", &[], &[], &[]).unwrap_err()
        )
    );
}
