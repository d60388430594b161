//! Never degrade silently: objects compiled without one section per function (here: a tree
//! built before `layoutrand build` ran, so nothing is recompiled through the shim) stop a
//! `module` build with an error naming them and the fix; `--granularity link` accepts them
//! and the manifest says what moved.

use crate::build_support;

use std::path::Path;

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
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("without one section per function")
            && stderr.contains("m1.o")
            && stderr.contains("make clean")
            && stderr.contains("--granularity link"),
        "{stderr}"
    );
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
    assert!(String::from_utf8_lossy(&o.stdout).contains("functions not moved"));
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
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("achieved: program multimodule: objects moved; functions moved within"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
