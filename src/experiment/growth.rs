//! Growing the top level of a real experiment on-line until the confidence sequence is as
//! narrow as asked or the comparisons reach their verdicts, with the stopping rule recorded.
//!
//! Kalibera & Jones §9.3: the optimal counts of the lower levels do not depend on the number
//! of top-level repetitions, so binaries can be added during the real experiment. Stopping
//! when a fixed-sample interval first looks narrow enough is *optional stopping*, which
//! lowers its coverage (simulated in tests/sequential_calibration.rs: a 95 % t interval
//! checked after every binary from 5 to 40 held at every look in 74 % of experiments). The
//! rule therefore watches a confidence sequence ([`crate::analysis::sequential`]), which
//! holds at every look at once: the binaries are replayed in seed order with a look after
//! each from 5, and the experiment stops once a look meets the rule, or at a maximum fixed
//! before the experiment. Rounds only batch the building and running: their size is
//! projected from the current width, and looking after every binary inside a round costs
//! no validity. `OUT/stopping.json` records the rule, every round and every look.

pub use crate::files::stopping::{Growth, GrowthLog, Round, STOPPING_FILE};

use crate::analysis::numfmt::percent;
use crate::analysis::sequential::{Reason, Sequential};
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;

/// The fewest randomised binaries the rule stops at ([`MIN_TOP_LEVEL_UNITS`]).
const MIN_BINARIES: u32 = MIN_TOP_LEVEL_UNITS as u32;

impl GrowthLog {
    /// A log for `rule`, starting with `start` binaries.
    pub fn new(rule: &Growth, start: u32) -> GrowthLog {
        GrowthLog {
            rule: rule.clone(),
            start_binaries: start,
            rounds: Vec::new(),
            outcome: None,
            caveat: format!(
                "The number of randomised binaries was not fixed in advance: binaries were added in rounds, with a look after each binary from the {MIN_BINARIES}th, until the {level} confidence sequence's relative half-width was at most {} (at most {} binaries). The sequence holds at every look at once, so the look at which the experiment stopped (optional stopping) keeps its {level} level; the report's fixed-sample intervals (Kalibera & Jones eq. 4) beside it do not have that guarantee under such a stop and are approximate.",
                percent(rule.target, 3),
                rule.max_binaries,
                level = crate::analysis::numfmt::level(rule.confidence),
            ),
            method: Some("lai_t_mixture".into()),
            looks: Vec::new(),
        }
    }

    /// Records the round just measured from the watched sequences (the series of the
    /// run's metric, or each comparison of the variants) and returns the next number of
    /// binaries, or `None` when the rule says stop (the outcome is then set): when every
    /// watched sequence met its rule at some look, or at the maximum.
    pub fn next_count(
        &mut self,
        rule: &Growth,
        binaries: u32,
        watched: &[Sequential],
    ) -> Option<u32> {
        if let Some(first) = watched.first() {
            self.looks = first.sequence.clone();
        }
        // The widest at the last look; `None` when nothing is watched or one is unbounded.
        let width = watched
            .iter()
            .map(|s| s.sequence.last().and_then(|l| l.relative_half_width))
            .try_fold(None, |w: Option<f64>, h| {
                h.map(|h| Some(w.map_or(h, |w| w.max(h))))
            })
            .flatten();
        let stopped = (!watched.is_empty() && watched.iter().all(|s| s.reason != Reason::Cap))
            .then(|| {
                if watched.iter().all(|s| s.reason == Reason::TargetReached) {
                    "target_met"
                } else {
                    "verdict_reached"
                }
            });
        let unbounded = !watched.is_empty() && width.is_none();
        if unbounded && stopped.is_none() && binaries < rule.max_binaries {
            // Computable but not yet bounded: the boundary needs a binary or two more than
            // the minimum (about 6 at 95 %), so grow by one instead of giving up.
            self.rounds.push(Round {
                binaries,
                relative_half_width: None,
            });
            return Some(binaries + 1);
        }
        self.next_count_from(rule, binaries, width, stopped)
    }

    /// [`GrowthLog::next_count`] on its summary: the widest relative half-width at the last
    /// look and the outcome when the rule is met.
    ///
    /// The next count is where the sequence's boundary, with the spread seen so far, is
    /// projected to reach the target (`projected`): at least one more binary, at most the
    /// maximum.
    pub fn next_count_from(
        &mut self,
        rule: &Growth,
        binaries: u32,
        width: Option<f64>,
        stopped: Option<&str>,
    ) -> Option<u32> {
        self.rounds.push(Round {
            binaries,
            relative_half_width: width,
        });
        let stop = |log: &mut GrowthLog, outcome: &str| {
            log.outcome = Some(outcome.to_string());
            None
        };
        if binaries < MIN_BINARIES && binaries < rule.max_binaries {
            // No look yet: the sequence starts at the minimum.
            return Some(MIN_BINARIES.min(rule.max_binaries));
        }
        if let Some(outcome) = stopped {
            return stop(self, outcome);
        }
        if binaries >= rule.max_binaries {
            return stop(self, "max_reached");
        }
        let Some(h) = width else {
            return stop(self, "not_computable");
        };
        Some(projected(rule, binaries, h))
    }

