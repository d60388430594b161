//! Whole-file writes that a reader (or a crash) never sees half done.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync,
/// rename, fsync of the directory.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |w| Ok(w.write_all(bytes)?))
}

/// Like [`write_atomically`], with the content written by `fill` as it is produced (so a large
/// file is never held in memory); when `fill` fails, `path` is left as it was.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(mode_for(path)))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let mut out = std::io::BufWriter::new(tmp);
    fill(&mut out)?;
    let tmp = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path)
        .with_context(|| format!("cannot rename into {}", path.display()))?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The mode a file written at `path` gets: the mode of the regular file it replaces, else
/// what `open(…, 0666)` would give under the process's umask. A temporary file is created
/// 0600, and a rename kept that: reports and manifests were private whatever the umask said
/// (issue 36).
fn mode_for(path: &Path) -> u32 {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => m.permissions().mode() & 0o7777,
        _ => 0o666 & !process_umask(),
    }
}

/// The process's umask, read from `/proc/self/status` (Linux 4.7 and later) without
/// changing it (`umask(2)` can only be read by setting it, which races with other threads);
/// 022 when it cannot be read.
pub(crate) fn process_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_files_follow_the_umask_and_replaced_files_keep_their_mode() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("report.txt");
        write_atomically(&fresh, b"a").unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !process_umask(), "{mode:o}");
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&fresh, b"b").unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert_eq!(std::fs::read(&fresh).unwrap(), b"b");
    }
}
