//! `layoutrand explain`'s screening: which hot function's placement goes with the binaries'
//! means (issue 26).
//!
//! The unit is the binary (a realised layout): its mean over executions and iterations is
//! one response, and each (hot function, placement feature) pair of [`crate::layout::features`]
//! one explanatory value. Iterations and executions of one binary share its layout, so
//! counting them as units would be pseudo-replication (Kalibera & Jones 2013, §3). Each pair
//! is tested with a seeded permutation test of |r| ([`crate::stats::fdr::permutation_correlation`]),
//! the family held at a false discovery rate by Benjamini–Hochberg
//! ([`crate::stats::fdr::benjamini_hochberg`]). A discovery is an association, not yet a
//! cause: another function moving together with the suspect would show the same (the
//! confirmation relinks of `--confirm` move one function only).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::effect::Interval;
use super::explain_plot::{self, ConfirmPair, FeaturePlot};
use super::vocabulary::Verdict;
use crate::layout::binary::Function;
use crate::layout::features::{Feature, HotPlacement, ICache, RunningCode, SharedHot, FEATURES};
use crate::seeded::SeededRng;
use crate::stats::fdr::{
    benjamini_hochberg, permutation_correlation, units_needed, units_needed_at_split,
};
use crate::stats::StatsError;

/// One function's counts in the profiled run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct HotFunction {
    /// The symbol name (as in `.symtab`, mangled).
    pub(crate) name: String,
    /// Instructions executed in it.
    pub(crate) ir: f64,
    /// Its share of the instructions executed in the program's own functions.
    pub(crate) ir_share: f64,
    /// First-level instruction cache misses in it (the simulated I1 of the profile).
    pub(crate) i1_misses: f64,
    /// The build's shared library it is in (its file name), relinked with the program in
    /// every seed; `None` for the program's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) library: Option<String>,
}

/// The screening's choices.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct ScreenOptions {
    /// The false discovery rate (Benjamini–Hochberg's `q`).
    pub(crate) fdr: f64,
    /// Random permutations per test (at least enough that `1 / (B + 1)` can pass the
    /// tightest BH bar; raised to that when smaller).
    pub(crate) permutations: usize,
    /// Seed of the permutations.
    pub(crate) seed: u64,
    /// The instruction cache of the set features.
    pub(crate) cache: ICache,
    /// The code running beside the hot functions (the shared libraries' hot code, the
    /// profile's phases), counted in the set pressure.
    pub(crate) running: RunningCode,
    /// The features screened: those the metric's model can feel (every one for a time on
    /// real hardware, [`crate::layout::features::CACHE_FEATURES`] under cachegrind).
    pub(crate) features: &'static [Feature],
}

/// One binary as the screening sees it: its label, mean and functions.
#[derive(Debug, Clone)]
pub(crate) struct LayoutUnit {
    /// `seed-N`.
    pub(crate) binary: String,
    /// Mean of the metric over its live iterations.
    pub(crate) mean: f64,
    /// The 95 % interval of that mean over the binary's executions (on the log scale for a
    /// positive metric, so it stays positive); `None` with one.
    pub(crate) ci: Option<Interval>,
    /// Its functions (from its ELF).
    pub(crate) functions: Vec<Function>,
}

/// One (function, feature) pair tested. Its JSON carries the fix in words beside it
/// (`crate::report::words::explain`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "suggestion",
    crate::wire::Shape::Optional,
    "The fix that follows, in words (culprits only; null for the other pairs). Not in the stored answer, which keeps `fix`."
))]
pub struct Suspect {
    /// The function's symbol name.
    pub(crate) function: String,
    /// The placement feature.
    pub(crate) feature: Feature,
    /// The function's share of the program's own instructions (hotness).
    pub(crate) ir_share: f64,
    /// The change of the metric from the feature's lowest to its highest value among the
    /// binaries, on the least-squares line, relative to the value at the lowest (for a 0/1
    /// feature exactly `mean(with) / mean(without) − 1`).
    pub(crate) effect: f64,
    /// The feature's lowest and highest values among the binaries.
    pub(crate) feature_range: (f64, f64),
    /// Pearson's correlation of the feature with the binaries' means.
    pub(crate) r: f64,
    /// `r²`: the share of the variance between the binaries' means the feature explains.
    pub(crate) share: f64,
    /// The permutation p-value.
    pub(crate) p: f64,
    /// The Benjamini–Hochberg adjusted p-value.
    pub(crate) q: f64,
    /// `detected` when `q` is at most the false discovery rate, else `not_detected`.
    pub(crate) verdict: Verdict,
    /// The targeted relinks' answer (`explain --confirm`); `None` when not confirmed.
    pub(crate) confirmation: Option<Confirmation>,
    /// The fix that follows (culprits only; `None` for the other pairs, and in answers
    /// stored before it was kept, which kept its words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fix: Option<Fix>,
    /// The fix in words as an answer stored by an earlier version kept it: read, never
    /// written (the wire words `fix`).
    #[serde(rename = "suggestion", default, skip_serializing)]
    #[schemars(skip)]
    pub(crate) recorded_suggestion: Option<String>,
}
crate::wire::read_as_written!(Suspect);

/// The fix that follows from a culprit, as the screening and the confirmation know it
/// (with the culprit's feature, effect and range, what `crate::report::words::explain`
/// words).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Fix {
    /// Change the placement the feature measures: align the function, keep it within a
    /// page, or order it apart from the functions sharing its overfull set.
    Placement {
        /// The feature's value were the function aligned to a cache line.
        aligned: f64,
        /// The feature's value of the binaries with the lowest means ([`fast_value`]):
        /// the placement a fix must give (issue 49: "align to 64 bytes" put brotli's
        /// culprit at the slow offset 0 when the fast binaries start it at 48 mod 64).
        fast: Option<f64>,
        /// For a set-pressure culprit, the hot functions most often sharing its overfull
        /// set.
        partners: Vec<String>,
        /// The instruction cache screened (its line and sets are the fix's).
        cache: ICache,
    },
    /// The relinks moved the function alone and the metric did not change by a relevant
    /// amount (`not_detected`) or changed too unevenly to tell (`undetermined`): no fix
    /// for the function itself.
    Unconfirmed {
        /// The metric screened.
        metric: String,
        /// The confirmation's verdict.
        verdict: Verdict,
    },
}

/// The level of a stored confirmation that does not record one.
fn default_confidence() -> f64 {
    0.95
}

/// The confirmation of one suspect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Confirmation {
    /// The function moved.
    pub(crate) function: String,
    /// The feature flipped.
    pub(crate) feature: Feature,
    /// Seeds relinked (pairs measured).
    pub(crate) relinks: usize,
    /// The bytes of padding put in front of the function, per seed (in seed order).
    pub(crate) bytes: Vec<u64>,
    /// The bytes all the code after the function's section moved by: the cache's set
    /// period, which keeps that code's every placement feature (0 in explanations stored
    /// before the code after was kept in place).
    #[serde(default)]
    pub(crate) code_after_moved: u64,
    /// The hot functions sharing the function's section, which moved with it (a module
    /// compiled without `-ffunction-sections` is one section): the confirmation is theirs
    /// too.
    #[serde(default)]
    pub(crate) moved_with: Vec<String>,
    /// Mean with the higher feature value over mean with the lower, paired by seed.
    pub(crate) ratio: f64,
    /// Its interval (paired Fieller); `None` when unbounded or not computable.
    pub(crate) ci: Option<Interval>,
    /// The confidence level of `ci` and of the verdict (`--confidence`; 0.95 in
    /// explanations stored before it was recorded, the only level they could have).
    #[serde(default = "default_confidence")]
    pub(crate) confidence: f64,
    /// The engine's verdict on the ratio (the pair analysis at `--confidence`, 95 %, and
    /// the relevance threshold `--negligible`, 1 %): `detected` (a relevant change),
    /// `negligible` (detected, within the threshold), `not_detected` (no relevant change:
    /// the interval within the threshold, or a tie) or `undetermined` (cannot tell: the
    /// interval reaches beyond the threshold and includes 1).
    pub(crate) verdict: Verdict,
    /// Whether the relinks confirm the screening: detected, in the screening's direction;
    /// or, when the ratio's interval cannot tell, the pairs agree on that direction by the
    /// sign test (`sign_test`).
    pub(crate) confirmed: bool,
    /// The pairs' directions (every confirmation since issue 49; absent in older answers):
    /// how many changed by more than `--negligible` in the screening's direction, against
    /// it, or less (ties), with the sign test's one-sided p-value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sign_test: Option<PairDirections>,
    /// The directory of the relinks, their manifest and store (relative to the experiment).
    pub(crate) dir: String,
    /// The store's variant of these relinks (`moved-K`; the seeds as built are variant
    /// `control`, shared by every suspect confirmed; empty in answers written before).
    #[serde(default)]
    pub(crate) variant: String,
    /// Per seed: the feature value and mean of the seed as built and of its relink.
    pub(crate) pairs: Vec<ConfirmPair>,
    /// The fix put to the test: the same seeds relinked with the function at the fast
    /// placement and measured (absent when the fix is not a placement a padding gives, or
    /// in answers written before fixes were proven).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fix_proof: Option<FixProof>,
}

