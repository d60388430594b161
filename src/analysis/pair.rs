//! Is `new` faster than `base`? The one analysis of a pair of hierarchies, shared by
//! `compare A.csv B.csv`, `compare BASE_DIR NEW_DIR` and the variants section of `report`, so
//! that the same two data sets get the same numbers and the same verdict whichever command
//! reads them (issue 21).
//!
//! The top-level ids (the binaries' seeds, `seed-3`, or a CSV's top-level column) decide how
//! the two sides are compared:
//!
//! - **Paired** when at least two ids are present on both sides: the verdict rests on the
//!   paired-by-seed ratio interval ([`crate::stats::paired_ratio`], Fieller's theorem with the
//!   covariance of the paired means), which removes the layout effect a pair shares. With a
//!   partial overlap the pairing uses the ids both sides have, and a warning says how many of
//!   each side were left out of it (they still count in `ratio` and in eq. 5).
//! - **Independent** otherwise: the verdict rests on Fieller's interval for independent
//!   samples (Kalibera & Jones 2013 eq. 5), and a warning says why.
//!
//! Eq. 5 is computed in both cases (`ci`): with matched seeds it is conservative (too wide),
//! and shown beside the paired interval. Beside them: a seeded hierarchical bootstrap of the
//! ratio (pairs drawn jointly when matched), the share of matched units on which new is
//! faster with Wilson's interval (Touati et al.), and the variant × unit interaction on the
//! ratio scale with the blocks as error ([`super::interaction`]). Every statistic the data make undefined is left out with the reason
//! in `warnings`; nothing here panics.

use std::collections::HashMap;

use serde::Serialize;

use crate::seeded::SeededRng;
use crate::stats::bootstrap::{self, BootstrapCi};
use crate::stats::degrees_of_freedom::DegreesOfFreedom;
use crate::stats::fieller::ratio_ci;
use crate::stats::hierarchy::Hierarchy;
use crate::stats::multilevel::mean_ci;
use crate::stats::paired_ratio::paired_ratio;
use crate::stats::suite::wilson_ci;
use crate::stats::twoway::FTest;

use super::effect::{Direction, Effect, EffectVerdict, Interval};
use super::interaction::{pair_interaction, InteractionJson};
use super::positive::{positive_bounds, positive_interval, Withheld};
use super::single::{bootstrap_shortfall, BootstrapOptions, BootstrapShortfall};
use super::vocabulary::Thresholds;

/// What to compute for a pair.
#[derive(Debug, Clone, Copy)]
pub struct PairOptions {
    /// Confidence and relevance thresholds.
    pub thresholds: Thresholds,
    /// Whether the values are times (lower is "faster") or other costs (lower is "lower").
    pub is_time: bool,
    /// Whether the values are rates (`MB/s`: higher is faster), for the gate.
    pub is_rate: bool,
    /// Hierarchical bootstrap of the ratio; `None`: none.
    pub bootstrap: Option<BootstrapOptions>,
    /// Gate: flag the pair when its whole interval (the verdict's) says slower (higher) by
    /// more than this share.
    pub fail_if_slower: Option<f64>,
}

/// A ratio with its interval (`None`: unbounded or not computable).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RatioJson {
    /// The ratio `new/base`.
    pub ratio: f64,
    /// Its interval.
    pub ci: Option<Interval>,
}

/// The bootstrap interval of the ratio.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BootstrapJson {
    /// Studentized bootstrap interval over the binaries (`stats::bootstrap`), its bounds
    /// written beside `resamples` as in every bootstrap object (docs/formats.md).
    #[serde(flatten)]
    pub(crate) ci: Interval,
    /// The interval's confidence level.
    pub(crate) confidence: f64,
    /// Resamples drawn.
    pub(crate) resamples: usize,
    /// Whether pairs were drawn jointly by seed.
    pub(crate) paired: bool,
}

/// The share of seeds on which new's mean is below base's, with Wilson's interval. Below is
/// faster for a time or a count (lower is better) and slower for a rate (`MB/s`), so the
/// wire names the direction, not the speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ShareBelow {
    /// Seeds on which new's mean is below base's.
    pub(crate) below: usize,
    /// Seeds compared.
    pub(crate) compared: usize,
    /// Seeds on which new's mean is above base's (`compared - below - above` seeds tie).
    pub(crate) above: usize,
    /// Lower end of Wilson's interval for the probability of below.
    pub(crate) lower: f64,
    /// Upper end.
    pub(crate) upper: f64,
}

