//! `explain --confirm`: targeted relinks in which only a suspect moves, measured against
//! their controls — a causal estimate no profiler gives.
//!
//! For each suspect (function F, feature X) and each of the first seeds: the seed's binary
//! as built (control) and the same seed relinked from the recorded build with B more bytes
//! in front of F's section ([`crate::relink::replay::MoveAlone`]), B the smallest multiple
//! of F's alignment that changes X for F (or, when the screening shows a fast value of X a
//! padding gives and the seed lacks it, the smallest that gives it: that relink is then the
//! fix put to the test), and `P − B` bytes behind that section's code, P the cache's set
//! period (sets × line size, at least a page). So F's section moves by B and all the code
//! after it by P, which changes no placement feature of that code: every offset within a
//! line, window or page and every cache set stays the same. (Padding in front of F alone
//! would move a neighbour after F in lock-step with it, and confirm the suspect for the
//! neighbour's effect.) The ELF check: the same functions in the same order and sizes, the
//! functions before F's section where they were, F and the functions sharing its section
//! moved by B, all after by P, and no other hot function's placement feature changed.
//! Every suspect's relinks (variant `moved-K`) and the seeds as built (variant `control`,
//! once for all suspects) run interleaved through the normal runner into one store,
//! `DIR/explain/confirm/`; per suspect, of each seed the binary with the higher X is the
//! high side, and the one pair analysis (paired by seed, Fieller) gives the ratio high / low
//! with its interval.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::analysis::answers::experiment::Experiment;
use crate::analysis::answers::series::{BinaryData, Series};
use crate::analysis::effect::Interval;
use crate::analysis::explain::{Confirmation, LayoutUnit, Screening, Suspect};
use crate::analysis::explain_plot::{ConfirmPair, PlacedMean};
use crate::analysis::pair::{analyse_pair, PairOptions};
use crate::analysis::vocabulary::{Thresholds, Verdict};
use crate::files::manifest::{Binary, BinarySet, BuildStatus, Manifest, VariantBuild};
use crate::files::results::Header;
use crate::layout::binary::{self, Function};
use crate::layout::features::{self, Feature, HotPlacement, ICache, RunningCode, FEATURES};
use crate::relink::replay::{MoveAlone, Program};
use crate::stats::hierarchy::Hierarchy;

use super::image::{Image, ImageLibrary};

/// At most this many suspects are confirmed (the strongest, one feature per function).
pub(crate) const MAX_SUSPECTS: usize = 3;

/// The suspects to confirm: the functions of the strongest findings, each finding's
/// members in turn (so that functions whose placements move together are moved apart and
/// each confirmed on its own), one pair (its strongest feature) per function, at most
/// [`MAX_SUSPECTS`].
pub(crate) fn suspects(screening: &Screening) -> Vec<&Suspect> {
    let mut seen = std::collections::BTreeSet::new();
    screening
        .findings
        .iter()
        .flat_map(|f| f.members.iter())
        .filter_map(|&i| screening.culprits.get(i))
        .filter(|c| seen.insert(c.function.as_str()))
        .take(MAX_SUSPECTS)
        .collect()
}

/// What a confirmation is given: the experiment, the program, its screened binaries by
/// seed (the first are relinked), the hot functions' names (whose placement the features
/// read) and the cache.
pub(crate) struct Screened<'a> {
    /// The experiment.
    pub(crate) exp: &'a Experiment,
    /// The build screened (the experiment's, or a variant's entry in it): its binaries'
    /// paths are relative to the experiment directory.
    pub(crate) manifest: &'a Manifest,
    /// The directory holding that build's recording (`.record`): the experiment
    /// directory, or a variant's `DIR/NAME`.
    pub(crate) record_base: &'a Path,
    /// The folder of the experiment directory the confirmations go to (`explain`, or a
    /// variant's `NAME/explain`).
    pub(crate) out_rel: &'a Path,
    /// The program explained.
    pub(crate) program: &'a str,
    /// The metric explained (a name in the store).
    pub(crate) metric: &'a str,
    /// The pair analysis's confidence and relevance threshold.
    pub(crate) thresholds: Thresholds,
    /// The seeds to relink and their binaries as screened.
    pub(crate) units: &'a [(u64, &'a LayoutUnit)],
    /// Every binary screened (the levels a fix is held to).
    pub(crate) screened: &'a [LayoutUnit],
    /// The hot functions' names.
    pub(crate) hot: &'a [String],
    /// The cache of the set features.
    pub(crate) cache: &'a ICache,
    /// The code running beside the hot functions, counted in the set pressure as the
    /// screening does.
    pub(crate) running: &'a RunningCode,
    /// The program and the build's libraries it loads, whose functions were screened: a
    /// library's suspect is moved by relinking that library.
    pub(crate) image: &'a Image,
}

/// The bytes the code after a moved function's section moves by: the cache's set period
/// (sets × line size: a line at the same offset and in the same set), at least a page (the
/// same offset within its page). Powers of two, so the larger is a multiple of the other.
pub(crate) fn set_period(cache: &ICache) -> u64 {
    (cache.sets * cache.line).max(features::PAGE)
}

/// The variant of a confirmation's store that holds the seeds as built.
const CONTROL: &str = "control";

