//! One-way random-effects ANOVA: "is there variance between binaries?"
//!
//! The model is `Y_ij = μ + a_i + e_ij` with `a_i ~ N(0, σ_a²)` (the effect of group `i`,
//! e.g. a randomised layout) and `e_ij ~ N(0, σ_e²)`. The F-test of `σ_a² = 0` is the
//! classical one-way ANOVA F (Georges et al. 2007 §3.3 use it to compare alternatives; the
//! random-effects reading and the variance components follow Searle, Casella & McCulloch,
//! "Variance Components", §3.5–3.6, which Kalibera & Jones cite as \[26\] and \[19\]).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use super::error::{at_least, StatsError};

/// Result of the one-way random-effects ANOVA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RandomEffectsAnova {
    /// Number of groups `k`.
    pub groups: usize,
    /// Total observations `N`.
    pub observations: usize,
    /// Mean square between groups, `Σ n_i (ȳ_i − ȳ)² / (k − 1)`.
    pub ms_between: f64,
    /// Mean square within groups, `ΣΣ (y_ij − ȳ_i)² / (N − k)`.
    pub ms_within: f64,
    /// `F = MSB / MSW` on (`k − 1`, `N − k`) degrees of freedom.
    pub f: f64,
    /// Numerator degrees of freedom `k − 1`.
    pub df_numerator: usize,
    /// Denominator degrees of freedom `N − k`.
    pub df_denominator: usize,
    /// `P(F_{k−1, N−k} ≥ f)`: small means the groups differ (σ_a² > 0).
    pub p_value: f64,
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
///
/// ```
/// // Groups (1, 2, 3) and (4, 5, 6): MS between = 3 · ((2 − 3.5)² + (5 − 3.5)²) = 13.5,
/// // MS within = (1 + 1) / 2 = 1, so F = 13.5 on 1 and 4 degrees of freedom.
/// let a = layoutrand_stats::anova::random_effects(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap();
/// assert!((a.f - 13.5).abs() < 1e-12);
/// assert_eq!((a.df_numerator, a.df_denominator), (1, 4));
/// ```
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
        observations: n,
        ms_between,
        ms_within,
        f,
        df_numerator: df_between,
        df_denominator: df_within,
        p_value: p,
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

/// The smallest ratio `ρ = σ_a² / σ_e²` that the random-effects F test of `groups` groups of
/// `size` observations each detects at level `alpha` with probability `power`.
///
/// Under the balanced random-effects model `MSB / MSW ~ (1 + size·ρ) · F(k − 1, k(size − 1))`
/// (Searle, Casella & McCulloch, "Variance Components", §3.5d), so the power at `ρ` is
/// `P(F > F_{1−α} / (1 + size·ρ))`; setting it to `power` gives the closed form
/// `ρ = (F_{1−α} / F_{1−power} − 1) / size`. `None` below 2 groups or 2 observations per group.
pub fn detectable_variance_ratio(
    groups: usize,
    size: usize,
    alpha: f64,
    power: f64,
) -> Option<f64> {
    if groups < 2 || size < 2 {
        return None;
    }
    detectable_variance_ratio_on(groups - 1, groups * (size - 1), size, alpha, power)
}

/// [`detectable_variance_ratio`] of an F test on `(df1, df2)` degrees of freedom whose
/// numerator's expectation is `σ² (1 + size · ρ)` (a one-way design of groups of `size`;
/// a randomised complete block design of `size` blocks, Montgomery §4.1, with
/// `df2 = (k − 1)(b − 1)`): `ρ = (F_crit / F_{1−power} − 1) / size`.
pub fn detectable_variance_ratio_on(
    df1: usize,
    df2: usize,
    size: usize,
    alpha: f64,
    power: f64,
) -> Option<f64> {
    if df1 < 1
        || df2 < 1
        || size < 1
        || !(alpha > 0.0 && alpha < 1.0)
        || !(power > 0.0 && power < 1.0)
    {
        return None;
    }
    let f = FisherSnedecor::new(df1 as f64, df2 as f64).ok()?;
    let critical = f.inverse_cdf(1.0 - alpha);
    let at_power = f.inverse_cdf(1.0 - power);
    let rho = (critical / at_power - 1.0) / size as f64;
    (rho.is_finite() && rho >= 0.0).then_some(rho)
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;

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
        assert!(close(a.p_value, 5.0122764685574e-05, 1e-8));
        assert!(close(a.ms_between, 0.6656249999999998, 1e-12));
        assert!(close(a.ms_within, 0.032291666666666656, 1e-12));
        assert!(close(a.var_between, 0.1583333333333333, 1e-12));
        assert!(close(a.icc, 0.830601092896175, 1e-12));
        assert_eq!((a.df_numerator, a.df_denominator, a.n0), (3, 12, 4.0));
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
        assert!(close(a.p_value, 5.6734182896663115e-05, 1e-8));
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
    #[test]
    fn detectable_variance_ratio_matches_scipy_and_simulation() {
        // scipy: from scipy.stats import f
        // (f.ppf(0.95, k-1, k*(n-1)) / f.ppf(0.2, k-1, k*(n-1)) - 1) / n
        // k=10, n=3 -> 1.0482122490726011; k=20, n=3 -> 0.5534069751756583;
        // k=10, n=2 -> 2.185752746837236
        for (k, n, want) in [
            (10, 3, 1.0482122490726011),
            (20, 3, 0.5534069751756583),
            (10, 2, 2.185752746837236),
        ] {
            let got = detectable_variance_ratio(k, n, 0.05, 0.8).unwrap();
            assert!(close(got, want, 1e-6), "k={k} n={n}: {got}");
        }
        assert!(detectable_variance_ratio(1, 3, 0.05, 0.8).is_none());
        assert!(detectable_variance_ratio(10, 1, 0.05, 0.8).is_none());
        // Seeded simulation: at that ratio, 10 groups of 3 are detected about 80 % of the time.
        let rho = detectable_variance_ratio(10, 3, 0.05, 0.8).unwrap();
        let mut rng = crate::seeded::SeededRng::new(7, "anova-power");
        let mut normal = || {
            let u1 = 1.0 - rng.unit_f64();
            let u2 = rng.unit_f64();
            (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        };
        let runs = 4000;
        let mut detected = 0;
        for _ in 0..runs {
            let groups: Vec<Vec<f64>> = (0..10)
                .map(|_| {
                    let a = rho.sqrt() * normal();
                    (0..3).map(|_| a + normal()).collect()
                })
                .collect();
            if random_effects(&groups).unwrap().p_value < 0.05 {
                detected += 1;
            }
        }
        let power = detected as f64 / runs as f64;
        // Binomial standard error at 0.8 and 4000 runs: 0.0063; allow 3 of them.
        assert!((power - 0.8).abs() < 0.02, "power {power}");
    }
}
