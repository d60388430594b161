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

use crate::stats::mann_whitney::{mann_whitney, MannWhitney};
use crate::stats::multilevel::mean_ci;
use crate::stats::paired::{paired_difference, PairedDifference};
use crate::stats::sample::MeanInterval;
use crate::stats::shapiro_wilk::{shapiro_wilk, ShapiroWilk};
use crate::stats::welch::welch;

use super::effect::EffectVerdict;
use super::pair::{analyse_pair, Check, CheckTest, DataCells, PairAnalysis, PairWarning};
use super::single::{interval_use, Dataset, IntervalNote, IntervalUse, Narrowing, CLT_UNITS};
use super::vocabulary::{check_bootstrap, Thresholds, MIN_TOP_LEVEL_UNITS};

/// Version of the JSON schema of [`Comparison`] (docs/formats.md). 3: the pair analysis
/// shared with `report` (`paired` became the paired ratio, the difference moved to
/// `paired_difference`; `bootstrap` took the pair's shape; `effect` rests on `basis`).
pub(crate) const COMPARISON_SCHEMA: u32 = super::vocabulary::OUTPUT_SCHEMA;

/// What to compute: the pair analysis's options (the same for every caller).
pub use super::pair::PairOptions as CompareOptions;

/// One side of the comparison.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Side {
    /// Where the data came from.
    pub(crate) source: String,
    /// Number of measurements.
    pub(crate) measurements: usize,
    /// Number of top-level units.
    pub(crate) top_units: usize,
    /// Grand mean.
    pub(crate) mean: f64,
    /// Kalibera & Jones eq. 4 interval (null with one top-level unit, or when it would
    /// reach zero or below for positive values: see `ci_note`).
    pub(crate) ci: Option<MeanInterval>,
    /// Why `ci` is null although there are several top-level units: the one rule's reason
    /// ([`super::positive`], the same words as `analyze`'s `ci_note`).
    #[serde(rename = "ci_note")]
    pub(crate) ci_grounds: Option<IntervalNote>,
    /// Shapiro–Wilk on the top-level unit means (null below 3 units or constant means).
    pub(crate) normality: Option<ShapiroWilk>,
}

/// Two runs apart, on a host that changed between them: each side's executions vary
/// differently (an F test of the two sides' within-binary variances rejects equal noise at
/// the comparison's level). The interval covers the layouts and the executions of each run,
/// not the host's change from one run to the other, so a determinate verdict that the
/// change could have made is withheld (Debian's mujs, its pinned build run 43 minutes after
/// its random layouts: executions varying by 2.5 % then 7.8 %, and "4.1 % slower" from a pin
/// that changes no code).
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct HostChanged {
    /// Seconds from the end of the earlier run to the start of the later one.
    pub gap_seconds: f64,
    /// The base's executions' relative standard deviation (one execution's mean).
    pub base_cv: f64,
    /// The new side's.
    pub new_cv: f64,
    /// How far the change could move the mean, as a share: the noise it added or removed,
    /// at its upper confidence bound, `√(cv_hi² − cv_lo²)` from the noisier side's upper and
    /// the quieter side's lower bound (interference that comes at random has a spread of
    /// the order of its mean). A verdict whose whole interval lies farther from 1 stands.
    pub reach: f64,
    /// The F test's two-sided p-value.
    pub p: f64,
    /// The verdict the data gave before it was withheld (`faster`, `slower`, …); null
    /// when the verdict was already inconclusive.
    pub withheld: Option<super::effect::Direction>,
}

/// The same binary measured in both experiments moved (bc 1.07: its byte-identical default
/// layout used 4.3 % less memory in the pinned build's run, 33 minutes later, and so did
/// every pinned seed: "new is 4.3 % lower" from a pin that cannot change a process's
/// memory). A determinate verdict within `reach` of no difference is withheld, as for a
/// change of host.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct ControlMoved {
    /// Which binary: `baseline` or `as-built`.
    pub binary: &'static str,
    /// Its mean in new's run over its mean in base's.
    pub ratio: f64,
    /// The ratio's interval at the comparison's level (Welch on the log execution means;
    /// a point for values without noise).
    pub ci: super::effect::Interval,
    /// The farthest the interval lies from 1, as a share: how far the runs alone moved it.
    pub reach: f64,
    /// The verdict the data gave before it was withheld; null when it stands.
    pub withheld: Option<super::effect::Direction>,
}

