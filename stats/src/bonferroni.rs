//! Bonferroni's adjustment of a family of intervals: `m` intervals each at confidence
//! `1 − α/m` hold together with probability at least `1 − α`, whatever their correlation
//! (Bonferroni's inequality; Dunn, "Multiple comparisons among means", JASA 56, 1961).
//!
//! The variants' headline comparisons (each other variant against the base) are ratio
//! intervals with their own, per-pair variance (paired by seed, Fieller): Dunnett's
//! many-to-one quantile assumes one pooled variance and equal correlations between the
//! comparisons, which these do not have, so the family is held by Bonferroni instead.

use super::error::StatsError;

/// The confidence of each of `comparisons` intervals so that the family holds at
/// `family_confidence`: `1 − (1 − family_confidence) / comparisons`.
///
/// ```
/// // Two comparisons held together at 95 %: each at 97.5 %.
/// let each = layoutrand_stats::bonferroni::bonferroni_confidence(0.95, 2).unwrap();
/// assert!((each - 0.975).abs() < 1e-15);
/// ```
pub fn bonferroni_confidence(
    family_confidence: f64,
    comparisons: usize,
) -> Result<f64, StatsError> {
    if !(family_confidence > 0.0 && family_confidence < 1.0) || comparisons == 0 {
        return Err(StatsError::Domain(format!(
            "Bonferroni: a family confidence strictly between 0 and 1 and at least one \
             comparison are needed (got {family_confidence}, {comparisons})"
        )));
    }
    Ok(1.0 - (1.0 - family_confidence) / comparisons as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_the_error_rate() {
        // Closed form: 0.05 over 2 comparisons is 0.025 each; over 1, unchanged.
        assert!((bonferroni_confidence(0.95, 2).unwrap() - 0.975).abs() < 1e-15);
        assert!((bonferroni_confidence(0.9, 4).unwrap() - 0.975).abs() < 1e-15);
        assert_eq!(bonferroni_confidence(0.95, 1).unwrap(), 0.95);
        assert!(bonferroni_confidence(0.95, 0).is_err());
        assert!(bonferroni_confidence(1.0, 2).is_err());
    }
}
