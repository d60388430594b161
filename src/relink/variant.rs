//! `layoutrand build --variant NAME`: one variant (a version of the program) of an experiment
//! that compares several, built in `DIR/NAME/` like a build of its own and entered in
//! `DIR/manifest.json` under `variants`. All variants share the seeds, so that seed `s` of
//! one and seed `s` of another form a pair: the first variant built fixes them and every later
//! one reads them from the manifest.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::driver::{self, BuildOptions, BuildOutcome};
use crate::files::manifest::{Manifest, VariantBuild, MANIFEST_FILE};

/// Names a variant cannot take: they are files or folders of the experiment directory.
const RESERVED: &[&str] = &[
    "baseline",
    crate::files::manifest::AS_BUILT_LABEL,
    "shards",
    "slurm",
    "source",
    "reports",
];

/// Checks a variant name: letters, digits, `-`, `_`, `.`, `+`; not starting with `.` or `-`;
/// not `seed-N` nor a name the experiment directory uses.
pub fn check_name(name: &str) -> Result<()> {
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c));
    if name.is_empty()
        || !ok_chars
        || name.starts_with(['.', '-'])
        || RESERVED.contains(&name)
        || name.starts_with("seed-")
    {
        bail!(
            "variant name {name:?}: a variant name is letters, digits, `-`, `_`, `.` and `+`, not \
             starting with `.` or `-`, and not `seed-…` nor one of {}",
            RESERVED.join(", ")
        );
    }
    Ok(())
}

/// `top_dir/name`, the folder of variant `name`, once its name is checked and it is not a
/// symbolic link: every command that builds, extends, explains or trusts a variant takes its
/// folder from here, so a `DIR/NAME` link planted in a received directory never sends a
/// build (or its MACs) outside. A link at any folder below `top_dir` on the way is refused
/// the same way, naming it; a missing folder is fine (the build makes it), and so is a
/// missing `top_dir`.
pub fn dir_of(top_dir: &Path, name: &str) -> Result<PathBuf> {
    check_name(name)?;
    if top_dir.is_dir() {
        crate::files::confined::ExperimentDir::open(top_dir)?
            .refuse_link(name)
            .with_context(|| format!("variant {name}"))?;
    }
    Ok(top_dir.join(name))
}

/// The seeds a new variant must use: those of the variants already in `out_dir` (`None` when
/// there is none yet). Fails when `out_dir` holds a build without variants.
pub fn shared_seeds(out_dir: &Path) -> Result<Option<Vec<u64>>> {
    if !out_dir.join(MANIFEST_FILE).exists() {
        return Ok(None);
    }
    let top = Manifest::load(out_dir)?;
    if top.variants.is_empty() {
        bail!(
            "{} holds a build without variants: build the variants in another --out",
            out_dir.display()
        );
    }
    Ok(Some(top.seeds.iter().filter_map(|s| s.seed).collect()))
}

/// Builds variant `name` into `opts.out_dir/name` with `opts.seeds`, then enters it in
/// `opts.out_dir/manifest.json` (replacing an earlier build of the same name). The caller
/// sets `opts.seeds` from [`shared_seeds`] when variants exist. The outcome's manifest is
/// this variant's build (binary paths relative to `opts.out_dir`).
pub fn build(opts: &BuildOptions, name: &str) -> Result<BuildOutcome> {
    crate::files::confined::ExperimentDir::create(&opts.out_dir)
        .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let top_dir = opts.out_dir.canonicalize()?;
    let variant_dir = dir_of(&top_dir, name)?;
    if crate::files::store::has_results(&top_dir) {
        bail!(
            "{} holds measurements: a variant built now would not be in them; build the \
             variants first, or use another --out",
            top_dir.display()
        );
    }
    let variants = if top_dir.join(MANIFEST_FILE).exists() {
        Manifest::load(&top_dir)?.variants
    } else {
        Vec::new()
    };
    // Like the seeds, the padding is the first variant's: the pairs must differ only by the
    // program, not by how its layouts were drawn.
    let pad = match variants.first().filter(|first| first.name != name) {
        Some(first) => match opts.pad {
            Some(pad) if pad != first.build.pad => bail!(
                "variant {} was built with --pad {}; every variant uses the same padding (leave \
                 out --pad)",
                first.name,
                first.build.pad
            ),
            _ => Some(first.build.pad),
        },
        None => opts.pad,
    };
    let first = variants.first().filter(|first| first.name != name);
    if let Some(first) = first.filter(|f| opts.data_order && !f.build.data_order) {
        bail!(
            "variant {} was built without --data-order; every variant orders its data the same \
             way (leave out --data-order, or build every variant with it)",
            first.name
        );
    }
    if let Some(first) = first.filter(|f| opts.keep_debug && f.build.strip_debug) {
        bail!(
            "variant {} was relinked without debug information; every variant is linked \
             alike (leave out --keep-debug, or build every variant with it)",
            first.name
        );
    }
    if let Some(first) = first.filter(|f| opts.pin.is_some() && opts.pin != f.build.pin) {
        bail!(
            "variant {} was built {}; every variant places its functions by the same pin \
             (leave out --pin to take the first variant's)",
            first.name,
            if first.build.pin.is_some() {
                "with another pin"
            } else {
                "without --pin"
            }
        );
    }
    let outcome = driver::build(&BuildOptions {
        out_dir: variant_dir,
        pad,
        data_order: first.map_or(opts.data_order, |f| f.build.data_order),
        keep_debug: first.map_or(opts.keep_debug, |f| !f.build.strip_debug),
        pin: first.map_or(opts.pin.clone(), |f| f.build.pin.clone()),
        ..opts.clone()
    })?;
    enter(&top_dir, variants, name, outcome)
}

