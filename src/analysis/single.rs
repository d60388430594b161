//! The analysis of one hierarchy of measurements: per level the variance estimators of
//! Kalibera & Jones 2013 (eq. 1–2), the optimal repetition counts when costs are known
//! (eq. 3), the interval of the mean (eq. 4), Shapiro–Wilk on the top-level means, the
//! between-unit ANOVA, an optional studentized bootstrap over top-level units, and the warnings a careful
//! statistician would give. Every statistic is either computed or left out with the reason
//! in `warnings`; no input makes this panic.

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::seeded::SeededRng;
use crate::stats::anova::{random_effects, RandomEffectsAnova};
use crate::stats::bootstrap;
/// The bootstrap interval as the analysis carries it (renderers name it from here).
pub(crate) use crate::stats::bootstrap::BootstrapCi;
use crate::stats::hierarchy::Hierarchy;
/// A level's name in the plural (`binary` → `binaries`), for every sentence that counts units.
pub(crate) use crate::stats::hierarchy::{plural, units};
use crate::stats::multilevel::{level_variances, mean_ci, optimal_repetitions, OptimalCount};
use crate::stats::shapiro_wilk::shapiro_wilk;

use super::positive::{positive_interval, Withheld};
use super::vocabulary::{check_bootstrap, Thresholds, MIN_TOP_LEVEL_UNITS};

/// Version of the JSON schema of [`Analysis`] (docs/formats.md).
pub(crate) const ANALYSIS_SCHEMA: u32 = super::vocabulary::OUTPUT_SCHEMA;

/// Below this many top-level units a non-normal sample makes the t interval doubtful
/// (the usual central-limit rule of thumb, Georges et al. 2007 §3.2.1).
pub(crate) const CLT_UNITS: usize = 30;

/// Above this relative half-width (± 50 % of the mean) an interval of a mean is too wide to
/// inform: the report says "cannot tell" and why.
pub(crate) const MAX_INFORMATIVE_RELATIVE_HALF_WIDTH: f64 = 0.5;

/// Whether an interval of a mean can be read as it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum IntervalUse {
    /// Narrow enough to inform.
    Informative,
    /// It reaches zero or below (or is unbounded) for a quantity whose values are all
    /// positive (a time, a count): the symmetric t interval is impossible there, so it is
    /// not given.
    Withheld(Withheld),
    /// It is given, but wider than ± [`MAX_INFORMATIVE_RELATIVE_HALF_WIDTH`] of the mean.
    TooWide {
        /// Its half-width over the mean.
        relative: f64,
    },
}

/// What more of would narrow an interval (the units its note names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Narrowing {
    /// More units of the level so named (`binary`, `execution`: the words say it in the
    /// plural).
    Level(String),
    /// More binaries and data seeds (the crossed design's interval).
    BinariesAndDataSeeds,
}

/// Why a mean has no interval, or how to read the one it has, as figures; the words are
/// `crate::report::words::single::interval_note`'s.
#[derive(Debug, Clone, PartialEq)]
pub enum IntervalNote {
    /// [`IntervalUse::Withheld`]: more of `units` would narrow it.
    Withheld {
        /// Why.
        why: Withheld,
        /// What would narrow it.
        units: Narrowing,
    },
    /// [`IntervalUse::TooWide`]: more of `units` would narrow it.
    TooWide {
        /// Its half-width over the mean.
        relative: f64,
        /// What would narrow it.
        units: Narrowing,
    },
    /// Its ends exceed the range of double precision.
    Overflow,
}

impl IntervalUse {
    /// Why the interval cannot inform, when it cannot; `units` would narrow it.
    pub(crate) fn note(self, units: Narrowing) -> Option<IntervalNote> {
        match self {
            IntervalUse::Informative => None,
            IntervalUse::Withheld(why) => Some(IntervalNote::Withheld { why, units }),
            IntervalUse::TooWide { relative } => Some(IntervalNote::TooWide { relative, units }),
        }
    }
}