/// An F-test as the reports show it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct FTestJson {
    /// The F statistic.
    pub(crate) f: f64,
    /// Numerator and denominator degrees of freedom.
    #[serde(flatten)]
    pub(crate) df: DegreesOfFreedom<usize>,
    /// Its p-value.
    pub(crate) p_value: f64,
}

impl From<FTest> for FTestJson {
    fn from(t: FTest) -> Self {
        FTestJson {
            f: t.f,
            df: t.df,
            p_value: t.p_value,
        }
    }
}

/// One matched binary (seed) of a pair: its mean on each side, from the same hierarchies
/// the pair's statistics use (what the paired and interaction plots draw).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BinaryMeans {
    /// The binary's label, `seed-N` (the top-level id).
    pub(crate) binary: String,
    /// Its mean on the base side.
    pub(crate) base: f64,
    /// Its mean on the new side.
    pub(crate) new: f64,
}

/// The crossed design of a paired interval over code and data layouts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DataLayouts {
    /// Data seeds every matched binary ran under on both sides.
    pub data_seeds: usize,
    /// Satterthwaite's degrees of freedom of the interval.
    pub df: f64,
}

/// Each side's cell means per binary (in its hierarchy's top-level order) and data seed
/// (in `seeds`' order): what a crossed interval over code and data layouts needs.
#[derive(Debug, Clone, Copy)]
pub struct DataCells<'a> {
    /// The data seeds, in the cells' column order.
    pub seeds: &'a [u64],
    /// Per binary, per data seed, the mean of its executions.
    pub means: &'a [Vec<f64>],
}

impl<'a> DataCells<'a> {
    /// The cells of `(seeds, means)` as `data_split::data_cell_means` gives them.
    pub fn of((seeds, means): &'a (Vec<u64>, Vec<Vec<f64>>)) -> DataCells<'a> {
        DataCells { seeds, means }
    }
}

/// Which interval the verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The paired-by-seed interval (at least two seeds matched).
    Paired,
    /// Fieller's interval for independent sides (eq. 5).
    Fieller,
}

/// A side analysis of a pair: it does not decide the verdict (the pair's `basis`
/// does) but checks it, by another method or another assumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckTest {
    /// Fieller's interval for independent sides (eq. 5), a check when the verdict is paired.
    Fieller,
    /// Welch's test on the top-level means (independent sides).
    Welch,
    /// The Mann–Whitney test on the top-level means (independent sides, no normality).
    MannWhitney,
    /// The hierarchical bootstrap interval of the ratio (no normality; pairs drawn jointly
    /// when matched).
    Bootstrap,
}

impl CheckTest {
    /// Whether the check treats the sides as independent samples (ignores a pairing).
    pub(crate) fn independent(self, bootstrap_paired: bool) -> bool {
        match self {
            CheckTest::Fieller | CheckTest::Welch | CheckTest::MannWhitney => true,
            CheckTest::Bootstrap => !bootstrap_paired,
        }
    }
}

/// One check of the verdict: whether it finds a difference at the comparison's level, and
/// whether that agrees with the verdict's interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Check {
    /// The check.
    pub(crate) test: CheckTest,
    /// It finds a difference (its interval excludes 1, or its p-value is below 1 − confidence).
    pub(crate) detects: bool,
    /// `detects` equals whether the verdict's interval finds one.
    pub(crate) agrees: bool,
}

