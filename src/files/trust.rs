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

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::files::confined::ExperimentDir;

/// Environment variable naming the key file (tests point it into a temporary directory so
/// they never touch the real home).
pub const KEY_ENV: &str = "LAYOUTRAND_KEY";
/// Length of the key, bytes.
const KEY_LEN: usize = 32;
/// Suffix of the MAC beside a file.
pub(crate) const MAC_SUFFIX: &str = ".mac";

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

/// Whose a file is, by its MAC (one word per thing: the answers have their own `Verdict`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// Its MAC verifies under this user's key: written by this user's layoutrand.
    Own,
    /// No `FILE.mac` beside it: written before layoutrand signed its files, or by someone
    /// else.
    Unsigned,
    /// A MAC that does not verify: the file was edited, or signed with another user's key.
    Mismatch,
}

/// A value layoutrand may act on (run, submit, relink from): parsed from the exact bytes of a
/// signed part of an experiment directory whose MAC verified under this user's key. Only
/// [`read_verified`] makes one (the field is private to this module), so a path that runs
/// what a directory records cannot skip the check: it needs the type, and the check reads
/// the bytes it parses (no second read that could differ). What layoutrand computes from a
/// verified value stays verified ([`Verified::map`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Verified<T> {
    value: T,
}

impl<T> Verified<T> {
    /// The verified value.
    pub fn get(&self) -> &T {
        &self.value
    }

    /// The verified value, for a step that takes it over (the plan a resumed Slurm run
    /// submits again).
    pub fn into_inner(self) -> T {
        self.value
    }

    /// A value the unit tests of the run's settings stand in for a verified one.
    #[cfg(test)]
    pub(crate) fn for_tests(value: T) -> Verified<T> {
        Verified { value }
    }

    /// A value computed from this one by layoutrand itself (a header with more planned
    /// executions, the header of a verified plan): verified as its source is.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Verified<U> {
        Verified {
            value: f(self.value),
        }
    }
}

/// Verified values taken together are verified: the link records of one recording.
impl<T> FromIterator<Verified<T>> for Verified<Vec<T>> {
    fn from_iter<I: IntoIterator<Item = Verified<T>>>(values: I) -> Self {
        Verified {
            value: values.into_iter().map(|v| v.value).collect(),
        }
    }
}

impl<T> std::ops::Deref for Verified<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// The part `rel` of `dir` as a `kind`, parsed by `parse` from the very bytes whose MAC
/// verified under this user's key; `None` when it does not exist. A part that is not this
/// user's own (no MAC, or one that does not verify) is refused, naming it and the way to
/// adopt the directory (`layoutrand trust`, which shows what it would run first).
pub fn read_verified<T>(
    dir: &Path,
    rel: &Path,
    kind: Kind,
    parse: impl FnOnce(&[u8]) -> Result<T>,
) -> Result<Option<Verified<T>>> {
    let Some(bytes) = read_part(dir, rel, kind)? else {
        return Ok(None);
    };
    let why = match verify(dir, rel, kind, &bytes)? {
        Ownership::Own => {
            return Ok(Some(Verified {
                value: parse(&bytes)?,
            }))
        }
        Ownership::Unsigned => "it has no MAC",
        Ownership::Mismatch => "its MAC does not verify",
    };
    bail!(
        "{} is not your own ({why}): layoutrand runs nothing it records; `layoutrand trust \
         --show {}` shows what it would run, `layoutrand trust` adopts it",
        dir.join(rel).display(),
        shell_words::quote(&dir.display().to_string())
    )
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
    let me = nix::unistd::geteuid().as_raw();
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

/// Writes `rel.mac` for `bytes`, the content `rel` (a path below the experiment directory
/// `dir`) holds or is about to hold as a `kind`.
///
/// The MAC is written by the confined writer opened on `dir`: a symbolic link planted at any
/// component below `dir` (`slurm`, `.record/links`, the `.mac` itself) is refused, never
/// written through.
///
/// Writers sign *before* they write, and the MAC file keeps the previous MAC on its second
/// line: a crash (kill -9, power loss) between the two writes leaves either content
/// verifying, so the user's own directory never turns received by accident. (The previous
/// content was the user's too; see the module on copies.)
pub fn sign(dir: &Path, rel: &Path, kind: Kind, bytes: &[u8]) -> Result<()> {
    let key = key()?;
    let root = ExperimentDir::open(dir)?;
    let mut text = mac(&key, kind, bytes);
    text.push('\n');
    if let Ok(Some(old)) = read_mac(&root, rel) {
        if let Some(previous) = String::from_utf8_lossy(&old).lines().next() {
            if previous.trim() != text.trim() {
                text.push_str(previous.trim());
                text.push('\n');
            }
        }
    }
    root.write_atomic(mac_path(rel), text.as_bytes())
}

/// The longest MAC file read: two MACs and their newlines.
const MAC_FILE_LIMIT: u64 = 256;

/// [`sign`], as a writer that must not fail for it: a failure (no home, a read-only
/// configuration directory) is a warning, and the file then counts as received later.
pub(crate) fn sign_or_warn(dir: &Path, rel: &Path, kind: Kind, bytes: &[u8]) {
    if let Err(e) = sign(dir, rel, kind, bytes) {
        crate::diagnostic!(
            "layoutrand: warning: cannot sign {} ({e:#}): layoutrand will treat it as received \
             (commands that would run from it then need --trust)",
            dir.join(rel).display()
        );
    }
}

/// Signs the file `rel` below `dir` as it is now.
pub fn sign_file(dir: &Path, rel: &Path, kind: Kind) -> Result<()> {
    let bytes = read_signed_part(dir, rel, kind)?;
    sign(dir, rel, kind, &bytes)
}

/// Checks `bytes`, the content of `rel` below `dir` as a `kind`, against `rel.mac`.
pub fn verify(dir: &Path, rel: &Path, kind: Kind, bytes: &[u8]) -> Result<Ownership> {
    let root = ExperimentDir::open(dir)?;
    let recorded = match read_mac(&root, rel) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(Ownership::Unsigned),
        // A MAC that is a link, a FIFO, a device or too long is no MAC of layoutrand's.
        Err(_) => return Ok(Ownership::Mismatch),
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
        Ownership::Own
    } else {
        Ownership::Mismatch
    })
}

