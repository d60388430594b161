//! The sign test of matched pairs (Conover, "Practical Nonparametric Statistics", 3rd ed.,
//! §3.4; Hollander & Wolfe §3.4): of `n` pairs that differ, how likely are `k` or more on the
//! predicted side if each side were as likely? `P(Bin(n, ½) ≥ k)`, exact. It asks only the
//! direction of each pair, so a change that is large in every pair but too uneven for an
//! interval of the ratio (a set conflict that thrashes ten-fold in some seeds, twice in
//! others) is judged by what all pairs agree on (issue 49: "10× in 5 of 5 pairs" was
//! "undetermined").

use super::error::{at_least, StatsError};

/// The one-sided exact p-value `P(Bin(n, ½) ≥ k)` of `k` of `n` untied pairs on the
/// predicted side.
///
/// ```
/// // 9 of 10 pairs on the predicted side: P(Bin(10, ½) ≥ 9) = 11 / 1024.
/// let p = layoutrand_stats::sign_test::sign_test_one_sided(9, 10).unwrap();
/// assert!((p - 11.0 / 1024.0).abs() < 1e-15);
/// ```
pub fn sign_test_one_sided(k: usize, n: usize) -> Result<f64, StatsError> {
    at_least("the sign test", "pairs that differ", 1, n)?;
    if k > n {
        return Err(StatsError::Domain(format!(
            "the sign test: {k} of {n} pairs on one side"
        )));
    }
    // Σ_{i=k}^{n} C(n, i) / 2^n, each term in logs so that large n does not overflow.
    let ln_half_n = n as f64 * 0.5f64.ln();
    let p: f64 = (k..=n).map(|i| (ln_choose(n, i) + ln_half_n).exp()).sum();
    Ok(p.min(1.0))
}

/// `ln C(n, k)`.
fn ln_choose(n: usize, k: usize) -> f64 {
    let ln_factorial = |m: usize| (1..=m).map(|x| (x as f64).ln()).sum::<f64>();
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closed forms and scipy 1.17.1: `scipy.stats.binomtest(k, n, 0.5,
    /// alternative='greater').pvalue` gives 0.03125 (5 of 5), 0.1875 (4 of 5),
    /// 0.0009765625 (10 of 10), 0.0546875 (8 of 10), 0.5 (1 of 1), 1.0 (0 of 3).
    #[test]
    fn the_tail_matches_the_binomial() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.max(1e-300);
        assert!(close(sign_test_one_sided(5, 5).unwrap(), 0.03125));
        assert!(close(sign_test_one_sided(4, 5).unwrap(), 0.1875));
        assert!(close(sign_test_one_sided(10, 10).unwrap(), 0.0009765625));
        assert!(close(sign_test_one_sided(8, 10).unwrap(), 0.0546875));
        assert!(close(sign_test_one_sided(1, 1).unwrap(), 0.5));
        assert!(close(sign_test_one_sided(0, 3).unwrap(), 1.0));
        assert!(sign_test_one_sided(0, 0).is_err());
        assert!(sign_test_one_sided(4, 3).is_err());
    }
}
