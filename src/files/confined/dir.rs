//! [`ExperimentDir`]: the one writer under an experiment directory.
//!
//! Every file or directory layoutrand creates, writes, renames or deletes below a directory
//! it was pointed at goes through a value of this type, which holds that directory open and
//! takes the path below it as plain relative components. No operation follows a symbolic
//! link at any component below the directory: where the kernel has openat2(2) (Linux 5.6)
//! the parent directory is opened with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` (probed once,
//! then cached); otherwise, and to name the offending component when openat2 refuses, the
//! path is walked one component at a time from the directory's descriptor with
//! `O_DIRECTORY | O_NOFOLLOW`. The last component is then created, opened, renamed or
//! removed relative to its parent's descriptor (`openat` with `O_NOFOLLOW`, `mkdirat`,
//! `renameat`, `unlinkat`), so a link planted anywhere on the way is refused, with a message
//! naming it, by construction rather than by a check at each call site. Special files are
//! refused where a regular file or a directory is expected (a FIFO is opened without
//! blocking, then refused).
//!
//! The directory itself is the user's choice and may be reached through a link; only what
//! lies below it is confined. It is the one opener for reading too: the store, the side files
//! (manifest, stopping record, Slurm plan and jobs, explanations), the signed parts and their
//! MACs, the recording's link records, blobs and logs, and the tools' output files are read
//! through [`ExperimentDir::open_regular`], [`ExperimentDir::read_optional`] (a size cap per
//! kind) and listed through [`ExperimentDir::list`], so no reader follows a planted link,
//! stalls on a FIFO or reads a planted terabyte. The test `tests/safety/reader.rs` holds it:
//! a raw read anywhere else in `src/` must say why it is not a file of an experiment
//! directory (the user's build tree, /proc) or why reading it by name is safe.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};
use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag};
use nix::sys::stat::{FileStat, Mode, SFlag};
use nix::unistd::UnlinkatFlags;

/// A directory layoutrand writes below, held open (see the module).
#[derive(Debug)]
pub struct ExperimentDir {
    fd: OwnedFd,
    path: PathBuf,
}

/// What is at a path below the directory, seen without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Missing,
    File,
    Dir,
    Link,
    /// A FIFO, a device or a socket.
    Special,
}

