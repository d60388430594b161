//! The Mann–Whitney U test (Wilcoxon rank-sum): a distribution-free comparison of two
//! samples, the non-parametric fallback when the t-based methods' normality is doubtful
//! (Touati et al. fall back to it for non-normal data with few observations).
//!
//! Mann & Whitney 1947 for U and its exact null distribution (computed here as the
//! coefficients of the Gaussian binomial polynomial); the normal approximation with the
//! tie-corrected variance and a continuity correction as in Hollander & Wolfe,
//! "Nonparametric Statistical Methods", §4.1 — the same choices as scipy's
//! `mannwhitneyu(method="exact" | "asymptotic")`.
//!
//! Why not statrs's `stats_tests::mannwhitneyu` (0.19): its exact p-value enumerates every
//! one of the C(n_a + n_b, n_a) orderings (10^29 for two samples of 50; beyond reach past
//! about 15 per side), so it is used only up to 8 per side and the normal approximation
//! serves everything above; the recurrence here is exact to [`EXACT_LIMIT`] pairs (50 × 50)
//! in 1.6 million additions, where the approximation's error at small p matters most.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use super::error::{at_least, StatsError};

/// How the p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
// Not #[non_exhaustive], unlike the crate's other public enums: the report names the
// method in words, and a new method must fail to compile there until it has its words.
pub enum PMethod {
    /// The exact permutation distribution of U (no ties, small samples).
    Exact,
    /// The normal approximation with tie correction and continuity correction.
    Normal,
}

/// The test's result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MannWhitney {
    /// `U_a = R_a − n_a(n_a + 1)/2`: pairs with `a > b`, ties counting one half.
    pub u: f64,
    /// `U_a / (n_a n_b)`: estimate of `P(a > b) + P(a = b)/2` (0.5 = no shift).
    pub prob_superiority: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Which distribution gave `p`.
    pub method: PMethod,
}

/// Largest `n_a · n_b` for which the exact distribution is used (without ties).
pub const EXACT_LIMIT: usize = 2500;

/// Two-sided Mann–Whitney test of `a` against `b` (each at least one value). Exact when
/// there are no ties and `n_a · n_b ≤` [`EXACT_LIMIT`], else the normal approximation.
///
/// ```
/// use layoutrand_stats::mann_whitney::{mann_whitney, PMethod};
/// // Every value of b above every value of a: of the C(6, 3) = 20 equally likely
/// // orderings, 2 are this extreme (either way), so the exact two-sided p is 0.1.
/// let t = mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
/// assert_eq!(t.method, PMethod::Exact);
/// assert!((t.p_value - 0.1).abs() < 1e-12);
/// ```
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Result<MannWhitney, StatsError> {
    let (na, nb) = (a.len(), b.len());
    at_least(
        "the Mann–Whitney test",
        "observations in each sample",
        1,
        na.min(nb),
    )?;
    if a.iter().chain(b).any(|x| !x.is_finite()) {
        return Err(StatsError::Domain(
            "the Mann–Whitney test needs finite values".into(),
        ));
    }
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Mid-ranks, and the tie term Σ(t³ − t) for the variance.
    let n = pooled.len();
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && pooled[j].0 == pooled[i].0 {
            j += 1;
        }
        let t = (j - i) as f64;
        let mid = (i + 1 + j) as f64 / 2.0;
        rank_sum_a += mid * pooled[i..j].iter().filter(|p| p.1).count() as f64;
        tie_term += t * t * t - t;
        i = j;
    }
    let (fa, fb) = (na as f64, nb as f64);
    let u = rank_sum_a - fa * (fa + 1.0) / 2.0;
    let u_max = u.max(fa * fb - u);
    let (p, method) = if tie_term == 0.0 && na * nb <= EXACT_LIMIT {
        (
            (2.0 * exact_upper_tail(na, nb, u_max.round() as usize)).min(1.0),
            PMethod::Exact,
        )
    } else {
        let nf = n as f64;
        let mean = fa * fb / 2.0;
        let var = fa * fb / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)));
        let p = if var <= 0.0 {
            1.0
        } else {
            let z = (u_max - mean - 0.5) / var.sqrt();
            (2.0 * Normal::new(0.0, 1.0).expect("standard normal").sf(z)).min(1.0)
        };
        (p, PMethod::Normal)
    };
    Ok(MannWhitney {
        u,
        prob_superiority: u / (fa * fb),
        p_value: p,
        method,
    })
}

/// `P(U ≥ u)` under the null without ties, summed directly over the upper tail (never
/// `1 − P(U < u)`), so far-tail p-values keep their relative accuracy.
///
/// The counts `f_{m,n}(u)` of orderings with `U = u` follow Mann & Whitney's (1947)
/// recurrence on the largest value, `f_{i,j}(u) = f_{i−1,j}(u − j) + f_{i,j−1}(u)`: only
/// additions of non-negative numbers, unlike the Gaussian-binomial product whose
/// subtractions cancelled to negative tails in f64. `f_{m,n} = f_{n,m}` (U's law is
/// symmetric), so the row runs over the smaller size: O(m²n²/4) additions, 1.6 million at
/// [`EXACT_LIMIT`].
fn exact_upper_tail(m: usize, n: usize, u: usize) -> f64 {
    let (big, small) = (m.max(n), m.min(n));
    // row[j] = f_{i,j} for the current i, j = 0..=small.
    let mut row: Vec<Vec<f64>> = vec![vec![1.0]; small + 1];
    for i in 1..=big {
        let mut next: Vec<Vec<f64>> = Vec::with_capacity(small + 1);
        next.push(vec![1.0]);
        for j in 1..=small {
            let mut f = vec![0.0; i * j + 1];
            // The largest value from the first sample: it beats all j of the second.
            for (d, c) in row[j].iter().enumerate() {
                f[d + j] += c;
            }
            // The largest value from the second sample.
            for (d, c) in next[j - 1].iter().enumerate() {
                f[d] += c;
            }
            next.push(f);
        }
        row = next;
    }
    let counts = &row[small];
    let total: f64 = counts.iter().sum();
    counts[u.min(m * n)..].iter().sum::<f64>() / total
}

