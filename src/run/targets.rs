//! What runs: the programs under test and, for each with each built seed (and the baseline), the
//! binaries its command needs — checked against the manifest before anything runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::command::CommandTemplate;
use super::settings::RunSettings;
use crate::files::manifest::{sha256_of_file_cached, Binary, BinarySet, BuildStatus, Manifest};

/// One binary under test: program name and binary label (`baseline`, `seed-N`).
pub(crate) struct Target {
    /// Program name (the label when the command has only `{bin:NAME}` placeholders).
    pub(crate) program: String,
    /// The variant (`build --variant NAME`), `None` without variants.
    pub(crate) variant: Option<String>,
    /// Binary label.
    pub(crate) binary: String,
    /// The binary's seed (`None` for the baseline).
    pub(crate) seed: Option<u64>,
    /// Source path of every binary of this seed (or baseline), by program name.
    pub(crate) binaries: BTreeMap<String, PathBuf>,
    /// The manifest's SHA-256 of every binary of [`Target::binaries`], by program name.
    pub(crate) sha256: BTreeMap<String, String>,
    /// The shared libraries of this seed (or baseline) its programs load, by the name they
    /// load it by (soname, else file name): source path and the manifest's SHA-256.
    pub(crate) libraries: BTreeMap<String, (PathBuf, String)>,
}

impl Target {
    /// The key of execution `execution` of this target in the store.
    pub(crate) fn key(&self, execution: u32) -> crate::files::results::ExecutionKey {
        (
            self.program.clone(),
            self.variant.clone(),
            self.binary.clone(),
            execution,
        )
    }
}

/// The programs under test and one target per (program, variant, binary), program-major,
/// then variant (in build order), then binary: the grid
/// `targets[(program * variants + variant) * binaries + binary]`. With variants, only the
/// binaries every variant built for every program are kept (a seed is compared in pairs),
/// and every variant must build the same programs.
pub(crate) fn plan_targets(
    manifest: &Manifest,
    out: &Path,
    template: &CommandTemplate,
    settings: &RunSettings,
) -> Result<(Vec<String>, Vec<Target>)> {
    let mut planned: Vec<Planned> = Vec::new();
    for (name, build) in manifest.variant_builds() {
        let (programs, mut targets) = plan_one(build, out, template, settings)?;
        for t in &mut targets {
            t.variant = name.map(str::to_string);
        }
        planned.push((name, programs, targets));
    }
    if planned.len() == 1 {
        let (_, programs, targets) = planned.pop().expect("one");
        return Ok((programs, targets));
    }
    let programs = planned[0].1.clone();
    for (name, p, _) in &planned {
        if *p != programs {
            bail!(
                "the variants do not build the same programs: {} has {}, {} has {}",
                planned[0].0.unwrap_or_default(),
                programs.join(", "),
                name.unwrap_or_default(),
                p.join(", ")
            );
        }
    }
    let labels = paired_labels(&planned, &programs);
    let mut by_key: BTreeMap<(usize, String, String), Target> = BTreeMap::new();
    for (v, (_, _, targets)) in planned.into_iter().enumerate() {
        for t in targets {
            by_key.insert((v, t.program.clone(), t.binary.clone()), t);
        }
    }
    let mut grid = Vec::new();
    for p in &programs {
        for v in 0..manifest.variants.len() {
            for label in &labels {
                grid.push(
                    by_key
                        .remove(&(v, p.clone(), label.clone()))
                        .expect("every kept label exists in every variant"),
                );
            }
        }
    }
    Ok((programs, grid))
}

/// The binary labels, in the first variant's order, that every variant built for every
/// program of `programs`; the others are named in a warning (without a pair they are not run).
fn paired_labels(planned: &[Planned], programs: &[String]) -> Vec<String> {
    let labels: Vec<String> = planned[0]
        .2
        .iter()
        .filter(|t| t.program == programs[0])
        .map(|t| t.binary.clone())
        .filter(|label| {
            planned.iter().all(|(_, _, targets)| {
                programs.iter().all(|p| {
                    targets
                        .iter()
                        .any(|t| &t.program == p && &t.binary == label)
                })
            })
        })
        .collect();
    for (name, _, targets) in planned {
        let mut dropped: Vec<&str> = targets
            .iter()
            .filter(|t| !labels.contains(&t.binary))
            .map(|t| t.binary.as_str())
            .collect();
        dropped.dedup();
        if !dropped.is_empty() {
            crate::diagnostic!(
                "layoutrand: warning: variant {}: {} not run: not built by every variant, so without a pair",
                name.unwrap_or_default(),
                dropped.join(", ")
            );
        }
    }
    labels
}

/// One variant's name (`None` without variants), programs and targets.
type Planned<'m> = (Option<&'m str>, Vec<String>, Vec<Target>);

/// [`plan_targets`] for one build (one variant).
fn plan_one(
    manifest: &Manifest,
    out: &Path,
    template: &CommandTemplate,
    settings: &RunSettings,
) -> Result<(Vec<String>, Vec<Target>)> {
    let all: Vec<String> = manifest
        .baseline
        .binaries
        .iter()
        .map(|b| b.name.clone())
        .collect();
    let excluded = manifest.excluded_programs();
    let programs = programs_under_test(&all, &excluded, template, settings)?;
    if programs.is_empty() {
        bail!("the manifest in {} lists no programs", out.display());
    }
    let needed: Vec<String> = if template.uses_bin {
        let mut n = programs.clone();
        n.extend(template.named.iter().cloned());
        n
    } else {
        template.named.clone()
    };
    for name in &needed {
        if !all.contains(name) {
            bail!(
                "no program named {name:?} in {}/manifest.json (it has: {}; `build` relinks \
                 neither the build's tools nor, by default, its test programs: to measure \
                 {name}, build again with `--programs` naming it beside the programs and \
                 libraries to relink, or `--programs all`)",
                out.display(),
                all.join(", ")
            );
        }
    }
    let mut targets = Vec::new();
    for program in &programs {
        for set in manifest.binary_sets() {
            if set.status != BuildStatus::Ok {
                continue;
            }
            if set.seed.is_some() && needed.iter().any(|n| excluded.contains(&n.as_str())) {
                // Named although left out: only its baseline exists.
                continue;
            }
            targets.push(target_of(set, program, &needed, out)?);
        }
    }
    if targets.is_empty() {
        bail!(
            "{}/manifest.json has no successfully built binary",
            out.display()
        );
    }
    Ok((programs, targets))
}

