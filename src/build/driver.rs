//! `layoutrand build` end to end: record the build, choose each program's mechanism, link
//! the baseline and the seeds, write the manifest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::linker::Linker;
use super::projection::Projection;
use super::replay::Program;
use super::{achieved, binaries, interrupt, isolate, recorded_build, toolchain};
use crate::files::manifest::{
    BinarySet, BuildMode, BuildStatus, Granularity, Manifest, ProgramSummary, MANIFEST_FILE,
    MANIFEST_SCHEMA,
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
    /// How to show the relinks' progress.
    pub progress: crate::progress::ProgressDisplay,
    /// One full build per binary in a copy of the tree (`--rebuild`) instead of relinks.
    pub rebuild: bool,
    /// More than [`super::projection::MANY_SEEDS`] seeds are wanted (`--allow-many-seeds`).
    pub allow_many_seeds: bool,
    /// `--pad MAX`: the most filler bytes a seed puts in front of each function (`None`:
    /// not given, i.e. 0, or for `--extend` the recorded setting).
    pub pad: Option<u64>,
    /// `--programs`: relink only these recorded programs (by name); `None`: every program
    /// except the build's own tools ([`is_build_tool`]).
    pub programs: Option<Vec<String>>,
}

/// The most `--pad` accepts: a page. Each function's padding adds to that of the functions
/// before it, so a page already lets every function's page offset vary.
pub const MAX_PAD: u64 = 4096;

/// Checks `--pad` against the other options: at most [`MAX_PAD`], and only where seeds put
/// each function in a section of its own table entry (`module`, `global`; not `link`, which
/// moves whole modules and accepts modules whose functions share one section, nor
/// `--rebuild`, whose live relinks do not pad).
pub fn check_pad(opts: &BuildOptions) -> Result<()> {
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
    pub notes: Vec<String>,
}