/// The variant of a confirmation's store that holds the relinks with suspect `k` (counted
/// from 0) moved.
fn moved_variant(k: usize) -> String {
    format!("moved-{}", k + 1)
}

/// Confirms `suspects` on the binaries of `screened` in one store, `DIR/explain/confirm`:
/// the seeds as built (variant `control`) measured once and interleaved with every
/// suspect's relinks (variant `moved-K`), so that K suspects cost K + 1 binaries per seed
/// rather than 2K (issue 49: `--confirm` at most twice the run). Where the screening shows a
/// fast placement a padding gives (the fix), a seed as built without it is relinked to it,
/// so every seed has a binary at the fix's placement and the fix is proven without a third.
pub(crate) fn confirm(
    screened: &Screened,
    suspects: &[Suspect],
    say: &dyn Fn(String),
) -> Result<Vec<Confirmation>> {
    let Screened {
        exp,
        manifest,
        program,
        units,
        ..
    } = *screened;
    if manifest
        .pin
        .as_ref()
        .is_some_and(|pin| pin.program(program).is_some())
    {
        // Its seeds were placed by the pin, which a relink "as built" would have to repeat.
        bail!(
            "--confirm is not available on a pinned build ({program} was built with --pin): \
             explain the experiment the pin was made from"
        );
    }
    let rel = screened.out_rel.join("confirm");
    let out = exp.dir.join(&rel);
    let root = crate::files::confined::ExperimentDir::open(&exp.dir)?;
    root.remove_dir_all(&rel)
        .with_context(|| format!("cannot clear {}", out.display()))?;
    root.create_dir_all(&rel)?;
    let mut control = Vec::new();
    for (seed, _) in units {
        let (path, libraries) = seed_binary(&exp.dir, manifest, *seed, program)?;
        control.push(binary_set(&out, Some(*seed), program, &path, &libraries)?);
    }
    let mut variants = vec![(CONTROL.to_string(), control)];
    let mut relinked = Vec::new();
    for (k, suspect) in suspects.iter().enumerate() {
        say(format!(
            "relinking {} seeds with {} moved alone ({} of {} suspects)",
            units.len(),
            suspect.function,
            k + 1,
            suspects.len()
        ));
        let (one, sets) = relink_suspect(screened, &out, suspect, k)
            .with_context(|| format!("confirming {}", suspect.function))?;
        variants.push((moved_variant(k), sets));
        relinked.push(one);
    }
    let _ = root.remove_dir_all(rel.join("work"));
    write_manifest(&exp.dir, &out, manifest, program, variants)?;
    say(format!(
        "running the {} seeds as built and their {} relinks, interleaved",
        units.len(),
        units.len() * suspects.len()
    ));
    run(exp, &out)?;
    let measured = Measured::load(&out, screened.metric)?;
    suspects
        .iter()
        .zip(&relinked)
        .enumerate()
        .map(|(k, (suspect, one))| {
            judge(screened, suspect, one, &measured, k, &rel)
                .with_context(|| format!("confirming {}", suspect.function))
        })
        .collect()
}

/// One suspect's relinks: each seed's placement, and the fix's placement when every seed
/// has a binary at it (as built or relinked), else `None`.
struct Relinked {
    placed: Vec<Placed>,
    fix_target: Option<f64>,
}

/// Relinks every seed of `screened` with `suspect` (the `k`-th) moved alone into
/// `moved-K/` (relinking the program, or the build's library the suspect is in): the
/// placements, and each relink's binary set for the store's manifest.
fn relink_suspect(
    screened: &Screened,
    out: &Path,
    suspect: &Suspect,
    k: usize,
) -> Result<(Relinked, Vec<BinarySet>)> {
    let library = (screened.units.first()).and_then(|(_, unit)| {
        screened
            .image
            .library_holding(&unit.functions, &suspect.function)
    });
    let object = library.map_or(screened.program, |l| l.name.as_str());
    let relinker = program_of(
        screened.record_base,
        &screened.exp.dir,
        screened.manifest,
        object,
    )?;
    let at = Relink {
        exp: screened.exp,
        manifest: screened.manifest,
        relinker: &relinker,
        library,
        image: screened.image,
        out,
        program: screened.program,
        hot: screened.hot,
        cache: screened.cache,
        running: screened.running,
        steps: alignment_step(screened.units, &suspect.function),
        folder: moved_variant(k),
    };
    // The fix put to the test beside the confirmation (issue 49).
    let mut fix_target = crate::analysis::explain::fix_target(suspect);
    let mut placed = Vec::new();
    let mut sets = Vec::new();
    for (seed, unit) in screened.units {
        let (one, path, libraries) = at.moved(*seed, unit, suspect, fix_target)?;
        if one.fix_pad.is_none() {
            // No padding gives this seed the fix's placement: the fix is not put to the
            // test at all (no proof on some of the seeds).
            fix_target = None;
        }
        sets.push(binary_set(
            out,
            Some(*seed),
            screened.program,
            &path,
            &libraries,
        )?);
        placed.push(one);
    }
    Ok((Relinked { placed, fix_target }, sets))
}