/// The programs `{bin}` stands for: those named with `--programs`, else every program of
/// the baseline (`all`) not left out of the seeds (`excluded`); without `{bin}` in the
/// command, one program named after its `{bin:NAME}` placeholders.
fn programs_under_test(
    all: &[String],
    excluded: &[&str],
    template: &CommandTemplate,
    settings: &RunSettings,
) -> Result<Vec<String>> {
    Ok(if template.uses_bin {
        match &settings.programs {
            Some(p) => p.clone(),
            // A program left out of the seeds (nothing to randomise) runs only when named.
            None => all
                .iter()
                .filter(|n| !excluded.contains(&n.as_str()))
                .cloned()
                .collect(),
        }
    } else {
        let label = template.named.join("+");
        if let Some(p) = &settings.programs {
            if p != &vec![label.clone()] {
                bail!("--programs picks what {{bin}} stands for, but the command has only {{bin:NAME}} placeholders");
            }
        }
        vec![label]
    })
}

/// The target of `program` with the binary set `set` (no variant yet): its binaries
/// `needed` (paths inside `out` and SHA-256, by program name) and its libraries (path and
/// SHA-256, by the name they load by).
fn target_of(set: &BinarySet, program: &str, needed: &[String], out: &Path) -> Result<Target> {
    let mut binaries = BTreeMap::new();
    let mut sha256 = BTreeMap::new();
    for name in needed {
        let b = set
            .binaries
            .iter()
            .find(|b| &b.name == name)
            .with_context(|| {
                format!(
                    "{}/manifest.json: {} has no binary {name:?}",
                    out.display(),
                    set.label()
                )
            })?;
        let path = binary_inside(out, &b.path, "binary", name, &set.label())?;
        binaries.insert(name.clone(), path);
        sha256.insert(name.clone(), b.sha256.clone());
    }
    let mut libraries = BTreeMap::new();
    for lib in &set.libraries {
        let path = binary_inside(out, &lib.path, "library", &lib.name, &set.label())?;
        let loaded_as = lib.loaded_as();
        libraries.insert(loaded_as, (path, lib.sha256.clone()));
    }
    Ok(Target {
        program: program.to_string(),
        variant: None,
        binary: set.label(),
        seed: set.seed,
        binaries,
        sha256,
        libraries,
    })
}

/// The file of the `kind` (binary, library) `name` of the binary `label`, at `rel` in the
/// manifest: inside `out` once symbolic links are followed (a crafted manifest's path to a
/// file elsewhere is refused, see [`crate::files::confined::resolve_inside`]), and a regular
/// file.
pub(crate) fn binary_inside(
    out: &Path,
    rel: &Path,
    kind: &str,
    name: &str,
    label: &str,
) -> Result<PathBuf> {
    let joined = out.join(rel);
    if !joined.exists() {
        bail!(
            "{kind} {name} of {label} is missing: {} (rebuild with `layoutrand build`)",
            joined.display()
        );
    }
    let path = crate::files::confined::resolve_inside(
        out,
        rel,
        &format!(
            "{}/manifest.json: the path of {kind} {name} of {label},",
            out.display()
        ),
    )?;
    if !path.is_file() {
        bail!("{kind} {name} of {label} is not a file: {}", path.display());
    }
    Ok(path)
}

/// The file of the manifest's `kind` (binary, library) `b` of the binary set `label`,
/// checked as every command checks a file before running, loading or reading it: inside
/// `out` and a regular file ([`binary_inside`]), and its SHA-256 the manifest's
/// ([`check_sha256`]). `run` checks the same two, the path when it plans its targets and the
/// hash of the staged copy before each execution; `explain` checks here what it profiles.
pub(crate) fn verified_binary(out: &Path, b: &Binary, kind: &str, label: &str) -> Result<PathBuf> {
    let path = binary_inside(out, &b.path, kind, &b.name, label)?;
    check_sha256(kind, &out.join(&b.path), &path, &b.sha256, label)?;
    Ok(path)
}

/// Refuses a `kind` (binary, library) file whose SHA-256 is not the manifest's: a file
/// replaced after the build (another seed's copied over it, a rebuild in place) would be
/// run or loaded under the wrong label. `file` is hashed (the staged copy, for `run`: what
/// runs), `source` named.
pub(crate) fn check_sha256(
    kind: &str,
    source: &Path,
    file: &Path,
    expected: &str,
    label: &str,
) -> Result<()> {
    let actual = sha256_of_file_cached(file)?;
    if actual != expected {
        let used = if kind == "library" { "loaded" } else { "run" };
        bail!(
            "{} is not the {kind} `layoutrand build` made for {label}: its sha256 is {actual}, \
             the manifest says {}; it was replaced after the build (rebuild, or restore the \
             file) and is not {used} under that label",
            source.display(),
            if expected.is_empty() {
                "nothing"
            } else {
                expected
            }
        );
    }
    Ok(())
}
