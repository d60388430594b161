//! `explain --confirm`: targeted relinks in which only a suspect moves, measured against
//! their controls — a causal estimate no profiler gives.
//!
//! For each suspect (function F, feature X) and each of the first seeds: the seed's binary
//! as built (control) and the same seed relinked from the recorded build with B more bytes
//! in front of F's section only ([`crate::build::replay::Program::pad_before`]), B the
//! smallest multiple of 16 that changes X for F. The ELF check: every function before F at
//! its old address, F moved by exactly B, the same functions in the same order and sizes.
//! Of each pair, the binary with the higher X goes to variant `high`, the other to `low`;
//! both run interleaved through the normal runner into `DIR/explain/confirm-K/`, and the one
//! pair analysis (paired by seed, Fieller) gives the ratio high / low with its interval.
//! Whether F's padding also moved the code after it is decided by each seed's X, a coin
//! flip independent of the seed's other placements, so that shift averages out of the ratio.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::analysis::effect::Interval;
use crate::analysis::explain::{Confirmation, LayoutUnit, Suspect};
use crate::analysis::explain_plot::{ConfirmPair, PlacedMean};
use crate::analysis::pair::{analyse_pair, PairOptions};
use crate::analysis::report::experiment::Experiment;
use crate::analysis::vocabulary::{Thresholds, Verdict};
use crate::build::replay::Program;
use crate::files::manifest::{Binary, BinarySet, BuildStatus, Manifest, VariantBuild};
use crate::layout::binary::{self, Function};
use crate::layout::features::{self, ICache};

/// At most this many suspects are confirmed (the strongest, one feature per function).
pub const MAX_SUSPECTS: usize = 3;

/// The suspects to confirm: the strongest culprits, one (its strongest feature) per
/// function, at most [`MAX_SUSPECTS`].
pub fn suspects(culprits: &[Suspect]) -> Vec<&Suspect> {
    let mut seen = std::collections::BTreeSet::new();
    culprits
        .iter()
        .filter(|c| seen.insert(c.function.as_str()))
        .take(MAX_SUSPECTS)
        .collect()
}

/// Confirms `suspect` on the first `seeds` of `units` (the screened binaries of
/// `program`), in `DIR/explain/confirm-K` with `K` = `index`.
pub fn confirm(
    exp: &Experiment,
    program: &str,
    units: &[(u64, &LayoutUnit)],
    suspect: &Suspect,
    cache: &ICache,
    index: usize,
) -> Result<Confirmation> {
    let manifest = exp
        .manifest
        .as_ref()
        .context("confirmation needs manifest.json")?;
    let rel = PathBuf::from(super::EXPLAIN_DIR).join(format!("confirm-{index}"));
    let out = exp.dir.join(&rel);
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("cannot clear {}", out.display()))?;
    }
    std::fs::create_dir_all(&out)?;
    let relinker = program_of(&exp.dir, manifest, program)?;
    let mut sides: BTreeMap<&str, Vec<BinarySet>> = BTreeMap::new();
    let mut bytes = Vec::new();
    let mut placed = Vec::new();
    for (seed, unit) in units {
        let at = Relink {
            exp,
            manifest,
            relinker: &relinker,
            out: &out,
            program,
        };
        let (one, [low, high]) = at.moved_pair(*seed, unit, suspect, cache)?;
        sides.entry("low").or_default().push(low);
        sides.entry("high").or_default().push(high);
        bytes.push(one.pad);
        placed.push(one);
    }
    let _ = std::fs::remove_dir_all(out.join("work"));
    write_manifest(&exp.dir, &out, manifest, program, sides)?;
    run(exp, &out)?;
    let (ratio, ci, verdict, means) = analyse(&out)?;
    let pairs = confirm_pairs(&placed, &means);
    let confirmed = verdict == Verdict::Detected && (ratio > 1.0) == (suspect.effect > 0.0);
    Ok(Confirmation {
        function: suspect.function.clone(),
        feature: suspect.feature,
        relinks: units.len(),
        bytes,
        ratio,
        ci,
        verdict,
        confirmed,
        dir: rel.display().to_string(),
        pairs,
    })
}