    /// One sentence on how the experiment stopped.
    pub fn outcome_sentence(&self) -> String {
        let last = self.rounds.last();
        let n = last.map_or(0, |r| r.binaries);
        let width = last
            .and_then(|r| r.relative_half_width)
            .map_or("not computable".to_string(), |h| fmt_share(Some(h)));
        let what = if self.method.is_some() {
            "confidence sequence's relative half-width"
        } else {
            "relative half-width"
        };
        match self.outcome.as_deref() {
            Some("target_met") => format!(
                "target precision met: the {what} reached {} with at most {n} binaries after {} round(s) (now {width})",
                percent(self.rule.target, 3),
                self.rounds.len()
            ),
            Some("verdict_reached") => format!(
                "every comparison reached a verdict (faster, slower, or equivalent within the relevance threshold) with at most {n} binaries after {} round(s)",
                self.rounds.len()
            ),
            Some("max_reached") => format!(
                "target precision NOT met: {what} {width} with the maximum of {n} binaries (target {})",
                percent(self.rule.target, 3)
            ),
            Some(_) => format!("stopped: the interval is not computable with {n} binaries"),
            None => format!("growing: {n} binaries so far, {what} {width}"),
        }
    }
}

/// The count the sequence is projected to need, from its widest relative half-width `h`
/// with `binaries` (the relative half-width on the log scale is `sinh` of the half-width):
/// at least one more binary, the maximum when even that is projected short.
fn projected(rule: &Growth, binaries: u32, h: f64) -> u32 {
    let max = rule.max_binaries as usize;
    let need = crate::stats::confidence_sequence::units_for(
        h.asinh(),
        binaries as usize,
        rule.target.asinh(),
        rule.confidence,
        crate::analysis::sequential::PLANNED_BINARIES,
        max,
    );
    match need {
        Ok(Some(n)) => n as u32,
        _ => rule.max_binaries,
    }
}

/// A share as a percentage with three significant digits (the project's one formatter),
/// or "not computable".
pub fn fmt_share(share: Option<f64>) -> String {
    share.map_or_else(|| "not computable".to_string(), |h| percent(h, 3))
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
    fn projects_from_the_sequences_boundary() {
        // Reference: the same projection in numpy (Lai's boundary, ρ = 20/(−2 ln α +
        // ln(1 − 2 ln α)), sum of squares scaled by (m − 1)/(n − 1), widths as asinh of the
        // relative half-widths): from 10 binaries at 2 % the ± 1 % target needs 25; at
        // 1.1 % it needs 11 (the boundary narrows faster than 1/√n early on, where the
        // 1/√n law asked for 40 and 13).
        let mut log = GrowthLog::new(&rule(), 10);
        assert_eq!(log.next_count_from(&rule(), 10, Some(0.02), None), Some(25));
        let mut log = GrowthLog::new(&rule(), 10);
        assert_eq!(
            log.next_count_from(&rule(), 10, Some(0.011), None),
            Some(11)
        );
    }

    #[test]
    fn always_grows_by_one_and_never_past_the_maximum() {
        let mut log = GrowthLog::new(&rule(), 10);
        assert_eq!(
            log.next_count_from(&rule(), 10, Some(0.010_000_1), None),
            Some(11)
        );
        assert_eq!(log.next_count_from(&rule(), 11, Some(0.5), None), Some(40));
        assert_eq!(log.next_count_from(&rule(), 40, Some(0.02), None), None);
        assert_eq!(log.outcome.as_deref(), Some("max_reached"));
        assert_eq!(log.rounds.len(), 3);
        assert!(log.outcome_sentence().contains("NOT met"));
    }

    #[test]
    fn stops_when_met_but_not_below_five_binaries() {
        let mut log = GrowthLog::new(&rule(), 3);
        assert_eq!(log.next_count(&rule(), 3, &[]), Some(5));
        assert_eq!(
            log.next_count_from(&rule(), 5, Some(0.009), Some("target_met")),
            None
        );
        assert_eq!(log.outcome.as_deref(), Some("target_met"));
        assert!(log.caveat.contains("holds at every look"));
    }

    #[test]
    fn stops_on_the_sequences_own_rule_and_records_its_looks() {
        use crate::analysis::sequential::{replay_mean, Rule, PLANNED_BINARIES};
        // Binaries' means spread by about ± 0.3 %: a ± 1 % sequence is met within 12.
        let means: Vec<f64> = (0..12)
            .map(|i| 100.0 + 0.3 * (i as f64 * 1.7).sin())
            .collect();
        let seq_rule = Rule {
            thresholds: Default::default(),
            target: 0.01,
            planned: PLANNED_BINARIES,
        };
        let s = replay_mean(&means, &seq_rule).unwrap();
        assert_eq!(s.reason, Reason::TargetReached);
        let mut log = GrowthLog::new(&rule(), 12);
        assert_eq!(log.next_count(&rule(), 12, std::slice::from_ref(&s)), None);
        assert_eq!(log.outcome.as_deref(), Some("target_met"));
        assert_eq!(log.looks.len(), 8);
        // At 5 binaries the 95 % sequence is not yet bounded: grow by one, do not stop.
        let s = replay_mean(&means[..5], &seq_rule).unwrap();
        assert!(s.at_stop.ci.is_none());
        let mut log = GrowthLog::new(&rule(), 5);
        assert_eq!(log.next_count(&rule(), 5, &[s]), Some(6));
        assert!(log.outcome.is_none());
        // The same data with the rule unmet (a 0.01 % target) grows.
        let tight = Rule {
            target: 0.0001,
            ..seq_rule
        };
        let s = replay_mean(&means, &tight).unwrap();
        let mut log = GrowthLog::new(&rule(), 12);
        assert!(log.next_count(&rule(), 12, &[s]).unwrap() > 12);
        assert!(log.outcome.is_none());
    }

    #[test]
    fn an_uncomputable_interval_stops_the_growth() {
        let mut log = GrowthLog::new(&rule(), 5);
        assert_eq!(log.next_count(&rule(), 5, &[]), None);
        assert_eq!(log.outcome.as_deref(), Some("not_computable"));
    }
}
