//! The record directory the shim writes and `layoutrand build` reads: one JSON file per final
//! link, content-addressed copies of the link's objects and archives, and a log of every call
//! seen (for the "no link recorded" diagnosis).
//!
//! Layout of a record directory:
//!
//! * `links/<nanos>-<pid>.json` — one [`LinkRecord`] per recorded final link, written
//!   atomically (temporary file + rename), so concurrent shims under `make -j` never share a
//!   file and a reader never sees half a record;
//! * `blobs/<blake3>.o|.a` — input copies, named by content, written by rename (two shims
//!   storing the same content race harmlessly);
//! * `seen.log` — one line per classified call (`kind<TAB>tool<TAB>output<TAB>cwd`), appended
//!   with single `O_APPEND` writes;
//! * `errors.log` — the shim's internal errors (the call itself went through unchanged).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::classify::Span;
use crate::files::trust::Verified;

/// Sub-directory of link records.
pub const LINKS_DIR: &str = "links";
/// Subdirectory of records set aside by [`discard_output`].
pub(crate) const DISCARDED_DIR: &str = "discarded";
/// Sub-directory of content-addressed input copies.
pub const BLOBS_DIR: &str = "blobs";
/// Log of every call the shim classified.
pub const SEEN_LOG: &str = "seen.log";
/// Log of the shim's internal errors.
pub const ERRORS_LOG: &str = "errors.log";

/// Environment variables kept with a link record (they change what the driver or linker does).
pub(crate) const RECORDED_ENV: &[&str] = &[
    "PATH",
    "LIBRARY_PATH",
    "COMPILER_PATH",
    "GCC_EXEC_PREFIX",
    "LD_RUN_PATH",
    "LD_LIBRARY_PATH",
    "SOURCE_DATE_EPOCH",
    "LANG",
    "LC_ALL",
];

/// How the link was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LinkTool {
    /// Through a compiler driver (gcc, clang, ...).
    Driver,
    /// A linker called directly.
    Linker,
}

/// What an input file is, from its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// A relocatable ELF object (also gcc LTO IR objects), or LLVM bitcode (clang -flto).
    Object,
    /// A static archive (`!<arch>`).
    Archive,
}

/// One object or archive of a link, copied into the record directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecordedInput {
    /// Where it was on the (expanded) command line; replaced by the copy on replay.
    pub span: Span,
    /// The argument(s) as written (`main.o`, `-lbz2`).
    pub written: String,
    /// The file the argument resolved to, absolute.
    pub resolved: PathBuf,
    /// Object or archive.
    pub kind: InputKind,
    /// The copy's file name inside `blobs/`.
    pub blob: String,
}

/// One recorded final link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LinkRecord {
    /// Driver or linker.
    pub tool: LinkTool,
    /// The name the build called (`gcc`, `cc`, `ld`).
    pub tool_name: String,
    /// The real tool that ran.
    pub real_tool: PathBuf,
    /// The arguments as run, `@file`s expanded, sources of a compile-and-link call replaced by
    /// their objects, `-ffunction-sections` appended for LTO links.
    pub args: Vec<String>,
    /// Working directory of the call.
    pub cwd: PathBuf,
    /// The [`RECORDED_ENV`] variables that were set (PATH without the shim directory).
    pub env: BTreeMap<String, String>,
    /// The copied inputs, in command-line order.
    pub inputs: Vec<RecordedInput>,
    /// Where `-o` is on the command line (`None`: no `-o`, the output is `a.out`).
    pub output_span: Option<Span>,
    /// The output, absolute.
    pub output: PathBuf,
    /// `-flto` in effect.
    pub lto: bool,
    /// A shared-library link (`-shared`): relinked per seed like a program, its output
    /// loaded by the programs at run time. Absent (false) in records of older versions.
    #[serde(default)]
    pub shared: bool,
    /// The objects the link's own LTO code generation produced (gcc's ltrans objects, or
    /// clang's LTO objects via the linker's `obj-path`), blob names in partition order, kept
    /// by the shim ([`super::lto_keep`]) so that every relink uses the user's own LTO code.
    /// Empty for a link without LTO, when they could not be kept, and in older records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lto_objects: Vec<String>,
    /// `-fuse-ld=` as given.
    pub fuse_ld: Option<String>,
    /// Wall time of the link, seconds.
    pub seconds: f64,
    /// When the link started (nanoseconds since the Unix epoch): later links of the same
    /// output replace earlier ones.
    pub started_unix_nanos: u128,
}

