//! The global section-order linker script for ld.bfd and ld.lld.
//!
//! `SECTIONS { .text.rand : { "a.o"(.text.f) "libx.a:m.o"(.text.g) ... } } INSERT BEFORE .text;`
//! augments the default script instead of replacing it: the listed input sections are
//! gathered, in the listed order, into one output section placed just before `.text`; all
//! other code keeps its default placement. Measured exact on bfd and lld (docs/design.md); gold
//! and mold do not implement `INSERT` that way.
//!
//! File names are double-quoted. Quoting does not stop bfd from treating `*?[` as
//! wildcards, while lld matches a quoted name literally, so names containing them (or a
//! quote, a newline, or a `:` that bfd would read as `archive:member`) are refused rather
//! than risk a script that means different things to the two linkers.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// An input file as a linker script names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ScriptInput {
    /// An object file, spelled exactly as on the link line (the linkers compare the
    /// spelling, not the file: `./a.o` and `a.o` differ).
    Object(PathBuf),
    /// A member of a static archive: the archive spelled exactly as on the link line, and
    /// the member's name inside it.
    Member {
        /// The archive's path as on the link line.
        archive: PathBuf,
        /// The member's name (as `ar t` shows it).
        member: String,
    },
}

impl From<PathBuf> for ScriptInput {
    fn from(path: PathBuf) -> ScriptInput {
        ScriptInput::Object(path)
    }
}

impl From<&Path> for ScriptInput {
    fn from(path: &Path) -> ScriptInput {
        ScriptInput::Object(path.to_path_buf())
    }
}

impl ScriptInput {
    /// The quoted file pattern for a script (`"a.o"` or `"libx.a:m.o"`).
    pub(crate) fn pattern(&self) -> Result<String> {
        Ok(match self {
            ScriptInput::Object(path) => format!("\"{}\"", script_file_name(path)?),
            ScriptInput::Member { archive, member } => {
                let archive = script_file_name(archive)?;
                check_file_text(member).with_context(|| format!("archive member {member:?}"))?;
                format!("\"{archive}:{member}\"")
            }
        })
    }
}

fn script_file_name(path: &Path) -> Result<&str> {
    let text = path
        .to_str()
        .with_context(|| format!("{} is not valid UTF-8", path.display()))?;
    check_file_text(text).with_context(|| format!("file {}", path.display()))?;
    Ok(text)
}

fn check_file_text(text: &str) -> Result<()> {
    if text.is_empty() {
        bail!("an empty name cannot appear in a linker script");
    }
    if let Some(c) = text
        .chars()
        .find(|c| matches!(c, '"' | '*' | '?' | '[' | ']' | ':' | '\\') || c.is_control())
    {
        bail!("the name contains {c:?}, which bfd and lld scripts cannot both match literally");
    }
    Ok(())
}

/// Section names are written unquoted; restrict them to what compilers emit.
pub(crate) fn check_section_name(name: &str) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$'))
    {
        bail!("section name {name:?} cannot be written in a linker script");
    }
    Ok(())
}

/// The `INSERT BEFORE .text` script placing `entries` (input, section name) first in the
/// program's code, in exactly the given order, for ld.bfd (`-Wl,-T,script`) and ld.lld.
///
/// Guarantees: one input-section line per distinct entry, in order (a repeated entry is
/// written once, at its first place); every listed section that exists in a linked input
/// lands in `.text.rand` in that order, including any COMDAT copy the linker keeps. The
/// caller keeps gcc's groups together by passing an order from
/// [`super::shuffle_global`]. Errors name the entry whose file or section name cannot be
/// written safely (see the module comment).
pub fn text_order_script(entries: &[(ScriptInput, String)]) -> Result<String> {
    let mut script = String::from(
        "/* Written by layoutrand: a randomised function order (INSERT keeps the default script). */\n\
         SECTIONS\n{\n  .text.rand :\n  {\n",
    );
    let mut written = std::collections::HashSet::new();
    for (input, section) in entries {
        if !written.insert((input, section)) {
            continue;
        }
        check_section_name(section)?;
        let pattern = input.pattern()?;
        writeln!(script, "    {pattern}({section})").expect("writing to a String");
    }
    script.push_str("  }\n}\nINSERT BEFORE .text;\n");
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_and_members_are_quoted() {
        let script = text_order_script(&[
            (ScriptInput::Object("obj dir/a.o".into()), ".text.f".into()),
            (
                ScriptInput::Member {
                    archive: "lib/libx.a".into(),
                    member: "m.o".into(),
                },
                ".text.unlikely.g".into(),
            ),
            (ScriptInput::Object("obj dir/a.o".into()), ".text.f".into()),
        ])
        .unwrap();
        assert!(script.contains(
            "    \"obj dir/a.o\"(.text.f)\n    \"lib/libx.a:m.o\"(.text.unlikely.g)\n  }"
        ));
        assert_eq!(script.matches("(.text.f)").count(), 1);
        assert!(script.ends_with("INSERT BEFORE .text;\n"));
    }

    #[test]
    fn unsafe_names_are_refused_with_the_name() {
        for bad in ["a*.o", "a?.o", "x:y.o", "q\"o.o", "[ab].o"] {
            let err = text_order_script(&[(ScriptInput::Object(bad.into()), ".text.f".into())])
                .unwrap_err();
            assert!(format!("{err:#}").contains(bad), "{err:#}");
        }
        let err = text_order_script(&[(ScriptInput::Object("a.o".into()), ".text.f)g".into())])
            .unwrap_err();
        assert!(format!("{err:#}").contains(".text.f)g"));
    }
}