/// One seed's relink with the suspect moved: the feature's value before and after, whether
/// the control (the seed as built) is the high side of the feature, and the padding.
struct Placed {
    seed: u64,
    before: f64,
    after: f64,
    control_high: bool,
    pad: u64,
}

/// Where a confirmation relinks: the experiment, its manifest, the recorded program and the
/// confirmation's directory.
struct Relink<'a> {
    exp: &'a Experiment,
    manifest: &'a Manifest,
    relinker: &'a Program,
    out: &'a Path,
    program: &'a str,
}

impl Relink<'_> {
    /// Relinks `seed` with only the suspect's function padded so that its feature flips,
    /// checks from the ELF that nothing else moved, and returns the placement with the
    /// pair's two binary sets (the low side of the feature, then the high side).
    fn moved_pair(
        &self,
        seed: u64,
        unit: &LayoutUnit,
        suspect: &Suspect,
        cache: &ICache,
    ) -> Result<(Placed, [BinarySet; 2])> {
        let f = unique(&unit.functions, &suspect.function)?;
        let pad = flipping_pad(suspect.feature, f, &unit.functions, cache).with_context(|| {
            format!(
                "no padding of up to 4 KiB changes {} of {}",
                suspect.feature.name(),
                f.name
            )
        })?;
        let (control, libraries) = seed_binary(&self.exp.dir, self.manifest, seed, self.program)?;
        let moved = self.out.join(format!("moved/seed-{seed}/{}", self.program));
        let mut one = self.relinker.clone();
        one.pad_before = Some((f.name.clone(), pad));
        one.link(Some(seed), &moved, &self.out.join("work"))
            .with_context(|| format!("relinking seed {seed} with {} moved", f.name))?;
        check_only_moved(&unit.functions, &binary::functions(&moved)?, f, pad)
            .with_context(|| format!("seed {seed}: {}", moved.display()))?;
        let p = BTreeMap::new();
        let value = |at: &Function| features::value(suspect.feature, at, cache, &p);
        let shifted = Function {
            address: f.address + pad,
            ..f.clone()
        };
        let control_high = value(&shifted) <= value(f);
        let (low, high) = if control_high {
            (moved, control)
        } else {
            (control, moved)
        };
        let set = |path: &Path| binary_set(self.out, Some(seed), self.program, path, &libraries);
        let placed = Placed {
            seed,
            before: value(f),
            after: value(&shifted),
            control_high,
            pad,
        };
        Ok((placed, [set(&low)?, set(&high)?]))
    }
}

/// The control and moved means of each relinked seed, by side (`means` keyed by side and
/// seed); a seed missing from the analysis is left out.
fn confirm_pairs(placed: &[Placed], means: &BTreeMap<(&str, u64), f64>) -> Vec<ConfirmPair> {
    placed
        .iter()
        .filter_map(|p| {
            let (c, m) = if p.control_high {
                ("high", "low")
            } else {
                ("low", "high")
            };
            Some(ConfirmPair {
                seed: p.seed,
                control: PlacedMean {
                    value: p.before,
                    mean: *means.get(&(c, p.seed))?,
                },
                moved: PlacedMean {
                    value: p.after,
                    mean: *means.get(&(m, p.seed))?,
                },
            })
        })
        .collect()
}

fn unique<'a>(functions: &'a [Function], name: &str) -> Result<&'a Function> {
    let mut found = functions.iter().filter(|f| f.name == name);
    match (found.next(), found.next()) {
        (Some(f), None) => Ok(f),
        _ => bail!("{name} is not one function of the binary"),
    }
}

/// The smallest multiple of 16 bytes (at most a page) that changes `feature` of `f` when
/// `f` moves by it (the set pressure taken from the binary as it is).
fn flipping_pad(
    feature: features::Feature,
    f: &Function,
    all: &[Function],
    cache: &ICache,
) -> Option<u64> {
    let refs: Vec<&Function> = all.iter().collect();
    let pressure = features::hot_lines_per_set(&refs, cache);
    let now = features::value(feature, f, cache, &pressure);
    (1..=features::PAGE / 16).map(|k| 16 * k).find(|&b| {
        let moved = Function {
            address: f.address + b,
            ..f.clone()
        };
        features::value(feature, &moved, cache, &pressure) != now
    })
}

