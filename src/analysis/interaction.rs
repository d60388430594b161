//! "Does the ratio new/base depend on the layout?" for one pair of variants: the verdict over
//! [`crate::stats::interaction`] (issue 21); its words are `crate::report::words::interaction`'s.
//!
//! The question is about the ratio, so the test is on the log scale: a constant speedup on
//! layouts of different speeds is no interaction. Its error term is the scheduler's block
//! (seed × round, every variant back to back), so drift shared by a block neither hides an
//! interaction nor fakes one. The verdict carries a magnitude — how much the ratio varies from
//! one layout to another, with its interval — and uses the one vocabulary:
//!
//! - `negligible`: the interval's upper end is below `--negligible` (whether or not the test
//!   rejects: any variation is too small to matter);
//! - `detected`: the test rejects at `1 − confidence` and the spread may exceed it;
//! - `undetermined` ("cannot tell"): not detected, and only a spread above `--negligible`
//!   would be found with 80 % power;
//! - `not_detected`: not detected although a relevant spread would likely have been.

use serde::Serialize;

use crate::stats::degrees_of_freedom::DegreesOfFreedom;
use crate::stats::hierarchy::Hierarchy;
use crate::stats::interaction::{log_ratio_interaction, LogRatioInteraction};

use super::effect::Interval;
use super::vocabulary::{Thresholds, Verdict};

/// The power at which the detectable spread is stated (as for the layout sensitivity).
pub(crate) const DETECTION_POWER: f64 = 0.8;

/// The variant × layout interaction of one comparison as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The answer as a clause of the comparison's sentence."
))]
pub struct InteractionJson {
    /// The F statistic (`null` when infinite or undefined: no noise between blocks).
    pub f: Option<f64>,
    /// Numerator and denominator degrees of freedom, `(b − 1, b(n − 1))`.
    #[serde(flatten)]
    pub df: DegreesOfFreedom<usize>,
    /// Its p-value (`null` when undefined: every block gave the same ratio).
    pub p_value: Option<f64>,
    /// Always "log_ratio": the test is on `ln(new) − ln(base)` per block.
    pub scale: &'static str,
    /// Always "variant_x_round_within_seed": the blocks are the error stratum.
    pub error_term: &'static str,
    /// How much the ratio varies from one layout to another, net of block noise, as a share
    /// (`exp(τ̂) − 1`, τ̂ the standard deviation of the per-layout log-ratios).
    pub spread: f64,
    /// Its interval (both ends ≥ 0).
    pub spread_ci: Interval,
    /// The smallest spread the test finds with 80 % power at these counts.
    pub detectable_spread: Option<f64>,
    /// detected / negligible / not_detected / undetermined.
    pub verdict: Verdict,
    /// The thresholds it was judged at (the pair's: Bonferroni-adjusted among variants).
    #[serde(skip)]
    pub thresholds: Thresholds,
}

impl InteractionJson {
    /// Whether the test rejects "no interaction" at the thresholds' level.
    pub(crate) fn detected(&self) -> bool {
        rejects(self.p_value, &self.thresholds)
    }
}

/// Whether a test with p-value `p` (`None`: undefined) rejects at `th`'s level.
fn rejects(p: Option<f64>, th: &Thresholds) -> bool {
    p.is_some_and(|p| p < th.alpha())
}

/// The interaction of the seed-matched hierarchies `base` and `new` (top units in the same
/// order, the `k`-th execution of a seed taken as its `k`-th round, i.e. block).
pub(crate) fn pair_interaction(
    base: &Hierarchy,
    new: &Hierarchy,
    thresholds: &Thresholds,
) -> Result<InteractionJson, String> {
    let rounds = |h: &Hierarchy| -> Vec<Vec<f64>> {
        (0..h.top_means().len()).map(|k| h.child_means(k)).collect()
    };
    let i = log_ratio_interaction(
        &rounds(base),
        &rounds(new),
        thresholds.confidence,
        DETECTION_POWER,
    )
    .map_err(|e| e.to_string())?;
    Ok(judge(&i, thresholds))
}