impl ExperimentDir {
    /// Opens the existing directory `path` (which may itself be reached through a link).
    pub fn open(path: &Path) -> Result<ExperimentDir> {
        let fd = open_path(path)
            .map_err(std::io::Error::from)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(ExperimentDir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// Creates `path` with its missing parents (the user's own path, so links on the way
    /// are followed), then opens it.
    pub fn create(path: &Path) -> Result<ExperimentDir> {
        // The user's choice of directory, not a path below one: the only plain create.
        std::fs::create_dir_all(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        ExperimentDir::open(path)
    }

    /// The directory's path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `rel` below the directory, for a message or to hand to a tool that writes there once
    /// its directory was made with [`ExperimentDir::create_dir_all`].
    pub(crate) fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path.join(rel)
    }

    /// The directory `rel` below this one, created when missing (each component a real
    /// directory), as a directory of its own.
    pub(crate) fn sub(&self, rel: impl AsRef<Path>) -> Result<ExperimentDir> {
        let rel = rel.as_ref();
        Ok(ExperimentDir {
            fd: self.walk(rel, true)?,
            path: self.join(rel),
        })
    }

    /// Creates the directory `rel` and its missing parents; every existing component must be
    /// a real directory.
    pub(crate) fn create_dir_all(&self, rel: impl AsRef<Path>) -> Result<()> {
        self.walk(rel.as_ref(), true).map(drop)
    }

    /// What is at `rel`, without following a link; a link or a special file on the way to
    /// it is refused.
    pub(crate) fn entry(&self, rel: impl AsRef<Path>) -> Result<Entry> {
        let rel = rel.as_ref();
        let (parent, leaf) = match self.parent_of(rel, false) {
            Ok(p) => p,
            Err(e) if is_missing(&e) => return Ok(Entry::Missing),
            Err(e) => return Err(e),
        };
        Ok(match stat_at(parent.as_fd(), leaf) {
            Ok(st) => entry_of(&st),
            Err(Errno::ENOENT) => Entry::Missing,
            Err(e) => return Err(e).with_context(|| self.cannot("inspect", rel)),
        })
    }

    /// Refuses `rel` when it is a symbolic link or anything but a directory; missing is fine.
    pub fn refuse_link(&self, rel: impl AsRef<Path>) -> Result<()> {
        let rel = rel.as_ref();
        match self.entry(rel)? {
            Entry::Link => bail!(self.link_message(rel)),
            Entry::File | Entry::Special => bail!(self.not_dir_message(rel)),
            Entry::Dir | Entry::Missing => Ok(()),
        }
    }

    /// Writes `bytes` to `rel` atomically (see [`ExperimentDir::write_atomic_with`]).
    pub(crate) fn write_atomic(&self, rel: impl AsRef<Path>, bytes: &[u8]) -> Result<()> {
        self.write_atomic_with(rel, |w| Ok(w.write_all(bytes)?))
    }

    /// Writes what `fill` produces to `rel` atomically: a temporary file in the same
    /// directory, fsync, `renameat` over `rel`, fsync of the directory. A symbolic link or a
    /// special file at `rel` is refused, not replaced; the parent directory is created when
    /// missing. A regular file replaced keeps its mode; a new one gets the umask's. When
    /// `fill` fails, `rel` is left as it was.
    pub(crate) fn write_atomic_with(
        &self,
        rel: impl AsRef<Path>,
        fill: impl FnOnce(&mut dyn Write) -> Result<()>,
    ) -> Result<()> {
        let rel = rel.as_ref();
        let (parent, leaf) = self.parent_of(rel, true)?;
        let mode = match stat_at(parent.as_fd(), leaf) {
            Ok(st) => match entry_of(&st) {
                Entry::File => st.st_mode & 0o7777,
                Entry::Link => bail!(self.link_message(rel)),
                _ => bail!(self.special_message(rel)),
            },
            Err(_) => 0o666 & !process_umask(),
        };
        let tmp = temporary_name(leaf);
        let file = open_at(
            parent.as_fd(),
            tmp.as_os_str(),
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL,
            0o600,
        )
        .with_context(|| self.cannot("create a temporary file beside", rel))?;
        let written = match fill_and_sync(file, mode, fill) {
            Ok(()) => Ok(()),
            // What `fill` failed to produce (a store it could not read) is its own error,
            // not one of writing `rel`: said as it is, `rel` left as it was.
            Err(Filled::SourceFailed(e)) => {
                let _ = nix::unistd::unlinkat(
                    Some(parent.as_raw_fd()),
                    tmp.as_os_str(),
                    UnlinkatFlags::NoRemoveDir,
                );
                return Err(e);
            }
            Err(Filled::WriteFailed(e)) => Err(e),
        };
        let renamed = written.and_then(|()| {
            nix::fcntl::renameat(
                Some(parent.as_raw_fd()),
                tmp.as_os_str(),
                Some(parent.as_raw_fd()),
                leaf,
            )
            .with_context(|| self.cannot("rename into", rel))
        });
        if let Err(e) = renamed {
            let _ = nix::unistd::unlinkat(
                Some(parent.as_raw_fd()),
                tmp.as_os_str(),
                UnlinkatFlags::NoRemoveDir,
            );
            return Err(e).with_context(|| format!("cannot write {}", self.join(rel).display()));
        }
        let _ = nix::unistd::fsync(parent.as_raw_fd());
        Ok(())
    }

    /// Creates `rel` as a new file for writing (`O_EXCL | O_NOFOLLOW`, mode 0644 under the
    /// umask); an existing entry of any kind is an error.
    pub(crate) fn create_new(&self, rel: impl AsRef<Path>) -> Result<File> {
        let rel = rel.as_ref();
        let (parent, leaf) = self.parent_of(rel, true)?;
        let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL;
        open_at(parent.as_fd(), leaf, flags, 0o644).with_context(|| self.cannot("create", rel))
    }

    /// Creates `rel` afresh: a file or a symbolic link there is removed first (a link is
    /// removed, never followed: its target is left untouched), then [`create_new`]. A
    /// directory or a special file there is refused.
    ///
    /// [`create_new`]: ExperimentDir::create_new
    pub(crate) fn create_fresh(&self, rel: impl AsRef<Path>) -> Result<File> {
        let rel = rel.as_ref();
        self.remove_file(rel)?;
        self.create_new(rel)
    }

    /// Opens `rel` for appending and reading, creating it when missing; a symbolic link or
    /// anything but a regular file is refused (a FIFO is opened without blocking, so it
    /// cannot stall the caller). `what` names the file in messages.
    pub(crate) fn open_append(&self, rel: impl AsRef<Path>, what: &str) -> Result<File> {
        let rel = rel.as_ref();
        let (parent, leaf) = self.parent_of(rel, true)?;
        let flags = OFlag::O_RDWR | OFlag::O_APPEND | OFlag::O_CREAT | OFlag::O_NONBLOCK;
        let file = match open_at(parent.as_fd(), leaf, flags, 0o666) {
            Ok(f) => f,
            Err(Errno::ELOOP) => bail!(
                "{what} {}: refused (layoutrand appends only to a regular file inside the \
                 experiment directory; replace the link by the file itself)",
                self.link_message(rel)
            ),
            Err(e) => return Err(e).with_context(|| self.cannot("open for appending", rel)),
        };
        let meta = file
            .metadata()
            .with_context(|| self.cannot("inspect", rel))?;
        if !meta.is_file() {
            bail!(
                "{what} {} is not a regular file: refused",
                self.join(rel).display()
            );
        }
        // A hard link is no symbolic link, and `O_NOFOLLOW` does not see it: another name
        // (outside the directory, perhaps) shares the file's bytes, and appending would write
        // there too (issue 54, attack 7).
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            bail!(
                "{what} {} has {} names (hard links): appending would write into the file \
                 behind every other name too: refused (give it its own copy: cp {p} {p}.own && \
                 mv {p}.own {p})",
                self.join(rel).display(),
                meta.nlink(),
                p = self.join(rel).display()
            );
        }
        Ok(file)
    }

    /// Opens `rel` for reading when it is a regular file, following no symbolic link at any
    /// component (one planted on the way, or at `rel` itself, is refused, naming it) and
    /// without blocking (a FIFO or a device is opened, then refused). A missing file is an
    /// error that [`is_missing`] tells apart.
    pub(crate) fn open_regular(&self, rel: impl AsRef<Path>) -> Result<File> {
        let rel = rel.as_ref();
        let (parent, leaf) = self.parent_of(rel, false)?;
        let file = match open_at(parent.as_fd(), leaf, OFlag::O_RDONLY | OFlag::O_NONBLOCK, 0) {
            Ok(f) => f,
            Err(Errno::ELOOP) => bail!(
                "{} is a symbolic link: refused (layoutrand reads an experiment directory's own \
                 files only, never through a link; replace the link by the file itself)",
                self.join(rel).display()
            ),
            Err(e) => {
                return Err(std::io::Error::from(e)).with_context(|| self.cannot("read", rel))
            }
        };
        let meta = file
            .metadata()
            .with_context(|| self.cannot("inspect", rel))?;
        if !meta.is_file() {
            bail!(
                "{} is not a regular file: refused (layoutrand reads only regular files from an \
                 experiment directory)",
                self.join(rel).display()
            );
        }
        Ok(file)
    }

    /// The bytes of the regular file `rel`, opened as [`ExperimentDir::open_regular`] opens
    /// it, and at most `limit` bytes: a larger file is refused, naming it, before it is read
    /// whole (a link to /dev/zero, a 1 GB side file). `Ok(None)` when it is missing.
    pub(crate) fn read_optional(
        &self,
        rel: impl AsRef<Path>,
        limit: u64,
    ) -> Result<Option<Vec<u8>>> {
        use std::io::Read;
        let rel = rel.as_ref();
        let file = match self.open_regular(rel) {
            Ok(f) => f,
            Err(e) if is_missing(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        let too_large = || {
            anyhow::anyhow!(
                "{} is larger than {}: refused (layoutrand writes such files far smaller; it \
                 does not read one this size)",
                self.join(rel).display(),
                if limit % (1 << 20) == 0 {
                    format!("{} MiB", limit >> 20)
                } else {
                    format!("{limit} bytes")
                }
            )
        };
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        if size > limit {
            return Err(too_large());
        }
        let mut bytes = Vec::with_capacity(size as usize);
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .with_context(|| self.cannot("read", rel))?;
        if bytes.len() as u64 > limit {
            return Err(too_large());
        }
        Ok(Some(bytes))
    }

    /// [`ExperimentDir::read_optional`] of a file that must be there: a missing one is an
    /// error naming it, which [`is_missing`] tells apart.
    pub(crate) fn read(&self, rel: impl AsRef<Path>, limit: u64) -> Result<Vec<u8>> {
        let rel = rel.as_ref();
        match self.read_optional(rel, limit)? {
            Some(bytes) => Ok(bytes),
            None => Err(anyhow::Error::new(std::io::Error::from(
                std::io::ErrorKind::NotFound,
            )))
            .with_context(|| format!("{} does not exist", self.join(rel).display())),
        }
    }

    /// [`ExperimentDir::read_optional`] of a text file: UTF-8, or an error naming the file.
    pub(crate) fn read_text_optional(
        &self,
        rel: impl AsRef<Path>,
        limit: u64,
    ) -> Result<Option<String>> {
        let rel = rel.as_ref();
        self.read_optional(rel, limit)?
            .map(|bytes| {
                String::from_utf8(bytes)
                    .with_context(|| format!("{} is not UTF-8 text", self.join(rel).display()))
            })
            .transpose()
    }

    /// The names in the directory `rel` (`""`: this one), each with what it is (a link is
    /// not followed), sorted by name. The directory is opened as every path below is (no
    /// link at any component); a missing one is an error [`is_missing`] tells apart.
    pub fn list(&self, rel: impl AsRef<Path>) -> Result<Vec<(std::ffi::OsString, Entry)>> {
        let rel = rel.as_ref();
        let fd = self.walk(rel, false)?;
        let listed =
            open_at_dir(fd.as_fd(), OsStr::new(".")).with_context(|| self.cannot("list", rel))?;
        let mut dir = nix::dir::Dir::from(listed).with_context(|| self.cannot("list", rel))?;
        let mut names = Vec::new();
        for entry in dir.iter() {
            let entry = entry.with_context(|| self.cannot("list", rel))?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let kind = match stat_at(fd.as_fd(), name) {
                Ok(st) => entry_of(&st),
                Err(Errno::ENOENT) => continue,
                Err(e) => return Err(e).with_context(|| self.cannot("inspect", &rel.join(name))),
            };
            names.push((name.to_os_string(), kind));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(names)
    }

    /// Renames `from` to `to`, both below the directory (the parent of `to` is created when
    /// missing). A link at `to` is replaced, not followed; a directory is not replaced.
    pub(crate) fn rename(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<()> {
        let (from, to) = (from.as_ref(), to.as_ref());
        let (from_dir, from_leaf) = self.parent_of(from, false)?;
        let (to_dir, to_leaf) = self.parent_of(to, true)?;
        nix::fcntl::renameat(
            Some(from_dir.as_raw_fd()),
            from_leaf,
            Some(to_dir.as_raw_fd()),
            to_leaf,
        )
        .with_context(|| {
            format!(
                "cannot rename {} to {}",
                self.join(from).display(),
                self.join(to).display()
            )
        })
    }

    /// Removes the file (or symbolic link: removed, never followed) `rel`; `Ok(false)` when
    /// nothing was there. A directory is not removed (see [`remove_dir_all`]).
    ///
    /// [`remove_dir_all`]: ExperimentDir::remove_dir_all
    pub(crate) fn remove_file(&self, rel: impl AsRef<Path>) -> Result<bool> {
        let rel = rel.as_ref();
        let (parent, leaf) = match self.parent_of(rel, false) {
            Ok(p) => p,
            Err(e) if is_missing(&e) => return Ok(false),
            Err(e) => return Err(e),
        };
        match nix::unistd::unlinkat(Some(parent.as_raw_fd()), leaf, UnlinkatFlags::NoRemoveDir) {
            Ok(()) => Ok(true),
            Err(Errno::ENOENT) => Ok(false),
            Err(e) => Err(e).with_context(|| self.cannot("remove", rel)),
        }
    }

    /// Removes the directory `rel` when it is empty; `Ok(false)` when it is missing or not
    /// empty (another writer still uses it).
    pub(crate) fn remove_empty_dir(&self, rel: impl AsRef<Path>) -> Result<bool> {
        let rel = rel.as_ref();
        if self.entry(rel)? != Entry::Dir {
            return Ok(false);
        }
        let (parent, leaf) = self.parent_of(rel, false)?;
        Ok(nix::unistd::unlinkat(Some(parent.as_raw_fd()), leaf, UnlinkatFlags::RemoveDir).is_ok())
    }

    /// Removes the directory `rel` with everything in it, without following a link: the
    /// tree is walked through directory descriptors and each entry removed with `unlinkat`
    /// (a link inside is removed, its target untouched). `rel` itself being a link is
    /// refused. `Ok(false)` when nothing was there.
    pub(crate) fn remove_dir_all(&self, rel: impl AsRef<Path>) -> Result<bool> {
        let rel = rel.as_ref();
        match self.entry(rel)? {
            Entry::Missing => return Ok(false),
            Entry::Link => bail!(self.link_message(rel)),
            Entry::File | Entry::Special => bail!(self.not_dir_message(rel)),
            Entry::Dir => {}
        }
        let (parent, leaf) = self.parent_of(rel, false)?;
        let dir = open_at_dir(parent.as_fd(), leaf).with_context(|| self.cannot("open", rel))?;
        empty_dir(dir).with_context(|| self.cannot("empty", rel))?;
        nix::unistd::unlinkat(Some(parent.as_raw_fd()), leaf, UnlinkatFlags::RemoveDir)
            .with_context(|| self.cannot("remove", rel))?;
        Ok(true)
    }

    /// Copies the file at `from` (anywhere: it is read, not written) to `rel`, created
    /// afresh (see [`ExperimentDir::create_fresh`]), with mode `mode` (`None`: `from`'s, as
    /// `std::fs::copy` does).
    pub(crate) fn copy_in(
        &self,
        from: &Path,
        rel: impl AsRef<Path>,
        mode: Option<u32>,
    ) -> Result<()> {
        let rel = rel.as_ref();
        let mut src =
            File::open(from).with_context(|| format!("cannot read {}", from.display()))?;
        let mode = match mode {
            Some(m) => m,
            None => src.metadata()?.permissions().mode() & 0o7777,
        };
        let mut dst = self.create_fresh(rel)?;
        std::io::copy(&mut src, &mut dst).with_context(|| {
            format!("copying {} to {}", from.display(), self.join(rel).display())
        })?;
        dst.set_permissions(std::fs::Permissions::from_mode(mode))
            .with_context(|| self.cannot("set the mode of", rel))
    }

    /// Makes `rel` a hard link to the file `from` (`linkat` without following a link at
    /// `from`), replacing a file or link there; where a hard link cannot be made (another
    /// file system), a copy.
    pub(crate) fn link_or_copy_in(&self, from: &Path, rel: impl AsRef<Path>) -> Result<()> {
        let rel = rel.as_ref();
        self.remove_file(rel)?;
        let (parent, leaf) = self.parent_of(rel, true)?;
        let linked = nix::unistd::linkat(
            None,
            from.as_os_str(),
            Some(parent.as_raw_fd()),
            leaf,
            nix::fcntl::AtFlags::empty(),
        );
        match linked {
            Ok(()) => Ok(()),
            Err(_) => self.copy_in(from, rel, None),
        }
    }

    /// `path` relative to this directory; `path` must lie lexically below it (the callers
    /// build their paths from it: anything else is a bug).
    pub(crate) fn rel<'a>(&self, path: &'a Path) -> Result<&'a Path> {
        path.strip_prefix(&self.path).with_context(|| {
            format!(
                "{} is not inside {} (a bug: the paths written are built from it)",
                path.display(),
                self.path.display()
            )
        })
    }

    /// Creates the symbolic link `rel` pointing at `target` (a link is written, never
    /// followed), replacing a file or link there.
    pub(crate) fn symlink(&self, target: &Path, rel: impl AsRef<Path>) -> Result<()> {
        let rel = rel.as_ref();
        self.remove_file(rel)?;
        let (parent, leaf) = self.parent_of(rel, true)?;
        nix::unistd::symlinkat(target, Some(parent.as_raw_fd()), leaf)
            .with_context(|| self.cannot("create the link", rel))
    }

    /// The directory holding `rel` (opened without following a link at any component,
    /// created when `create`) and `rel`'s last component.
    fn parent_of<'a>(&self, rel: &'a Path, create: bool) -> Result<(ParentFd<'_>, &'a OsStr)> {
        super::check_relative(rel, "a path below the experiment directory")?;
        let leaf = rel.file_name().expect("checked: plain components");
        let parent = rel.parent().unwrap_or(Path::new(""));
        if parent.as_os_str().is_empty() {
            // The directory itself, held open already: no reopening per file (the runner
            // recreates two output files per execution).
            return Ok((ParentFd::Root(self.fd.as_fd()), leaf));
        }
        Ok((ParentFd::Opened(self.walk(parent, create)?), leaf))
    }

    /// Opens the directory `rel` below this one, refusing a symbolic link or a non-directory
    /// at every component; missing ones are created when `create`. The openat2 fast path
    /// when the kernel has it; on any refusal the component walk, which names the component.
    fn walk(&self, rel: &Path, create: bool) -> Result<OwnedFd> {
        if rel.as_os_str().is_empty() {
            return open_at_dir(self.fd.as_fd(), OsStr::new("."))
                .with_context(|| format!("cannot open {}", self.path.display()));
        }
        super::check_relative(rel, "a path below the experiment directory")?;
        if has_openat2() {
            if let Ok(fd) = open_beneath(self.fd.as_fd(), rel) {
                return Ok(fd);
            }
        }
        let mut fd = open_at_dir(self.fd.as_fd(), OsStr::new("."))
            .with_context(|| format!("cannot open {}", self.path.display()))?;
        let mut at = PathBuf::new();
        for part in rel.components() {
            let Component::Normal(part) = part else {
                unreachable!("checked: plain components")
            };
            at.push(part);
            fd = self.step(fd.as_fd(), part, &at, create)?;
        }
        Ok(fd)
    }

    /// One component of [`ExperimentDir::walk`]: `part` in `dir` (at `at`) opened as a
    /// directory without following a link, or created.
    fn step(&self, dir: BorrowedFd, part: &OsStr, at: &Path, create: bool) -> Result<OwnedFd> {
        match open_at_dir(dir, part) {
            Ok(fd) => return Ok(fd),
            Err(Errno::ENOENT) if create => {}
            Err(Errno::ENOENT) => {
                return Err(anyhow::Error::new(std::io::Error::from(
                    std::io::ErrorKind::NotFound,
                )))
                .with_context(|| format!("{} does not exist", self.join(at).display()))
            }
            Err(e) => return Err(self.refusal(dir, part, at, e)),
        }
        match nix::sys::stat::mkdirat(Some(dir.as_raw_fd()), part, Mode::from_bits_truncate(0o777))
        {
            // Another worker may have created it meanwhile: it is checked on opening.
            Ok(()) | Err(Errno::EEXIST) => {}
            Err(e) => return Err(e).with_context(|| self.cannot("create", at)),
        }
        open_at_dir(dir, part).map_err(|e| self.refusal(dir, part, at, e))
    }

    /// The message for a component that could not be opened as a directory.
    fn refusal(&self, dir: BorrowedFd, part: &OsStr, at: &Path, e: Errno) -> anyhow::Error {
        match stat_at(dir, part).map(|st| entry_of(&st)) {
            Ok(Entry::Link) => anyhow::anyhow!(self.link_message(at)),
            Ok(Entry::File | Entry::Special) => anyhow::anyhow!(self.not_dir_message(at)),
            _ => anyhow::Error::new(e).context(self.cannot("open", at)),
        }
    }

    fn link_message(&self, rel: &Path) -> String {
        format!(
            "{} is a symbolic link: layoutrand writes there and refuses to follow a link out \
             of the experiment directory (remove it; layoutrand recreates what it needs)",
            self.join(rel).display()
        )
    }

    fn not_dir_message(&self, rel: &Path) -> String {
        format!(
            "{} is not a directory: layoutrand needs it as one (remove it)",
            self.join(rel).display()
        )
    }

    fn special_message(&self, rel: &Path) -> String {
        format!(
            "{} is not a regular file (a FIFO, a device, a socket or a directory): layoutrand \
             writes a file there and refuses to replace it (remove it)",
            self.join(rel).display()
        )
    }

    fn cannot(&self, verb: &str, rel: &Path) -> String {
        format!("cannot {verb} {}", self.join(rel).display())
    }
}

/// The process's umask, read from `/proc/self/status` (Linux 4.7 and later) without
/// changing it (`umask(2)` can only be read by setting it, which races with other threads);
/// 022 when it cannot be read.
pub fn process_umask() -> u32 {
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

/// The directory a leaf is handled in: the experiment directory's own descriptor, or one
/// opened below it.
enum ParentFd<'a> {
    Root(BorrowedFd<'a>),
    Opened(OwnedFd),
}

impl AsFd for ParentFd<'_> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            ParentFd::Root(fd) => *fd,
            ParentFd::Opened(fd) => fd.as_fd(),
        }
    }
}