/// A fix relinked and measured (issue 49: "a fix that does not hold is not printed as a
/// fix"): every relinked seed with the function at the fast placement, against the levels
/// the screened binaries show at that placement and at the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct FixProof {
    /// The feature value the fix gives (the fast binaries' placement).
    pub(crate) value: f64,
    /// Per seed: the bytes of padding that gave it (0: the seed as built had it), and the
    /// metric's mean of that binary.
    pub(crate) pads: Vec<u64>,
    pub(crate) means: Vec<f64>,
    /// The mean of the screened binaries at that placement, and of the others, in the
    /// confirmation's terms: the run's levels times `drift`.
    pub(crate) fast_level: f64,
    pub(crate) slow_level: f64,
    /// How much slower the machine ran the confirmation than the run: the seeds as built,
    /// measured in both, their mean there over their mean in the run (1 for a deterministic
    /// metric; absent, 1, in answers written before). A time metric drifts with the
    /// machine's state between the two runs (10 % on a shared VM), and the fix's seeds are
    /// measured in the second.
    #[serde(default = "no_drift")]
    pub(crate) drift: f64,
    /// The interval, at `confidence`, of the seeds' mean less the levels' midpoint (Welch's
    /// contrast of the seeds' means and the two levels' binaries, [`crate::stats::welch::contrast`]);
    /// absent when it cannot be computed (fewer than two binaries on a side, no variance),
    /// and in answers written before it.
    #[serde(default)]
    pub(crate) margin: Option<Interval>,
    /// The confidence level of `margin` (the run's `--confidence`).
    #[serde(default = "at_95")]
    pub(crate) confidence: f64,
    /// Whether the fix is proven, shown not to be the fix, or neither (read from the
    /// former `holds`, true or false, in answers written before).
    #[serde(alias = "holds", deserialize_with = "outcome_or_holds")]
    #[schemars(with = "FixOutcome")]
    pub(crate) outcome: FixOutcome,
}

/// What the fix's seeds show (`outcome` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FixOutcome {
    /// The seeds' mean lies below the levels' midpoint with the proof's confidence (every
    /// seed at most at it, for values without noise).
    Holds,
    /// The seeds' mean lies above the midpoint with that confidence (a seed above it, for
    /// values without noise): the placement alone is not the fix.
    NotTheFix,
    /// The interval of its distance to the midpoint includes zero, or too few binaries to
    /// compute it: more seeds would tell.
    CannotTell,
}

/// `outcome` as written now, or the former `holds` boolean: true was proven, false "not the
/// fix" (the rule then: every seed at most at the midpoint).
fn outcome_or_holds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<FixOutcome, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Outcome(FixOutcome),
        Holds(bool),
    }
    Ok(match Stored::deserialize(d)? {
        Stored::Outcome(o) => o,
        Stored::Holds(true) => FixOutcome::Holds,
        Stored::Holds(false) => FixOutcome::NotTheFix,
    })
}

/// The drift of a proof stored before it was measured: none.
fn no_drift() -> f64 {
    1.0
}

/// The confidence of a proof stored before it had an interval: the default.
fn at_95() -> f64 {
    0.95
}

/// The screened binaries' means at the fix's placement (`fast`) and at the others (`slow`),
/// in the run's terms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Levels {
    pub(crate) fast: Vec<f64>,
    pub(crate) slow: Vec<f64>,
}

impl FixProof {
    /// The proof of a fix at `value` from the seeds' `pads` and `means` against the run's
    /// `levels` scaled by `drift` (the confirmation's speed against the run's).
    ///
    /// The seeds' binaries differ in every other function's placement, and a time carries
    /// the run's noise: a single seed beyond the midpoint proves nothing (bc 1.07: 4 of 10
    /// seeds past it on a 4.6 % noisy host, their mean nearer the fast level). The fix holds
    /// when the interval of the seeds' mean less the levels' midpoint lies below zero
    /// (Welch–Satterthwaite contrast (1, −½, −½) of the seeds, the fast and the slow
    /// binaries); it is not the fix when the interval lies above. Values without any
    /// variance are exact: every seed at most at the midpoint holds, one beyond does not.
    pub(crate) fn of(
        value: f64,
        pads: Vec<u64>,
        means: Vec<f64>,
        levels: &Levels,
        drift: f64,
        confidence: f64,
    ) -> FixProof {
        use crate::stats::welch::{contrast, SampleSummary};
        let scaled = |v: &[f64]| v.iter().map(|x| x * drift).collect::<Vec<f64>>();
        let (fast, slow) = (scaled(&levels.fast), scaled(&levels.slow));
        let level = crate::stats::sample::mean;
        let (fast_level, slow_level) = (level(&fast), level(&slow));
        let midpoint = (fast_level + slow_level) / 2.0;
        let test = contrast(&[
            (1.0, SampleSummary::of(&means)),
            (-0.5, SampleSummary::of(&fast)),
            (-0.5, SampleSummary::of(&slow)),
        ]);
        let margin = test
            .as_ref()
            .ok()
            .and_then(|t| t.interval(confidence).ok())
            .map(|(lower, upper)| Interval { lower, upper });
        let exact = [&means, &fast, &slow]
            .iter()
            .all(|v| v.iter().all(|x| *x == v[0]));
        let comparable = drift.is_finite() && fast_level < slow_level && !means.is_empty();
        let outcome = match margin {
            _ if !comparable => FixOutcome::CannotTell,
            Some(m) if m.upper < 0.0 => FixOutcome::Holds,
            Some(m) if m.lower > 0.0 => FixOutcome::NotTheFix,
            None if exact && means.iter().all(|m| *m <= midpoint) => FixOutcome::Holds,
            None if exact => FixOutcome::NotTheFix,
            _ => FixOutcome::CannotTell,
        };
        FixProof {
            value,
            pads,
            means,
            fast_level,
            slow_level,
            drift,
            margin,
            confidence,
            outcome,
        }
    }

    /// The seeds' mean with the fix.
    pub(crate) fn seeds_mean(&self) -> f64 {
        crate::stats::sample::mean(&self.means)
    }
}

/// The screened binaries' `response` where their feature `values` equal `value` (fast), and
/// elsewhere (slow); `None` when either side is empty.
pub(crate) fn levels_at(values: &[f64], response: &[f64], value: f64) -> Option<Levels> {
    let side = |at: bool| {
        let v: Vec<f64> = values
            .iter()
            .zip(response)
            .filter(|(x, _)| (**x == value) == at)
            .map(|(_, y)| *y)
            .collect();
        (!v.is_empty()).then_some(v)
    };
    Some(Levels {
        fast: side(true)?,
        slow: side(false)?,
    })
}

/// The fast placement a culprit's fix gives, when it is one a padding in front of the
/// function reaches (an offset within a line or window, the half of a line, the lines
/// spanned, and for set pressure no line in an overfull set: the order file's "apart"
/// reached by moving the function alone) and the binaries show one.
pub(crate) fn fix_target(s: &Suspect) -> Option<f64> {
    match (&s.fix, s.feature) {
        (
            Some(Fix::Placement { fast: Some(v), .. }),
            Feature::OffsetModLine
            | Feature::OffsetMod16
            | Feature::OffsetMod32
            | Feature::UpperHalfLine
            | Feature::Lines
            | Feature::OverfullSet,
        ) => Some(*v),
        _ => None,
    }
}

/// The directions of a confirmation's pairs (the relink against the seed as built), judged
/// against the screening's direction: each pair's high side (the binary with the feature
/// higher) over its low side, beyond `± --negligible`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct PairDirections {
    /// Pairs whose change is beyond the threshold in the screening's direction.
    pub(crate) agree: usize,
    /// Pairs whose change is beyond it the other way.
    pub(crate) against: usize,
    /// Pairs within it.
    pub(crate) ties: usize,
    /// `P(Bin(agree + against, ½) ≥ agree)` ([`crate::stats::sign_test`]); 1 when every pair
    /// is a tie.
    pub(crate) p: f64,
}

