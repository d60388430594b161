//! Wilson's score interval for a proportion (E. B. Wilson, "Probable inference, the law of
//! succession, and statistical inference", JASA 22, 1927): the share of seeds on which the
//! new variant is faster than the base.
//!
//! Touati et al. ("The Speedup-Test", §4, the proportion `C` of accelerated programs) use
//! the Wald interval `C ± z·sqrt(C(1 − C)/n)`, which they note is only valid when `nC` and
//! `n(1 − C)` are large. With 30 seeds and a real speedup nearly every seed is faster, `C` is
//! close to 1, and the Wald interval collapses to a point or leaves `[0, 1]`. Wilson's
//! interval inverts the score test instead: it is the set of `p` with
//! `|p̂ − p| ≤ z·sqrt(p(1 − p)/n)`, which stays inside `[0, 1]`, is never empty, and keeps
//! close to its nominal coverage down to small `n` (Brown, Cai & DasGupta, Stat. Sci. 2001).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use super::error::{check_confidence, StatsError};

/// A proportion `k / n` with its Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Proportion {
    /// Successes (e.g. seeds on which new is faster).
    pub k: usize,
    /// Trials (seeds compared).
    pub n: usize,
    /// Lower end of the interval for the underlying probability.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

impl Proportion {
    /// `k / n`.
    pub fn share(&self) -> f64 {
        self.k as f64 / self.n as f64
    }
}

/// Wilson's score interval for `k` successes in `n` trials:
/// `(p̂ + z²/2n ± z·sqrt(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)` with `z = Φ⁻¹(1 − α/2)`.
pub fn wilson_interval(k: usize, n: usize, confidence: f64) -> Result<Proportion, StatsError> {
    check_confidence(confidence)?;
    if n == 0 {
        return Err(StatsError::TooFew {
            method: "Wilson's interval",
            what: "trials",
            need: 1,
            got: 0,
        });
    }
    if k > n {
        return Err(StatsError::Domain(format!(
            "Wilson's interval: {k} successes in {n} trials"
        )));
    }
    let z = Normal::new(0.0, 1.0)
        .expect("the standard normal is valid")
        .inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
    let nf = n as f64;
    let p = k as f64 / nf;
    let z2n = z * z / nf;
    let centre = (p + z2n / 2.0) / (1.0 + z2n);
    let half = z / (1.0 + z2n) * (p * (1.0 - p) / nf + z2n / (4.0 * nf)).sqrt();
    // At k = 0 (k = n) the lower (upper) end is exactly 0 (1); clamp the rounding.
    Ok(Proportion {
        k,
        n,
        lower: if k == 0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        upper: if k == n {
            1.0
        } else {
            (centre + half).min(1.0)
        },
    })
}

// Reference values are pasted exactly as statsmodels printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    #[test]
    fn matches_statsmodels() {
        // python3 -c "from statsmodels.stats.proportion import proportion_confint as pc;
        //   print(pc(k, n, alpha=1-c, method='wilson'))"   (statsmodels 0.15.0)
        let cases = [
            (28, 30, 0.95, 0.7867654163738308, 0.9815229762087295),
            (0, 10, 0.95, 0.0, 0.2775327998628892),
            (10, 10, 0.95, 0.7224672001371107, 1.0),
            (17, 30, 0.9, 0.4185199205577713, 0.7037835050255487),
            (5, 12, 0.99, 0.15066932985904913, 0.7420051484157378),
            (1, 1, 0.95, 0.20654931437723745, 1.0),
        ];
        for (k, n, c, lo, hi) in cases {
            let w = wilson_interval(k, n, c).unwrap();
            assert!((w.lower - lo).abs() < 1e-12, "{k}/{n}: {} vs {lo}", w.lower);
            assert!((w.upper - hi).abs() < 1e-12, "{k}/{n}: {} vs {hi}", w.upper);
        }
    }

    #[test]
    fn closed_form_is_the_score_test_inverted() {
        // At each end p, the score statistic (p̂ − p)/sqrt(p(1 − p)/n) equals ∓z.
        let w = wilson_interval(7, 20, 0.95).unwrap();
        let z = 1.959963984540054; // scipy.stats.norm.ppf(0.975)
        for (p, sign) in [(w.lower, 1.0), (w.upper, -1.0)] {
            let score = (0.35 - p) / (p * (1.0 - p) / 20.0).sqrt();
            assert!((score - sign * z).abs() < 1e-9, "{score}");
        }
        assert_eq!(w.share(), 0.35);
    }

    #[test]
    fn refuses_impossible_counts() {
        assert!(wilson_interval(0, 0, 0.95).is_err());
        assert!(wilson_interval(3, 2, 0.95).is_err());
        assert!(wilson_interval(1, 2, 1.0).is_err());
    }
}