/// Judges the interval `mean ± half_width` of values that are all positive when `positive`.
///
/// The t interval (Kalibera & Jones eq. 4) is symmetric, so for a positive quantity it can
/// reach below zero when the units vary by as much as their mean; such an interval is
/// withheld ([`positive_interval`], the one rule) rather than printed with an impossible
/// lower end ("95 % CI -48 to 107 s"). An
/// interval wider than ± 50 % is kept but called uninformative.
pub(crate) fn interval_use(mean: f64, half_width: f64, positive: bool) -> IntervalUse {
    let relative = half_width / mean.abs();
    let judged = positive_interval(mean - half_width, mean + half_width);
    if let (true, Err(withheld)) = (positive, judged) {
        IntervalUse::Withheld(withheld)
    } else if relative > MAX_INFORMATIVE_RELATIVE_HALF_WIDTH {
        IntervalUse::TooWide { relative }
    } else {
        IntervalUse::Informative
    }
}

/// What the reader of an [`Analysis`] must know before trusting its numbers, as figures (in
/// the order found); the words are `crate::report::words::single`'s.
#[derive(Debug, Clone, PartialEq)]
pub enum SingleWarning {
    /// Some variances overflow double precision.
    VarianceOverflow,
    /// T² of `level` is `t2` ≤ 0: its units add no variance beyond those of `below`
    /// (Kalibera & Jones §9.2).
    NoVarianceAdded {
        /// The level's name.
        level: String,
        /// Its T².
        t2: f64,
        /// The name of the level below it.
        below: String,
    },
    /// A level is repeated once, so its variance cannot be separated from the level above.
    SingleRepetition,
    /// The mean overflows double precision.
    MeanOverflow,
    /// What the interval's note says.
    Interval(IntervalNote),
    /// Fewer than two top-level units: no interval at all.
    OneTopUnit {
        /// The top-level units.
        top_units: usize,
        /// The top level's name.
        top_name: String,
    },
    /// Fewer than [`MIN_TOP_LEVEL_UNITS`] top-level units (but at least two).
    FewTopUnits {
        /// The top-level units.
        top_units: usize,
        /// The top level's name.
        top_name: String,
    },
    /// The top-level means fail Shapiro–Wilk with fewer than [`CLT_UNITS`] of them.
    NotNormal {
        /// The top-level units.
        top_units: usize,
        /// The top level's name.
        top_name: String,
        /// Shapiro–Wilk's p-value.
        p: f64,
        /// A bootstrap interval was asked for (the advice points at it rather than at the
        /// option).
        bootstrapped: bool,
    },
    /// What is wrong with the bootstrap interval asked for.
    Bootstrap {
        /// Why.
        shortfall: BootstrapShortfall,
        /// The top level's name (the resampled units).
        top_name: String,
    },
}

/// One data set to analyse: a balanced hierarchy and the names of its levels.
///
/// A later factor (e.g. A/B variants of one program) is several data sets with the same
/// level names whose top-level ids match; the engine compares them pairwise
/// ([`super::compare`]).
#[derive(Debug, Clone)]
pub struct Dataset {
    /// Where the data came from (a file, or `program metric` of an experiment).
    pub source: String,
    /// The analysed quantity (a CSV column or a metric name).
    pub value: String,
    /// Level names, highest level first (e.g. binary, execution, iteration).
    pub levels: Vec<String>,
    /// The measurements.
    pub hierarchy: Hierarchy,
}

/// Bootstrap settings (studentized, over top-level units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootstrapOptions {
    /// Number of resamples (bounded by [`super::vocabulary::MAX_BOOTSTRAP_RESAMPLES`]).
    pub resamples: usize,
    /// Seed of the resampling stream.
    pub seed: u64,
}

/// The confidence interval of the mean.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CiJson {
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// The interval's confidence level.
    pub(crate) confidence: f64,
    /// `t · sqrt(S_n² / r_n)`.
    pub(crate) half_width: f64,
    /// `half_width / |mean|`.
    pub(crate) relative_half_width: f64,
    /// Degrees of freedom `r_n − 1`.
    pub(crate) df: f64,
    /// Always "kalibera-jones eq. 4".
    pub(crate) method: &'static str,
}

/// Rows of an export that `analyze` leaves out before the analysis, as `report` leaves
/// them out of the random layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Excluded {
    /// This many rows of the default-layout baseline (`layout` = `default`).
    DefaultLayoutRows(usize),
    /// This many rows of the build's own binary (`layout` = `as_built`).
    AsBuiltRows(usize),
}

