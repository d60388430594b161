//! `layoutrand build --rebuild`: one full build per binary (baseline and each seed), each in
//! its own copy of the source tree, with every final link randomised as it happens
//! ([`super::live`]). Slower than relinking, but the build's own later steps (tests, packaging)
//! see the randomised programs, and nothing has to be replayed after the build. The
//! baseline's build also keeps what its links wrote before their live relinks, the binaries
//! the user's build made, as the `as-built` layout (as a relink build keeps its recorded
//! links' outputs, [`super::as_built`]).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::live::{own_output_copy, LiveSettings, LIVE_FAILURES_LOG};
use super::options::{clear_previous_output, BuildOptions, BuildOutcome};
use super::programs::programs;
use super::{as_built, binaries, recorded_build, toolchain};
use crate::files::manifest::{
    binary_label, BinarySet, BuildMode, BuildStatus, Manifest, MANIFEST_SCHEMA,
};
use crate::layout::binary::{self, Function};

/// Runs the baseline build and one build per seed, verifies, writes the manifest.
pub(crate) fn build(opts: &BuildOptions) -> Result<BuildOutcome> {
    crate::files::confined::ExperimentDir::create(&opts.out_dir)
        .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let out_dir = opts.out_dir.canonicalize()?;
    let build_dir = opts.build_dir.canonicalize()?;
    clear_previous_output(&out_dir)?;
    let work = out_dir.join(binaries::WORK_DIR).join("rebuild");

    let start = Instant::now();
    let baseline = build_binary_set(opts, &build_dir, &out_dir, &work, None, None)
        .context("the baseline build")?;
    let baseline_seconds = start.elapsed().as_secs_f64();
    let Built {
        set: baseline_set,
        functions: baseline_functions,
        programs: baseline_programs,
        shim_errors,
        as_built,
        notes,
    } = baseline;
    let bytes = super::projection::projection_of(&baseline_set, &out_dir, 1, 1).bytes;
    super::projection::Projection::new(opts.seeds.len(), baseline_seconds, bytes, 1)
        .check(opts.allow_many_seeds)?;
    let mut seeds = Vec::new();
    for &seed in &opts.seeds {
        let baseline = (&baseline_set, baseline_functions.as_slice());
        seeds.push(build_seed(
            opts,
            (&build_dir, &out_dir, &work),
            seed,
            baseline,
        ));
    }
    let total = start.elapsed().as_secs_f64();
    let mechanism = |name: &str| {
        baseline_programs
            .iter()
            .find(|p| p.name == name)
            .map(super::replay::Program::relinking)
    };
    // A seed equal to the baseline is no error by itself: a program whose every seed is
    // equal is left out (see isolate).
    let finalized = super::isolate::finalize(&baseline_set, seeds, &mechanism, &[], &out_dir);
    let _ = binaries::remove_below(&out_dir, &out_dir.join(binaries::WORK_DIR));

    let manifest = Manifest {
        schema: MANIFEST_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        toolchain: toolchain::versions(&baseline_programs),
        build_command: opts.command.clone(),
        build_dir: opts.build_dir.clone(),
        mode: BuildMode::Rebuild,
        granularity: opts.granularity,
        pad: 0,
        data_order: false,
        strip_debug: false,
        pin: None,
        linker: linker_of(&baseline_programs),
        mechanisms: mechanisms_of(&baseline_programs),
        recorded_mechanism: None,
        recorded_build_seconds: baseline_seconds,
        relink_seconds: total - baseline_seconds,
        total_seconds: None,
        baseline: baseline_set,
        seeds: finalized.seeds,
        as_built,
        programs: finalized.programs,
        variants: Vec::new(),
    };
    manifest.save(&out_dir)?;
    Ok(BuildOutcome {
        manifest,
        shim_errors,
        notes,
    })
}

