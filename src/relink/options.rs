//! What `layoutrand build` is asked to do and what it answers, and the output directory it
//! clears: shared by the relink driver ([`super::driver`]), `--rebuild`
//! ([`super::rebuild`]), `--extend` and `--variant`, none of which imports another for them.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::binaries;
use super::linker::Linker;
use crate::files::manifest::{Granularity, Manifest, MANIFEST_FILE};

/// Directory (inside the output directory) of the recording.
pub const RECORD_DIR: &str = ".record";

/// What `layoutrand build` was asked to do.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The build command.
    pub command: Vec<String>,
    /// Where the build command runs.
    pub build_dir: PathBuf,
    /// The output directory.
    pub out_dir: PathBuf,
    /// Seeds to build.
    pub seeds: Vec<u64>,
    /// What is randomised.
    pub granularity: Granularity,
    /// `None`: each program with the linker its build used.
    pub linker: Option<Linker>,
    /// Worker threads for the relinks.
    pub jobs: usize,
    /// Show the build command's output as it runs.
    pub echo_build: bool,
    /// How to show the relinks' progress.
    pub progress: crate::progress::ProgressDisplay,
    /// One full build per binary in a copy of the tree (`--rebuild`) instead of relinks.
    pub rebuild: bool,
    /// More than [`super::projection::MANY_SEEDS`] seeds are wanted (`--allow-many-seeds`).
    pub allow_many_seeds: bool,
    /// `--pad MAX`: the most filler bytes a seed puts in front of each function (`None`:
    /// not given, i.e. 0, or for `--extend` the recorded setting).
    pub pad: Option<u64>,
    /// `--data-order`: each seed also permutes the program's static data (the shim adds
    /// `-fdata-sections` to compiles; see [`crate::layout::data_sections::DataFamily`]).
    pub data_order: bool,
    /// `--keep-debug`: the relinks keep the debug information; without it they are linked
    /// with `--strip-debug` ([`crate::relink::link_command::link_args`]).
    pub keep_debug: bool,
    /// `--pin FILE`, read: each seed places the pinned functions of the programs it names
    /// ([`super::pinned`]); `None`: none (for `--extend`, the recorded pin).
    pub pin: Option<crate::files::pin::PinFile>,
    /// `--programs`: relink only these recorded programs (by name; `all`: every one);
    /// `None`: every program except the build's own tools and, when others remain, its
    /// tests (see [`super::programs`]).
    pub programs: Option<Vec<String>>,
}

/// The most `--pad` accepts: a page. Each function's padding adds to that of the functions
/// before it, so a page already lets every function's page offset vary.
pub const MAX_PAD: u64 = 4096;

/// Checks `--pad` against the other options: at most [`MAX_PAD`], and only where seeds put
/// each function in a section of its own table entry (`module`, `global`; not `link`, which
/// moves whole modules and accepts modules whose functions share one section, nor
/// `--rebuild`, whose live relinks do not pad); `--data-order` not with `--rebuild` either.
pub fn check_pad(opts: &BuildOptions) -> Result<()> {
    if opts.rebuild && opts.data_order {
        bail!(
            "--data-order is not available with --rebuild (its live relinks do not order data): \
             leave out one of them"
        );
    }
    if opts.pin.is_some() && opts.rebuild {
        bail!(
            "--pin is not available with --rebuild (its live relinks cannot place functions): \
             leave out one of them"
        );
    }
    if opts.pin.is_some() && opts.granularity == Granularity::Link {
        bail!(
            "--pin needs --granularity module, global or none: `link` moves whole modules, so \
             filler cannot go in front of each pinned function"
        );
    }
    let pad = opts.pad.unwrap_or(0);
    if pad == 0 && opts.granularity == Granularity::None {
        bail!(
            "--granularity none needs --pad MAX (e.g. --pad 256): it keeps the build's order, so \
             the seeded padding is all that varies between seeds"
        );
    }
    if pad == 0 {
        return Ok(());
    }
    if pad > MAX_PAD {
        bail!("--pad {pad}: at most {MAX_PAD} bytes (a page) per function");
    }
    if opts.granularity == Granularity::Link {
        bail!(
            "--pad needs --granularity module, global or none: `link` moves whole modules (and accepts \
             modules whose functions share one section), so padding could not go before each \
             function"
        );
    }
    if opts.rebuild {
        bail!("--pad is not available with --rebuild (its live relinks do not pad): leave out one of them");
    }
    Ok(())
}

/// The result: the manifest (also saved) and any shim errors worth a warning.
#[derive(Debug)]
pub struct BuildOutcome {
    /// The manifest as written.
    pub manifest: Manifest,
    /// Internal errors of the shim during the recorded build.
    pub shim_errors: Vec<String>,
    /// Lines for the user after the summary: per program, in what its baseline differs from
    /// the binary the build made ([`super::as_built`]), and the build tools left out.
    pub notes: Vec<crate::files::manifest::BuildNote>,
}

/// Removes what an earlier run left in the output directory (its manifest first, so that a
/// failure now never leaves an old manifest describing new files).
/// Refuses when the directory holds measurements (`results.jsonl`) of the binaries it would
/// replace: those must never be silently paired with other files.
pub(crate) fn clear_previous_output(out_dir: &Path) -> Result<()> {
    let results = out_dir.join(crate::files::results::RESULTS_FILE);
    if crate::files::store::has_results(out_dir) {
        bail!(
            "{} holds measurements of the binaries a new build would replace: use another --out, \
             add seeds with --extend, or remove the measurements first",
            results.display()
        );
    }
    let dir = crate::files::confined::ExperimentDir::open(out_dir)?;
    dir.remove_file(MANIFEST_FILE)?;
    for (name, _) in dir.list("")? {
        let name = name.to_string_lossy().into_owned();
        if name == "baseline"
            || name == crate::files::manifest::AS_BUILT_LABEL
            || name.starts_with("seed-")
            || name == binaries::WORK_DIR
        {
            dir.remove_dir_all(&name)?;
        }
    }
    Ok(())
}