/// Welch's test on the top-level unit means, for `new − base`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WelchJson {
    /// t statistic of `mean(new) − mean(base)`.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// `mean(new) − mean(base)` of the top-level means.
    pub difference: f64,
    /// Lower end of the two-sided interval of the difference.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// The comparison of two data sets; its JSON form is `compare --format json` in CSV mode
/// and one entry of `programs` in directory mode.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "summary",
    crate::wire::Shape::Sentence,
    "The one-sentence answer."
))]
#[schemars(transform = crate::wire::words(
    "warnings",
    crate::wire::Shape::List,
    "Things the reader must know, including why a statistic above is null."
))]
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
    /// `bootstrap`, `share_below`, `interaction`, `binaries`, `basis`, `effect`, `verdict`,
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
    /// `compare` of two experiment runs that never overlapped, whose executions' noise
    /// differs: the host changed between them (null otherwise, and in CSV mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_changed: Option<HostChanged>,
    /// `compare` of two experiments that both ran the same binary, byte for byte (the
    /// default layout, or the build's own: program and libraries alike), whose mean moved
    /// from one run to the other: what changed between the runs was not only the code
    /// (null otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_moved: Option<ControlMoved>,
    /// What the reader must know, as figures (in the order found): the wire's `warnings`.
    #[serde(skip)]
    pub concerns: Vec<Concern>,
    /// The name of the top level's unit ("binary"): the words name the units by it.
    #[serde(skip)]
    pub top_name: String,
    /// Whether the quantity is a time (the words say faster/slower, else lower/higher).
    #[serde(skip)]
    pub is_time: bool,
    /// The `--fail-if-slower` threshold (share) the gate judged, if any.
    #[serde(skip)]
    pub fail_if_slower: Option<f64>,
}

/// What the reader of a comparison must know, as figures; the words are
/// `crate::report::words::comparison`'s.
#[derive(Debug, Clone, PartialEq)]
pub enum Concern {
    /// Found by the shared pair analysis ([`super::pair`]).
    Pair(PairWarning),
    /// `--bootstrap` was asked but a side has fewer than two top-level units.
    NoBootstrap,
    /// The designs differ (repetitions per level, lowest first).
    DesignsDiffer {
        /// The base's repetitions.
        base: Vec<usize>,
        /// The new side's repetitions.
        new: Vec<usize>,
    },
    /// Welch's test is undefined (the statistics' reason).
    NoWelch(String),
    /// A side's top-level means fail Shapiro–Wilk at the report's level with fewer than
    /// [`CLT_UNITS`] units.
    NotNormal {
        /// The side's source.
        source: String,
        /// Shapiro–Wilk's p-value.
        p: f64,
        /// Its top-level units.
        top_units: usize,
    },
    /// A side has fewer than [`MIN_TOP_LEVEL_UNITS`] top-level units.
    FewUnits {
        /// The side's source.
        source: String,
        /// Its top-level units.
        top_units: usize,
    },
}

/// One side: its mean with the eq. 4 interval judged as `analyze` judges it
/// ([`interval_use`]: withheld when it would reach zero or below for positive values).
fn side(d: &Dataset, confidence: f64, top_name: &str) -> Side {
    let h = &d.hierarchy;
    let positive = h.values().iter().all(|v| *v > 0.0);
    let ci = mean_ci(h, confidence)
        .ok()
        .filter(|c| c.lower.is_finite() && c.upper.is_finite());
    let withheld = ci.as_ref().and_then(|c| {
        let judged = interval_use(c.mean, c.half_width, positive);
        (matches!(judged, IntervalUse::Withheld(_)))
            .then(|| judged.note(Narrowing::Level(top_name.to_string())))
            .flatten()
    });
    Side {
        source: d.source.clone(),
        measurements: h.len(),
        top_units: *h.repetitions().last().expect("a level"),
        mean: h.mean(),
        ci: ci.filter(|_| withheld.is_none()),
        ci_grounds: withheld,
        normality: shapiro_wilk(&h.top_means())
            .ok()
            .filter(|s| s.w.is_finite() && s.p_value.is_finite()),
    }
}

/// Compares `new` against `base`: the shared pair analysis, then the extras and the words.
pub fn compare(base: &Dataset, new: &Dataset, options: &CompareOptions) -> Result<Comparison> {
    compare_over_data_layouts(base, new, None, options)
}