/// One level's row, lowest level first in [`Analysis::levels`].
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "optimal_note",
    crate::wire::Shape::Optional,
    "Why eq. 3 was guarded at this level, if it was."
))]
pub struct LevelJson {
    /// The level's name.
    pub(crate) name: String,
    /// `r_i`.
    pub(crate) repetitions: usize,
    /// `S_i²` (null when `r_i = 1` or not finite).
    pub(crate) s2: Option<f64>,
    /// `T_i²` (null when not estimable).
    pub(crate) t2: Option<f64>,
    /// `c_i` when costs were given.
    pub(crate) cost: Option<f64>,
    /// Eq. 3 (null for the top level, without costs, or when eq. 3 has no finite answer).
    pub(crate) optimal_repetitions: Option<u64>,
    /// Eq. 3's answer at this level, when costs were given (`None` for the top level).
    #[serde(skip)]
    pub(crate) optimal: Option<OptimalCount>,
}

/// The Shapiro–Wilk check of the top-level means.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NormalityJson {
    /// Always "shapiro-wilk".
    pub(crate) test: &'static str,
    /// W.
    pub(crate) w: f64,
    /// p-value.
    pub(crate) p_value: f64,
    /// Number of top-level means tested.
    pub(crate) n: usize,
}

/// Everything `analyze` reports; its JSON form is the `--format json` output.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "bootstrap_note",
    crate::wire::Shape::Optional,
    "Why the bootstrap interval asked for is missing, or why it is not advisable (too few top-level units); also among `warnings`. Null when none was asked for or all is well."
))]
pub struct Analysis {
    /// [`ANALYSIS_SCHEMA`].
    pub schema: u32,
    /// The layoutrand version that wrote the output.
    pub tool_version: &'static str,
    /// The analysed column.
    pub value: String,
    /// Number of measurements.
    pub measurements: usize,
    /// Grand mean (null when it is not finite).
    pub mean: Option<f64>,
    /// Confidence level.
    pub confidence: f64,
    /// Eq. 4 interval (null with fewer than two top-level units, when not finite, or when
    /// it would reach zero or below although every value is positive: see `ci_note`).
    pub ci: Option<CiJson>,
    /// Why the interval cannot inform, when it cannot ([`interval_use`]).
    #[serde(rename = "ci_note")]
    pub ci_grounds: Option<IntervalNote>,
    /// Per level, lowest first.
    pub levels: Vec<LevelJson>,
    /// Shapiro–Wilk on the top-level unit means (null below 3 units or constant means).
    pub normality: Option<NormalityJson>,
    /// One-way random-effects ANOVA between top-level units, on the means of their
    /// children (null for one level or a single child per unit).
    pub anova: Option<RandomEffectsAnova>,
    /// Studentized bootstrap CI when asked for.
    pub bootstrap: Option<BootstrapCi>,
    /// What the wire's `bootstrap_note` says, as figures.
    #[serde(skip)]
    pub bootstrap_grounds: Option<BootstrapShortfall>,
    /// Rows left out before the analysis (e.g. the default-layout baseline of an export).
    pub excluded: Vec<Excluded>,
    /// Things the reader must know before trusting the numbers, including why a statistic
    /// above is null (in the order found).
    #[serde(rename = "warnings")]
    pub concerns: Vec<SingleWarning>,
}

/// Orders the costs parsed from `--costs LEVEL=TIME,…` ([`crate::units::parse_costs`])
/// as the levels (highest first), refusing a level that is not one of them and a level left
/// without a cost (eq. 3 needs every level's).
pub fn costs_for_levels(costs: &[(String, f64)], levels: &[String]) -> Result<Vec<f64>> {
    if let Some((name, _)) = costs.iter().find(|(n, _)| !levels.contains(n)) {
        bail!(
            "--costs: `{name}` is not one of the levels ({})",
            levels.join(", ")
        );
    }
    levels
        .iter()
        .map(|level| {
            costs
                .iter()
                .find(|(n, _)| n == level)
                .map(|(_, c)| *c)
                .with_context(|| {
                    format!(
                        "--costs gives no cost for the level `{level}` (eq. 3 needs every level's)"
                    )
                })
        })
        .collect()
}

/// Checks costs given highest level first against the levels: one positive finite cost each.
fn check_costs(costs: &[f64], levels: &[String]) -> Result<()> {
    if costs.len() != levels.len() {
        bail!("{} costs for {} levels", costs.len(), levels.len());
    }
    for (cost, level) in costs.iter().zip(levels) {
        if !(cost.is_finite() && *cost > 0.0) {
            bail!("--costs: the cost of one {level} ({cost}) must be a positive number");
        }
    }
    Ok(())
}