/// Adds the seeds of `opts.seeds` that variant `name` lacks, relinked from its recording in
/// `opts.out_dir/name` (`build --variant NAME --extend`: how an experiment with variants
/// grows its top level on-line). Every variant must be extended with the same seeds before
/// the next run, so that each new seed forms a pair; the runner's resume measures only the
/// seeds built by every variant. The seeds already built must be the first of `opts.seeds`.
pub fn extend(
    opts: &BuildOptions,
    name: &str,
    asked_granularity: Option<crate::files::manifest::Granularity>,
) -> Result<BuildOutcome> {
    let top_dir = opts
        .out_dir
        .canonicalize()
        .with_context(|| format!("--extend: cannot find {}", opts.out_dir.display()))?;
    let variant_dir = dir_of(&top_dir, name)?;
    let variants = Manifest::load(&top_dir)?.variants;
    let Some(built) = variants.iter().find(|v| v.name == name) else {
        bail!(
            "--extend: {} has no variant {name} to extend; build it first with --variant {name} \
             and without --extend",
            top_dir.display()
        );
    };
    let have: Vec<u64> = built.build.seeds.iter().filter_map(|s| s.seed).collect();
    if !opts.seeds.starts_with(&have) {
        bail!(
            "--extend: variant {name} has seeds {have:?}; the seeds asked ({} from {}) must begin \
             with them, so that the variants' seeds stay paired",
            opts.seeds.len(),
            opts.seeds.first().map_or(0, |s| *s)
        );
    }
    let outcome = super::extend::extend(
        &BuildOptions {
            out_dir: variant_dir,
            ..opts.clone()
        },
        asked_granularity,
    )?;
    enter(&top_dir, variants, name, outcome)
}

/// Enters `outcome` (variant `name`'s own build in `top_dir/name`) in the top manifest of
/// `top_dir` beside `variants` (replacing an earlier entry of the same name), and returns it
/// as the outcome: its summary and exit status must be about what was just built, not the
/// top manifest (whose fields are the first variant's).
fn enter(
    top_dir: &Path,
    mut variants: Vec<VariantBuild>,
    name: &str,
    outcome: BuildOutcome,
) -> Result<BuildOutcome> {
    let entry = VariantBuild {
        name: name.to_string(),
        build: relative_to(&outcome.manifest, Path::new(name)),
    };
    match variants.iter_mut().find(|v| v.name == name) {
        Some(v) => *v = entry,
        None => variants.push(entry),
    }
    let first = variants[0].build.clone();
    let manifest = Manifest { variants, ..first };
    manifest.save(top_dir)?;
    Ok(BuildOutcome {
        manifest: entry_build(&manifest, name),
        shim_errors: outcome.shim_errors,
        notes: outcome.notes,
    })
}

/// The build of variant `name` as entered in the top manifest `m`.
fn entry_build(m: &Manifest, name: &str) -> Manifest {
    m.variants
        .iter()
        .find(|v| v.name == name)
        .map(|v| v.build.clone())
        .expect("the variant was just entered")
}

/// `m` with every binary path, programs' and shared libraries' alike, under `prefix`.
fn relative_to(m: &Manifest, prefix: &Path) -> Manifest {
    let mut m = m.clone();
    let sets = std::iter::once(&mut m.baseline)
        .chain(m.as_built.iter_mut())
        .chain(m.seeds.iter_mut());
    for set in sets {
        for b in set.binaries.iter_mut().chain(set.libraries.iter_mut()) {
            b.path = prefix.join(&b.path);
        }
    }
    m
}