impl AsRawFd for ParentFd<'_> {
    fn as_raw_fd(&self) -> RawFd {
        self.as_fd().as_raw_fd()
    }
}

/// The directory holding `path`, for a write whose directory is known to be real (made or
/// checked by [`ExperimentDir::create_dir_all`] on the way down from the experiment
/// directory), and `path`'s file name: the last component is still written without following
/// a link or replacing a special file.
pub fn parent_of(path: &Path) -> Result<(ExperimentDir, &Path)> {
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file name", path.display()))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((ExperimentDir::open(parent)?, Path::new(name)))
}

/// Like [`parent_of`], for a file whose directory may be missing: that directory (one plain
/// name in a directory known to be real, such as a staging directory's `bin`) is created, or
/// refused when it is a link or not a directory.
pub fn make_parent_of(path: &Path) -> Result<(ExperimentDir, &Path)> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .with_context(|| format!("{} has no directory", path.display()))?;
    let (grand, dir_name) = parent_of(parent)?;
    let name = path.file_name().expect("parent_of checked a file name");
    Ok((grand.sub(dir_name)?, Path::new(name)))
}

/// Whether the error says a component was missing (a walk without creating, or a file
/// [`ExperimentDir::open_regular`] did not find).
pub fn is_missing(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
    })
}