/// Builds seed `seed` (in the directories `dirs`: build, output, work) and verifies it
/// against `baseline` (its set and functions); a seed that fails is a failed set, its files
/// removed.
fn build_seed(
    opts: &BuildOptions,
    dirs: (&Path, &Path, &Path),
    seed: u64,
    baseline: (&BinarySet, &[Vec<Function>]),
) -> BinarySet {
    let (build_dir, out_dir, work) = dirs;
    let label = binary_label(Some(seed));
    let result = build_binary_set(opts, build_dir, out_dir, work, Some(seed), Some(baseline));
    match result {
        Ok(built) => built.set,
        Err(err) => {
            let _ = binaries::remove_below(out_dir, &out_dir.join(&label));
            BinarySet {
                seed: Some(seed),
                kind: None,
                status: BuildStatus::Failed,
                error: Some(format!("{err:#}")),
                binaries: Vec::new(),
                libraries: Vec::new(),
            }
        }
    }
}

/// The manifest's linker: the programs' one, or `mixed`.
fn linker_of(programs: &[super::replay::Program]) -> String {
    let mut names: Vec<&str> = programs.iter().map(|p| p.linker.name()).collect();
    names.dedup();
    if names.len() == 1 {
        names[0].to_string()
    } else {
        "mixed".to_string()
    }
}

/// The manifest's mechanisms: each distinct one of the programs (the words say the rebuild's
/// first).
fn mechanisms_of(programs: &[super::replay::Program]) -> Vec<crate::files::manifest::Relinking> {
    let distinct: std::collections::BTreeSet<_> = programs
        .iter()
        .map(super::replay::Program::relinking)
        .collect();
    distinct.into_iter().collect()
}

struct Built {
    set: BinarySet,
    /// One function list per binary, in the order of `set.all()` (programs, then libraries).
    functions: Vec<Vec<Function>>,
    programs: Vec<super::replay::Program>,
    shim_errors: Vec<String>,
    /// The baseline's build only: its links' own outputs kept as the `as-built` layout
    /// (`None` when they could not be; a seed's build keeps none).
    as_built: Option<BinarySet>,
    /// What to say of the as-built layout (how the baseline differs from it, or why it was
    /// not kept).
    notes: Vec<crate::files::manifest::BuildNote>,
}

/// One full build in a fresh copy of the tree; the programs' outputs are copied to
/// `out_dir/<label>/` and verified (against the baseline when given). The baseline's build
/// (seed `None`) also keeps the outputs its links wrote themselves as the `as-built`
/// layout.
fn build_binary_set(
    opts: &BuildOptions,
    build_dir: &Path,
    out_dir: &Path,
    work: &Path,
    seed: Option<u64>,
    baseline: Option<(&BinarySet, &[Vec<Function>])>,
) -> Result<Built> {
    let label = binary_label(seed);
    let (programs, record_dir, shim_errors) = full_build(opts, build_dir, out_dir, work, seed)?;
    let (set, per_program) = collect_outputs(&programs, out_dir, seed, baseline)?;
    let mut notes = Vec::new();
    let as_built = seed.is_none().then(|| {
        let own: Vec<_> = programs
            .iter()
            .map(|p| own_output_copy(&record_dir, &p.record))
            .collect();
        as_built::kept(&programs, &own, &per_program, out_dir, &mut notes)
    });
    // The functions in the order of the set's binaries: programs, then libraries.
    let (mut functions, library_functions): (Vec<_>, Vec<_>) = programs
        .iter()
        .zip(per_program)
        .partition(|(program, _)| !program.is_library());
    functions.extend(library_functions);
    let _ = binaries::remove_below(out_dir, &work.join(&label));
    Ok(Built {
        set,
        functions: functions.into_iter().map(|(_, f)| f).collect(),
        programs,
        shim_errors,
        as_built: as_built.flatten(),
        notes,
    })
}