/// The verdict of a computed interaction at `th`.
pub(crate) fn judge(i: &LogRatioInteraction, th: &Thresholds) -> InteractionJson {
    let share = |tau: f64| tau.exp_m1();
    let spread = share(i.spread);
    let ci = Interval {
        lower: share(i.spread_ci.lower),
        upper: share(i.spread_ci.upper),
    };
    let detectable = i.detectable_spread.map(share);
    let p = Some(i.test.p_value).filter(|p| p.is_finite());
    let detected = rejects(p, th);
    let verdict = if ci.upper < th.negligible {
        Verdict::Negligible
    } else if detected {
        Verdict::Detected
    } else if detectable.is_none_or(|d| d > th.negligible) {
        Verdict::Undetermined
    } else {
        Verdict::NotDetected
    };
    InteractionJson {
        f: Some(i.test.f).filter(|f| f.is_finite()),
        df: i.test.df,
        p_value: p,
        scale: "log_ratio",
        error_term: "variant_x_round_within_seed",
        spread,
        spread_ci: ci,
        detectable_spread: detectable,
        verdict,
        thresholds: *th,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::twoway::FTest;

    /// A computed interaction with p-value `p`, log-scale spread `spread` with interval
    /// `ci`, and detectable spread `detectable`.
    pub(crate) fn computed(
        p: f64,
        spread: f64,
        ci: (f64, f64),
        detectable: f64,
    ) -> LogRatioInteraction {
        LogRatioInteraction {
            seeds: 10,
            rounds: 4,
            test: FTest {
                f: 2.0,
                df: DegreesOfFreedom {
                    df_numerator: 9,
                    df_denominator: 30,
                },
                p_value: p,
            },
            spread,
            spread_ci: Interval {
                lower: ci.0,
                upper: ci.1,
            },
            block_noise: 0.01,
            detectable_spread: Some(detectable),
        }
    }

    #[test]
    fn each_verdict() {
        let th = Thresholds::default();
        let v = |i: LogRatioInteraction| judge(&i, &th);
        let d = v(computed(0.001, 0.02, (0.012, 0.035), 0.008));
        assert_eq!(d.verdict, Verdict::Detected);
        assert!(d.detected());
        // The xz case of the issue: a spread of 0.045 percentage points.
        let n = v(computed(0.01, 0.00045, (0.0002, 0.0009), 0.0003));
        assert_eq!(n.verdict, Verdict::Negligible);
        let quiet = v(computed(0.5, 0.0, (0.0, 0.004), 0.003));
        assert_eq!(quiet.verdict, Verdict::Negligible);
        assert!(!quiet.detected());
        let nd = v(computed(0.5, 0.0, (0.0, 0.012), 0.009));
        assert_eq!(nd.verdict, Verdict::NotDetected);
        let u = v(computed(0.5, 0.0, (0.0, 0.05), 0.03));
        assert_eq!(u.verdict, Verdict::Undetermined);
        // The shares are exp(τ) − 1 of the log-scale figures.
        assert!((d.spread - 0.02f64.exp_m1()).abs() < 1e-15);
        assert!((d.spread_ci.upper - 0.035f64.exp_m1()).abs() < 1e-15);
        assert!((u.detectable_spread.unwrap() - 0.03f64.exp_m1()).abs() < 1e-15);
    }

    #[test]
    fn a_constant_ratio_in_every_block_is_not_detected() {
        let mut i = computed(f64::NAN, 0.0, (0.0, 0.0), 0.0);
        i.test.f = f64::NAN;
        let strict = Thresholds::new(0.95, 0.0).unwrap();
        let j = judge(&i, &strict);
        assert_eq!(j.verdict, Verdict::NotDetected);
        assert!(j.f.is_none() && j.p_value.is_none());
        assert!(!j.detected());
    }
}