fn entry_of(st: &FileStat) -> Entry {
    match SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits()) {
        SFlag::S_IFREG => Entry::File,
        SFlag::S_IFDIR => Entry::Dir,
        SFlag::S_IFLNK => Entry::Link,
        _ => Entry::Special,
    }
}

fn stat_at(dir: BorrowedFd, name: &OsStr) -> nix::Result<FileStat> {
    nix::sys::stat::fstatat(
        Some(dir.as_raw_fd()),
        name,
        nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
    )
}

/// `O_NOFOLLOW | O_CLOEXEC` are always added.
fn open_at(dir: BorrowedFd, name: &OsStr, flags: OFlag, mode: u32) -> nix::Result<File> {
    let flags = flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = nix::fcntl::openat(
        Some(dir.as_raw_fd()),
        name,
        flags,
        Mode::from_bits_truncate(mode),
    )?;
    Ok(File::from(owned(fd)))
}

fn open_at_dir(dir: BorrowedFd, name: &OsStr) -> nix::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY
        | OFlag::O_DIRECTORY
        | OFlag::O_NOFOLLOW
        | OFlag::O_CLOEXEC
        | OFlag::O_NONBLOCK;
    nix::fcntl::openat(Some(dir.as_raw_fd()), name, flags, Mode::empty()).map(owned)
}

