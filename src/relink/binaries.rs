//! Building and verifying the baseline and every seed from a recording: rayon across seeds,
//! a progress bar, each binary checked (functions, fingerprint, distance to the baseline).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use rayon::prelude::*;

use super::linker::Mechanism;
use super::replay::Program;
use crate::files::manifest::{binary_label, sha256_of_file, Binary, BinarySet, BuildStatus};
use crate::layout::binary::{self, Function};
use crate::layout::{distance, dynamic, fingerprint, offsets, same_code, same_data};

/// Directory (inside the output directory) for intermediate files of the relinks.
pub(crate) const WORK_DIR: &str = ".work";

/// The baseline's binaries with their function lists (seeds are compared against them).
pub struct Baseline {
    /// The manifest entry.
    pub(crate) set: BinarySet,
    /// Function list per program, in program order.
    pub(crate) functions: Vec<Vec<Function>>,
}

/// A program's baseline binary with its function list.
pub(crate) type BaselineProgram = (Binary, Vec<Function>);

/// Links and verifies the baseline of each program; returns the baseline of those that
/// linked and, per program that did not (by its index in `programs`), the error. A program
/// without a baseline cannot have seeds (nothing to compare them with): the caller leaves
/// it out (see [`super::driver`]).
pub(crate) fn build_baseline_isolated(
    programs: &[Program],
    out_dir: &Path,
) -> (Vec<Option<BaselineProgram>>, Vec<(usize, anyhow::Error)>) {
    let label = binary_label(None);
    let results: Vec<Result<(Binary, Vec<Function>)>> = programs
        .par_iter()
        .enumerate()
        .map(|(p, program)| {
            let (path, work) = paths(out_dir, &label, p, program);
            let linked = program
                .link(None, &path, &work)
                .with_context(|| format!("baseline of {}", program.name))?;
            let functions = binary::functions(&path)?;
            let _ = remove_below(out_dir, &work);
            Ok((
                describe_program(out_dir, program, &path, &functions, None, linked.seconds)?,
                functions,
            ))
        })
        .collect();
    let mut built = Vec::with_capacity(programs.len());
    let mut failed = Vec::new();
    for (p, r) in results.into_iter().enumerate() {
        match r {
            Ok(b) => built.push(Some(b)),
            Err(err) => {
                built.push(None);
                failed.push((p, err));
            }
        }
    }
    (built, failed)
}

/// The baseline of `programs` from what [`build_baseline_isolated`] built for each (all of
/// them linked).
pub(crate) fn baseline_of(programs: &[Program], built: Vec<BaselineProgram>) -> Baseline {
    let mut set = BinarySet {
        seed: None,
        kind: None,
        status: BuildStatus::Ok,
        error: None,
        binaries: Vec::new(),
        libraries: Vec::new(),
    };
    let mut functions = Vec::new();
    for ((b, f), program) in built.into_iter().zip(programs) {
        set.add(b, program.is_library());
        functions.push(f);
    }
    Baseline { set, functions }
}

