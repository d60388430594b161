//! One-way random-effects ANOVA: "is there variance between binaries?"
//!
//! The model is `Y_ij = μ + a_i + e_ij` with `a_i ~ N(0, σ_a²)` (the effect of group `i`,
//! e.g. a randomised layout) and `e_ij ~ N(0, σ_e²)`. The F-test of `σ_a² = 0` is the
//! classical one-way ANOVA F (Georges et al. 2007 §3.3 use it to compare alternatives; the
//! random-effects reading and the variance components follow Searle, Casella & McCulloch,
//! "Variance Components", §3.5–3.6, which Kalibera & Jones cite as [26] and [19]).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use super::error::{at_least, StatsError};

/// Result of the one-way random-effects ANOVA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RandomEffectsAnova {
    /// Number of groups `k`.
    pub groups: usize,
    /// Total observations `N`.
    pub n: usize,
    /// Mean square between groups, `Σ n_i (ȳ_i − ȳ)² / (k − 1)`.
    pub ms_between: f64,
    /// Mean square within groups, `ΣΣ (y_ij − ȳ_i)² / (N − k)`.
    pub ms_within: f64,
    /// `F = MSB / MSW` on (`k − 1`, `N − k`) degrees of freedom.
    pub f: f64,
    /// Numerator degrees of freedom `k − 1`.
    pub df_between: usize,
    /// Denominator degrees of freedom `N − k`.
    pub df_within: usize,
    /// `P(F_{k−1, N−k} ≥ f)`: small means the groups differ (σ_a² > 0).
    pub p: f64,
    /// `n₀ = (N − Σn_i²/N)/(k − 1)`: the group size (equal to it for balanced data).
    pub n0: f64,
    /// ANOVA estimate of `σ_a² = (MSB − MSW)/n₀`; negative estimates are reported as they
    /// are (they mean "no detectable between-group variance").
    pub var_between: f64,
    /// Estimate of `σ_e² = MSW`.
    pub var_within: f64,
    /// Intraclass correlation `(MSB − MSW) / (MSB + (n₀ − 1)·MSW)`: the share of the total
    /// variance due to the groups.
    pub icc: f64,
}

/// One-way random-effects ANOVA of `groups` (at least two groups, at least one group with
/// two observations; unequal sizes use the `n₀` of Searle et al.).
pub fn random_effects<G: AsRef<[f64]>>(groups: &[G]) -> Result<RandomEffectsAnova, StatsError> {
    let k = groups.len();
    at_least("one-way ANOVA", "groups", 2, k)?;
    if groups.iter().any(|g| g.as_ref().is_empty()) {
        return Err(StatsError::Domain("one-way ANOVA: a group is empty".into()));
    }
    let n: usize = groups.iter().map(|g| g.as_ref().len()).sum();
    at_least(
        "one-way ANOVA",
        "observations (more than the number of groups)",
        k + 1,
        n,
    )?;
    let grand = groups.iter().flat_map(|g| g.as_ref().iter()).sum::<f64>() / n as f64;
    let mut ss_between = 0.0;
    let mut ss_within = 0.0;
    let mut sum_sq_sizes = 0.0;
    for g in groups {
        let g = g.as_ref();
        let m = g.iter().sum::<f64>() / g.len() as f64;
        ss_between += g.len() as f64 * (m - grand) * (m - grand);
        ss_within += g.iter().map(|y| (y - m) * (y - m)).sum::<f64>();
        sum_sq_sizes += (g.len() * g.len()) as f64;
    }
    let df_between = k - 1;
    let df_within = n - k;
    let ms_between = ss_between / df_between as f64;
    let ms_within = ss_within / df_within as f64;
    let f = ms_between / ms_within;
    let p = f_upper_tail(f, df_between, df_within);
    let n0 = (n as f64 - sum_sq_sizes / n as f64) / df_between as f64;
    Ok(RandomEffectsAnova {
        groups: k,
        n,
        ms_between,
        ms_within,
        f,
        df_between,
        df_within,
        p,
        n0,
        var_between: (ms_between - ms_within) / n0,
        var_within: ms_within,
        icc: (ms_between - ms_within) / (ms_between + (n0 - 1.0) * ms_within),
    })
}

/// `P(F_{df1, df2} ≥ f)`, the p-value of an ANOVA F statistic: NaN for a NaN `f` (0/0: no
/// variation at all), 0 for an infinite one (no variation within groups). Both degrees of
/// freedom must be positive.
pub fn f_upper_tail(f: f64, df1: usize, df2: usize) -> f64 {
    if f.is_nan() {
        f64::NAN
    } else if f.is_infinite() {
        0.0
    } else {
        FisherSnedecor::new(df1 as f64, df2 as f64)
            .expect("positive degrees of freedom")
            .sf(f)
    }
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::stats::test_support::close;

    #[test]
    fn balanced_matches_scipy_and_r() {
        // scipy.stats.f_oneway(*g) -> F = 20.612903225806456, p = 5.0122764685574e-05;
        // R summary(aov(y ~ g)) agrees (MSB 0.665625, MSW 0.03229166666667).
        // numpy: (MSB − MSW)/4 = 0.1583333333333333, ICC = 0.830601092896175.
        let g = [
            vec![9.8, 10.1, 10.0, 9.9],
            vec![10.6, 10.4, 10.9, 10.5],
            vec![9.5, 9.7, 9.4, 9.9],
            vec![10.2, 10.0, 10.3, 10.1],
        ];
        let a = random_effects(&g).unwrap();
        assert!(close(a.f, 20.612903225806456, 1e-12));
        assert!(close(a.p, 5.0122764685574e-05, 1e-8));
        assert!(close(a.ms_between, 0.6656249999999998, 1e-12));
        assert!(close(a.ms_within, 0.032291666666666656, 1e-12));
        assert!(close(a.var_between, 0.1583333333333333, 1e-12));
        assert!(close(a.icc, 0.830601092896175, 1e-12));
        assert_eq!((a.df_between, a.df_within, a.n0), (3, 12, 4.0));
    }

    #[test]
    fn unequal_sizes_use_n0() {
        // scipy f_oneway -> F = 35.0186915887851, p = 5.6734182896663115e-05;
        // numpy: n0 = 3.9166666666666665, σ_a² = 0.2581560283687948, ICC = 0.8967541932702378
        let g: [&[f64]; 3] = [
            &[5.1, 5.3, 4.9],
            &[5.8, 6.0, 5.7, 6.1, 5.9],
            &[5.0, 5.2, 5.1, 4.8],
        ];
        let a = random_effects(&g).unwrap();
        assert!(close(a.f, 35.0186915887851, 1e-12));
        assert!(close(a.p, 5.6734182896663115e-05, 1e-8));
        assert!(close(a.n0, 3.9166666666666665, 1e-14));
        assert!(close(a.var_between, 0.2581560283687948, 1e-12));
        assert!(close(a.icc, 0.8967541932702378, 1e-12));
    }

    #[test]
    fn refuses_degenerate_input() {
        assert!(random_effects(&[vec![1.0, 2.0]]).is_err());
        assert!(random_effects(&[vec![1.0], vec![2.0]]).is_err());
        assert!(random_effects(&[vec![1.0, 2.0], vec![]]).is_err());
    }
}
