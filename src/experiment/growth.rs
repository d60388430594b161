//! Growing the top level of a real experiment on-line until the sequential interval is as
//! narrow as asked or the comparisons reach their verdicts, with the stopping rule recorded.
//!
//! Kalibera & Jones §9.3: the optimal counts of the lower levels do not depend on the number
//! of top-level repetitions, so binaries can be added during the real experiment. Stopping
//! when a fixed-sample interval first looks narrow enough is *optional stopping*, which
//! lowers its coverage (simulated in tests/sequential_calibration.rs: a 95 % t interval
//! checked after every binary from 5 to 40 held at every look in 74 % of experiments). The
//! rule therefore watches Lai's t-mixture confidence sequence tuned to the maximum, at a
//! level calibrated to hold at every look up to it also when a few layouts are much slower
//! ([`crate::analysis::sequential`],
//! [`crate::stats::confidence_sequence::skew_calibrated_sequence`]): the binaries are
//! replayed in seed order with a look after each from 5, and the experiment stops once a look meets the rule, or at a maximum fixed
//! before the experiment. Rounds only batch the building and running: their size is
//! projected from the current width, and looking after every binary inside a round costs
//! no validity. `OUT/stopping.json` records the rule, every round and every look.

pub(crate) use crate::files::stopping::{Growth, GrowthLog, Outcome, Replay, Round, Watched};

use crate::analysis::sequential::{Reason, Sequential, LAI_CALIBRATED};
use crate::analysis::vocabulary::json_word;
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::report::numfmt::percent;

/// The fewest randomised binaries the rule stops at ([`MIN_TOP_LEVEL_UNITS`]).
const MIN_BINARIES: u32 = MIN_TOP_LEVEL_UNITS as u32;

impl GrowthLog {
    /// A log for `rule`, starting with `start` binaries.
    pub(crate) fn new(rule: &Growth, start: u32) -> GrowthLog {
        GrowthLog {
            rule: rule.clone(),
            start_binaries: start,
            rounds: Vec::new(),
            outcome: None,
            method: Some(LAI_CALIBRATED.into()),
            looks: Vec::new(),
            watched: Vec::new(),
            stopped_by: None,
        }
    }

    /// Records every watched sequence, labelled, as the rule sees it after this round (the
    /// same replay `report --sequential` gives), and which one ended the experiment when
    /// every one met its rule: the last to meet it.
    pub(crate) fn record(&mut self, watched: &[(String, Sequential)]) {
        self.watched = watched
            .iter()
            .map(|(label, s)| Watched {
                label: label.clone(),
                confidence: s.confidence,
                reason: s.reason,
                stopped_at: s.stopped_at,
                verdict: s.verdict.map(|v| json_word(&v)),
                direction: s.direction.map(|d| json_word(&d)),
                at_stop: s.at_stop,
                replay: Some(Replay {
                    method: s.method.to_string(),
                    horizon: s.horizon,
                    target: s.target,
                    available: s.available,
                    beyond_horizon: s.beyond_horizon,
                    looks: s.looks,
                    last_look: s.last_look,
                    is_time: s.effect.map(|e| e.is_time),
                    scale: s.scale.clone(),
                }),
                recorded_text: None,
                looks: s.sequence.clone(),
            })
            .collect();
        let all_met = !watched.is_empty() && watched.iter().all(|(_, s)| s.reason != Reason::Cap);
        self.stopped_by = all_met
            .then(|| watched.iter().max_by_key(|(_, s)| s.stopped_at))
            .flatten()
            .map(|(label, _)| label.clone());
    }

