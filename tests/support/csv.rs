//! Helpers of the CLI tests that analyse CSV files (`analyze`, `compare`).

#![allow(dead_code)]

use std::io::Write;

use assert_cmd::Command;

/// The layoutrand executable under test.
pub fn layoutrand() -> Command {
    Command::cargo_bin("layoutrand").unwrap()
}

/// A temporary `.csv` file holding `text` (removed when dropped).
pub fn temp_csv(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

/// The path of a temporary file, as an argument.
pub fn arg(f: &tempfile::NamedTempFile) -> &str {
    f.path().to_str().unwrap()
}

/// `compare BASE NEW --levels LEVELS --value VALUE` followed by `more`.
pub fn compare_args<'a>(
    base: &'a str,
    new: &'a str,
    levels: &'a str,
    value: &'a str,
    more: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["compare", base, new, "--levels", levels, "--value", value];
    args.extend_from_slice(more);
    args
}

/// `analyze FILE --levels LEVELS --value VALUE` followed by `more`.
pub fn analyze_args<'a>(
    file: &'a str,
    levels: &'a str,
    value: &'a str,
    more: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["analyze", file, "--levels", levels, "--value", value];
    args.extend_from_slice(more);
    args
}