/// Checks the file `rel` below `dir`, as it is now, against its MAC.
pub fn verify_file(dir: &Path, rel: &Path, kind: Kind) -> Result<Ownership> {
    let bytes = read_signed_part(dir, rel, kind)?;
    verify(dir, rel, kind, &bytes)
}

/// The bytes of `rel` below `dir` a MAC of `kind` covers: the whole file, or a store's first
/// line (without its newline), read by the store's own reader
/// (`store::file::read_header_line`), so the header checked is the header every reader uses;
/// a store whose first line is blank is refused. Read through the confined directory (no
/// symbolic link followed at any component below `dir`), without blocking on a FIFO, and
/// bounded.
pub fn read_signed_part(dir: &Path, rel: &Path, kind: Kind) -> Result<Vec<u8>> {
    match read_part(dir, rel, kind)? {
        Some(bytes) => Ok(bytes),
        None => bail!("{} does not exist", dir.join(rel).display()),
    }
}

/// [`read_signed_part`], `None` when `rel` (or a folder on the way to it) does not exist.
pub fn read_part(dir: &Path, rel: &Path, kind: Kind) -> Result<Option<Vec<u8>>> {
    let root = ExperimentDir::open(dir)?;
    if kind != Kind::StoreHeader {
        // A whole part, read as every side file is (bounded, by the opener's own reader).
        return root.read_optional(rel, crate::files::confined::SIDE_FILE_LIMIT);
    }
    let f = match root.open_regular(rel) {
        Ok(f) => f,
        Err(e) if crate::files::confined::is_missing(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let line = crate::files::line::read_header_line(std::io::BufReader::new(f), &dir.join(rel))?;
    Ok(Some(line))
}

/// The MAC file of `rel`, `None` when there is none; bounded, and refused when it is not a
/// regular file.
fn read_mac(root: &ExperimentDir, rel: &Path) -> Result<Option<Vec<u8>>> {
    let file = match root.open_regular(mac_path(rel)) {
        Ok(f) => f,
        Err(e) if crate::files::confined::is_missing(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    file.take(MAC_FILE_LIMIT + 1).read_to_end(&mut out)?;
    if out.len() as u64 > MAC_FILE_LIMIT {
        bail!(
            "{} is too long for a MAC",
            root.join(mac_path(rel)).display()
        );
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mac_file_keeps_the_previous_content_verifying() {
        let d = tempfile::tempdir().unwrap();
        let (dir, rel) = (d.path(), Path::new("manifest.json"));
        let file = dir.join(rel);
        // The key is the process's (`.cargo/config.toml`): a test that pointed it into its own
        // temporary directory left the tests running beside it without a key once that
        // directory was gone ("cannot create /tmp/.tmpDzB9my/key", CI of 2026-12-02).
        std::fs::write(&file, "old").unwrap();
        sign(dir, rel, Kind::Manifest, b"old").unwrap();
        // Signed before the write: a crash here leaves the old content verifying...
        sign(dir, rel, Kind::Manifest, b"new").unwrap();
        assert_eq!(
            verify_file(dir, rel, Kind::Manifest).unwrap(),
            Ownership::Own
        );
        // ...and the new one after it.
        std::fs::write(&file, "new").unwrap();
        assert_eq!(
            verify_file(dir, rel, Kind::Manifest).unwrap(),
            Ownership::Own
        );
        std::fs::write(&file, "edited").unwrap();
        assert_eq!(
            verify_file(dir, rel, Kind::Manifest).unwrap(),
            Ownership::Mismatch
        );
        std::fs::remove_file(mac_path(&file)).unwrap();
        assert_eq!(
            verify_file(dir, rel, Kind::Manifest).unwrap(),
            Ownership::Unsigned
        );
    }

    /// Issue 54, attack 2: a part below a planted link (`slurm`, `.record/links`) is neither
    /// read nor signed through it: both refuse, naming the link, and nothing is written
    /// outside.
    #[test]
    fn parts_below_a_planted_link_are_neither_read_nor_signed() {
        // The key is the process's (see `.cargo/config.toml`, and the test above).
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("plan.json"), "{}").unwrap();
        std::fs::write(outside.path().join("l.json"), "{}").unwrap();
        let dir = d.path().join("exp");
        std::fs::create_dir_all(dir.join(".record")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.join("slurm")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.join(".record/links")).unwrap();
        for (rel, kind, link) in [
            ("slurm/plan.json", Kind::SlurmPlan, "slurm"),
            (".record/links/l.json", Kind::LinkRecord, ".record/links"),
        ] {
            let rel = Path::new(rel);
            let named = format!("{} is a symbolic link", dir.join(link).display());
            for err in [
                read_signed_part(&dir, rel, kind).unwrap_err(),
                sign(&dir, rel, kind, b"{}").unwrap_err(),
                sign_file(&dir, rel, kind).unwrap_err(),
            ] {
                assert!(format!("{err:#}").contains(&named), "{err:#}");
            }
        }
        let names: Vec<_> = std::fs::read_dir(outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "written outside: {names:?}");
        // A link at the file itself is refused too.
        std::os::unix::fs::symlink(outside.path().join("plan.json"), dir.join("manifest.json"))
            .unwrap();
        let err = read_signed_part(&dir, Path::new("manifest.json"), Kind::Manifest).unwrap_err();
        insta::assert_snapshot!(format!("{err:#}").replace(d.path().to_str().unwrap(), "[dir]"));
    }

    #[test]
    fn only_an_own_part_becomes_a_verified_value_parsed_from_the_bytes_checked() {
        // The key is the process's (see `.cargo/config.toml`).
        let d = tempfile::tempdir().unwrap();
        let (dir, rel) = (d.path(), Path::new("manifest.json"));
        let parse = |b: &[u8]| Ok(String::from_utf8(b.to_vec())?);
        assert_eq!(
            read_verified(dir, rel, Kind::Manifest, parse).unwrap(),
            None
        );
        std::fs::write(dir.join(rel), "mine").unwrap();
        let redacted =
            |err: anyhow::Error| format!("{err:#}").replace(dir.to_str().unwrap(), "[dir]");
        let err = read_verified(dir, rel, Kind::Manifest, parse).unwrap_err();
        insta::assert_snapshot!(redacted(err));
        sign_file(dir, rel, Kind::Manifest).unwrap();
        let verified = read_verified(dir, rel, Kind::Manifest, parse)
            .unwrap()
            .unwrap();
        assert_eq!(verified.get(), "mine");
        // Another kind's MAC never verifies it.
        let err = read_verified(dir, rel, Kind::SlurmPlan, parse).unwrap_err();
        insta::assert_snapshot!(redacted(err));
        std::fs::write(dir.join(rel), "edited").unwrap();
        let err = read_verified(dir, rel, Kind::Manifest, parse).unwrap_err();
        insta::assert_snapshot!(redacted(err));
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