/// The analysis of one pair: `new` against `base`. Its JSON is the same object in `compare`
/// (CSV and directories) and in `report`'s variant comparisons.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PairAnalysis {
    /// `mean(new) / mean(base)` over all their binaries.
    pub ratio: f64,
    /// Fieller's interval (eq. 5), independent sides.
    pub ci: Option<Interval>,
    /// The paired-by-seed ratio and interval (null without two matched seeds); over the
    /// data seeds too when `data_layouts` says so.
    pub paired: Option<RatioJson>,
    /// When both sides ran every binary under the same data seeds (`run --data-seeds`): the
    /// paired interval treats the data seeds as a random factor too (a crossed design,
    /// [`crate::stats::crossed_ratio`]), so it holds over random data layouts, not only for
    /// these (issue 55). Null otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_layouts: Option<DataLayouts>,
    /// The hierarchical bootstrap interval of the ratio.
    pub bootstrap: Option<BootstrapJson>,
    /// Seeds on which new is lower (null without matched seeds).
    pub share_below: Option<ShareBelow>,
    /// Variant × layout interaction on the ratio scale, blocks as the error term (null
    /// without two matched seeds of at least two rounds each).
    pub interaction: Option<InteractionJson>,
    /// The matched binaries' means on each side, in the base's order (empty without two
    /// matched seeds): the data of the paired-by-seed interval, the share of faster seeds
    /// and the interaction test.
    pub binaries: Vec<BinaryMeans>,
    /// The interval the verdict rests on.
    pub basis: Basis,
    /// The effect classified at the thresholds, on the basis's interval.
    pub effect: Effect,
    /// One word: faster, slower, negligible, equivalent, inconclusive (no significant
    /// difference), tie, unbounded (lower/higher for non-times); the verdict is
    /// `effect.verdict`.
    // The schema stays a string, as it was before the direction was an enum.
    #[schemars(with = "String")]
    pub direction: Direction,
    /// The whole interval says slower than `--fail-if-slower` allows.
    pub slower_beyond_threshold: bool,
    /// Whether `--fail-if-slower` judged this pair (given, and on a gated metric).
    pub gated: bool,
    /// The side analyses as checks of the verdict: eq. 5 when the verdict is paired, the
    /// bootstrap, and in `compare` Welch's and the Mann–Whitney test; what each finds and
    /// whether it agrees (empty for a tie or an unbounded verdict).
    pub checks: Vec<Check>,
}

impl PairAnalysis {
    /// Withholds a determinate verdict (faster, slower, negligible, equivalent) as
    /// inconclusive, keeping the ratio and its interval: `compare` of two runs apart whose
    /// host changed between them, which the interval does not cover. The gate cannot fail
    /// on it; the checks stay judged against what the interval found (they check the
    /// interval, not the host). Returns the direction withheld, `None` when the verdict was
    /// not determinate.
    pub(crate) fn withhold(&mut self, is_time: bool) -> Option<Direction> {
        if !matches!(
            self.effect.verdict,
            EffectVerdict::Lower
                | EffectVerdict::Higher
                | EffectVerdict::Negligible
                | EffectVerdict::Equivalent
        ) {
            return None;
        }
        let withheld = self.direction;
        self.effect.verdict = EffectVerdict::Inconclusive;
        self.direction = Direction::of(EffectVerdict::Inconclusive, is_time);
        self.slower_beyond_threshold = false;
        Some(withheld)
    }

    /// How far beyond a gate's threshold a true slowdown must lie for the gate to catch it
    /// with [`crate::stats::mde::DEFAULT_POWER`] (80 %), as a share of the base: `λ* · s/√n`,
    /// with `s` the standard deviation of the matched binaries' relative differences
    /// `new/base − 1`, `n` their count and `λ*` the noncentrality at which a t statistic on
    /// `n − 1` degrees of freedom clears the two-sided `confidence` interval's critical value
    /// that often ([`crate::stats::mde::noncentrality_for_power`]; Cohen 1988 §2.4, here for
    /// the paired design). `None` unless the verdict is paired (an estimate for other bases
    /// would need their own error model) or with fewer than three pairs.
    pub fn detectable_excess(&self, confidence: f64) -> Option<f64> {
        if self.basis != Basis::Paired || self.binaries.len() < 3 {
            return None;
        }
        let differences: Vec<f64> = (self.binaries.iter())
            .map(|b| b.new / b.base - 1.0)
            .collect();
        let n = differences.len() as f64;
        let se = crate::stats::sample::variance(&differences).sqrt() / n.sqrt();
        let lambda = crate::stats::mde::noncentrality_for_power(
            n - 1.0,
            1.0 - confidence,
            crate::stats::mde::DEFAULT_POWER,
        )?;
        (se.is_finite()).then_some(lambda * se)
    }

    /// The check `test` that `detects` a difference or not, judged against the verdict;
    /// `None` for a tie or an unbounded verdict (nothing to agree with).
    pub(crate) fn check(&self, test: CheckTest, detects: bool) -> Option<Check> {
        (!matches!(
            self.effect.verdict,
            EffectVerdict::Tie | EffectVerdict::Unbounded
        ))
        .then(|| Check {
            test,
            detects,
            agrees: detects == self.effect.detected(),
        })
    }

