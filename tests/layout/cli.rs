//! `layoutrand layout` as a user runs it, on binaries linked from fixtures/layout.

use crate::layout_support;

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;

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

    layoutrand()
        .arg("layout")
        .arg(&bin)
        .assert()
        .success()
        .stdout(contains("fingerprint  "))
        .stdout(contains("util_sum.cold"));
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
    layoutrand()
        .arg("layout")
        .arg(&a)
        .arg(&a)
        .assert()
        .success()
        .stdout(contains("kendall_tau            0.000000"));
}

#[test]
fn bad_files_are_named() {
    let source = fixtures().join("c/main.c");
    layoutrand()
        .arg("layout")
        .arg(&source)
        .assert()
        .failure()
        .stderr(contains("main.c").and(contains("not an ELF file")));
    layoutrand()
        .args(["layout", "/nonexistent/prog"])
        .assert()
        .failure()
        .stderr(contains("/nonexistent/prog"));
    layoutrand().arg("layout").assert().failure();
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
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_ne!(out.status.code(), Some(101), "{stderr}");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{stderr}");
    }
}
