//! The default layout against the random ones, as two questions (Kalibera & Jones 2013
//! §8.2: xalancbmk 4 % and libquantum 2.6 % worse with randomised link order).
//!
//! 1. *Shift*: does the default layout's expected value differ from the mean over random
//!    layouts? The ratio baseline / random-layout mean with Fieller's interval (eq. 5) from
//!    the two single-system intervals: the random layouts' from the binaries (eq. 4), the
//!    baseline's from its executions (at least two: iterations of one execution are no
//!    replicates of it). When layouts matter, *every* single layout differs from the mean
//!    over layouts, so a detected shift says nothing unusual about the default layout.
//! 2. *Default layout*: is the default layout unusual among random layouts? A prediction
//!    interval of one more random layout's mean ([`default_layout`]); "unusual" and
//!    "biased" are said only when the default falls outside it.
//!
//! The binary the user's build made (`as-built`) is a fixed layout too, answered by the same
//! two questions ([`Fixed::as_built`]); like the baseline it is never one of the random
//! layouts whose spread and mean it is compared with.

use crate::analysis::effect::Effect;
use crate::analysis::vocabulary::Thresholds;
use crate::stats::fieller::ratio_ci;
use crate::stats::sample::{mean, mean_interval, prediction_interval, variance, MeanInterval};

use super::experiment::Series;
use super::model::{
    Apart, BaselineSummary, DefaultLayout, FixedLayout, Interval, PlacementGrounds,
    PredictionIntervalJson, Rank, Shift, ShiftGrounds, Verdict,
};
use super::series::BinaryData;
use crate::analysis::single::{interval_use, IntervalNote, IntervalUse, Narrowing};

/// A fixed layout measured beside the random ones (the baseline or the as-built binary;
/// `crate::report::words::shift` names each).
pub(crate) struct Fixed<'a> {
    /// Its balanced data; `None` when it was not run.
    pub(crate) data: Option<&'a BinaryData>,
    /// Which it is.
    pub(crate) which: FixedLayout,
}