    /// The interval checks of the verdict: eq. 5 when the verdict is paired, the bootstrap.
    fn interval_checks(&self) -> Vec<Check> {
        let excludes_one = |c: &Interval| c.lower > 1.0 || c.upper < 1.0;
        let fieller = self.ci.filter(|_| self.basis == Basis::Paired);
        [
            (CheckTest::Fieller, fieller.map(|c| excludes_one(&c))),
            (
                CheckTest::Bootstrap,
                self.bootstrap.map(|b| excludes_one(&b.ci)),
            ),
        ]
        .into_iter()
        .filter_map(|(test, detects)| self.check(test, detects?))
        .collect()
    }
}

/// The two sides restricted to the top-level units both hold (in the base's order).
struct Matched {
    base: Hierarchy,
    new: Hierarchy,
}

/// An interval of a pair's ratio that can be withheld ([`PairWarning::Withheld`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairInterval {
    /// Fieller's interval for independent sides (eq. 5).
    Fieller,
    /// The hierarchical bootstrap interval.
    Bootstrap,
}

/// Why a statistic of a pair is missing, or what its reader must know, as figures; the
/// words are `crate::report::words::pair`'s, which name the top-level units ("binaries").
#[derive(Debug, Clone, PartialEq)]
pub enum PairWarning {
    /// No Fieller interval: a side has fewer than two top-level units.
    NoFieller,
    /// An interval of the ratio withheld by the one rule ([`super::positive`]).
    Withheld {
        /// Which interval.
        interval: PairInterval,
        /// Why.
        why: Withheld,
    },
    /// Fewer than two top-level units in common: no pairing.
    FewInCommon {
        /// Units both sides hold.
        common: usize,
        /// The base's units.
        base: usize,
        /// The new side's units.
        new: usize,
    },
    /// Paired on the units both sides hold, leaving some of either side out.
    PartlyPaired {
        /// Units both sides hold.
        common: usize,
        /// The base's units.
        base: usize,
        /// The new side's units.
        new: usize,
        /// `new / base − 1` of the means over every unit of each side.
        all_change: f64,
        /// `new / base − 1` of the means over the units paired.
        paired_change: f64,
    },
    /// No interaction test (the statistics' reason).
    NoInteraction(String),
    /// The bootstrap interval is missing or rests on too few units.
    Bootstrap(BootstrapShortfall),
}

/// Analyses `new` against `base`; the warnings are pushed without the pair's name, which the
/// caller adds.
pub(crate) fn analyse_pair(
    base: &Hierarchy,
    new: &Hierarchy,
    cells: Option<(DataCells, DataCells)>,
    options: &PairOptions,
    warnings: &mut Vec<PairWarning>,
) -> PairAnalysis {
    let th = &options.thresholds;
    let ratio = new.mean() / base.mean();
    let fieller_bounds = match (mean_ci(base, th.confidence), mean_ci(new, th.confidence)) {
        (Ok(b), Ok(n)) => ratio_ci(&b, &n).bounds(),
        _ => {
            warnings.push(PairWarning::NoFieller);
            None
        }
    };
    let fieller = withhold_below_zero(fieller_bounds, PairInterval::Fieller, warnings);
    let matched = match_units(base, new, warnings);
    let binaries = matched.as_ref().map_or_else(Vec::new, binary_means);
    let (base_means, new_means): (Vec<f64>, Vec<f64>) =
        binaries.iter().map(|b| (b.base, b.new)).unzip();
    let crossed = cells.and_then(|c| crossed(base, new, c, th.confidence));
    let data_layouts = crossed.map(|r| DataLayouts {
        data_seeds: r.data_seeds,
        df: r.df,
    });
    let paired_raw = match crossed {
        Some(r) => Some((r.estimate, r.bounds())),
        None => (!base_means.is_empty())
            .then(|| paired_ratio(&base_means, &new_means, th.confidence).ok())
            .flatten()
            .map(|p| (p.estimate, p.bounds())),
    };
    let paired = paired_raw.map(|(ratio, bounds)| RatioJson {
        ratio,
        ci: bounds.and_then(positive_bounds),
    });
    let share_below = share_below(&base_means, &new_means, th.confidence);
    let interaction = matched.as_ref().and_then(|m| interaction(m, th, warnings));
    let bootstrap = bootstrap_interval(base, new, matched.as_ref(), options, warnings);
    let (basis, effect) = if is_tie(base, new) {
        (
            Basis::Fieller,
            Effect::classify(1.0, Some((1.0, 1.0)), th, options.is_time),
        )
    } else if let Some((paired_ratio, bounds)) = paired_raw {
        // The unfiltered bounds: the effect withholds them by the same rule, with the reason
        // in its words.
        (
            Basis::Paired,
            Effect::classify(paired_ratio, bounds, th, options.is_time),
        )
    } else {
        (
            Basis::Fieller,
            Effect::classify(ratio, fieller_bounds, th, options.is_time),
        )
    };
    let mut analysis = PairAnalysis {
        ratio,
        ci: fieller,
        paired,
        data_layouts,
        bootstrap,
        share_below,
        interaction,
        binaries,
        basis,
        direction: Direction::of(effect.verdict, options.is_time),
        slower_beyond_threshold: effect.slower_beyond(options.fail_if_slower, options.is_rate),
        gated: options.fail_if_slower.is_some(),
        effect,
        checks: Vec::new(),
    };
    analysis.checks = analysis.interval_checks();
    analysis
}