/// Copies `file` into `record_dir/blobs/` under its BLAKE3 hash (if not there yet) and returns
/// the blob's file name.
pub(crate) fn store_blob(record_dir: &Path, file: &Path, kind: InputKind) -> Result<String> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let ext = match kind {
        InputKind::Object => "o",
        InputKind::Archive => "a",
    };
    let name = format!("{}.{ext}", blake3::hash(&bytes).to_hex());
    let rel = Path::new(BLOBS_DIR).join(&name);
    let root = crate::files::confined::ExperimentDir::create(record_dir)?;
    if root.entry(&rel)? == crate::files::confined::Entry::Missing {
        root.write_atomic(&rel, &bytes)
            .with_context(|| format!("storing {}", record_dir.join(&rel).display()))?;
    }
    Ok(name)
}

/// What kind of input `file` is, from its first bytes (`None`: neither object nor archive,
/// e.g. a shared library, a linker script or a thin archive, which replay uses in place).
pub(crate) fn input_kind(file: &Path) -> Option<InputKind> {
    use std::io::Read;
    let mut head = [0u8; 18];
    let mut f = std::fs::File::open(file).ok()?;
    let n = f.read(&mut head).ok()?;
    if n >= 8 && &head[..8] == b"!<arch>\n" {
        return Some(InputKind::Archive);
    }
    // LLVM bitcode (clang -flto), bare or in its wrapper: an object whose code the link
    // generates.
    if n >= 4 && (&head[..4] == b"BC\xc0\xde" || &head[..4] == b"\xde\xc0\x17\x0b") {
        return Some(InputKind::Object);
    }
    // ELF, e_type (offset 16, little- or big-endian) == ET_REL (1).
    if n >= 18 && &head[..4] == b"\x7fELF" {
        let e_type = if head[5] == 2 {
            u16::from_be_bytes([head[16], head[17]])
        } else {
            u16::from_le_bytes([head[16], head[17]])
        };
        if e_type == 1 {
            return Some(InputKind::Object);
        }
    }
    None
}

/// Writes `record` as a new file in `record_dir/links/`.
pub(crate) fn write_record(record_dir: &Path, record: &LinkRecord) -> Result<PathBuf> {
    let rel = Path::new(LINKS_DIR).join(format!(
        "{}-{}.json",
        record.started_unix_nanos,
        std::process::id()
    ));
    let root = crate::files::confined::ExperimentDir::create(record_dir)?;
    root.write_atomic(&rel, &serde_json::to_vec_pretty(record)?)
        .with_context(|| format!("writing {}", root.join(&rel).display()))?;
    Ok(root.join(&rel))
}

/// Appends one line to a log in the record directory with a single write (lines of
/// concurrent shims never interleave).
pub(crate) fn append_line(record_dir: &Path, log: &str, line: &str) -> Result<()> {
    let mut text = line.replace('\n', " ");
    text.push('\n');
    let mut f = crate::files::confined::ExperimentDir::create(record_dir)
        .and_then(|root| root.open_append(log, "the recording's log"))?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", record_dir.join(log).display()))
}

/// Signs every link record of `record_dir` as this user's ([`crate::files::trust`]): called
/// once the recorded build is over, on the records it just wrote.
pub(crate) fn sign_records(record_dir: &Path) {
    let links = record_dir.join(LINKS_DIR);
    let Ok(files) = link_record_paths(&links) else {
        return;
    };
    for path in files {
        let rel = Path::new(LINKS_DIR).join(path.file_name().expect("a file name"));
        let kind = crate::files::trust::Kind::LinkRecord;
        match crate::files::trust::read_signed_part(record_dir, &rel, kind) {
            Ok(bytes) => crate::files::trust::sign_or_warn(record_dir, &rel, kind, &bytes),
            Err(e) => {
                crate::diagnostic!("layoutrand: warning: cannot sign {}: {e:#}", path.display())
            }
        }
    }
}

/// Checks that every blob the records name holds the content its name (a BLAKE3 hash) says:
/// a recorded object edited after the recording (one code byte changed is still a valid ELF)
/// is refused rather than relinked as the user's code.
pub(crate) fn check_blobs(record_dir: &Path, records: &[LinkRecord]) -> Result<()> {
    let blobs = record_dir.join(BLOBS_DIR);
    let root = crate::files::confined::ExperimentDir::open(record_dir)?;
    let names = records.iter().flat_map(|r| {
        r.inputs
            .iter()
            .map(|i| i.blob.as_str())
            .chain(r.lto_objects.iter().map(String::as_str))
    });
    let mut checked = std::collections::BTreeSet::new();
    for name in names {
        if !checked.insert(name) {
            continue;
        }
        crate::files::confined::check_component(name, "recorded blob name")?;
        let stem = name.split('.').next().unwrap_or("");
        let expected = blake3::Hash::from_hex(stem).map_err(|_| {
            anyhow::anyhow!(
                "recorded blob {name:?} is not named by its BLAKE3 hash: the recording was \
                 edited, refused"
            )
        })?;
        let path = blobs.join(name);
        let mut file = root.open_regular(Path::new(BLOBS_DIR).join(name))?;
        let mut hasher = blake3::Hasher::new();
        std::io::copy(&mut file, &mut hasher)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if hasher.finalize() != expected {
            anyhow::bail!(
                "recorded object {} no longer holds the content its name records (it was \
                 changed after the recording): refused, layoutrand relinks only what the build \
                 recorded; record the build again (`layoutrand build`)",
                path.display()
            );
        }
    }
    Ok(())
}

