//! The ratio of two means from matched pairs: seed `s` of the base variant with seed `s` of
//! the new one (the pairing of Georges et al. 2008 §5.2, applied to a ratio), by Fieller's
//! theorem with the covariance of the paired means (Fieller 1954, §3; the general form of
//! which Kalibera & Jones 2013 eq. 5 is the independent-samples case).
//!
//! Why this estimator. Two natural choices exist for paired data: (a) a t interval on the
//! per-seed log ratios `log(b_s / a_s)`, exponentiated, and (b) Fieller's interval for
//! `ρ = E[b]/E[a]` using the paired covariance. (a) estimates the *geometric mean of the
//! per-seed ratios*, which differs from the ratio of means exactly when the speedup varies
//! with the layout (the interaction this module's callers also test), so its interval would
//! not be comparable with eq. 5 and the bootstrap, which both target the ratio of means.
//! (b) targets the ratio of means, needs no log transform (valid for any positive or
//! negative values), and is exact under normality of the per-seed means: for each candidate
//! `ρ`, the differences `d_s(ρ) = b_s − ρ·a_s` are i.i.d. with mean zero exactly when `ρ` is
//! the true ratio, so the interval is the set of `ρ` that a paired t-test on `d_s(ρ)` does
//! not reject. The layout effect shared by a pair cancels through the covariance term, which
//! is what makes the interval narrower than eq. 5 when seeds match.
//!
//! Squaring `|d̄(ρ)| ≤ t·sd(d(ρ))/√n` gives the quadratic
//! `(ā² − t²s_aa/n)ρ² − 2(āb̄ − t²s_ab/n)ρ + (b̄² − t²s_bb/n) ≤ 0` with the unbiased
//! (co)variances `s` of the per-seed means and `t = t_{1−α/2, n−1}`. It is a bounded
//! interval exactly when the base's own t interval excludes zero (`ā² > t²s_aa/n`).

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::fieller::RatioInterval;
use super::sample::mean;
use super::tdist::two_sided_critical;

/// The paired ratio `b̄ / ā` with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PairedRatio {
    /// `b̄ / ā`: mean of the new per-seed means over mean of the base's.
    pub estimate: f64,
    /// The set of ratios a paired t-test does not reject.
    pub interval: RatioInterval,
    /// Number of pairs.
    pub pairs: usize,
    /// Pearson correlation of the paired means (NaN when one side is constant): how much of
    /// the layout effect the two variants share.
    pub correlation: f64,
    /// `1 − α`.
    pub confidence: f64,
}

impl PairedRatio {
    /// `(low, high)` when bounded.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        match self.interval {
            RatioInterval::Bounded {
                lower: low,
                upper: high,
            } => Some((low, high)),
            RatioInterval::Unbounded => None,
        }
    }
}

/// The ratios `ρ` with `(b̄ − ρā)² ≤ k·(v_bb − 2ρ v_ab + ρ² v_aa)`, `means` = `(ā, b̄)`,
/// `v` = `(v_aa, v_ab, v_bb)` the (co)variances of the two sides' units and `k` = `t²` over
/// their count: the quadratic
/// `(ā² − k v_aa) ρ² − 2 (ā b̄ − k v_ab) ρ + (b̄² − k v_bb) ≤ 0` of Fieller's theorem,
/// bounded exactly when `ā² > k v_aa`. Shared by the paired and the crossed
/// ([`super::crossed_ratio`]) intervals, which differ only in `v` and `k`.
pub(crate) fn fieller_quadratic(
    (a, b): (f64, f64),
    (vaa, vab, vbb): (f64, f64, f64),
    k: f64,
) -> RatioInterval {
    let qa = a * a - k * vaa;
    let qb = a * b - k * vab;
    let qc = b * b - k * vbb;
    if qa > 0.0 && qa.is_finite() {
        // Mathematically qb² − qa·qc ≥ 0 whenever qa > 0 (the quadratic is ≤ 0 at ρ = b̄/ā).
        let root = (qb * qb - qa * qc).max(0.0).sqrt();
        RatioInterval::Bounded {
            lower: (qb - root) / qa,
            upper: (qb + root) / qa,
        }
    } else {
        RatioInterval::Unbounded
    }
}

