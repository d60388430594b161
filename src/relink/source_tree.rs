//! Whether a build in an experiment directory was made from a given source tree (issue 34,
//! attack 15): `experiment` reuses the build it finds in its output directory when the build
//! command matches, and a build of another tree (another checkout, the tree moved, the
//! sources edited and rebuilt since) would then be measured under this experiment's name.
//!
//! A build's source tree is known twice over: the manifest's `build_dir` (the directory the
//! build command ran in, its canonical path) and the recording's inputs (every object and
//! archive of every recorded link, each kept under its BLAKE3 hash with the path it was read
//! from). The tree is the same when its canonical path is the recorded one and every
//! recorded input still in it has the recorded content: a cheap fingerprint (the objects
//! only, hashed at disk speed), and one that a new checkout or an edit-and-rebuild changes.
//! Inputs outside the tree (system libraries) are not the tree's; inputs gone (a `make
//! clean`) cannot tell.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::options::RECORD_DIR;
use crate::files::manifest::{Manifest, MANIFEST_FILE};
use crate::wrap::record;

/// What the recorded inputs in the tree showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SameTree {
    /// Inputs found in the tree with their recorded content.
    pub(crate) checked: usize,
    /// Inputs of the tree no longer there: these cannot tell.
    pub(crate) missing: usize,
}

/// Checks that the build whose manifest `manifest` is in `out` (its recording in
/// `out/.record`, absent for `--rebuild`) was made in `tree`; an error naming both trees, or
/// the first input whose content changed, and what to do. `objects: false` checks the path
/// only: variants built one after the other in one tree overwrite each other's objects.
pub(crate) fn check(
    out: &Path,
    manifest: &Manifest,
    tree: &Path,
    objects: bool,
) -> Result<SameTree> {
    let recorded = canonical(&manifest.build_dir);
    let here = tree
        .canonicalize()
        .with_context(|| format!("cannot find the source tree {}", tree.display()))?;
    let manifest_path = out.join(MANIFEST_FILE);
    if recorded != here {
        bail!(
            "{} was built from the source tree {}, not from {}, where this experiment \
             builds: its binaries are another tree's program. Give this tree its own output \
             directory (`out` in the experiment file), or remove {} to build it here",
            manifest_path.display(),
            recorded.display(),
            here.display(),
            out.display()
        );
    }
    let record_dir = out.join(RECORD_DIR);
    if !objects || !record_dir.join(record::LINKS_DIR).exists() {
        return Ok(SameTree {
            checked: 0,
            missing: 0,
        });
    }
    let links = record::read_records(&record_dir)?;
    let mut seen = std::collections::BTreeSet::new();
    let mut same = SameTree {
        checked: 0,
        missing: 0,
    };
    let inputs = links.iter().flat_map(|l| &l.inputs);
    for input in inputs.filter(|i| in_tree(&i.resolved, &manifest.build_dir, &here)) {
        if !seen.insert(&input.resolved) {
            continue;
        }
        match hash_of(&input.resolved)? {
            None => same.missing += 1,
            Some(hash) if input.blob.split('.').next() == Some(hash.to_hex().as_str()) => {
                same.checked += 1;
            }
            Some(_) => bail!(
                "{} was built from other sources than {} holds now: {} is not the file the \
                 build recorded (the sources were edited and rebuilt, or another version was \
                 checked out): its binaries would be measured as this tree's program. Remove \
                 {} (or give this tree another output directory) to build it again",
                manifest_path.display(),
                here.display(),
                input.resolved.display(),
                out.display()
            ),
        }
    }
    Ok(same)
}

/// Refuses a build in `out` made from another source tree than `tree` ([`check`]); says so
/// when nothing is left in the tree to tell (`experiment`'s reuse of a build).
pub(crate) fn reuse_only_from(
    out: &Path,
    manifest: &Manifest,
    tree: &Path,
    objects: bool,
) -> Result<()> {
    let same = check(out, manifest, tree, objects)?;
    if same.checked == 0 && same.missing > 0 {
        crate::diagnostic!(
            "layoutrand experiment: cannot tell whether {} still holds the sources {} was \
             built from: none of the {} objects its build recorded is there any more (a `make \
             clean`?); reusing the build",
            tree.display(),
            out.join(MANIFEST_FILE).display(),
            same.missing
        );
    }
    Ok(())
}

/// `path` canonical, or as it is when it no longer exists (then it differs from every tree
/// that does).
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `input` lies in the tree, recorded as `recorded` and now at `here`.
fn in_tree(input: &Path, recorded: &Path, here: &Path) -> bool {
    input.starts_with(recorded) || input.starts_with(here)
}

/// The BLAKE3 hash of the file at `path` (links followed: the user's tree may link its
/// objects), `None` when nothing regular is there any more (a FIFO is never opened).
fn hash_of(path: &Path) -> Result<Option<blake3::Hash>> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot inspect {}", path.display())),
    }
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut hasher = blake3::Hasher::new();
    std::io::copy(&mut file, &mut hasher)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Some(hasher.finalize()))
}