/// Reads every link record, oldest first; for links that wrote the same output, only the
/// last one is kept (a program relinked during the build is replayed once, as it ended up).
pub fn read_records(record_dir: &Path) -> Result<Vec<LinkRecord>> {
    let links = record_dir.join(LINKS_DIR);
    let mut records = Vec::new();
    if links.is_dir() {
        records = link_record_files(&links)?
            .into_iter()
            .map(|(_, record)| record)
            .collect();
    }
    Ok(last_link_of_each_output(records))
}

/// The recording of `record_dir` as a relink of a directory that may have been received
/// reads it (`build --extend`, `explain --confirm`): every link record parsed from the bytes
/// whose MAC verified under this user's key (one that is not the user's own is refused,
/// naming it), the last link of each output kept as [`read_records`] keeps it, and every blob
/// they name checked to hold the content its BLAKE3 name says ([`check_blobs`]). One reader
/// for both checks, so a relink cannot take the records without the blobs' check.
pub fn read_verified_recording(record_dir: &Path) -> Result<Verified<Vec<LinkRecord>>> {
    use crate::files::trust::{read_verified, Kind};
    let links = record_dir.join(LINKS_DIR);
    let mut records = Vec::new();
    if links.is_dir() {
        for path in link_record_paths(&links)? {
            let rel = Path::new(LINKS_DIR).join(path.file_name().expect("a file name"));
            let parse = |bytes: &[u8]| {
                serde_json::from_slice::<LinkRecord>(bytes)
                    .with_context(|| format!("{} is not a link record", path.display()))
            };
            records.extend(read_verified(record_dir, &rel, Kind::LinkRecord, parse)?);
        }
    }
    let recording = records
        .into_iter()
        .collect::<Verified<Vec<LinkRecord>>>()
        .map(last_link_of_each_output);
    check_blobs(record_dir, &recording)?;
    Ok(recording)
}

/// `records` oldest first, and of links that wrote the same output only the last (a
/// program relinked during the build is replayed once, as it ended up).
fn last_link_of_each_output(mut records: Vec<LinkRecord>) -> Vec<LinkRecord> {
    records.sort_by_key(|r| r.started_unix_nanos);
    let mut last_by_output: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        last_by_output.insert(r.output.clone(), i);
    }
    let keep: std::collections::BTreeSet<usize> = last_by_output.into_values().collect();
    records
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep.contains(i))
        .map(|(_, r)| r)
        .collect()
}

/// Moves every record of a link that wrote `output` out of the way (into
/// `record_dir/discarded/`), so that [`read_records`] no longer returns it: the build deleted
/// that output itself, so it was a configure-style probe, not a program the build produced.
pub(crate) fn discard_output(record_dir: &Path, output: &Path) -> Result<()> {
    let links = record_dir.join(LINKS_DIR);
    let root = crate::files::confined::ExperimentDir::create(record_dir)?;
    root.create_dir_all(DISCARDED_DIR)?;
    for (path, record) in link_record_files(&links)? {
        if record.output == output {
            let name = path.file_name().expect("a file name");
            root.rename(
                Path::new(LINKS_DIR).join(name),
                Path::new(DISCARDED_DIR).join(name),
            )
            .with_context(|| format!("moving {} aside", path.display()))?;
        }
    }
    Ok(())
}

/// Every `*.json` link record in `links`, with its path, in directory order.
fn link_record_files(links: &Path) -> Result<Vec<(PathBuf, LinkRecord)>> {
    let mut records = Vec::new();
    for path in link_record_paths(links)? {
        // Read below the recording's folder without following a link (`links` planted as
        // one is refused).
        let record_dir = links.parent().unwrap_or(Path::new("."));
        let rel = Path::new(LINKS_DIR).join(path.file_name().expect("a file name"));
        let bytes = crate::files::trust::read_signed_part(
            record_dir,
            &rel,
            crate::files::trust::Kind::LinkRecord,
        )?;
        let record: LinkRecord = serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not a link record", path.display()))?;
        records.push((path, record));
    }
    Ok(records)
}

