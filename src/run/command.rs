//! The benchmark command template: `{bin}`, `{bin:NAME}` and `{iterations}` placeholders.
//!
//! `{bin}` is the program under test (one of `--programs`); `{bin:NAME}` is the binary
//! `NAME` of the same binary, for commands that need several programs of one build.
//! Placeholders may sit inside an argument (`--exe={bin}`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{bail, Result};
use regex::Regex;

/// A parsed command template.
#[derive(Debug, Clone)]
pub struct CommandTemplate {
    args: Vec<String>,
    /// True when some argument contains `{bin}`.
    pub uses_bin: bool,
    /// Names used in `{bin:NAME}`, in order of first appearance.
    pub named: Vec<String>,
}

fn placeholder_regex() -> Regex {
    Regex::new(r"\{bin(?::([^}]+))?\}").expect("valid regex")
}

impl CommandTemplate {
    /// Parses `args`; an empty command or one without any `{bin}`/`{bin:NAME}` is an error
    /// (the binaries under test would never run).
    pub fn parse(args: &[String]) -> Result<CommandTemplate> {
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
                args.join(" ")
            );
        }
        Ok(CommandTemplate {
            args: args.to_vec(),
            uses_bin,
            named,
        })
    }

    /// The argv for one execution: `{bin}` → `bin`, `{bin:NAME}` → `named[NAME]`,
    /// `{iterations}` → `iterations` when given.
    pub fn expand(
        &self,
        bin: Option<&PathBuf>,
        named: &BTreeMap<String, PathBuf>,
        iterations: Option<u32>,
    ) -> Vec<OsString> {
        let re = placeholder_regex();
        self.args
            .iter()
            .map(|a| {
                let mut s = re
                    .replace_all(a, |c: &regex::Captures| match c.get(1) {
                        None => bin.map(|p| p.display().to_string()).unwrap_or_default(),
                        Some(n) => named
                            .get(n.as_str())
                            .map(|p| p.display().to_string())
                            .unwrap_or_default(),
                    })
                    .into_owned();
                if let Some(i) = iterations {
                    s = s.replace("{iterations}", &i.to_string());
                }
                OsString::from(s)
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

    #[test]
    fn a_command_without_placeholder_is_refused() {
        let e = CommandTemplate::parse(&strings(&["./demo", "x"])).unwrap_err();
        assert!(format!("{e}").contains("{bin}"), "{e}");
        assert!(CommandTemplate::parse(&[]).is_err());
    }
}
