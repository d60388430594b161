//! `layoutrand build` end to end: record the build, choose each program's mechanism, link
//! the baseline and the seeds, write the manifest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::options::clear_previous_output;
use super::programs::{chosen_links, failed_programs, programs_isolated};
use super::projection::projection_of;
use super::replay::Program;
use super::{achieved, as_built, binaries, isolate, recorded_build, toolchain};
use crate::files::manifest::{
    BinarySet, BuildMode, BuildStatus, Manifest, Relinking, MANIFEST_SCHEMA,
};
use crate::report::words::build::exclusion;
use crate::signals::{self, Interrupted, Kept, Waits};

// The options and the answer of a build, where the command line and the other stages have
// always found them; they live in a module of their own that `rebuild` and `live` share
// without importing this one.
pub use super::options::{check_pad, BuildOptions, BuildOutcome, MAX_PAD, RECORD_DIR};

/// Records the build, relinks baseline and seeds, verifies them, writes the manifest.
pub fn build(opts: &BuildOptions) -> Result<BuildOutcome> {
    let start = Instant::now();
    check_pad(opts)?;
    crate::layout::reorder::check_output_dir(&std::path::absolute(&opts.out_dir)?)?;
    if opts.rebuild {
        return super::rebuild::build(opts);
    }
    let (out_dir, record_dir, recorded) = record_build(opts)?;

    // The relink time counts from here: preparing a program may generate LTO code (the
    // fallback of lto_once), and the summary's time line accounts for every step.
    let relink_start = Instant::now();
    // From the merging and the baseline's link on, not only the seeds' (relink_seeds sets
    // it again for `--extend`; it is idempotent).
    keep_large_buffers();
    let (links, mut notes) = chosen_links(&recorded.links, opts)?;
    let (mut programs, mut failed) = programs_isolated(&links, &record_dir, opts)?;
    // Never degrade silently: stop before any relink if functions could not move.
    for program in &mut programs {
        let achieved = achieved::inspect(program, opts.granularity)?;
        program.nothing_moves(&achieved);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build()?;
    let (built, baseline_failed) =
        pool.install(|| binaries::build_baseline_isolated(&programs, &out_dir));
    let (programs, kept_built) = with_baseline(programs, built, baseline_failed, &mut failed);
    let failed = failed_programs(failed, &programs);
    if programs.is_empty() {
        let reasons: Vec<String> = failed
            .iter()
            .map(|p| format!("{}: {}", p.name, exclusion(p).unwrap_or_default()))
            .collect();
        bail!("no program could be relinked:\n  {}", reasons.join("\n  "));
    }
    let baseline = binaries::baseline_of(&programs, kept_built);
    notes.extend(pin_notes(&programs, &baseline)?);
    // The user's own binaries: each recorded link's output, left in the tree by the build.
    let own: Vec<PathBuf> = programs.iter().map(|p| p.record.output.clone()).collect();
    let as_built = as_built::kept(&programs, &own, &baseline.functions, &out_dir, &mut notes);
    projection_of(&baseline.set, &out_dir, opts.seeds.len(), opts.jobs)
        .check(opts.allow_many_seeds)?;
    let mut manifest = relink_manifest(opts, &programs, &baseline, recorded.seconds, as_built);
    manifest.relink_seconds = relink_start.elapsed().as_secs_f64();
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
    let _ = binaries::remove_below(&out_dir, &out_dir.join(binaries::WORK_DIR));
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
    manifest.programs.extend(failed);
    // The whole build's wall time, the last save included but for its own few milliseconds.
    manifest.total_seconds = Some(start.elapsed().as_secs_f64());
    manifest.save(&out_dir)?;
    finished?;
    Ok(BuildOutcome {
        manifest,
        shim_errors: recorded.shim_errors,
        notes,
    })
}

/// Runs the build command of `opts` under the recording wrappers, in an output directory
/// cleared of an earlier build's files; returns that directory (absolute), the recording's
/// directory and what was recorded.
fn record_build(opts: &BuildOptions) -> Result<(PathBuf, PathBuf, recorded_build::RecordedBuild)> {
    crate::files::confined::ExperimentDir::create(&opts.out_dir)
        .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let out_dir = opts.out_dir.canonicalize()?;
    clear_previous_output(&out_dir)?;
    let record_dir = out_dir.join(RECORD_DIR);
    let recorded = recorded_build::run(
        &opts.command,
        &opts.build_dir,
        &record_dir,
        opts.echo_build,
        &data_sections_env(opts.data_order),
    )?;
    Ok((out_dir, record_dir, recorded))
}

/// The build's environment for `--data-order`: the shim adds `-fdata-sections` to compiles.
fn data_sections_env(data_order: bool) -> Vec<(String, String)> {
    match data_order {
        true => vec![(crate::wrap::ENV_DATA_SECTIONS.to_string(), "1".to_string())],
        false => Vec::new(),
    }
}

/// The programs whose baseline linked, with it; each other one joins `failed` with its
/// baseline's error (a program without a baseline cannot have seeds).
fn with_baseline(
    programs: Vec<Program>,
    built: Vec<Option<binaries::BaselineProgram>>,
    baseline_failed: Vec<(usize, anyhow::Error)>,
    failed: &mut Vec<super::programs::FailedProgram>,
) -> (Vec<Program>, Vec<binaries::BaselineProgram>) {
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
    (kept, kept_built)
}

/// A note per pinned program whose pinned functions differ in size in this build from the
/// layout its pin copies. Fails, before any seed is relinked, when a pinned function is
/// not in its program's baseline or not the only one of its name.
fn pin_notes(
    programs: &[Program],
    baseline: &binaries::Baseline,
) -> Result<Vec<crate::files::manifest::BuildNote>> {
    let mut notes = Vec::new();
    for (program, functions) in programs.iter().zip(&baseline.functions) {
        let Some(pin) = program.pin.as_deref() else {
            continue;
        };
        // The baseline's placement is not the pin's: only the functions' presence counts.
        super::pinned::missing_filler(pin, functions, &[])?;
        let resized = super::pinned::resized(pin, functions);
        if !resized.is_empty() {
            notes.push(crate::files::manifest::BuildNote::PinResized {
                program: program.name.clone(),
                functions: resized,
            });
        }
    }
    Ok(notes)
}

/// The manifest of a relink build holding only its baseline so far (its relink time is the
/// caller's to set).
fn relink_manifest(
    opts: &BuildOptions,
    programs: &[Program],
    baseline: &binaries::Baseline,
    recorded_build_seconds: f64,
    as_built: Option<BinarySet>,
) -> Manifest {
    let linkers: BTreeSet<&str> = programs.iter().map(|p| p.linker.name()).collect();
    let mechanisms: BTreeSet<Relinking> = programs.iter().map(Program::relinking).collect();
    Manifest {
        schema: MANIFEST_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        toolchain: toolchain::versions(programs),
        build_command: opts.command.clone(),
        build_dir: opts.build_dir.clone(),
        mode: BuildMode::Relink,
        granularity: opts.granularity,
        pad: opts.pad.unwrap_or(0),
        data_order: opts.data_order,
        strip_debug: !opts.keep_debug,
        pin: opts.pin.clone(),
        linker: if linkers.len() == 1 {
            linkers.iter().next().expect("one").to_string()
        } else {
            "mixed".to_string()
        },
        mechanisms: mechanisms.into_iter().collect(),
        recorded_mechanism: None,
        recorded_build_seconds,
        relink_seconds: 0.0,
        total_seconds: None,
        baseline: baseline.set.clone(),
        seeds: Vec::new(),
        as_built,
        programs: Vec::new(),
        variants: Vec::new(),
    }
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
    keep_large_buffers();
    // SIGINT/SIGTERM stop the relinks between seeds; the finished ones are kept. (sigaction
    // cannot fail for these two signals; were it to, a signal would end the process as
    // without layoutrand, the manifest saved so far intact.)
    let _signals = signals::catch(Waits::Restart).ok();
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
            &signals::is_caught,
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
            .map(Program::relinking)
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
        let kept = Kept::Seeds {
            built,
            wanted,
            out: out_dir.to_path_buf(),
        };
        match signals::caught() {
            // The status of a signal (128 + N), with the same sentence.
            Some(signal) => return Err(Interrupted { signal, kept }.into()),
            None => bail!("{kept}"),
        }
    }
    let excluded = manifest.excluded_programs();
    let programs_only = manifest.programs.iter().filter(|p| !p.library).count();
    if !manifest.seeds.is_empty() && !excluded.is_empty() && excluded.len() == programs_only {
        let reasons: Vec<String> = manifest
            .programs
            .iter()
            .filter(|p| !p.library)
            .map(|p| format!("{}: {}", p.name, exclusion(p).unwrap_or_default()))
            .collect();
        bail!(
            "no program could be randomised:\n  {}",
            reasons.join("\n  ")
        );
    }
    Ok(())
}

