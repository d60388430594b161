//! Own versus received: the per-user key and the MACs that tell an experiment directory this
//! user's layoutrand wrote from one received (or edited) since.
//!
//! Everything layoutrand later executes or hands to a shell or a linker comes from a few
//! files of the directory: the recorded links (`.record/links/*.json`: tool, arguments, cwd,
//! environment, the blobs' hashes), the manifest (the binaries' hashes, the build command),
//! the store's header (the run's command, cwd and environment) and the Slurm plan (program,
//! partition, token, node folder). Whenever layoutrand writes one of them it also writes
//! `FILE.mac`: a keyed BLAKE3 hash of the bytes it wrote, under a key that never leaves the
//! user's configuration directory ([`key_path`]). A file whose MAC verifies was written by
//! this user's layoutrand, byte for byte; anything else (no MAC: written before MACs existed,
//! or by someone else; a wrong one: edited) is data. The commands that would run, relink or
//! submit from such a file refuse unless told `--trust` (see `layoutrand trust`).
//!
//! The MAC binds a file's bytes and its kind (a manifest's MAC does not verify a plan), not
//! the directory's path: a directory moved or copied stays the user's own. So a file this
//! user once wrote, copied into another directory by someone with write access to it, still
//! verifies; docs/run.md says so in its threat model.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// Environment variable naming the key file (tests point it into a temporary directory so
/// they never touch the real home).
pub const KEY_ENV: &str = "LAYOUTRAND_KEY";
/// Length of the key, bytes.
const KEY_LEN: usize = 32;
/// Suffix of the MAC beside a file.
pub(crate) const MAC_SUFFIX: &str = ".mac";
/// The longest store header read to check its MAC: a header is a few kilobytes; a longer
/// first line is not one layoutrand wrote.
pub(crate) const MAX_HEADER_BYTES: u64 = 1 << 20;

/// What a signed file is: part of what its MAC covers, so a MAC of one kind never verifies a
/// file of another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `manifest.json`.
    Manifest,
    /// The first line of a store (`results.jsonl`, a shard's store).
    StoreHeader,
    /// One `.record/links/*.json`.
    LinkRecord,
    /// `slurm/plan.json`.
    SlurmPlan,
}

impl Kind {
    fn domain(self) -> &'static [u8] {
        match self {
            Kind::Manifest => b"layoutrand manifest v1\0",
            Kind::StoreHeader => b"layoutrand store header v1\0",
            Kind::LinkRecord => b"layoutrand link record v1\0",
            Kind::SlurmPlan => b"layoutrand slurm plan v1\0",
        }
    }
}

/// How a file checked against its MAC turned out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Its MAC verifies under this user's key: written by this user's layoutrand.
    Own,
    /// No `FILE.mac` beside it: written before layoutrand signed its files, or by someone
    /// else.
    Unsigned,
    /// A MAC that does not verify: the file was edited, or signed with another user's key.
    Mismatch,
}

/// The key file: `$LAYOUTRAND_KEY` when set, else `$XDG_CONFIG_HOME/layoutrand/key`, else
/// `~/.config/layoutrand/key`.
pub(crate) fn key_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(KEY_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let config = match std::env::var_os("XDG_CONFIG_HOME").filter(|p| !p.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => match std::env::var_os("HOME").filter(|p| !p.is_empty()) {
            Some(h) => PathBuf::from(h).join(".config"),
            None => bail!(
                "cannot place layoutrand's key: neither {KEY_ENV}, XDG_CONFIG_HOME nor HOME is set"
            ),
        },
    };
    Ok(config.join("layoutrand").join("key"))
}

/// This user's key, created on first use (mode 0600, in a directory of mode 0700).
pub(crate) fn key() -> Result<[u8; KEY_LEN]> {
    let path = key_path()?;
    match read_key(&path) {
        Ok(k) => return Ok(k),
        Err(e) if is_not_found(&e) => {}
        Err(e) => return Err(e),
    }
    create_key(&path)?;
    read_key(&path)
}