fn open_path(path: &Path) -> nix::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    nix::fcntl::open(path, flags, Mode::empty()).map(owned)
}

/// openat2(2) of the directory `rel` below `dir`, with no symbolic link followed and
/// nothing outside `dir` reached.
fn open_beneath(dir: BorrowedFd, rel: &Path) -> nix::Result<OwnedFd> {
    let how = OpenHow::new()
        .flags(OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)
        .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_SYMLINKS);
    nix::fcntl::openat2(dir.as_raw_fd(), rel, how).map(owned)
}

/// Whether openat2(2) works here (Linux 5.6 and later, and not filtered out by a seccomp
/// policy), probed once.
fn has_openat2() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        // SAFETY: AT_FDCWD is a valid directory descriptor for the *at calls.
        let cwd = unsafe { BorrowedFd::borrow_raw(libc::AT_FDCWD) };
        open_beneath(cwd, Path::new(".")).is_ok()
    })
}

fn owned(fd: RawFd) -> OwnedFd {
    // SAFETY: a descriptor just returned by open(2) and owned by nobody else.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

/// A name for a temporary file beside `leaf`, unique in this process and across processes.
fn temporary_name(leaf: &OsStr) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut name = std::ffi::OsString::from(".");
    name.push(leaf);
    name.push(format!(".tmp-{}-{n}", std::process::id()));
    PathBuf::from(name)
}