impl<'a> Fixed<'a> {
    /// The default-layout baseline of `series`.
    pub(crate) fn baseline(series: &'a Series) -> Fixed<'a> {
        Fixed {
            data: series.baseline.as_ref(),
            which: FixedLayout::Baseline,
        }
    }

    /// The binary the user's build made (`as-built`) of `series`.
    pub(crate) fn as_built(series: &'a Series) -> Fixed<'a> {
        Fixed {
            data: series.as_built.as_ref(),
            which: FixedLayout::AsBuilt,
        }
    }
}

/// Where `value` lies among the random layouts' means; equal means are counted as ties,
/// not as "below".
fn rank_of(value: f64, seed_means: &[f64]) -> Rank {
    Rank {
        below: seed_means.iter().filter(|&&m| m < value).count(),
        equal: seed_means.iter().filter(|&&m| m == value).count(),
        n: seed_means.len(),
    }
}

/// The shift analysis of the default layout from the two intervals (both at
/// `thresholds.confidence`); see [`shift_of`].
pub(crate) fn shift(
    series: &Series,
    random: (Option<&MeanInterval>, Option<&IntervalNote>),
    baseline: Option<&MeanInterval>,
    thresholds: &Thresholds,
) -> Shift {
    shift_of(
        series,
        &Fixed::baseline(series),
        random,
        baseline,
        thresholds,
    )
}

/// The shift of `fixed`: its mean over the random layouts' mean with Fieller's interval
/// (Kalibera & Jones 2013 eq. 5) from the random layouts' interval (eq. 4 over binaries)
/// and `fixed_ci`, its own over executions. `random_note` says why the random layouts'
/// mean has no interval when the engine said why (an overflowing spread, an interval
/// withheld); without one, there were too few binaries.
pub(crate) fn shift_of(
    series: &Series,
    fixed: &Fixed,
    (random, random_note): (Option<&MeanInterval>, Option<&IntervalNote>),
    fixed_ci: Option<&MeanInterval>,
    thresholds: &Thresholds,
) -> Shift {
    // Without an interval the point ratio is still the fixed layout's mean over the random
    // layouts' mean: the glance quotes it as the text does (one number per quantity).
    let point = fixed.data.map(|b| b.mean()).and_then(|m| {
        let random_mean = random.map_or_else(
            || {
                crate::stats::sample::mean(
                    &series.seeds.iter().map(|s| s.mean()).collect::<Vec<_>>(),
                )
            },
            |r| r.mean,
        );
        Some(m / random_mean).filter(|r| r.is_finite() && *r > 0.0)
    });
    let undetermined = |grounds: ShiftGrounds| Shift {
        verdict: Verdict::Undetermined,
        ratio: point,
        ci: None,
        baseline_rank: None,
        effect: None,
        grounds,
        paired_on: None,
        fixed: fixed.which,
        is_time: series.is_time(),
    };
    let Some(b) = fixed.data else {
        return undetermined(ShiftGrounds::NotRun);
    };
    let Some(random) = random else {
        return undetermined(ShiftGrounds::NoRandomInterval {
            note: random_note.cloned(),
        });
    };
    let Some(base) = fixed_ci else {
        return undetermined(ShiftGrounds::TooFewExecutions {
            executions: b.executions.len(),
        });
    };
    let seed_means: Vec<f64> = series.seeds.iter().map(|s| s.mean()).collect();
    let below = seed_means.iter().filter(|&&m| m < base.mean).count();
    let ratio = ratio_ci(random, base);
    let bounds = if all_equal(series, b) {
        Some((1.0, 1.0))
    } else {
        ratio.bounds()
    };
    let effect = Effect::classify(ratio.estimate, bounds, thresholds, series.is_time());
    Shift {
        verdict: effect.verdict.detection(),
        ratio: Some(ratio.estimate),
        ci: effect.ci,
        baseline_rank: Some(below as f64 / seed_means.len() as f64),
        effect: Some(effect),
        grounds: ShiftGrounds::Classified {
            rank: rank_of(base.mean, &seed_means),
        },
        paired_on: None,
        fixed: fixed.which,
        is_time: series.is_time(),
    }
}

/// Whether every live value of the random layouts and of `fixed` is the same.
fn all_equal(series: &Series, fixed: &BinaryData) -> bool {
    let mut values = series
        .seeds
        .iter()
        .chain(std::iter::once(fixed))
        .flat_map(|s| s.executions.iter().flat_map(|e| e.live.iter()));
    let first = values.next().copied();
    first.is_some_and(|f| values.all(|v| *v == f))
}

/// "Is the default layout unusual among random layouts?": [`placement_of`] the baseline.
pub(crate) fn default_layout(series: &Series, thresholds: &Thresholds) -> DefaultLayout {
    placement_of(series, &Fixed::baseline(series), thresholds)
}

/// "Is `fixed` unusual among random layouts?"
///
/// The random layouts' means are a sample of the distribution of one layout's mean; the
/// fixed layout is unusual when its mean falls outside the prediction interval of one more
/// draw (Hahn & Meeker 1991 §4.7), `x̄ ± t_{1−α/2, n−1} · sqrt(v_new + s²/n)`. It is computed
/// on the log scale (x = ln of a binary's mean), so that its bounds stay positive and a
/// layout 20 % slower weighs as one 1/1.2 faster, whenever every mean is positive; on the raw
/// scale otherwise. `v_new` is the variance of the fixed layout's own mean (`new_variance`).
/// On a fixed layout that is one more random layout it says "unusual" in 1 − confidence of
/// experiments (tested by simulation).
pub(crate) fn placement_of(
    series: &Series,
    fixed: &Fixed,
    thresholds: &Thresholds,
) -> DefaultLayout {
    let said = DefaultLayout {
        verdict: Verdict::Undetermined,
        percentile: None,
        prediction_interval: None,
        p_value: None,
        difference: None,
        grounds: PlacementGrounds::Unanalysed,
        fixed: fixed.which,
        unit: series.unit.clone(),
        is_time: series.is_time(),
        thresholds: *thresholds,
        left_out: None,
    };
    let undetermined = |grounds: PlacementGrounds| DefaultLayout {
        grounds,
        ..said.clone()
    };
    let Some(b) = fixed.data else {
        return undetermined(PlacementGrounds::NotRun);
    };
    let seed_means: Vec<f64> = series.seeds.iter().map(|s| s.mean()).collect();
    let n = seed_means.len();
    if n < 2 {
        return undetermined(PlacementGrounds::TooFewBinaries { n });
    }
    if !variance(&seed_means).is_finite() {
        // Not an ordinary layout among layouts whose spread cannot be computed.
        return undetermined(PlacementGrounds::Overflow);
    }
    let base_mean = b.mean();
    let exec_means: Vec<Vec<f64>> = series.seeds.iter().map(|s| s.execution_means()).collect();
    let log_scale = base_mean > 0.0
        && seed_means.iter().all(|m| *m > 0.0)
        && exec_means.iter().flatten().all(|m| *m > 0.0);
    let to_scale = |x: f64| if log_scale { x.ln() } else { x };
    let from_scale = |x: f64| if log_scale { x.exp() } else { x };
    let xs: Vec<f64> = seed_means.iter().map(|m| to_scale(*m)).collect();
    let scaled: Vec<Vec<f64>> = exec_means
        .iter()
        .map(|e| e.iter().map(|m| to_scale(*m)).collect())
        .collect();
    let rank = rank_of(base_mean, &seed_means);
    let far_off = lumps(series, &seed_means, &xs, thresholds);
    if !far_off.is_empty() {
        return placement_by_rank(&seed_means, base_mean, rank, far_off, said);
    }
    let var_new = new_variance(&xs, &scaled, b.executions.len());
    let pi = match prediction_interval(&xs, var_new, thresholds.confidence) {
        Ok(pi) if pi.lower.is_finite() && pi.upper.is_finite() => pi,
        _ => return undetermined(PlacementGrounds::NoFiniteInterval),
    };
    let x_b = to_scale(base_mean);
    let placed = Placed {
        percentile: (rank.below as f64 + rank.equal as f64 / 2.0) / n as f64,
        rank,
        difference: base_mean / from_scale(pi.centre) - 1.0,
        p: pi.p_value(x_b),
        outside: pi.excludes(x_b),
        interval: PredictionIntervalJson {
            lower: from_scale(pi.lower),
            upper: from_scale(pi.upper),
            confidence: thresholds.confidence,
        },
    };
    placement_verdict(&seed_means, log_scale, placed, said)
}

/// Below this Shapiro–Wilk p-value the random layouts' (scaled) means are taken for not
/// normal, a condition of their being lumpy ([`lumps`]): the far-off rule alone is met by
/// 11 % of normal samples of 10 (7 % of 12, 0.8 % of 40; its robust scale comes from nine
/// values), and the pair by at most 1 %.
const LUMPY_NORMALITY_P: f64 = 0.01;

/// The random layouts that make their means `seed_means` (scaled as `xs`) lumpy: when the
/// means are not normal (Shapiro–Wilk below [`LUMPY_NORMALITY_P`]), those far off the
/// others ([`super::screening::far_off_among`]) in every execution alike: each execution's
/// mean lies on the side of the layout's deviation from the others' median, by at least
/// [`STEADY_SHARE`] of it. A lump of the layouts' distribution, not a burst of the machine
/// during one execution, which the prediction interval's spread takes in (with bursts in
/// 5 % of executions, the far-off rule alone placed a third of the stores by rank, most of
/// them "cannot tell").
///
/// [`STEADY_SHARE`]: super::screening::STEADY_SHARE
fn lumps(series: &Series, seed_means: &[f64], xs: &[f64], thresholds: &Thresholds) -> Vec<Apart> {
    let normal = crate::stats::shapiro_wilk::shapiro_wilk(xs)
        .map_or(true, |sw| sw.p_value >= LUMPY_NORMALITY_P);
    if normal {
        return Vec::new();
    }
    let steady = |apart: &Apart| {
        let Some(j) = series.seeds.iter().position(|s| s.binary == apart.binary) else {
            return false;
        };
        let others: Vec<f64> = (0..seed_means.len())
            .filter(|i| *i != j)
            .map(|i| seed_means[i])
            .collect();
        let centre = crate::stats::sample::median(&others);
        let side = apart.deviation.signum();
        let least = super::screening::STEADY_SHARE * apart.deviation.abs();
        series.seeds[j]
            .execution_means()
            .iter()
            .all(|m| (m / centre - 1.0) * side >= least)
    };
    super::screening::far_off_among(series, seed_means, thresholds.negligible)
        .into_iter()
        .filter(steady)
        .collect()
}

/// The placement of a fixed layout of mean `base_mean` and `rank` among random layouts'
/// means that are lumpy (`far_off`: some far off the others): by its rank alone, which
/// assumes nothing of their distribution. Were the fixed layout one more random layout, its
/// rank among the `n + 1` would be uniform, so the two-sided p-value is twice the share of
/// ranks at least as extreme, `2 (min(k_≤, k_≥) + 1) / (n + 1)` with `k_≤` the random
/// layouts at or below it and `k_≥` those at or above (a conformal p-value; Vovk, Gammerman &
/// Shafer 2005 §2.1). Its smallest value is `2 / (n + 1)`: with fewer than `2 / α − 1` random
/// layouts no rank is unusual, and a fixed layout beyond every random one is "cannot tell"
/// (more layouts would tell), one among them ordinary by its rank. The difference is from
/// the random layouts' median.
fn placement_by_rank(
    seed_means: &[f64],
    base_mean: f64,
    rank: Rank,
    far_off: Vec<Apart>,
    said: DefaultLayout,
) -> DefaultLayout {
    let thresholds = said.thresholds;
    let alpha = 1.0 - thresholds.confidence;
    let n = seed_means.len();
    let at_or_below = rank.below + rank.equal;
    let at_or_above = n - rank.below;
    let p = (2.0 * (at_or_below.min(at_or_above) + 1) as f64 / (n + 1) as f64).min(1.0);
    // The fewest n with 2 / (n + 1) ≤ α (39 at 95 %).
    let needed = ((2.0 / alpha).ceil() as usize).saturating_sub(1);
    let centre = crate::stats::sample::median(seed_means);
    let difference = (centre > 0.0).then(|| base_mean / centre - 1.0);
    let beyond_every_one = at_or_below == 0 || at_or_above == 0;
    let verdict = if p > alpha && beyond_every_one && n < needed {
        // Beyond every random layout, where fewer layouts than a rank test needs leave it.
        Verdict::Undetermined
    } else if p > alpha {
        Verdict::NotDetected
    } else if difference.is_some_and(|d| d.abs() <= thresholds.negligible) {
        Verdict::Negligible
    } else {
        Verdict::Detected
    };
    DefaultLayout {
        verdict,
        percentile: Some((rank.below as f64 + rank.equal as f64 / 2.0) / n as f64),
        p_value: Some(p),
        difference,
        grounds: PlacementGrounds::Ranked {
            n,
            rank,
            far_off,
            needed,
        },
        ..said
    }
}

/// The variance of the fixed layout's own (scaled) mean: `s²` of the random layouts' means
/// `xs` when it ran as many executions as each random layout (the textbook interval
/// `x̄ ± t·s·sqrt(1 + 1/n)`), else the layout component `max(0, s² − w/r)` plus `w/r_b`, with
/// `w` the pooled variance of the (scaled) execution means within a binary, `r` and `r_b`
/// the executions per random binary and of the fixed layout. `r` is the median of the random
/// binaries' counts: after the outlier screen set a few executions aside the design is still
/// the one they all ran (on a rounds schedule `w` also holds the rounds' shifts, which a
/// fixed layout run in the same rounds shares, so the `s²` of that design is the one to keep).
fn new_variance(xs: &[f64], exec_means: &[Vec<f64>], r_b: usize) -> f64 {
    let s2 = variance(xs);
    let mut counts: Vec<usize> = exec_means.iter().map(Vec::len).collect();
    counts.sort_unstable();
    let r = counts.get(counts.len() / 2).copied().unwrap_or(0);
    if r == r_b || r < 2 {
        // Same design as the random binaries (or no within-binary variance to adjust with:
        // then s², which holds one execution's noise, at most overstates a fixed layout
        // with more).
        return s2;
    }
    let pooled_within = mean(&exec_means.iter().map(|e| variance(e)).collect::<Vec<_>>());
    (s2 - pooled_within / r as f64).max(0.0) + pooled_within / r_b as f64
}

/// Where the fixed layout lies, as [`placement_verdict`] judges it.
struct Placed {
    percentile: f64,
    rank: Rank,
    difference: f64,
    p: f64,
    outside: bool,
    interval: PredictionIntervalJson,
}

/// The placement's verdict: outside the prediction interval is "unusual" (or negligibly
/// so within `± --negligible` of the centre), inside "an ordinary layout".
fn placement_verdict(
    seed_means: &[f64],
    log_scale: bool,
    placed: Placed,
    said: DefaultLayout,
) -> DefaultLayout {
    let thresholds = &said.thresholds;
    let verdict = if !placed.outside {
        Verdict::NotDetected
    } else if placed.difference.abs() <= thresholds.negligible {
        Verdict::Negligible
    } else {
        Verdict::Detected
    };
    DefaultLayout {
        verdict,
        percentile: Some(placed.percentile),
        prediction_interval: Some(placed.interval),
        p_value: Some(placed.p),
        difference: Some(placed.difference),
        grounds: PlacementGrounds::Placed {
            n: seed_means.len(),
            log_scale,
            // The unit of the series' title, chosen for its mean (the mean of the
            // binaries' means).
            scale_mean: mean(seed_means),
            rank: placed.rank,
        },
        ..said
    }
}

/// Whether every live value of `binaries` is positive (a time, a count): then no interval
/// of their mean may reach zero.
pub(crate) fn all_positive(binaries: &[BinaryData]) -> bool {
    binaries
        .iter()
        .flat_map(|b| b.executions.iter().flat_map(|e| e.live.iter()))
        .all(|v| *v > 0.0)
}

/// The baseline binary's interval over its execution means; `None` with one execution:
/// its iterations are no replicates of the execution-to-execution variation (taking them
/// as such is pseudo-replication, and made a shift "detected" in 8.8 % of experiments
/// without one).
pub(crate) fn baseline_interval(b: &BinaryData, confidence: f64) -> Option<MeanInterval> {
    (b.executions.len() >= 2)
        .then(|| mean_interval(&b.execution_means(), confidence).ok())
        .flatten()
}

/// The default-layout binary's mean with its interval over executions, the interval left out
/// when [`interval_use`] withholds it.
pub(crate) fn baseline_summary(b: &BinaryData, ci: Option<&MeanInterval>) -> BaselineSummary {
    let judged =
        ci.map(|c| interval_use(c.mean, c.half_width, all_positive(std::slice::from_ref(b))));
    BaselineSummary {
        executions: b.executions.len(),
        iterations: b.iterations(),
        mean: b.mean(),
        ci: ci
            .filter(|_| !matches!(judged, Some(IntervalUse::Withheld(_))))
            .map(|c| Interval {
                lower: c.lower,
                upper: c.upper,
            }),
        ci_grounds: judged.and_then(|j| j.note(Narrowing::Level("execution".to_string()))),
    }
}