impl PairDirections {
    /// The directions of `pairs` against `predicted_higher` (the screening's: a higher
    /// feature goes with a higher metric), ties within `negligible`.
    pub(crate) fn of(
        pairs: &[super::explain_plot::ConfirmPair],
        predicted_higher: bool,
        negligible: f64,
    ) -> PairDirections {
        let (mut agree, mut against, mut ties) = (0, 0, 0);
        for pair in pairs {
            let (high, low) = if pair.moved.value > pair.control.value {
                (pair.moved.mean, pair.control.mean)
            } else {
                (pair.control.mean, pair.moved.mean)
            };
            let change = high / low - 1.0;
            if !change.is_finite() || change.abs() <= negligible {
                ties += 1;
            } else if (change > 0.0) == predicted_higher {
                agree += 1;
            } else {
                against += 1;
            }
        }
        let p = crate::stats::sign_test::sign_test_one_sided(agree, agree + against).unwrap_or(1.0);
        PairDirections {
            agree,
            against,
            ties,
            p,
        }
    }
}

/// How the strongest 0/1 pair splits the binaries when nothing was discovered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Split {
    /// The pair's function.
    pub(crate) function: String,
    /// The pair's feature.
    pub(crate) feature: Feature,
    /// The binaries on the feature's smaller side.
    pub(crate) smaller_side: usize,
    /// The fewest binaries with which a perfect association at that split could pass the
    /// screen's bar ([`crate::stats::fdr::units_needed_at_split`]).
    pub(crate) binaries_needed: usize,
}

/// Culprits whose feature values move together across the binaries: one association,
/// which the data cannot split among its members (only moving each alone can).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// Its members, the strongest (the finding's leader) first, as indices into
    /// `culprits`.
    pub(crate) members: Vec<usize>,
    /// Pearson's r between each member's feature values and the leader's, across the
    /// binaries (1 for the leader).
    pub(crate) r_with_leader: Vec<f64>,
    /// The distinct functions among the members, in the members' order.
    pub(crate) functions: Vec<String>,
}

/// `explain --fdr`'s default, which answers stored without their rate were screened at.
fn default_fdr() -> f64 {
    0.05
}

/// The |r| between two culprits' feature values across the binaries at which they are one
/// finding. Upper half of a line and offset mod the line of one function uniformly placed
/// at 16-byte steps correlate at 0.89; two functions of one module moved together, at 1.
pub(crate) const TOGETHER: f64 = 0.8;

/// A culprit whose association with the binaries' means is no longer significant at this
/// level once a finding's leader is held fixed (its partial correlation given the leader's
/// feature) adds nothing the leader does not say: it joins the leader's finding. On the
/// demo under cachegrind, whose layout effect is collective (many handlers' line counts),
/// this gives 5 findings for 191 culprits where |r| ≥ 0.8 alone gives 39.
pub(crate) const EXPLAINED_ALPHA: f64 = 0.05;

/// Every feature: what an answer stored before `features` was kept screened.
fn every_feature() -> Vec<Feature> {
    FEATURES.to_vec()
}

/// The screening's answer for one program and metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Screening {
    /// Binaries (randomised layouts) screened.
    pub(crate) binaries: usize,
    /// (function, feature) pairs tested; pairs whose feature took one value in every binary
    /// (or whose function is missing from one) are not tests and are counted apart.
    pub(crate) tests: usize,
    /// Pairs left out because the feature did not vary across the binaries.
    pub(crate) constant: usize,
    /// Hot functions not found under a unique name in every binary, left out.
    pub(crate) unmatched: Vec<String>,
    /// The fewest binaries with which even a perfect association could be discovered among
    /// `tests` tests (see [`units_needed`]); `None` without tests.
    pub(crate) binaries_needed: Option<usize>,
    /// Permutations per test, as used.
    pub(crate) permutations: usize,
    /// The false discovery rate the family was held at (`--fdr`; answers stored before it
    /// was kept were read as the default, 5 %).
    #[serde(default = "default_fdr")]
    pub(crate) fdr: f64,
    /// The features screened per function: those the metric's model can feel (answers
    /// stored before it was kept screened every feature).
    #[serde(default = "every_feature")]
    pub(crate) features: Vec<Feature>,
    /// With no culprit: how the strongest 0/1 pair splits the binaries, and the fewest
    /// binaries with which a perfect association at that split could be discovered (more
    /// than `binaries_needed` when the split is uneven, as when 3 of 20 layouts are slow).
    #[serde(default)]
    pub(crate) split: Option<Split>,
    /// Whether the binaries' means differ at all (when not, there is nothing to explain and
    /// no test is run).
    pub(crate) means_vary: bool,
    /// `detected`: at least one culprit; `not_detected`: none, with enough binaries, or the
    /// report finds no layout sensitivity; `negligible`: none, and the report finds the
    /// layout's effect negligible ([`settle_by_report`]); `undetermined`: none, with too few
    /// binaries for any to be found, or nothing varied.
    pub verdict: Verdict,
    /// The discoveries, strongest first (share of variance, then effect, then hotness).
    pub culprits: Vec<Suspect>,
    /// The culprits grouped into findings: pairs whose feature values move together across
    /// the binaries (one module's offset shared by its functions, correlated features of one
    /// function) are one association, named once; strongest first.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// The strongest pairs that were not discoveries (at most 5), for the record.
    pub(crate) closest: Vec<Suspect>,
}

/// Screens every (hot function, feature) pair of `units` against their means.
///
/// Errors: fewer than 3 binaries, or options out of their domain.
pub(crate) fn screen(
    units: &[LayoutUnit],
    hot: &[HotFunction],
    options: &ScreenOptions,
) -> Result<Screening, StatsError> {
    crate::stats::error::at_least("the explain screening", "binaries", 3, units.len())?;
    let (columns, unmatched) = feature_columns(
        units,
        hot,
        (&options.cache, &options.running, options.features),
    );
    let response: Vec<f64> = units.iter().map(|u| u.mean).collect();
    let tested: Vec<&Column> = columns.iter().filter(|c| varies(&c.values)).collect();
    let constant = columns.len() - tested.len();
    let tests = tested.len();
    let needed = match tests {
        0 => None,
        m => Some(units_needed(m, options.fdr)?),
    };
    // 1/(B+1) must be able to pass the tightest BH bar q/m, with room for Monte Carlo error.
    let permutations = options
        .permutations
        .max((10.0 * tests as f64 / options.fdr).ceil() as usize);
    let mut suspects = Vec::with_capacity(tests);
    if varies(&response) {
        for c in &tested {
            let seed = options.seed;
            suspects.push(test_one(c, &response, (permutations, seed), options.cache)?);
        }
    }
    adjust_and_rank(&mut suspects, options.fdr)?;
    let (culprits, mut rest): (Vec<Suspect>, Vec<Suspect>) = suspects
        .into_iter()
        .partition(|s| s.verdict == Verdict::Detected);
    let values: Vec<&[f64]> = culprits
        .iter()
        .map(|c| {
            tested
                .iter()
                .find(|k| k.function == c.function && k.feature == c.feature)
                .map_or(&[][..], |k| &k.values[..])
        })
        .collect();
    let findings = group_findings(&culprits, &values, &response);
    let split = match culprits.is_empty() {
        true => observed_split(&rest, &tested, options.fdr),
        false => None,
    };
    let split_reachable = split
        .as_ref()
        .is_none_or(|s| units.len() >= s.binaries_needed);
    for s in &mut rest {
        s.fix = None;
    }
    let reachable = needed.is_some_and(|n| units.len() >= n) && split_reachable;
    let verdict = verdict_of(!culprits.is_empty(), reachable, varies(&response));
    Ok(Screening {
        binaries: units.len(),
        tests,
        constant,
        unmatched,
        binaries_needed: needed,
        permutations,
        fdr: options.fdr,
        features: options.features.to_vec(),
        split,
        means_vary: varies(&response),
        verdict,
        culprits,
        findings,
        closest: rest.into_iter().take(5).collect(),
    })
}

/// The q-values of `suspects` (Benjamini–Hochberg at `fdr`, `detected` at or below it),
/// then the suspects strongest first: by share of the variance, size of the effect,
/// hotness.
fn adjust_and_rank(suspects: &mut [Suspect], fdr: f64) -> Result<(), StatsError> {
    let p: Vec<f64> = suspects.iter().map(|s| s.p).collect();
    if !p.is_empty() {
        for (s, q) in suspects.iter_mut().zip(benjamini_hochberg(&p)?) {
            s.q = q;
            if q <= fdr {
                s.verdict = Verdict::Detected;
            }
        }
    }
    suspects.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then(b.effect.abs().total_cmp(&a.effect.abs()))
            .then(b.ir_share.total_cmp(&a.ir_share))
    });
    Ok(())
}

/// The screening's verdict: `detected` with a culprit; without one, `not_detected` when the
/// design could have named one (`reachable`: enough binaries for the tests, and for the
/// strongest pair's split) or the means do not vary at all (nothing to explain), else
/// `undetermined`.
fn verdict_of(found: bool, reachable: bool, means_vary: bool) -> Verdict {
    match (found, reachable, means_vary) {
        (true, _, _) => Verdict::Detected,
        (false, true, true) => Verdict::NotDetected,
        // A metric equal in every binary has nothing to explain: no culprit, certainly.
        (false, _, false) => Verdict::NotDetected,
        (false, false, true) => Verdict::Undetermined,
    }
}

