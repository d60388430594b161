//! The programs of a recorded build: their names (cargo's hashes stripped, duplicates
//! qualified by their directory), the ones chosen (`--programs`, build tools left out), and
//! one [`Program`] each, ready to relink.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::linker::Linker;
use super::options::BuildOptions;
use super::replay::Program;
use crate::files::manifest::{Exclusion, LeftOut, ProgramSummary};
use crate::wrap::record::LinkRecord;

use crate::files::manifest::{BuildNote, BuildTool};

/// Whether a program is a tool the build runs itself rather than one of its products: a
/// cargo build script (`build_script_build-<hash>`, hard-linked as `build-script-build`).
pub(crate) fn is_build_tool(name: &str) -> bool {
    name.starts_with("build_script_build") || name.starts_with("build-script-build")
}

/// Whether the shared library `path` is a Rust proc macro: rustc finds a proc macro's
/// derives through the symbol `__rustc_proc_macro_decls_<hash>__`, which it exports from
/// the library (and which no other kind of crate has). False when it cannot be read.
pub(crate) fn is_proc_macro(path: &Path) -> bool {
    use object::{Object, ObjectSymbol};
    let Ok(data) = std::fs::read(path) else {
        return false;
    };
    let Ok(file) = object::File::parse(&*data) else {
        return false;
    };
    file.dynamic_symbols().chain(file.symbols()).any(|s| {
        s.name()
            .is_ok_and(|n| n.starts_with("__rustc_proc_macro_decls_"))
    })
}

/// Whether the name is a test program's by the usual conventions (`db_test`, `c-tests`,
/// `test_utils`, `foo_unittest`, CPython's `_testembed`): such programs check the build,
/// they are rarely what is measured.
pub(crate) fn is_test_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let stem = lower.strip_suffix(".exe").unwrap_or(&lower);
    stem.starts_with("_test")
        || ["test", "tests", "unittest", "unittests"].iter().any(|t| {
            stem == *t
                || stem
                    .strip_suffix(t)
                    .is_some_and(|s| s.ends_with(['_', '-']))
                || stem
                    .strip_prefix(t)
                    .is_some_and(|s| s.starts_with(['_', '-']))
        })
}

/// Why the recorded link `link` of program `name` is a build tool, if it is one.
fn build_tool(name: &str, link: &LinkRecord) -> Option<BuildTool> {
    if is_build_tool(name) {
        Some(BuildTool::BuildScript)
    } else if link.shared && is_proc_macro(&link.output) {
        Some(BuildTool::ProcMacro)
    } else {
        None
    }
}

pub(crate) use crate::files::manifest::ALL_PROGRAMS;

/// The recorded links to relink, with notes for the user: those `--programs` names (an
/// unknown name is an error listing the recorded ones; `all` is every one), or by default
/// every program and library but the build's own tools (cargo build scripts, Rust proc
/// macros) and, when the build linked other programs too, its test programs. The notes
/// name what was left out and how to relink it.
pub(crate) fn chosen_links(
    links: &[LinkRecord],
    opts: &BuildOptions,
) -> Result<(Vec<LinkRecord>, Vec<BuildNote>)> {
    let names: Vec<String> = links.iter().map(|l| program_name(&l.output)).collect();
    if let Some(wanted) = &opts.programs {
        if wanted.iter().any(|w| w == ALL_PROGRAMS) {
            return Ok((links.to_vec(), Vec::new()));
        }
        for w in wanted {
            if !names.contains(w) {
                bail!(
                    "--programs: no recorded program is named {w:?} (the build linked: {}; \
                     `--programs {ALL_PROGRAMS}` relinks every one)",
                    names.join(", ")
                );
            }
        }
        let named: Vec<bool> = names.iter().map(|n| wanted.contains(n)).collect();
        // The build's libraries that a named program loads hold part of its code: relinked
        // with it, or every seed would load one copy (or the system's, of the same soname).
        let chosen_mask = relinked_with(links, &named);
        let chosen: Vec<LinkRecord> = (links.iter().zip(&chosen_mask))
            .filter(|(_, &c)| c)
            .map(|(l, _)| l.clone())
            .collect();
        let mut notes = Vec::new();
        if chosen.len() < links.len() {
            let pick = |keep: &dyn Fn(usize) -> bool| -> Vec<String> {
                (0..names.len())
                    .filter(|&i| keep(i))
                    .map(|i| names[i].clone())
                    .collect()
            };
            notes.push(BuildNote::Chosen {
                relinked: chosen.len(),
                linked: links.len(),
                others: pick(&|i| !chosen_mask[i]),
                libraries: pick(&|i| chosen_mask[i] && !named[i]),
            });
        }
        return Ok((chosen, notes));
    }
    Ok(default_links(links, &names))
}