/// The verdict on the `k`-th suspect from the confirmation's store (`rel`, relative to
/// the experiment): the pairs, the ratio of the feature's high side over its low side with
/// its interval, the pairs' directions and the fix's proof.
fn judge(
    screened: &Screened,
    suspect: &Suspect,
    relinked: &Relinked,
    measured: &Measured,
    k: usize,
    rel: &Path,
) -> Result<Confirmation> {
    let variant = moved_variant(k);
    let placed = &relinked.placed;
    let (ratio, ci, verdict) = measured.pair(placed, &variant, screened.thresholds)?;
    let pairs = confirm_pairs(placed, measured, &variant);
    let fix_proof = relinked
        .fix_target
        .and_then(|target| fix_proof(screened, suspect, target, placed, measured, &variant));
    let predicted_higher = suspect.effect > 0.0;
    let directions = crate::analysis::explain::PairDirections::of(
        &pairs,
        predicted_higher,
        screened.thresholds.negligible,
    );
    // The ratio's interval decides when it can; when it cannot tell (a change large in
    // every pair but too uneven for an interval), the pairs' directions do (issue 49).
    let confirmed = match verdict {
        Verdict::Detected => (ratio > 1.0) == predicted_higher,
        Verdict::Undetermined => directions.p < screened.thresholds.alpha(),
        _ => false,
    };
    let moved_with: std::collections::BTreeSet<String> = placed
        .iter()
        .flat_map(|p| p.moved_with.iter().cloned())
        .collect();
    Ok(Confirmation {
        function: suspect.function.clone(),
        feature: suspect.feature,
        relinks: placed.len(),
        bytes: placed.iter().map(|p| p.pad).collect(),
        code_after_moved: set_period(screened.cache),
        moved_with: moved_with.into_iter().collect(),
        ratio,
        ci,
        confidence: screened.thresholds.confidence,
        verdict,
        confirmed,
        sign_test: Some(directions),
        dir: rel.display().to_string(),
        variant,
        pairs,
        fix_proof,
    })
}

/// The proof of the fix at `target`: each seed's binary at it (the seed as built, or its
/// relink to it) against the levels of every screened binary at that placement and at the
/// others; `None` when a seed was not measured or the levels cannot be read.
fn fix_proof(
    screened: &Screened,
    suspect: &Suspect,
    target: f64,
    placed: &[Placed],
    measured: &Measured,
    variant: &str,
) -> Option<crate::analysis::explain::FixProof> {
    let hot = || screened.hot.iter().map(String::as_str);
    let (values, response): (Vec<f64>, Vec<f64>) = screened
        .screened
        .iter()
        .filter_map(|u| {
            let p = HotPlacement::running(&u.functions, hot(), screened.cache, screened.running);
            Some((p.value(suspect.feature, &suspect.function)?, u.mean))
        })
        .unzip();
    let levels = crate::analysis::explain::levels_at(&values, &response, target)?;
    let (pads, fixed): (Vec<u64>, Vec<f64>) = placed
        .iter()
        .map(|p| {
            let pad = p.fix_pad?;
            let side = if pad == 0 { CONTROL } else { variant };
            Some((pad, measured.mean(side, p.seed)?))
        })
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .unzip();
    // Seeds that had the placement as built are the screening's evidence again: a proof
    // needs at least one relinked to it.
    if pads.iter().all(|pad| *pad == 0) {
        return None;
    }
    Some(crate::analysis::explain::FixProof::of(
        target,
        pads,
        fixed,
        &levels,
        drift(screened, measured)?,
        screened.thresholds.confidence,
    ))
}

/// The confirmation's speed against the run's: the seeds as built, measured in both, their
/// mean in the confirmation over their mean in the run (1 for a deterministic metric, up to
/// its executions' environment paddings).
fn drift(screened: &Screened, measured: &Measured) -> Option<f64> {
    let (now, then): (Vec<f64>, Vec<f64>) = screened
        .units
        .iter()
        .filter_map(|(seed, unit)| Some((measured.mean(CONTROL, *seed)?, unit.mean)))
        .unzip();
    let (now, then) = (now.iter().sum::<f64>(), then.iter().sum::<f64>());
    (then > 0.0 && now > 0.0).then(|| now / then)
}

/// One seed's relink with the suspect moved: the feature's value before and after, whether
/// the control (the seed as built) is the high side of the feature, the padding, the hot
/// functions that share the suspect's section (moved with it), and the padding that gives
/// the seed the fix's placement (0: as built; the relink's: the relink; `None`: neither, or
/// no fix to prove).
struct Placed {
    seed: u64,
    before: f64,
    after: f64,
    control_high: bool,
    pad: u64,
    moved_with: Vec<String>,
    fix_pad: Option<u64>,
}

/// Where a confirmation relinks: the experiment, its manifest, the recorded program, the
/// confirmation's directory, the hot functions and the cache.
struct Relink<'a> {
    exp: &'a Experiment,
    manifest: &'a Manifest,
    /// The relinker of the object the suspect is in: the program, or `library`.
    relinker: &'a Program,
    /// The build's library the suspect is in (`None`: the program).
    library: Option<&'a ImageLibrary>,
    /// The program and its libraries as screened.
    image: &'a Image,
    out: &'a Path,
    program: &'a str,
    hot: &'a [String],
    cache: &'a ICache,
    running: &'a RunningCode,
    /// The suspect's padding steps ([`alignment_step`]).
    steps: u64,
    /// The folder of the confirmation's directory the relinks go to (`moved-K`).
    folder: String,
}