/// Records the build, relinks baseline and seeds, verifies them, writes the manifest.
pub fn build(opts: &BuildOptions) -> Result<BuildOutcome> {
    check_pad(opts)?;
    crate::layout::reorder::check_output_dir(&std::path::absolute(&opts.out_dir)?)?;
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

    // The relink time counts from here: preparing a program may generate LTO code (the
    // fallback of lto_once), and the summary's time line accounts for every step.
    let relink_start = Instant::now();
    let (links, mut notes) = chosen_links(&recorded.links, opts)?;
    let (programs, mut failed) = programs_isolated(&links, &record_dir, opts)?;
    // Never degrade silently: stop before any relink if functions could not move.
    for program in &programs {
        achieved::inspect(program, opts.granularity)?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build()?;
    let (built, baseline_failed) =
        pool.install(|| binaries::build_baseline_isolated(&programs, &out_dir));
    let mut baseline_errors: BTreeMap<usize, anyhow::Error> = baseline_failed.into_iter().collect();
    let mut kept = Vec::new();
    let mut kept_built = Vec::new();
    for (p, (program, b)) in programs.into_iter().zip(built).enumerate() {
        match b {
            Some(b) => {
                kept.push(program);
                kept_built.push(b);
            }
            None => {
                let err = baseline_errors
                    .remove(&p)
                    .unwrap_or_else(|| anyhow::anyhow!("its baseline did not link"));
                failed.push((program.name.clone(), err));
            }
        }
    }
    let programs = kept;
    let failed = failed_programs(failed);
    if programs.is_empty() {
        let reasons: Vec<String> = failed
            .iter()
            .map(|p| format!("{}: {}", p.name, p.excluded.as_deref().unwrap_or("")))
            .collect();
        bail!("no program could be relinked:\n  {}", reasons.join("\n  "));
    }
    notes.extend(
        programs
            .iter()
            .zip(&kept_built)
            .filter_map(|(program, (_, functions))| {
                let what = if program.is_library() {
                    "library"
                } else {
                    "program"
                };
                super::as_built::note(&program.record.output, functions)
                    .map(|n| format!("baseline vs as built: {what} {}: {n}", program.name))
            }),
    );
    let baseline = binaries::baseline_of(&programs, kept_built);
    projection_of(&baseline.set, &out_dir, opts.seeds.len(), opts.jobs)
        .check(opts.allow_many_seeds)?;

    let linkers: BTreeSet<&str> = programs.iter().map(|p| p.linker.name()).collect();
    let mechanisms: BTreeSet<String> = programs
        .iter()
        .map(|p| p.mechanism.describe(p.linker))
        .collect();
    let mut manifest = Manifest {
        schema: MANIFEST_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        toolchain: toolchain::versions(&programs),
        build_command: opts.command.clone(),
        build_dir: opts.build_dir.clone(),
        mode: BuildMode::Relink,
        granularity: opts.granularity,
        pad: opts.pad.unwrap_or(0),
        linker: if linkers.len() == 1 {
            linkers.iter().next().expect("one").to_string()
        } else {
            "mixed".to_string()
        },
        mechanism: mechanisms.into_iter().collect::<Vec<_>>().join("; "),
        recorded_build_seconds: recorded.seconds,
        relink_seconds: relink_start.elapsed().as_secs_f64(),
        baseline: baseline.set.clone(),
        seeds: Vec::new(),
        programs: Vec::new(),
        variants: Vec::new(),
    };
    // The baseline alone first: an interrupted build keeps what it finished.
    manifest.save(&out_dir)?;
    let seeds = relink_seeds(
        &pool,
        &programs,
        &baseline,
        &opts.seeds,
        &out_dir,
        opts.progress,
        &manifest,
    );
    manifest.relink_seconds = relink_start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(out_dir.join(binaries::WORK_DIR));
    let finished = finish(
        &mut manifest,
        &programs,
        seeds,
        &[],
        &out_dir,
        opts.seeds.len(),
    );
    // Programs that could not be relinked at all are named in the manifest whatever else
    // happened, so that `all_ok` (the exit status) and the summary say so.
    if !failed.is_empty() {
        manifest.programs.extend(failed);
        manifest.save(&out_dir)?;
    }
    finished?;
    Ok(BuildOutcome {
        manifest,
        shim_errors: recorded.shim_errors,
        notes,
    })
}

/// The cost of `seeds` more binaries like `baseline` (its links' seconds and binaries' bytes).
pub(crate) fn projection_of(
    baseline: &BinarySet,
    out_dir: &Path,
    seeds: usize,
    jobs: usize,
) -> Projection {
    let seconds: f64 = baseline.binaries.iter().map(|b| b.link_seconds).sum();
    let bytes: u64 = baseline
        .binaries
        .iter()
        .filter_map(|b| std::fs::metadata(out_dir.join(&b.path)).ok())
        .map(|m| m.len())
        .sum();
    Projection::new(seeds, seconds, bytes, jobs)
}

/// Relinks `seeds` in `pool` with a progress bar, saving `manifest` with the seeds finished so
/// far (at most twice a second: each save rewrites the whole file) until all are done or
/// SIGINT/SIGTERM arrives. Returns the seeds built (provisional, see [`isolate::finalize`]).
pub(crate) fn relink_seeds(
    pool: &rayon::ThreadPool,
    programs: &[Program],
    baseline: &binaries::Baseline,
    seeds: &[u64],
    out_dir: &Path,
    progress: crate::progress::ProgressDisplay,
    manifest: &Manifest,
) -> Vec<BinarySet> {
    let _signals = interrupt::catch();
    let bar = crate::progress::Progress::new(
        progress,
        "links",
        (programs.len() * seeds.len()) as u64,
        0,
        "relinking {bar:40} {pos}/{len} links ({elapsed}, eta {eta})",
    );
    let so_far = Mutex::new((manifest.clone(), Instant::now()));
    let tick = || bar.inc();
    let done = |v: &BinarySet| {
        let Ok(mut guard) = so_far.lock() else { return };
        let (m, last) = &mut *guard;
        m.seeds.push(v.clone());
        if last.elapsed().as_secs_f64() >= 0.5 {
            m.seeds.sort_by_key(|v| v.seed);
            let _ = m.save(out_dir);
            *last = Instant::now();
        }
    };
    let built = pool.install(|| {
        binaries::build_seeds(
            programs,
            baseline,
            seeds,
            out_dir,
            &tick,
            &done,
            &interrupt::interrupted,
        )
    });
    bar.finish();
    built
}

/// Adds the finished `seeds` to `manifest` (after `earlier` ones, for `--extend`), leaves out
/// the programs that cannot be randomised, and saves it. An error when every program was
/// left out, or when the relinks were interrupted before `wanted` seeds (the manifest keeps
/// the finished ones either way).
pub(crate) fn finish(
    manifest: &mut Manifest,
    programs: &[Program],
    seeds: Vec<BinarySet>,
    earlier: &[BinarySet],
    out_dir: &Path,
    wanted: usize,
) -> Result<()> {
    let built = seeds.len();
    let mut all: Vec<BinarySet> = earlier.to_vec();
    all.extend(seeds);
    let mechanism = |name: &str| {
        programs
            .iter()
            .find(|p| p.name == name)
            .map_or_else(String::new, |p| p.mechanism.describe(p.linker))
    };
    let finalized = isolate::finalize(
        &manifest.baseline,
        all,
        &mechanism,
        &manifest.programs.clone(),
        out_dir,
    );
    manifest.seeds = finalized.seeds;
    manifest.programs = finalized.programs;
    for summary in &mut manifest.programs {
        if let Some(program) = programs.iter().find(|p| p.name == summary.name) {
            summary.achieved = achieved::inspect(program, manifest.granularity).ok();
        }
    }
    manifest.save(out_dir)?;
    if built < wanted {
        let message = format!(
            "interrupted after {built} of {wanted} seeds; {} keeps the finished ones: continue \
             with `layoutrand build --extend --seeds {wanted} --out {}`",
            out_dir.join(MANIFEST_FILE).display(),
            out_dir.display()
        );
        match interrupt::signal() {
            // The status of a signal (128 + N), with the same sentence.
            Some(signal) => {
                return Err(interrupt::BuildInterrupted { signal, message }.into());
            }
            None => bail!("{message}"),
        }
    }
    let excluded = manifest.excluded_programs();
    let programs_only = manifest.programs.iter().filter(|p| !p.library).count();
    if !manifest.seeds.is_empty() && !excluded.is_empty() && excluded.len() == programs_only {
        let reasons: Vec<String> = manifest
            .programs
            .iter()
            .filter(|p| !p.library)
            .map(|p| format!("{}: {}", p.name, p.excluded.as_deref().unwrap_or("")))
            .collect();
        bail!(
            "no program could be randomised:\n  {}",
            reasons.join("\n  ")
        );
    }
    Ok(())
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
    let manifest = out_dir.join(MANIFEST_FILE);
    if manifest.exists() {
        std::fs::remove_file(&manifest)?;
    }
    for entry in std::fs::read_dir(out_dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "baseline" || name.starts_with("seed-") || name == binaries::WORK_DIR {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(())
}

/// Whether a program is a tool the build runs itself rather than one of its products: a
/// cargo build script (`build_script_build-<hash>`, hard-linked as `build-script-build`).
pub fn is_build_tool(name: &str) -> bool {
    name.starts_with("build_script_build") || name.starts_with("build-script-build")
}

/// The recorded links to relink: those `--programs` names (an unknown name is an error
/// listing the recorded ones), or every one but the build's own tools; with notes naming
/// what was left out.
fn chosen_links(
    links: &[LinkRecord],
    opts: &BuildOptions,
) -> Result<(Vec<LinkRecord>, Vec<String>)> {
    let names: Vec<String> = links.iter().map(|l| program_name(&l.output)).collect();
    let mut notes = Vec::new();
    let chosen: Vec<LinkRecord> = match &opts.programs {
        Some(wanted) => {
            for w in wanted {
                if !names.contains(w) {
                    bail!(
                        "--programs: no recorded program is named {w:?} (the build linked: {})",
                        names.join(", ")
                    );
                }
            }
            links
                .iter()
                .zip(&names)
                .filter(|(_, n)| wanted.contains(n))
                .map(|(l, _)| l.clone())
                .collect()
        }
        None => {
            let mut kept = Vec::new();
            for (l, n) in links.iter().zip(&names) {
                if is_build_tool(n) {
                    notes.push(format!(
                        "note: {n} is a tool the build runs (a cargo build script), not one of \
                         its programs: not relinked (name it in --programs to relink it)"
                    ));
                } else {
                    kept.push(l.clone());
                }
            }
            kept
        }
    };
    Ok((chosen, notes))
}

/// One [`Program`] per recorded link, with unique names and a mechanism each. Any program
/// that cannot be prepared is fatal.
pub(crate) fn programs(
    links: &[LinkRecord],
    record_dir: &Path,
    opts: &BuildOptions,
) -> Result<Vec<Program>> {
    let (programs, failed) = programs_isolated(links, record_dir, opts)?;
    if let Some((_, err)) = failed.into_iter().next() {
        return Err(err);
    }
    Ok(programs)
}

/// A program that could not be relinked: its name and the error.
pub(crate) type FailedProgram = (String, anyhow::Error);

/// One [`Program`] per recorded link that could be prepared, sorted by name, and per link
/// that could not (its LTO code generation failed), its name and error.
pub(crate) fn programs_isolated(
    links: &[LinkRecord],
    record_dir: &Path,
    opts: &BuildOptions,
) -> Result<(Vec<Program>, Vec<FailedProgram>)> {
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    for link in links {
        *by_name.entry(program_name(&link.output)).or_insert(0) += 1;
    }
    let mut programs = Vec::new();
    let mut failed = Vec::new();
    for link in links {
        let mut name = program_name(&link.output);
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
        match Program::new(name.clone(), link, linker, opts.granularity, record_dir) {
            Ok(mut program) => {
                program.pad = opts.pad.unwrap_or(0);
                programs.push(program);
            }
            Err(err) => failed.push((name, err)),
        }
    }
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    if programs.windows(2).any(|w| w[0].name == w[1].name) {
        bail!("two recorded links produce programs of the same name");
    }
    failed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((programs, failed))
}

/// The program's name for a link output: its file name, without the hash cargo appends to
/// the outputs it writes under a `deps/` directory (`target/release/deps/rustdemo-a0c100fb32566e19`
/// is `rustdemo`, the name of the copy cargo then makes as `target/release/rustdemo`).
pub(crate) fn program_name(output: &Path) -> String {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "a.out".to_string());
    let in_deps = output
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "deps");
    match name.rsplit_once('-') {
        Some((stem, hash))
            if in_deps
                && !stem.is_empty()
                && hash.len() == 16
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) =>
        {
            stem.to_string()
        }
        _ => name,
    }
}

