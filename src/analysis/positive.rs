//! The one rule for every interval of a positive quantity (a mean of times or counts, a
//! ratio of such means, a spread, a coefficient of variation): such an interval is given
//! only when both its ends are finite and its lower end is above zero. Otherwise it is
//! withheld, and every command says why in the same words (`crate::report::words::withheld`).
//!
//! Why: the symmetric t interval (Kalibera & Jones 2013 eq. 4), Fieller's interval of a ratio
//! (eq. 5, and its paired form) and Tukey's simultaneous intervals can reach below zero when
//! the units vary by as much as their mean; an interval "−29.89 … 51.89" of a time, or a
//! ratio of times "−0.18 … 2.4", is impossible and must not be printed as if it informed.
//! A bootstrap on the log scale can likewise come back as "0 … ∞" when a resampled standard
//! error is a rounding residue. Every analysis that produces such an interval passes it
//! through [`positive_interval`], so the rule holds by construction.

use serde::Serialize;

use crate::stats::interval::Interval;

/// Why an interval of a positive quantity is not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Withheld {
    /// Its lower end is at or below zero, impossible for a positive quantity.
    BelowZero,
    /// An end is not finite (unbounded, or overflowed on the way back from a log scale).
    Unbounded,
}

/// The interval `[lower, upper]` of a quantity whose every value is positive, or why it is
/// withheld: an end that is not finite, or a lower end at or below zero. Every interval of
/// a positive quantity that the engine writes passes here.
pub(crate) fn positive_interval(lower: f64, upper: f64) -> Result<Interval, Withheld> {
    if !(lower.is_finite() && upper.is_finite()) {
        Err(Withheld::Unbounded)
    } else if lower <= 0.0 {
        Err(Withheld::BelowZero)
    } else {
        Ok(Interval { lower, upper })
    }
}

/// [`positive_interval`] of a pair of bounds, `None` when withheld (for intervals whose
/// absence the caller explains in its own field).
pub(crate) fn positive_bounds(bounds: (f64, f64)) -> Option<Interval> {
    positive_interval(bounds.0, bounds.1).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_positive_interval_passes_unchanged() {
        assert_eq!(
            positive_interval(0.5, 2.0),
            Ok(Interval {
                lower: 0.5,
                upper: 2.0
            })
        );
    }

    #[test]
    fn a_lower_end_at_or_below_zero_is_withheld() {
        assert_eq!(positive_interval(-29.89, 51.89), Err(Withheld::BelowZero));
        assert_eq!(positive_interval(0.0, 51.89), Err(Withheld::BelowZero));
        assert_eq!(positive_interval(-0.18, 2.4), Err(Withheld::BelowZero));
    }

    #[test]
    fn an_end_that_is_not_finite_is_withheld() {
        assert_eq!(
            positive_interval(0.0, f64::INFINITY),
            Err(Withheld::Unbounded)
        );
        assert_eq!(positive_interval(f64::NAN, 1.0), Err(Withheld::Unbounded));
        assert_eq!(positive_bounds((1.0, f64::INFINITY)), None);
    }
}
