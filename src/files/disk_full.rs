//! Whether a write failed because the file system is full (ENOSPC) or the user's quota is
//! used up (EDQUOT): a transient failure, worth naming as such (what was being written, and
//! that freeing space and retrying will do) rather than as the temporary file it hit.

use nix::errno::Errno;

/// The words glibc's `strerror` gives the two errors, as a linker or another tool prints
/// them on stderr (a child's error reaches layoutrand only as its text).
const TEXTS: [&str; 2] = ["No space left on device", "Disk quota exceeded"];

/// Whether `e` or one of its causes is a full disk or an exhausted quota: an `io::Error` or
/// an `Errno` of either kind, or a child's message quoting one.
pub(crate) fn is_disk_full(e: &anyhow::Error) -> bool {
    let full = |errno: i32| errno == Errno::ENOSPC as i32 || errno == Errno::EDQUOT as i32;
    e.chain().any(|cause| {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            if io.raw_os_error().is_some_and(full) {
                return true;
            }
        }
        if let Some(errno) = cause.downcast_ref::<Errno>() {
            if full(*errno as i32) {
                return true;
            }
        }
        let text = cause.to_string();
        TEXTS.iter().any(|t| text.contains(t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn a_full_disk_is_recognised_through_contexts_and_in_a_childs_text() {
        let io = std::io::Error::from_raw_os_error(Errno::ENOSPC as i32);
        let wrapped = Err::<(), _>(io)
            .context("writing .work/seed-2/0/merged.o")
            .unwrap_err();
        assert!(is_disk_full(&wrapped));
        let errno = Err::<(), _>(Errno::EDQUOT)
            .context("cannot write x")
            .unwrap_err();
        assert!(is_disk_full(&errno));
        let linker = anyhow::anyhow!(
            "relinking demo failed (exit status: 1): /usr/bin/ld.bfd: final link failed: \
             No space left on device"
        );
        assert!(is_disk_full(&linker));
        let other = std::io::Error::from_raw_os_error(Errno::EACCES as i32);
        assert!(!is_disk_full(
            &anyhow::Error::from(other).context("writing x")
        ));
        assert!(!is_disk_full(&anyhow::anyhow!(
            "undefined reference to `f'"
        )));
    }
}