/// Computes the whole analysis of `data`. `costs_highest_first` are optional repetition
/// costs (same order as the levels).
pub fn analyze(
    data: &Dataset,
    thresholds: &Thresholds,
    costs_highest_first: Option<&[f64]>,
    bootstrap: Option<BootstrapOptions>,
) -> Result<Analysis> {
    let h = &data.hierarchy;
    let names = &data.levels;
    let confidence = thresholds.confidence;
    if let Some(c) = costs_highest_first {
        check_costs(c, names)?;
    }
    if let Some(b) = bootstrap {
        check_bootstrap(b.resamples)?;
    }
    let mut warnings = Vec::new();
    let levels = level_rows(h, names, costs_highest_first, &mut warnings)?;
    let top_name = &names[0];
    let top_units = h.repetitions()[levels.len() - 1];
    let mean = Some(h.mean()).filter(|m| m.is_finite());
    if mean.is_none() {
        warnings.push(SingleWarning::MeanOverflow);
    }
    let (ci, ci_grounds) = mean_interval(h, confidence, (top_units, top_name), &mut warnings);
    if (2..MIN_TOP_LEVEL_UNITS).contains(&top_units) {
        warnings.push(SingleWarning::FewTopUnits {
            top_units,
            top_name: top_name.clone(),
        });
    }
    let normality = normality_of_top_means(
        h,
        thresholds,
        (top_units, top_name),
        bootstrap.is_some(),
        &mut warnings,
    );
    let n_levels = levels.len();
    let anova = if n_levels >= 2 && h.repetitions()[n_levels - 2] >= 2 {
        let groups = child_means_per_top_unit(h);
        random_effects(&groups)
            .ok()
            .filter(|a| a.f.is_finite() && a.p_value.is_finite())
    } else {
        None
    };
    let mut bootstrap_grounds = None;
    let bootstrap = bootstrap.and_then(|b| {
        let mut rng = SeededRng::new(b.seed, "analyze-bootstrap");
        let ci = bootstrap::mean_ci(h, confidence, b.resamples, &mut rng);
        bootstrap_grounds = bootstrap_shortfall(&ci, top_units);
        warnings.extend(
            (bootstrap_grounds.clone()).map(|shortfall| SingleWarning::Bootstrap {
                shortfall,
                top_name: top_name.clone(),
            }),
        );
        ci.ok()
    });
    Ok(Analysis {
        schema: ANALYSIS_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        value: data.value.clone(),
        measurements: h.len(),
        mean,
        confidence,
        ci,
        ci_grounds,
        levels,
        normality,
        anova,
        bootstrap,
        bootstrap_grounds,
        excluded: Vec::new(),
        concerns: warnings,
    })
}

/// The levels, lowest first: Kalibera & Jones' S² and T² (eq. 1–2) and, with costs, the
/// optimal repetitions (eq. 3); the warnings about them (an overflowing spread, a T² ≤ 0, a
/// level repeated once) added to `warnings`.
fn level_rows(
    h: &Hierarchy,
    names: &[String],
    costs_highest_first: Option<&[f64]>,
    warnings: &mut Vec<SingleWarning>,
) -> Result<Vec<LevelJson>> {
    let estimates = level_variances(h);
    let lowest_first_names: Vec<&String> = names.iter().rev().collect();
    let costs: Option<Vec<f64>> = costs_highest_first.map(|c| c.iter().rev().copied().collect());
    let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
    if estimates
        .iter()
        .any(|e| e.s2.is_some_and(|v| !v.is_finite()))
    {
        warnings.push(SingleWarning::VarianceOverflow);
    }
    let optimal: Option<Vec<OptimalCount>> = match &costs {
        Some(c) => Some(optimal_repetitions(&estimates, c)?),
        None => None,
    };
    let levels: Vec<LevelJson> = estimates
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let advice = optimal.as_ref().and_then(|o| o.get(i));
            LevelJson {
                name: lowest_first_names[i].clone(),
                repetitions: e.repetitions,
                s2: finite(e.s2),
                t2: finite(e.t2),
                cost: costs.as_ref().map(|c| c[i]),
                optimal_repetitions: advice.and_then(|a| match a {
                    OptimalCount::NoVarianceAbove | OptimalCount::Unknown => None,
                    other => other.repetitions(),
                }),
                optimal: advice.copied(),
            }
        })
        .collect();
    for (i, l) in levels.iter().enumerate().skip(1) {
        if let Some(t2) = l.t2.filter(|t| *t <= 0.0) {
            warnings.push(SingleWarning::NoVarianceAdded {
                level: l.name.clone(),
                t2,
                below: levels[i - 1].name.clone(),
            });
        }
    }
    if h.repetitions().contains(&1) && levels.len() > 1 {
        warnings.push(SingleWarning::SingleRepetition);
    }
    Ok(levels)
}