/// An interval of the ratio by the one rule ([`positive_bounds`]); a warning naming the
/// `interval` with the rule's reason when bounds reaching zero or below are withheld.
fn withhold_below_zero(
    bounds: Option<(f64, f64)>,
    interval: PairInterval,
    warnings: &mut Vec<PairWarning>,
) -> Option<Interval> {
    let (lower, upper) = bounds?;
    match positive_interval(lower, upper) {
        Ok(i) => Some(i),
        Err(why) => {
            warnings.push(PairWarning::Withheld { interval, why });
            None
        }
    }
}

/// Both sides are the same constant: a tie, whatever the intervals say (they are empty).
fn is_tie(base: &Hierarchy, new: &Hierarchy) -> bool {
    let constant = |h: &Hierarchy| h.values().iter().all(|v| *v == h.values()[0]);
    constant(base) && constant(new) && base.values()[0] == new.values()[0]
}

/// The ratio over code and data layouts of the binaries both sides hold (at least two),
/// when both ran them under the same data seeds (at least two); `None` otherwise, or when
/// the crossed interval cannot be formed (the pairs by binary then decide).
fn crossed(
    base: &Hierarchy,
    new: &Hierarchy,
    (b, n): (DataCells, DataCells),
    confidence: f64,
) -> Option<crate::stats::crossed_ratio::CrossedRatio> {
    if b.seeds != n.seeds || b.seeds.len() < 2 {
        return None;
    }
    let matched = matched_units(base, new);
    let rows = |c: &DataCells, pick: fn(&(usize, usize)) -> usize| -> Option<Vec<Vec<f64>>> {
        matched
            .iter()
            .map(|m| c.means.get(pick(m)).cloned())
            .collect()
    };
    let (base_rows, new_rows) = (rows(&b, |m| m.0)?, rows(&n, |m| m.1)?);
    crate::stats::crossed_ratio::crossed_ratio(&base_rows, &new_rows, confidence).ok()
}

/// Indices of the top-level ids that both hierarchies hold, in `a`'s order: (in a, in b).
fn matched_units(a: &Hierarchy, b: &Hierarchy) -> Vec<(usize, usize)> {
    let in_b: HashMap<&str, usize> = b
        .top_ids()
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    a.top_ids()
        .iter()
        .enumerate()
        .filter_map(|(i, id)| in_b.get(id.as_str()).map(|&j| (i, j)))
        .collect()
}

/// The pairing rule: the units both sides hold, when there are at least two; a warning when
/// some units of either side are left out of the pairing, or when there is no pairing.
fn match_units(
    base: &Hierarchy,
    new: &Hierarchy,
    warnings: &mut Vec<PairWarning>,
) -> Option<Matched> {
    let matched = matched_units(base, new);
    let (common, base_units, new_units) =
        (matched.len(), base.top_ids().len(), new.top_ids().len());
    if common < 2 {
        if common > 0 || base_units >= 2 {
            warnings.push(PairWarning::FewInCommon {
                common,
                base: base_units,
                new: new_units,
            });
        }
        return None;
    }
    let (ib, in_): (Vec<usize>, Vec<usize>) = matched.into_iter().unzip();
    let m = Matched {
        base: base.select_top(&ib)?,
        new: new.select_top(&in_)?,
    };
    if common < base_units.max(new_units) {
        warnings.push(PairWarning::PartlyPaired {
            common,
            base: base_units,
            new: new_units,
            all_change: new.mean() / base.mean() - 1.0,
            paired_change: m.new.mean() / m.base.mean() - 1.0,
        });
    }
    Some(m)
}