/// [`compare`], with each side's cell means per binary and data seed when both ran under
/// the same data seeds: the interval is then over code and data layouts
/// ([`analyse_pair`]'s crossed interval), the same answer a variants report gives.
pub fn compare_over_data_layouts(
    base: &Dataset,
    new: &Dataset,
    cells: Option<(DataCells, DataCells)>,
    options: &CompareOptions,
) -> Result<Comparison> {
    let th = &options.thresholds;
    let confidence = th.confidence;
    if let Some(b) = options.bootstrap {
        check_bootstrap(b.resamples)?;
    }
    let top_name = base.levels.first().map_or("unit", String::as_str);
    let b = side(base, confidence, top_name);
    let n = side(new, confidence, top_name);
    let mut found = Vec::new();
    let pair = analyse_pair(&base.hierarchy, &new.hierarchy, cells, options, &mut found);
    let mut concerns: Vec<Concern> = found.into_iter().map(Concern::Pair).collect();
    let fewest_units = base
        .hierarchy
        .top_ids()
        .len()
        .min(new.hierarchy.top_ids().len());
    if options.bootstrap.is_some() && pair.bootstrap.is_none() && fewest_units < 2 {
        concerns.push(Concern::NoBootstrap);
    }
    let base_means = base.hierarchy.top_means();
    let new_means = new.hierarchy.top_means();
    let tie = pair.effect.verdict == EffectVerdict::Tie;
    let welch = welch_extra(&base_means, &new_means, confidence, tie, &mut concerns);
    let paired_difference = (pair.binaries.len() >= 2)
        .then(|| {
            let (before, after): (Vec<f64>, Vec<f64>) =
                pair.binaries.iter().map(|m| (m.base, m.new)).unzip();
            paired_difference(&before, &after, confidence).ok()
        })
        .flatten()
        .filter(|p| p.lower.is_finite() && p.upper.is_finite());
    if base.hierarchy.repetitions() != new.hierarchy.repetitions() {
        concerns.push(Concern::DesignsDiffer {
            base: base.hierarchy.repetitions().to_vec(),
            new: new.hierarchy.repetitions().to_vec(),
        });
    }
    let mann_whitney = mann_whitney(&new_means, &base_means)
        .ok()
        .filter(|m| m.p_value.is_finite());
    side_concerns(&[&b, &n], th, &mut concerns);
    let mut pair = pair;
    pair.checks.extend(test_checks(
        &pair,
        welch.as_ref(),
        mann_whitney.as_ref(),
        th.alpha(),
    ));
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
        host_changed: None,
        control_moved: None,
        concerns,
        top_name: top_name.to_string(),
        is_time: options.is_time,
        fail_if_slower: options.fail_if_slower,
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
        (CheckTest::Welch, welch.map(|w| w.p_value < alpha)),
        (
            CheckTest::MannWhitney,
            mann_whitney.map(|m| m.p_value < alpha),
        ),
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
    concerns: &mut Vec<Concern>,
) -> Option<WelchJson> {
    match welch(new_means, base_means) {
        Ok(w) => match w.interval(confidence) {
            Ok((low, high)) if w.p_value.is_finite() => Some(WelchJson {
                t: w.t,
                df: w.df,
                p_value: w.p_value,
                difference: w.difference,
                lower: low,
                upper: high,
            }),
            _ => None,
        },
        Err(e) => {
            if !tie {
                concerns.push(Concern::NoWelch(e.to_string()));
            }
            None
        }
    }
}

/// What each side's own data say about the intervals: non-normal means with few units,
/// fewer units than Kalibera & Jones use.
fn side_concerns(sides: &[&Side], th: &Thresholds, concerns: &mut Vec<Concern>) {
    for s in sides {
        if let Some(sw) = s
            .normality
            .filter(|sw| sw.p_value < th.alpha() && s.top_units < CLT_UNITS)
        {
            concerns.push(Concern::NotNormal {
                source: s.source.clone(),
                p: sw.p_value,
                top_units: s.top_units,
            });
        }
        if s.top_units < MIN_TOP_LEVEL_UNITS {
            concerns.push(Concern::FewUnits {
                source: s.source.clone(),
                top_units: s.top_units,
            });
        }
    }
}
