//! Paths taken from an experiment directory's files, confined to that directory.
//!
//! An experiment directory is data, never a key: a manifest, a store or a staging directory
//! received from someone else (a colleague's results, a CI artifact) must not make
//! layoutrand write, remove or execute anything outside it. So:
//!
//! - every name that becomes a path component (a program's name, a library's soname, a
//!   variant's name) is one plain file name: [`check_component`];
//! - every path read from a file is relative and made of plain components, and is resolved
//!   inside the directory with symbolic links followed and the result checked against the
//!   directory's own canonical path: [`resolve_inside`];
//! - the directories the runner writes into are real directories, never symbolic links
//!   ([`ensure_real_dir`]), and the files it writes there are created afresh without
//!   following a symbolic link ([`create_fresh_file`], [`open_append_no_follow`]).
//!
//! These guard against what a received directory holds when layoutrand starts, not against
//! another process racing to swap files while it runs (which needs write access to the
//! directory, and so could change the binaries themselves).

mod dir;
pub use dir::{is_missing, make_parent_of, parent_of, process_umask, Entry, ExperimentDir};

use std::fs::File;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

/// Checks that `name` is a single plain file name: not empty, not `.` or `..`, without `/`
/// or a NUL byte. `what` says what the name is, for the message (e.g. "program name").
pub(crate) fn check_component(name: &str, what: &str) -> Result<()> {
    let why = if name.is_empty() {
        Some("it is empty")
    } else if name == "." || name == ".." {
        Some("it names a directory (`.` or `..`)")
    } else if name.contains('/') {
        Some("it contains `/`")
    } else if name.contains('\0') {
        Some("it contains a NUL byte")
    } else {
        None
    };
    match why {
        Some(why) => bail!(
            "{what} {name:?} is not a single file name ({why}): it would make a path outside \
             the experiment directory"
        ),
        None => Ok(()),
    }
}

/// Checks that `path` is relative and made only of plain components (no `/` at the start,
/// no `..`, no `.`), so that joined to a directory it stays lexically inside it. `what`
/// names the path for the message.
pub(crate) fn check_relative(path: &Path, what: &str) -> Result<()> {
    if path.as_os_str().is_empty() {
        bail!("{what} is empty");
    }
    if std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).contains(&0) {
        bail!("{what} {path:?} contains a NUL byte");
    }
    for c in path.components() {
        match c {
            Component::Normal(_) => {}
            Component::RootDir | Component::Prefix(_) => bail!(
                "{what} {} is absolute: paths in an experiment directory's files are relative \
                 to the directory, and never lead outside it",
                path.display()
            ),
            Component::ParentDir | Component::CurDir => bail!(
                "{what} {} contains `{}`: paths in an experiment directory's files are plain \
                 relative paths inside it",
                path.display(),
                c.as_os_str().to_string_lossy()
            ),
        }
    }
    Ok(())
}

/// `dir/rel` when it exists and lies inside `dir` once every symbolic link on the way is
/// followed; `rel` must pass [`check_relative`]. The returned path is the canonical one, so
/// what is later opened or executed is what was checked.
pub(crate) fn resolve_inside(dir: &Path, rel: &Path, what: &str) -> Result<PathBuf> {
    check_relative(rel, what)?;
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    let joined = dir.join(rel);
    let real = joined
        .canonicalize()
        .with_context(|| format!("{what} {} cannot be resolved", joined.display()))?;
    if !real.starts_with(&root) {
        bail!(
            "{what} {} leads outside {} (to {}, through a symbolic link): refused, an \
             experiment directory's files never make layoutrand read or run anything outside it",
            joined.display(),
            root.display(),
            real.display()
        );
    }
    Ok(real)
}

/// Makes sure `dir`, which lies below `base`, is a real directory: every component between
/// `base` and `dir` that exists must be a directory and not a symbolic link (one planted in
/// a received experiment directory would redirect the runner's writes elsewhere); missing
/// ones are created. `base` itself is the user's choice and may be a link.
pub(crate) fn ensure_real_dir(base: &Path, dir: &Path) -> Result<()> {
    let root = ExperimentDir::open(base)?;
    root.create_dir_all(root.rel(dir)?)
}

