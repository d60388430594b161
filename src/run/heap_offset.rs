//! The heap axis of a data seed (issue 35): a tiny preload library whose constructor makes
//! one allocation of the data seed's heap offset before `main` (source:
//! `src/run/heap_offset.c`, embedded), so that the program's first heap blocks start that
//! many bytes further on.
//!
//! The library is code that every execution runs, so it comes only from layoutrand itself:
//! built from the embedded source with the system `cc` into the user's private cache
//! (`$XDG_CACHE_HOME/layoutrand/heap-offset-HASH/`, else `~/.cache/…`; directories 0700,
//! owned by the user), the hash covering the source and the compiler's version, and its
//! SHA-256 checked before every execution. Never into or from the experiment directory: a
//! received directory must not supply code that runs (docs/run.md, "Trust and safety").

use std::collections::BTreeSet;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::targets::Target;
use crate::files::hash_cache::sha256_of_file;

/// The library's C source.
pub(crate) const SOURCE: &str = include_str!("heap_offset.c");
/// The variable the library reads the offset from.
pub(crate) const HEAP_OFFSET_VARIABLE: &str = "LAYOUTRAND_HEAP_OFFSET";
/// The variable the library reads malloc's mmap threshold from (`run
/// --vary-mmap-threshold`).
pub(crate) const MMAP_THRESHOLD_VARIABLE: &str = "LAYOUTRAND_MMAP_THRESHOLD";
/// Digits of the variables' values: fixed, so their size is the same for every data seed
/// (the stack moves by the padding only). Eight digits hold any value below 10⁸ (the offsets
/// and both mmap thresholds).
pub(crate) const HEAP_OFFSET_DIGITS: usize = 8;
/// The loader's preload variable.
pub(crate) const PRELOAD_VARIABLE: &str = "LD_PRELOAD";
/// File name of the built library in its cache directory.
const LIBRARY_FILE: &str = "libheapoffset.so";

/// The heap axis of a run: the library every execution preloads, and the programs it cannot
/// move (statically linked: no loader, so no preload).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeapOffsetLibrary {
    /// The built library (absolute, in the user's cache).
    pub(crate) path: PathBuf,
    /// Its SHA-256 when it was built or verified, checked before every execution.
    pub(crate) sha256: String,
    /// Programs (by name) whose binaries have no `PT_INTERP`: their heap is not moved.
    pub(crate) static_programs: BTreeSet<String>,
}

/// The value of [`HEAP_OFFSET_VARIABLE`] or [`MMAP_THRESHOLD_VARIABLE`] for `bytes`:
/// [`HEAP_OFFSET_DIGITS`] digits.
pub(crate) fn library_value(bytes: u32) -> String {
    format!("{bytes:0width$}", width = HEAP_OFFSET_DIGITS)
}

/// The library of this source and this `cc`, built into the user's cache when it is not
/// there (or does not match its recorded hash), and the programs of `targets` it cannot
/// move.
pub(crate) fn prepare_heap_offset(
    targets: &[Target],
    experiment: &Path,
) -> Result<HeapOffsetLibrary> {
    let cache = user_cache_dir()?;
    refuse_cache_inside(&cache, experiment)?;
    let path = cached_library(&cache)?;
    let sha256 = sha256_of_file(&path)?;
    let mut static_programs = BTreeSet::new();
    for t in targets {
        let Some(binary) = t.binaries.get(&t.program) else {
            continue;
        };
        if crate::layout::dynamic::interpreter(binary)?.is_none() {
            static_programs.insert(t.program.clone());
        }
    }
    Ok(HeapOffsetLibrary {
        path,
        sha256,
        static_programs,
    })
}

/// The heap axis of a run with `data_seeds` of `targets`: `None` with one data seed (nothing
/// is preloaded); else the library, after saying once for each statically linked program
/// that its heap is not moved.
pub(crate) fn for_run(
    data_seeds: u32,
    targets: &[Target],
    experiment: &Path,
) -> Result<Option<HeapOffsetLibrary>> {
    if data_seeds <= 1 {
        return Ok(None);
    }
    let library = prepare_heap_offset(targets, experiment)?;
    for program in &library.static_programs {
        crate::diagnostic!("layoutrand: heap axis not varied for {program}: statically linked");
    }
    Ok(Some(library))
}

impl HeapOffsetLibrary {
    /// Refuses to run when the library changed since it was built or verified.
    pub(crate) fn check(&self) -> Result<()> {
        let now = sha256_of_file(&self.path)?;
        if now != self.sha256 {
            bail!(
                "the heap-offset library {} changed during the run (SHA-256 {} instead of {}): \
                 refused; remove it and rerun with --resume to rebuild it",
                self.path.display(),
                now,
                self.sha256
            );
        }
        Ok(())
    }
}