/// Links and verifies every seed (in parallel); `tick` is called after each program link,
/// `done` after each seed with its binaries (e.g. to save the manifest so far).
///
/// A seed is provisional until [`super::isolate::finalize`] has seen all seeds: it lists the
/// binaries of the programs that linked and verified, and it is `failed` (with each other
/// program's reason in its error) when one did not. A seed whose layout equals the
/// baseline's is not an error here: only a program whose every seed does is (it is then
/// left out, see [`super::isolate`]). A seed started after `stop()` became true is skipped.
pub(crate) fn build_seeds(
    programs: &[Program],
    baseline: &Baseline,
    seeds: &[u64],
    out_dir: &Path,
    tick: &(dyn Fn() + Sync),
    done: &(dyn Fn(&BinarySet) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<BinarySet> {
    seeds
        .par_iter()
        .filter_map(|&seed| {
            if stop() {
                return None;
            }
            let label = binary_label(Some(seed));
            let (set, errors) = build_seed(programs, baseline, seed, out_dir, &label, tick);
            let set = BinarySet {
                seed: Some(seed),
                kind: None,
                status: if errors.is_empty() {
                    BuildStatus::Ok
                } else {
                    BuildStatus::Failed
                },
                error: (!errors.is_empty()).then(|| errors.join("; ")),
                ..set
            };
            if stop() && set.status == BuildStatus::Failed {
                // Most likely the interruption itself killed a linker: not a result.
                let _ = remove_below(out_dir, &out_dir.join(&label));
                return None;
            }
            done(&set);
            Some(set)
        })
        .collect()
}

/// The binaries of the programs and libraries that linked and verified for `seed`, and the
/// reasons of the others (`program NAME: ...`).
fn build_seed(
    programs: &[Program],
    baseline: &Baseline,
    seed: u64,
    out_dir: &Path,
    label: &str,
    tick: &(dyn Fn() + Sync),
) -> (BinarySet, Vec<String>) {
    let mut set = BinarySet {
        seed: Some(seed),
        kind: None,
        status: BuildStatus::Ok,
        error: None,
        binaries: Vec::new(),
        libraries: Vec::new(),
    };
    let mut errors = Vec::new();
    for (p, program) in programs.iter().enumerate() {
        let (path, work) = paths(out_dir, label, p, program);
        let result = (|| -> Result<Binary> {
            let linked = super::pinned::link_seed(program, seed, &path, &work)?;
            let functions = binary::functions(&path)?;
            let mut b = describe_program(
                out_dir,
                program,
                &path,
                &functions,
                Some(&baseline.functions[p]),
                linked.seconds,
            )?;
            if program.data_order {
                b.data = Some(check_data(out_dir, baseline, program, &path)?);
            }
            b.copy_of = linked.copy_of.as_deref().and_then(|p| label_of(out_dir, p));
            Ok(b)
        })();
        let _ = remove_below(out_dir, &work);
        tick();
        match result {
            Ok(b) => set.add(b, program.is_library()),
            Err(e) => {
                let others: Vec<&str> = programs
                    .iter()
                    .filter(|o| o.name != program.name)
                    .map(|o| o.name.as_str())
                    .collect();
                if crate::files::disk_full::is_disk_full(&e) {
                    errors.push(disk_full_error(&program.name, &path, out_dir));
                    continue;
                }
                errors.push(format!(
                    "program {}: {e:#}{}",
                    program.name,
                    leave_out_hint(&others)
                ));
            }
        }
    }
    (set, errors)
}

/// The data check of `program`'s seed binary at `path` against its baseline (`build
/// --data-order`): an error names the object or function that differs.
fn check_data(
    out_dir: &Path,
    baseline: &Baseline,
    program: &Program,
    path: &Path,
) -> Result<same_data::DataCheck> {
    let base = baseline
        .set
        .find(&program.name)
        .with_context(|| format!("the baseline has no {}", program.name))?;
    let base = same_data::Placed::read(&out_dir.join(&base.path))?;
    same_data::check(&base, &same_data::Placed::read(path)?)
        .map_err(|e| anyhow!("{e:#} (the data order changed more than where the data sits)"))
}

/// A relink that failed for want of space, said as what it was writing (the seed's binary,
/// not the temporary or work file the error hit) and how to retry: nothing about the
/// program is wrong, and leaving it out would be the wrong advice.
fn disk_full_error(program: &str, binary: &Path, out_dir: &Path) -> String {
    format!(
        "program {program}: the disk is full (no space left on the file system of {}, or \
         the quota is used up) while relinking the seed's binary {} and its work files: free \
         space there, then `layoutrand build --extend` with the same --seeds relinks the \
         failed seeds",
        out_dir.display(),
        binary.display()
    )
}

/// How to build without a program that cannot be relinked: `--programs` naming the others
/// (empty when there are none to name).
pub(crate) fn leave_out_hint(others: &[&str]) -> String {
    if others.is_empty() {
        return String::new();
    }
    format!(
        " (to leave it out, build with `--programs {}`)",
        others.join(",")
    )
}

/// The label (`baseline`, `seed-N`) of the binary at `path`, the first component of its
/// place in `out_dir`.
fn label_of(out_dir: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(out_dir).ok()?;
    Some(
        rel.components()
            .next()?
            .as_os_str()
            .to_string_lossy()
            .into_owned(),
    )
}

/// Where program `p` of a binary goes, and its scratch directory.
fn paths(out_dir: &Path, label: &str, p: usize, program: &Program) -> (PathBuf, PathBuf) {
    (
        out_dir.join(label).join(&program.name),
        out_dir.join(WORK_DIR).join(label).join(p.to_string()),
    )
}

/// [`describe`] for `program`, with its soname when it is a shared library.
pub(crate) fn describe_program(
    out_dir: &Path,
    program: &Program,
    path: &Path,
    functions: &[Function],
    baseline: Option<&[Function]>,
    link_seconds: f64,
) -> Result<Binary> {
    let mut b = describe(
        out_dir,
        &program.name,
        path,
        functions,
        baseline,
        link_seconds,
    )?;
    if program.mechanism == Mechanism::Padded {
        // Every seed keeps the baseline's order: its layout is where its functions start.
        b.fingerprint = crate::layout::placement(functions);
    }
    if program.data_order {
        // The layout is the data's order too: seeds of one code order are distinct layouts.
        let objects = binary::data_objects_from_bytes(&std::fs::read(path)?)
            .with_context(|| format!("the data objects of {}", path.display()))?;
        b.fingerprint = crate::layout::with_data_order(&b.fingerprint, &objects);
    }
    if program.is_library() {
        b.soname = dynamic::soname(path)?;
        link_soname(path, b.soname.as_deref())?;
    }
    Ok(b)
}

/// Removes the directory `path` below `out_dir` (the work area, a failed seed's binaries)
/// through the confined writer: a link planted there is refused, never followed.
pub(crate) fn remove_below(out_dir: &Path, path: &Path) -> Result<bool> {
    let dir = crate::files::confined::ExperimentDir::open(out_dir)?;
    dir.remove_dir_all(dir.rel(path)?)
}

/// Beside a library whose soname is not its file name (`libz.so.1` for `libz.so.1.3`), a
/// symbolic link by the soname, as the build tree has: `LD_LIBRARY_PATH=DIR/seed-N` then
/// makes that seed's programs load that seed's library outside `layoutrand run` too.
fn link_soname(path: &Path, soname: Option<&str>) -> Result<()> {
    let (Some(soname), Some(file), Some(_)) = (soname, path.file_name(), path.parent()) else {
        return Ok(());
    };
    if soname == file.to_string_lossy() || soname.contains('/') {
        return Ok(());
    }
    // The seed's directory was made by the confined writer (the relink's output's parent).
    let (dir, _) = crate::files::confined::parent_of(path)?;
    dir.symlink(Path::new(file), soname).with_context(|| {
        format!(
            "linking {} to {}",
            dir.join(soname).display(),
            path.display()
        )
    })
}

/// The manifest entry of the binary `path` of program `name`, verified against the baseline's
/// functions when given: an error when its code is not the baseline's
/// ([`same_code::check`]), naming the function and both sizes.
pub(crate) fn describe(
    out_dir: &Path,
    name: &str,
    path: &Path,
    functions: &[Function],
    baseline: Option<&[Function]>,
    link_seconds: f64,
) -> Result<Binary> {
    let code = match baseline {
        Some(base) => Some(
            same_code::check(base, functions)
                .map_err(|d| anyhow!("program {name}: {}", same_code::describe(&d)))?,
        ),
        None => None,
    };
    Ok(Binary {
        name: name.to_string(),
        path: path.strip_prefix(out_dir).unwrap_or(path).to_path_buf(),
        sha256: sha256_of_file(path)?,
        fingerprint: fingerprint(functions),
        functions: functions.len(),
        distance: baseline.map(|b| distance::between(b, functions)),
        link_seconds,
        code,
        offsets: Some(offsets::spread(functions)),
        ..Default::default()
    })
}