/// Refuses a symbolic link planted where a command is about to write: each of `subdirs`
/// of `dir` (`""` for `dir` itself) must not be a link, nor may any entry directly in it. A
/// planted `seed-N`, `.work`, `.record/merged`, `slurm`, `shards` or `explain` link would
/// otherwise send a relink's, a submission's or an explanation's writes (and its deletions)
/// outside the directory. Missing subdirectories are fine.
pub(crate) fn refuse_links_in(dir: &Path, subdirs: &[&str]) -> Result<()> {
    let root = match ExperimentDir::open(dir) {
        Ok(root) => root,
        Err(e) if is_missing(&e) => return Ok(()),
        Err(e) => return Err(e),
    };
    for sub in subdirs {
        if !sub.is_empty() {
            match root.entry(sub)? {
                Entry::Link => bail!(planted(&dir.join(sub))),
                Entry::Dir => {}
                _ => continue,
            }
        }
        for (name, kind) in root.list(sub)? {
            if kind == Entry::Link {
                bail!(planted(&dir.join(sub).join(name)));
            }
        }
    }
    Ok(())
}

/// Refuses a symbolic link at `path` (a marker file layoutrand reads by its existence and
/// then creates): a link there, dangling or not, would be taken for the marker or replaced
/// behind the user's back. A missing or regular file is fine.
pub(crate) fn refuse_link_at(path: &Path) -> Result<()> {
    let (dir, name) = match parent_of(path) {
        Ok(found) => found,
        // No folder, so no marker either (the folder is made later, through the writer).
        Err(e) if is_missing(&e) => return Ok(()),
        Err(e) => return Err(e),
    };
    match dir.entry(name)? {
        Entry::Link => bail!(planted(path)),
        _ => Ok(()),
    }
}

fn planted(at: &Path) -> String {
    format!(
        "{} is a symbolic link: layoutrand writes there and refuses to follow a link out of \
         the experiment directory (remove it; layoutrand recreates what it needs)",
        at.display()
    )
}

/// Creates `path` as a new, empty file for writing, removing whatever was there first
/// (a file, or a symbolic link, which is removed and not followed: its target is left
/// untouched). The file is opened with `O_EXCL | O_NOFOLLOW`.
pub(crate) fn create_fresh_file(path: &Path) -> Result<File> {
    let (dir, name) = parent_of(path)?;
    dir.create_fresh(name)
}

/// Opens `path` for appending (creating it when missing) and reading, without following a
/// symbolic link: a store that is a link is refused, whatever it points to, and so is
/// anything but a regular file. `what` names the file in messages.
pub(crate) fn open_append_no_follow(path: &Path, what: &str) -> Result<File> {
    let (dir, name) = parent_of(path)?;
    dir.open_append(name, what)
}

/// The most bytes of a side file of an experiment directory (manifest, stopping record,
/// explanation) that layoutrand reads: far above what it writes (a manifest of thousands of
/// seeds is a few MiB), far below what would exhaust memory.
pub(crate) const SIDE_FILE_LIMIT: u64 = 64 << 20;

/// The most bytes of one output file of a tool layoutrand ran (a cachegrind or callgrind
/// profile, the benchmark's standard output) that it reads: far above a real profile, far
/// below what would exhaust memory.
pub(crate) const TOOL_OUTPUT_LIMIT: u64 = 1 << 30;

/// Opens the file `path` for reading when it is a regular file, in a directory known to be a
/// real one (checked on the way down from the experiment directory, as the runner's staging
/// folder is before any execution): the last component is opened without following a link
/// and without blocking (see [`ExperimentDir::open_regular`]).
pub(crate) fn open_regular(path: &Path) -> Result<File> {
    let (dir, name) = parent_of(path)?;
    dir.open_regular(name)
}

/// The regular files of the directory `dir` whose names start with `prefix` (the output
/// files a tool wrote there, such as `cachegrind.out.PID`), in name order, each with its
/// text read through [`ExperimentDir`] and at most [`TOOL_OUTPUT_LIMIT`] bytes. A link or a
/// special file of that name is refused, naming it (a FIFO would stall the reader).
pub(crate) fn read_outputs_named(dir: &Path, prefix: &str) -> Result<Vec<(PathBuf, String)>> {
    let root = ExperimentDir::open(dir)?;
    let mut outputs = Vec::new();
    for (name, _) in root.list("")? {
        if !name.to_string_lossy().starts_with(prefix) {
            continue;
        }
        let text = root
            .read_text_optional(&name, TOOL_OUTPUT_LIMIT)?
            .unwrap_or_default();
        outputs.push((dir.join(name), text));
    }
    Ok(outputs)
}