fn binary_means(m: &Matched) -> Vec<BinaryMeans> {
    m.base
        .top_ids()
        .iter()
        .zip(m.base.top_means().into_iter().zip(m.new.top_means()))
        .map(|(id, (base, new))| BinaryMeans {
            binary: id.clone(),
            base,
            new,
        })
        .collect()
}

/// The share of matched units on which new is below base, with Wilson's interval.
fn share_below(base: &[f64], new: &[f64], confidence: f64) -> Option<ShareBelow> {
    if base.is_empty() {
        return None;
    }
    let pairs = || base.iter().zip(new);
    let below = pairs().filter(|(b, n)| n < b).count();
    let above = pairs().filter(|(b, n)| n > b).count();
    let w = wilson_ci(below as u64, base.len() as u64, confidence, false).ok()?;
    Some(ShareBelow {
        below,
        compared: base.len(),
        above,
        lower: w.lower,
        upper: w.upper,
    })
}

/// The variant × unit interaction on the ratio scale, the executions as rounds (blocks):
/// [`super::interaction::pair_interaction`].
fn interaction(
    m: &Matched,
    thresholds: &Thresholds,
    warnings: &mut Vec<PairWarning>,
) -> Option<InteractionJson> {
    match pair_interaction(&m.base, &m.new, thresholds) {
        Ok(i) => Some(i),
        Err(e) => {
            warnings.push(PairWarning::NoInteraction(e));
            None
        }
    }
}

