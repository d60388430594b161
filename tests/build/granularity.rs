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