/// The ELF check of a targeted relink: the same functions in the same order and sizes,
/// every one before `f` at its old address, `f` moved by exactly `pad`.
fn check_only_moved(before: &[Function], after: &[Function], f: &Function, pad: u64) -> Result<()> {
    let ids = |v: &[Function]| v.iter().map(|g| (g.id.clone(), g.size)).collect::<Vec<_>>();
    if ids(before) != ids(after) {
        bail!("the relink changed the functions, their order or sizes");
    }
    for (a, b) in before.iter().zip(after) {
        if a.address < f.address && a.address != b.address {
            bail!(
                "{} before {} moved ({:#x} to {:#x})",
                a.name,
                f.name,
                a.address,
                b.address
            );
        }
        if a.id == f.id && b.address != a.address + pad {
            bail!(
                "{} moved to {:#x}, not by {pad} bytes from {:#x}",
                f.name,
                b.address,
                a.address
            );
        }
    }
    Ok(())
}

/// The program's relinker from the experiment's recording, with the build's settings.
fn program_of(dir: &Path, manifest: &Manifest, program: &str) -> Result<Program> {
    let record_dir = dir.join(crate::build::driver::RECORD_DIR);
    let links = crate::wrap::record::read_records(&record_dir)
        .with_context(|| format!("cannot read the recorded build in {}", record_dir.display()))?;
    crate::wrap::record::check_blobs(&record_dir, &links)?;
    let opts = crate::build::driver::BuildOptions {
        command: manifest.build_command.clone(),
        build_dir: manifest.build_dir.clone(),
        out_dir: dir.to_path_buf(),
        seeds: Vec::new(),
        granularity: manifest.granularity,
        linker: crate::build::linker::Linker::parse(&manifest.linker),
        jobs: 1,
        echo_build: false,
        progress: Default::default(),
        rebuild: false,
        allow_many_seeds: false,
        pad: Some(manifest.pad),
        programs: None,
    };
    let (programs, _) = crate::build::programs::programs_isolated(&links, &record_dir, &opts)?;
    programs
        .into_iter()
        .find(|p| p.name == program)
        .with_context(|| format!("the recording has no link of {program}"))
}

/// The seed's program and the shared libraries of the build it loads (as the manifest
/// names them, paths made absolute): both sides of a pair load the seed's own.
fn seed_binary(
    dir: &Path,
    manifest: &Manifest,
    seed: u64,
    program: &str,
) -> Result<(PathBuf, Vec<Binary>)> {
    let set = manifest
        .seeds
        .iter()
        .find(|s| s.seed == Some(seed))
        .with_context(|| format!("the manifest has no seed {seed}"))?;
    let b = set
        .find(program)
        .with_context(|| format!("seed {seed} has no {program}"))?;
    Ok((dir.join(&b.path), absolute(dir, &set.libraries)))
}

/// `libraries` with their paths joined to `dir`.
fn absolute(dir: &Path, libraries: &[Binary]) -> Vec<Binary> {
    libraries
        .iter()
        .map(|l| Binary {
            path: dir.join(&l.path),
            ..l.clone()
        })
        .collect()
}