/// [`chosen_links`] without `--programs`: the build's tools, then (when other programs
/// remain) its tests, then the libraries no remaining program loads, left out.
fn default_links(links: &[LinkRecord], names: &[String]) -> (Vec<LinkRecord>, Vec<BuildNote>) {
    let mut tools: Vec<Option<BuildTool>> = links
        .iter()
        .zip(names)
        .map(|(l, n)| build_tool(n, l))
        .collect();
    let is_test = |i: usize| !links[i].shared && is_test_name(&names[i]);
    ran_before_linking(links, names, &mut tools, &is_test);
    // Tests are left out only when something else remains to measure.
    let others = (0..links.len()).any(|i| tools[i].is_none() && !links[i].shared && !is_test(i));
    let mut notes = Vec::new();
    let mut kept = Vec::new();
    let mut tests = Vec::new();
    for (i, link) in links.iter().enumerate() {
        let name = &names[i];
        if let Some(tool) = tools[i].take() {
            notes.push(BuildNote::Tool {
                name: name.clone(),
                tool,
            });
        } else if others && is_test(i) {
            tests.push(name.as_str());
        } else {
            kept.push(link.clone());
        }
    }
    let (kept, plugins) = without_plugins(kept);
    if !tests.is_empty() {
        let kept_names: Vec<String> = kept.iter().map(|l| program_name(&l.output)).collect();
        notes.push(BuildNote::Tests {
            tests: tests.iter().map(|t| t.to_string()).collect(),
            kept: kept_names,
        });
    }
    notes.extend(plugins);
    (kept, notes)
}

/// Marks as a tool each program the build ran before it linked another program that is
/// neither a tool nor a test (`is_test`): it made part of the build, like CPython's
/// `_freeze_module` and `_bootstrap_python`. A program first run after every other link
/// (by the build's tests, or CPython's `python` running its own set-up) stays a product.
fn ran_before_linking(
    links: &[LinkRecord],
    names: &[String],
    tools: &mut [Option<BuildTool>],
    is_test: &dyn Fn(usize) -> bool,
) {
    let products: Vec<usize> = (0..links.len())
        .filter(|&i| tools[i].is_none() && !links[i].shared && !is_test(i))
        .collect();
    for &i in &products {
        let Some(ran) = first_read_after_link(&links[i].output) else {
            continue;
        };
        let later = products
            .iter()
            .filter(|&&j| j != i && links[j].started_unix_nanos > ran)
            .max_by_key(|&&j| links[j].started_unix_nanos);
        if let Some(&j) = later {
            tools[i] = Some(BuildTool::RanBeforeLinking {
                before: names[j].clone(),
            });
        }
    }
}

/// When the build first read (ran) the program at `output` after linking it, in
/// nanoseconds since the Unix epoch: its access time, when later than its modification time
/// (the shim set the one to the other after the link, `crate::wrap::shim`). `None`: not read
/// since, or not known (a file system mounted `noatime`; the file gone or replaced).
fn first_read_after_link(output: &Path) -> Option<u128> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(output).ok()?;
    let nanos = |s: i64, ns: i64| {
        u128::try_from(s)
            .ok()?
            .checked_mul(1_000_000_000)?
            .checked_add(u128::try_from(ns).ok()?)
    };
    let read = nanos(meta.atime(), meta.atime_nsec())?;
    let written = nanos(meta.mtime(), meta.mtime_nsec())?;
    (read > written).then_some(read)
}

/// `kept` without the shared libraries no program of it loads (`DT_NEEDED`, directly or
/// through another library of it), with the note naming them; unchanged when it has no
/// program (a build of libraries only) or a file cannot be read.
fn without_plugins(kept: Vec<LinkRecord>) -> (Vec<LinkRecord>, Option<BuildNote>) {
    if kept.iter().all(|l| l.shared) {
        return (kept, None);
    }
    let programs: Vec<bool> = kept.iter().map(|l| !l.shared).collect();
    let Ok(loaded) = loaded_closure(&kept, &programs) else {
        return (kept, None);
    };
    if loaded.iter().all(|&l| l) {
        return (kept, None);
    }
    let name = |l: &LinkRecord| program_name(&l.output);
    let mut plugins: Vec<String> = (kept.iter().zip(&loaded))
        .filter(|(_, &l)| !l)
        .map(|(k, _)| name(k))
        .collect();
    plugins.sort();
    let note = BuildNote::Plugins {
        plugins,
        programs: kept.iter().filter(|l| !l.shared).map(name).collect(),
        relinked: (kept.iter().zip(&loaded))
            .filter(|(_, &l)| l)
            .map(|(k, _)| name(k))
            .collect(),
    };
    let kept = (kept.into_iter().zip(loaded))
        .filter_map(|(k, l)| l.then_some(k))
        .collect();
    (kept, Some(note))
}

/// The links relinked with the ones marked in `named`: those and the build's libraries they
/// load ([`loaded_closure`]). When an output cannot be read (removed since the build), what
/// it loads is unknown, so every library of the build is relinked with them: a library left
/// out would be one fixed copy in every seed, its code's layout silently the same.
fn relinked_with(links: &[LinkRecord], named: &[bool]) -> Vec<bool> {
    loaded_closure(links, named).unwrap_or_else(|_| {
        (links.iter().zip(named))
            .map(|(l, &n)| n || l.shared)
            .collect()
    })
}

