//! `@file` response files: expanded to classify a call, while the original arguments are what
//! the real tool receives.
//!
//! The syntax is libiberty's `expandargv` (used by gcc, binutils and, compatibly, clang and
//! mold): arguments separated by white space, with single quotes, double quotes and backslash
//! escapes; a response file may name further response files; `@name` whose file cannot be
//! read stays a literal argument.

use std::path::Path;

/// Deepest nesting of response files followed (libiberty stops at 2000; a cycle would
/// otherwise never end).
const MAX_DEPTH: usize = 16;

/// Expands every readable `@file` in `args`, relative to `cwd`.
pub(crate) fn expand(args: &[String], cwd: &Path) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    expand_into(args, cwd, 0, &mut out);
    out
}

fn expand_into(args: &[String], cwd: &Path, depth: usize, out: &mut Vec<String>) {
    for arg in args {
        let Some(name) = arg.strip_prefix('@') else {
            out.push(arg.clone());
            continue;
        };
        let text = if depth < MAX_DEPTH && !name.is_empty() {
            std::fs::read_to_string(cwd.join(name)).ok()
        } else {
            None
        };
        match text {
            Some(text) => expand_into(&split(&text), cwd, depth + 1, out),
            None => out.push(arg.clone()),
        }
    }
}

/// Splits response-file text into arguments (libiberty `buildargv` rules).
pub(crate) fn split(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut in_arg = false;
    let (mut single, mut double) = (false, false);
    let mut chars = text.chars();
    while let Some(ch) = chars.next() {
        if ch.is_whitespace() && !single && !double {
            if in_arg {
                args.push(std::mem::take(&mut current));
                in_arg = false;
            }
            continue;
        }
        in_arg = true;
        match ch {
            '\\' => {
                if let Some(escaped) = chars.next() {
                    current.push(escaped);
                }
            }
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => current.push(ch),
        }
    }
    if in_arg {
        args.push(current);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_with_quotes_and_escapes() {
        assert_eq!(
            split("-O2  'a b.o' \"c d.o\" e\\ f.o\n-lm\t"),
            ["-O2", "a b.o", "c d.o", "e f.o", "-lm"]
        );
        assert_eq!(split("''"), [""]);
        assert!(split("  \n ").is_empty());
    }

    #[test]
    fn expands_nested_files_and_keeps_unreadable_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("inner.rsp"), "b.o c.o").unwrap();
        std::fs::write(dir.path().join("outer.rsp"), "a.o @inner.rsp -o prog").unwrap();
        let args: Vec<String> = ["-O2", "@outer.rsp", "@missing.rsp", "-lm"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            expand(&args, dir.path()),
            [
                "-O2",
                "a.o",
                "b.o",
                "c.o",
                "-o",
                "prog",
                "@missing.rsp",
                "-lm"
            ]
        );
    }

    #[test]
    fn a_self_including_file_terminates() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("loop.rsp"), "x.o @loop.rsp").unwrap();
        let out = expand(&["@loop.rsp".to_string()], dir.path());
        assert_eq!(out.len(), MAX_DEPTH + 1);
        assert_eq!(out.last().unwrap(), "@loop.rsp");
    }
}
