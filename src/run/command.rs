//! The benchmark command template: `{bin}`, `{bin:NAME}` and `{iterations}` placeholders.
//!
//! `{bin}` is the program under test (one of `--programs`); `{bin:NAME}` is the binary
//! `NAME` of the same binary, for commands that need several programs of one build.
//! Placeholders may sit inside an argument (`--exe={bin}`).
//!
//! A placeholder stands for exactly its value, whatever bytes the path holds (a space, a
//! quote, `$(...)`, a glob): in an ordinary argument it is substituted verbatim (no shell
//! reads it), and in the script of a shell (`sh -c SCRIPT`, see [`script_position`]) it is
//! quoted for the place it sits in (`quote_for_shell`), so the shell reads one word with
//! the path's bytes and executes nothing of it.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use anyhow::{bail, Result};
use regex::Regex;

/// A parsed command template.
#[derive(Debug, Clone)]
pub(crate) struct CommandTemplate {
    args: Vec<String>,
    /// True when some argument contains `{bin}`.
    pub(crate) uses_bin: bool,
    /// Names used in `{bin:NAME}`, in order of first appearance.
    pub(crate) named: Vec<String>,
}

fn placeholder_regex() -> Regex {
    Regex::new(r"\{bin(?::([^}]+))?\}").expect("valid regex")
}

/// The shells whose `-c` argument is a script: a placeholder in it is quoted.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash"];

/// The index of the argument of `args` that a shell reads as a script: the one after the
/// `-c` option (alone or in a cluster such as `-ec`) of the first argument naming a shell
/// (`sh`, `/bin/bash`, …; after wrappers such as `env` or `taskset`). `None` when no shell
/// runs a `-c` script.
pub(crate) fn script_position<S: AsRef<str>>(args: &[S]) -> Option<usize> {
    let is_shell = |a: &str| {
        let name = a.rsplit('/').next().unwrap_or(a);
        SHELLS.contains(&name)
    };
    let shell = args.iter().position(|a| is_shell(a.as_ref()))?;
    let mut i = shell + 1;
    let mut script_follows = false;
    // The shell's options, up to its first operand: with `-c` (alone or in a cluster) that
    // operand is the script. Long options (bash's `--noprofile`, `--rcfile FILE`) and `--`
    // (the end of the options) come before it too; missing any of them left a placeholder
    // unquoted in the script (issue 34, attack 8).
    while let Some(a) = args.get(i).map(AsRef::as_ref) {
        if a == "--" {
            i += 1;
            break;
        }
        let option = (a.starts_with('-') || a.starts_with('+')) && a.len() > 1;
        if !option {
            break;
        }
        if a.starts_with("--") {
            i += if matches!(a, "--rcfile" | "--init-file") {
                2
            } else {
                1
            };
            continue;
        }
        if matches!(a, "-o" | "+o" | "-O" | "+O") {
            i += 2; // an option with its argument
            continue;
        }
        if a.starts_with('-') && a[1..].contains('c') {
            script_follows = true;
        }
        i += 1;
    }
    (script_follows && i < args.len()).then_some(i)
}

/// Where a position of a shell script is: outside quotes, inside '…' or inside "…".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    None,
    Single,
    Double,
}

/// The quoting in force at the end of `script` (POSIX rules: a backslash escapes the next
/// character outside single quotes). Command substitutions are not entered: a placeholder
/// inside `"$( … )"` is quoted for the outer double quotes.
fn quoting_after(script: &[u8]) -> Quoting {
    let mut state = Quoting::None;
    let mut i = 0;
    while i < script.len() {
        let c = script[i];
        match (state, c) {
            (Quoting::None | Quoting::Double, b'\\') => i += 1,
            (Quoting::None, b'\'') => state = Quoting::Single,
            (Quoting::None, b'"') => state = Quoting::Double,
            (Quoting::Single, b'\'') => state = Quoting::None,
            (Quoting::Double, b'"') => state = Quoting::None,
            _ => {}
        }
        i += 1;
    }
    state
}

/// `value` written so that a POSIX shell reads exactly its bytes at a position with
/// `quoting` in force: outside quotes, one single-quoted word (left bare when it holds only
/// characters no shell treats specially); inside '…', each `'` as `'\''`; inside "…", a
/// backslash before `$`, `` ` ``, `"` and `\`.
fn quote_for_shell(value: &[u8], quoting: Quoting) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 2);
    match quoting {
        Quoting::None => {
            let plain = !value.is_empty()
                && value
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"_-./+,:@%".contains(c));
            if plain {
                out.extend_from_slice(value);
            } else {
                out.push(b'\'');
                out.extend_from_slice(&quote_for_shell(value, Quoting::Single));
                out.push(b'\'');
            }
        }
        Quoting::Single => {
            for &c in value {
                if c == b'\'' {
                    out.extend_from_slice(b"'\\''");
                } else {
                    out.push(c);
                }
            }
        }
        Quoting::Double => {
            for &c in value {
                if b"$`\"\\".contains(&c) {
                    out.push(b'\\');
                }
                out.push(c);
            }
        }
    }
    out
}

