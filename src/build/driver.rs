//! `layoutrand build` end to end: record the build, choose each program's mechanism, link
//! the baseline and the seeds, write the manifest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::linker::{Linker, Mechanism};
use super::replay::Program;
use super::{recorded_build, toolchain, variants};
use crate::files::manifest::{
    BuildMode, Granularity, Manifest, VariantStatus, MANIFEST_FILE, MANIFEST_SCHEMA,
};
use crate::wrap::record::LinkRecord;

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
    /// Show a progress bar for the relinks.
    pub progress: bool,
    /// One full build per variant in a copy of the tree (`--rebuild`) instead of relinks.
    pub rebuild: bool,
}

/// The result: the manifest (also saved) and any shim errors worth a warning.
#[derive(Debug)]
pub struct BuildOutcome {
    /// The manifest as written.
    pub manifest: Manifest,
    /// Internal errors of the shim during the recorded build.
    pub shim_errors: Vec<String>,
}

/// Records the build, relinks baseline and seeds, verifies them, writes the manifest.
pub fn build(opts: &BuildOptions) -> Result<BuildOutcome> {
    if opts.rebuild {
        return super::rebuild::build(opts);
    }
    std::fs::create_dir_all(&opts.out_dir)
        .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let out_dir = opts.out_dir.canonicalize()?;
    clear_previous_output(&out_dir)?;
    let record_dir = out_dir.join(RECORD_DIR);
    let recorded = recorded_build::run(
        &opts.command,
        &opts.build_dir,
        &record_dir,
        opts.echo_build,
        &[],
    )?;

    let programs = programs(&recorded.links, &record_dir, opts)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build()?;
    let relink_start = Instant::now();
    let bar = progress_bar(opts.progress, (programs.len() * opts.seeds.len()) as u64);
    let (baseline, seeds) = pool.install(|| -> Result<_> {
        let baseline = variants::build_baseline(&programs, &out_dir)?;
        let tick = || bar.inc(1);
        let seeds = variants::build_seeds(&programs, &baseline, &opts.seeds, &out_dir, &tick);
        Ok((baseline, seeds))
    })?;
    bar.finish_and_clear();
    let relink_seconds = relink_start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(out_dir.join(variants::WORK_DIR));

    let linkers: BTreeSet<&str> = programs.iter().map(|p| p.linker.name()).collect();
    let mechanisms: BTreeSet<String> = programs
        .iter()
        .map(|p| p.mechanism.describe(p.linker))
        .collect();
    let manifest = Manifest {
        schema: MANIFEST_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        toolchain: toolchain::versions(&programs),
        build_command: opts.command.clone(),
        build_dir: opts.build_dir.clone(),
        mode: BuildMode::Relink,
        granularity: opts.granularity,
        linker: if linkers.len() == 1 {
            linkers.iter().next().expect("one").to_string()
        } else {
            "mixed".to_string()
        },
        mechanism: mechanisms.into_iter().collect::<Vec<_>>().join("; "),
        recorded_build_seconds: recorded.seconds,
        relink_seconds,
        baseline: baseline.variant,
        seeds,
    };
    manifest.save(&out_dir)?;
    Ok(BuildOutcome {
        manifest,
        shim_errors: recorded.shim_errors,
    })
}

/// Removes what an earlier run left in the output directory (its manifest first, so that a
/// failure now never leaves an old manifest describing new files).
/// Refuses when the directory holds measurements (`results.jsonl`) of the binaries it would
/// replace: those must never be silently paired with other files.
pub(crate) fn clear_previous_output(out_dir: &Path) -> Result<()> {
    let results = out_dir.join(crate::files::results::RESULTS_FILE);
    if results.exists() {
        bail!(
            "{} holds measurements of the binaries a new build would replace: use another --out, \
             add seeds with --extend, or remove the measurements first",
            results.display()
        );
    }
    let manifest = out_dir.join(MANIFEST_FILE);
    if manifest.exists() {
        std::fs::remove_file(&manifest)?;
    }
    for entry in std::fs::read_dir(out_dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "baseline" || name.starts_with("seed-") || name == variants::WORK_DIR {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(())
}

/// One [`Program`] per recorded link, with unique names and a mechanism each.
pub(crate) fn programs(
    links: &[LinkRecord],
    record_dir: &Path,
    opts: &BuildOptions,
) -> Result<Vec<Program>> {
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    for link in links {
        *by_name.entry(file_name(&link.output)).or_insert(0) += 1;
    }
    let mut programs = Vec::new();
    for link in links {
        let mut name = file_name(&link.output);
        if by_name[&name] > 1 {
            // Same file name in several directories: qualify by the path below the build.
            let rel = link
                .output
                .strip_prefix(&opts.build_dir)
                .unwrap_or(&link.output);
            name = rel
                .display()
                .to_string()
                .trim_start_matches('/')
                .replace('/', "_");
        }
        let linker = opts.linker.unwrap_or_else(|| Linker::of_record(link));
        let clang = link
            .real_tool
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains("clang"));
        let mechanism = Mechanism::choose(opts.granularity, linker, link.lto, !clang)
            .with_context(|| format!("program {name}"))?;
        programs.push(Program {
            name,
            record: link.clone(),
            linker,
            mechanism,
            record_dir: record_dir.to_path_buf(),
        });
    }
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    if programs.windows(2).any(|w| w[0].name == w[1].name) {
        bail!("two recorded links produce programs of the same name");
    }
    Ok(programs)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "a.out".to_string())
}

pub(super) fn progress_bar(show: bool, len: u64) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "relinking {bar:40} {pos}/{len} links ({elapsed}, eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Whether every seed built.
pub fn all_ok(manifest: &Manifest) -> bool {
    manifest.seeds.iter().all(|v| v.status == VariantStatus::Ok)
}