/// Whether every seed built, every recorded program has a baseline (a program whose LTO
/// code generation or baseline link failed is in the manifest's `programs` without one) and
/// no program was left out because its link failed in every seed (left out for having
/// nothing to move, it is no failure).
pub fn all_ok(manifest: &Manifest) -> bool {
    manifest.seeds.iter().all(|v| v.status == BuildStatus::Ok)
        && manifest
            .programs
            .iter()
            .all(|p| manifest.baseline.find(&p.name).is_some() && !p.failed_in_every_seed)
}

/// Keeps this process's large buffers for reuse (glibc's `mallopt`): each seed reads and
/// writes a program's objects and binary anew, and glibc would otherwise give every buffer
/// over 128 KiB back to the kernel on free and fault its pages in again for the next seed
/// (the largest share of layoutrand's own time in a relink, by perf on gawk: most of it
/// was in the kernel, page faults first). The same policy as
/// [`super::link_command`]'s tunables for the linker.
fn keep_large_buffers() {
    // SAFETY: mallopt only sets two of malloc's thresholds; it takes no pointer, is safe to
    // call at any time (malloc locks its state), and a refusal (0) leaves the defaults.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::manifest::LeftOut;

    /// A program left out because its link failed in every seed fails the build (exit 1);
    /// one left out for having nothing to move does not (issue 53: such a build exited 0).
    #[test]
    fn a_program_failing_in_every_seed_is_a_failed_build() {
        let text = include_str!("../../tests/report/fixtures/explained/manifest.json");
        let mut manifest: Manifest = serde_json::from_str(text).unwrap();
        assert!(all_ok(&manifest), "the fixture is a complete build");
        let left_out = |reason| Some(crate::files::manifest::Exclusion::Known(reason));
        manifest.programs[0].excluded = left_out(LeftOut::NothingToMove { built: 2, seeds: 2 });
        assert!(all_ok(&manifest), "nothing to move is no failure");
        manifest.programs[0].excluded = left_out(LeftOut::LinkFailedInEverySeed {
            first_error: Some("boom".into()),
        });
        manifest.programs[0].failed_in_every_seed = true;
        assert!(!all_ok(&manifest));
    }
}