/// What the report's layout sensitivity already settles for explain: the binaries' means
/// do not differ by a relevant amount (`negligible`, the interval of their relative
/// standard deviation within `--negligible`) or not detectably with the power to find
/// `bound` (`not_detected`). A screening that named no culprit then has its answer there,
/// not in more seeds: flac's wall time, negligible at most 0.65 %, read "cannot tell — build
/// and run more seeds" from a 1-to-9 split one load burst made.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReportSettled {
    /// `negligible` or `not_detected`: the report's verdict on the layout's sensitivity.
    pub(crate) verdict: Verdict,
    /// `negligible`: the upper end of the interval of the binaries' relative standard
    /// deviation; `not_detected`: the smallest layout variation the report's test finds with
    /// 80 % power. A fraction (0.0065 for 0.65 %).
    pub(crate) bound: f64,
    /// The relevance threshold it was judged against (`--negligible`), a fraction.
    pub(crate) negligible: f64,
}

/// The screening's verdict once the report's answer is heard: a screening that named no
/// culprit among means that vary takes the report's `negligible` or `not detected`
/// ([`ReportSettled`]) in place of its own; a culprit found stays a finding (the
/// screening's false discovery rate holds whatever the report says).
pub(crate) fn settle_by_report(screening: &mut Screening, settled: Option<&ReportSettled>) {
    if let (true, true, Some(s)) = (screening.culprits.is_empty(), screening.means_vary, settled) {
        screening.verdict = s.verdict;
    }
}

/// The share of the variance between the binaries' means from which an undiscovered 0/1
/// pair is a strong association that the design may be unable to confirm (a rare split
/// explaining little, as noise gives, says nothing about the design).
pub(crate) const STRONG_SPLIT: f64 = 0.5;

/// The split of the strongest 0/1 pair among `rest` (the non-discoveries, strongest first;
/// `tested` their columns) when it explains at least [`STRONG_SPLIT`] of the variance, and
/// the binaries a perfect association at that split needs among `tested.len()` tests at
/// rate `fdr`.
fn observed_split(rest: &[Suspect], tested: &[&Column], fdr: f64) -> Option<Split> {
    let strong = rest
        .iter()
        .filter(|s| s.feature.is_binary() && s.share >= STRONG_SPLIT);
    let (s, column) = strong.into_iter().find_map(|s| {
        tested
            .iter()
            .find(|k| k.function == s.function && k.feature == s.feature)
            .map(|k| (s, k))
    })?;
    let n = column.values.len();
    let ones = column.values.iter().filter(|v| **v != 0.0).count();
    let smaller = ones.min(n - ones);
    let share = smaller as f64 / n as f64;
    let needed = units_needed_at_split(tested.len(), fdr, share).ok()?;
    Some(Split {
        function: s.function.clone(),
        feature: s.feature,
        smaller_side: smaller,
        binaries_needed: needed,
    })
}

/// The findings of `culprits` (strongest first; `values[i]` the i-th culprit's feature
/// values across the binaries, `response` their means): the strongest culprit not yet in a
/// finding leads a new one, joined by every other such culprit of the same function, whose
/// values correlate with the leader's at |r| ≥ [`TOGETHER`], or whose association with the
/// means the leader's accounts for (partial correlation given the leader's feature not
/// significant at [`EXPLAINED_ALPHA`]). Leader-based, so that a chain of weakly related
/// pairs does not merge into one finding.
fn group_findings(culprits: &[Suspect], values: &[&[f64]], response: &[f64]) -> Vec<Finding> {
    let mut taken = vec![false; culprits.len()];
    let mut findings = Vec::new();
    for leader in 0..culprits.len() {
        if taken[leader] {
            continue;
        }
        let mut members = Vec::new();
        let mut r_with_leader = Vec::new();
        for (i, c) in culprits.iter().enumerate().skip(leader) {
            if taken[i] {
                continue;
            }
            let r = if i == leader {
                1.0
            } else {
                crate::stats::fdr::pearson(values[leader], values[i]).unwrap_or(0.0)
            };
            // An error: the means or the member are a linear function of the leader's
            // values, so nothing is left for the member to explain.
            let explained = || {
                crate::stats::fdr::partial_correlation(values[i], response, values[leader])
                    .map_or(true, |(_, p)| p > EXPLAINED_ALPHA)
            };
            let same_function = c.function == culprits[leader].function;
            if i == leader || same_function || r.abs() >= TOGETHER || explained() {
                taken[i] = true;
                members.push(i);
                r_with_leader.push(r);
            }
        }
        let mut functions: Vec<String> = Vec::new();
        for &i in &members {
            if !functions.contains(&culprits[i].function) {
                functions.push(culprits[i].function.clone());
            }
        }
        findings.push(Finding {
            members,
            r_with_leader,
            functions,
        });
    }
    findings
}

/// One (function, feature) pair's values across the binaries.
struct Column {
    function: String,
    feature: Feature,
    ir_share: f64,
    values: Vec<f64>,
    /// The feature's value were the function aligned to a line (in the first binary).
    aligned: f64,
    /// For the set pressure: the hot functions most often sharing its overfull sets.
    partners: Vec<String>,
}

/// The features of every hot function found under one name in every binary, one column per
/// (function, feature); and the hot functions that were not.
fn feature_columns(
    units: &[LayoutUnit],
    hot: &[HotFunction],
    (cache, running, features): (&ICache, &RunningCode, &[Feature]),
) -> (Vec<Column>, Vec<String>) {
    let mut unmatched = std::collections::BTreeSet::new();
    for u in units {
        let placed =
            HotPlacement::of_binary(&u.functions, hot.iter().map(|h| h.name.as_str()), cache);
        for h in hot {
            if placed.function(&h.name).is_none() {
                unmatched.insert(h.name.clone());
            }
        }
    }
    let kept: Vec<&HotFunction> = hot
        .iter()
        .filter(|h| !unmatched.contains(&h.name))
        .collect();
    // Per binary: where the hot functions found in every binary sit.
    let placements: Vec<HotPlacement> = units
        .iter()
        .map(|u| {
            HotPlacement::running(
                &u.functions,
                kept.iter().map(|h| h.name.as_str()),
                cache,
                running,
            )
        })
        .collect();
    let mut columns = Vec::new();
    for h in &kept {
        let partners = set_partners(&placements, &h.name);
        // The first binary with the function aligned to a line: the fix's placement.
        let aligned = placements.first().map(|p| {
            let f = p.function(&h.name).expect("found in every binary");
            p.with_moved(&h.name, f.address.div_ceil(cache.line) * cache.line)
        });
        for &feature in features {
            let values = placements
                .iter()
                .map(|p| p.value(feature, &h.name).expect("found in every binary"))
                .collect();
            columns.push(Column {
                function: h.name.clone(),
                feature,
                ir_share: h.ir_share,
                values,
                aligned: aligned
                    .as_ref()
                    .and_then(|p| p.value(feature, &h.name))
                    .unwrap_or(f64::NAN),
                partners: if feature == Feature::OverfullSet {
                    partners.clone()
                } else {
                    Vec::new()
                },
            });
        }
    }
    (columns, unmatched.into_iter().collect())
}

/// The hot functions (at most 3, most often first) with a hot line in one of `name`'s
/// overfull sets (in the same phase), counted over the binaries: whom an order file
/// should keep apart from it.
fn set_partners(placements: &[HotPlacement], name: &str) -> Vec<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for p in placements {
        for g in p.set_partners(name) {
            *count.entry(g).or_default() += 1;
        }
    }
    let mut ranked: Vec<(&str, usize)> = count.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    ranked
        .into_iter()
        .take(3)
        .map(|(n, _)| n.to_string())
        .collect()
}

fn varies(values: &[f64]) -> bool {
    values.iter().any(|v| *v != values[0])
}

/// The permutation test and effect of one column; the RNG stream is the pair's own, so a
/// pair's p-value does not depend on which other pairs were tested.
fn test_one(
    c: &Column,
    response: &[f64],
    (permutations, seed): (usize, u64),
    cache: ICache,
) -> Result<Suspect, StatsError> {
    let purpose = format!("explain:{}:{}", c.function, c.feature.name());
    let mut rng = SeededRng::new(seed, &purpose);
    let t = permutation_correlation(&c.values, response, permutations, &mut rng)?;
    let (lo, hi) = c
        .values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(*v), h.max(*v))
        });
    let (intercept, slope) = least_squares(&c.values, response);
    let at_lo = intercept + slope * lo;
    let effect = slope * (hi - lo) / at_lo;
    Ok(Suspect {
        function: c.function.clone(),
        feature: c.feature,
        ir_share: c.ir_share,
        effect,
        feature_range: (lo, hi),
        r: t.r,
        share: t.r * t.r,
        p: t.p,
        q: 1.0,
        verdict: Verdict::NotDetected,
        confirmation: None,
        fix: Some(Fix::Placement {
            aligned: c.aligned,
            fast: fast_value(&c.values, response),
            partners: c.partners.clone(),
            cache,
        }),
        recorded_suggestion: None,
    })
}