/// Runs the build command in a fresh copy of the tree (`work/<label>/tree`) with the live
/// relink for seed `seed` (`None`: the baseline); returns its programs, its record
/// directory and the shim's errors. A live relink that failed fails the build.
fn full_build(
    opts: &BuildOptions,
    build_dir: &Path,
    out_dir: &Path,
    work: &Path,
    seed: Option<u64>,
) -> Result<(Vec<super::replay::Program>, PathBuf, Vec<String>)> {
    let label = binary_label(seed);
    let tree = work.join(&label).join("tree");
    let root = crate::files::confined::ExperimentDir::open(out_dir)?;
    copy_tree(build_dir, &root, root.rel(&tree)?, out_dir)?;
    let record_dir = work.join(&label).join("record");
    let settings = LiveSettings {
        seed,
        granularity: opts.granularity,
        linker: opts.linker,
    };
    let tree_opts = BuildOptions {
        build_dir: tree.clone(),
        ..opts.clone()
    };
    let recorded = recorded_build::run(
        &opts.command,
        &tree,
        &record_dir,
        opts.echo_build,
        &settings.env(),
    )?;
    if let Some(failures) = crate::wrap::record::read_log(&record_dir, LIVE_FAILURES_LOG) {
        if !failures.trim().is_empty() {
            bail!("{label}: {}", failures.trim().replace('\n', "; "));
        }
    }
    let programs = programs(&recorded.links, &record_dir, &tree_opts)?;
    Ok((programs, record_dir, recorded.shim_errors))
}

/// Copies each program's output (as the build left it: relinked for seed `seed`, `None`
/// the baseline) to `out_dir/<label>/` and describes it, against the baseline's functions
/// when given; returns the set and each program's functions, in the order of `programs`.
fn collect_outputs(
    programs: &[super::replay::Program],
    out_dir: &Path,
    seed: Option<u64>,
    baseline: Option<(&BinarySet, &[Vec<Function>])>,
) -> Result<(BinarySet, Vec<Vec<Function>>)> {
    let label = binary_label(seed);
    let mut set = BinarySet {
        seed,
        kind: None,
        status: BuildStatus::Ok,
        error: None,
        binaries: Vec::new(),
        libraries: Vec::new(),
    };
    let mut per_program = Vec::new();
    let out = crate::files::confined::ExperimentDir::open(out_dir)?;
    for program in programs {
        let dest = out_dir.join(&label).join(&program.name);
        out.copy_in(&program.record.output, out.rel(&dest)?, None)
            .with_context(|| {
                format!("copying {} from the build", program.record.output.display())
            })?;
        let fns = binary::functions(&dest)?;
        let base = match baseline {
            Some((set, base_functions)) => {
                let index = set
                    .all()
                    .position(|b| b.name == program.name)
                    .with_context(|| {
                        format!("program {} is not in the baseline build", program.name)
                    })?;
                Some(&base_functions[index])
            }
            None => None,
        };
        let b = binaries::describe_program(
            out_dir,
            program,
            &dest,
            &fns,
            base.map(|f| f.as_slice()),
            program.record.seconds,
        )?;
        set.add(b, program.is_library());
        per_program.push(fns);
    }
    Ok((set, per_program))
}

/// Copies the tree `src` to `dst` below `root` (files with their permissions, symbolic links
/// as links, written through the confined writer), leaving out `skip` (the output directory, often inside the tree) and anything that is not
/// a regular file, a directory or a link (devices, FIFOs, sockets: reading a FIFO would hang,
/// and a copy of a device would be a regular file).
pub(crate) fn copy_tree(
    src: &Path,
    root: &crate::files::confined::ExperimentDir,
    dst: &Path,
    skip: &Path,
) -> Result<()> {
    root.remove_dir_all(dst)?;
    root.create_dir_all(dst)?;
    let walker = walkdir::WalkDir::new(src)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.path() != skip);
    for entry in walker {
        let entry = entry.with_context(|| format!("walking {}", src.display()))?;
        let rel = entry.path().strip_prefix(src).expect("below src");
        let to: PathBuf = dst.join(rel);
        let kind = entry.file_type();
        if rel.as_os_str().is_empty() {
            continue;
        }
        if kind.is_dir() {
            root.create_dir_all(&to)?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(entry.path())?;
            root.symlink(&target, &to)?;
        } else if kind.is_file() {
            root.copy_in(entry.path(), &to, None)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