/// Fieller's interval for the ratio of means of paired samples: `base[s]` and `new[s]` are
/// the means of seed `s` under the base and the new variant. At least two pairs.
pub fn paired_ratio(base: &[f64], new: &[f64], confidence: f64) -> Result<PairedRatio, StatsError> {
    check_confidence(confidence)?;
    if base.len() != new.len() {
        return Err(StatsError::Domain(format!(
            "matched pairs need equal counts, got {} and {}",
            base.len(),
            new.len()
        )));
    }
    let n = base.len();
    at_least("the paired ratio interval", "pairs", 2, n)?;
    if base.iter().chain(new).any(|v| !v.is_finite()) {
        return Err(StatsError::Domain(
            "the paired ratio interval needs finite values".into(),
        ));
    }
    let (a, b) = (mean(base), mean(new));
    let nf = n as f64;
    let (mut saa, mut sbb, mut sab) = (0.0, 0.0, 0.0);
    for (x, y) in base.iter().zip(new) {
        saa += (x - a) * (x - a);
        sbb += (y - b) * (y - b);
        sab += (x - a) * (y - b);
    }
    let (saa, sbb, sab) = (saa / (nf - 1.0), sbb / (nf - 1.0), sab / (nf - 1.0));
    let t = two_sided_critical(confidence, nf - 1.0);
    let interval = fieller_quadratic((a, b), (saa, sab, sbb), t * t / nf);
    Ok(PairedRatio {
        estimate: b / a,
        interval,
        pairs: n,
        correlation: sab / (saa * sbb).sqrt(),
        confidence,
    })
}

// Reference values are pasted exactly as numpy/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    const A: [f64; 8] = [10.1, 9.8, 10.4, 10.0, 9.7, 10.3, 10.2, 10.6];
    const B: [f64; 8] = [9.6, 9.5, 9.9, 9.4, 9.5, 9.8, 9.9, 10.0];

    #[test]
    fn matches_the_quadratic_solved_with_numpy() {
        // python3: a, b = the arrays above; n = 8; t = scipy.stats.t.ppf(0.975, 7);
        // S = np.cov(a, b); A = a.mean()**2 - t*t*S[0,0]/n; B = a.mean()*b.mean() - t*t*S[0,1]/n;
        // C = b.mean()**2 - t*t*S[1,1]/n; sorted(np.roots([A, -2*B, C]).real)
        let p = paired_ratio(&A, &B, 0.95).unwrap();
        let (low, high) = p.bounds().unwrap();
        assert!((p.estimate - 0.9568434032059188).abs() < 1e-14);
        assert!((low - 0.9453173868033999).abs() < 1e-12, "{low}");
        assert!((high - 0.9687411474006024).abs() < 1e-12, "{high}");
        assert_eq!(p.pairs, 8);
    }

    #[test]
    fn ends_are_where_the_paired_t_test_rejects_at_alpha() {
        // scipy.stats.ttest_1samp(b - rho*a, 0).pvalue at each end printed 0.0499999999999848
        // and 0.0499999999999812: the interval is the inverted paired t-test. Here the same
        // check with the crate's t distribution.
        let p = paired_ratio(&A, &B, 0.95).unwrap();
        let (low, high) = p.bounds().unwrap();
        for rho in [low, high] {
            let d: Vec<f64> = A.iter().zip(&B).map(|(a, b)| b - rho * a).collect();
            let ci = crate::sample::mean_interval(&d, 0.95).unwrap();
            // One end of the interval of d̄ touches zero.
            assert!(ci.lower.abs() < 1e-12 || ci.upper.abs() < 1e-12, "{ci:?}");
        }
    }

    #[test]
    fn pairing_removes_the_shared_layout_effect() {
        // Large per-seed effects shared by both variants, new = 0.9 × base + small noise:
        // the paired interval is much narrower than eq. 5 on the same data.
        let base: Vec<f64> = (0..20).map(|i| 100.0 + 10.0 * (i as f64).sin()).collect();
        let new: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, v)| 0.9 * v + 0.1 * (i as f64 * 2.3).cos())
            .collect();
        let p = paired_ratio(&base, &new, 0.95).unwrap();
        let (lo, hi) = p.bounds().unwrap();
        assert!(lo < 0.9 && 0.9 < hi && hi - lo < 0.002, "{lo} {hi}");
        assert!(p.correlation > 0.99);
        let mb = crate::sample::mean_interval(&base, 0.95).unwrap();
        let mn = crate::sample::mean_interval(&new, 0.95).unwrap();
        let (flo, fhi) = crate::fieller::ratio_ci(&mb, &mn).bounds().unwrap();
        assert!(fhi - flo > 20.0 * (hi - lo));
    }

    #[test]
    fn unbounded_and_refusals() {
        // The base's mean is not distinguishable from zero.
        let p = paired_ratio(&[-1.0, 1.0, 0.5], &[1.0, 2.0, 3.0], 0.95).unwrap();
        assert_eq!(p.interval, RatioInterval::Unbounded);
        assert!(paired_ratio(&[1.0], &[1.0], 0.95).is_err());
        assert!(paired_ratio(&[1.0, 2.0], &[1.0], 0.95).is_err());
        assert!(paired_ratio(&[1.0, f64::NAN], &[1.0, 2.0], 0.95).is_err());
    }
}
