//! One opener (issue 54): every file layoutrand reads or lists below an experiment
//! directory is opened through `files::confined` (an `ExperimentDir` held open, each path
//! below it resolved without following a link, only a regular file, never blocking on a
//! FIFO, at most a size cap per kind). A raw read call anywhere else in `src/` fails this
//! test unless the allow-list says why what it reads is not a file of an experiment
//! directory, or why it is safe to read by name.

use crate::writer::unlisted_calls;

/// The raw calls that open, read, list or inspect a path.
const RAW_READS: &[&str] = &[
    "fs::read(",
    "fs::read_to_string(",
    "File::open(",
    "read_dir(",
    "fs::read_link(",
    "fs::metadata(",
    "fs::symlink_metadata(",
    "WalkDir::new(",
];

/// Why the user's build (the shims) reads by name: the compiler's and linker's own inputs.
const BUILD_TREE: &str = "the user's build tree, as their compiler and linker read it (links followed as the build's own tools follow them), never an experiment directory";
/// Why /proc and /sys are read by name.
const KERNEL: &str = "the kernel's view of this machine or process (/proc, /sys, /dev/null), not a file of any directory";
/// Why the ELF readers take a path.
const ELF: &str = "an ELF file or archive a caller names: the user's build tree, a file this relink wrote into its own work folder, or a binary `run` and `explain` resolved inside the experiment directory and checked to be a regular file whose SHA-256 matches the manifest (run::targets::binary_inside, check_sha256); layout sits below files and cannot import the opener";

/// Why a suite's output is read by name.
const SUITE_OUTPUT: &str = "the file or criterion directory a suite writes in the benchmark's working directory, named by the user's --metric FORMAT@PATH (checked to be a regular file before it is opened, links of criterion's tree not followed); the captured stdout inside the experiment directory goes through the opener";

