//! Links a program has already made, by everything that went into them: a binary whose link
//! would take the same inputs as an earlier one (a library of one function, whose every
//! seed is its baseline; two seeds of a small program that drew the same order) is a copy
//! of that link's output instead of another run of the linker. The linker is deterministic
//! for equal inputs, so the copy is the binary it would have written.
//!
//! What goes into a link: the tool, its directory and environment, its arguments (the
//! binary's own output and work paths written as placeholders, so that two binaries' links
//! compare), and the content of every file in the binary's work directory (the merged
//! object in its order, the rewritten archives); the other inputs are the recording's
//! blobs, named by their content, or the program's merged object, made once.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};

/// The outputs of a program's links so far, by the hash of what went into each (see the
/// module doc), with the hash of the output as written: an output overwritten or removed
/// since (a failed seed's files, a pinned relink linking again to the same path) no longer
/// matches and is linked again. One slot per inputs: a binary whose link takes the inputs
/// of a link under way (seeds are linked in parallel) waits for it, then copies its output.
#[derive(Debug, Default)]
pub(crate) struct Made(Mutex<HashMap<blake3::Hash, Arc<Slot>>>);

/// The output of the link of some inputs, once made (see [`Made`]).
pub(crate) type Slot = Mutex<Option<(PathBuf, blake3::Hash)>>;

/// What a link takes in: the hash of the module doc's parts.
pub(crate) struct LinkInputs(blake3::Hash);

impl LinkInputs {
    /// The inputs of running `program` with `args` in the recorded `cwd` and `env`, writing
    /// `out`, with its intermediate files in `work`.
    pub(crate) fn of(
        program: &Path,
        args: &[String],
        record: &crate::wrap::record::LinkRecord,
        out: &Path,
        work: &Path,
    ) -> Result<LinkInputs> {
        let mut hasher = blake3::Hasher::new();
        let mut part = |bytes: &[u8]| {
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        part(program.as_os_str().as_encoded_bytes());
        part(record.cwd.as_os_str().as_encoded_bytes());
        for (k, v) in &record.env {
            part(k.as_bytes());
            part(v.as_bytes());
        }
        let (out, work) = (out.to_string_lossy(), work.to_string_lossy());
        for arg in args {
            part(
                arg.replace(out.as_ref(), "\0out")
                    .replace(work.as_ref(), "\0work")
                    .as_bytes(),
            );
        }
        for (rel, hash) in files_below(Path::new(work.as_ref()))? {
            part(rel.as_os_str().as_encoded_bytes());
            part(hash.as_bytes());
        }
        Ok(LinkInputs(hasher.finalize()))
    }

    /// The inputs of every binary of a program of which nothing moves: one for all.
    pub(crate) fn unmoved() -> LinkInputs {
        LinkInputs(blake3::hash(b"nothing moves"))
    }
}

impl Made {
    /// The slot of the link of these `inputs`, shared by every binary whose link takes them.
    pub(crate) fn slot(&self, inputs: &LinkInputs) -> Arc<Slot> {
        let mut made = self.0.lock().unwrap_or_else(|e| e.into_inner());
        made.entry(inputs.0).or_default().clone()
    }
}

/// The output kept in `slot` (the guard of its lock), if it is still as it was written.
pub(crate) fn earlier(slot: &Option<(PathBuf, blake3::Hash)>) -> Option<PathBuf> {
    let (path, hash) = slot.as_ref()?;
    (hash_of(path).ok()? == *hash).then(|| path.clone())
}

/// Keeps in `slot` (the guard of its lock) that its link wrote `out`.
pub(crate) fn keep(slot: &mut Option<(PathBuf, blake3::Hash)>, out: &Path) -> Result<()> {
    *slot = Some((out.to_path_buf(), hash_of(out)?));
    Ok(())
}

/// The BLAKE3 hash of the regular file `path`, read through the one opener.
fn hash_of(path: &Path) -> Result<blake3::Hash> {
    hash_file(crate::files::confined::open_regular(path)?, path)
}

/// The BLAKE3 hash of what is left to read of `file` (at `path`, for the error).
fn hash_file(mut file: std::fs::File, path: &Path) -> Result<blake3::Hash> {
    let mut hasher = blake3::Hasher::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let n = file
            .read(&mut buffer)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            return Ok(hasher.finalize());
        }
        hasher.update(&buffer[..n]);
    }
}

/// Every regular file below `dir` (relative path, content hash), in path order, listed and
/// read through the one opener (a link in the work folder is not followed: skipped).
fn files_below(dir: &Path) -> Result<Vec<(PathBuf, blake3::Hash)>> {
    use crate::files::confined::{Entry, ExperimentDir};
    let root = ExperimentDir::open(dir)?;
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        for (name, entry) in root.list(&rel)? {
            let path = rel.join(name);
            match entry {
                Entry::Dir => pending.push(path),
                Entry::File => {
                    let hash = hash_file(root.open_regular(&path)?, &dir.join(&path))?;
                    found.push((path, hash));
                }
                _ => {}
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(cwd: &str) -> crate::wrap::record::LinkRecord {
        serde_json::from_value(serde_json::json!({
            "tool": "driver", "tool_name": "cc", "real_tool": "/usr/bin/cc", "args": [],
            "cwd": cwd, "env": {}, "inputs": [], "output_span": null, "output": "/b/demo",
            "lto": false, "fuse_ld": null, "seconds": 0.0, "started_unix_nanos": 0
        }))
        .unwrap()
    }

    #[test]
    fn two_binaries_with_the_same_work_files_have_the_same_inputs_and_content_tells_them_apart() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for w in [&a, &b] {
            std::fs::create_dir_all(w.join("sub")).unwrap();
            std::fs::write(w.join("merged.o"), b"code in one order").unwrap();
            std::fs::write(w.join("sub/archive-0.a"), b"members").unwrap();
        }
        let args =
            |w: &Path, o: &str| vec![format!("{}/merged.o", w.display()), "-o".into(), o.into()];
        let rec = record("/b");
        let key = |w: &Path, o: &str| {
            LinkInputs::of(Path::new("/usr/bin/cc"), &args(w, o), &rec, Path::new(o), w)
                .unwrap()
                .0
        };
        assert_eq!(key(&a, "/o/seed-1/demo"), key(&b, "/o/seed-2/demo"));
        std::fs::write(b.join("sub/archive-0.a"), b"members, permuted").unwrap();
        assert_ne!(key(&a, "/o/seed-1/demo"), key(&b, "/o/seed-2/demo"));
        let other = LinkInputs::of(
            Path::new("/usr/bin/cc"),
            &args(&a, "/o/seed-1/demo"),
            &record("/elsewhere"),
            Path::new("/o/seed-1/demo"),
            &a,
        )
        .unwrap();
        assert_ne!(other.0, key(&a, "/o/seed-1/demo"));
    }

    #[test]
    fn an_output_changed_since_its_link_is_not_offered_again() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("demo");
        std::fs::write(&out, b"binary").unwrap();
        let made = Made::default();
        let inputs = || LinkInputs(blake3::hash(b"inputs"));
        keep(&mut made.slot(&inputs()).lock().unwrap(), &out).unwrap();
        let kept = || earlier(&made.slot(&inputs()).lock().unwrap());
        assert_eq!(kept(), Some(out.clone()));
        let others = LinkInputs(blake3::hash(b"others"));
        assert_eq!(earlier(&made.slot(&others).lock().unwrap()), None);
        std::fs::write(&out, b"linked again with other inputs").unwrap();
        assert_eq!(kept(), None);
        std::fs::remove_file(&out).unwrap();
        assert_eq!(kept(), None);
    }
}