/// One seed's binary set for the confirmation's manifest (its file and the libraries it
/// loads copied in, so that the confirmation directory holds everything it measured and
/// `run` stages the seed's libraries for both sides as it does for every seed).
fn binary_set(
    out: &Path,
    seed: Option<u64>,
    program: &str,
    path: &Path,
    libraries: &[Binary],
) -> Result<BinarySet> {
    let label = crate::files::manifest::binary_label(seed);
    let local = if path.starts_with(out) {
        path.to_path_buf()
    } else {
        let to = out.join(format!("kept/{label}/{program}"));
        std::fs::create_dir_all(to.parent().expect("a file in a directory"))?;
        std::fs::copy(path, &to).with_context(|| format!("copying {}", path.display()))?;
        to
    };
    let mut kept = Vec::new();
    for lib in libraries {
        let name = lib.path.file_name().context("a library file")?;
        let to = out.join(format!("kept/{label}/lib")).join(name);
        if !to.exists() {
            std::fs::create_dir_all(to.parent().expect("a file in a directory"))?;
            std::fs::copy(&lib.path, &to)
                .with_context(|| format!("copying {}", lib.path.display()))?;
        }
        kept.push(Binary {
            path: to.strip_prefix(out)?.to_path_buf(),
            ..lib.clone()
        });
    }
    let functions = binary::functions(&local)?;
    Ok(BinarySet {
        seed,
        kind: None,
        status: BuildStatus::Ok,
        error: None,
        binaries: vec![Binary {
            name: program.to_string(),
            path: local.strip_prefix(out)?.to_path_buf(),
            sha256: crate::files::manifest::sha256_of_file(&local)?,
            fingerprint: crate::layout::fingerprint(&functions),
            functions: functions.len(),
            distance: None,
            link_seconds: 0.0,
            soname: None,
            code: None,
            offsets: None,
            versus_baseline: None,
        }],
        libraries: kept,
    })
}

/// The confirmation's manifest: variants `high` and `low`, each the seeds of its side and
/// the experiment's baseline (copied in once).
fn write_manifest(
    dir: &Path,
    out: &Path,
    manifest: &Manifest,
    program: &str,
    mut sides: BTreeMap<&str, Vec<BinarySet>>,
) -> Result<()> {
    let base = manifest.baseline.find(program).context("no baseline")?;
    let libraries = absolute(dir, &manifest.baseline.libraries);
    let baseline = binary_set(out, None, program, &dir.join(&base.path), &libraries)?;
    let variant = |name: &str, seeds: Vec<BinarySet>| VariantBuild {
        name: name.to_string(),
        build: Manifest {
            baseline: baseline.clone(),
            seeds,
            as_built: None,
            programs: Vec::new(),
            variants: Vec::new(),
            ..manifest.clone()
        },
    };
    let variants = vec![
        variant("low", sides.remove("low").unwrap_or_default()),
        variant("high", sides.remove("high").unwrap_or_default()),
    ];
    let top = Manifest {
        baseline: variants[0].build.baseline.clone(),
        seeds: variants[0].build.seeds.clone(),
        as_built: None,
        programs: Vec::new(),
        variants,
        ..manifest.clone()
    };
    top.save(out)
}

/// `layoutrand run` on the confirmation directory with the experiment's own command,
/// metric and counts (a process of its own, as `experiment` runs its stages).
fn run(exp: &Experiment, out: &Path) -> Result<()> {
    let h = &exp.header;
    let exe = std::env::current_exe().context("cannot find the layoutrand executable")?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("run").arg("--out").arg(out);
    cmd.args(["--executions", &h.executions.to_string()]);
    if h.iterations > 0 {
        cmd.args(["--iterations", &h.iterations.to_string()]);
    }
    cmd.args(["--warmup", &h.warmup.to_string()]);
    cmd.args(["--env-pad", &h.env_pad_max.to_string()]);
    cmd.args(["--schedule-seed", &h.schedule_seed.to_string()]);
    cmd.args(["--metric", &h.metric]);
    if let Some(model) = &h.cache_model {
        let [i1, d1, ll] = model.valgrind_args();
        let sim = [i1, d1, ll]
            .map(|a| a.trim_start_matches("--").to_string())
            .join(",");
        cmd.args(["--cache-sim", &sim]);
    }
    if let Some(t) = h.timeout_seconds {
        cmd.args(["--timeout", &format!("{t}")]);
    }
    cmd.arg("--").args(&h.command);
    if let Some(cwd) = &h.cwd {
        cmd.current_dir(cwd);
    }
    let output = cmd.output().context("cannot start `layoutrand run`")?;
    if !output.status.success() {
        bail!(
            "the confirmation run in {} failed ({}): {}",
            out.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        );
    }
    Ok(())
}