/// (file below src/, raw call, why it may stay raw). Everything else reads through
/// `files::confined`.
const ALLOWED: &[(&str, &str, &str)] = &[
    ("files/confined/dir.rs", "File::open(", "ExperimentDir::copy_in: the source of a copy into the directory, a file the caller names outside it (a recorded input, a binary to stage)"),
    ("files/confined/dir.rs", "fs::read_to_string(", KERNEL),
    ("wrap/atfile.rs", "fs::read_to_string(", BUILD_TREE),
    ("wrap/lto_keep.rs", "read_dir(", BUILD_TREE),
    ("wrap/record.rs", "fs::read(", BUILD_TREE),
    ("wrap/record.rs", "File::open(", BUILD_TREE),
    ("wrap/shim.rs", "fs::metadata(", "the user's PATH, searched for the real compiler or linker"),
    ("wrap/shim.rs", "fs::symlink_metadata(", BUILD_TREE),
    ("wrap/shim.rs", "File::open(", "the program the build has just linked, opened (never read) to set its access time back to its modification time: the build tree's, not an experiment directory's"),
    ("relink/programs.rs", "fs::read(", BUILD_TREE),
    ("relink/programs.rs", "fs::metadata(", "the times of a program the build linked, to see whether the build ran it: the build tree's; no content read"),
    ("relink/source_tree.rs", "fs::metadata(", "the user's source tree, hashed to see whether it changed (links followed: the tree may link its objects); a FIFO is never opened"),
    ("relink/source_tree.rs", "File::open(", "as above: a regular file of the user's source tree"),
    ("relink/rebuild.rs", "WalkDir::new(", "the user's source tree, walked to copy it for a variant (links copied as links, never followed)"),
    ("relink/rebuild.rs", "fs::read_link(", "as above: a link of the user's source tree, copied as a link"),
    ("relink/recorded_build.rs", "fs::read_to_string(", "CMakeCache.txt of the user's build tree, and the shims' once-per-build warning in layoutrand build's private temporary folder"),
    ("relink/projection.rs", "fs::metadata(", "the sizes of the binaries this build has just linked, summed for the cost projection: a number in a message, no content read"),
    ("relink/binaries.rs", "fs::read(", ELF),
    ("relink/lto_once.rs", "fs::read(", "the object this relink's LTO code generation has just written into its own work folder"),
    ("relink/replay/merged.rs", "fs::read(", "the link's inputs, recorded blobs checked against their BLAKE3 names through the opener before any relink (wrap::record::check_blobs), and the merged object this relink wrote into its fresh private folder"),
    ("layout/archive.rs", "fs::read(", ELF),
    ("layout/binary.rs", "fs::read(", ELF),
    ("layout/data_sections.rs", "fs::read(", ELF),
    ("layout/dynamic.rs", "fs::read(", ELF),
    ("layout/image.rs", "fs::read(", ELF),
    ("layout/object_file.rs", "fs::read(", ELF),
    ("layout/reorder/merged.rs", "fs::read(", ELF),
    ("layout/same_data.rs", "fs::read(", ELF),
    ("run/host.rs", "fs::read_to_string(", KERNEL),
    ("run/host.rs", "read_dir(", KERNEL),
    ("run/reaper.rs", "read_dir(", KERNEL),
    ("run/reaper.rs", "fs::read_to_string(", KERNEL),
    ("run/reaper.rs", "File::open(", KERNEL),
    ("run/process.rs", "File::open(", KERNEL),
    ("run/environment.rs", "fs::read_to_string(", KERNEL),
    ("run/environment.rs", "fs::metadata(", "the inode of a binary already resolved inside the experiment directory, compared with the staged one's (no content read; the staging itself goes through the confined writer)"),
    ("run/environment.rs", "fs::symlink_metadata(", "as above: the staged file's inode, a link not followed"),
    ("run/heap_offset.rs", "fs::symlink_metadata(", "the user's private cache folder (~/.cache/layoutrand), outside any experiment directory"),
    ("run/heap_offset.rs", "fs::read_to_string(", "as above: the hash recorded beside the heap-offset library in the private cache"),
    ("files/hash_cache.rs", "File::open(", "a binary `run` resolved inside the experiment directory and checked to be a regular file first (run::targets::binary_inside), or a file the user named; its SHA-256 is what decides whether it runs"),
    ("files/hash_cache.rs", "fs::metadata(", "as above: the size and times that let a hash be kept"),
    ("files/output.rs", "fs::metadata(", "the user's own -o FILE (a FIFO or a device is written into, never replaced)"),
    ("files/output.rs", "fs::symlink_metadata(", "as above: whether -o names a device or a link of the user's"),
    ("files/output.rs", "fs::read_link(", "as above: where the user's -o link leads"),
    ("measurements.rs", "File::open(", "the CSV file the user names to `analyze`"),
    ("experiment/config.rs", "fs::read_to_string(", "the experiment file the user names (their own instructions to run)"),
    ("doctor/calibration.rs", "File::open(", "the doctor's private temporary folder for its calibration runs"),
    ("doctor/checks.rs", "fs::symlink_metadata(", "the machine's /dev/null, whose file type the doctor checks (no content read, a link not followed)"),
    ("run/suite.rs", "File::open(", SUITE_OUTPUT),
    ("run/suite.rs", "fs::metadata(", SUITE_OUTPUT),
    ("run/suite.rs", "read_dir(", SUITE_OUTPUT),
];

#[test]
fn no_raw_read_call_outside_the_one_opener() {
    let (found, stale) = unlisted_calls(RAW_READS, ALLOWED);
    assert!(
        found.is_empty(),
        "raw read calls outside files::confined (read through ExperimentDir, or add the \
         call to ALLOWED with why it is not a file of an experiment directory):\n{}",
        found.join("\n")
    );
    assert!(
        stale.is_empty(),
        "allow-list entries no longer needed: {stale:?}"
    );
}
