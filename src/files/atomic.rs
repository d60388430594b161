//! Whole-file writes that a reader (or a crash) never sees half done.

use std::io::Write;
use std::path::Path;

use anyhow::Result;

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync,
/// rename, fsync of the directory, through [`crate::files::confined::ExperimentDir`] opened
/// on `path`'s directory (so a symbolic link or a special file at `path` is refused, not
/// replaced). A write below an experiment directory whose subdirectories may have been
/// planted goes through an `ExperimentDir` opened on the experiment directory instead.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |w| Ok(w.write_all(bytes)?))
}

/// Like [`write_atomically`], with the content written by `fill` as it is produced (so a large
/// file is never held in memory); when `fill` fails, `path` is left as it was.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let (dir, name) = crate::files::confined::parent_of(path)?;
    dir.write_atomic_with(name, fill)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::confined::process_umask;
    use std::os::unix::fs::PermissionsExt;

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
