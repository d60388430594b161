//! Spelling file and section names in linker scripts.
//!
//! File names are double-quoted. Quoting does not stop bfd from treating `*?[` as
//! wildcards, while lld matches a quoted name literally, so names containing them (or a
//! quote, a newline, or a `:` that bfd would read as `archive:member`) are refused rather
//! than risk a script that means different things to the linkers.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// The quoted file pattern of the object `path` for a script (`"a.o"`), spelled exactly as
/// on the command line (the linkers compare the spelling, not the file: `./a.o` and `a.o`
/// differ). Errors name the file when a script cannot spell it literally.
pub(crate) fn object_pattern(path: &Path) -> Result<String> {
    Ok(format!("\"{}\"", script_file_name(path)?))
}

/// Checks, before any work, that files below the output directory `dir` (the recorded
/// objects in `DIR/.record`, which the relinks name in linker scripts) can be spelled in a
/// linker script: `build` and `experiment` refuse such an `--out` at once instead of after
/// the whole recorded build. `dir` should be absolute, as the objects are named.
pub(crate) fn check_output_dir(dir: &Path) -> Result<()> {
    script_file_name(dir).with_context(|| {
        format!(
            "the output directory {} cannot hold the recorded objects: the relinks name them in \
             linker scripts; choose an --out without `\"`, `*`, `?`, `[`, `]`, `:`, `\\` or control \
             characters",
            dir.display()
        )
    })?;
    Ok(())
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
        // The character as a reader writes it (`\`, not Rust's escaped '\\'); a control
        // character by its code point, as it prints as nothing or acts on the terminal.
        let shown = if c.is_control() {
            format!("the control character U+{:04X}", u32::from(c))
        } else {
            format!("`{c}`")
        };
        bail!("the name contains {shown}, which bfd and lld scripts cannot both match literally");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_quoted_and_unsafe_names_refused_with_the_name() {
        assert_eq!(
            object_pattern(Path::new("obj dir/a.o")).unwrap(),
            "\"obj dir/a.o\""
        );
        for bad in ["a*.o", "a?.o", "x:y.o", "q\"o.o", "[ab].o"] {
            let err = object_pattern(Path::new(bad)).unwrap_err();
            assert!(format!("{err:#}").contains(bad), "{err:#}");
        }
        assert!(check_section_name(".text.f)g").is_err());
        assert!(check_section_name(".text.f").is_ok());
    }
}
