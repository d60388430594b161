//! Matched-pair comparison (Georges et al. 2008, "Rigorous replay compilation", §5.2): the
//! t interval of the mean of per-unit differences `d_j = a_j − b_j`.
//!
//! With randomised layouts the natural pair is the same seed built from the old and the new
//! source: the layout effect shared by a pair cancels, often giving a much tighter interval
//! than the unpaired comparison.

use serde::Serialize;

use super::error::StatsError;
use super::sample::{mean_interval, MeanInterval};

/// The matched-pair interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PairedDifference {
    /// `d̄`, the mean of `after − before`.
    pub mean_difference: f64,
    /// Lower end of the interval for the expected difference.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Number of pairs.
    pub pairs: usize,
    /// `1 − α`.
    pub confidence: f64,
}

/// Georges et al. §5.2: `d̄ ± t_{1−α/2; n−1} · s_d / sqrt(n)` for `d_j = after_j − before_j`.
/// The slices must have the same length (pairs by position), at least two pairs.
pub fn paired_difference(
    before: &[f64],
    after: &[f64],
    confidence: f64,
) -> Result<PairedDifference, StatsError> {
    if before.len() != after.len() {
        return Err(StatsError::Domain(format!(
            "matched pairs need equal counts, got {} and {}",
            before.len(),
            after.len()
        )));
    }
    let d: Vec<f64> = after.iter().zip(before).map(|(a, b)| a - b).collect();
    let ci: MeanInterval = mean_interval(&d, confidence)?;
    Ok(PairedDifference {
        mean_difference: ci.mean,
        lower: ci.lower,
        upper: ci.upper,
        pairs: d.len(),
        confidence,
    })
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    #[test]
    fn matches_r_paired_t_test() {
        // R: a <- c(10.1,9.8,10.4,10.0,9.7,10.3,10.2); b <- c(9.1,9.9,8.7,9.5,9.8,9.0,10.1)
        // t.test(a, b, paired=TRUE): mean difference 0.628571428571428670,
        // CI (-0.035590359596491893, 1.292733216739349489). Here after = a, before = b.
        let a = [10.1, 9.8, 10.4, 10.0, 9.7, 10.3, 10.2];
        let b = [9.1, 9.9, 8.7, 9.5, 9.8, 9.0, 10.1];
        let p = paired_difference(&b, &a, 0.95).unwrap();
        assert!((p.mean_difference - 0.628571428571428670).abs() < 1e-12);
        assert!((p.lower + 0.035590359596491893).abs() < 1e-10);
        assert!((p.upper - 1.292733216739349489).abs() < 1e-10);
        assert_eq!(p.pairs, 7);
        assert!(paired_difference(&a, &b[..6], 0.95).is_err());
    }
}
