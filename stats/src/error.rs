//! The one error type of the statistics: inputs a method cannot honestly use.

/// Why a statistic cannot be computed from the data given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// Not enough observations (or units) for the method.
    #[error("{method} needs at least {need} {what}, got {got}")]
    TooFew {
        /// The method, e.g. "the t interval (Kalibera & Jones eq. 4)".
        method: &'static str,
        /// What is counted, e.g. "top-level units".
        what: &'static str,
        /// The minimum.
        need: usize,
        /// What was given.
        got: usize,
    },
    /// An argument is out of its domain (confidence outside (0, 1), a negative cost, …).
    #[error("{0}")]
    Domain(String),
    /// The data make the statistic undefined (e.g. zero variance on both sides of a t-test).
    #[error("not computable: {0}")]
    Degenerate(String),
}

/// The guard every method runs before computing: `Ok` when `got` reaches `need`, else
/// [`StatsError::TooFew`] naming the method and what it counts.
pub fn at_least(
    method: &'static str,
    what: &'static str,
    need: usize,
    got: usize,
) -> Result<(), StatsError> {
    if got < need {
        Err(StatsError::TooFew {
            method,
            what,
            need,
            got,
        })
    } else {
        Ok(())
    }
}

/// Checks a confidence level lies strictly between 0 and 1.
pub(crate) fn check_confidence(confidence: f64) -> Result<(), StatsError> {
    if confidence > 0.0 && confidence < 1.0 {
        Ok(())
    } else {
        Err(StatsError::Domain(format!(
            "confidence level {confidence} is not strictly between 0 and 1"
        )))
    }
}