/// The paths of the `*.json` files in `links` (the recording's `links` folder, listed without
/// following a link to it), in name order.
fn link_record_paths(links: &Path) -> Result<Vec<PathBuf>> {
    let record_dir = links.parent().unwrap_or(Path::new("."));
    let root = crate::files::confined::ExperimentDir::open(record_dir)?;
    Ok(root
        .list(LINKS_DIR)?
        .into_iter()
        .map(|(name, _)| links.join(name))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect())
}

/// The most bytes of one recorded object or archive layoutrand reads (far above any real
/// object; a planted sparse file of a terabyte is refused before it is read).
pub(crate) const BLOB_LIMIT: u64 = 8 << 30;

/// The bytes of the recorded blob `name`, read through the opener (below the recording's
/// folder, no link, a regular file, at most [`BLOB_LIMIT`]).
pub(crate) fn read_blob(record_dir: &Path, name: &str) -> Result<Vec<u8>> {
    crate::files::confined::ExperimentDir::open(record_dir)?
        .read(Path::new(BLOBS_DIR).join(name), BLOB_LIMIT)
}

/// The text of the recording's log `name` (`seen.log`, `errors.log`, …), read as a side
/// file (no link, no FIFO, bounded); `None` when it is missing or cannot be read.
pub(crate) fn read_log(record_dir: &Path, name: &str) -> Option<String> {
    crate::files::confined::read_side_file(record_dir, name)
        .ok()
        .flatten()
}

/// The outputs (third field) of the `seen.log` lines of `kind`, in order.
pub(crate) fn seen_outputs(record_dir: &Path, kind: &str) -> Vec<String> {
    read_log(record_dir, SEEN_LOG)
        .map(|text| {
            text.lines()
                .filter_map(|l| {
                    let mut fields = l.split('\t');
                    (fields.next() == Some(kind)).then(|| fields.nth(1).unwrap_or("").to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Counts of the calls in `seen.log` by kind, plus the first few lines, for diagnostics.
pub(crate) fn seen_summary(record_dir: &Path) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    if let Some(text) = read_log(record_dir, SEEN_LOG) {
        for line in text.lines() {
            let kind = line.split('\t').next().unwrap_or("").to_string();
            *counts.entry(kind).or_insert(0) += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_is_relinked_from_only_once_every_record_verifies() {
        // The key is the process's (see `.cargo/config.toml`).
        let d = tempfile::tempdir().unwrap();
        assert!(read_verified_recording(d.path()).unwrap().is_empty());
        std::fs::create_dir(d.path().join(LINKS_DIR)).unwrap();
        let rel = Path::new(LINKS_DIR).join("1.json");
        std::fs::write(d.path().join(&rel), "{\"tool\": \"/tmp/evil\"}").unwrap();
        // Refused for its missing MAC before its content is even parsed.
        let redacted =
            |err: anyhow::Error| format!("{err:#}").replace(d.path().to_str().unwrap(), "[dir]");
        insta::assert_snapshot!(redacted(read_verified_recording(d.path()).unwrap_err()));
        crate::files::trust::sign_file(d.path(), &rel, crate::files::trust::Kind::LinkRecord)
            .unwrap();
        insta::assert_snapshot!(redacted(read_verified_recording(d.path()).unwrap_err()));
    }

    #[test]
    fn blobs_are_content_addressed_and_shared() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.o");
        let b = dir.path().join("b.o");
        std::fs::write(&a, b"same bytes").unwrap();
        std::fs::write(&b, b"same bytes").unwrap();
        let na = store_blob(dir.path(), &a, InputKind::Object).unwrap();
        let nb = store_blob(dir.path(), &b, InputKind::Object).unwrap();
        assert_eq!(na, nb);
        assert_eq!(na, format!("{}.o", blake3::hash(b"same bytes").to_hex()));
        assert_eq!(
            std::fs::read(dir.path().join(BLOBS_DIR).join(&na)).unwrap(),
            b"same bytes"
        );
    }

    #[test]
    fn input_kinds_from_magic() {
        let dir = tempfile::tempdir().unwrap();
        let ar = dir.path().join("x.a");
        std::fs::write(&ar, b"!<arch>\nrest").unwrap();
        assert_eq!(input_kind(&ar), Some(InputKind::Archive));
        let script = dir.path().join("libc.so");
        std::fs::write(&script, b"GROUP ( /lib/libc.so.6 )\n").unwrap();
        assert_eq!(input_kind(&script), None);
        let mut rel = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
        rel.extend_from_slice(&1u16.to_le_bytes());
        let obj = dir.path().join("x.o");
        std::fs::write(&obj, &rel).unwrap();
        assert_eq!(input_kind(&obj), Some(InputKind::Object));
        rel[16] = 3; // ET_DYN
        std::fs::write(&obj, &rel).unwrap();
        assert_eq!(input_kind(&obj), None);
    }
}