/// Replaces every match of `pattern` in `arg` by what `value` gives for it (a match it gives
/// `None` for stays as it is): verbatim, or quoted for its place when `in_script` (see
/// [`quote_for_shell`]).
fn substitute(
    arg: &str,
    pattern: &Regex,
    in_script: bool,
    value: impl Fn(&regex::Captures) -> Option<OsString>,
) -> OsString {
    let mut out: Vec<u8> = Vec::with_capacity(arg.len());
    let mut last = 0;
    for c in pattern.captures_iter(arg) {
        let m = c.get(0).expect("whole match");
        out.extend_from_slice(&arg.as_bytes()[last..m.start()]);
        match value(&c) {
            Some(v) if in_script => {
                out.extend_from_slice(&quote_for_shell(v.as_bytes(), quoting_after(&out)))
            }
            Some(v) => out.extend_from_slice(v.as_bytes()),
            None => out.extend_from_slice(m.as_str().as_bytes()),
        }
        last = m.end();
    }
    out.extend_from_slice(&arg.as_bytes()[last..]);
    OsString::from_vec(out)
}

/// Replaces `placeholder` (e.g. `{recipe}`) by `value` in every argument of `args`, quoted for
/// its place inside a shell script as the runner's placeholders are (see the module doc).
/// Arguments stay strings, so `value` must be UTF-8 (it is: a path shown by layoutrand).
pub(crate) fn substitute_text(args: &mut [String], placeholder: &str, value: &str) {
    let pattern = Regex::new(&regex::escape(placeholder)).expect("an escaped literal");
    let script = script_position(args);
    for (i, arg) in args.iter_mut().enumerate() {
        let replaced = substitute(arg, &pattern, script == Some(i), |_| {
            Some(OsString::from(value))
        });
        *arg = replaced.to_string_lossy().into_owned();
    }
}

impl CommandTemplate {
    /// Parses `args`; an empty command or one without any `{bin}`/`{bin:NAME}` is an error
    /// (the binaries under test would never run).
    pub(crate) fn parse(args: &[String]) -> Result<CommandTemplate> {
        if args.is_empty() {
            bail!("no benchmark command: give it after `--`, e.g. `layoutrand run -- {{bin}} input.txt`");
        }
        let re = placeholder_regex();
        let mut uses_bin = false;
        let mut named: Vec<String> = Vec::new();
        for a in args {
            for c in re.captures_iter(a) {
                match c.get(1) {
                    None => uses_bin = true,
                    Some(n) if !named.iter().any(|x| x == n.as_str()) => {
                        named.push(n.as_str().to_string())
                    }
                    Some(_) => {}
                }
            }
        }
        if !uses_bin && named.is_empty() {
            bail!(
                "the benchmark command `{}` has no {{bin}} placeholder: write {{bin}} where the binary under test goes (or {{bin:NAME}} for a named program of the build)",
                crate::child::display_args(args)
            );
        }
        Ok(CommandTemplate {
            args: args.to_vec(),
            uses_bin,
            named,
        })
    }

