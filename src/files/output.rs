//! `-o FILE`: where a report, an export or an explanation goes when not to standard output.
//!
//! A regular file (or a new name) is replaced atomically: a reader never sees half of it. A
//! FIFO, a character device (`/dev/null`, a terminal) or `/dev/stdout` is written into, never
//! replaced: renaming over a device node would turn it into a regular file (as root,
//! `-o /dev/full` replaced the device). And a path that is one of the experiment's own files
//! (its store, manifest, MACs, binaries, recording) is refused: the output would overwrite the
//! measurements it was computed from.

use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Component, Path};

use anyhow::{bail, Context, Result};

/// Writes a command's answer to standard output: every command's standard output goes
/// through here (or the `out!`/`outln!` macros, which call it), never through `print!`,
/// which panics when the output cannot be written. A failure (a full disk behind `>`) is an
/// error that says where the answer was going; a closed pipe ends the process by SIGPIPE,
/// as Unix tools do (main.rs restores its default action).
pub fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))
}

/// The names at the top of an experiment directory that are its own data.
const OWN_FILES: &[&str] = &[
    crate::files::manifest::MANIFEST_FILE,
    crate::files::results::RESULTS_FILE,
];

/// Writes what `fill` produces to `path` (see the module): atomically for a regular file,
/// into a FIFO or character device; refused inside `experiment`'s own files.
pub fn write_output_with(
    path: &Path,
    experiment: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    refuse_own_file(path, experiment)?;
    // `/dev/stdout` (a link to `/proc/self/fd/1`, itself a link to whatever the shell
    // opened) and other names or links into /dev or /proc are written into, appending (the
    // shell's `>` left the file empty, `>>` keeps it): judged by the name and its first
    // link, since following every link ends at the shell's file, which replacing would
    // empty of what `>>` kept.
    if is_device_name(path) {
        return write_into(path, true, fill);
    }
    if let Some(target) = linked_target(path) {
        // A link of the user's to a regular file has its target replaced.
        return write_output_with(&target, experiment, fill);
    }
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_fifo() || m.file_type().is_char_device() => {
            write_into(path, false, fill)
        }
        Ok(m) if !m.is_file() => bail!(
            "-o {}: not a regular file, a FIFO or a character device: refused",
            path.display()
        ),
        _ => crate::files::write_atomically_with(path, fill),
    }
}

/// [`write_output_with`] of whole bytes.
pub fn write_output(path: &Path, experiment: &Path, bytes: &[u8]) -> Result<()> {
    write_output_with(path, experiment, |w| Ok(w.write_all(bytes)?))
}

/// Whether `path` names something under /dev or /proc, itself or through its first link
/// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, a link of the user's to one of them).
fn is_device_name(path: &Path) -> bool {
    let under = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    under(path) && std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
        || std::fs::read_link(path).is_ok_and(|t| under(&t))
}

/// Where the symbolic link `path` leads, when it is one (and leads somewhere).
fn linked_target(path: &Path) -> Option<std::path::PathBuf> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    path.canonicalize().ok()
}

/// Writes into an existing FIFO or device (or, `append`, the file behind `/dev/stdout`),
/// opened for writing without truncating or replacing it.
fn write_into(
    path: &Path,
    append: bool,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .append(append)
        .open(path)
        .with_context(|| format!("cannot open {} for writing", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    fill(&mut out)?;
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Refuses `path` when it names one of `experiment`'s own files: its manifest, its store
/// (and the stores set aside by `repair`), a MAC, or anything in one of its subdirectories
/// (binaries, recording, shards, Slurm files).
fn refuse_own_file(path: &Path, experiment: &Path) -> Result<()> {
    let Ok(root) = experiment.canonicalize() else {
        return Ok(());
    };
    let Some(name) = path.file_name() else {
        bail!("-o {}: not a file name", path.display());
    };
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(parent) = parent.canonicalize() else {
        return Ok(());
    };
    let Ok(rel) = parent.join(name).strip_prefix(&root).map(Path::to_path_buf) else {
        return Ok(());
    };
    let parts: Vec<Component> = rel.components().collect();
    let name = name.to_string_lossy();
    let own = parts.len() != 1
        || OWN_FILES.contains(&name.as_ref())
        || name.starts_with(crate::files::results::RESULTS_FILE)
        || name.ends_with(crate::files::trust::MAC_SUFFIX);
    if own {
        bail!(
            "-o {}: that is the experiment's own data (in {}): refused, the output would \
             overwrite what it was computed from; write it beside it (e.g. {}/report.html) or \
             elsewhere",
            path.display(),
            experiment.display(),
            experiment.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_files_are_refused_and_a_report_beside_them_is_not() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("seed-1")).unwrap();
        for own in [
            "results.jsonl",
            "manifest.json",
            "manifest.json.mac",
            "results.jsonl.damaged-1",
            "seed-1/demo",
        ] {
            let err = write_output(&d.path().join(own), d.path(), b"x").unwrap_err();
            assert!(format!("{err}").contains("own data"), "{own}: {err}");
            assert!(!d.path().join(own).exists(), "{own}");
        }
        write_output(&d.path().join("report.html"), d.path(), b"ok").unwrap();
        assert_eq!(
            std::fs::read_to_string(d.path().join("report.html")).unwrap(),
            "ok"
        );
    }
}
