//! `layoutrand build --extend`: add seeds to an existing build from its recording, without
//! running the build command again and without touching the baseline or the seeds already
//! built (whose measurements may already be in the store). This is how an experiment grows
//! its top level on-line (Kalibera & Jones §9.3: more top-level repetitions can always be
//! added). A seed relinked later is byte-identical to the same seed built at once.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::binaries::{self, Baseline};
use super::driver::{finish, relink_seeds};
use super::options::{BuildOptions, BuildOutcome, RECORD_DIR};
use super::programs::programs_isolated;
use super::replay::Program;
use crate::files::manifest::{
    BuildMode, BuildNote, BuildStatus, Granularity, Manifest, MANIFEST_FILE,
};
use crate::layout::binary;
use crate::wrap::record;

/// Relinks the seeds of `opts.seeds` that `opts.out_dir`'s manifest does not have yet and
/// appends them to the manifest. An empty `opts.command` means the recorded one;
/// `asked_granularity` is the granularity the user named, if any (`None`: the recorded one;
/// `opts.granularity` is then ignored).
pub fn extend(opts: &BuildOptions, asked_granularity: Option<Granularity>) -> Result<BuildOutcome> {
    let out_dir = opts
        .out_dir
        .canonicalize()
        .with_context(|| format!("--extend: cannot find {}", opts.out_dir.display()))?;
    // The relinks write seed-N/, .work/ and .record/merged/: none may be a planted link.
    crate::files::confined::refuse_links_in(&out_dir, &["", RECORD_DIR])?;
    // Its build settings choose how the new seeds are relinked: read only as verified.
    let mut manifest = Manifest::load_verified(&out_dir)?.into_inner();
    let manifest_path = out_dir.join(MANIFEST_FILE);
    check_extensible(&manifest, &manifest_path, opts, asked_granularity)?;
    let new_seeds = seeds_to_relink(&mut manifest, &opts.seeds);
    let opts = &BuildOptions {
        pad: Some(manifest.pad),
        data_order: manifest.data_order,
        keep_debug: !manifest.strip_debug,
        pin: manifest.pin.clone(),
        granularity: manifest.granularity,
        command: manifest.build_command.clone(),
        ..opts.clone()
    };
    let programs = programs_to_extend(&manifest, opts, &out_dir)?;
    check_same_linker(&manifest, &manifest_path, opts)?;

    let baseline = baseline_as_built(&manifest, &manifest_path, &programs, &out_dir)?;

    let mut notes: Vec<BuildNote> = retried_note(&manifest, &new_seeds).into_iter().collect();
    if !new_seeds.is_empty() {
        // Out of the manifest before the relinks, whose saves add them back as they finish
        // (a seed listed twice is refused by every reader).
        manifest
            .seeds
            .retain(|v| v.seed.is_none_or(|s| !new_seeds.contains(&s)));
        super::projection::projection_of(&manifest.baseline, &out_dir, new_seeds.len(), opts.jobs)
            .check(opts.allow_many_seeds)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.jobs.max(1))
            .build()?;
        let start = Instant::now();
        let added = relink_seeds(
            &pool,
            &programs,
            &baseline,
            &new_seeds,
            &out_dir,
            opts.progress,
            &manifest,
        );
        let _ = binaries::remove_below(&out_dir, &out_dir.join(binaries::WORK_DIR));
        let seconds = start.elapsed().as_secs_f64();
        manifest.relink_seconds += seconds;
        // The first build's whole time no longer describes this manifest.
        manifest.total_seconds = None;
        let earlier = std::mem::take(&mut manifest.seeds);
        finish(
            &mut manifest,
            &programs,
            added,
            &earlier,
            &out_dir,
            new_seeds.len(),
        )?;
        // The summary counts every seed of the manifest and every relink it took; say what
        // this run did (issue 55: "relinked 16 seeds" after adding 6 read as 16 relinks).
        notes.push(BuildNote::Extended {
            new_seeds: new_seeds.len(),
            seconds,
            seeds: manifest.seeds.len(),
        });
    }
    Ok(BuildOutcome {
        manifest,
        shim_errors: Vec::new(),
        notes,
    })
}

/// Refuses `--linker` naming another linker than the one the manifest's seeds were linked
/// with: the new seeds would differ from the others in more than their layout.
fn check_same_linker(manifest: &Manifest, manifest_path: &Path, opts: &BuildOptions) -> Result<()> {
    match opts.linker {
        Some(linker) if manifest.linker != linker.name() => bail!(
            "--extend: {} was linked with {}, not {}",
            manifest_path.display(),
            manifest.linker,
            linker.name()
        ),
        _ => Ok(()),
    }
}

/// The note naming the seeds of `new_seeds` that the manifest already holds (failed, or
/// lacking a program taken back), if any.
fn retried_note(manifest: &Manifest, new_seeds: &[u64]) -> Option<BuildNote> {
    let seeds: Vec<u64> = (new_seeds.iter().copied())
        .filter(|s| manifest.seeds.iter().any(|v| v.seed == Some(*s)))
        .collect();
    (!seeds.is_empty()).then_some(BuildNote::Retried { seeds })
}