/// The feature value whose binaries have the lowest mean of `response`, among the values at
/// least [`MIN_FAST_BINARIES`] binaries share (a value seen once is one layout, not a
/// placement shown to be fast); `None` when no value is shared that often.
fn fast_value(values: &[f64], response: &[f64]) -> Option<f64> {
    let mut groups: Vec<(f64, f64, usize)> = Vec::new();
    for (v, y) in values.iter().zip(response) {
        match groups.iter_mut().find(|g| g.0 == *v) {
            Some(g) => {
                g.1 += y;
                g.2 += 1;
            }
            None => groups.push((*v, *y, 1)),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.2 >= MIN_FAST_BINARIES)
        .map(|(v, sum, n)| (v, sum / n as f64))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(v, _)| v)
}

/// The fewest binaries that must share a feature value for it to count as the fast
/// placement ([`fast_value`]).
pub(crate) const MIN_FAST_BINARIES: usize = 2;

/// Intercept and slope of the least-squares line of `y` on `x` (`x` varies).
fn least_squares(x: &[f64], y: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let slope = sxy / sxx;
    (my - slope * mx, slope)
}

/// The sub-directory of the experiment directory `explain` writes into.
pub const EXPLAIN_DIR: &str = "explain";

/// The file in [`EXPLAIN_DIR`] holding the last explanation (its JSON), which
/// `report --format html` shows.
pub(crate) const STORED: &str = "explanation.json";

/// The culprits plotted (the text lists as many).
pub const PLOTTED: usize = 10;

/// Version of the JSON written by `explain --format json`.
pub const EXPLAIN_SCHEMA: u32 = 1;

/// How the hot functions were chosen: the hottest of the program's own functions by
/// instructions executed in one run of the default layout under cachegrind, until they
/// cover `cover` of those instructions, at most `most`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct HotRule {
    /// The share of the program's own instructions the hot functions cover.
    pub(crate) cover: f64,
    /// The most hot functions.
    pub(crate) most: usize,
}

/// The hot rule of this version (and of every earlier one: answers stored before the rule
/// was kept as numbers used it).
pub(crate) const HOT_RULE: HotRule = HotRule {
    cover: 0.99,
    most: 50,
};

/// A problem `explain` met, with the figures its warning needs
/// (`crate::report::words::explain` words it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Problem {
    /// `--icache` names another first-level instruction cache than the run simulated: the
    /// set features describe another cache than the one behind the metric.
    CacheMismatch {
        /// The cache `--icache` gave.
        asked: crate::files::cache_model::CacheGeometry,
        /// The I1 the run simulated.
        simulated: crate::files::cache_model::CacheGeometry,
    },
    /// The layout matters, yet no placement feature of the hot functions goes with it, and
    /// the screen was not widened to the other functions that ran.
    NoWiderScreen {
        /// The program.
        program: String,
        /// The build's libraries it loads whose functions were screened with its own.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        libraries: Vec<String>,
        /// The layout's share of the variance (the report's intraclass correlation), when at least half (`None`: it
        /// could not be estimated, and the binaries' means differ).
        layout_share: Option<f64>,
        /// The hot functions screened.
        hot: usize,
        /// The other functions of the program (and those libraries) that ran.
        functions: usize,
        /// Their share of its (and their) instructions.
        ir_share: f64,
        /// The tests screening them would add.
        tests: usize,
    },
    /// The shared libraries' hot code is counted in a cache whose set period (bytes)
    /// exceeds a page: a library's sets then depend on its load address.
    SharedPeriod {
        /// The set period in bytes.
        period: u64,
    },
    /// A loaded object without a symbol table (stripped) whose code is placed by its dynamic
    /// symbol table: only the functions it exports count in the set pressure.
    ExportedOnly {
        /// The object's path.
        object: String,
    },
    /// A loaded object whose symbol table could not be read: its code is not counted in
    /// the set pressure.
    NoSymbols {
        /// The object's path.
        object: String,
        /// Why (the ELF reader's error).
        error: String,
    },
}

/// `explain`'s answer, as `--format json` writes it (with its words, `hot_rule` and
/// `warnings`, beside the data: `crate::report::words::explain`); the stored answer
/// ([`STORED`]) keeps the data.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "hot_rule",
    crate::wire::Shape::Sentence,
    "How the hot functions were chosen, in words (`hot_limits`). Not in the stored answer."
))]
#[schemars(transform = crate::wire::words(
    "warnings",
    crate::wire::Shape::List,
    "Problems met, in words: reading the experiment, then `problems`. Not in the stored answer."
))]
pub struct Explanation {
    /// [`EXPLAIN_SCHEMA`].
    pub(crate) schema: u32,
    /// The program explained.
    pub(crate) program: String,
    /// The variant whose binaries were screened (and relinked), in an experiment built
    /// with `build --variant`; absent without variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The metric screened (the run's primary one) and its unit.
    pub(crate) metric: String,
    /// Unit of the metric.
    pub(crate) unit: String,
    /// The unit `report` prints the metric's values in (`s` for a wall time of seconds in
    /// `ns`; empty for a count).
    #[serde(default)]
    pub(crate) shown_unit: String,
    /// The rule that chose the hot functions.
    #[serde(default = "hot_rule")]
    pub(crate) hot_limits: HotRule,
    /// The hot functions, hottest first.
    pub(crate) hot: Vec<HotFunction>,
    /// The build's shared libraries (file names) the program loads, relinked with it in
    /// every seed, whose functions are screened with its own (empty when it loads none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) libraries: Vec<String>,
    /// The instruction cache of the set features.
    pub(crate) cache: ICache,
    /// The shared libraries' hot functions counted in the set pressure (fixed in every
    /// layout; empty when the program runs none, or none as hot as its coldest hot
    /// function).
    #[serde(default)]
    pub(crate) shared_hot: Vec<SharedHot>,
    /// The distinct stretches of the profile's time line whose hot lines the set pressure
    /// counts (`features::Phase`); 0 when it counted every hot function's lines as running
    /// together (answers written before phases were read have none).
    #[serde(default)]
    pub(crate) phases: usize,
    /// The layout's share of the variance: the report's intraclass correlation of the
    /// series (`layoutrand report`'s "the layout accounts for …"); `None` when it cannot be
    /// estimated (one value per binary, or no variance at all).
    pub(crate) layout_share: Option<f64>,
    /// The report's layout sensitivity when it settles the question without a culprit
    /// (negligible, or not detected); absent otherwise, and in answers written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) report_settled: Option<ReportSettled>,
    /// The relevance threshold (`--negligible`, a share of the mean) each finding's effect is
    /// said against: detectable is not relevant; absent in answers written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) negligible: Option<f64>,
    /// Where the variation between the binaries went: the functions whose own counts of
    /// the metric move (cachegrind metrics only; absent otherwise, and in answers written
    /// before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) differential: Option<super::explain_differential::Differential>,
    /// The findings read from the differential profile: where the layout's cost lands and
    /// what the screens found of why (with `differential` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) leads: Option<super::explain_differential::Leads>,
    /// The screening (its fields, `culprits` among them, at the top level of the JSON).
    #[serde(flatten)]
    pub screening: Screening,
    /// The plots of the first culprits (as many as the text lists), in their order.
    #[serde(default)]
    pub plots: Vec<FeaturePlot>,
    /// What reading the experiment warned of (not stored: the experiment's report gives
    /// it).
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) reading: Vec<crate::analysis::reading::ExperimentWarning>,
    /// Problems explain met.
    #[serde(default)]
    pub(crate) problems: Vec<Problem>,
    /// The warnings in words as an answer stored by an earlier version kept them: read,
    /// never written.
    #[serde(rename = "warnings", default, skip_serializing)]
    #[schemars(skip)]
    pub(crate) recorded_warnings: Vec<String>,
}
crate::wire::read_as_written!(Explanation);

/// [`HOT_RULE`], for answers stored before the rule was kept as numbers.
fn hot_rule() -> HotRule {
    HOT_RULE
}

/// The explanation `explain` last stored in `dir` ([`EXPLAIN_DIR`]/[`STORED`]); `None`
/// when there is none.
pub fn stored(dir: &std::path::Path) -> anyhow::Result<Option<Explanation>> {
    stored_in(&dir.join(EXPLAIN_DIR))
}

