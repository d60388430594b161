//! Is the new system faster than the base, and by how much? The comparison of two data sets
//! of the same quantity, used by `compare` on CSV files and, per program and metric, on
//! experiment directories.
//!
//! The ratio, its intervals and the verdict come from the one pair analysis
//! ([`super::pair`]) that `report` uses for variants: paired by top-level id (the layout
//! seeds, or a CSV's top-level column) when at least two ids match, Fieller's interval for
//! independent samples (Kalibera & Jones 2013 eq. 5) otherwise. Beside it, as extras: Welch's
//! test on the top-level means (Welch 1947), the matched-pair interval of the difference
//! (Georges et al. 2008 §5.2), and the Mann–Whitney test on the top-level means. Every
//! statistic that the data make undefined is left out with the reason in `warnings`;
//! nothing here panics.

use anyhow::Result;
use serde::Serialize;

use crate::stats::bootstrap;
use crate::stats::hierarchy::plural;
use crate::stats::mann_whitney::{mann_whitney, MannWhitney};
use crate::stats::multilevel::mean_ci;
use crate::stats::paired::{paired_difference, PairedDifference};
use crate::stats::sample::MeanInterval;
use crate::stats::shapiro_wilk::{shapiro_wilk, ShapiroWilk};
use crate::stats::welch::welch;

use super::effect::EffectVerdict;
use super::numfmt::{p_value, percent};
use super::pair::{analyse_pair, Basis, Check, CheckTest, PairAnalysis};
use super::single::{interval_use, Dataset, IntervalUse, CLT_UNITS};
use super::vocabulary::{check_bootstrap, Thresholds, MIN_TOP_LEVEL_UNITS};

/// Version of the JSON schema of [`Comparison`] (docs/formats.md). 3: the pair analysis
/// shared with `report` (`paired` became the paired ratio, the difference moved to
/// `paired_difference`; `bootstrap` took the pair's shape; `effect` rests on `basis`).
pub const COMPARISON_SCHEMA: u32 = super::vocabulary::OUTPUT_SCHEMA;

/// What to compute: the pair analysis's options (the same for every caller).
pub use super::pair::PairOptions as CompareOptions;

/// One side of the comparison.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Side {
    /// Where the data came from.
    pub source: String,
    /// Number of measurements.
    #[serde(rename = "measurements")]
    pub n: usize,
    /// Number of top-level units.
    pub top_units: usize,
    /// Grand mean.
    pub mean: f64,
    /// Kalibera & Jones eq. 4 interval (null with one top-level unit, or when it would
    /// reach zero or below for positive values: see `ci_note`).
    pub ci: Option<MeanInterval>,
    /// Why `ci` is null although there are several top-level units: the one rule's reason
    /// ([`super::positive`], the same words as `analyze`'s `ci_note`).
    pub ci_note: Option<String>,
    /// Shapiro–Wilk on the top-level unit means (null below 3 units or constant means).
    pub normality: Option<ShapiroWilk>,
}

/// Welch's test on the top-level unit means, for `new − base`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WelchJson {
    /// t statistic of `mean(new) − mean(base)`.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    #[serde(rename = "p_value")]
    pub p: f64,
    /// `mean(new) − mean(base)` of the top-level means.
    pub difference: f64,
    /// Lower end of the two-sided interval of the difference.
    #[serde(rename = "lower")]
    pub low: f64,
    /// Upper end.
    #[serde(rename = "upper")]
    pub high: f64,
}

/// The comparison of two data sets; its JSON form is `compare --format json` in CSV mode
/// and one entry of `programs` in directory mode.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Comparison {
    /// [`COMPARISON_SCHEMA`].
    pub schema: u32,
    /// The layoutrand version that wrote the output.
    pub tool_version: &'static str,
    /// The compared quantity.
    pub value: String,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// Relevance threshold (share).
    pub negligible: f64,
    /// The baseline.
    pub base: Side,
    /// The new system.
    pub new: Side,
    /// The pair analysis shared with `report` (flattened: `ratio`, `ci` (eq. 5), `paired`,
    /// `bootstrap`, `share_faster`, `interaction`, `binaries`, `basis`, `effect`, `verdict`,
    /// `slower_beyond_threshold`).
    #[serde(flatten)]
    pub pair: PairAnalysis,
    /// Welch's test on the top-level means (null when both sides have zero variance or a
    /// single unit).
    pub welch: Option<WelchJson>,
    /// The difference `new − base` of the matched pairs (the ids `paired` uses).
    pub paired_difference: Option<PairedDifference>,
    /// Mann–Whitney U on the top-level means (`u` counts new > base).
    pub mann_whitney: Option<MannWhitney>,
    /// The one-sentence answer.
    pub summary: String,
    /// Things the reader must know, including why a statistic above is null.
    pub warnings: Vec<String>,
}