/// The seeds of `wanted` to relink, in `wanted`'s order, then any other seed to relink
/// whole: those the manifest lacks, those it holds as failed, and every seed lacking a
/// program that was left out because its link failed in every seed (no layout of it was
/// ever seen: a full disk fails every link alike). Such a program is taken back in
/// `manifest` (its reason cleared) so that the relinks include it; left out for another
/// reason (nothing to move), it stays out.
fn seeds_to_relink(manifest: &mut Manifest, wanted: &[u64]) -> Vec<u64> {
    let mut retaken = Vec::new();
    for p in &mut manifest.programs {
        if p.excluded.is_some() && !p.library && p.distinct_layouts == 0 {
            p.excluded = None;
            p.failed_in_every_seed = false;
            retaken.push(p.name.clone());
        }
    }
    let ok: BTreeSet<u64> = manifest
        .seeds
        .iter()
        .filter(|v| v.status == BuildStatus::Ok)
        .filter_map(|v| v.seed)
        .collect();
    let mut seeds: Vec<u64> = wanted.iter().copied().filter(|s| !ok.contains(s)).collect();
    let lacking = manifest.seeds.iter().filter(|v| {
        v.status == BuildStatus::Ok && retaken.iter().any(|name| v.find(name).is_none())
    });
    for seed in lacking.filter_map(|v| v.seed) {
        if !seeds.contains(&seed) {
            seeds.push(seed);
        }
    }
    seeds
}

/// Refuses to extend a build `opts` would make differently: a rebuild-mode one, or one of
/// another build command, granularity or padding (two experiments mixed in one manifest).
fn check_extensible(
    manifest: &Manifest,
    manifest_path: &Path,
    opts: &BuildOptions,
    asked_granularity: Option<Granularity>,
) -> Result<()> {
    if manifest.mode != BuildMode::Relink {
        bail!(
            "--extend: {} was built in rebuild mode; only relink builds can be extended",
            manifest_path.display()
        );
    }
    if !opts.command.is_empty() && manifest.build_command != opts.command {
        bail!(
            "--extend: {} was built with `{}`, not `{}`",
            manifest_path.display(),
            crate::child::display_args(&manifest.build_command),
            crate::child::display_args(&opts.command)
        );
    }
    if let Some(asked) = asked_granularity.filter(|&g| g != manifest.granularity) {
        bail!(
            "--extend: {} was built with granularity {}; extending it with {} would mix two \
             experiments (leave out --granularity to keep the recorded one)",
            manifest_path.display(),
            manifest.granularity.name(),
            asked.name(),
        );
    }
    if let Some(pad) = opts.pad.filter(|&p| p != manifest.pad) {
        bail!(
            "--extend: {} was built with --pad {}; extending it with --pad {pad} would mix two \
             experiments (leave out --pad to keep the recorded setting)",
            manifest_path.display(),
            manifest.pad
        );
    }
    if opts.pin.is_some() && opts.pin != manifest.pin {
        bail!(
            "--extend: {} was built {}; extending it with this --pin would mix two experiments \
             (leave out --pin to keep the recorded one)",
            manifest_path.display(),
            if manifest.pin.is_some() {
                "with another pin"
            } else {
                "without --pin"
            }
        );
    }
    if opts.data_order && !manifest.data_order {
        bail!(
            "--extend: {} was built without --data-order; extending it with --data-order would \
             mix two experiments (its objects were compiled without data sections: build again \
             with --data-order into another --out)",
            manifest_path.display()
        );
    }
    if opts.keep_debug && manifest.strip_debug {
        bail!(
            "--extend: {} was relinked without debug information; its new seeds are too, so \
             that every seed is linked alike (leave out --keep-debug, or build again with it \
             into another --out)",
            manifest_path.display()
        );
    }
    Ok(())
}

/// The baseline the new seeds are compared with: the binaries as built, not relinked ones.
fn baseline_as_built(
    manifest: &Manifest,
    manifest_path: &Path,
    programs: &[Program],
    out_dir: &Path,
) -> Result<Baseline> {
    let mut functions = Vec::with_capacity(programs.len());
    for program in programs {
        let built = manifest.baseline.find(&program.name).with_context(|| {
            format!(
                "--extend: the baseline in {} has no program {}",
                manifest_path.display(),
                program.name
            )
        })?;
        functions.push(binary::functions(&out_dir.join(&built.path))?);
    }
    Ok(Baseline {
        set: manifest.baseline.clone(),
        functions,
    })
}

/// The programs of the recording in `out_dir` that get new seeds: those in the baseline and
/// not left out of the seeds (a failure to prepare one of them is the error).
fn programs_to_extend(
    manifest: &Manifest,
    opts: &BuildOptions,
    out_dir: &Path,
) -> Result<Vec<Program>> {
    let record_dir = out_dir.join(RECORD_DIR);
    // Relinked only as verified: every record's MAC and every blob's hash.
    let links = record::read_verified_recording(&record_dir).with_context(|| {
        format!(
            "--extend: cannot read the recording in {}",
            record_dir.display()
        )
    })?;
    if links.is_empty() {
        bail!("--extend: {} holds no recorded link", record_dir.display());
    }
    // Programs left out of the seeds stay out: their seeds would equal the baseline again.
    // So do those without a baseline (build tools, `--programs`, a failed relink).
    let excluded = manifest.excluded_programs();
    let in_baseline = |name: &str| manifest.baseline.find(name).is_some();
    let (programs, failed) = programs_isolated(&links, &record_dir, opts)?;
    if let Some((_, err)) = failed.into_iter().find(|(name, _)| in_baseline(name)) {
        return Err(err);
    }
    Ok(programs
        .into_iter()
        .filter(|p| in_baseline(&p.name) && !excluded.contains(&p.name.as_str()))
        .collect())
}