    /// Records the round just measured from the watched sequences (the series of the
    /// run's metric, or each comparison of the variants) and returns the next number of
    /// binaries, or `None` when the rule says stop (the outcome is then set): when every
    /// watched sequence met its rule at some look, or at the maximum.
    pub(crate) fn next_count(
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
                    Outcome::TargetMet
                } else {
                    Outcome::VerdictReached
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
        let next = self.next_count_from(rule, binaries, width, stopped)?;
        // A comparison stops as soon as its interval excludes 1, which may come before the
        // target width: batch only as far as the sooner of the two, for every comparison
        // (the round's size costs no validity, only binaries built and run past the stop).
        if watched.is_empty() || binaries < MIN_BINARIES {
            return Some(next);
        }
        let sooner = watched
            .iter()
            .map(|s| toward_verdict(rule, binaries, s))
            .try_fold(0, |most: u32, n| n.map(|n| most.max(n)));
        Some(sooner.map_or(next, |n| n.clamp(binaries + 1, next)))
    }

    /// [`GrowthLog::next_count`] on its summary: the widest relative half-width at the last
    /// look and the outcome when the rule is met.
    ///
    /// The next count is where the sequence's boundary, with the spread seen so far, is
    /// projected to reach the target (`projected`): at least one more binary, at most the
    /// maximum.
    pub(crate) fn next_count_from(
        &mut self,
        rule: &Growth,
        binaries: u32,
        width: Option<f64>,
        stopped: Option<Outcome>,
    ) -> Option<u32> {
        self.rounds.push(Round {
            binaries,
            relative_half_width: width,
        });
        let stop = |log: &mut GrowthLog, outcome: Outcome| {
            log.outcome = Some(outcome);
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
            return stop(self, Outcome::MaxReached);
        }
        let Some(h) = width else {
            return stop(self, Outcome::NotComputable);
        };
        Some(projected(rule, binaries, h))
    }
}

/// The count the watched sequence is projected to need, from its widest relative
/// half-width `h` with `binaries`, the spread staying as seen (the relative half-width on
/// the log scale is `sinh` of the half-width): at least one more binary, the maximum when
/// even that is projected short.
fn projected(rule: &Growth, binaries: u32, h: f64) -> u32 {
    projected_to(rule, binaries, h, rule.target)
}

/// [`projected`] toward the relative half-width `goal`: the calibrated sequence the rule
/// watches (tuned to the maximum, calibrated over looks 5 to it) followed along its own
/// boundary ([`crate::stats::confidence_sequence::skew_calibrated_units_for`]).
fn projected_to(rule: &Growth, binaries: u32, h: f64, goal: f64) -> u32 {
    use crate::stats::confidence_sequence::skew_calibrated_units_for;
    let max = rule.max_binaries as usize;
    let looks = (MIN_TOP_LEVEL_UNITS, max.max(MIN_TOP_LEVEL_UNITS));
    let need = skew_calibrated_units_for(
        h.asinh(),
        binaries as usize,
        goal.asinh(),
        looks,
        rule.confidence,
        looks.1,
        max,
    );
    need.ok().flatten().map_or(rule.max_binaries, |n| n as u32)
}

/// For a comparison, the count at which its interval is projected to exclude 1 if the
/// estimate stays where it is (its half-width on the log scale below `|ln estimate|`) or to
/// reach the target, whichever comes first; `None` for a series or an unbounded look.
fn toward_verdict(rule: &Growth, binaries: u32, s: &Sequential) -> Option<u32> {
    s.effect.as_ref()?;
    let last = s.sequence.last()?;
    let h = last.relative_half_width?;
    let goal = rule.target.max(last.estimate.ln().abs().sinh());
    Some(projected_to(rule, binaries, h, goal))
}