// The sample value 3.14 is data, not an approximation of π.
#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;
    use crate::test_support::close;

    #[test]
    fn exact_matches_scipy() {
        // scipy.stats.mannwhitneyu(a, b, method="exact") -> U = 31, p = 0.18065268065268064
        let a = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55];
        let b = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29];
        let r = mann_whitney(&a, &b).unwrap();
        assert_eq!(r.method, PMethod::Exact);
        assert_eq!(r.u, 31.0);
        assert!(close(r.p_value, 0.18065268065268064, 1e-12));
        // 12 × 10, no ties: U = 112, p = 0.0002072231174398357 (exact);
        // method="asymptotic" would give 0.0006842598049474444.
        let x = [
            3.1, 2.9, 3.3, 3.01, 3.2, 2.81, 3.4, 3.05, 3.15, 2.96, 3.25, 3.35,
        ];
        let y = [2.7, 2.6, 2.95, 2.8, 2.65, 2.91, 2.75, 2.85, 2.55, 3.0];
        let r = mann_whitney(&x, &y).unwrap();
        assert_eq!(r.u, 112.0);
        assert!(close(r.p_value, 0.0002072231174398357, 1e-10));
        assert!(close(r.prob_superiority, 112.0 / 120.0, 1e-15));
    }

    #[test]
    fn ties_use_the_corrected_normal_approximation() {
        // scipy.stats.mannwhitneyu(a, b, method="asymptotic") -> U = 58,
        // p = 0.13291945818531892 (b has tied values 1.06 and 1.29).
        let a = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30];
        let b = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
        let r = mann_whitney(&a, &b).unwrap();
        assert_eq!(r.method, PMethod::Normal);
        assert_eq!(r.u, 58.0);
        assert!(close(r.p_value, 0.13291945818531892, 1e-10));
    }

    #[test]
    fn far_tail_exact_p_matches_scipy_without_cancellation() {
        // Two shifted runs: a = s, s+1, …, s+m−1 and b = 0.5, 1.5, …, n − 0.5 (no ties).
        // python3 -c "from scipy.stats import mannwhitneyu
        // for (m, n, s) in [(30,30,20),(40,40,24),(50,50,28),(25,30,18),(30,30,22),(10,50,45),
        //                   (30,30,23)]:
        //     a = [float(i) for i in range(s, s+m)]; b = [i + 0.5 for i in range(n)]
        //     r = mannwhitneyu(a, b, method='exact'); print((m,n,s), r.statistic, r.pvalue)"
        // (scipy 1.17.1)
        let cases: &[(usize, usize, usize, f64, f64)] = &[
            (30, 30, 20, 845.0, 4.939221804793983e-11),
            (40, 40, 24, 1464.0, 1.584392768139859e-12),
            (50, 50, 28, 2247.0, 5.2249777183569315e-14),
            (25, 30, 18, 672.0, 5.056816554197896e-08),
            (30, 30, 22, 864.0, 1.6749393383796914e-12),
            (10, 50, 45, 485.0, 1.7454963509516352e-08),
            (30, 30, 23, 872.0, 3.1218137764899186e-13),
        ];
        for &(m, n, s, u, p) in cases {
            let a: Vec<f64> = (s..s + m).map(|i| i as f64).collect();
            let b: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
            let r = mann_whitney(&a, &b).unwrap();
            assert_eq!(r.method, PMethod::Exact);
            assert_eq!(r.u, u);
            assert!(
                r.p_value > 0.0 && ((r.p_value - p) / p).abs() < 1e-6,
                "{m}×{n}: {} vs {p}",
                r.p_value
            );
        }
        // The most extreme 50 × 50 ordering: p = 2 / C(100, 50)
        // (python3 -c "from math import comb; print(2/comb(100,50))" prints 1.9823306042836678e-29).
        let a: Vec<f64> = (100..150).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..50).map(|i| i as f64).collect();
        let p = mann_whitney(&a, &b).unwrap().p_value;
        assert!((p / 1.9823306042836678e-29 - 1.0).abs() < 1e-12, "{p}");
    }

    #[test]
    fn exact_distribution_closed_forms() {
        // m = n = 1: P(U ≥ 1) = 1/2; m = 2, n = 2: counts 1,1,2,1,1 → P(U ≥ 4) = 1/6.
        assert_eq!(exact_upper_tail(1, 1, 1), 0.5);
        assert!((exact_upper_tail(2, 2, 4) - 1.0 / 6.0).abs() < 1e-15);
        assert!((exact_upper_tail(2, 2, 2) - 4.0 / 6.0).abs() < 1e-15);
        assert!(mann_whitney(&[], &[1.0]).is_err());
    }
}