    /// The argv for one execution: `{bin}` → `bin`, `{bin:NAME}` → `named[NAME]`,
    /// `{iterations}` → `iterations` when given; each path with its exact bytes, quoted for
    /// its place when it sits in a shell script (see the module doc).
    pub(crate) fn expand(
        &self,
        bin: Option<&PathBuf>,
        named: &BTreeMap<String, PathBuf>,
        iterations: Option<u32>,
    ) -> Vec<OsString> {
        // Compiled once: expand runs before every execution.
        static PLACEHOLDERS: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
            Regex::new(r"\{bin(?::([^}]+))?\}|\{iterations\}").expect("valid regex")
        });
        let re = &*PLACEHOLDERS;
        let script = script_position(&self.args);
        let path = |p: Option<&PathBuf>| p.map(|p| p.as_os_str().to_os_string());
        self.args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                substitute(a, re, script == Some(i), |c| {
                    if c.get(0).is_some_and(|m| m.as_str() == "{iterations}") {
                        return iterations.map(|n| OsString::from(n.to_string()));
                    }
                    Some(match c.get(1) {
                        None => path(bin).unwrap_or_default(),
                        Some(n) => path(named.get(n.as_str())).unwrap_or_default(),
                    })
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn placeholders_expand_inside_arguments() {
        let t = CommandTemplate::parse(&strings(&[
            "{bin}",
            "--other={bin:tool}",
            "-n",
            "{iterations}",
        ]))
        .unwrap();
        assert!(t.uses_bin);
        assert_eq!(t.named, vec!["tool"]);
        let mut named = BTreeMap::new();
        named.insert("tool".to_string(), PathBuf::from("/f/tool"));
        let argv = t.expand(Some(&PathBuf::from("/f/prog")), &named, Some(5));
        assert_eq!(argv, vec!["/f/prog", "--other=/f/tool", "-n", "5"]);
    }

    /// What `sh` makes of `script` with `{bin}` expanded to `path`: the words it passes to
    /// `printf '<%s>'`, and whether the marker file that `$(touch …)` would create appeared.
    fn through_sh(script: &str, path: &std::path::Path) -> (String, bool) {
        let t = CommandTemplate::parse(&strings(&["sh", "-c", script])).unwrap();
        let argv = t.expand(Some(&path.to_path_buf()), &BTreeMap::new(), None);
        let dir = tempfile::tempdir().unwrap();
        let out = crate::child::command(&argv[0])
            .args(&argv[1..])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{argv:?}: {out:?}");
        let touched = dir.path().join("PWNED").exists();
        (String::from_utf8_lossy(&out.stdout).into_owned(), touched)
    }

    #[test]
    fn a_placeholder_in_a_shell_script_is_one_word_with_the_exact_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let hostile = [
            "/o/with space/bin",
            "/o/$(touch PWNED)/bin",
            "/o/`touch PWNED`/bin",
            "/o/it's/bin",
            "/o/\"q\"/bin",
            "/o/*?[a]/bin",
            "/o/back\\slash/bin",
            "/o/new\nline/bin",
            "/o/$HOME;touch PWNED/bin",
        ];
        for path in hostile {
            for script in [
                "printf '<%s>' {bin}",
                "printf '<%s>' \"{bin}\"",
                "printf '<%s>' '{bin}'",
                "printf '<%s>' x{bin}y",
            ] {
                let (words, touched) = through_sh(script, std::path::Path::new(path));
                let expected = if script.contains("x{bin}y") {
                    format!("<x{path}y>")
                } else {
                    format!("<{path}>")
                };
                assert_eq!(words, expected, "{script} with {path:?}");
                assert!(!touched, "{script} with {path:?} executed its $(…)");
            }
        }
        // A byte that is not UTF-8 survives too.
        let odd = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(b"/o/\xff\xfe/bin"));
        let t = CommandTemplate::parse(&strings(&["sh", "-c", "printf %s {bin}"])).unwrap();
        let argv = t.expand(Some(&odd), &BTreeMap::new(), None);
        let out = crate::child::command(&argv[0])
            .args(&argv[1..])
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"/o/\xff\xfe/bin");
    }

    #[test]
    fn a_placeholder_outside_a_script_is_passed_verbatim() {
        let t =
            CommandTemplate::parse(&strings(&["sh", "-c", "echo \"$0\"", "{bin}", "--x={bin}"]))
                .unwrap();
        let path = PathBuf::from("/o/a b/$(x)'/bin");
        let argv = t.expand(Some(&path), &BTreeMap::new(), None);
        assert_eq!(argv[3], path.as_os_str());
        assert_eq!(argv[4], "--x=/o/a b/$(x)'/bin");
        // Without a shell, every argument is verbatim.
        let t = CommandTemplate::parse(&strings(&["{bin}", "-c", "{bin}"])).unwrap();
        let argv = t.expand(Some(&path), &BTreeMap::new(), None);
        assert!(
            argv.iter().all(|a| a == path.as_os_str() || a == "-c"),
            "{argv:?}"
        );
    }

    #[test]
    fn the_script_is_found_after_wrappers_and_option_clusters() {
        assert_eq!(script_position(&["sh", "-c", "s"]), Some(2));
        assert_eq!(
            script_position(&["/bin/bash", "-eu", "-o", "pipefail", "-c", "s"]),
            Some(5)
        );
        assert_eq!(
            script_position(&["taskset", "-c", "0", "bash", "-ec", "s", "x"]),
            Some(5)
        );
        assert_eq!(script_position(&["sh", "script.sh", "-c"]), None);
        assert_eq!(script_position(&["{bin}", "-c", "x"]), None);
        assert_eq!(script_position(&["sh", "-c"]), None);
        // Issue 34, attack 8: long options and `--` before the script.
        assert_eq!(
            script_position(&["bash", "--noprofile", "--norc", "-c", "s"]),
            Some(4)
        );
        assert_eq!(script_position(&["sh", "-c", "--", "s"]), Some(3));
        assert_eq!(script_position(&["bash", "-c", "-e", "s", "x"]), Some(3));
        assert_eq!(
            script_position(&["bash", "--rcfile", "f", "-c", "s"]),
            Some(4)
        );
        assert_eq!(script_position(&["sh", "--", "-c", "s"]), None);
    }

    #[test]
    fn text_substitution_quotes_only_inside_scripts() {
        let mut argv = strings(&["sh", "-c", "{recipe}/check.lua", "{recipe}/x"]);
        substitute_text(&mut argv, "{recipe}", "/r/a b");
        assert_eq!(argv, ["sh", "-c", "'/r/a b'/check.lua", "/r/a b/x"]);
    }

    #[test]
    fn a_command_without_placeholder_is_refused() {
        let e = CommandTemplate::parse(&strings(&["./demo", "x"])).unwrap_err();
        insta::assert_snapshot!(e.to_string());
        assert!(CommandTemplate::parse(&[]).is_err());
    }
}
