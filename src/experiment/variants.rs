//! The build stage of an experiment with `[[variant]]` tables: each variant is prepared and
//! built with `layoutrand build --variant NAME` into `OUT/NAME/`, the first fixing the seeds
//! that every later one reuses (so seed `s` of each variant forms a pair). The run stage then
//! needs nothing more: `layoutrand run` reads the variants from the manifest and interleaves
//! them block by block in one schedule. An experiment that grows on-line extends every
//! variant with the same new seeds each round (`build --variant NAME --extend`).

use std::path::Path;

use anyhow::{bail, Result};

use super::config::{ExperimentConfig, VariantConfig};
use super::subprocess::{run_stage, run_user_command};
use crate::files::manifest::{Manifest, MANIFEST_FILE};
use crate::flags::build::BuildArgs;

/// Builds every variant of `config` that `out` does not already hold with `seeds` seeds;
/// `build_dir` is the experiment's build directory (the default working directory).
pub(super) fn build_variants(
    config: &ExperimentConfig,
    seeds: u32,
    out: &Path,
    build_dir: &Path,
) -> Result<()> {
    let existing = if out.join(MANIFEST_FILE).exists() {
        Some(Manifest::load(out)?)
    } else {
        None
    };
    if let Some(m) = &existing {
        check_same_variants(config, m, out)?;
    }
    for variant in &config.variants {
        let built = existing
            .as_ref()
            .and_then(|m| m.variants.iter().find(|v| v.name == variant.name));
        if let Some(built) = built {
            if built.build.build_command != variant.command {
                bail!(
                    "{} holds variant {} built by another command ({:?}); use another output \
                     directory",
                    out.join(MANIFEST_FILE).display(),
                    variant.name,
                    built.build.build_command
                );
            }
            // The path only: variants may share one tree, each build overwriting the
            // objects of the one before.
            crate::relink::source_tree::reuse_only_from(
                &out.join(&variant.name),
                &built.build,
                &config.variant_dir(variant, build_dir),
                false,
            )?;
            let have = built.build.seeds.len();
            if have as u32 >= seeds {
                crate::diagnostic!(
                    "layoutrand experiment: variant {} already has {have} seeds; not rebuilding",
                    variant.name
                );
                continue;
            }
            extend_one(config, variant, seeds, out, build_dir)?;
            continue;
        }
        build_one(config, variant, seeds, out, build_dir)?;
    }
    Ok(())
}

/// Adds seeds to `variant` up to `seeds` (`layoutrand build --variant NAME --extend`): relinked
/// from its recording, so neither its prepare commands nor its build command run again. The
/// experiment extends every variant with the same seeds in one round, keeping them paired.
fn extend_one(
    config: &ExperimentConfig,
    variant: &VariantConfig,
    seeds: u32,
    out: &Path,
    build_dir: &Path,
) -> Result<()> {
    crate::diagnostic!(
        "\n== layoutrand experiment: extend variant {} to {seeds} randomised binaries ==",
        variant.name
    );
    let args = BuildArgs {
        variant: Some(variant.name.clone()),
        out: out.to_path_buf(),
        seeds: Some(u64::from(seeds)),
        extend: true,
        trust: config.trust,
        command: variant.command.clone(),
        ..config.stage_build_args()
    };
    let dir = config.variant_dir(variant, build_dir);
    run_stage("build", &args.to_argv(), &dir, &variant.env)
}

/// Fails when the manifest in `out` is not a build of `config`'s variants: a build without
/// variants, or one with a variant the file does not list (the run would measure it too).
fn check_same_variants(config: &ExperimentConfig, m: &Manifest, out: &Path) -> Result<()> {
    if m.variants.is_empty() {
        bail!(
            "{} holds a build without variants; the experiment file has [[variant]] tables: \
             use another output directory",
            out.join(MANIFEST_FILE).display()
        );
    }
    if let Some(extra) = m
        .variants
        .iter()
        .find(|v| !config.variants.iter().any(|c| c.name == v.name))
    {
        bail!(
            "{} holds variant {} that the experiment file does not list; use another output \
             directory",
            out.join(MANIFEST_FILE).display(),
            extra.name
        );
    }
    Ok(())
}

/// Runs `variant`'s prepare commands, then `layoutrand build --variant NAME`, in its
/// directory and with its environment.
fn build_one(
    config: &ExperimentConfig,
    variant: &VariantConfig,
    seeds: u32,
    out: &Path,
    build_dir: &Path,
) -> Result<()> {
    let dir = config.variant_dir(variant, build_dir);
    if !dir.is_dir() {
        bail!(
            "[[variant]] {}: directory {} does not exist",
            variant.name,
            dir.display()
        );
    }
    crate::diagnostic!(
        "\n== layoutrand experiment: build variant {} ({seeds} randomised binaries) in {} ==",
        variant.name,
        dir.display()
    );
    for argv in &variant.prepare {
        let (ok, output) = run_user_command(argv, &dir, &variant.env)?;
        if !ok {
            bail!(
                "[[variant]] {}: prepare command {argv:?} failed in {}:\n{output}",
                variant.name,
                dir.display()
            );
        }
    }
    let args = BuildArgs {
        variant: Some(variant.name.clone()),
        out: out.to_path_buf(),
        // The first variant fixes the seeds; later ones take them from the manifest.
        seeds: (!out.join(MANIFEST_FILE).exists()).then_some(u64::from(seeds)),
        command: variant.command.clone(),
        ..config.stage_build_args()
    };
    run_stage("build", &args.to_argv(), &dir, &variant.env)
}