/// Each side's mean per seed, by (`low`/`high`, seed).
type SideMeans = BTreeMap<(&'static str, u64), f64>;

/// The pair analysis of `high` against `low`, paired by seed, with the report's default
/// thresholds: the ratio, its interval and the verdict in the project's words; and every
/// binary's mean.
fn analyse(out: &Path) -> Result<(f64, Option<Interval>, Verdict, SideMeans)> {
    let exp = crate::analysis::report::experiment::load(out)?;
    let mut means = SideMeans::new();
    for s in &exp.series {
        let side = match s.variant.as_deref() {
            Some("low") => "low",
            Some("high") => "high",
            _ => continue,
        };
        if s.metric != exp.primary_metric {
            continue;
        }
        for b in &s.seeds {
            if let Some(seed) = b.seed {
                means.insert((side, seed), b.mean());
            }
        }
    }
    let side = |name: &str| -> Result<crate::stats::hierarchy::Hierarchy> {
        let s = exp
            .series
            .iter()
            .find(|s| s.metric == exp.primary_metric && s.variant.as_deref() == Some(name))
            .with_context(|| format!("no measurements of variant {name} in {}", out.display()))?;
        let (h, _) = crate::analysis::report::builder::seed_hierarchy(s)
            .with_context(|| format!("variant {name}: no usable binary"))?;
        let ids = s.seeds.iter().map(|b| b.binary.clone()).collect();
        Ok(h.with_top_ids(ids)?)
    };
    let (low, high) = (side("low")?, side("high")?);
    let options = PairOptions {
        thresholds: Thresholds::default(),
        is_time: false,
        bootstrap: None,
        fail_if_slower: None,
    };
    let pair = analyse_pair(&low, &high, "binaries", &options, &mut Vec::new());
    Ok((
        pair.effect.ratio,
        pair.effect.ci,
        pair.effect.verdict.detection(),
        means,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::features::Feature;

    fn cache() -> ICache {
        ICache {
            line: 64,
            sets: 64,
            ways: 8,
        }
    }

    #[test]
    fn the_smallest_padding_that_flips_the_feature() {
        let all = |f: &Function| vec![f.clone()];
        // At 16 into its line: 16 more bytes reach 32, the upper half.
        let f = Function::named("f", 0x1010, 40);
        assert_eq!(
            flipping_pad(Feature::UpperHalfLine, &f, &all(&f), &cache()),
            Some(16)
        );
        // At 48: 16 more wrap to 0, the lower half.
        let g = Function::named("g", 0x1030, 40);
        assert_eq!(
            flipping_pad(Feature::UpperHalfLine, &g, &all(&g), &cache()),
            Some(16)
        );
        // At 0 with 100 bytes (lines 0x1000..0x1063, 2 lines): 16 bytes still span 2 lines
        // (0x1010..0x1073); 32 bytes reach 0x1083, a third line.
        let h = Function::named("h", 0x1000, 100);
        assert_eq!(
            flipping_pad(Feature::Lines, &h, &all(&h), &cache()),
            Some(32)
        );
        // Offset mod 16 of a 16-aligned function never changes by multiples of 16.
        assert_eq!(
            flipping_pad(Feature::OffsetMod16, &h, &all(&h), &cache()),
            None
        );
    }

    #[test]
    fn only_the_function_and_what_follows_may_move() {
        let before = vec![
            Function::named("a", 0x1000, 16),
            Function::named("f", 0x1010, 16),
            Function::named("b", 0x1020, 16),
        ];
        let f = before[1].clone();
        let good = vec![
            Function::named("a", 0x1000, 16),
            Function::named("f", 0x1030, 16),
            Function::named("b", 0x1040, 16),
        ];
        assert!(check_only_moved(&before, &good, &f, 32).is_ok());
        // Moved by another amount.
        assert!(check_only_moved(&before, &good, &f, 16).is_err());
        // A function before it moved too.
        let mut bad = good.clone();
        bad[0].address = 0x1008;
        assert!(check_only_moved(&before, &bad, &f, 32).is_err());
        // The order changed.
        let swapped = vec![good[0].clone(), good[2].clone(), good[1].clone()];
        assert!(check_only_moved(&before, &swapped, &f, 32).is_err());
    }
}
