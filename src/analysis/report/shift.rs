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

use crate::analysis::effect::{Effect, EffectVerdict};
use crate::analysis::numfmt::{level, p_value, percent, ratio as fmt_ratio, Scale};
use crate::analysis::vocabulary::Thresholds;
use crate::stats::fieller::ratio_ci;
use crate::stats::sample::{mean, prediction_interval, variance, MeanInterval};

use super::experiment::Series;
use super::model::{DefaultLayout, PredictionIntervalJson, Shift, Verdict};

/// Where the baseline's mean lies among the random layouts' means, in words; equal means
/// are counted as ties, not as "below".
fn rank_words(baseline: f64, seed_means: &[f64]) -> String {
    let n = seed_means.len();
    let below = seed_means.iter().filter(|&&m| m < baseline).count();
    let equal = seed_means.iter().filter(|&&m| m == baseline).count();
    let above = n - below - equal;
    match (below, equal, above) {
        (0, e, 0) if e == n => {
            format!(" The default layout's mean equals those of all {n} random layouts (a tie).")
        }
        (0, 0, _) => format!(" The default layout's mean is below those of all {n} random layouts."),
        (_, 0, 0) => format!(" The default layout's mean is above those of all {n} random layouts."),
        (b, 0, _) => format!(" The default layout's mean is above that of {b} of the {n} random layouts."),
        (b, e, _) => format!(
            " The default layout's mean is above that of {b} and equal to that of {e} of the {n} random layouts."
        ),
    }
}

