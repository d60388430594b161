//! Each seed's programs load that seed's shared libraries, and nothing else of the build.
//!
//! A seed's libraries are staged next to its programs in the run's staging directory
//! (`DIR/.run/lib/<soname>`, one fixed path per library, as for the programs), and every
//! execution gets `LD_LIBRARY_PATH` pointing there. That alone is not a guarantee: a
//! binary's `DT_RPATH` (which the loader searches before `LD_LIBRARY_PATH`), a library named
//! on the link line by an absolute path (no soname), or a missing file would load the
//! build tree's or the system's copy — another layout, silently. So before each execution
//! the dynamic loader itself is asked where every library would come from (`ld.so --list`,
//! with the execution's environment), and an execution whose binary would load any of the
//! seed's libraries from elsewhere is not run: it fails with the library, the path it would
//! load and the reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::environment::stage_binary;
use crate::layout::dynamic;

/// The name of the environment variable that points the loader at the staged libraries.
pub(crate) const LIBRARY_PATH_VARIABLE: &str = "LD_LIBRARY_PATH";

/// Where a seed's libraries are staged inside the staging directory `staging`.
pub(crate) fn staged_library_dir(staging: &Path) -> PathBuf {
    staging.join("lib")
}

/// Stages `libraries` (loaded name → source path and the manifest's SHA-256) into `dir`,
/// removing any other file there (another seed's library the current one does not have),
/// and checks each staged file's SHA-256 like a program's. `binary` is the label, for
/// messages.
pub(crate) fn stage_libraries(
    libraries: &BTreeMap<String, (PathBuf, String)>,
    dir: &Path,
    binary: &str,
) -> Result<()> {
    let (staging, lib) = crate::files::confined::parent_of(dir)?;
    let lib_dir = staging
        .sub(lib)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, _) in lib_dir.list("")? {
        if !libraries.contains_key(&*name.to_string_lossy()) {
            lib_dir
                .remove_file(&name)
                .with_context(|| format!("cannot remove {}", dir.join(&name).display()))?;
        }
    }
    for (name, (source, sha256)) in libraries {
        let staged = dir.join(name);
        stage_binary(source, &staged)?;
        super::targets::check_sha256("library", source, &staged, sha256, binary)?;
    }
    Ok(())
}

/// Asks the dynamic loader of `program` (its `PT_INTERP`) where it would load each library
/// from, with `env` as the execution's environment, and returns why it would not load every
/// one of `libraries` (by loaded name) from `dir`; `Ok(None)` when it would (or when
/// `program` loads no library: a static executable or a script).
pub(crate) fn wrong_library(
    program: &Path,
    libraries: &BTreeMap<String, (PathBuf, String)>,
    dir: &Path,
    env: &[(String, String)],
) -> Result<Option<String>> {
    let Some(loader) = dynamic::interpreter(program)? else {
        return Ok(None);
    };
    let out = crate::child::command(&loader)
        .arg("--list")
        .arg(program)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .with_context(|| format!("cannot run the dynamic loader {}", loader.display()))?;
    let listing = String::from_utf8_lossy(&out.stdout);
    Ok(check_listing(&listing, libraries, dir, program))
}

/// The check of [`wrong_library`] on the loader's listing (`name => path (address)` lines).
fn check_listing(
    listing: &str,
    libraries: &BTreeMap<String, (PathBuf, String)>,
    dir: &Path,
    program: &Path,
) -> Option<String> {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    for line in listing.lines() {
        let line = line.trim();
        let (name, target) = match line.split_once(" => ") {
            Some((name, rest)) => (name.trim().to_string(), rest),
            None => {
                let path = line.split(" (").next().unwrap_or(line);
                let name = Path::new(path)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (name, line)
            }
        };
        let target = target.split(" (").next().unwrap_or(target).trim();
        // Ours by the name it is loaded by, or by the file name of what would be loaded.
        let file_name = Path::new(target)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(ours) = [&name, &file_name]
            .into_iter()
            .find(|n| libraries.contains_key(n.as_str()))
        else {
            continue;
        };
        let staged = dir.join(ours);
        if target == "not found" {
            return Some(format!(
                "{} would not find its library {ours} (the dynamic loader says: {line})",
                program.display()
            ));
        }
        if canonical(Path::new(target)) != canonical(&staged) {
            return Some(format!(
                "{} would load {ours} from {target}, not this binary's copy {}: the binary's \
                 RPATH, or a path on its link line, takes precedence over {LIBRARY_PATH_VARIABLE} \
                 (relink it with RUNPATH, e.g. -Wl,--enable-new-dtags, or without the build \
                 tree's path); not run, so that no other layout is measured under this label",
                program.display(),
                staged.display()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn libs(names: &[&str]) -> BTreeMap<String, (PathBuf, String)> {
        names
            .iter()
            .map(|n| (n.to_string(), (PathBuf::from(n), String::new())))
            .collect()
    }

    #[test]
    fn the_listing_must_name_the_staged_copy_of_each_library() {
        let dir = Path::new("/x/.run/lib");
        let prog = Path::new("/x/.run/bin/p");
        let ok = "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibbz2.so.1.0 => /x/.run/lib/libbz2.so.1.0 (0x1)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x2)\n\t/lib64/ld-linux-x86-64.so.2 (0x3)\n";
        assert_eq!(
            check_listing(ok, &libs(&["libbz2.so.1.0"]), dir, prog),
            None
        );
        let system = ok.replace(
            "/x/.run/lib/libbz2.so.1.0",
            "/lib/x86_64-linux-gnu/libbz2.so.1.0",
        );
        let why = check_listing(&system, &libs(&["libbz2.so.1.0"]), dir, prog).unwrap();
        insta::assert_snapshot!(why);
        let missing = ok.replace("/x/.run/lib/libbz2.so.1.0 (0x1)", "not found");
        let why = check_listing(&missing, &libs(&["libbz2.so.1.0"]), dir, prog).unwrap();
        insta::assert_snapshot!(why);
        // No soname: loaded by the absolute path the link line gave.
        let by_path = "\t/build/libfoo.so (0x1)\n";
        let why = check_listing(by_path, &libs(&["libfoo.so"]), dir, prog).unwrap();
        insta::assert_snapshot!(why);
        // Libraries that are not the build's own are none of this check's business.
        assert_eq!(check_listing(ok, &libs(&["libother.so"]), dir, prog), None);
    }
}
