//! The SHA-256 of files, computed again only when a file may have changed: the runner checks
//! a staged binary's hash before every execution, and reading a program of several MB costs
//! milliseconds each time.
//!
//! A hash is kept per file (device and inode) with the file's identity (size, modification
//! and change times), and reused while that identity is unchanged. Any write to the file
//! changes its change time (ctime), which no process can set back. The kernel stamps times
//! from a clock that lags by up to a tick (≤ 10 ms), so a write just after the read began can
//! carry an earlier ctime: a hash is kept only for a file whose ctime is at least
//! [`SETTLED`] older than the read began (git's "racy" rule).
//!
//! Linking and unlinking a file also change its ctime: staging a binary at its fixed path
//! ([`crate::run::environment::stage_binary`]) does both, to the binary staged and to the
//! one it replaces, before every execution of an interleaved run. [`own_change`] lets such
//! an operation of ours carry a kept hash across it: a file whose hash was valid just before
//! the operation, and whose size and modification time are the same just after it (a write
//! by anyone in between would have stamped a new modification time, later than the settled
//! one), keeps its hash under the identity the operation left. Any change after that changes
//! the identity again, and the file is hashed anew.

use std::cell::Cell;
use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};

/// How long before a hash is read a file must have last changed for the hash to be kept.
pub const SETTLED: std::time::Duration = std::time::Duration::from_millis(100);

/// A file: device and inode.
type FileKey = (u64, u64);

/// What any change to a file's contents or links changes: size, modification time, change
/// time (seconds and nanoseconds).
type Identity = (u64, i64, i64, i64, i64);

static KNOWN: Mutex<Option<HashMap<FileKey, (Identity, String)>>> = Mutex::new(None);

thread_local! {
    /// Files this thread has read to hash them: a test's way to tell a kept hash from a
    /// computed one (one increment per read of a whole file: nothing next to the read).
    static HASHED: Cell<u64> = const { Cell::new(0) };
}

/// How many files this thread has read to hash them (not counting hashes reused).
pub fn files_hashed_by_this_thread() -> u64 {
    HASHED.with(Cell::get)
}

fn key(m: &Metadata) -> FileKey {
    (m.dev(), m.ino())
}

fn identity(m: &Metadata) -> Identity {
    (
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    )
}

/// The SHA-256 of a file, in lowercase hex: a manifest binary's `sha256`. `build` records it
/// and `run` checks it before every execution, so a binary replaced after the build is never
/// measured under another binary's label.
pub fn sha256_of_file(path: &Path) -> Result<String> {
    use sha2::Digest;
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut file, &mut hasher)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn with_known<T>(f: impl FnOnce(&mut HashMap<FileKey, (Identity, String)>) -> T) -> T {
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    f(known.get_or_insert_with(HashMap::new))
}

/// The hash kept for the file `m` describes, if its identity is the one it was kept with.
fn kept(m: &Metadata) -> Option<String> {
    with_known(|known| {
        known
            .get(&key(m))
            .filter(|(id, _)| *id == identity(m))
            .map(|(_, hash)| hash.clone())
    })
}

/// [`sha256_of_file`], computed again only when the file may have changed (the module's
/// rules).
pub(crate) fn sha256(path: &Path) -> Result<String> {
    let began = std::time::SystemTime::now();
    let before =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if let Some(hash) = kept(&before) {
        return Ok(hash);
    }
    let hash = sha256_of_file(path)?;
    HASHED.with(|n| n.set(n.get() + 1));
    // Kept only if the file did not change while it was read and had settled before.
    let after =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let changed = std::time::UNIX_EPOCH
        + std::time::Duration::new(after.ctime().max(0) as u64, after.ctime_nsec() as u32);
    let settled = changed + SETTLED <= began;
    let same = key(&after) == key(&before) && identity(&after) == identity(&before);
    if settled && same {
        with_known(|known| known.insert(key(&after), (identity(&after), hash.clone())));
    }
    Ok(hash)
}

/// Runs `operation`, one of ours that links or unlinks the files at `paths` (a path that is
/// a symbolic link, or holds no file, is passed over) without writing their contents, and
/// carries the hashes kept for those files across it (the module's rules); then returns
/// what it returned.
pub(crate) fn own_change<T>(paths: &[&Path], operation: impl FnOnce() -> Result<T>) -> Result<T> {
    // Read-only, and never through a symbolic link.
    let open = |path: &Path| {
        use nix::fcntl::OFlag;
        use std::os::fd::FromRawFd;
        let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let fd = nix::fcntl::open(path, flags, nix::sys::stat::Mode::empty()).ok()?;
        // SAFETY: `open` just returned this descriptor, owned by nothing else.
        Some(unsafe { File::from_raw_fd(fd) })
    };
    // Each file with a valid kept hash, held open so that it is found again once unlinked.
    let before: Vec<(File, Metadata)> = paths
        .iter()
        .filter_map(|p| open(p))
        .filter_map(|f| f.metadata().ok().map(|m| (f, m)))
        .filter(|(_, m)| m.is_file() && kept(m).is_some())
        .collect();
    let result = operation();
    for (file, was) in before {
        let now = file.metadata().ok();
        with_known(|known| {
            let Some((id, hash)) = known.remove(&key(&was)) else {
                return;
            };
            let untouched = now.as_ref().is_some_and(|m| {
                id == identity(&was)
                    && m.size() == was.size()
                    && m.mtime() == was.mtime()
                    && m.mtime_nsec() == was.mtime_nsec()
            });
            if let (true, Some(m)) = (untouched, now) {
                known.insert(key(&m), (identity(&m), hash));
            }
        });
    }
    result
}