impl Relink<'_> {
    /// Relinks `seed` with only the suspect's section moved so that its feature changes:
    /// to the fix's placement `target` when the seed as built lacks it and a padding gives
    /// it, else by the smallest padding that changes it. Checks from the ELF that nothing
    /// else changed placement; returns the placement, the relink's path and the libraries
    /// the seed loads.
    fn moved(
        &self,
        seed: u64,
        unit: &LayoutUnit,
        suspect: &Suspect,
        target: Option<f64>,
    ) -> Result<(Placed, PathBuf, Vec<Binary>)> {
        let hot = || self.hot.iter().map(String::as_str);
        let f = unique(&unit.functions, &suspect.function)?;
        let as_built = HotPlacement::running(&unit.functions, hot(), self.cache, self.running);
        let period = set_period(self.cache);
        let step = self.steps;
        let value = |p: &HotPlacement| p.value(suspect.feature, &f.name);
        let to_target = target
            .filter(|t| value(&as_built) != Some(*t))
            .and_then(|t| padding_to(suspect.feature, &as_built, &f.name, step, period, t));
        let pad = match to_target {
            Some(pad) => pad,
            None => flipping_pad(suspect.feature, &as_built, &f.name, step, period).with_context(
                || {
                    format!(
                        "no padding of up to 4 KiB changes {} of {}",
                        suspect.feature.name(),
                        f.name
                    )
                },
            )?,
        };
        let (program, mut libraries) =
            seed_binary(&self.exp.dir, self.manifest, seed, self.program)?;
        let (moved, with, after) = self.relinked(seed, unit, f, pad)?;
        // The relink replaces its object in the seed: the program, or one of its libraries.
        let program = match self.library {
            None => moved,
            Some(l) => {
                let entry = (libraries.iter_mut())
                    .find(|b| b.name == l.name)
                    .with_context(|| format!("seed {seed} has no library {}", l.name))?;
                entry.sha256 = crate::files::manifest::sha256_of_file(&moved)?;
                entry.path = moved;
                program
            }
        };
        let before_value = value(&as_built).unwrap_or(f64::NAN);
        let after_value = value(&after).unwrap_or(f64::NAN);
        if before_value == after_value || before_value.is_nan() || after_value.is_nan() {
            bail!(
                "seed {seed}: moving {} by {pad} bytes left its {} at {before_value}",
                f.name,
                suspect.feature.name()
            );
        }
        let fix_pad = match (target, to_target) {
            (Some(t), _) if before_value == t => Some(0),
            (Some(t), Some(_)) if after_value == t => Some(pad),
            (Some(t), Some(_)) => bail!(
                "seed {seed}: padding {} by {pad} bytes did not give it the {} {t} the fix \
                 asks for",
                f.name,
                suspect.feature.name()
            ),
            _ => None,
        };
        let moved_with: Vec<String> = hot()
            .filter(|h| with.iter().any(|w| w == h))
            .map(String::from)
            .collect();
        let placed = Placed {
            seed,
            before: before_value,
            after: after_value,
            control_high: after_value < before_value,
            pad,
            moved_with,
            fix_pad,
        };
        Ok((placed, program, libraries))
    }

    /// Relinks `seed` with `f`'s section `pad` bytes further and the code after it a set
    /// period further, into `DIR/explain/confirm/FOLDER/seed-S/PROGRAM` (a library's into
    /// its `lib/`), and checks from the ELF that nothing else changed placement: the file
    /// relinked, the functions moved with `f`, and the hot functions' placement with it.
    fn relinked(
        &self,
        seed: u64,
        unit: &LayoutUnit,
        f: &Function,
        pad: u64,
    ) -> Result<(PathBuf, Vec<String>, HotPlacement)> {
        let hot = || self.hot.iter().map(String::as_str);
        let period = set_period(self.cache);
        let as_built = HotPlacement::running(&unit.functions, hot(), self.cache, self.running);
        let file = match self.library {
            None => self.program.to_string(),
            Some(l) => format!("lib/{}", l.name),
        };
        let moved = self.out.join(format!("{}/seed-{seed}/{file}", self.folder));
        let mut one = self.relinker.clone();
        one.moves = vec![MoveAlone {
            function: f.name.clone(),
            file: f.id.file.clone(),
            before: pad,
            behind: period - pad,
        }];
        one.link(Some(seed), &moved, &self.out.join("work"))
            .with_context(|| format!("relinking seed {seed} with {} moved", f.name))?;
        let relinked = binary::functions(&moved)?;
        let before = self.image.part(&unit.functions, self.library);
        let with = check_moved_alone(&before, &relinked, f, pad, period)
            .with_context(|| format!("seed {seed}: {}", moved.display()))?;
        let image = self.image.replaced(&unit.functions, self.library, relinked);
        let after = HotPlacement::running(&image, hot(), self.cache, self.running);
        check_features_kept(&as_built, &after, &f.name, &with)
            .with_context(|| format!("seed {seed}: {}", moved.display()))?;
        Ok((moved, with, after))
    }
}