/// How [`fill_and_sync`] failed: writing the file, or producing what goes into it.
enum Filled {
    WriteFailed(anyhow::Error),
    SourceFailed(anyhow::Error),
}

/// A writer that remembers whether a write to the file underneath failed, so that an error
/// of the filling closure is told apart from one of writing.
struct WriteWatch<W> {
    inner: W,
    failed: bool,
}

impl<W: Write> Write for WriteWatch<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.failed |= r.is_err();
        r
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.failed |= r.is_err();
        r
    }
}

fn fill_and_sync(
    file: File,
    mode: u32,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> std::result::Result<(), Filled> {
    let write_failed = |e: std::io::Error| Filled::WriteFailed(e.into());
    file.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(write_failed)?;
    let mut out = WriteWatch {
        inner: std::io::BufWriter::new(file),
        failed: false,
    };
    if let Err(e) = fill(&mut out) {
        return Err(match out.failed {
            true => Filled::WriteFailed(e),
            false => Filled::SourceFailed(e),
        });
    }
    let file = out
        .inner
        .into_inner()
        .map_err(|e| write_failed(e.into_error()))?;
    file.sync_all().map_err(write_failed)?;
    Ok(())
}

/// Removes everything in the directory `dir`, depth first, never following a link.
fn empty_dir(dir: OwnedFd) -> Result<()> {
    let mut listing = nix::dir::Dir::from_fd(dir.into_raw_fd())?;
    let names: Vec<std::ffi::OsString> = listing
        .iter()
        .filter_map(|e| e.ok())
        .map(|e| OsStr::from_bytes(e.file_name().to_bytes()).to_os_string())
        .filter(|n| n != "." && n != "..")
        .collect();
    // SAFETY: `listing` owns the descriptor and outlives every use below.
    let fd = unsafe { BorrowedFd::borrow_raw(listing.as_raw_fd()) };
    for name in names {
        let is_dir = stat_at(fd, &name).is_ok_and(|st| entry_of(&st) == Entry::Dir);
        if is_dir {
            empty_dir(open_at_dir(fd, &name)?)?;
            nix::unistd::unlinkat(
                Some(fd.as_raw_fd()),
                name.as_os_str(),
                UnlinkatFlags::RemoveDir,
            )?;
        } else {
            nix::unistd::unlinkat(
                Some(fd.as_raw_fd()),
                name.as_os_str(),
                UnlinkatFlags::NoRemoveDir,
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory with a victim file outside it, and a link to the outside planted at
    /// `planted` below it.
    fn planted(planted: &str) -> (tempfile::TempDir, tempfile::TempDir, ExperimentDir) {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("victim"), "keep me").unwrap();
        let inside = tempfile::tempdir().unwrap();
        let at = inside.path().join(planted);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(outside.path(), &at).unwrap();
        let dir = ExperimentDir::open(inside.path()).unwrap();
        (outside, inside, dir)
    }

    /// `message` with each of `dirs` written `[dir]`.
    fn redact(message: &str, dirs: &[&Path]) -> String {
        dirs.iter().fold(message.to_string(), |m, d| {
            m.replace(d.to_str().unwrap(), "[dir]")
        })
    }

    fn assert_untouched(outside: &Path) {
        let names: Vec<_> = std::fs::read_dir(outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["victim"]);
        assert_eq!(
            std::fs::read_to_string(outside.join("victim")).unwrap(),
            "keep me"
        );
    }

    #[test]
    fn a_fill_that_fails_is_its_own_error_and_leaves_the_file_as_it_was() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("out.csv"), "old").unwrap();
        let dir = ExperimentDir::open(d.path()).unwrap();
        let err = dir
            .write_atomic_with("out.csv", |w| {
                w.write_all(b"partial")?;
                anyhow::bail!("store.jsonl:1: not a record")
            })
            .unwrap_err();
        // Not "cannot write out.csv": the file was never the problem.
        assert_eq!(format!("{err:#}"), "store.jsonl:1: not a record");
        assert_eq!(
            std::fs::read_to_string(d.path().join("out.csv")).unwrap(),
            "old"
        );
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }

    #[test]
    fn every_write_refuses_a_link_at_any_component_and_names_it() {
        for (link, target) in [
            ("seed-1", "seed-1/demo"),
            (".work", ".work/seed-1/x/victim"),
            ("a/b", "a/b/c/victim"),
        ] {
            let (outside, inside, dir) = planted(link);
            let named = format!("{} is a symbolic link", inside.path().join(link).display());
            let check = |r: Result<()>| {
                let err = format!("{:#}", r.unwrap_err());
                assert!(err.contains(&named), "{target}: {err}");
            };
            check(dir.write_atomic(target, b"x"));
            check(dir.create_dir_all(target));
            check(dir.create_new(target).map(drop));
            check(dir.create_fresh(target).map(drop));
            check(dir.open_append(target, "the store").map(drop));
            check(dir.remove_file(target).map(drop));
            check(dir.remove_dir_all(target).map(drop));
            check(dir.rename(target, "elsewhere"));
            check(dir.copy_in(&outside.path().join("victim"), target, Some(0o644)));
            check(dir.link_or_copy_in(&outside.path().join("victim"), target));
            check(dir.symlink(Path::new("/etc/passwd"), target));
            check(dir.sub(target).map(drop));
            assert_untouched(outside.path());
        }
    }

    #[test]
    fn a_link_as_the_last_component_is_refused_or_removed_never_followed() {
        let (outside, inside, dir) = planted("seed-1");
        let mut text = String::new();
        for (case, r) in [
            ("write_atomic", dir.write_atomic("seed-1", b"x")),
            ("remove_dir_all", dir.remove_dir_all("seed-1").map(drop)),
            ("create_dir_all", dir.create_dir_all("seed-1")),
            (
                "open_append",
                dir.open_append("seed-1", "the store").map(drop),
            ),
        ] {
            let err = format!("{:#}", r.unwrap_err());
            text += &format!("{case} => {err}\n");
        }
        insta::assert_snapshot!(redact(&text, &[inside.path(), outside.path()]));
        assert_untouched(outside.path());
        // Removing or recreating a file removes the link itself.
        assert!(dir.remove_file("seed-1").unwrap());
        assert!(inside.path().join("seed-1").symlink_metadata().is_err());
        std::os::unix::fs::symlink(outside.path().join("victim"), inside.path().join("out"))
            .unwrap();
        dir.create_fresh("out").unwrap().write_all(b"new").unwrap();
        assert_eq!(
            std::fs::read_to_string(inside.path().join("out")).unwrap(),
            "new"
        );
        assert_untouched(outside.path());
    }

    /// Issue 54, attack 7: a store hard-linked to a file elsewhere is not appended through
    /// (the other file keeps its bytes); once it is a file of its own, it is.
    #[test]
    fn a_hard_linked_file_is_not_appended_through() {
        let inside = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let elsewhere = outside.path().join("precious");
        std::fs::write(&elsewhere, "precious\n").unwrap();
        std::fs::hard_link(&elsewhere, inside.path().join("results.jsonl")).unwrap();
        let dir = ExperimentDir::open(inside.path()).unwrap();
        let err = format!(
            "{:#}",
            dir.open_append("results.jsonl", "the store").unwrap_err()
        );
        insta::assert_snapshot!(redact(&err, &[inside.path(), outside.path()]));
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "precious\n");
        std::fs::remove_file(&elsewhere).unwrap();
        assert!(dir.open_append("results.jsonl", "the store").is_ok());
    }

    #[test]
    fn a_fifo_where_a_file_is_expected_is_refused_without_blocking() {
        let inside = tempfile::tempdir().unwrap();
        let fifo = inside.path().join("results.jsonl");
        nix::unistd::mkfifo(&fifo, Mode::from_bits_truncate(0o600)).unwrap();
        let dir = ExperimentDir::open(inside.path()).unwrap();
        let text = format!(
            "open_append => {:#}\nwrite_atomic => {:#}\ncreate_dir_all => {:#}\n",
            dir.open_append("results.jsonl", "the store").unwrap_err(),
            dir.write_atomic("results.jsonl", b"x").unwrap_err(),
            dir.create_dir_all("results.jsonl/x").unwrap_err()
        );
        insta::assert_snapshot!(redact(&text, &[inside.path()]));
        assert_eq!(dir.entry("results.jsonl").unwrap(), Entry::Special);
    }

    #[test]
    fn the_operations_do_what_they_say_on_a_plain_directory() {
        let inside = tempfile::tempdir().unwrap();
        let dir = ExperimentDir::open(inside.path()).unwrap();
        dir.write_atomic("a/b/file", b"one").unwrap();
        std::fs::set_permissions(
            inside.path().join("a/b/file"),
            std::fs::Permissions::from_mode(0o640),
        )
        .unwrap();
        dir.write_atomic("a/b/file", b"two").unwrap();
        let file = inside.path().join("a/b/file");
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        // Nothing but the file: the temporary is renamed, not left behind.
        assert_eq!(
            std::fs::read_dir(inside.path().join("a/b"))
                .unwrap()
                .count(),
            1
        );
        let failed = dir.write_atomic_with("a/b/file", |_| bail!("no"));
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        assert_eq!(
            std::fs::read_dir(inside.path().join("a/b"))
                .unwrap()
                .count(),
            1
        );

        dir.open_append("log", "the log")
            .unwrap()
            .write_all(b"1")
            .unwrap();
        dir.open_append("log", "the log")
            .unwrap()
            .write_all(b"2")
            .unwrap();
        assert_eq!(std::fs::read(inside.path().join("log")).unwrap(), b"12");
        assert!(dir.create_new("log").is_err());
        dir.rename("log", "c/log").unwrap();
        assert_eq!(dir.entry("c/log").unwrap(), Entry::File);
        assert_eq!(dir.entry("log").unwrap(), Entry::Missing);
        assert_eq!(dir.entry("nowhere/log").unwrap(), Entry::Missing);

        // A tree with a link inside to the outside: the link is removed, its target kept.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("victim"), "keep me").unwrap();
        dir.create_dir_all("t/u/v").unwrap();
        dir.write_atomic("t/u/v/w", b"x").unwrap();
        std::os::unix::fs::symlink(outside.path(), inside.path().join("t/u/out")).unwrap();
        assert!(dir.remove_dir_all("t").unwrap());
        assert!(!dir.remove_dir_all("t").unwrap());
        assert_eq!(dir.entry("t").unwrap(), Entry::Missing);
        assert_untouched(outside.path());
        assert!(!dir.remove_file("t").unwrap());

        let sub = dir.sub("s/t").unwrap();
        sub.write_atomic("f", b"in sub").unwrap();
        assert_eq!(
            std::fs::read(inside.path().join("s/t/f")).unwrap(),
            b"in sub"
        );
        for bad in ["../x", "/etc/passwd", "a/../b", ""] {
            assert!(dir.write_atomic(bad, b"x").is_err(), "{bad}");
        }
    }

    #[test]
    fn every_read_refuses_a_link_at_any_component_and_names_it() {
        let mut messages = String::new();
        for planted_at in ["shards", "slurm/shards", ".record/links"] {
            let (outside, inside, dir) = planted(planted_at);
            let dirs = [inside.path(), outside.path()];
            let err = format!("{:#}", dir.list(planted_at).unwrap_err());
            messages.push_str(&format!("list {planted_at}: {}\n", redact(&err, &dirs)));
            let through = Path::new(planted_at).join("victim");
            let err = format!("{:#}", dir.read_optional(&through, 1 << 20).unwrap_err());
            messages.push_str(&format!(
                "read {}: {}\n",
                through.display(),
                redact(&err, &dirs)
            ));
            assert_untouched(outside.path());
        }
        let (outside, inside, dir) = planted("manifest.json");
        let dirs = [inside.path(), outside.path()];
        let err = format!(
            "{:#}",
            dir.read_optional("manifest.json", 1 << 20).unwrap_err()
        );
        messages.push_str(&format!("read manifest.json: {}\n", redact(&err, &dirs)));
        // The same through the side-file reader, as every command reads a manifest.
        let err = format!(
            "{:#}",
            super::super::read_side_file(inside.path(), "manifest.json").unwrap_err()
        );
        messages.push_str(&format!(
            "side file manifest.json: {}\n",
            redact(&err, &dirs)
        ));
        insta::assert_snapshot!(messages);
    }

    #[test]
    fn a_read_is_bounded_and_a_fifo_is_refused_without_blocking() {
        let inside = tempfile::tempdir().unwrap();
        let dir = ExperimentDir::open(inside.path()).unwrap();
        std::fs::write(inside.path().join("big"), vec![b'x'; (1 << 20) + 1]).unwrap();
        let err = format!("{:#}", dir.read_optional("big", 1 << 20).unwrap_err());
        let mut messages = format!("big: {}\n", redact(&err, &[inside.path()]));
        assert_eq!(dir.read("big", 2 << 20).unwrap().len(), (1 << 20) + 1);
        assert_eq!(dir.read_optional("missing", 1 << 20).unwrap(), None);
        let err = dir.read("missing", 1 << 20).unwrap_err();
        assert!(is_missing(&err), "{err:#}");
        messages.push_str(&format!(
            "missing: {}\n",
            redact(&format!("{err:#}"), &[inside.path()])
        ));
        nix::unistd::mkfifo(
            &inside.path().join("cachegrind.out.7"),
            Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        let err = format!(
            "{:#}",
            super::super::read_outputs_named(inside.path(), "cachegrind.out.").unwrap_err()
        );
        messages.push_str(&format!("fifo: {}\n", redact(&err, &[inside.path()])));
        insta::assert_snapshot!(messages);
    }

    #[test]
    fn a_listing_names_each_entry_with_what_it_is_in_name_order() {
        let inside = tempfile::tempdir().unwrap();
        std::fs::create_dir(inside.path().join("b")).unwrap();
        std::fs::write(inside.path().join("c"), "").unwrap();
        std::os::unix::fs::symlink("/etc", inside.path().join("a")).unwrap();
        let dir = ExperimentDir::open(inside.path()).unwrap();
        let listed: Vec<(String, Entry)> = dir
            .list("")
            .unwrap()
            .into_iter()
            .map(|(n, e)| (n.to_string_lossy().into_owned(), e))
            .collect();
        let expected = [("a", Entry::Link), ("b", Entry::Dir), ("c", Entry::File)]
            .map(|(n, e)| (n.to_string(), e));
        assert_eq!(listed, expected);
        assert!(is_missing(&dir.list("nowhere").unwrap_err()));
    }
}
