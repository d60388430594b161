//! One confined writer (issue 34): every path layoutrand creates, writes, renames or deletes
//! below an experiment directory goes through `files::confined::ExperimentDir`, which
//! refuses a symbolic link or a special file at any component. These tests hold that by
//! construction: a raw write call anywhere else in `src/` fails the first one (unless the
//! allow-list names why it is not below an experiment directory), and planted links of every
//! kind the directory holds are refused by the commands with a message naming the path.

use std::path::{Path, PathBuf};

/// The raw calls that create, write, rename or delete a path.
const RAW_WRITES: &[&str] = &[
    "fs::write(",
    "File::create(",
    "fs::create_dir(",
    "fs::create_dir_all(",
    "DirBuilder::new(",
    "fs::rename(",
    "fs::remove_file(",
    "fs::remove_dir(",
    "fs::remove_dir_all(",
    "fs::copy(",
    "fs::hard_link(",
    "fs::symlink(",
    "fs::set_permissions(",
    "OpenOptions::new(",
    "tempfile::",
    ".persist(",
    "persist_noclobber(",
];

/// (file below src/, raw call, why it may stay raw). Everything else writes through
/// `ExperimentDir`.
const ALLOWED: &[(&str, &str, &str)] = &[
    ("files/confined/dir.rs", "fs::create_dir_all(", "ExperimentDir::create: the user's own choice of directory, links on the way followed as the user's path says"),
    ("files/output.rs", "OpenOptions::new(", "-o FILE into a FIFO, a character device or /dev/stdout: written into, never replaced (a regular file goes through the confined writer)"),
    ("files/trust.rs", "OpenOptions::new(", "the read of the user's key (O_NOFOLLOW), not a write"),
    ("files/trust.rs", "DirBuilder::new(", "the user's key folder (~/.config/layoutrand), outside any experiment directory"),
    ("files/trust.rs", "tempfile::", "the user's key, created beside its final name outside any experiment directory"),
    ("files/trust.rs", "persist_noclobber(", "the user's key: linked into place without replacing anything"),
    ("layout/archive.rs", "tempfile::", "a thin archive in the relink's work folder, made by the confined writer (layout sits below files: no import back); a fresh O_EXCL name"),
    ("layout/archive.rs", ".persist(", "as above: a rename over the leaf replaces a link, never follows it"),
    ("layout/reorder/merged.rs", "fs::write(", "merged.ld in the fresh private folder (tempfile's mkdir of an unpredictable name) made that moment in .record/merged"),
    ("relink/replay/merged.rs", "tempfile::", "a fresh private folder (mkdir of an unpredictable name) in .record/merged, made by the confined writer"),
    ("relink/live.rs", "fs::rename(", "the live relink replaces the output in the user's own build tree (the regular file their link just wrote), not in an experiment directory"),
    ("relink/live.rs", "tempfile::", "as above: beside the output in the user's build tree"),
    ("relink/live.rs", "fs::copy(", "as above: beside the output in the user's build tree"),
    ("relink/live.rs", ".persist(", "as above: beside the output in the user's build tree"),
    ("wrap/shim.rs", "OpenOptions::new(", "the once-per-build warning that the record cannot be written: a fresh (O_EXCL) file in layoutrand build's private temporary folder, outside any experiment directory"),
    ("relink/recorded_build.rs", "tempfile::", "layoutrand build's private temporary folder for the shims' once-per-build warning, outside any experiment directory"),
    ("doctor/mod.rs", "tempfile::", "the doctor's private temporary folder for its calibration runs"),
    ("run/heap_offset.rs", "DirBuilder::new(", "the user's private cache (0700, refused when another user owns it or others may write to it), outside any experiment directory: the heap-offset library is built from layoutrand's own source, never from a directory's files"),
    ("run/heap_offset.rs", "tempfile::", "fresh (O_EXCL) names in that private cache folder"),
    ("run/heap_offset.rs", "fs::write(", "the library's source into its fresh temporary file in the private cache"),
    ("run/heap_offset.rs", "fs::set_permissions(", "the freshly built library in the private cache, before it is renamed into place"),
    ("run/heap_offset.rs", ".persist(", "renames within the private cache (a rename replaces a link, never follows it)"),
];

pub fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's code without its unit tests (which write their own temporary fixtures): what
/// comes before the first `#[cfg(test)]` whose item, after any other attributes, is a module.
pub fn code_of(text: &str) -> &str {
    let mut from = 0;
    while let Some(found) = text[from..].find("#[cfg(test)]") {
        let at = from + found;
        let item = text[at..]
            .lines()
            .skip(1)
            .map(str::trim_start)
            .find(|l| !l.starts_with("#["));
        let module = |l: &str| {
            let l = l
                .strip_prefix("pub(crate) ")
                .or(l.strip_prefix("pub "))
                .unwrap_or(l);
            l.starts_with("mod ")
        };
        if item.is_some_and(module) {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// The calls of `raw` in the code of src/ (unit tests left out) that `allowed` does not
/// name, as `src/FILE:LINE: CALL in `LINE``, and the entries of `allowed` no call needed.
pub fn unlisted_calls(raw: &[&str], allowed: &[(&str, &str, &str)]) -> (Vec<String>, Vec<String>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    let mut used = vec![false; allowed.len()];
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in code_of(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for call in raw.iter().filter(|call| code.contains(**call)) {
                match allowed.iter().position(|(f, c, _)| *f == rel && c == call) {
                    Some(i) => used[i] = true,
                    None => found.push(format!("src/{rel}:{}: {call} in `{}`", n + 1, line.trim())),
                }
            }
        }
    }
    // A stale exception is a hole waiting for a new call: each one must still be needed.
    let stale = allowed
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|((f, c, _), _)| format!("{f}: {c}"))
        .collect();
    (found, stale)
}

#[test]
fn no_raw_write_call_outside_the_confined_writer() {
    let (found, stale) = unlisted_calls(RAW_WRITES, ALLOWED);
    assert!(
        found.is_empty(),
        "raw write calls outside files::confined (write through ExperimentDir, or add the \
         call to ALLOWED with why it is not below an experiment directory):\n{}",
        found.join("\n")
    );
    assert!(
        stale.is_empty(),
        "allow-list entries no longer needed: {stale:?}"
    );
}
