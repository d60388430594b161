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
use crate::stats::fieller::ratio_ci;
use crate::stats::hierarchy::Hierarchy;
use crate::stats::multilevel::mean_ci;
use crate::stats::paired_ratio::paired_ratio;
use crate::stats::suite::wilson_ci;
use crate::stats::twoway::FTest;

use super::effect::{Effect, Interval};
use super::interaction::{pair_interaction, InteractionJson};
use super::single::{bootstrap_warning, BootstrapOptions};
use super::vocabulary::Thresholds;

/// What to compute for a pair.
#[derive(Debug, Clone, Copy)]
pub struct PairOptions {
    /// Confidence and relevance thresholds.
    pub thresholds: Thresholds,
    /// Whether the values are times (lower is "faster") or other costs (lower is "lower").
    pub is_time: bool,
    /// Hierarchical bootstrap of the ratio; `None`: none.
    pub bootstrap: Option<BootstrapOptions>,
    /// Gate: flag the pair when its whole interval (the verdict's) says slower (higher) by
    /// more than this share.
    pub fail_if_slower: Option<f64>,
}

impl PairOptions {
    /// The words of a ratio below and above 1: "faster"/"slower" for times,
    /// "lower"/"higher" otherwise.
    pub fn directions(&self) -> (&'static str, &'static str) {
        if self.is_time {
            ("faster", "slower")
        } else {
            ("lower", "higher")
        }
    }
}

/// A ratio with its interval (`None`: unbounded or not computable).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RatioJson {
    /// The ratio `new/base`.
    pub ratio: f64,
    /// Its interval.
    pub ci: Option<Interval>,
}

/// The bootstrap interval of the ratio.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BootstrapJson {
    /// Studentized bootstrap interval over the binaries (`stats::bootstrap`), its bounds
    /// written beside `resamples` as in every bootstrap object (docs/formats.md).
    #[serde(flatten)]
    pub ci: Interval,
    /// The interval's confidence level.
    pub confidence: f64,
    /// Resamples drawn.
    pub resamples: usize,
    /// Whether pairs were drawn jointly by seed.
    pub paired: bool,
}

/// The share of seeds on which new is faster (lower), with Wilson's interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ShareFaster {
    /// Seeds on which new's mean is below base's.
    pub k: usize,
    /// Seeds compared.
    #[serde(rename = "compared")]
    pub n: usize,
    /// Seeds on which new's mean is above base's (`n - k - slower` seeds tie).
    pub slower: usize,
    /// Lower end of Wilson's interval for the probability.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// An F-test as the reports show it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FTestJson {
    /// The F statistic.
    pub f: f64,
    /// Numerator and denominator degrees of freedom.
    #[serde(flatten, serialize_with = "crate::stats::wire::df_pair")]
    pub df: (usize, usize),
    /// Its p-value.
    pub p_value: f64,
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BinaryMeans {
    /// The binary's label, `seed-N` (the top-level id).
    pub binary: String,
    /// Its mean on the base side.
    pub base: f64,
    /// Its mean on the new side.
    pub new: f64,
}

/// Which interval the verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The paired-by-seed interval (at least two seeds matched).
    Paired,
    /// Fieller's interval for independent sides (eq. 5).
    Fieller,
}

/// The analysis of one pair: `new` against `base`. Its JSON is the same object in `compare`
/// (CSV and directories) and in `report`'s variant comparisons.
#[derive(Debug, Clone, Serialize)]
pub struct PairAnalysis {
    /// `mean(new) / mean(base)` over all their binaries.
    pub ratio: f64,
    /// Fieller's interval (eq. 5), independent sides.
    pub ci: Option<Interval>,
    /// The paired-by-seed ratio and interval (null without two matched seeds).
    pub paired: Option<RatioJson>,
    /// The hierarchical bootstrap interval of the ratio.
    pub bootstrap: Option<BootstrapJson>,
    /// Seeds on which new is faster (null without matched seeds).
    pub share_faster: Option<ShareFaster>,
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
    /// One word: "faster", "slower", "negligible", "equivalent", "no significant
    /// difference", "tie", "unbounded" ("lower"/"higher" for non-times). JSON: `direction`,
    /// snake case (`inconclusive`); the verdict is `effect.verdict`.
    #[serde(rename = "direction", serialize_with = "super::effect::wire_word")]
    pub verdict: &'static str,
    /// The whole interval says slower than `--fail-if-slower` allows.
    pub slower_beyond_threshold: bool,
}

/// The two sides restricted to the top-level units both hold (in the base's order).
struct Matched {
    base: Hierarchy,
    new: Hierarchy,
}