impl Comparison {
    /// The Mann–Whitney test in words, e.g. "on the binary means: P(new > base) = 0.080,
    /// p = 0.032 (exact)": one wording for every text rendering of a comparison (the
    /// warnings advise reading it when the means do not look normal).
    pub fn mann_whitney_words(&self, top_name: &str) -> Option<String> {
        self.mann_whitney.map(|mw| {
            format!(
                "on the {top_name} means: P(new > base) = {}, {} ({})",
                super::numfmt::fixed(mw.prob_superiority, 3),
                p_value(mw.p),
                match mw.method {
                    crate::stats::mann_whitney::PMethod::Exact => "exact",
                    crate::stats::mann_whitney::PMethod::Normal => "normal approximation",
                }
            )
        })
    }

    /// The bootstrap interval of new/base in words, e.g. "new/base 0.6350 … 1.0140 (95 %
    /// studentized, 10000 resamples of the binaries)", when `--bootstrap` asked for it.
    pub fn bootstrap_words(&self) -> Option<String> {
        self.pair.bootstrap.as_ref().map(|b| {
            let (lower, upper) = super::numfmt::ratio_bounds(b.ci.lower, b.ci.upper);
            format!(
                "new/base {lower} … {upper} ({} studentized, {} resamples of the binaries{})",
                super::numfmt::level(self.confidence),
                b.resamples,
                if b.paired {
                    ", pairs drawn jointly"
                } else {
                    ""
                }
            )
        })
    }
}

/// One side: its mean with the eq. 4 interval judged as `analyze` judges it
/// ([`interval_use`]: withheld when it would reach zero or below for positive values).
fn side(d: &Dataset, confidence: f64, units: &str) -> Side {
    let h = &d.hierarchy;
    let positive = h.values().iter().all(|v| *v > 0.0);
    let ci = mean_ci(h, confidence)
        .ok()
        .filter(|c| c.low.is_finite() && c.high.is_finite());
    let withheld =
        ci.as_ref().and_then(
            |c| match interval_use(c.mean, c.half_width, positive, units) {
                IntervalUse::Withheld(why) => Some(why),
                _ => None,
            },
        );
    Side {
        source: d.source.clone(),
        n: h.len(),
        top_units: *h.repetitions().last().expect("a level"),
        mean: h.mean(),
        ci: ci.filter(|_| withheld.is_none()),
        ci_note: withheld,
        normality: shapiro_wilk(&h.top_means())
            .ok()
            .filter(|s| s.w.is_finite() && s.p.is_finite()),
    }
}

/// Compares `new` against `base`: the shared pair analysis, then the extras and the words.
pub fn compare(base: &Dataset, new: &Dataset, options: &CompareOptions) -> Result<Comparison> {
    let th = &options.thresholds;
    let confidence = th.confidence;
    if let Some(b) = options.bootstrap {
        check_bootstrap(b.resamples)?;
    }
    let top_name = base.levels.first().map_or("unit", String::as_str);
    let units = plural(top_name);
    let b = side(base, confidence, &units);
    let n = side(new, confidence, &units);
    let mut warnings = Vec::new();
    let pair = analyse_pair(
        &base.hierarchy,
        &new.hierarchy,
        &units,
        options,
        &mut warnings,
    );
    let fewest_units = base
        .hierarchy
        .top_ids()
        .len()
        .min(new.hierarchy.top_ids().len());
    if options.bootstrap.is_some() && pair.bootstrap.is_none() && fewest_units < 2 {
        warnings.push(format!(
            "no bootstrap interval: it resamples the {units}, and a side has fewer than two"
        ));
    }
    let base_means = base.hierarchy.top_means();
    let new_means = new.hierarchy.top_means();
    let tie = pair.effect.verdict == EffectVerdict::Tie;
    let welch = welch_extra(&base_means, &new_means, confidence, tie, &mut warnings);
    let paired_difference = (pair.binaries.len() >= 2)
        .then(|| {
            let (before, after): (Vec<f64>, Vec<f64>) =
                pair.binaries.iter().map(|m| (m.base, m.new)).unzip();
            paired_difference(&before, &after, confidence).ok()
        })
        .flatten()
        .filter(|p| p.low.is_finite() && p.high.is_finite());
    if base.hierarchy.repetitions() != new.hierarchy.repetitions() {
        warnings.push(format!(
            "the two designs differ (repetitions per level, lowest first: base {:?}, new {:?})",
            base.hierarchy.repetitions(),
            new.hierarchy.repetitions()
        ));
    }
    let mann_whitney = mann_whitney(&new_means, &base_means)
        .ok()
        .filter(|m| m.p.is_finite());
    side_warnings(&[&b, &n], top_name, &units, th, &mut warnings);
    let mut pair = pair;
    pair.checks.extend(test_checks(
        &pair,
        welch.as_ref(),
        mann_whitney.as_ref(),
        th.alpha(),
    ));
    let summary = summary(&pair, (&b, &n), top_name, &units, options);
    Ok(Comparison {
        schema: COMPARISON_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        value: base.value.clone(),
        confidence,
        negligible: th.negligible,
        base: b,
        new: n,
        pair,
        welch,
        paired_difference,
        mann_whitney,
        summary,
        warnings,
    })
}

