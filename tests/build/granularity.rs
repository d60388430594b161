//! Never degrade silently: objects compiled without one section per function (here: a tree
//! built before `layoutrand build` ran, so nothing is recompiled through the shim) stop a
//! `module` build with an error naming them and the fix; `--granularity link` accepts them
//! and the manifest says what moved.

use crate::build_support;

use std::path::Path;

use crate::snapshot_support::{in_dir, stderr_in};
use build_support::*;
use layoutrand::files::manifest::Manifest;

#[test]
fn a_partly_built_tree_is_refused_unless_link_order_is_asked_for() {
    let (_tmp, src) = fixture("multimodule");
    let plain = std::process::Command::new("make")
        .current_dir(&src)
        .output()
        .unwrap();
    assert!(plain.status.success());
    std::fs::remove_file(src.join("multimodule")).unwrap();
    let out = src.parent().unwrap().join("out");
    let o = build(
        &src,
        &["--seeds", "2", "--out", out.to_str().unwrap()],
        &["make"],
    );
    assert_eq!(o.status.code(), Some(2));
    // The message, pinned whole, names the objects without one section per function and
    // both fixes (`make clean`, `--granularity link`).
    insta::assert_snapshot!(stderr_in(&o, src.parent().unwrap()));
    assert!(!out.join("manifest.json").exists());

    std::fs::remove_file(src.join("multimodule")).ok();
    let o = build(
        &src,
        &[
            "--seeds",
            "2",
            "--granularity",
            "link",
            "--out",
            out.to_str().unwrap(),
        ],
        &["make"],
    );
    assert_success(&o, "build --granularity link");
    let m = Manifest::load(Path::new(&out)).unwrap();
    let a = m.programs[0].achieved.clone().unwrap();
    assert_eq!(a.objects, 8);
    assert_eq!(a.modules_with_function_order, 0);
    assert!(a.modules_one_section >= 7, "{a:?}");
    // The summary, pinned whole (times written [t]), says the functions were not moved.
    insta::assert_snapshot!(crate::summary::without_times(&in_dir(
        &String::from_utf8_lossy(&o.stdout),
        src.parent().unwrap()
    )));
}

#[test]
fn a_clean_build_says_functions_move_within_every_module() {
    let (_tmp, src) = fixture("multimodule");
    let out = src.parent().unwrap().join("out");
    let o = build(
        &src,
        &["--seeds", "2", "--out", out.to_str().unwrap()],
        &["make"],
    );
    assert_success(&o, "build");
    let m = Manifest::load(&out).unwrap();
    let a = m.programs[0].achieved.clone().unwrap();
    assert_eq!((a.objects, a.modules_one_section), (8, 0));
    assert!(a.modules_with_function_order >= 7, "{a:?}");
    // The summary's words for it ("functions moved within 7 of 8 modules": main.c's `main`
    // sits in .text.startup, apart from its one other function) are pinned by
    // summary::the_build_and_extend_summaries, on the same clean build.
}

#[test]
fn archive_members_the_link_did_not_take_are_not_counted() {
    // nasm 2.16's ndisasm takes 17 of the 75 members of its archive, and the summary said its
    // functions moved "within 50 of 83 modules", counting members the binary does not hold.
    // Here a seventh member nothing calls joins the fixture's archive.
    let (_tmp, src) = fixture("archive");
    std::fs::write(
        src.join("lib7.c"),
        "int unused_one(int x) { return x * 7; }\nint unused_two(int x) { return x + 7; }\n",
    )
    .unwrap();
    let makefile = std::fs::read_to_string(src.join("Makefile")).unwrap();
    let makefile = makefile.replace("lib6.o\n", "lib6.o lib7.o\n");
    std::fs::write(src.join("Makefile"), makefile).unwrap();
    let out = src.parent().unwrap().join("out");
    let o = build(
        &src,
        &["--seeds", "1", "--out", out.to_str().unwrap()],
        &["make"],
    );
    assert_success(&o, "build");
    let m = Manifest::load(&out).unwrap();
    let a = m.programs[0].achieved.clone().unwrap();
    // main.o and the six members main calls; not lib7.o.
    assert_eq!(a.objects, 7, "{a:?}");
    // The functions placed are those of the binary that the build's own objects define, as
    // nm reads them: lib7's two are defined by its object but not in the binary.
    let text_names = |path: &Path| -> std::collections::BTreeSet<String> {
        let o = std::process::Command::new("nm")
            .args(["--defined-only", "--format=posix"])
            .arg(path)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                let name = f.next()?;
                matches!(f.next()?, "T" | "t").then(|| name.to_string())
            })
            .collect()
    };
    // Each object's own (its static `mix` is one of six): counted per object.
    let in_binary = text_names(&src.join("calc"));
    assert!(!in_binary.contains("unused_one"));
    let objects = [
        "main", "lib1", "lib2", "lib3", "lib4", "lib5", "lib6", "lib7",
    ];
    let per_object: Vec<usize> = objects
        .iter()
        .map(|o| {
            let names = text_names(&src.join(format!("{o}.o")));
            names.intersection(&in_binary).count()
        })
        .collect();
    assert_eq!(per_object[7], 0, "{per_object:?}");
    assert_eq!(a.functions_placed, Some(per_object.iter().sum()), "{a:?}");
}