/// Whether every seed built and every recorded program has a baseline (a program whose LTO
/// code generation or baseline link failed is in the manifest's `programs` without one).
pub fn all_ok(manifest: &Manifest) -> bool {
    manifest.seeds.iter().all(|v| v.status == BuildStatus::Ok)
        && manifest
            .programs
            .iter()
            .all(|p| manifest.baseline.find(&p.name).is_some())
}

/// The manifest entries of programs that could not be relinked (`(name, error)`): left out,
/// with the compiler's or linker's message as the reason.
fn failed_programs(failed: Vec<FailedProgram>) -> Vec<ProgramSummary> {
    failed
        .into_iter()
        .map(|(name, err)| ProgramSummary {
            name,
            library: false,
            excluded: Some(format!("it could not be relinked: {err:#}")),
            distinct_layouts: 0,
            coinciding: Vec::new(),
            achieved: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::program_name;
    use std::path::Path;

    #[test]
    fn cargo_hashes_are_stripped_under_deps_only() {
        let name = |p: &str| program_name(Path::new(p));
        assert_eq!(
            name("/w/target/release/deps/rustdemo-a0c100fb32566e19"),
            "rustdemo"
        );
        assert_eq!(
            name("target/debug/deps/my-tool-0123456789abcdef"),
            "my-tool"
        );
        // Not cargo's pattern: kept as written.
        assert_eq!(name("/w/target/release/rustdemo"), "rustdemo");
        assert_eq!(
            name("/w/build/prog-a0c100fb32566e19"),
            "prog-a0c100fb32566e19"
        );
        assert_eq!(name("/w/deps/prog-a0c100fb3256"), "prog-a0c100fb3256");
        assert_eq!(
            name("/w/deps/prog-A0C100FB32566E19"),
            "prog-A0C100FB32566E19"
        );
        assert_eq!(name("/w/deps/-a0c100fb32566e19"), "-a0c100fb32566e19");
        assert_eq!(name("/w/src/demo"), "demo");
    }
}