/// Analyses `new` against `base`. `units` names the top-level units in warnings
/// ("binaries"); the warnings are pushed without the pair's name, which the caller adds.
pub fn analyse_pair(
    base: &Hierarchy,
    new: &Hierarchy,
    units: &str,
    options: &PairOptions,
    warnings: &mut Vec<String>,
) -> PairAnalysis {
    let th = &options.thresholds;
    let (better, worse) = options.directions();
    let ratio = new.mean() / base.mean();
    let fieller = match (mean_ci(base, th.confidence), mean_ci(new, th.confidence)) {
        (Ok(b), Ok(n)) => ratio_ci(&b, &n).bounds().map(interval),
        _ => {
            warnings.push(format!(
                "no Fieller interval (eq. 5): each side needs at least two {units}"
            ));
            None
        }
    };
    let matched = match_units(base, new, units, warnings);
    let binaries = matched.as_ref().map_or_else(Vec::new, binary_means);
    let (base_means, new_means): (Vec<f64>, Vec<f64>) =
        binaries.iter().map(|b| (b.base, b.new)).unzip();
    let paired = (!base_means.is_empty())
        .then(|| paired_ratio(&base_means, &new_means, th.confidence).ok())
        .flatten()
        .map(|p| RatioJson {
            ratio: p.estimate,
            ci: p.bounds().map(interval),
        });
    let share_faster = share_faster(&base_means, &new_means, th.confidence);
    let interaction = matched.as_ref().and_then(|m| interaction(m, th, warnings));
    let bootstrap = bootstrap_interval(base, new, matched.as_ref(), options, units, warnings);
    let (basis, effect) = if is_tie(base, new) {
        (
            Basis::Fieller,
            Effect::classify(1.0, Some((1.0, 1.0)), th, better, worse),
        )
    } else if let Some(p) = paired {
        (
            Basis::Paired,
            Effect::classify(p.ratio, p.ci.map(|c| (c.lower, c.upper)), th, better, worse),
        )
    } else {
        let bounds = fieller.map(|c| (c.lower, c.upper));
        (
            Basis::Fieller,
            Effect::classify(ratio, bounds, th, better, worse),
        )
    };
    PairAnalysis {
        ratio,
        ci: fieller,
        paired,
        bootstrap,
        share_faster,
        interaction,
        binaries,
        basis,
        verdict: effect.verdict.word(better, worse),
        slower_beyond_threshold: effect.slower_beyond(options.fail_if_slower),
        effect,
    }
}

fn interval((lower, upper): (f64, f64)) -> Interval {
    Interval { lower, upper }
}

/// Both sides are the same constant: a tie, whatever the intervals say (they are empty).
fn is_tie(base: &Hierarchy, new: &Hierarchy) -> bool {
    let constant = |h: &Hierarchy| h.values().iter().all(|v| *v == h.values()[0]);
    constant(base) && constant(new) && base.values()[0] == new.values()[0]
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
    units: &str,
    warnings: &mut Vec<String>,
) -> Option<Matched> {
    let matched = matched_units(base, new);
    let (nb, nn) = (base.top_ids().len(), new.top_ids().len());
    if matched.len() < 2 {
        if !matched.is_empty() || nb >= 2 {
            warnings.push(format!(
                "fewer than two {units} in common ({} of {nb} and {nn}), so the verdict rests \
                 on Fieller's interval for independent sides (eq. 5), and there is no paired \
                 interval, share of faster {units} or interaction test",
                matched.len()
            ));
        }
        return None;
    }
    if matched.len() < nb.max(nn) {
        warnings.push(format!(
            "paired on the {} {units} both sides hold: {} of base's {nb} and {} of new's {nn} \
             are left out of the paired interval (they count in the ratio and in eq. 5)",
            matched.len(),
            nb - matched.len(),
            nn - matched.len()
        ));
    }
    let (ib, in_): (Vec<usize>, Vec<usize>) = matched.into_iter().unzip();
    Some(Matched {
        base: base.select_top(&ib)?,
        new: new.select_top(&in_)?,
    })
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
fn share_faster(base: &[f64], new: &[f64], confidence: f64) -> Option<ShareFaster> {
    if base.is_empty() {
        return None;
    }
    let pairs = || base.iter().zip(new);
    let k = pairs().filter(|(b, n)| n < b).count();
    let slower = pairs().filter(|(b, n)| n > b).count();
    let w = wilson_ci(k as u64, base.len() as u64, confidence, false).ok()?;
    Some(ShareFaster {
        k,
        n: base.len(),
        slower,
        lower: w.low,
        upper: w.high,
    })
}

/// The variant × unit interaction on the ratio scale, the executions as rounds (blocks):
/// [`super::interaction::pair_interaction`].
fn interaction(
    m: &Matched,
    thresholds: &Thresholds,
    warnings: &mut Vec<String>,
) -> Option<InteractionJson> {
    match pair_interaction(&m.base, &m.new, thresholds) {
        Ok(i) => Some(i),
        Err(e) => {
            warnings.push(format!("no interaction test: {e}"));
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
    units_word: &str,
    warnings: &mut Vec<String>,
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
    warnings.extend(bootstrap_warning(&ci, count, units_word));
    let c: BootstrapCi = ci.ok()?;
    (c.low.is_finite() && c.high.is_finite()).then_some(BootstrapJson {
        ci: Interval {
            lower: c.low,
            upper: c.high,
        },
        confidence: c.confidence,
        resamples: c.resamples,
        paired,
    })
}
