//! What a snapshot (insta) of a command's message needs to be the same on every machine: the
//! temporary directory a test runs in, named `[dir]`, and whatever else a test names by
//! pattern (addresses, sizes, times). A message pinned whole by a snapshot replaces the
//! `contains("…")` checks of its words (issue 50): a rewording is accepted in one place
//! (`INSTA_UPDATE=always cargo test …`, then review the diff of `snapshots/`) instead of
//! hunted through assertions, and a word that goes missing still fails the test.
//!
//! insta's `filters` feature would add a crate to the build; these few lines do what the
//! tests need.

#![allow(dead_code)] // each test crate uses the part it needs

use std::path::Path;

/// `text` with every match of each `(pattern, replacement)` replaced, in order (patterns are
/// multi-line: `^` and `$` match at each line).
pub fn redact(text: &str, filters: &[(&str, &str)]) -> String {
    filters
        .iter()
        .fold(text.to_string(), |text, (pattern, by)| {
            regex::Regex::new(&format!("(?m){pattern}"))
                .unwrap()
                .replace_all(&text, *by)
                .into_owned()
        })
}

/// `text` with the directory `dir` (as given and as the kernel resolves it) written `[dir]`,
/// so that a message naming a file of a temporary directory is the same on every run.
pub fn in_dir(text: &str, dir: &Path) -> String {
    let mut text = text.to_string();
    let mut names = vec![dir.to_path_buf()];
    if let Ok(resolved) = dir.canonicalize() {
        names.push(resolved);
    }
    // The longer name first, so that a resolved name that extends the given one is replaced
    // whole.
    names.sort_by_key(|n| std::cmp::Reverse(n.as_os_str().len()));
    for name in names {
        text = text.replace(&*name.to_string_lossy(), "[dir]");
    }
    text
}

/// The standard error of a finished command, as text, with `dir` written `[dir]`.
pub fn stderr_in(output: &std::process::Output, dir: &Path) -> String {
    in_dir(&String::from_utf8_lossy(&output.stderr), dir)
}

/// The standard output of a finished command, as text, with `dir` written `[dir]`.
pub fn stdout_in(output: &std::process::Output, dir: &Path) -> String {
    in_dir(&String::from_utf8_lossy(&output.stdout), dir)
}

/// `text` with what differs per machine and per run written as placeholders, for a snapshot:
/// the crate's folder (the tests' working directory) `[crate]`, the layoutrand under test
/// `[layoutrand]`, the recorded `PATH` and `HOME` `[path]` and `[home]`, a Slurm plan's
/// token `[token]`, a drawn schedule seed `[seed]` and layoutrand's version `[version]`.
pub fn machine_free(text: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("layoutrand");
    let text = text
        .replace(&*bin.to_string_lossy(), "[layoutrand]")
        .replace(env!("CARGO_MANIFEST_DIR"), "[crate]")
        .replace(concat!("(", env!("CARGO_PKG_VERSION"), ")"), "([version])")
        .replace(
            concat!("layoutrand ", env!("CARGO_PKG_VERSION")),
            "layoutrand [version]",
        );
    redact(
        &text,
        &[
            (r#""PATH=[^"]*""#, r#""PATH=[path]""#),
            (r#""HOME=[^"]*""#, r#""HOME=[home]""#),
            (r#"token "[0-9a-f]+""#, r#"token "[token]""#),
            (r"schedule seed \d+", "schedule seed [seed]"),
        ],
    )
}

/// [`stderr_in`], then [`machine_free`].
pub fn machine_free_stderr_in(output: &std::process::Output, dir: &std::path::Path) -> String {
    machine_free(&stderr_in(output, dir))
}

/// [`stdout_in`], then [`machine_free`].
pub fn machine_free_stdout_in(output: &std::process::Output, dir: &std::path::Path) -> String {
    machine_free(&stdout_in(output, dir))
}

/// [`in_dir`], then [`machine_free`].
pub fn machine_free_in_dir(text: &str, dir: &std::path::Path) -> String {
    machine_free(&in_dir(text, dir))
}

#[test]
fn redact_replaces_what_it_matches_and_nothing_else() {
    assert_eq!(
        redact(
            "0x401000  15  helper\nkeep 0x12\n",
            &[(r"^0x[0-9a-f]+ +\d+", "[addr] [size]")]
        ),
        "[addr] [size]  helper\nkeep 0x12\n"
    );
}

#[test]
fn in_dir_names_the_directory_however_it_is_spelled() {
    let d = tempfile::tempdir().unwrap();
    let given = d.path().join("a.json");
    let resolved = d.path().canonicalize().unwrap().join("b.json");
    let text = format!("{} and {}", given.display(), resolved.display());
    assert_eq!(in_dir(&text, d.path()), "[dir]/a.json and [dir]/b.json");
}
