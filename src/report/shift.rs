//! "Is the default layout consistently faster or slower than a random one?" (Kalibera &
//! Jones 2013 §8.2: xalancbmk 4 % and libquantum 2.6 % worse with randomised link order.)
//!
//! The question is whether the baseline binary's expected value differs from the expected
//! value over random layouts, i.e. whether measuring only the default layout is biased.
//! We answer it with the ratio baseline / random-layout mean and Fieller's interval (eq. 5)
//! built from the two single-system intervals: the random layouts' from the binaries (eq. 4),
//! the baseline's from its executions. The shift is *detected* when the interval excludes 1.

use crate::stats::fieller::ratio_ci;
use crate::stats::sample::MeanInterval;

use super::experiment::Series;
use super::model::{Interval, Shift, Verdict};
use crate::analysis::numfmt::change;

/// The shift analysis from the two intervals (both at `confidence`).
pub fn shift(
    series: &Series,
    random: Option<&MeanInterval>,
    baseline: Option<&MeanInterval>,
    confidence: f64,
) -> Shift {
    let undetermined = |text: String| Shift {
        verdict: Verdict::Undetermined,
        ratio: None,
        ci: None,
        baseline_rank: None,
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
    let rank = match (below, seed_means.len()) {
        (0, n) => format!(" The default layout's mean is below those of all {n} random layouts."),
        (k, n) if k == n => {
            format!(" The default layout's mean is above those of all {n} random layouts.")
        }
        (k, n) => {
            format!(" The default layout's mean is above that of {k} of the {n} random layouts.")
        }
    };
    let Some((low, high)) = ratio.bounds() else {
        return Shift {
            verdict: Verdict::Undetermined,
            ratio: Some(ratio.estimate),
            ci: None,
            baseline_rank: Some(baseline_rank),
            text: format!(
                "cannot tell: the random layouts' interval includes zero, so the ratio's interval (Fieller) is unbounded.{rank}{one_execution}"
            ),
        };
    };
    let what = if series.is_time() {
        ""
    } else {
        " in this metric"
    };
    let words = change(ratio.estimate, low, high, confidence, better, worse);
    let (verdict, text) = if low > 1.0 || high < 1.0 {
        (
            Verdict::Detected,
            format!(
                "the default layout is {words}{what} than the average random layout (ratio {:.4}, Fieller interval): results on the default layout alone are biased.{rank}{one_execution}",
                ratio.estimate
            ),
        )
    } else {
        (
            Verdict::NotDetected,
            format!(
                "no consistent shift: the default layout is {words}{what} than the average random layout (ratio {:.4}, Fieller interval), an interval that includes no difference.{rank}{one_execution}",
                ratio.estimate
            ),
        )
    };
    Shift {
        verdict,
        ratio: Some(ratio.estimate),
        ci: Some(Interval {
            lower: low,
            upper: high,
        }),
        baseline_rank: Some(baseline_rank),
        text,
    }
}