/// A share as a percentage with three significant digits (the project's one formatter),
/// or "not computable".
pub(crate) fn fmt_share(share: Option<f64>) -> String {
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
        // Reference (numpy): Lai's t-mixture half-width √(kQ/(t(t − k))) on the log scale,
        // tuned at the maximum of 40 (ρ = 40 / (−2 ln α + ln(1 − 2 ln α))), Q inverted from
        // the half-width now after 10 binaries and scaled by (m − 1)/9, widths as asinh of
        // the relative half-widths. Over looks 5..40 the calibrated level is α = 0.05
        // itself (the worst shape's quantile is below ln 20); the counts hold for any level
        // in 0.045..0.05. From 10 binaries at 1.8 % the ± 1 % target needs 16; at 1.4 %, 13.
        //   python3 -c "import numpy as np; a=-2*np.log(.05); rho=40/(a+np.log(1+a)); \
        //     al=0.05; K=lambda t: (1-(al*np.sqrt(rho/(t+rho)))**(2/t))*(t+rho); \
        //     hw=lambda t,q: np.sqrt(K(t)*q/(t*(t-K(t)))); h=np.arcsinh(0.018); \
        //     q=h*h*10*(10-K(10))/K(10); \
        //     print(next(m for m in range(11,41) if hw(m,q*(m-1)/9)<=np.arcsinh(0.01)))"  → 16
        let mut log = GrowthLog::new(&rule(), 10);
        assert_eq!(
            log.next_count_from(&rule(), 10, Some(0.018), None),
            Some(16)
        );
        let mut log = GrowthLog::new(&rule(), 10);
        assert_eq!(
            log.next_count_from(&rule(), 10, Some(0.014), None),
            Some(13)
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
        assert_eq!(log.outcome, Some(Outcome::MaxReached));
        assert_eq!(log.rounds.len(), 3);
        insta::assert_snapshot!(crate::report::words::stopping::outcome(&log));
    }

    #[test]
    fn stops_when_met_but_not_below_five_binaries() {
        let mut log = GrowthLog::new(&rule(), 3);
        assert_eq!(log.next_count(&rule(), 3, &[]), Some(5));
        assert_eq!(
            log.next_count_from(&rule(), 5, Some(0.009), Some(Outcome::TargetMet)),
            None
        );
        assert_eq!(log.outcome, Some(Outcome::TargetMet));
        let caveat = crate::report::words::stopping::caveat(&log);
        insta::assert_snapshot!(caveat);
    }

    #[test]
    fn stops_on_the_sequences_own_rule_and_records_its_looks() {
        use crate::analysis::sequential::{replay_mean, Method, Rule};
        // Binaries' means spread by about ± 0.3 %: a ± 1 % sequence is met within 12.
        let means: Vec<f64> = (0..12)
            .map(|i| 100.0 + 0.3 * (i as f64 * 1.7).sin())
            .collect();
        // The rule as `experiment` replays it: the calibrated sequence up to the maximum.
        let seq_rule = Rule {
            thresholds: Default::default(),
            target: 0.01,
            method: Method::LaiCalibrated,
            planned: 40,
            horizon: Some(40),
        };
        let s = replay_mean(&means, &seq_rule).unwrap();
        assert_eq!(s.reason, Reason::TargetReached);
        let mut log = GrowthLog::new(&rule(), 12);
        assert_eq!(log.next_count(&rule(), 12, std::slice::from_ref(&s)), None);
        assert_eq!(log.outcome, Some(Outcome::TargetMet));
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
    fn a_comparison_grows_toward_its_verdict_not_only_the_target() {
        use crate::analysis::sequential::{replay_ratio, Method, Rule};
        // Nine seeds whose ratio new/base is about 0.93 and spreads by about 7 %: bounded
        // (Lai's sequence is not before about 8 binaries), not yet decisive, the ± 1 %
        // target far away, the exclusion of 1 near.
        let base = vec![100.0; 9];
        let new: Vec<f64> = (0..9)
            .map(|i| 93.0 * (1.0 + 0.1 * (i as f64 * 2.3).sin()))
            .collect();
        let seq_rule = Rule {
            thresholds: Default::default(),
            target: 0.01,
            method: Method::LaiCalibrated,
            planned: 40,
            horizon: Some(40),
        };
        let s = replay_ratio(&base, &new, &seq_rule, true).unwrap();
        assert_eq!(
            s.reason,
            Reason::Cap,
            "{}",
            crate::report::words::sequential::words(&s)
        );
        let width = s.sequence.last().unwrap().relative_half_width;
        let far = GrowthLog::new(&rule(), 9)
            .next_count_from(&rule(), 9, width, None)
            .unwrap();
        let next = GrowthLog::new(&rule(), 9)
            .next_count(&rule(), 9, std::slice::from_ref(&s))
            .unwrap();
        assert!(
            next > 9 && next < far,
            "{next} against {far} for the target"
        );
    }

    /// A watched sequence's outcome is stored as data and worded when read: read back from
    /// `stopping.json`, a series (in its unit, past the plan's last look) and a comparison
    /// (its verdict, a time) say what `report --sequential` says of the replay itself; an
    /// earlier log's sentence is read as it was kept.
    #[test]
    fn a_watched_outcome_is_stored_as_data_and_says_what_the_replay_says() {
        use crate::analysis::sequential::{replay_mean, replay_ratio, Method, Rule};
        let seq_rule = Rule {
            thresholds: Default::default(),
            target: 0.01,
            method: Method::LaiCalibrated,
            planned: 8,
            horizon: Some(8),
        };
        let means: Vec<f64> = (0..10)
            .map(|i| 1.0e6 * (1.0 + 0.003 * (i as f64 * 1.7).sin()))
            .collect();
        let series = Sequential {
            scale: Some(crate::units::Scale::for_values("ns", 1.0e6)),
            ..replay_mean(&means, &seq_rule).unwrap()
        };
        assert_eq!(series.beyond_horizon, 2);
        let base = vec![100.0; 9];
        let new: Vec<f64> = (0..9)
            .map(|i| 80.0 * (1.0 + 0.01 * (i as f64 * 2.3).sin()))
            .collect();
        let pair = replay_ratio(&base, &new, &seq_rule, true).unwrap();
        assert_eq!(pair.reason, Reason::Verdict);
        let mut log = GrowthLog::new(&rule(), 5);
        let watched = [
            ("prog wall".to_string(), series),
            ("b against a".to_string(), pair),
        ];
        log.record(&watched);
        let d = tempfile::tempdir().unwrap();
        log.save(d.path()).unwrap();
        let text = std::fs::read_to_string(d.path().join("stopping.json")).unwrap();
        let stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(stored["watched"][0].get("text").is_none(), "{text}");
        let read: GrowthLog = serde_json::from_str(&text).unwrap();
        for (w, (_, s)) in read.watched.iter().zip(&watched) {
            assert_eq!(
                crate::report::words::stopping::watched(w),
                crate::report::words::sequential::words(s)
            );
        }
        let mut earlier = read.watched[0].clone();
        (earlier.replay, earlier.recorded_text) = (None, Some("stopped at 5".into()));
        assert_eq!(
            crate::report::words::stopping::watched(&earlier),
            "stopped at 5"
        );
    }

    /// The reasons and outcomes are enums with the words earlier logs hold as strings: an
    /// earlier `stopping.json` reads into them, and a new one writes the same words.
    #[test]
    fn reasons_and_outcomes_keep_the_words_of_earlier_logs() {
        let reasons = [
            ("target_reached", Reason::TargetReached),
            ("verdict", Reason::Verdict),
            ("cap", Reason::Cap),
        ];
        for (word, reason) in reasons {
            assert_eq!(serde_json::to_value(reason).unwrap(), word);
            assert_eq!(
                serde_json::from_value::<Reason>(word.into()).unwrap(),
                reason
            );
        }
        let outcomes = [
            ("target_met", Outcome::TargetMet),
            ("verdict_reached", Outcome::VerdictReached),
            ("max_reached", Outcome::MaxReached),
            ("not_computable", Outcome::NotComputable),
        ];
        for (word, outcome) in outcomes {
            assert_eq!(serde_json::to_value(outcome).unwrap(), word);
            assert_eq!(
                serde_json::from_value::<Outcome>(word.into()).unwrap(),
                outcome
            );
        }
        assert!(serde_json::from_value::<Outcome>("finished".into()).is_err());
    }

    #[test]
    fn an_uncomputable_interval_stops_the_growth() {
        let mut log = GrowthLog::new(&rule(), 5);
        assert_eq!(log.next_count(&rule(), 5, &[]), None);
        assert_eq!(log.outcome, Some(Outcome::NotComputable));
    }
}