/// The seeded hierarchical bootstrap of the ratio: matched units drawn jointly, else the
/// two sides resampled independently.
fn bootstrap_interval(
    base: &Hierarchy,
    new: &Hierarchy,
    matched: Option<&Matched>,
    options: &PairOptions,
    warnings: &mut Vec<PairWarning>,
) -> Option<BootstrapJson> {
    let boot = options.bootstrap?;
    let confidence = options.thresholds.confidence;
    // The stream keeps the name of its first user, the variants report, so that the
    // report's bootstrap intervals did not change when the analysis moved here.
    let mut rng = SeededRng::new(boot.seed, "variants-bootstrap");
    // The units resampled: the matched ones jointly, or each side's own.
    let (ci, count, paired) = match matched {
        Some(m) => (
            bootstrap::paired_ratio_ci(&m.base, &m.new, confidence, boot.resamples, &mut rng),
            m.base.top_ids().len(),
            true,
        ),
        None => (
            bootstrap::ratio_ci(base, new, confidence, boot.resamples, &mut rng),
            base.top_ids().len().min(new.top_ids().len()),
            false,
        ),
    };
    warnings.extend(bootstrap_shortfall(&ci, count).map(PairWarning::Bootstrap));
    let c: BootstrapCi = ci.ok()?;
    let ci = withhold_below_zero(Some((c.lower, c.upper)), PairInterval::Bootstrap, warnings)?;
    Some(BootstrapJson {
        ci,
        confidence: c.confidence,
        resamples: c.resamples,
        paired,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ids.len()` binaries × 3 executions × 2 iterations around `mean`, each binary's
    /// layout offset by its seed number.
    fn side(mean: f64, ids: &[u64]) -> Hierarchy {
        let values = ids
            .iter()
            .flat_map(|&s| (0..6).map(move |k| mean * (1.0 + 0.01 * s as f64) + 0.001 * k as f64))
            .collect();
        Hierarchy::from_nested(values, vec![2, 3, ids.len()])
            .unwrap()
            .with_top_ids(ids.iter().map(|s| format!("seed-{s}")).collect())
            .unwrap()
    }

    fn options() -> PairOptions {
        PairOptions {
            thresholds: Thresholds::default(),
            is_time: true,
            is_rate: false,
            bootstrap: None,
            fail_if_slower: None,
        }
    }

    /// `n` binaries of one execution each: a lumpy layout effect shared by both sides, run
    /// noise of `noise` per binary mean, the new side `slowdown` slower.
    fn gate_sides(
        rng: &mut crate::stats::seeded::SeededRng,
        n: usize,
        noise: f64,
        slowdown: f64,
    ) -> (Hierarchy, Hierarchy) {
        let ids: Vec<String> = (1..=n).map(|s| format!("seed-{s}")).collect();
        let (mut base, mut new) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let layout = if rng.unit_f64() < 0.15 { 1.2 } else { 1.0 };
            base.push(100.0 * layout * (1.0 + noise * rng.normal()));
            new.push(100.0 * layout * (1.0 + slowdown) * (1.0 + noise * rng.normal()));
        }
        let side = |v: Vec<f64>| {
            Hierarchy::from_nested(v, vec![1, n])
                .unwrap()
                .with_top_ids(ids.clone())
                .unwrap()
        };
        (side(base), side(new))
    }

    /// On a rate (MB/s) the gate fails when the new side does less work per second: a
    /// throughput 5 % lower fails `--fail-if-slower 1 %` and 5 % higher passes, the reverse
    /// of a time's gate on the same ratios (seeded: 20 paired binaries, 1 % noise).
    #[test]
    fn the_gate_on_a_rate_fails_a_lower_throughput() {
        let mut rng = crate::stats::seeded::SeededRng::new(5, "rate-gate");
        let gate = |is_rate| PairOptions {
            fail_if_slower: Some(0.01),
            is_time: false,
            is_rate,
            ..options()
        };
        let (base, lower) = gate_sides(&mut rng, 20, 0.01, -0.05);
        let (base2, higher) = gate_sides(&mut rng, 20, 0.01, 0.05);
        let judge = |b: &Hierarchy, n: &Hierarchy, is_rate| {
            analyse_pair(b, n, None, &gate(is_rate), &mut Vec::new()).slower_beyond_threshold
        };
        assert!(judge(&base, &lower, true), "lower throughput must fail");
        assert!(!judge(&base2, &higher, true), "higher throughput must pass");
        assert!(!judge(&base, &lower, false), "a lower cost passes");
        assert!(judge(&base2, &higher, false), "a higher cost fails");
    }

    /// The power the gate's lines promise is the power it has: seeded simulation of 1,000
    /// paired comparisons (20 binaries, 1 % run noise per binary mean, a lumpy layout effect
    /// both sides share, threshold 0.5 %). The slowdown each design "catches 80 % of the
    /// time" is estimated from a first comparison's data (its `detectable_excess`); a true
    /// slowdown of the threshold plus the median of those estimates fails the gate in 80 %
    /// ± 5 % of fresh comparisons, and a true slowdown at the threshold in at most 3 %.
    #[test]
    fn the_gates_detectable_slowdown_is_caught_80_percent_of_the_time() {
        let mut rng = crate::stats::seeded::SeededRng::new(21, "gate-power");
        let gated = PairOptions {
            fail_if_slower: Some(0.005),
            ..options()
        };
        let judge = |rng: &mut crate::stats::seeded::SeededRng, slowdown: f64| {
            let (b, n) = gate_sides(rng, 20, 0.01, slowdown);
            analyse_pair(&b, &n, None, &gated, &mut Vec::new())
        };
        let mut excesses: Vec<f64> = (0..200)
            .map(|_| judge(&mut rng, 0.0).detectable_excess(0.95).unwrap())
            .collect();
        excesses.sort_by(f64::total_cmp);
        let excess = excesses[100];
        let runs = 1000;
        let caught = (0..runs)
            .filter(|_| judge(&mut rng, 0.005 + excess).slower_beyond_threshold)
            .count();
        let at_threshold = (0..runs)
            .filter(|_| judge(&mut rng, 0.005).slower_beyond_threshold)
            .count();
        let rate = |k: usize| k as f64 / runs as f64;
        assert!(
            (rate(caught) - 0.8).abs() <= 0.05,
            "caught {} at {excess}",
            rate(caught)
        );
        assert!(rate(at_threshold) <= 0.03, "{}", rate(at_threshold));
    }

    /// Issue 55: each binary ran under 3 data seeds, and the speedup depends on the data
    /// layout (0.93, 0.95, 0.97). Paired by binary alone, the interval is the one of these
    /// three data layouts, far narrower than the speedup's spread over them; with the cells,
    /// the data seeds are a random factor and the interval covers that spread. The pairs are
    /// matched by name whatever the order of the new side's binaries.
    #[test]
    fn with_data_seeds_the_interval_covers_random_data_layouts() {
        let ids: Vec<u64> = (0..8).collect();
        let speedup = [0.93, 0.95, 0.97];
        let base_cells: Vec<Vec<f64>> = ids
            .iter()
            .map(|&s| {
                (0..3)
                    .map(|j| 100.0 * (1.0 + 0.01 * s as f64) + j as f64)
                    .collect()
            })
            .collect();
        let new_cells: Vec<Vec<f64>> = base_cells
            .iter()
            .enumerate()
            .rev()
            .map(|(i, row)| {
                row.iter()
                    .zip(speedup)
                    .map(|(v, k)| v * k * (1.0 + 0.0005 * (i % 3) as f64))
                    .collect()
            })
            .collect();
        let hierarchy = |cells: &[Vec<f64>], ids: Vec<String>| {
            Hierarchy::from_nested(
                cells.iter().flatten().copied().collect(),
                vec![3, cells.len()],
            )
            .unwrap()
            .with_top_ids(ids)
            .unwrap()
        };
        let names: Vec<String> = ids.iter().map(|s| format!("seed-{s}")).collect();
        let base = hierarchy(&base_cells, names.clone());
        let new = hierarchy(&new_cells, names.into_iter().rev().collect());
        let seeds = [11, 12, 13];
        let cells = Some((
            DataCells {
                seeds: &seeds,
                means: &base_cells,
            },
            DataCells {
                seeds: &seeds,
                means: &new_cells,
            },
        ));
        let by_binary = analyse_pair(&base, &new, None, &options(), &mut Vec::new());
        let crossed = analyse_pair(&base, &new, cells, &options(), &mut Vec::new());
        let width = |p: &PairAnalysis| {
            let ci = p.paired.as_ref().unwrap().ci.unwrap();
            (ci.lower, ci.upper)
        };
        let (lo, hi) = width(&by_binary);
        assert!(hi - lo < 0.005, "by binary: {lo} to {hi}");
        let (lo, hi) = width(&crossed);
        assert!(lo < 0.93 && hi > 0.97, "over data layouts: {lo} to {hi}");
        assert_eq!(crossed.data_layouts.unwrap().data_seeds, 3);
        assert!(by_binary.data_layouts.is_none());
        // Other data seeds on one side: no crossed design, the pairs by binary decide.
        let other = [11, 12, 14];
        let mismatched = Some((
            DataCells {
                seeds: &seeds,
                means: &base_cells,
            },
            DataCells {
                seeds: &other,
                means: &new_cells,
            },
        ));
        let p = analyse_pair(&base, &new, mismatched, &options(), &mut Vec::new());
        assert!(p.data_layouts.is_none());
    }

    #[test]
    fn a_partial_overlap_is_reported_with_its_counts() {
        // Seeds 0–9 against 3–10: 7 in common, 3 of base's and 1 of new's left out.
        let base = side(100.0, &(0..10).collect::<Vec<_>>());
        let new = side(90.0, &(3..11).collect::<Vec<_>>());
        let mut warnings = Vec::new();
        let pair = analyse_pair(&base, &new, None, &options(), &mut warnings);
        assert_eq!(pair.basis, Basis::Paired);
        assert_eq!(pair.binaries.len(), 7);
        let [PairWarning::PartlyPaired {
            common,
            base,
            new,
            all_change,
            paired_change,
        }] = warnings[..]
        else {
            panic!("{warnings:?}");
        };
        assert_eq!((common, base, new), (7, 10, 8));
        // Both sides rise 1 % a seed: over seeds 3–9 new is exactly 10 % lower; over all,
        // new's seeds (3–10, mean 6.5) against base's (0–9, mean 4.5).
        assert!((paired_change + 0.1).abs() < 1e-4, "{paired_change}");
        let want = 90.0 * 1.065 / (100.0 * 1.045) - 1.0;
        assert!((all_change - want).abs() < 1e-4, "{all_change} {want}");
    }

    #[test]
    fn disjoint_seeds_are_reported_as_fewer_than_two_in_common() {
        let base = side(100.0, &[0, 1, 2, 3]);
        let new = side(100.0, &[4, 5, 6]);
        let mut warnings = Vec::new();
        let pair = analyse_pair(&base, &new, None, &options(), &mut warnings);
        assert_eq!(pair.basis, Basis::Fieller);
        assert_eq!(
            warnings,
            [PairWarning::FewInCommon {
                common: 0,
                base: 4,
                new: 3
            }]
        );
    }

    #[test]
    fn one_binary_a_side_has_no_fieller_interval() {
        let (base, new) = (side(100.0, &[0]), side(90.0, &[1]));
        let mut warnings = Vec::new();
        let pair = analyse_pair(&base, &new, None, &options(), &mut warnings);
        assert!(pair.ci.is_none());
        assert_eq!(warnings, [PairWarning::NoFieller]);
    }
}