fn is_not_found(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

/// Reads the key file, refusing one that others may read or write (a key they know signs
/// their directories as this user's own).
fn read_key(path: &Path) -> Result<[u8; KEY_LEN]> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
        bail!(
            "layoutrand's key {} must be a regular file of yours that only you can read \
             (mode 0600): fix it (chmod 600) or remove it (a new one is made; your directories \
             then count as received until `layoutrand trust DIR`)",
            path.display()
        );
    }
    let mut key = [0u8; KEY_LEN];
    let mut rest = Vec::new();
    file.read_exact(&mut key)
        .with_context(|| format!("layoutrand's key {} is too short", path.display()))?;
    file.take(1).read_to_end(&mut rest)?;
    if !rest.is_empty() {
        bail!(
            "layoutrand's key {} is not a key (too long)",
            path.display()
        );
    }
    Ok(key)
}

/// Creates the key file atomically: written to a temporary file beside it and linked into
/// place without replacing anything, so concurrent first uses agree on one key.
fn create_key(path: &Path) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("cannot create {} for layoutrand's key", dir.display()))?;
    let mut key = [0u8; KEY_LEN];
    fill_random(&mut key)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write layoutrand's key in {}", dir.display()))?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    tmp.write_all(&key)?;
    tmp.as_file().sync_all()?;
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        // Another layoutrand made it first: use theirs.
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e.error).with_context(|| format!("cannot create {}", path.display())),
    }
}

fn fill_random(buf: &mut [u8]) -> Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        // SAFETY: the pointer and length describe the unfilled tail of `buf`.
        let got =
            unsafe { libc::getrandom(buf[filled..].as_mut_ptr().cast(), buf.len() - filled, 0) };
        if got < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e).context("cannot draw layoutrand's key (getrandom)");
        }
        filled += got as usize;
    }
    Ok(())
}

/// The MAC of `bytes` as a file of `kind`, under `key`, in hex.
pub(crate) fn mac(key: &[u8; KEY_LEN], kind: Kind, bytes: &[u8]) -> String {
    let mut h = blake3::Hasher::new_keyed(key);
    h.update(kind.domain());
    h.update(bytes);
    h.finalize().to_hex().to_string()
}

/// `FILE.mac`.
pub(crate) fn mac_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_os_string();
    s.push(MAC_SUFFIX);
    PathBuf::from(s)
}

/// Writes `file.mac` for `bytes`, the content `file` holds or is about to hold as a `kind`.
///
/// Writers sign *before* they write, and the MAC file keeps the previous MAC on its second
/// line: a crash (kill -9, power loss) between the two writes leaves either content
/// verifying, so the user's own directory never turns received by accident. (The previous
/// content was the user's too; see the module on copies.)
pub fn sign(file: &Path, kind: Kind, bytes: &[u8]) -> Result<()> {
    let key = key()?;
    let mut text = mac(&key, kind, bytes);
    text.push('\n');
    if let Ok(old) = read_small(&mac_path(file), MAC_FILE_LIMIT) {
        if let Some(previous) = String::from_utf8_lossy(&old).lines().next() {
            if previous.trim() != text.trim() {
                text.push_str(previous.trim());
                text.push('\n');
            }
        }
    }
    crate::files::write_atomically(&mac_path(file), text.as_bytes())
}

/// The longest MAC file read: two MACs and their newlines.
const MAC_FILE_LIMIT: u64 = 256;

/// [`sign`], as a writer that must not fail for it: a failure (no home, a read-only
/// configuration directory) is a warning, and the file then counts as received later.
pub(crate) fn sign_or_warn(file: &Path, kind: Kind, bytes: &[u8]) {
    if let Err(e) = sign(file, kind, bytes) {
        crate::diagnostic!(
            "layoutrand: warning: cannot sign {} ({e:#}): layoutrand will treat it as received \
             (commands that would run from it then need --trust)",
            file.display()
        );
    }
}

/// Signs the file `file` as it is now.
pub fn sign_file(file: &Path, kind: Kind) -> Result<()> {
    let bytes = read_signed_part(file, kind)?;
    sign(file, kind, &bytes)
}