/// Which of `links` are loaded with the ones marked in `roots`: each root, and each shared
/// library that one of them lists among its `DT_NEEDED` (by its soname, or by its file name
/// when it has none), directly or through another such library. An error when an output
/// cannot be read.
fn loaded_closure(links: &[LinkRecord], roots: &[bool]) -> Result<Vec<bool>> {
    let needed = links
        .iter()
        .map(|l| crate::layout::dynamic::needed(&l.output))
        .collect::<Result<Vec<Vec<String>>>>()?;
    // A library is loaded by the name in its soname, or by its file name without one.
    let loaded_as = links
        .iter()
        .map(|l| match l.shared {
            true => Ok(Some(
                crate::layout::dynamic::soname(&l.output)?
                    .unwrap_or_else(|| program_name(&l.output)),
            )),
            false => Ok(None),
        })
        .collect::<Result<Vec<Option<String>>>>()?;
    Ok(crate::layout::dynamic::loaded_closure(
        &needed, &loaded_as, roots,
    ))
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
                program.data_order = opts.data_order;
                program.strip_debug = !opts.keep_debug;
                program.pin = opts
                    .pin
                    .as_ref()
                    .and_then(|pin| pin.program(&name))
                    .map(|p| std::sync::Arc::new(p.clone()));
                programs.push(program);
            }
            Err(err) => failed.push((name, err)),
        }
    }
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    if programs.windows(2).any(|w| w[0].name == w[1].name) {
        bail!("two recorded links produce programs of the same name");
    }
    check_pinned(opts, &programs, &failed)?;
    failed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((programs, failed))
}

/// Fails when the pin (`opts.pin`) names a program the recording has not (or could not
/// prepare), or one whose granularity cannot place functions.
fn check_pinned(opts: &BuildOptions, programs: &[Program], failed: &[FailedProgram]) -> Result<()> {
    let Some(pin) = &opts.pin else {
        return Ok(());
    };
    // A pin recorded in a manifest (`--extend`, `--variant`) is read without the pin file's
    // own checks: checked here, where every pinned relink starts.
    pin.check().context("the pin")?;
    for p in &pin.programs {
        if failed.iter().any(|(name, _)| *name == p.program) {
            continue; // its own error says why it is not relinked
        }
        if !programs.iter().any(|q| q.name == p.program) {
            let names: Vec<&str> = programs.iter().map(|q| q.name.as_str()).collect();
            bail!(
                "the pin names program {}, which the build did not link (its programs: {})",
                p.program,
                names.join(", ")
            );
        }
    }
    programs
        .iter()
        .filter(|p| p.pin.is_some())
        .try_for_each(super::pinned::check_mechanism)
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
/// with the compiler's or linker's message as the reason and how to leave the program out
/// of the build (`relinked`: the programs that did relink).
pub(crate) fn failed_programs(
    failed: Vec<FailedProgram>,
    relinked: &[Program],
) -> Vec<ProgramSummary> {
    let others: Vec<&str> = relinked.iter().map(|p| p.name.as_str()).collect();
    failed
        .into_iter()
        .map(|(name, err)| ProgramSummary {
            name,
            library: false,
            excluded: Some(Exclusion::Known(LeftOut::NotRelinked {
                error: format!("{err:#}"),
                relinked: others.iter().map(|s| s.to_string()).collect(),
            })),
            failed_in_every_seed: false,
            relinking: None,
            distinct_layouts: 0,
            coinciding: Vec::new(),
            achieved: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{is_test_name, program_name, relinked_with, LinkRecord};
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

    #[test]
    fn an_unreadable_output_keeps_every_library_with_the_named_programs() {
        let link = |output: &str, shared: bool| -> LinkRecord {
            serde_json::from_value(serde_json::json!({
                "tool": "driver", "tool_name": "cc", "real_tool": "/usr/bin/cc", "args": [],
                "cwd": "/nonexistent", "env": {}, "inputs": [], "output_span": null,
                "output": output, "lto": false, "shared": shared, "fuse_ld": null,
                "seconds": 0.0, "started_unix_nanos": 0
            }))
            .unwrap()
        };
        let links = [
            link("/nonexistent/prog", false),
            link("/nonexistent/other", false),
            link("/nonexistent/libx.so", true),
        ];
        // Before, the named program alone: libx.so, which it may load, stayed one copy.
        assert_eq!(
            relinked_with(&links, &[true, false, false]),
            [true, false, true]
        );
    }

    #[test]
    fn test_programs_are_known_by_their_names() {
        for name in [
            "db_test",
            "c-test",
            "leveldb_tests",
            "test_util",
            "test",
            "Tests",
            "foo_unittest",
            "env_posix_test",
            "_testembed",
        ] {
            assert!(is_test_name(name), "{name}");
        }
        for name in [
            "db_bench",
            "testament",
            "contest",
            "latest",
            "attestation",
            "ninja",
            "canon_perftest",
        ] {
            assert!(!is_test_name(name), "{name}");
        }
    }
}
