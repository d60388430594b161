//! Growing the top level of a real experiment on-line until the confidence interval is as
//! narrow as asked, with the stopping rule recorded.
//!
//! Kalibera & Jones §9.3: the optimal counts of the lower levels do not depend on the number
//! of top-level repetitions, so binaries can be added during the real experiment. Stopping
//! when the interval first looks narrow enough is *optional stopping*, which makes the
//! interval's coverage somewhat lower than nominal (the reason ReBench removed such a rule).
//! We keep the rule honest: a minimum of 5 binaries, a fixed maximum decided before the
//! experiment, growth only in rounds projected from the current width, and the whole
//! sequence of rounds and the caveat written to `OUT/stopping.json` and shown to the user.

pub use crate::files::stopping::{Growth, GrowthLog, Round, STOPPING_FILE};

/// The fewest randomised binaries the rule stops at ([`MIN_TOP_LEVEL_UNITS`]).
const MIN_BINARIES: u32 = MIN_TOP_LEVEL_UNITS as u32;

use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;

impl GrowthLog {
    /// A log for `rule`, starting with `start` binaries.
    pub fn new(rule: &Growth, start: u32) -> GrowthLog {
        GrowthLog {
            rule: rule.clone(),
            start_binaries: start,
            rounds: Vec::new(),
            outcome: None,
            caveat: format!(
                "The number of randomised binaries was not fixed in advance: binaries were added in rounds until the {:.0} % confidence interval's relative half-width was at most {:.2} % (between {MIN_BINARIES} and {} binaries). Stopping when an interval first looks narrow enough (optional stopping) makes its real coverage somewhat lower than the nominal {:.0} %; treat the interval as approximate, or repeat the experiment with the final count fixed in advance.",
                rule.confidence * 100.0,
                rule.target * 100.0,
                rule.max_binaries,
                rule.confidence * 100.0
            ),
        }
    }

    /// Records the round just measured and returns the next number of binaries, or `None`
    /// when the rule says stop (the outcome is then set).
    ///
    /// The next count projects the width's `1/√n` shrinkage: `⌈n · (h/τ)²⌉`, at least one
    /// more binary, at most the maximum.
    pub fn next_count(&mut self, rule: &Growth, binaries: u32, width: Option<f64>) -> Option<u32> {
        self.rounds.push(Round {
            binaries,
            relative_half_width: width,
        });
        let stop = |log: &mut GrowthLog, outcome: &str| {
            log.outcome = Some(outcome.to_string());
            None
        };
        let Some(h) = width else {
            return stop(self, "not_computable");
        };
        if binaries >= MIN_BINARIES && h <= rule.target {
            return stop(self, "target_met");
        }
        if binaries >= rule.max_binaries {
            return stop(self, "max_reached");
        }
        let projected = (binaries as f64 * (h / rule.target).powi(2)).ceil();
        let next = if projected.is_finite() {
            projected.min(rule.max_binaries as f64) as u32
        } else {
            rule.max_binaries
        };
        Some(
            next.max(binaries + 1)
                .max(MIN_BINARIES)
                .min(rule.max_binaries),
        )
    }

    /// One sentence on how the experiment stopped.
    pub fn outcome_sentence(&self) -> String {
        let last = self.rounds.last();
        let n = last.map_or(0, |r| r.binaries);
        let width = last
            .and_then(|r| r.relative_half_width)
            .map_or("not computable".to_string(), |h| fmt_share(Some(h)));
        match self.outcome.as_deref() {
            Some("target_met") => format!(
                "target precision met: relative half-width {width} ≤ {:.2} % with {n} binaries after {} round(s)",
                self.rule.target * 100.0,
                self.rounds.len()
            ),
            Some("max_reached") => format!(
                "target precision NOT met: relative half-width {width} with the maximum of {n} binaries (target {:.2} %)",
                self.rule.target * 100.0
            ),
            Some(_) => format!("stopped: the interval is not computable with {n} binaries"),
            None => format!("growing: {n} binaries so far, relative half-width {width}"),
        }
    }
}

/// A share as a percentage with two decimals, or "not computable".
pub fn fmt_share(share: Option<f64>) -> String {
    match share {
        Some(h) => format!("{:.2} %", h * 100.0),
        None => "not computable".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> Growth {
        Growth {
            target: 0.01,
            confidence: 0.95,
            max_binaries: 40,
            metric: "wall".into(),
        }
    }

    #[test]
    fn projects_the_inverse_square_root_law() {
        let mut log = GrowthLog::new(&rule(), 10);
        // Twice the target with 10 binaries: 1/√n says 40 are needed.
        assert_eq!(log.next_count(&rule(), 10, Some(0.02)), Some(40));
        // 1.1 × the target: ⌈10 · 1.21⌉ = 13.
        let mut log = GrowthLog::new(&rule(), 10);
        assert_eq!(log.next_count(&rule(), 10, Some(0.011)), Some(13));
    }

    #[test]
    fn always_grows_by_one_and_never_past_the_maximum() {
        let mut log = GrowthLog::new(&rule(), 10);
        assert_eq!(log.next_count(&rule(), 10, Some(0.010_000_1)), Some(11));
        assert_eq!(log.next_count(&rule(), 11, Some(0.5)), Some(40));
        assert_eq!(log.next_count(&rule(), 40, Some(0.02)), None);
        assert_eq!(log.outcome.as_deref(), Some("max_reached"));
        assert_eq!(log.rounds.len(), 3);
        assert!(log.outcome_sentence().contains("NOT met"));
    }

    #[test]
    fn stops_when_met_but_not_below_five_binaries() {
        let mut log = GrowthLog::new(&rule(), 3);
        assert_eq!(log.next_count(&rule(), 3, Some(0.001)), Some(5));
        assert_eq!(log.next_count(&rule(), 5, Some(0.009)), None);
        assert_eq!(log.outcome.as_deref(), Some("target_met"));
        assert!(log.caveat.contains("optional stopping"));
    }

    #[test]
    fn an_uncomputable_interval_stops_the_growth() {
        let mut log = GrowthLog::new(&rule(), 5);
        assert_eq!(log.next_count(&rule(), 5, None), None);
        assert_eq!(log.outcome.as_deref(), Some("not_computable"));
    }
}