/// Checks `bytes`, the content of `file` as a `kind`, against `file.mac`.
pub fn verify(file: &Path, kind: Kind, bytes: &[u8]) -> Result<Verdict> {
    let recorded = match read_small(&mac_path(file), MAC_FILE_LIMIT) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Verdict::Unsigned),
        // A MAC that is a FIFO, a device or too long is no MAC of layoutrand's.
        Err(_) => return Ok(Verdict::Mismatch),
    };
    let key = key()?;
    let expected = mac(&key, kind, bytes);
    let recorded = String::from_utf8_lossy(&recorded);
    let expected = blake3::Hash::from_hex(&expected)?;
    // Compared as hashes: blake3's Hash equality is constant-time.
    let same = recorded
        .lines()
        .filter_map(|l| blake3::Hash::from_hex(l.trim()).ok())
        .any(|h| h == expected);
    Ok(if same {
        Verdict::Own
    } else {
        Verdict::Mismatch
    })
}

/// Checks the file `file`, as it is now, against its MAC.
pub fn verify_file(file: &Path, kind: Kind) -> Result<Verdict> {
    let bytes = read_signed_part(file, kind)?;
    verify(file, kind, &bytes)
}

/// The bytes of `file` a MAC of `kind` covers: the whole file, or a store's first line
/// (without its newline). Read without following a link, without blocking on a FIFO, and
/// bounded.
pub fn read_signed_part(file: &Path, kind: Kind) -> Result<Vec<u8>> {
    let limit = match kind {
        Kind::StoreHeader => MAX_HEADER_BYTES,
        _ => 64 << 20,
    };
    let f = open_regular(file)?;
    let mut reader = std::io::BufReader::new(f.take(limit + 1));
    let mut bytes = Vec::new();
    if kind == Kind::StoreHeader {
        reader.read_until(b'\n', &mut bytes)?;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
    } else {
        reader.read_to_end(&mut bytes)?;
    }
    if bytes.len() as u64 > limit {
        bail!(
            "{} is longer than layoutrand ever writes one ({} bytes at most)",
            file.display(),
            limit
        );
    }
    Ok(bytes)
}

/// Opens `path` for reading only when it is a regular file: without following a symbolic
/// link and without blocking (a FIFO would stall the reader forever).
pub(crate) fn open_regular(path: &Path) -> Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path);
    let file = match opened {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => bail!(
            "{} is a symbolic link: refused (layoutrand reads an experiment directory's own \
             files only, never through a link; replace the link by the file itself)",
            path.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let meta = file
        .metadata()
        .with_context(|| format!("cannot inspect {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "{} is not a regular file: refused (layoutrand reads only regular files from an \
             experiment directory)",
            path.display()
        );
    }
    Ok(file)
}

fn read_small(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut out = Vec::new();
    file.take(limit + 1).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(std::io::Error::other("too long"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mac_file_keeps_the_previous_content_verifying() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("manifest.json");
        // The key of this test process: a temporary one (every test of the process may use it).
        std::env::set_var(KEY_ENV, d.path().join("key"));
        std::fs::write(&file, "old").unwrap();
        sign(&file, Kind::Manifest, b"old").unwrap();
        // Signed before the write: a crash here leaves the old content verifying...
        sign(&file, Kind::Manifest, b"new").unwrap();
        assert_eq!(verify_file(&file, Kind::Manifest).unwrap(), Verdict::Own);
        // ...and the new one after it.
        std::fs::write(&file, "new").unwrap();
        assert_eq!(verify_file(&file, Kind::Manifest).unwrap(), Verdict::Own);
        std::fs::write(&file, "edited").unwrap();
        assert_eq!(
            verify_file(&file, Kind::Manifest).unwrap(),
            Verdict::Mismatch
        );
        std::fs::remove_file(mac_path(&file)).unwrap();
        assert_eq!(
            verify_file(&file, Kind::Manifest).unwrap(),
            Verdict::Unsigned
        );
    }

    #[test]
    fn macs_bind_key_kind_and_bytes() {
        let a = [1u8; KEY_LEN];
        let b = [2u8; KEY_LEN];
        let m = mac(&a, Kind::Manifest, b"{}");
        assert_eq!(m, mac(&a, Kind::Manifest, b"{}"));
        assert_ne!(m, mac(&b, Kind::Manifest, b"{}"));
        assert_ne!(m, mac(&a, Kind::SlurmPlan, b"{}"));
        assert_ne!(m, mac(&a, Kind::Manifest, b"{ }"));
    }
}