/// The text of the side file `rel` of the experiment directory `dir` (manifest, stopping
/// record, Slurm plan, explanation), read through [`ExperimentDir`] (no link at any component
/// below `dir`, no FIFO or device) and at most [`SIDE_FILE_LIMIT`] bytes: a larger one is
/// refused, naming it, before it is read whole (issue 54, attack 6: a 1 GB manifest cost
/// 1 GB). `Ok(None)` when it, or `dir`, is missing.
pub(crate) fn read_side_file(dir: &Path, rel: impl AsRef<Path>) -> Result<Option<String>> {
    let root = match ExperimentDir::open(dir) {
        Ok(root) => root,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    root.read_text_optional(rel, SIDE_FILE_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `err` (with its causes) with `dir` written `[dir]` and `outside` written `[outside]`.
    fn redacted(err: &anyhow::Error, dir: &Path, outside: Option<&Path>) -> String {
        let text = format!("{err:#}").replace(dir.to_str().unwrap(), "[dir]");
        match outside {
            Some(o) => text.replace(o.to_str().unwrap(), "[outside]"),
            None => text,
        }
    }

    #[test]
    fn a_marker_in_a_folder_not_made_yet_is_no_link() {
        let dir = tempfile::tempdir().unwrap();
        refuse_link_at(&dir.path().join("source/.layoutrand-fetched")).unwrap();
        refuse_links_in(&dir.path().join("not-made"), &["", "slurm"]).unwrap();
        std::os::unix::fs::symlink("/etc", dir.path().join("marker")).unwrap();
        let err = refuse_link_at(&dir.path().join("marker")).unwrap_err();
        insta::assert_snapshot!(redacted(&err, dir.path(), None));
    }

    #[test]
    fn components_refuse_what_leaves_the_directory() {
        let messages: Vec<String> = ["", ".", "..", "/etc/passwd", "a/b", "../x", "a\0b"]
            .iter()
            .map(|bad| {
                format!(
                    "{bad:?}: {}",
                    check_component(bad, "program name").unwrap_err()
                )
            })
            .collect();
        insta::assert_snapshot!(messages.join("\n"));
        for good in [
            "demo",
            "lua5.4",
            "libz.so.1",
            "-odd",
            "with space",
            "..hidden",
        ] {
            check_component(good, "program name").unwrap();
        }
    }

    #[test]
    fn relative_paths_refuse_absolute_and_parent() {
        for bad in ["/etc/passwd", "../x", "a/../../b", "./a", ""] {
            assert!(check_relative(Path::new(bad), "path").is_err(), "{bad}");
        }
        check_relative(Path::new("seed-1/demo"), "path").unwrap();
    }

    #[test]
    fn resolution_refuses_a_link_out_of_the_directory() {
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "v").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("seed-1")).unwrap();
        std::fs::write(dir.path().join("seed-1/demo"), "x").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("seed-1/evil")).unwrap();
        std::os::unix::fs::symlink("demo", dir.path().join("seed-1/alias")).unwrap();
        let inside = resolve_inside(dir.path(), Path::new("seed-1/demo"), "binary").unwrap();
        assert!(inside.ends_with("seed-1/demo"));
        // A link inside the directory to a file inside it is fine.
        resolve_inside(dir.path(), Path::new("seed-1/alias"), "binary").unwrap();
        let err = resolve_inside(dir.path(), Path::new("seed-1/evil"), "binary").unwrap_err();
        insta::assert_snapshot!(redacted(&err, dir.path(), Some(outside.path())));
    }

    #[test]
    fn real_dirs_refuse_links_and_fresh_files_do_not_follow_them() {
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".run")).unwrap();
        let err = ensure_real_dir(dir.path(), &dir.path().join(".run/bin")).unwrap_err();
        insta::assert_snapshot!(redacted(&err, dir.path(), Some(outside.path())));
        assert!(!outside.path().join("bin").exists());

        std::fs::remove_file(dir.path().join(".run")).unwrap();
        ensure_real_dir(dir.path(), &dir.path().join(".run/bin")).unwrap();
        assert!(dir.path().join(".run/bin").is_dir());
        let planted = dir.path().join(".run/stdout");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        use std::io::Write;
        create_fresh_file(&planted)
            .unwrap()
            .write_all(b"out")
            .unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert_eq!(std::fs::read_to_string(&planted).unwrap(), "out");

        let store = dir.path().join("results.jsonl");
        std::os::unix::fs::symlink(&victim, &store).unwrap();
        let err = open_append_no_follow(&store, "the store").unwrap_err();
        insta::assert_snapshot!(redacted(&err, dir.path(), Some(outside.path())));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    }
}