/// `$XDG_CACHE_HOME/layoutrand` (an absolute XDG_CACHE_HOME only, as the XDG specification
/// says), else `$HOME/.cache/layoutrand`.
fn user_cache_dir() -> Result<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from) {
        Some(p) if p.is_absolute() => p,
        _ => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(".cache"),
            None => bail!(
                "--data-seeds needs a private cache for its heap-offset library: set HOME or \
                 XDG_CACHE_HOME"
            ),
        },
    };
    Ok(base.join("layoutrand"))
}

/// Refuses a cache that lies inside the experiment directory (`XDG_CACHE_HOME` pointing
/// into it, a link on the way): a received directory would then supply the library every
/// execution loads, with the hash beside it that vouches for it (issue 54, attack 7).
fn refuse_cache_inside(cache: &Path, experiment: &Path) -> Result<()> {
    // The deepest existing ancestor of each, links resolved: the cache may not exist yet.
    let resolved = |p: &Path| {
        p.ancestors()
            .find_map(|a| {
                a.canonicalize()
                    .ok()
                    .map(|c| c.join(p.strip_prefix(a).unwrap_or(p)))
            })
            .unwrap_or_else(|| p.to_path_buf())
    };
    let (cache_at, dir_at) = (resolved(cache), resolved(experiment));
    if cache_at.starts_with(&dir_at) {
        bail!(
            "the heap-offset library's cache {} lies inside the experiment directory {}: \
             refused (a directory's files never supply code that runs; point XDG_CACHE_HOME \
             elsewhere, or unset it for ~/.cache)",
            cache.display(),
            experiment.display()
        );
    }
    Ok(())
}

/// A directory only this user may write: created 0700 when missing, refused when another
/// user owns it or others may write to it.
fn private_dir(dir: &Path) -> Result<()> {
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let meta =
        std::fs::symlink_metadata(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let uid = nix::unistd::geteuid().as_raw();
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o022 != 0 {
        bail!(
            "{} must be a directory of yours that no one else may write to: it holds code \
             every execution of --data-seeds loads",
            dir.display()
        );
    }
    Ok(())
}

/// The hash naming a build: the source and the compiler's `--version`.
fn build_key() -> Result<String> {
    let version = crate::child::command("cc")
        .arg("--version")
        .output()
        .context("--data-seeds builds its heap-offset library with cc: cannot run cc")?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(SOURCE.as_bytes());
    hasher.update(&version.stdout);
    Ok(hasher.finalize().to_hex()[..16].to_string())
}

/// The library in `cache/heap-offset-KEY/`, built there when missing or when it no longer
/// matches the SHA-256 recorded beside it.
fn cached_library(cache: &Path) -> Result<PathBuf> {
    private_dir(cache)?;
    let dir = cache.join(format!("heap-offset-{}", build_key()?));
    private_dir(&dir)?;
    let library = dir.join(LIBRARY_FILE);
    let recorded = dir.join(format!("{LIBRARY_FILE}.sha256"));
    if library.is_file() {
        let expected = std::fs::read_to_string(&recorded).unwrap_or_default();
        if sha256_of_file(&library)? == expected.trim() {
            return Ok(library);
        }
    }
    build_library(&dir, &library, &recorded)?;
    Ok(library)
}

/// Compiles [`SOURCE`] with `cc -shared -fPIC -O2` into `library` (through a temporary file
/// renamed into place, so a concurrent run sees the old file or the new one) and records its
/// SHA-256 in `recorded`.
fn build_library(dir: &Path, library: &Path, recorded: &Path) -> Result<()> {
    let source = tempfile::Builder::new()
        .suffix(".c")
        .tempfile_in(dir)
        .context("cannot write the heap-offset library's source")?;
    std::fs::write(source.path(), SOURCE)?;
    let built = tempfile::Builder::new()
        .suffix(".so")
        .tempfile_in(dir)
        .context("cannot create the heap-offset library")?;
    let out = crate::child::command("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(built.path())
        .arg(source.path())
        .output()
        .context("--data-seeds builds its heap-offset library with cc: cannot run cc")?;
    if !out.status.success() {
        bail!(
            "cc could not build the heap-offset library (cc -shared -fPIC -O2): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    std::fs::set_permissions(built.path(), std::fs::Permissions::from_mode(0o700))?;
    let sha = sha256_of_file(built.path())?;
    let mut record = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut record, sha.as_bytes())?;
    record
        .persist(recorded)
        .context("cannot record the heap-offset library's hash")?;
    built
        .persist(library)
        .context("cannot install the heap-offset library")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_variable_has_one_size_for_every_offset() {
        assert_eq!(library_value(0), "00000000");
        assert_eq!(library_value(1552), "00001552");
        let max = crate::run::data_layout::HEAP_OFFSET_MAX;
        assert_eq!(library_value(max - 16).len(), HEAP_OFFSET_DIGITS);
    }

    #[test]
    fn a_directory_others_may_write_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = private_dir(&dir).unwrap_err().to_string();
        assert!(err.contains("no one else may write"), "{err}");
    }
}