/// The explanation stored in the folder `at` ([`STORED`]); `None` when there is none.
pub(crate) fn stored_in(at: &std::path::Path) -> anyhow::Result<Option<Explanation>> {
    use anyhow::Context;
    let path = at.join(STORED);
    // Bounded, and never a FIFO, a device or a link (issue 54, attack 6).
    let Some(text) = crate::files::confined::read_side_file(at, STORED)? else {
        return Ok(None);
    };
    let e: Explanation = serde_json::from_str(&text)
        .with_context(|| format!("{} is not an explanation of this version", path.display()))?;
    Ok(Some(e))
}

/// The plots of the first `shown` culprits of `screening` (computed from `units` as it
/// screened them), the means multiplied by `scale` into the unit they are shown in.
pub(crate) fn culprit_plots(
    units: &[LayoutUnit],
    hot: &[HotFunction],
    screening: &Screening,
    running: &RunningCode,
    (scale, axes): (f64, &explain_plot::Axes),
    shown: usize,
) -> Vec<FeaturePlot> {
    let (columns, _) = feature_columns(units, hot, (&axes.cache, running, &FEATURES));
    screening
        .culprits
        .iter()
        .take(shown)
        .filter_map(|c| {
            let column = columns
                .iter()
                .find(|k| k.function == c.function && k.feature == c.feature)?;
            let binaries: Vec<(&str, f64, f64, Option<Interval>)> = units
                .iter()
                .zip(&column.values)
                .map(|(u, &v)| (u.binary.as_str(), v, u.mean, u.ci))
                .collect();
            let pairs = c.confirmation.as_ref().map_or(&[][..], |k| &k.pairs[..]);
            Some(explain_plot::feature_plot(
                (&c.function, c.feature),
                &binaries,
                pairs,
                scale,
                axes,
            ))
        })
        .collect()
}

