//! Checks made before the first execution, so a run never fails half-way for a reason that
//! was knowable at the start.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// Free space below which the output directory counts as full.
const MIN_FREE_BYTES: u64 = 1 << 20;

/// Refuses an output directory we cannot write to or whose filesystem is (nearly) full,
/// before any execution runs; and a staging directory `staging` (inside `out`), or its
/// `bin`, `lib` or `cachegrind` directory, that is a symbolic link (planted in a received
/// experiment directory, it would redirect the runner's writes out of it).
pub(crate) fn check_writable(out: &Path, staging: &Path) -> Result<()> {
    use crate::files::confined::{create_fresh_file, ensure_real_dir};
    use std::io::Write;
    crate::files::confined::ExperimentDir::create(out)
        .with_context(|| format!("cannot create {} (is it writable?)", out.display()))?;
    ensure_real_dir(out, staging).with_context(|| {
        format!(
            "cannot use {} (is {} writable?)",
            staging.display(),
            out.display()
        )
    })?;
    let root = crate::files::confined::ExperimentDir::open(out)?;
    for sub in ["bin", "lib", "cachegrind"] {
        let dir = staging.join(sub);
        if root.entry(root.rel(&dir)?)? != crate::files::confined::Entry::Missing {
            ensure_real_dir(out, &dir)?;
        }
    }
    let probe = staging.join("write-probe");
    create_fresh_file(&probe)
        .and_then(|mut f| {
            f.write_all(&vec![0u8; 64 * 1024])?;
            Ok(f.sync_all()?)
        })
        .with_context(|| format!("cannot write to {} (is the disk full?)", out.display()))?;
    let _ = crate::files::confined::ExperimentDir::open(staging)?.remove_file("write-probe");
    if let Ok(st) = nix::sys::statvfs::statvfs(out) {
        let free = st.blocks_available() * st.fragment_size();
        if free < MIN_FREE_BYTES {
            bail!(
                "{} is nearly full ({free} bytes free): the results could not be stored",
                out.display()
            );
        }
    }
    Ok(())
}

pub(crate) use crate::child::which;