/// The shift analysis from the two intervals (both at `thresholds.confidence`).
/// `random_note` says why the random layouts' mean has no interval when the engine said why
/// (an overflowing spread, an interval withheld); without one, there were too few binaries.
pub fn shift(
    series: &Series,
    (random, random_note): (Option<&MeanInterval>, Option<&str>),
    baseline: Option<&MeanInterval>,
    thresholds: &Thresholds,
) -> Shift {
    let undetermined = |text: String| Shift {
        verdict: Verdict::Undetermined,
        ratio: None,
        ci: None,
        baseline_rank: None,
        effect: None,
        text,
    };
    let Some(b) = series.baseline.as_ref() else {
        return undetermined(
            "cannot tell: the default-layout binary (baseline) was not run.".into(),
        );
    };
    let Some(random) = random else {
        return undetermined(match random_note {
            Some(note) => format!("cannot tell: the random layouts' mean has no interval: {note}."),
            None => "cannot tell: fewer than 2 randomised binaries, so the random layouts' mean has no interval.".into(),
        });
    };
    let Some(base) = baseline else {
        return undetermined(format!(
            "cannot tell: the baseline ran in {} execution(s), so its mean has no interval (its iterations are no replicates of its executions); run it at least twice.",
            b.executions.len()
        ));
    };
    let seed_means: Vec<f64> = series.seeds.iter().map(|s| s.mean()).collect();
    let below = seed_means.iter().filter(|&&m| m < base.mean).count();
    let baseline_rank = below as f64 / seed_means.len() as f64;
    let ratio = ratio_ci(random, base);
    let (better, worse) = if series.is_time() {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let one_execution = "";
    let rank = rank_words(base.mean, &seed_means);
    let all_equal = {
        let mut values = series
            .seeds
            .iter()
            .chain(std::iter::once(b))
            .flat_map(|s| s.executions.iter().flat_map(|e| e.live.iter()));
        let first = values.next().copied();
        first.is_some_and(|f| values.all(|v| *v == f))
    };
    let bounds = if all_equal {
        Some((1.0, 1.0))
    } else {
        ratio.bounds()
    };
    let effect = Effect::classify(ratio.estimate, bounds, thresholds, better, worse);
    let what = if series.is_time() {
        ""
    } else {
        " in this metric"
    };
    let words = &effect.words;
    let (verdict, text) = match effect.verdict {
        EffectVerdict::Unbounded => (
            Verdict::Undetermined,
            format!("cannot tell: {words} (Fieller).{rank}{one_execution}"),
        ),
        EffectVerdict::Tie => (
            Verdict::NotDetected,
            format!("no shift: every measurement of the default layout and of the random layouts has the same value.{rank}"),
        ),
        EffectVerdict::Lower | EffectVerdict::Higher => (
            Verdict::Detected,
            format!(
                "the default layout differs from the mean over random layouts: it is {words}{what} than the average random layout (ratio {}, Fieller interval). This is true of any single layout when layouts matter; whether the default is unusual among layouts is answered under Default layout.{rank}{one_execution}",
                fmt_ratio(ratio.estimate)
            ),
        ),
        EffectVerdict::Negligible => (
            Verdict::Negligible,
            format!(
                "a negligible shift: the default layout is {words}{what} than the average random layout (ratio {}, Fieller interval); {}.{rank}{one_execution}",
                fmt_ratio(ratio.estimate),
                effect.qualifier(thresholds)
            ),
        ),
        EffectVerdict::Equivalent | EffectVerdict::Inconclusive => (
            Verdict::NotDetected,
            format!(
                "no consistent shift: the default layout is {words}{what} than the average random layout (ratio {}, Fieller interval), an interval that includes no difference.{rank}{one_execution}",
                fmt_ratio(ratio.estimate)
            ),
        ),
    };
    Shift {
        verdict,
        ratio: Some(ratio.estimate),
        ci: effect.ci,
        baseline_rank: Some(baseline_rank),
        effect: Some(effect),
        text,
    }
}

/// "Is the default layout unusual among random layouts?"
///
/// The random layouts' means are a sample of the distribution of one layout's mean; the
/// default layout is unusual when its mean falls outside the prediction interval of one more
/// draw (Hahn & Meeker 1991 §4.7), `x̄ ± t_{1−α/2, n−1} · sqrt(v_new + s²/n)`. It is computed
/// on the log scale (x = ln of a binary's mean), so that its bounds stay positive and a
/// layout 20 % slower weighs as one 1/1.2 faster, whenever every mean is positive; on the raw
/// scale otherwise. `v_new` is the variance of the default's own mean: `s²` when it ran as
/// many executions as each random layout (the textbook interval `x̄ ± t·s·sqrt(1 + 1/n)`),
/// else the layout component `max(0, s² − w/r)` plus `w/r_b`, with `w` the pooled variance of
/// the (log) execution means within a binary, `r` and `r_b` the executions per random
/// binary and of the default. On a default that is one more random layout it says "unusual"
/// in 1 − confidence of experiments (tested by simulation).
pub fn default_layout(series: &Series, thresholds: &Thresholds) -> DefaultLayout {
    let confidence = thresholds.confidence;
    let undetermined = |text: String| DefaultLayout {
        verdict: Verdict::Undetermined,
        percentile: None,
        prediction_interval: None,
        p_value: None,
        difference: None,
        text,
    };
    let Some(b) = series.baseline.as_ref() else {
        return undetermined(
            "cannot tell: the default-layout binary (baseline) was not run.".into(),
        );
    };
    let seed_means: Vec<f64> = series.seeds.iter().map(|s| s.mean()).collect();
    let n = seed_means.len();
    if n < 2 {
        return undetermined(format!(
            "cannot tell: {n} randomised binary with data; the spread of layouts needs at least 2 (better 20–30)."
        ));
    }
    if !variance(&seed_means).is_finite() {
        // Not an ordinary layout among layouts whose spread cannot be computed.
        return undetermined(format!(
            "cannot tell: {}, so the random layouts' spread is not computable; rescale the values (e.g. another unit).",
            crate::analysis::vocabulary::OVERFLOW_REASON
        ));
    }
    let base_mean = b.mean();
    let exec_means: Vec<Vec<f64>> = series.seeds.iter().map(|s| s.execution_means()).collect();
    let log_scale = base_mean > 0.0
        && seed_means.iter().all(|m| *m > 0.0)
        && exec_means.iter().flatten().all(|m| *m > 0.0);
    let to_scale = |x: f64| if log_scale { x.ln() } else { x };
    let from_scale = |x: f64| if log_scale { x.exp() } else { x };
    let xs: Vec<f64> = seed_means.iter().map(|m| to_scale(*m)).collect();
    let s2 = variance(&xs);
    let r = series.executions_per_binary();
    let r_b = b.executions.len();
    let var_new = if r == r_b || r < 2 {
        // Same design as the random binaries (or no within-binary variance to adjust with:
        // then s², which holds one execution's noise, at most overstates a default with more).
        s2
    } else {
        let pooled_within = mean(
            &exec_means
                .iter()
                .map(|e| variance(&e.iter().map(|m| to_scale(*m)).collect::<Vec<_>>()))
                .collect::<Vec<_>>(),
        );
        (s2 - pooled_within / r as f64).max(0.0) + pooled_within / r_b as f64
    };
    let pi = match prediction_interval(&xs, var_new, confidence) {
        Ok(pi) if pi.low.is_finite() && pi.high.is_finite() => pi,
        _ => {
            return undetermined(
                "cannot tell: the random layouts' means give no finite prediction interval.".into(),
            )
        }
    };
    let x_b = to_scale(base_mean);
    let below = seed_means.iter().filter(|m| **m < base_mean).count() as f64;
    let ties = seed_means.iter().filter(|m| **m == base_mean).count() as f64;
    let percentile = (below + ties / 2.0) / n as f64;
    let centre = from_scale(pi.centre);
    let difference = base_mean / centre - 1.0;
    let p = pi.p_value(x_b);
    let interval = PredictionIntervalJson {
        lower: from_scale(pi.low),
        upper: from_scale(pi.high),
        confidence,
    };
    // In the unit of the series' title, chosen for its mean (the mean of the binaries' means).
    let (lo, hi) =
        Scale::for_values(&series.unit, mean(&seed_means)).bounds(interval.lower, interval.upper);
    let scale = if log_scale { ", on the log scale" } else { "" };
    let place = format!(
        "its mean lies {} the {} prediction interval of one random layout's mean ({lo} to {hi}, from {n} random layouts{scale}; {p}); {} of the random layouts' means are below it",
        if pi.excludes(x_b) { "outside" } else { "within" },
        level(confidence),
        percent(percentile, 2),
        p = p_value(p),
    );
    let (better, worse) = if series.is_time() {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let direction = if difference < 0.0 { better } else { worse };
    let (verdict, text) = if !pi.excludes(x_b) {
        (
            Verdict::NotDetected,
            format!("an ordinary layout: {place}. Results on it are as representative as those of any one random layout."),
        )
    } else if difference.abs() <= thresholds.negligible {
        (
            Verdict::Negligible,
            format!(
                "unusual but negligibly so: {place}, but it is within ± {} of the layouts' centre ({} {direction}).",
                percent(thresholds.negligible, 2),
                percent(difference.abs(), 2)
            ),
        )
    } else {
        (
            Verdict::Detected,
            format!(
                "unusual among random layouts: {place}; it is {} {direction} than their centre, so results on the default layout alone are biased.",
                percent(difference.abs(), 2)
            ),
        )
    };
    DefaultLayout {
        verdict,
        percentile: Some(percentile),
        prediction_interval: Some(interval),
        p_value: Some(p),
        difference: Some(difference),
        text,
    }
}
