//! Welch's unequal-variance t-test and interval for a difference of means (Welch 1947, as
//! Li et al.'s Pilot eq. 6–8 and Touati et al.'s speedup test use it).
//!
//! Pilot's eq. 7 floors the Welch–Satterthwaite degrees of freedom; we keep the exact
//! (fractional) value, as R's `t.test` and scipy do, so results match those references and
//! Touati's worked example to the digit.

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::sample::{mean, variance};
use super::tdist::{t_quantile, two_sided_p};

/// Mean, unbiased variance and size of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SampleSummary {
    /// Sample mean.
    pub mean: f64,
    /// Unbiased variance (divisor `n − 1`).
    pub variance: f64,
    /// Number of observations.
    pub n: usize,
}

impl SampleSummary {
    /// Summarises a sample.
    pub fn of(xs: &[f64]) -> SampleSummary {
        SampleSummary {
            mean: mean(xs),
            variance: variance(xs),
            n: xs.len(),
        }
    }
}

/// Welch's test of `mean_a − mean_b`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WelchTest {
    /// `x̄_A − x̄_B`.
    pub difference: f64,
    /// Standard error `sqrt(s_A²/n_A + s_B²/n_B)`.
    pub std_error: f64,
    /// Pilot eq. 6: `t = (x̄_A − x̄_B) / std_error`.
    pub t: f64,
    /// Pilot eq. 7 (Welch–Satterthwaite, not floored).
    pub df: f64,
    /// Pilot eq. 8: two-sided p-value.
    pub p_value: f64,
}

impl WelchTest {
    /// Two-sided `confidence` interval for `mean_a − mean_b`.
    pub fn interval(&self, confidence: f64) -> Result<(f64, f64), StatsError> {
        check_confidence(confidence)?;
        let half = t_quantile(1.0 - (1.0 - confidence) / 2.0, self.df) * self.std_error;
        Ok((self.difference - half, self.difference + half))
    }

    /// One-sided lower confidence bound for `mean_a − mean_b` (R's
    /// `t.test(a, b, alternative = "greater")`): Touati et al. accept a speedup of B over A
    /// when this bound is above zero.
    pub fn lower_bound(&self, confidence: f64) -> Result<f64, StatsError> {
        check_confidence(confidence)?;
        Ok(self.difference - t_quantile(confidence, self.df) * self.std_error)
    }
}

/// Welch's test from two samples (each needs at least two observations).
pub fn welch(a: &[f64], b: &[f64]) -> Result<WelchTest, StatsError> {
    welch_from_summaries(&SampleSummary::of(a), &SampleSummary::of(b))
}

/// Welch's test from summaries (Pilot eq. 6–8).
pub fn welch_from_summaries(a: &SampleSummary, b: &SampleSummary) -> Result<WelchTest, StatsError> {
    for s in [a, b] {
        at_least("Welch's t-test", "observations per sample", 2, s.n)?;
    }
    let va = a.variance / a.n as f64;
    let vb = b.variance / b.n as f64;
    if !(va + vb > 0.0 && (va + vb).is_finite()) {
        // Zero (or overflowing) variance on both sides: t and its degrees of freedom are
        // undefined (0/0), and Student's t distribution with NaN degrees of freedom does not
        // exist.
        return Err(StatsError::Degenerate(if va + vb == 0.0 {
            "Welch's t-test needs some variance, and both samples have zero variance".to_string()
        } else {
            format!(
                "Welch's t-test needs variances within the range of double precision, and \
                 these ({} and {}) exceed it",
                a.variance, b.variance
            )
        }));
    }
    let std_error = (va + vb).sqrt();
    let difference = a.mean - b.mean;
    let t = difference / std_error;
    let df = (va + vb).powi(2) / (va * va / (a.n as f64 - 1.0) + vb * vb / (b.n as f64 - 1.0));
    Ok(WelchTest {
        difference,
        std_error,
        t,
        df,
        p_value: two_sided_p(t, df),
    })
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;

    const T1: [f64; 5] = [2.799, 2.046, 1.259, 1.877, 2.244];
    const T2: [f64; 5] = [1.046, 0.259, 0.877, 1.244, 1.799];

    #[test]
    fn touati_example() {
        // Touati et al. §2: t.test(T1, T2, alternative="greater", conf.level=0.95) gives the
        // lower bound 0.3414632 (docs/design.md); R 4.x with options(digits=17) prints
        // 0.34146317504026108. Two-sided: t = 2.823757103704237270, df = 8,
        // p = 0.022364118455948136, CI (0.18335605701385474, 1.81664394298614496).
        let w = welch(&T1, &T2).unwrap();
        assert!(close(
            w.lower_bound(0.95).unwrap(),
            0.34146317504026108,
            1e-9
        ));
        assert!(close(w.t, 2.823757103704237270, 1e-12));
        assert!(close(w.df, 8.0, 1e-12));
        assert!(close(w.p_value, 0.022364118455948136, 1e-9));
        let (lo, hi) = w.interval(0.95).unwrap();
        assert!(close(lo, 0.18335605701385474, 1e-9));
        assert!(close(hi, 1.81664394298614496, 1e-9));
        // At 99 % the bound is −0.02574667 (the paper's printout).
        assert!((w.lower_bound(0.99).unwrap() + 0.02574667).abs() < 5e-9);
    }

    #[test]
    fn unequal_sizes_and_variances() {
        // R: a <- c(10.1,9.8,10.4,10.0,9.7,10.3,10.2); b <- c(9.1,9.9,8.7,9.5,9.8,9.0,10.1,8.8,9.4)
        // t.test(a, b): t = 3.6557142245754432608, df = 12.4283785182687722681,
        // p = 0.0031154806833715472, CI (0.28632255147405339, 1.12320125804975479)
        let a = [10.1, 9.8, 10.4, 10.0, 9.7, 10.3, 10.2];
        let b = [9.1, 9.9, 8.7, 9.5, 9.8, 9.0, 10.1, 8.8, 9.4];
        let w = welch(&a, &b).unwrap();
        assert!(close(w.t, 3.6557142245754432608, 1e-12));
        assert!(close(w.df, 12.4283785182687722681, 1e-12));
        assert!(close(w.p_value, 0.0031154806833715472, 1e-8));
        let (lo, hi) = w.interval(0.95).unwrap();
        assert!(close(lo, 0.28632255147405339, 1e-9));
        assert!(close(hi, 1.12320125804975479, 1e-9));
    }

    #[test]
    fn refuses_single_observations() {
        assert!(welch(&[1.0], &[1.0, 2.0]).is_err());
    }
}
