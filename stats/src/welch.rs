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

/// Welch's test from summaries (Pilot eq. 6–8): the contrast `x̄_A − x̄_B`.
pub fn welch_from_summaries(a: &SampleSummary, b: &SampleSummary) -> Result<WelchTest, StatsError> {
    contrast(&[(1.0, *a), (-1.0, *b)])
}

/// Welch's test of a contrast `Σ cᵢ x̄ᵢ` of independent samples' means (Welch 1947;
/// Satterthwaite 1946 for its degrees of freedom): standard error `sqrt(Σ cᵢ² sᵢ²/nᵢ)` and
/// `df = (Σ vᵢ)² / Σ vᵢ²/(nᵢ − 1)` with `vᵢ = cᵢ² sᵢ²/nᵢ`. With the coefficients (1, −1) it
/// is Welch's t-test; `explain` holds a fix's seeds against the midpoint of two levels,
/// (1, −½, −½). A sample with a zero coefficient is left out.
pub fn contrast(parts: &[(f64, SampleSummary)]) -> Result<WelchTest, StatsError> {
    let parts: Vec<&(f64, SampleSummary)> = parts.iter().filter(|(c, _)| *c != 0.0).collect();
    for (_, s) in &parts {
        at_least("Welch's t-test", "observations per sample", 2, s.n)?;
    }
    let terms: Vec<(f64, f64)> = parts
        .iter()
        .map(|(c, s)| (c * c * s.variance / s.n as f64, s.n as f64 - 1.0))
        .collect();
    let total: f64 = terms.iter().map(|(v, _)| v).sum();
    if !(total > 0.0 && total.is_finite()) {
        // Zero (or overflowing) variance on every side: t and its degrees of freedom are
        // undefined (0/0), and Student's t distribution with NaN degrees of freedom does not
        // exist.
        let variances: Vec<String> = parts.iter().map(|(_, s)| s.variance.to_string()).collect();
        return Err(StatsError::Degenerate(if total == 0.0 {
            format!(
                "Welch's t-test needs some variance, and {} zero variance",
                if parts.len() == 2 {
                    "both samples have"
                } else {
                    "every sample has"
                }
            )
        } else {
            format!(
                "Welch's t-test needs variances within the range of double precision, and \
                 these ({}) exceed it",
                variances.join(" and ")
            )
        }));
    }
    let std_error = total.sqrt();
    let difference: f64 = parts.iter().map(|(c, s)| c * s.mean).sum();
    let t = difference / std_error;
    let df = total.powi(2) / terms.iter().map(|(v, d)| v * v / d).sum::<f64>();
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
    fn a_contrast_of_three_means_against_scipy() {
        // python3 (numpy, scipy 1.17.1): v = [c*c*np.var(x, ddof=1)/len(x) ...];
        // d = Σ c·mean; se = sqrt(Σ v); df = (Σ v)²/Σ v²/(n−1); p = 2*stats.t.sf(|d/se|, df);
        // CI d ∓ stats.t.ppf(0.975, df)*se, for c = (1, −½, −½) and the samples below.
        let (a, b, c) = (
            [1.0, 2.0, 3.0, 4.5],
            [2.0, 4.0, 6.5],
            [10.0, 11.0, 13.0, 14.0, 15.5],
        );
        let parts = [
            (1.0, SampleSummary::of(&a)),
            (-0.5, SampleSummary::of(&b)),
            (-0.5, SampleSummary::of(&c)),
        ];
        let w = contrast(&parts).unwrap();
        assert!(close(w.difference, -5.808333333333334, 1e-12));
        assert!(close(w.std_error, 1.1083333333333334, 1e-12));
        assert!(close(w.df, 7.2351338631948705, 1e-12));
        assert!(close(w.p_value, 0.0010794099956646485, 1e-8));
        let (lo, hi) = w.interval(0.95).unwrap();
        assert!(close(lo, -8.411957589459039, 1e-9));
        assert!(close(hi, -3.204709077207628, 1e-9));
        // (1, −1) is Welch's test; a zero coefficient leaves its sample out.
        let welch_ab = welch(&a, &b).unwrap();
        let as_contrast = contrast(&[(1.0, parts[0].1), (-1.0, parts[1].1), (0.0, parts[2].1)]);
        assert_eq!(as_contrast.unwrap(), welch_ab);
    }

    #[test]
    fn refuses_single_observations() {
        assert!(welch(&[1.0], &[1.0, 2.0]).is_err());
    }
}