/// Kalibera & Jones' interval of the mean (eq. 4), withheld when [`interval_use`] says so,
/// with the note that says why there is none or how to read it; the note (or why no
/// interval is possible) also added to `warnings`.
fn mean_interval(
    h: &Hierarchy,
    confidence: f64,
    (top_units, top_name): (usize, &str),
    warnings: &mut Vec<SingleWarning>,
) -> (Option<CiJson>, Option<IntervalNote>) {
    let positive = h.values().iter().all(|v| *v > 0.0);
    match mean_ci(h, confidence) {
        Ok(ci) if ci.lower.is_finite() && ci.upper.is_finite() => {
            let judged = interval_use(ci.mean, ci.half_width, positive);
            let ci_note = judged.note(Narrowing::Level(top_name.to_string()));
            warnings.extend(ci_note.clone().map(SingleWarning::Interval));
            let ci = Some(CiJson {
                lower: ci.lower,
                upper: ci.upper,
                confidence: ci.confidence,
                half_width: ci.half_width,
                relative_half_width: ci.relative_half_width(),
                df: ci.df,
                method: "kalibera-jones eq. 4",
            })
            .filter(|_| !matches!(judged, IntervalUse::Withheld(_)));
            (ci, ci_note)
        }
        Ok(_) => {
            warnings.push(SingleWarning::Interval(IntervalNote::Overflow));
            (None, Some(IntervalNote::Overflow))
        }
        Err(_) => {
            warnings.push(SingleWarning::OneTopUnit {
                top_units,
                top_name: top_name.to_string(),
            });
            (None, None)
        }
    }
}

/// Shapiro–Wilk of the top-level units' means, with a warning in `warnings` when they do
/// not look normal and are too few for the central limit theorem.
fn normality_of_top_means(
    h: &Hierarchy,
    thresholds: &Thresholds,
    (top_units, top_name): (usize, &str),
    bootstrapped: bool,
    warnings: &mut Vec<SingleWarning>,
) -> Option<NormalityJson> {
    let normality = shapiro_wilk(&h.top_means())
        .ok()
        .filter(|sw| sw.w.is_finite() && sw.p_value.is_finite())
        .map(|sw| NormalityJson {
            test: "shapiro-wilk",
            w: sw.w,
            p_value: sw.p_value,
            n: sw.n,
        });
    if let Some(nw) = &normality {
        if nw.p_value < thresholds.alpha() && top_units < CLT_UNITS {
            warnings.push(SingleWarning::NotNormal {
                top_units,
                top_name: top_name.to_string(),
                p: nw.p_value,
                bootstrapped,
            });
        }
    }
    normality
}

/// Why a requested bootstrap interval is missing or not to be trusted, as figures; the
/// words are `crate::report::words::single`'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BootstrapShortfall {
    /// None was computed (the statistics' reason).
    Failed(String),
    /// It resamples only this many top-level units, fewer than
    /// [`bootstrap::ADVISABLE_UNITS`].
    FewUnits(usize),
}

/// What is wrong with a requested bootstrap interval over `units` top-level units: why there
/// is none, or that it rests on too few of them to be trusted (with 4 its resamples take 35
/// distinct values and its simulated coverage depends on the data's shape,
/// docs/statistics.md); `None` when all is well.
pub(crate) fn bootstrap_shortfall(
    ci: &Result<BootstrapCi, crate::stats::StatsError>,
    units: usize,
) -> Option<BootstrapShortfall> {
    match ci {
        Err(e) => Some(BootstrapShortfall::Failed(e.to_string())),
        Ok(_) if units < bootstrap::ADVISABLE_UNITS => Some(BootstrapShortfall::FewUnits(units)),
        Ok(_) => None,
    }
}

/// For each top-level unit, the means of its children (the level below the top).
fn child_means_per_top_unit(h: &Hierarchy) -> Vec<Vec<f64>> {
    (0..h.top_ids().len()).map(|k| h.child_means(k)).collect()
}
