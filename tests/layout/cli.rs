//! `layoutrand layout` as a user runs it, on binaries linked from fixtures/layout.

use crate::layout_support;

use assert_cmd::Command;

use crate::snapshot_support::{stderr_in, stdout_in};
use layout_support::{c_build, fixtures};

fn layoutrand() -> Command {
    Command::cargo_bin("layoutrand").unwrap()
}

#[test]
fn one_binary_json_lists_functions_and_fingerprint() {
    let build = c_build();
    let bin = build.link("bfd", &build.program(), &[], "cli_one");
    let out = layoutrand()
        .arg("layout")
        .arg(&bin)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let functions = json["functions"].as_array().unwrap();
    let library = layoutrand::layout::binary::functions(&bin).unwrap();
    assert_eq!(functions.len(), library.len());
    assert_eq!(
        json["fingerprint"],
        layoutrand::layout::fingerprint(&library)
    );
    let addresses: Vec<u64> = functions
        .iter()
        .map(|f| f["address"].as_u64().unwrap())
        .collect();
    assert!(addresses.windows(2).all(|w| w[0] < w[1]));
    assert!(functions
        .iter()
        .any(|f| f["name"] == "helper" && f["file"] == "util.c"));

    // The text form: its header, pinned whole (the fingerprint and the count of functions,
    // the toolchain's, written by name once checked against the JSON's), then a row per
    // function, util_sum.cold's among them.
    let out = layoutrand().arg("layout").arg(&bin).assert().success();
    let text = stdout_in(out.get_output(), build.dir.path());
    let (header, rows) = text.split_once("\n\n").unwrap();
    let header = header
        .replace(json["fingerprint"].as_str().unwrap(), "[fingerprint]")
        .replace(
            &format!("functions    {}", functions.len()),
            "functions    [count]",
        );
    insta::assert_snapshot!("text_header", header);
    assert!(
        rows.lines()
            .any(|row| row.split_whitespace().nth(2) == Some("util_sum.cold")),
        "{rows}"
    );
}

#[test]
fn two_binaries_give_distances() {
    let build = c_build();
    let a = build.link("bfd", &build.program(), &[], "cli_a");
    let mut reversed = build.objects();
    reversed.reverse();
    reversed.push("libfix.a".into());
    let b = build.link("bfd", &reversed, &[], "cli_b");
    let out = layoutrand()
        .arg("layout")
        .arg(&a)
        .arg(&b)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected = layoutrand::layout::distance::between(
        &layoutrand::layout::binary::functions(&a).unwrap(),
        &layoutrand::layout::binary::functions(&b).unwrap(),
    );
    // serde_json's default float parsing may differ in the last bit.
    assert!(
        (json["distance"]["kendall_tau"].as_f64().unwrap() - expected.kendall_tau).abs() < 1e-12
    );
    assert!(expected.kendall_tau > 0.0);
    for key in [
        "share_moved",
        "share_mod64_changed",
        "share_mod4096_changed",
    ] {
        assert!(json["distance"][key].is_number(), "{key}");
    }
    // A binary against itself: every distance 0, in the text form pinned whole (the
    // fingerprint and the count of functions, the toolchain's, written by name).
    let out = layoutrand()
        .arg("layout")
        .arg(&a)
        .arg(&a)
        .assert()
        .success();
    let library = layoutrand::layout::binary::functions(&a).unwrap();
    let text = stdout_in(out.get_output(), build.dir.path())
        .replace(&layoutrand::layout::fingerprint(&library), "[fingerprint]")
        .replace(
            &format!("functions              {} common", library.len()),
            "functions              [count] common",
        );
    insta::assert_snapshot!("itself", text);
}

#[test]
fn bad_files_are_named() {
    let source = fixtures().join("c/main.c");
    // Each message, pinned whole, names the file and what is wrong with it.
    let out = layoutrand().arg("layout").arg(&source).assert().code(2);
    insta::assert_snapshot!("not_elf", stderr_in(out.get_output(), &fixtures()));
    let out = layoutrand()
        .args(["layout", "/nonexistent/prog"])
        .assert()
        .code(2);
    insta::assert_snapshot!("missing", stderr_in(out.get_output(), &fixtures()));
    layoutrand().arg("layout").assert().code(2);
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `layoutrand layout BIN | head`: the reader goes away before the output is written.
    let build = c_build();
    let bin = build.link("bfd", &build.program(), &[], "cli_pipe");
    for format in ["text", "json"] {
        // The read end is closed before the child starts, so its first write gets EPIPE
        // whatever the scheduling (closing it after the spawn raced with a fast child
        // whose whole output fitted in the pipe's buffer).
        let write_end = {
            use std::os::fd::FromRawFd;
            let mut fds = [0; 2];
            assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe()");
            unsafe {
                drop(std::os::fd::OwnedFd::from_raw_fd(fds[0]));
                std::os::fd::OwnedFd::from_raw_fd(fds[1])
            }
        };
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("layoutrand"))
            .arg("layout")
            .arg(&bin)
            .args(["--format", format])
            .stdout(std::process::Stdio::from(write_end))
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Quietly: no panic, no message at all.
        assert!(stderr.is_empty(), "{stderr}");
        assert_ne!(out.status.code(), Some(101), "{stderr}");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{stderr}");
    }
}
