//! Snapshots (insta) of the commands beside `report` (issue 50: every command's output
//! pinned): `compare`, `export`, `analyze` and `dimension` in each of their formats on two
//! seeded synthetic stores, and the CLI reference (every subcommand's `--help`). A change of
//! any word or number fails `cargo test` until it is accepted (`INSTA_UPDATE=always cargo
//! test --test report snapshot_commands::`) and shows in tests/report/snapshots/.
//!
//! Every command runs in the stores' parent directory with relative names, so that the
//! paths the outputs name are the same on every machine.

use std::path::Path;

use crate::report_support;

use report_support::{write_dir, Design, ThreeLevel};

/// `layoutrand ARGS…` run in `parent`; it must succeed.
fn layoutrand_in(parent: &Path, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(parent)
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// 8 seeds × 3 executions × 5 iterations of `demo` with a 3 % layout effect, every value
/// times `factor`.
fn store(dir: &Path, factor: f64) {
    std::fs::create_dir_all(dir).unwrap();
    let design = Design::new(8, 3, 5);
    let mut gen = ThreeLevel::new(37, 4e6, 0.03, 0.004, 0.01, 0.0);
    write_dir(dir, &design, &mut |_, seed, e, _, _| {
        factor * gen.value(seed, e)
    });
}

#[test]
fn compare_export_analyze_and_dimension_in_every_format() {
    let parent = tempfile::tempdir().unwrap();
    let p = parent.path();
    store(&p.join("base"), 1.0);
    store(&p.join("new"), 0.97);
    for format in ["text", "json"] {
        let out = layoutrand_in(p, &["compare", "base", "new", "--format", format]);
        insta::assert_snapshot!(format!("compare_{format}"), out);
        let out = layoutrand_in(p, &["dimension", "base", "--format", format]);
        insta::assert_snapshot!(format!("dimension_{format}"), out);
    }
    for format in ["csv", "json"] {
        let out = layoutrand_in(p, &["export", "base", "--format", format]);
        insta::assert_snapshot!(format!("export_{format}"), out);
    }
    let csv = layoutrand_in(p, &["export", "base"]);
    std::fs::write(p.join("base.csv"), csv).unwrap();
    for format in ["text", "json"] {
        let out = layoutrand_in(
            p,
            &[
                "analyze",
                "base.csv",
                "--levels",
                "binary,execution,iteration",
                "--value",
                "value",
                "--format",
                format,
            ],
        );
        insta::assert_snapshot!(format!("analyze_{format}"), out);
    }
}

/// The subcommands `layoutrand --help` lists, in its order.
fn subcommands() -> Vec<String> {
    let help = layoutrand_in(Path::new("."), &["--help"]);
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The CLI reference: `layoutrand --help` and every subcommand's `--help`, one after the
/// other (generated from the flags' one definition; a changed flag shows here).
#[test]
fn the_cli_reference() {
    let mut reference = layoutrand_in(Path::new("."), &["--help"]);
    let commands = subcommands();
    assert!(commands.len() >= 15, "{commands:?}");
    for command in commands {
        reference.push_str(&format!("\n===== layoutrand {command} --help\n"));
        reference.push_str(&layoutrand_in(Path::new("."), &[&command, "--help"]));
    }
    insta::assert_snapshot!("cli_reference", reference);
}