/// The seed as built and its relink in `variant`, with their feature values and means,
/// per relinked seed; a seed missing from the store is left out.
fn confirm_pairs(placed: &[Placed], measured: &Measured, variant: &str) -> Vec<ConfirmPair> {
    placed
        .iter()
        .filter_map(|p| {
            Some(ConfirmPair {
                seed: p.seed,
                control: PlacedMean {
                    value: p.before,
                    mean: measured.mean(CONTROL, p.seed)?,
                },
                moved: PlacedMean {
                    value: p.after,
                    mean: measured.mean(variant, p.seed)?,
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

/// The smallest multiple of `step` bytes (at most a page) that changes `feature` of the
/// hot function `name` of `placed` when it moves by it and the hot code after it by
/// `period`, as the relink moves them (the set pressure counting its lines in their new
/// sets; the code after it keeps its sets, and is not taken for the suspect's company when
/// the suspect reaches the addresses it had).
fn flipping_pad(
    feature: Feature,
    placed: &HotPlacement,
    name: &str,
    step: u64,
    period: u64,
) -> Option<u64> {
    let now = placed.value(feature, name)?;
    (1..=features::PAGE / step).map(|k| step * k).find(|&b| {
        placed
            .with_moved_alone(name, b, period)
            .value(feature, name)
            != Some(now)
    })
}

/// The smallest multiple of `step` bytes, below `period`, that gives the hot function
/// `name` of `placed` the value `target` of `feature` when it moves by it and the hot code
/// after it by `period` (as [`flipping_pad`] moves them); `None` when none does.
fn padding_to(
    feature: Feature,
    placed: &HotPlacement,
    name: &str,
    step: u64,
    period: u64,
    target: f64,
) -> Option<u64> {
    (1..period / step).map(|k| k * step).find(|&b| {
        placed
            .with_moved_alone(name, b, period)
            .value(feature, name)
            == Some(target)
    })
}

/// The padding steps that keep `name`'s section aligned, as the binaries show it: the
/// largest power of two (16 to a page) dividing every difference between its addresses in
/// `units`. A section aligned to A bytes starts at a multiple of A in every layout, so
/// this is a multiple of A (a coarser one only when every layout happens to agree more).
fn alignment_step(units: &[(u64, &LayoutUnit)], name: &str) -> u64 {
    let addresses: Vec<u64> = units
        .iter()
        .filter_map(|(_, u)| u.functions.iter().find(|f| f.name == name))
        .map(|f| f.address)
        .collect();
    let first = addresses.first().copied().unwrap_or(0);
    let mut step = 16;
    while step < features::PAGE
        && addresses
            .iter()
            .all(|a| a.abs_diff(first) % (2 * step) == 0)
    {
        step *= 2;
    }
    step
}

/// The ELF check of a targeted relink: the same functions in the same order and sizes;
/// those before `f`'s section where they were, `f` and the functions sharing its section
/// (a run of neighbours around it) moved by exactly `pad`, every one after them by
/// `period`. Returns the names of the functions that moved with `f`.
fn check_moved_alone(
    before: &[Function],
    after: &[Function],
    f: &Function,
    pad: u64,
    period: u64,
) -> Result<Vec<String>> {
    let ids = |v: &[Function]| v.iter().map(|g| (g.id.clone(), g.size)).collect::<Vec<_>>();
    if ids(before) != ids(after) {
        bail!("the relink changed the functions, their order or sizes");
    }
    let mut pairs: Vec<(&Function, &Function)> = before.iter().zip(after).collect();
    pairs.sort_by_key(|(a, _)| a.address);
    // 0: not moved (before the section), 1: moved with f by `pad`, 2: after it, by `period`.
    let mut stage = 0;
    let mut with = Vec::new();
    for (a, b) in pairs {
        let shift = b.address.wrapping_sub(a.address);
        let here = match shift {
            0 if stage == 0 => 0,
            s if s == pad && stage <= 1 => 1,
            s if s == period && stage >= 1 => 2,
            _ => bail!(
                "{} moved from {:#x} to {:#x}: not by 0 before {}, {pad} with it or {period} \
                 after it",
                a.name,
                a.address,
                b.address,
                f.name
            ),
        };
        if a.id == f.id && here != 1 {
            bail!(
                "{} moved to {:#x}, not by {pad} bytes from {:#x}",
                f.name,
                b.address,
                a.address
            );
        }
        if here == 1 && a.id != f.id {
            with.push(a.name.clone());
        }
        stage = here;
    }
    if stage == 0 {
        bail!("{} did not move", f.name);
    }
    Ok(with)
}

/// That no hot function but `moved` and those moved with it (`with`, its section's) changed
/// a placement feature, the set pressure aside (which the moved lines change for the
/// functions sharing their sets: that is the suspect's own effect).
fn check_features_kept(
    before: &HotPlacement,
    after: &HotPlacement,
    moved: &str,
    with: &[String],
) -> Result<()> {
    let changed =
        |name: &str, feature: Feature| before.value(feature, name) != after.value(feature, name);
    for name in before.names() {
        if name == moved || with.iter().any(|w| w == name) {
            continue;
        }
        if let Some(feature) = FEATURES
            .into_iter()
            .filter(|&x| x != Feature::OverfullSet)
            .find(|&x| changed(name, x))
        {
            bail!(
                "the hot function {name} changed its {} although only {moved} was moved",
                feature.name()
            );
        }
    }
    Ok(())
}

/// The program's relinker from the recording in `record_base` (the experiment's, or a
/// variant's `DIR/NAME`), with the build's settings, writing within the experiment
/// directory `dir`.
fn program_of(
    record_base: &Path,
    dir: &Path,
    manifest: &Manifest,
    program: &str,
) -> Result<Program> {
    let record_dir = record_base.join(crate::relink::driver::RECORD_DIR);
    // Relinked only as verified: every record's MAC and every blob's hash.
    let links = crate::wrap::record::read_verified_recording(&record_dir)
        .with_context(|| format!("cannot read the recorded build in {}", record_dir.display()))?;
    let opts = crate::relink::driver::BuildOptions {
        command: manifest.build_command.clone(),
        build_dir: manifest.build_dir.clone(),
        out_dir: dir.to_path_buf(),
        seeds: Vec::new(),
        granularity: manifest.granularity,
        linker: crate::relink::linker::Linker::parse(&manifest.linker),
        jobs: 1,
        echo_build: false,
        progress: Default::default(),
        rebuild: false,
        allow_many_seeds: false,
        pad: Some(manifest.pad),
        data_order: manifest.data_order,
        keep_debug: !manifest.strip_debug,
        pin: None,
        programs: None,
    };
    let (programs, _) = crate::relink::programs::programs_isolated(&links, &record_dir, &opts)?;
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
    Ok((super::verified(dir, set, program)?, absolute(dir, set)?))
}

/// `set`'s libraries with their paths resolved in `dir`, each checked as `run` checks it
/// ([`crate::run::targets::verified_binary`]).
fn absolute(dir: &Path, set: &BinarySet) -> Result<Vec<Binary>> {
    set.libraries
        .iter()
        .map(|l| {
            Ok(Binary {
                path: crate::run::targets::verified_binary(dir, l, "library", &set.label())?,
                ..l.clone()
            })
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
        let root = crate::files::confined::ExperimentDir::open(out)?;
        root.copy_in(path, root.rel(&to)?, None)
            .with_context(|| format!("copying {}", path.display()))?;
        to
    };
    let mut kept = Vec::new();
    for lib in libraries {
        let name = lib.path.file_name().context("a library file")?;
        // A relink of the confirmation's own stays where it was written.
        let to = match lib.path.starts_with(out) {
            true => lib.path.clone(),
            false => out.join(format!("kept/{label}/lib")).join(name),
        };
        if !to.exists() {
            let root = crate::files::confined::ExperimentDir::open(out)?;
            root.copy_in(&lib.path, root.rel(&to)?, None)
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
            ..Default::default()
        }],
        libraries: kept,
    })
}

/// The confirmation's manifest: one variant per entry of `variants` (`control`, then
/// `moved-K`), each the seeds it holds and the experiment's baseline (copied in once).
fn write_manifest(
    dir: &Path,
    out: &Path,
    manifest: &Manifest,
    program: &str,
    variants: Vec<(String, Vec<BinarySet>)>,
) -> Result<()> {
    let base = super::verified(dir, &manifest.baseline, program)?;
    let libraries = absolute(dir, &manifest.baseline)?;
    let baseline = binary_set(out, None, program, &base, &libraries)?;
    let variants: Vec<VariantBuild> = variants
        .into_iter()
        .map(|(name, seeds)| VariantBuild {
            name,
            build: Manifest {
                baseline: baseline.clone(),
                seeds,
                as_built: None,
                programs: Vec::new(),
                variants: Vec::new(),
                ..manifest.clone()
            },
        })
        .collect();
    let first = variants
        .first()
        .context("a confirmation without binaries")?;
    let top = Manifest {
        baseline: first.build.baseline.clone(),
        seeds: first.build.seeds.clone(),
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
    let verified = super::recorded_header(&exp.dir)?;
    let h: &Header = &verified;
    let exe = std::env::current_exe().context("cannot find the layoutrand executable")?;
    let mut cmd = crate::child::command(exe);
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
    if !h.ok_exit_codes.is_empty() {
        let codes: Vec<String> = h.ok_exit_codes.iter().map(i32::to_string).collect();
        cmd.args(["--ok-exit-codes", &codes.join(",")]);
    }
    cmd.arg("--").args(&h.command);
    if let Some(cwd) = &h.cwd {
        cmd.current_dir(cwd);
    }
    // A signal reaches the run, which kills its benchmark's tree, keeps its finished
    // executions and says so; the confirmation then stops.
    let kept = || crate::signals::Kept::Nothing {
        command: format!("layoutrand run --out {}", out.display()),
    };
    let output =
        crate::signals::output_until_interrupted(&mut cmd, crate::signals::Reach::Resend, kept)?
            .context("cannot start `layoutrand run`")?;
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

/// A confirmation's store read for one metric: its series by variant (`control`,
/// `moved-K`).
struct Measured {
    series: BTreeMap<String, Series>,
}

impl Measured {
    /// The series of `metric` in the store in `out`.
    fn load(out: &Path, metric: &str) -> Result<Measured> {
        let exp = crate::analysis::answers::experiment::load(out)?;
        let series = exp
            .series
            .into_iter()
            .filter(|s| s.metric == metric)
            .filter_map(|s| Some((s.variant.clone()?, s)))
            .collect();
        Ok(Measured { series })
    }

    /// The seed's binary in `variant`.
    fn binary(&self, variant: &str, seed: u64) -> Option<&BinaryData> {
        self.series
            .get(variant)?
            .seeds
            .iter()
            .find(|b| b.seed == Some(seed))
    }

    /// The mean of the seed's binary in `variant`.
    fn mean(&self, variant: &str, seed: u64) -> Option<f64> {
        self.binary(variant, seed).map(BinaryData::mean)
    }

    /// One side of the feature (`high`: the higher value) over the seeds of `placed`
    /// measured in both `control` and `variant` (a binary that failed in every execution is
    /// in neither side: the pairs stay pairs): per seed the seed as built or its relink,
    /// whichever has the feature on that side.
    fn side(&self, placed: &[Placed], variant: &str, high: bool) -> Result<Hierarchy> {
        let control = self
            .series
            .get(CONTROL)
            .context("no measurements of the seeds as built")?;
        let seeds: Vec<BinaryData> = placed
            .iter()
            .filter(|p| {
                self.binary(variant, p.seed).is_some() && self.binary(CONTROL, p.seed).is_some()
            })
            .filter_map(|p| {
                let from = if p.control_high == high {
                    CONTROL
                } else {
                    variant
                };
                self.binary(from, p.seed).cloned()
            })
            .collect();
        let ids = seeds.iter().map(|b| b.binary.clone()).collect();
        let s = Series {
            seeds,
            ..control.clone()
        };
        let (h, _) = crate::analysis::answers::builder::seed_hierarchy(&s)
            .with_context(|| format!("{variant}: no usable binary"))?;
        Ok(h.with_top_ids(ids)?)
    }

    /// The pair analysis of the high side against the low side of `variant`'s relinks,
    /// paired by seed, with `thresholds` (`--confidence`, `--negligible`): the ratio, its
    /// interval and the verdict.
    fn pair(
        &self,
        placed: &[Placed],
        variant: &str,
        thresholds: Thresholds,
    ) -> Result<(f64, Option<Interval>, Verdict)> {
        let low = self.side(placed, variant, false)?;
        let high = self.side(placed, variant, true)?;
        let options = PairOptions {
            thresholds,
            is_time: false,
            is_rate: false,
            bootstrap: None,
            fail_if_slower: None,
        };
        let pair = analyse_pair(&low, &high, None, &options, &mut Vec::new());
        Ok((
            pair.effect.ratio,
            pair.effect.ci,
            pair.effect.verdict.detection(),
        ))
    }
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

    /// A 4-set, 1-way cache of 64-byte lines (set period 256 bytes).
    fn four_sets_one_way() -> ICache {
        ICache {
            line: 64,
            sets: 4,
            ways: 1,
        }
    }

    fn alone(f: &Function) -> HotPlacement {
        HotPlacement::new([f], &cache())
    }

    #[test]
    fn the_smallest_padding_that_flips_the_feature() {
        // At 16 into its line: 16 more bytes reach 32, the upper half.
        let f = Function::named("f", 0x1010, 40);
        assert_eq!(
            flipping_pad(Feature::UpperHalfLine, &alone(&f), "f", 16, 4096),
            Some(16)
        );
        // At 48: 16 more wrap to 0, the lower half.
        let g = Function::named("g", 0x1030, 40);
        assert_eq!(
            flipping_pad(Feature::UpperHalfLine, &alone(&g), "g", 16, 4096),
            Some(16)
        );
        // At 0 with 100 bytes (lines 0x1000..0x1063, 2 lines): 16 bytes still span 2 lines
        // (0x1010..0x1073); 32 bytes reach 0x1083, a third line.
        let h = Function::named("h", 0x1000, 100);
        assert_eq!(
            flipping_pad(Feature::Lines, &alone(&h), "h", 16, 4096),
            Some(32)
        );
        // Offset mod 16 of a 16-aligned function never changes by multiples of 16.
        assert_eq!(
            flipping_pad(Feature::OffsetMod16, &alone(&h), "h", 16, 4096),
            None
        );
    }

    /// The set pressure is read from every hot function's lines (the confirmation read it
    /// from an empty map, so both sides of a pair read 0): in a 4-set, 1-way cache `a`
    /// shares set 0 with `b` (overfull); 16 to 48 more bytes leave one of its lines there,
    /// 64 take it to set 1 alone.
    #[test]
    fn the_set_pressure_flips_when_the_suspect_leaves_its_crowded_set() {
        let c = four_sets_one_way();
        let a = Function::named("a", 0x000, 64); // set 0
        let b = Function::named("b", 0x100, 64); // set 0: a's set is overfull
        let d = Function::named("d", 0x0c0, 64); // set 3
        let placed = HotPlacement::new([&a, &b, &d], &c);
        assert_eq!(placed.value(Feature::OverfullSet, "a"), Some(1.0));
        // 16..48 bytes: a still has a line in set 0 (it spans 2 lines); 64: sets 1 only.
        assert_eq!(
            flipping_pad(Feature::OverfullSet, &placed, "a", 16, 256),
            Some(64)
        );
    }

    /// The case of fixtures/explain_set's seed 6: the suspect sits just before its crowded
    /// partners (in a 4-set, 1-way cache: `c` alone in set 3, `a` in set 0 with `b`). Moved
    /// by 64 bytes it reaches the address `a` had; but the relink moves `a` and `b` on by the
    /// period, so `c` joins them in set 0 (overfull), rather than sharing `a`'s old line
    /// (which would count once and read 0 at every padding).
    #[test]
    fn the_code_after_the_suspect_moves_on_by_the_period_in_the_hypothesis() {
        let c = four_sets_one_way();
        let suspect = Function::named("c", 0x0c0, 16); // set 3
        let a = Function::named("a", 0x100, 64); // set 0
        let b = Function::named("b", 0x200, 64); // set 0: overfull
        let placed = HotPlacement::new([&suspect, &a, &b], &c);
        assert_eq!(placed.value(Feature::OverfullSet, "c"), Some(0.0));
        assert_eq!(
            flipping_pad(Feature::OverfullSet, &placed, "c", 16, 256),
            Some(64)
        );
        let moved = placed.with_moved_alone("c", 64, 256);
        assert_eq!(moved.function("a").map(|f| f.address), Some(0x200));
        assert_eq!(moved.value(Feature::OverfullSet, "c"), Some(1.0));
    }

    /// A section aligned to 64 bytes may only be padded by multiples of 64: the binaries'
    /// addresses of its function differ by multiples of 64 (and here of nothing larger).
    #[test]
    fn the_padding_step_is_the_alignment_the_binaries_show() {
        let unit = |address: u64| LayoutUnit {
            binary: String::new(),
            mean: 0.0,
            ci: None,
            functions: vec![Function::named("f", address, 16)],
        };
        let (a, b, c) = (unit(0x1040), unit(0x10c0), unit(0x1200));
        let units = [(1, &a), (2, &b), (3, &c)];
        assert_eq!(alignment_step(&units, "f"), 64);
        let (d, e) = (unit(0x1010), unit(0x1020));
        assert_eq!(alignment_step(&[(1, &d), (2, &e)], "f"), 16);
        // At 64-byte steps from 48 into a line, the upper half never changes.
        let f = Function::named("f", 0x1030, 8);
        assert_eq!(
            flipping_pad(Feature::UpperHalfLine, &alone(&f), "f", 64, 4096),
            None
        );
    }

    #[test]
    fn only_the_section_moves_and_the_code_after_it_by_the_period() {
        let before = vec![
            Function::named("a", 0x1000, 16),
            Function::named("f", 0x1010, 16),
            Function::named("g", 0x1020, 16),
            Function::named("b", 0x1040, 16),
        ];
        let f = before[1].clone();
        let at = |addresses: [u64; 4]| -> Vec<Function> {
            before
                .iter()
                .zip(addresses)
                .map(|(x, address)| Function {
                    address,
                    ..x.clone()
                })
                .collect()
        };
        // f alone by 32, the rest after it by the period.
        let good = at([0x1000, 0x1030, 0x2020, 0x2040]);
        assert_eq!(
            check_moved_alone(&before, &good, &f, 32, 0x1000).unwrap(),
            Vec::<String>::new()
        );
        // g shares f's section: it moved with f, and is named.
        let shared = at([0x1000, 0x1030, 0x1040, 0x2040]);
        assert_eq!(
            check_moved_alone(&before, &shared, &f, 32, 0x1000).unwrap(),
            vec!["g".to_string()]
        );
        // The code after f moved with it (padding in front only): all of it named as moved
        // with f (the ELF cannot tell a section's end), so the answer is theirs too.
        let lockstep = at([0x1000, 0x1030, 0x1040, 0x1060]);
        assert_eq!(
            check_moved_alone(&before, &lockstep, &f, 32, 0x1000).unwrap(),
            vec!["g".to_string(), "b".to_string()]
        );
        // Moved by the period before the run moved with f: refused.
        let torn = at([0x1000, 0x1030, 0x2020, 0x1060]);
        assert!(check_moved_alone(&before, &torn, &f, 32, 0x1000).is_err());
        // Moved by another amount.
        assert!(check_moved_alone(&before, &good, &f, 16, 0x1000).is_err());
        // A function before it moved too.
        let bad = at([0x1008, 0x1030, 0x2020, 0x2040]);
        assert!(check_moved_alone(&before, &bad, &f, 32, 0x1000).is_err());
        // The order changed.
        let swapped = vec![
            good[0].clone(),
            good[2].clone(),
            good[1].clone(),
            good[3].clone(),
        ];
        assert!(check_moved_alone(&before, &swapped, &f, 32, 0x1000).is_err());
    }

    #[test]
    fn a_hot_neighbours_feature_may_not_change() {
        let c = cache();
        let f = Function::named("f", 0x1000, 16);
        let g = Function::named("g", 0x1010, 16);
        let before = HotPlacement::new([&f, &g], &c);
        let kept = HotPlacement::new(
            [
                &Function::named("f", 0x1020, 16),
                &Function::named("g", 0x2010, 16),
            ],
            &c,
        );
        assert!(check_features_kept(&before, &kept, "f", &[]).is_ok());
        let dragged = HotPlacement::new(
            [
                &Function::named("f", 0x1020, 16),
                &Function::named("g", 0x1030, 16),
            ],
            &c,
        );
        assert!(check_features_kept(&before, &dragged, "f", &[]).is_err());
        assert!(check_features_kept(&before, &dragged, "f", &["g".into()]).is_ok());
        assert_eq!(set_period(&c), 4096);
    }
}