/// The tests on the top-level means that check the verdict (Welch, Mann–Whitney), each with
/// whether it finds a difference at level `alpha` and whether that agrees; none for a tie or
/// an unbounded verdict ([`super::pair::Check`]).
fn test_checks(
    pair: &PairAnalysis,
    welch: Option<&WelchJson>,
    mann_whitney: Option<&MannWhitney>,
    alpha: f64,
) -> Vec<Check> {
    [
        (CheckTest::Welch, welch.map(|w| w.p < alpha)),
        (CheckTest::MannWhitney, mann_whitney.map(|m| m.p < alpha)),
    ]
    .into_iter()
    .filter_map(|(test, detects)| pair.check(test, detects?))
    .collect()
}

/// Welch's test on the top-level means, `new − base` (none for a tie, where it is
/// undefined and needs no warning).
fn welch_extra(
    base_means: &[f64],
    new_means: &[f64],
    confidence: f64,
    tie: bool,
    warnings: &mut Vec<String>,
) -> Option<WelchJson> {
    match welch(new_means, base_means) {
        Ok(w) => match w.interval(confidence) {
            Ok((low, high)) if w.p.is_finite() => Some(WelchJson {
                t: w.t,
                df: w.df,
                p: w.p,
                difference: w.difference,
                low,
                high,
            }),
            _ => None,
        },
        Err(e) => {
            if !tie {
                warnings.push(format!("no Welch test: {e}"));
            }
            None
        }
    }
}

/// What each side's own data say about the intervals: non-normal means with few units,
/// fewer units than Kalibera & Jones use.
fn side_warnings(
    sides: &[&Side],
    top_name: &str,
    units: &str,
    th: &Thresholds,
    warnings: &mut Vec<String>,
) {
    for s in sides {
        if let Some(sw) = s
            .normality
            .filter(|sw| sw.p < th.alpha() && s.top_units < CLT_UNITS)
        {
            warnings.push(format!(
                "the {top_name} means of {} do not look normal (Shapiro–Wilk, {}) and there \
                 are fewer than {CLT_UNITS}: {}",
                s.source,
                p_value(sw.p),
                if s.top_units >= bootstrap::ADVISABLE_UNITS {
                    "check the bootstrap interval (--bootstrap 10000) and the Mann–Whitney test"
                        .to_string()
                } else {
                    format!(
                        "check the Mann–Whitney test and add {units}; with fewer than {} the \
                         bootstrap interval is not advisable (too few distinct resamples for \
                         its coverage to be trusted)",
                        bootstrap::ADVISABLE_UNITS
                    )
                }
            ));
        }
        if s.top_units < MIN_TOP_LEVEL_UNITS {
            warnings.push(format!(
                "{} has only {} {}: its interval, and so the ratio's, is very wide \
                 (Kalibera & Jones use at least {MIN_TOP_LEVEL_UNITS})",
                s.source, s.top_units, units
            ));
        }
    }
}

/// Which sides' own intervals are withheld, as the end of a clause ("; the new side's own
/// interval would reach below zero"), empty when neither is: what makes a ratio's interval
/// unbounded, said of the side it is true of.
fn withheld_sides((base, new): (&Side, &Side)) -> String {
    match (base.ci_note.is_some(), new.ci_note.is_some()) {
        (true, true) => "; each side's own interval would reach below zero".to_string(),
        (true, false) => "; the base's own interval would reach below zero".to_string(),
        (false, true) => "; the new side's own interval would reach below zero".to_string(),
        (false, false) => String::new(),
    }
}

/// The one-sentence answer, naming the interval the verdict rests on.
fn summary(
    pair: &PairAnalysis,
    sides: (&Side, &Side),
    top_name: &str,
    units: &str,
    options: &CompareOptions,
) -> String {
    let effect = &pair.effect;
    let basis = match pair.basis {
        Basis::Paired => format!("paired by {top_name}, {} pairs", pair.binaries.len()),
        Basis::Fieller if pair.binaries.is_empty() => {
            format!("Fieller interval, independent sides: fewer than two {units} in common")
        }
        Basis::Fieller => "Fieller interval".to_string(),
    };
    let mut summary = match effect.verdict {
        EffectVerdict::Lower | EffectVerdict::Higher => {
            format!("new is {} than base ({basis}).", effect.words)
        }
        EffectVerdict::Negligible | EffectVerdict::Equivalent | EffectVerdict::Inconclusive => {
            format!(
                "{}: new is {} than base ({basis}).",
                effect.qualifier(&options.thresholds),
                effect.words
            )
        }
        EffectVerdict::Tie => {
            "a tie: every measurement of both sides has the same value.".to_string()
        }
        EffectVerdict::Unbounded => format!(
            "cannot tell: {} ({basis}{}); measure more {units}.",
            effect.words,
            withheld_sides(sides)
        ),
    };
    if pair.slower_beyond_threshold {
        let (_, worse) = options.directions();
        summary.push_str(&format!(
            " FAIL: the whole interval is {worse} by more than {}.",
            percent(options.fail_if_slower.unwrap_or(0.0), 2)
        ));
    }
    summary
}
