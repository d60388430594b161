//! `layout::archive` on a real GNU archive (long member name, two members named `dup.o`)
//! made by binutils `ar`, relinked with ld.bfd, gold, lld and mold.

use crate::layout_support;

use std::process::Command;

use crate::snapshot_support::in_dir;
use layout_support::{c_build, run_binary, run_ok, LINKERS};
use layoutrand::layout::{archive, binary};

#[test]
fn members_match_ar_and_the_index() {
    let build = c_build();
    let members = archive::members(&build.path("libfix.a")).unwrap();
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    // `ar t` is the independent reference for names and order.
    let ar_t = run_ok(Command::new("ar").arg("t").arg(build.path("libfix.a")));
    assert_eq!(names, ar_t.lines().collect::<Vec<_>>());
    assert_eq!(names, ["libmember_with_a_long_name.o", "dup.o", "dup.o"]);
    assert_eq!(members[0].symbols, ["member_long_name"]);
    assert_eq!(members[1].symbols, ["dup_one"]);
    assert_eq!(members[2].symbols, ["dup_two"]);
    let size = std::fs::metadata(build.path("dup1/dup.o")).unwrap().len();
    assert_eq!(members[1].size, size);
}

#[test]
fn reordered_copy_links_everywhere_in_member_order() {
    let build = c_build();
    let reference_output = run_binary(&build.link("bfd", &build.program(), &[], "archive_base"));
    let order = [2, 0, 1];
    archive::write_reordered(&build.path("libfix.a"), &build.path("libfix-r.a"), &order).unwrap();

    let ar_t = run_ok(Command::new("ar").arg("t").arg(build.path("libfix-r.a")));
    assert_eq!(
        ar_t.lines().collect::<Vec<_>>(),
        ["dup.o", "libmember_with_a_long_name.o", "dup.o"]
    );
    // binutils reads back the same index, pointing at the moved members.
    let armap = run_ok(
        Command::new("nm")
            .arg("--print-armap")
            .arg(build.path("libfix-r.a")),
    );
    let index: Vec<&str> = armap.lines().collect();
    assert!(index.contains(&"dup_two in dup.o"), "{armap}");
    assert!(
        index.contains(&"member_long_name in libmember_with_a_long_name.o"),
        "{armap}"
    );

    let mut inputs = build.objects();
    inputs.push("libfix-r.a".into());
    let member_functions: Vec<String> = ["dup_two", "member_long_name", "dup_one"]
        .map(String::from)
        .to_vec();
    for linker in LINKERS {
        let bin = build.link(linker, &inputs, &[], &format!("archive_{linker}"));
        assert_eq!(
            run_binary(&bin),
            reference_output,
            "{linker}: output differs"
        );
        let functions = binary::functions(&bin).unwrap();
        // Placement follows member order: dup2's dup.o, then the long name, then dup1's.
        let placed: Vec<String> = functions
            .iter()
            .filter(|f| member_functions.contains(&f.name))
            .map(|f| f.name.clone())
            .collect();
        assert_eq!(placed, member_functions, "{linker}");
    }
}

#[test]
fn writing_is_deterministic_and_identity_order_keeps_content() {
    let build = c_build();
    let a = build.path("libfix-id1.a");
    let b = build.path("libfix-id2.a");
    archive::write_reordered(&build.path("libfix.a"), &a, &[0, 1, 2]).unwrap();
    archive::write_reordered(&build.path("libfix.a"), &b, &[0, 1, 2]).unwrap();
    let bytes = std::fs::read(&a).unwrap();
    assert_eq!(bytes, std::fs::read(&b).unwrap());
    let original = archive::members(&build.path("libfix.a")).unwrap();
    assert_eq!(archive::members(&a).unwrap(), original);
    // Member bytes survive: `ar p` of the long-named member equals the object file.
    let printed = Command::new("ar")
        .arg("p")
        .arg(&a)
        .arg("libmember_with_a_long_name.o")
        .output()
        .unwrap();
    assert_eq!(
        printed.stdout,
        std::fs::read(build.path("libmember_with_a_long_name.o")).unwrap()
    );
}

#[test]
fn bad_orders_and_inputs_are_named() {
    let build = c_build();
    let src = build.path("libfix.a");
    let err = format!(
        "{:#}",
        archive::write_reordered(&src, &build.path("bad.a"), &[0, 0, 1]).unwrap_err()
    );
    // Each message, pinned whole, names the archive and what is wrong with the order or
    // the input.
    insta::assert_snapshot!("member_listed_twice", in_dir(&err, build.dir.path()));
    let err = format!(
        "{:#}",
        archive::write_reordered(&src, &build.path("bad.a"), &[0, 1]).unwrap_err()
    );
    insta::assert_snapshot!("order_too_short", in_dir(&err, build.dir.path()));
    assert!(
        !build.path("bad.a").exists(),
        "a failed write left a file behind"
    );
    let err = format!("{:#}", archive::members(&build.path("util.o")).unwrap_err());
    insta::assert_snapshot!("not_an_archive", in_dir(&err, build.dir.path()));

    run_ok(
        Command::new("ar")
            .current_dir(build.dir.path())
            .args(["qcT", "libthin.a", "util.o"]),
    );
    assert_eq!(
        archive::members(&build.path("libthin.a")).unwrap()[0].name,
        "util.o"
    );
    let err = format!(
        "{:#}",
        archive::write_reordered(&build.path("libthin.a"), &build.path("t.a"), &[0]).unwrap_err()
    );
    insta::assert_snapshot!("thin_archive", in_dir(&err, build.dir.path()));
}
