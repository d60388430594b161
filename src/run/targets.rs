//! What runs: the programs under test and, for each with each built seed (and the baseline), the
//! binaries its command needs — checked against the manifest before anything runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::command::CommandTemplate;
use super::settings::RunSettings;
use crate::files::manifest::{BuildStatus, Manifest};

/// One binary under test: program name and binary label (`baseline`, `seed-N`).
pub struct Target {
    /// Program name (the label when the command has only `{bin:NAME}` placeholders).
    pub program: String,
    /// Binary label.
    pub binary: String,
    /// The binary's seed (`None` for the baseline).
    pub seed: Option<u64>,
    /// Source path of every binary of this seed (or baseline), by program name.
    pub binaries: BTreeMap<String, PathBuf>,
    /// The manifest's SHA-256 of every binary of [`Target::binaries`], by program name.
    pub sha256: BTreeMap<String, String>,
}

/// The programs under test and one target per (program, binary), program-major.
pub fn plan_targets(
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
    let programs: Vec<String> = if template.uses_bin {
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
    };
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
                "no program named {name:?} in {}/manifest.json (it has: {})",
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
            let mut binaries = BTreeMap::new();
            let mut sha256 = BTreeMap::new();
            for name in &needed {
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
                let path = out.join(&b.path);
                if !path.is_file() {
                    bail!(
                        "binary {} of {} is missing: {} (rebuild with `layoutrand build`)",
                        name,
                        set.label(),
                        path.display()
                    );
                }
                binaries.insert(name.clone(), path);
                sha256.insert(name.clone(), b.sha256.clone());
            }
            targets.push(Target {
                program: program.clone(),
                binary: set.label(),
                seed: set.seed,
                binaries,
                sha256,
            });
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