/// Fix advice only for what the relinks confirmed: every culprit of a function that the
/// relinks moved alone without a relevant change gets "none for f itself" (its association
/// came with another placement), and every other unconfirmed culprit no advice (`None`:
/// an association, which moving a function may not change). Called with or without
/// `--confirm`.
pub(crate) fn revise_suggestions(screening: &mut Screening, metric: &str) {
    let unconfirmed: BTreeMap<String, Verdict> = screening
        .culprits
        .iter()
        .filter_map(|c| c.confirmation.as_ref())
        .filter(|k| !k.confirmed)
        .map(|k| (k.function.clone(), k.verdict))
        .collect();
    for c in &mut screening.culprits {
        let confirmed = c.confirmation.as_ref().is_some_and(|k| k.confirmed);
        if let Some(verdict) = unconfirmed.get(&c.function) {
            c.fix = Some(Fix::Unconfirmed {
                metric: metric.to_string(),
                verdict: *verdict,
            });
        } else if !confirmed {
            c.fix = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The levels are the binaries' means at the fix's placement and at the others.
    #[test]
    fn levels_split_the_binaries_at_the_placement() {
        let offsets = [48.0, 0.0, 48.0, 16.0, 0.0];
        let misses = [10.0, 30.0, 12.0, 26.0, 34.0];
        let levels = levels_at(&offsets, &misses, 48.0).unwrap();
        assert_eq!(levels.fast, vec![10.0, 12.0]);
        assert_eq!(levels.slow, vec![30.0, 26.0, 34.0]);
        assert_eq!(levels_at(&[1.0, 1.0], &[2.0, 3.0], 1.0), None);
    }

    /// Values without noise (every side constant) are exact: every seed at most at the
    /// midpoint holds, one beyond it does not; the machine's drift scales the levels.
    #[test]
    fn an_exact_fix_holds_when_every_seed_lands_nearer_the_fast_level() {
        let levels = Levels {
            fast: vec![11.0, 11.0],
            slow: vec![30.0, 30.0, 30.0],
        };
        let of =
            |means: Vec<f64>, drift| FixProof::of(48.0, vec![0, 16], means, &levels, drift, 0.95);
        assert_eq!(of(vec![11.0, 11.0], 1.0).outcome, FixOutcome::Holds);
        // One seed past the midpoint (20.5): the placement alone is not the fix.
        assert_eq!(of(vec![20.6, 20.6], 1.0).outcome, FixOutcome::NotTheFix);
        // The machine 10 % slower in the confirmation: the levels are 12.1 and 33, the
        // midpoint 22.55, and the seeds measured then are held to it.
        let slower = of(vec![12.1, 12.1], 1.1);
        assert_eq!(slower.outcome, FixOutcome::Holds, "{slower:?}");
        assert!((slower.slow_level - 33.0).abs() < 1e-9, "{slower:?}");
        // No seed measured, or a "fast" level that is not lower: nothing proven.
        assert_eq!(of(vec![], 1.0).outcome, FixOutcome::CannotTell);
        let reversed = Levels {
            fast: vec![30.0, 30.0],
            slow: vec![11.0, 11.0],
        };
        let p = FixProof::of(48.0, vec![0], vec![1.0], &reversed, 1.0, 0.95);
        assert_eq!(p.outcome, FixOutcome::CannotTell);
    }

    /// With noise, the seeds' mean is held against the midpoint by its interval: a fix
    /// whose seeds scatter around the fast level holds though one seed lands past the
    /// midpoint; seeds scattered around the midpoint cannot tell; seeds around the slow
    /// level are not the fix. The interval is Welch's contrast (1, −½, −½):
    /// python3 (numpy, scipy 1.17.1) as in stats' `a_contrast_of_three_means_against_scipy`
    /// gives −7.2938 to −1.3729 for the first case.
    #[test]
    fn a_noisy_fix_is_held_against_the_midpoint_by_its_interval() {
        let levels = Levels {
            fast: vec![100.0, 102.0, 98.0, 101.0, 99.0],
            slow: vec![110.0, 112.0, 108.0, 111.0, 109.0],
        };
        let of =
            |means: Vec<f64>| FixProof::of(0.0, vec![16; means.len()], means, &levels, 1.0, 0.95);
        let near_fast = of(vec![99.0, 101.0, 100.0, 98.0, 106.0, 100.0]);
        assert_eq!(near_fast.outcome, FixOutcome::Holds, "{near_fast:?}");
        let m = near_fast.margin.unwrap();
        assert!(
            (m.lower - -7.2938).abs() < 1e-3 && (m.upper - -1.3729).abs() < 1e-3,
            "{m:?}"
        );
        let around_midpoint = of(vec![102.0, 108.0, 104.0, 107.0, 105.0, 103.0]);
        assert_eq!(
            around_midpoint.outcome,
            FixOutcome::CannotTell,
            "{around_midpoint:?}"
        );
        let near_slow = of(vec![109.0, 111.0, 110.0, 112.0, 108.0]);
        assert_eq!(near_slow.outcome, FixOutcome::NotTheFix, "{near_slow:?}");
    }

    /// Seeded simulation of the proof on a noisy metric (binaries' means with a 2 % layout
    /// spread, the fix's seeds 3 %): 10 binaries at each level 10 % apart, 10 seeds. Seeds
    /// truly at the fast level are called "not the fix" in at most 2.5 % of experiments
    /// (a one-sided error at 95 %), and proven in at least 80 %; seeds truly at the slow
    /// level are proven in at most 2.5 %. Measured: 0 refuted, 399 of 400 proven, 0 proven
    /// at the slow level; the former rule (every seed at most at the midpoint) refuted the
    /// fix whenever one of the 10 seeds drew 1.7 standard deviations high, about 4 in 10.
    #[test]
    fn the_proof_errs_rarely_and_proves_a_real_fix() {
        let mut rng = SeededRng::new(49, "fix proof simulation");
        let mut draw = |centre: f64, sd: f64, n: usize| -> Vec<f64> {
            (0..n).map(|_| centre * (1.0 + sd * rng.normal())).collect()
        };
        let trials = 400;
        let (mut wrongly_refuted, mut proven, mut wrongly_proven) = (0, 0, 0);
        for _ in 0..trials {
            let levels = Levels {
                fast: draw(100.0, 0.02, 10),
                slow: draw(110.0, 0.02, 10),
            };
            let at_fast =
                FixProof::of(0.0, vec![16; 10], draw(100.0, 0.03, 10), &levels, 1.0, 0.95);
            match at_fast.outcome {
                FixOutcome::NotTheFix => wrongly_refuted += 1,
                FixOutcome::Holds => proven += 1,
                FixOutcome::CannotTell => {}
            }
            let at_slow =
                FixProof::of(0.0, vec![16; 10], draw(110.0, 0.03, 10), &levels, 1.0, 0.95);
            if at_slow.outcome == FixOutcome::Holds {
                wrongly_proven += 1;
            }
        }
        assert!(
            wrongly_refuted <= trials / 40,
            "{wrongly_refuted} of {trials} refuted"
        );
        assert!(proven >= trials * 8 / 10, "{proven} of {trials} proven");
        assert!(
            wrongly_proven <= trials / 40,
            "{wrongly_proven} of {trials} proven at the slow level"
        );
    }

    /// A proof stored before the outcome was an enum read its `holds`: true proven, false
    /// not the fix.
    #[test]
    fn a_stored_holds_reads_as_its_outcome() {
        let stored = |holds: &str| {
            let text = format!(
                r#"{{"value":0.0,"pads":[16],"means":[1.0],"fast_level":1.0,"slow_level":2.0,"holds":{holds}}}"#
            );
            serde_json::from_str::<FixProof>(&text).unwrap().outcome
        };
        assert_eq!(stored("true"), FixOutcome::Holds);
        assert_eq!(stored("false"), FixOutcome::NotTheFix);
        assert_eq!(stored(r#""cannot_tell""#), FixOutcome::CannotTell);
    }

    /// The fast placement is the shared value with the lowest mean; a value one binary
    /// holds does not count, however fast.
    #[test]
    fn the_fast_placement_is_the_shared_value_with_the_lowest_mean() {
        let offsets = [0.0, 48.0, 16.0, 48.0, 0.0, 32.0];
        let misses = [9.0, 2.0, 1.0, 3.0, 8.0, 7.0];
        assert_eq!(fast_value(&offsets, &misses), Some(48.0));
        assert_eq!(fast_value(&[0.0, 16.0, 32.0], &[3.0, 2.0, 1.0]), None);
    }

    /// Issue 49: a change ten-fold in 5 of 5 pairs is a direction every pair agrees on
    /// (p = 1/32 < 0.05), however uneven its size; ties and pairs against it count as the
    /// sign test counts them.
    #[test]
    fn the_pairs_directions_are_counted_against_the_screenings() {
        use super::super::explain_plot::{ConfirmPair, PlacedMean};
        let pair = |seed, control: (f64, f64), moved: (f64, f64)| ConfirmPair {
            seed,
            control: PlacedMean {
                value: control.0,
                mean: control.1,
            },
            moved: PlacedMean {
                value: moved.0,
                mean: moved.1,
            },
        };
        // The high side (feature 1) is ten times the low in every seed, whichever moved.
        let tenfold: Vec<ConfirmPair> = (0..5)
            .map(|s| {
                if s % 2 == 0 {
                    pair(s, (0.0, 100.0), (1.0, 1000.0 + s as f64))
                } else {
                    pair(s, (1.0, 900.0 * (s as f64)), (0.0, 100.0))
                }
            })
            .collect();
        let d = PairDirections::of(&tenfold, true, 0.01);
        assert_eq!((d.agree, d.against, d.ties), (5, 0, 0));
        assert!((d.p - 0.03125).abs() < 1e-12);
        // Predicted the other way: every pair against it.
        let d = PairDirections::of(&tenfold, false, 0.01);
        assert_eq!((d.agree, d.against), (0, 5));
        assert!((d.p - 1.0).abs() < 1e-12);
        // Changes within the threshold are ties; with no untied pair, p = 1.
        let flat: Vec<ConfirmPair> = (0..4)
            .map(|s| pair(s, (0.0, 100.0), (1.0, 100.5)))
            .collect();
        let d = PairDirections::of(&flat, true, 0.01);
        assert_eq!((d.agree, d.ties, d.p), (0, 4, 1.0));
    }

    fn options() -> ScreenOptions {
        ScreenOptions {
            fdr: 0.05,
            permutations: 999,
            seed: 1,
            cache: ICache {
                line: 64,
                sets: 64,
                ways: 8,
            },
            running: RunningCode::default(),
            features: &FEATURES,
        }
    }

    fn hot(names: &[&str]) -> Vec<HotFunction> {
        names
            .iter()
            .map(|n| HotFunction {
                name: n.to_string(),
                ir: 100.0,
                ir_share: 1.0 / names.len() as f64,
                i1_misses: 0.0,
                library: None,
            })
            .collect()
    }

    /// `n` binaries in which `hot` and `cold` start at seeded random 16-byte offsets; the
    /// mean is 100, plus `step` when `hot` starts in the upper half of its line, plus noise.
    fn layouts(n: usize, step: f64, noise: f64, seed: u64) -> Vec<LayoutUnit> {
        let mut rng = SeededRng::new(seed, "explain:test-layouts");
        (0..n)
            .map(|i| {
                let a = 0x1000 + 16 * rng.below(16);
                let b = 0x2000 + 16 * rng.below(16);
                let upper = a % 64 >= 32;
                let mean = 100.0 + if upper { step } else { 0.0 } + noise * rng.normal();
                LayoutUnit {
                    binary: format!("seed-{i}"),
                    mean,
                    ci: None,
                    functions: vec![
                        Function::named("hot", a, 40),
                        Function::named("cold", b, 40),
                    ],
                }
            })
            .collect()
    }

    #[test]
    fn the_function_that_matters_is_named_first_with_its_effect() {
        let s = screen(
            &layouts(24, 10.0, 0.5, 3),
            &hot(&["hot", "cold"]),
            &options(),
        )
        .unwrap();
        assert_eq!(s.verdict, Verdict::Detected);
        let top = &s.culprits[0];
        assert_eq!(
            (top.function.as_str(), top.feature),
            ("hot", Feature::UpperHalfLine)
        );
        // A 0/1 feature's effect is the ratio of the two groups' means minus 1: about +10 %.
        assert!((top.effect - 0.10).abs() < 0.01, "{top:?}");
        assert!(
            s.culprits.iter().all(|c| c.function == "hot"),
            "{:?}",
            s.culprits
        );
        assert!(s.tests > 0 && s.binaries == 24);
    }

    #[test]
    fn a_flat_metric_or_too_few_binaries_names_no_culprit() {
        let flat = screen(
            &layouts(24, 0.0, 0.0, 3),
            &hot(&["hot", "cold"]),
            &options(),
        )
        .unwrap();
        assert!(flat.culprits.is_empty());
        assert_eq!(flat.verdict, Verdict::NotDetected);
        // 5 binaries cannot pass BH among a dozen tests, whatever the effect: cannot tell,
        // with the number of binaries that could.
        let few = screen(
            &layouts(5, 10.0, 0.0, 4),
            &hot(&["hot", "cold"]),
            &options(),
        )
        .unwrap();
        assert!(few.culprits.is_empty(), "{:?}", few.culprits);
        assert_eq!(few.verdict, Verdict::Undetermined);
        assert!(few.binaries_needed.unwrap() > 5);
        assert!(screen(&layouts(2, 1.0, 0.0, 4), &hot(&["hot"]), &options()).is_err());
    }

    #[test]
    fn a_name_missing_or_repeated_is_left_out() {
        let mut units = layouts(10, 0.0, 1.0, 5);
        units[0].functions.push(Function::named("cold", 0x9000, 8));
        let s = screen(&units, &hot(&["hot", "cold", "absent"]), &options()).unwrap();
        assert_eq!(s.unmatched, vec!["absent".to_string(), "cold".to_string()]);
    }

    /// The set pressure's partners: with 2 sets of 1 way, `a` (set 0) shares its overfull
    /// set with `b` in both binaries and with `c` in one; `d` never.
    #[test]
    fn set_partners_are_the_functions_sharing_the_overfull_set() {
        let cache = ICache {
            line: 64,
            sets: 2,
            ways: 1,
        };
        let binaries = [
            vec![
                Function::named("a", 0x000, 64),
                Function::named("b", 0x080, 64),
                Function::named("c", 0x100, 64),
                Function::named("d", 0x040, 64),
            ],
            vec![
                Function::named("a", 0x000, 64),
                Function::named("b", 0x100, 64),
                Function::named("c", 0x0c0, 64),
                Function::named("d", 0x140, 64),
            ],
        ];
        let placements: Vec<HotPlacement> = binaries
            .iter()
            .map(|fs| HotPlacement::new(fs, &cache))
            .collect();
        // Binary 1: set 0 holds a, b, c (3 lines), set 1 d; binary 2: set 0 a, b (2 lines),
        // set 1 c, d (2 lines): a shares with b twice, with c once, with d never.
        assert_eq!(
            set_partners(&placements, "a"),
            vec!["b".to_string(), "c".to_string()]
        );
    }

    /// 3 slow binaries of 20, exactly those where `hot` starts in the upper half of its line,
    /// among 30 more functions at random offsets (over a hundred tests): 1 / C(20, 3) =
    /// 1/1140 cannot pass the bar 0.05 / tests, so nothing is named and the verdict is
    /// "cannot tell" with the binaries that 3-in-20 split would need (more than 20), not
    /// "not detected".
    #[test]
    fn an_uneven_split_too_rare_to_pass_is_undetermined_with_the_binaries_it_needs() {
        let mut rng = SeededRng::new(21, "explain:uneven-split");
        let names: Vec<String> = (0..30).map(|i| format!("g{i}")).collect();
        let units: Vec<LayoutUnit> = (0..20)
            .map(|i| {
                let slow = i < 3;
                // At 32 (slow) or 0, 8 bytes long: its lines and windows spanned stay 1 and
                // its offset mod 32 0, so only the upper half and the offset mod 64 (the same
                // split) go with the means: two equally strong tests (a finer offset would
                // rank the binaries further and pass where the 0/1 split cannot).
                let mut functions = vec![Function::named(
                    "hot",
                    0x1000 + if slow { 32 } else { 0 },
                    8,
                )];
                for (k, name) in names.iter().enumerate() {
                    let at = 0x2000 + 0x1000 * k as u64 + 16 * rng.below(16);
                    functions.push(Function::named(name, at, 100));
                }
                LayoutUnit {
                    binary: format!("seed-{i}"),
                    mean: if slow { 110.0 } else { 100.0 } + 0.01 * rng.normal(),
                    ci: None,
                    functions,
                }
            })
            .collect();
        let mut all: Vec<&str> = vec!["hot"];
        all.extend(names.iter().map(String::as_str));
        let o = ScreenOptions {
            permutations: 999,
            ..options()
        };
        let s = screen(&units, &hot(&all), &o).unwrap();
        assert!(s.culprits.is_empty(), "{:?}", s.culprits);
        // Two tests at p ≈ 1/1140 pass BH only with fewer than 114 tests.
        assert!(s.tests > 120, "{}", s.tests);
        let split = s.split.as_ref().expect("a strong uneven split");
        assert_eq!(
            (split.function.as_str(), split.smaller_side),
            ("hot", 3),
            "{split:?}"
        );
        assert!(split.binaries_needed > 20, "{split:?}");
        assert_eq!(s.verdict, Verdict::Undetermined);
        // The report's answer settles what the screening could not: negligible, or not
        // detected; a screening that named a culprit keeps it.
        for verdict in [Verdict::Negligible, Verdict::NotDetected] {
            let mut settled = s.clone();
            let report = ReportSettled {
                verdict,
                bound: 0.005,
                negligible: 0.01,
            };
            settle_by_report(&mut settled, Some(&report));
            assert_eq!(settled.verdict, verdict);
            let mut found = s.clone();
            found.culprits.push(culprit("hot", Feature::UpperHalfLine));
            found.verdict = Verdict::Detected;
            settle_by_report(&mut found, Some(&report));
            assert_eq!(found.verdict, Verdict::Detected);
        }
        let mut unsettled = s.clone();
        settle_by_report(&mut unsettled, None);
        assert_eq!(unsettled.verdict, Verdict::Undetermined);
    }

    fn culprit(function: &str, feature: Feature) -> Suspect {
        Suspect {
            function: function.into(),
            feature,
            ir_share: 0.1,
            effect: 0.1,
            feature_range: (0.0, 1.0),
            r: 1.0,
            share: 1.0,
            p: 0.001,
            q: 0.01,
            verdict: Verdict::Detected,
            confirmation: None,
            recorded_suggestion: None,
            fix: None,
        }
    }

    /// Pairs moving together are one finding: b's offset is a's (one module's), d's is the
    /// opposite of a's (|r| = 1), a's second feature joins its function's finding however
    /// weakly it correlates; c moves on its own and explains what a does not (the means are
    /// a + c), so it leads its own finding; e goes with the means mostly through a (its
    /// partial correlation given a is 0.25, p = 0.69 on 3 df) and joins a's.
    #[test]
    fn pairs_moving_together_are_one_finding() {
        let culprits = vec![
            culprit("a", Feature::UpperHalfLine),
            culprit("b", Feature::UpperHalfLine),
            culprit("c", Feature::UpperHalfLine),
            culprit("a", Feature::Lines),
            culprit("d", Feature::UpperHalfLine),
            culprit("e", Feature::Lines),
        ];
        let a: &[f64] = &[0.0, 1.0, 0.0, 1.0, 1.0, 0.0];
        let c: &[f64] = &[1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
        let a_lines: &[f64] = &[2.0, 2.0, 3.0, 3.0, 2.0, 2.0];
        let d: &[f64] = &[1.0, 0.0, 1.0, 0.0, 0.0, 1.0];
        // e = a with its two middle values swapped away from the means' order.
        let e: &[f64] = &[0.0, 1.0, 1.0, 0.0, 1.0, 0.0];
        let means: Vec<f64> = a.iter().zip(c).map(|(x, y)| 100.0 + x + y).collect();
        let f = group_findings(&culprits, &[a, a, c, a_lines, d, e], &means);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f[0].members, vec![0, 1, 3, 4, 5]);
        assert_eq!(f[0].functions, vec!["a", "b", "d", "e"]);
        assert_eq!(f[0].r_with_leader[0], 1.0);
        assert!((f[0].r_with_leader[1] - 1.0).abs() < 1e-12);
        assert!((f[0].r_with_leader[3] + 1.0).abs() < 1e-12);
        // a's and c's values: r = 1/3, below the bar.
        assert_eq!(f[1].members, vec![2]);
    }

    /// Seeded simulation with one true culprit, counted per experiment: 40 experiments of
    /// 20 binaries, 5 hot functions at independent random 16-byte offsets; the mean is 100
    /// plus 2 (two noise sds) when `f0` starts in the upper half of its line. A discovery on
    /// another function is false. The false discovery proportion averaged over experiments
    /// (the FDR) must stay near 5 % or below, and `f0` must be found in at least half.
    #[test]
    fn simulated_fdr_and_power_with_one_culprit() {
        let names: Vec<String> = (0..5).map(|i| format!("f{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut rng = SeededRng::new(12, "explain:one-culprit-simulation");
        let (mut fdp_sum, mut found) = (0.0, 0);
        for e in 0..40 {
            let units: Vec<LayoutUnit> = (0..20)
                .map(|i| {
                    let functions: Vec<Function> = (0..5)
                        .map(|k| {
                            let at = 0x1000 * (k as u64 + 1) + 16 * rng.below(16);
                            Function::named(&names[k], at, 100)
                        })
                        .collect();
                    let step = if functions[0].address % 64 >= 32 {
                        2.0
                    } else {
                        0.0
                    };
                    LayoutUnit {
                        binary: format!("seed-{i}"),
                        mean: 100.0 + step + rng.normal(),
                        ci: None,
                        functions,
                    }
                })
                .collect();
            let o = ScreenOptions {
                seed: e,
                permutations: 199,
                ..options()
            };
            let culprits = screen(&units, &hot(&refs), &o).unwrap().culprits;
            let false_ones = culprits.iter().filter(|c| c.function != "f0").count();
            if !culprits.is_empty() {
                fdp_sum += false_ones as f64 / culprits.len() as f64;
            }
            if culprits.iter().any(|c| c.function == "f0") {
                found += 1;
            }
        }
        let fdr = fdp_sum / 40.0;
        eprintln!("explain one culprit: FDR {fdr:.3}, f0 found in {found} of 40 experiments");
        assert!(fdr <= 0.10, "FDR {fdr}");
        // Measured: FDR 0.035, found in 28 of 40 (power about 70 % for a 2-sd step among 40
        // tests with 20 binaries); the bound guards against a loss of power, half of it.
        assert!(found >= 20, "power: {found} of 40");
    }

    /// Seeded simulation of the whole screening, counted per experiment: 60 experiments of
    /// 20 binaries, 5 hot functions (40 tests), the mean independent of every placement
    /// (noise only). Under this complete null the false discovery rate is the share of
    /// experiments naming any culprit; BH at 5 % keeps it near or below 5 % (the features
    /// of one function are correlated, positively dependent tests, which BH covers).
    #[test]
    fn simulated_false_discovery_rate_of_the_screening() {
        let names: Vec<String> = (0..5).map(|i| format!("f{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut rng = SeededRng::new(11, "explain:null-simulation");
        let mut with_culprit = 0;
        for e in 0..60 {
            let units: Vec<LayoutUnit> = (0..20)
                .map(|i| LayoutUnit {
                    binary: format!("seed-{i}"),
                    mean: 100.0 + rng.normal(),
                    ci: None,
                    functions: (0..5)
                        .map(|k| {
                            let at = 0x1000 * (k as u64 + 1) + 16 * rng.below(16);
                            Function::named(&names[k], at, 100)
                        })
                        .collect(),
                })
                .collect();
            let o = ScreenOptions {
                seed: e,
                permutations: 199,
                ..options()
            };
            if !screen(&units, &hot(&refs), &o).unwrap().culprits.is_empty() {
                with_culprit += 1;
            }
        }
        // Binomial(60, 0.05): mean 3, sd 1.7; 9 is 3.5 sd above.
        eprintln!("explain null: {with_culprit} of 60 experiments named a culprit");
        assert!(with_culprit <= 9, "{with_culprit} of 60");
    }
}
