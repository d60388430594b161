//! Integration tests of Hostile input: parsers, paths and stores that must be refused or
//! handled without harm.
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test safety MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

#[path = "../support/build.rs"]
mod build_support;
#[path = "../support/run.rs"]
mod run_support;
#[path = "../support/snapshots.rs"]
mod snapshot_support;

/// `text` with what differs per machine and per run written as placeholders, for a snapshot:
/// this crate's folder (the tests' working directory) `[crate]`, the layoutrand under test
/// `[layoutrand]`, the recorded `PATH` and `HOME` `[path]` and `[home]`, a Slurm plan's
/// token `[token]`, a drawn schedule seed `[seed]` and layoutrand's version `[version]`.
pub(crate) fn machine_free(text: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("layoutrand");
    let text = text
        .replace(&*bin.to_string_lossy(), "[layoutrand]")
        .replace(env!("CARGO_MANIFEST_DIR"), "[crate]")
        .replace(concat!("(", env!("CARGO_PKG_VERSION"), ")"), "([version])")
        .replace(
            concat!("layoutrand ", env!("CARGO_PKG_VERSION")),
            "layoutrand [version]",
        );
    snapshot_support::redact(
        &text,
        &[
            (r#""PATH=[^"]*""#, r#""PATH=[path]""#),
            (r#""HOME=[^"]*""#, r#""HOME=[home]""#),
            (r#"token "[0-9a-f]+""#, r#"token "[token]""#),
            (r"schedule seed \d+", "schedule seed [seed]"),
        ],
    )
}

/// [`snapshot_support::stderr_in`], [`machine_free`].
pub(crate) fn stderr_in(output: &std::process::Output, dir: &std::path::Path) -> String {
    machine_free(&snapshot_support::stderr_in(output, dir))
}

/// [`snapshot_support::stdout_in`], [`machine_free`].
pub(crate) fn stdout_in(output: &std::process::Output, dir: &std::path::Path) -> String {
    machine_free(&snapshot_support::stdout_in(output, dir))
}

/// [`snapshot_support::in_dir`], [`machine_free`].
pub(crate) fn in_dir(text: &str, dir: &std::path::Path) -> String {
    machine_free(&snapshot_support::in_dir(text, dir))
}

mod attacks;
mod boundary;
mod heap_library;
mod output;
mod parsers;
mod paths;
mod planted;
mod reader;
mod store;
mod trust;
mod writer;
