//! The programs of a recorded build: their names (cargo's hashes stripped, duplicates
//! qualified by their directory), the ones chosen (`--programs`, build tools left out), and
//! one [`Program`] each, ready to relink.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Result};

use super::linker::Linker;
use super::options::BuildOptions;
use super::replay::Program;
use crate::files::manifest::ProgramSummary;
use crate::wrap::record::LinkRecord;

/// Whether a program is a tool the build runs itself rather than one of its products: a
/// cargo build script (`build_script_build-<hash>`, hard-linked as `build-script-build`).
pub fn is_build_tool(name: &str) -> bool {
    name.starts_with("build_script_build") || name.starts_with("build-script-build")
}

/// The recorded links to relink: those `--programs` names (an unknown name is an error
/// listing the recorded ones), or every one but the build's own tools; with notes naming
/// what was left out.
pub(crate) fn chosen_links(
    links: &[LinkRecord],
    opts: &BuildOptions,
) -> Result<(Vec<LinkRecord>, Vec<String>)> {
    let names: Vec<String> = links.iter().map(|l| program_name(&l.output)).collect();
    let mut notes = Vec::new();
    let chosen: Vec<LinkRecord> = match &opts.programs {
        Some(wanted) => {
            for w in wanted {
                if !names.contains(w) {
                    bail!(
                        "--programs: no recorded program is named {w:?} (the build linked: {})",
                        names.join(", ")
                    );
                }
            }
            links
                .iter()
                .zip(&names)
                .filter(|(_, n)| wanted.contains(n))
                .map(|(l, _)| l.clone())
                .collect()
        }
        None => {
            let mut kept = Vec::new();
            for (l, n) in links.iter().zip(&names) {
                if is_build_tool(n) {
                    notes.push(format!(
                        "note: {n} is a tool the build runs (a cargo build script), not one of \
                         its programs: not relinked (name it in --programs to relink it)"
                    ));
                } else {
                    kept.push(l.clone());
                }
            }
            kept
        }
    };
    Ok((chosen, notes))
}

/// One [`Program`] per recorded link, with unique names and a mechanism each. Any program
/// that cannot be prepared is fatal.
pub(crate) fn programs(
    links: &[LinkRecord],
    record_dir: &Path,
    opts: &BuildOptions,
) -> Result<Vec<Program>> {
    let (programs, failed) = programs_isolated(links, record_dir, opts)?;
    if let Some((_, err)) = failed.into_iter().next() {
        return Err(err);
    }
    Ok(programs)
}

/// A program that could not be relinked: its name and the error.
pub(crate) type FailedProgram = (String, anyhow::Error);

/// One [`Program`] per recorded link that could be prepared, sorted by name, and per link
/// that could not (its LTO code generation failed), its name and error.
pub(crate) fn programs_isolated(
    links: &[LinkRecord],
    record_dir: &Path,
    opts: &BuildOptions,
) -> Result<(Vec<Program>, Vec<FailedProgram>)> {
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    for link in links {
        *by_name.entry(program_name(&link.output)).or_insert(0) += 1;
    }
    let mut programs = Vec::new();
    let mut failed = Vec::new();
    for link in links {
        let mut name = program_name(&link.output);
        if by_name[&name] > 1 {
            // Same file name in several directories: qualify by the path below the build.
            let rel = link
                .output
                .strip_prefix(&opts.build_dir)
                .unwrap_or(&link.output);
            name = rel
                .display()
                .to_string()
                .trim_start_matches('/')
                .replace('/', "_");
        }
        let linker = opts.linker.unwrap_or_else(|| Linker::of_record(link));
        match Program::new(name.clone(), link, linker, opts.granularity, record_dir) {
            Ok(mut program) => {
                program.pad = opts.pad.unwrap_or(0);
                programs.push(program);
            }
            Err(err) => failed.push((name, err)),
        }
    }
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    if programs.windows(2).any(|w| w[0].name == w[1].name) {
        bail!("two recorded links produce programs of the same name");
    }
    failed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((programs, failed))
}

/// The program's name for a link output: its file name, without the hash cargo appends to
/// the outputs it writes under a `deps/` directory (`target/release/deps/rustdemo-a0c100fb32566e19`
/// is `rustdemo`, the name of the copy cargo then makes as `target/release/rustdemo`).
pub(crate) fn program_name(output: &Path) -> String {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "a.out".to_string());
    let in_deps = output
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "deps");
    match name.rsplit_once('-') {
        Some((stem, hash))
            if in_deps
                && !stem.is_empty()
                && hash.len() == 16
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) =>
        {
            stem.to_string()
        }
        _ => name,
    }
}

/// The manifest entries of programs that could not be relinked (`(name, error)`): left out,
/// with the compiler's or linker's message as the reason.
pub(crate) fn failed_programs(failed: Vec<FailedProgram>) -> Vec<ProgramSummary> {
    failed
        .into_iter()
        .map(|(name, err)| ProgramSummary {
            name,
            library: false,
            excluded: Some(format!("it could not be relinked: {err:#}")),
            distinct_layouts: 0,
            coinciding: Vec::new(),
            achieved: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::program_name;
    use std::path::Path;

    #[test]
    fn cargo_hashes_are_stripped_under_deps_only() {
        let name = |p: &str| program_name(Path::new(p));
        assert_eq!(
            name("/w/target/release/deps/rustdemo-a0c100fb32566e19"),
            "rustdemo"
        );
        assert_eq!(
            name("target/debug/deps/my-tool-0123456789abcdef"),
            "my-tool"
        );
        // Not cargo's pattern: kept as written.
        assert_eq!(name("/w/target/release/rustdemo"), "rustdemo");
        assert_eq!(
            name("/w/build/prog-a0c100fb32566e19"),
            "prog-a0c100fb32566e19"
        );
        assert_eq!(name("/w/deps/prog-a0c100fb3256"), "prog-a0c100fb3256");
        assert_eq!(
            name("/w/deps/prog-A0C100FB32566E19"),
            "prog-A0C100FB32566E19"
        );
        assert_eq!(name("/w/deps/-a0c100fb32566e19"), "-a0c100fb32566e19");
        assert_eq!(name("/w/src/demo"), "demo");
    }
}
