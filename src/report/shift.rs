//! "Is the default layout consistently faster or slower than a random one?" (Kalibera &
//! Jones 2013 §8.2: xalancbmk 4 % and libquantum 2.6 % worse with randomised link order.)
//!
//! The question is whether the baseline binary's expected value differs from the expected
//! value over random layouts, i.e. whether measuring only the default layout is biased.
//! We answer it with the ratio baseline / random-layout mean and Fieller's interval (eq. 5)
//! built from the two single-system intervals: the random layouts' from the binaries (eq. 4),
//! the baseline's from its executions. The shift is *detected* when the interval excludes 1.

use crate::analysis::effect::{Effect, EffectVerdict};
use crate::analysis::vocabulary::Thresholds;
use crate::stats::fieller::ratio_ci;
use crate::stats::sample::MeanInterval;

use super::experiment::Series;
use super::model::{Shift, Verdict};

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
pub fn shift(
    series: &Series,
    random: Option<&MeanInterval>,
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
        return undetermined(
            "cannot tell: fewer than 2 randomised binaries, so the random layouts' mean has no interval.".into(),
        );
    };
    let Some(base) = baseline else {
        return undetermined(
            "cannot tell: the baseline ran once with one live iteration, so its mean has no interval; run it at least twice.".into(),
        );
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
    let one_execution = if b.executions.len() < 2 {
        " Caution: the baseline ran in a single execution, so its interval ignores execution-to-execution variation."
    } else {
        ""
    };
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
            format!(
                "cannot tell: the random layouts' interval includes zero, so the ratio's interval (Fieller) is unbounded.{rank}{one_execution}"
            ),
        ),
        EffectVerdict::Tie => (
            Verdict::NotDetected,
            format!("no shift: every measurement of the default layout and of the random layouts has the same value.{rank}"),
        ),
        EffectVerdict::Lower | EffectVerdict::Higher => (
            Verdict::Detected,
            format!(
                "the default layout is {words}{what} than the average random layout (ratio {:.4}, Fieller interval): results on the default layout alone are biased.{rank}{one_execution}",
                ratio.estimate
            ),
        ),
        EffectVerdict::Negligible => (
            Verdict::Negligible,
            format!(
                "a negligible shift: the default layout is {words}{what} than the average random layout (ratio {:.4}, Fieller interval); {}.{rank}{one_execution}",
                ratio.estimate,
                effect.qualifier(thresholds)
            ),
        ),
        EffectVerdict::Equivalent | EffectVerdict::Inconclusive => (
            Verdict::NotDetected,
            format!(
                "no consistent shift: the default layout is {words}{what} than the average random layout (ratio {:.4}, Fieller interval), an interval that includes no difference.{rank}{one_execution}",
                ratio.estimate
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
