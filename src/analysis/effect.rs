//! Detectable versus relevant: one classification of a ratio effect with its interval, used
//! by `compare` (both modes) and the report's layout shift (its one wording is
//! `crate::report::words::effect`'s).
//!
//! A ratio `r = new / reference` with a confidence interval `[low, high]` (Fieller, Kalibera &
//! Jones 2013 eq. 5) is *detected* when the interval excludes 1. Detected is not relevant:
//! when the whole interval lies within `1 ± negligible`, the effect is real but too small to
//! matter, and is called "detectable but negligible" (the equivalence reasoning of
//! Schuirmann's two one-sided tests, 1987: an interval inside the margin shows equivalence).

use serde::Serialize;

use super::vocabulary::Thresholds;

/// The one interval type of every answer (defined with the statistics, below the files that
/// record intervals).
pub(crate) use crate::stats::interval::Interval;

/// The answer about one ratio effect.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EffectVerdict {
    /// The whole interval is below 1 by more than the relevance threshold at some point:
    /// lower (faster) detected.
    Lower,
    /// The whole interval is above 1: higher (slower) detected.
    Higher,
    /// Detected (the interval excludes 1) but the whole interval lies within
    /// `1 ± negligible`.
    Negligible,
    /// Not detected, and the whole interval lies within `1 ± negligible`: no relevant
    /// difference.
    Equivalent,
    /// Not detected, and the interval reaches beyond the relevance threshold: the data
    /// cannot tell.
    Inconclusive,
    /// Both sides are exactly equal constants: a tie, no interval needed.
    Tie,
    /// No bounded interval (the reference's interval includes zero, or it cannot be
    /// computed).
    Unbounded,
}

impl EffectVerdict {
    /// The answer to "is there an effect?" in the vocabulary of the other questions
    /// (sensitivity, shift): a relevant change is `detected`, a negligible one `negligible`,
    /// an equivalence or a tie `not_detected`, no answer `undetermined`. One mapping for the
    /// HTML report's boxes and `explain`'s confirmations.
    pub(crate) fn detection(self) -> super::vocabulary::Verdict {
        use super::vocabulary::Verdict;
        match self {
            EffectVerdict::Lower | EffectVerdict::Higher => Verdict::Detected,
            EffectVerdict::Negligible => Verdict::Negligible,
            EffectVerdict::Equivalent | EffectVerdict::Tie => Verdict::NotDetected,
            EffectVerdict::Inconclusive | EffectVerdict::Unbounded => Verdict::Undetermined,
        }
    }

    /// The verdict in one word or phrase, the same in every subcommand: `better`/`worse`
    /// ("faster"/"slower" for times, "lower"/"higher" otherwise) for detected, relevant
    /// effects, then "negligible", "equivalent", "no significant difference", "tie",
    /// "unbounded".
    pub(crate) fn word(self, better: &'static str, worse: &'static str) -> &'static str {
        match self {
            EffectVerdict::Lower => better,
            EffectVerdict::Higher => worse,
            EffectVerdict::Negligible => "negligible",
            EffectVerdict::Equivalent => "equivalent",
            EffectVerdict::Inconclusive => "no significant difference",
            EffectVerdict::Tie => "tie",
            EffectVerdict::Unbounded => "unbounded",
        }
    }
}

/// Which way a comparison came out, in one word: the metric's word for a detected, relevant
/// effect (`faster`/`slower` for times, `lower`/`higher` otherwise), else the verdict's own
/// (`inconclusive` is "no significant difference" in the text formats: [`Direction::word`]).
/// JSON's `direction` beside the pair's `verdict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// A time, lower detected.
    Faster,
    /// A time, higher detected.
    Slower,
    /// Not a time, lower detected.
    Lower,
    /// Not a time, higher detected.
    Higher,
    /// [`EffectVerdict::Negligible`].
    Negligible,
    /// [`EffectVerdict::Equivalent`].
    Equivalent,
    /// [`EffectVerdict::Inconclusive`].
    Inconclusive,
    /// [`EffectVerdict::Tie`].
    Tie,
    /// [`EffectVerdict::Unbounded`].
    Unbounded,
}

impl Direction {
    /// The direction of `verdict` on a metric that is a time (`is_time`) or not.
    pub(crate) fn of(verdict: EffectVerdict, is_time: bool) -> Direction {
        match (verdict, is_time) {
            (EffectVerdict::Lower, true) => Direction::Faster,
            (EffectVerdict::Higher, true) => Direction::Slower,
            (EffectVerdict::Lower, false) => Direction::Lower,
            (EffectVerdict::Higher, false) => Direction::Higher,
            (EffectVerdict::Negligible, _) => Direction::Negligible,
            (EffectVerdict::Equivalent, _) => Direction::Equivalent,
            (EffectVerdict::Inconclusive, _) => Direction::Inconclusive,
            (EffectVerdict::Tie, _) => Direction::Tie,
            (EffectVerdict::Unbounded, _) => Direction::Unbounded,
        }
    }

    /// The word the text formats write: [`EffectVerdict::word`] in the metric's words.
    pub(crate) fn word(self) -> &'static str {
        let (verdict, is_time) = match self {
            Direction::Faster => (EffectVerdict::Lower, true),
            Direction::Slower => (EffectVerdict::Higher, true),
            Direction::Lower => (EffectVerdict::Lower, false),
            Direction::Higher => (EffectVerdict::Higher, false),
            Direction::Negligible => (EffectVerdict::Negligible, true),
            Direction::Equivalent => (EffectVerdict::Equivalent, true),
            Direction::Inconclusive => (EffectVerdict::Inconclusive, true),
            Direction::Tie => (EffectVerdict::Tie, true),
            Direction::Unbounded => (EffectVerdict::Unbounded, true),
        };
        if is_time {
            verdict.word("faster", "slower")
        } else {
            verdict.word("lower", "higher")
        }
    }
}

/// Why an [`EffectVerdict::Unbounded`] effect has no interval: the grounds its words are
/// built from (`crate::report::words::effect`). Not on the wire (the JSON has the verdict).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoInterval {
    /// The interval was computed but reaches zero or below, impossible for a ratio of
    /// positive quantities ([`super::positive::Withheld::BelowZero`]).
    BelowZero,
    /// The ratio is finite but no bounded interval exists.
    NotBounded,
    /// The ratio itself is not finite: the reference's mean is zero or not finite.
    NotComputable,
}

/// A ratio effect with its interval and its verdict, with what its words need (the
/// thresholds it was classified at and whether the metric is a time). The words themselves
/// ("5.5 % faster (95 % CI: 3.0 % to 8.0 % faster)", JSON's `words`) are
/// `crate::report::words::effect`'s, which also writes the effect's JSON.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Effect {
    /// `new / reference`.
    pub ratio: f64,
    /// Its confidence interval; `None` when unbounded or not computable.
    pub ci: Option<Interval>,
    /// The classification at the thresholds used.
    pub verdict: EffectVerdict,
    /// Why there is no interval, for [`EffectVerdict::Unbounded`]; `None` otherwise.
    pub no_interval: Option<NoInterval>,
    /// The thresholds it was classified at: `ci`'s confidence level and the relevance
    /// margin.
    pub thresholds: Thresholds,
    /// Whether the metric is a time: a ratio below 1 is then "faster", else "lower".
    pub is_time: bool,
}

impl Effect {
    /// Classifies `ratio` with its interval `bounds` (`None`: unbounded) at `thresholds`,
    /// on a metric that is a time (`is_time`) or not.
    pub(crate) fn classify(
        ratio: f64,
        bounds: Option<(f64, f64)>,
        thresholds: &Thresholds,
        is_time: bool,
    ) -> Effect {
        let effect = |ci: Option<Interval>, verdict, no_interval| Effect {
            ratio,
            ci,
            verdict,
            no_interval,
            thresholds: *thresholds,
            is_time,
        };
        // A positive ratio is one of positive quantities (times, counts): an interval that
        // reaches zero or below says the data cannot bound it, and is not printed (the one
        // rule, [`super::positive::positive_interval`]).
        let withheld = bounds
            .filter(|_| ratio > 0.0)
            .and_then(|(l, h)| super::positive::positive_interval(l, h).err())
            .filter(|w| *w == super::positive::Withheld::BelowZero);
        if withheld.is_some() {
            let verdict = EffectVerdict::Unbounded;
            return effect(None, verdict, Some(NoInterval::BelowZero));
        }
        let Some((low, high)) = bounds.filter(|(l, h)| l.is_finite() && h.is_finite()) else {
            let why = if ratio.is_finite() {
                NoInterval::NotBounded
            } else {
                NoInterval::NotComputable
            };
            return effect(None, EffectVerdict::Unbounded, Some(why));
        };
        let ci = Some(Interval {
            lower: low,
            upper: high,
        });
        if low == 1.0 && high == 1.0 {
            return effect(ci, EffectVerdict::Tie, None);
        }
        let within = low >= 1.0 - thresholds.negligible && high <= 1.0 + thresholds.negligible;
        let detected = low > 1.0 || high < 1.0;
        let verdict = match (detected, within) {
            (true, true) => EffectVerdict::Negligible,
            (true, false) if high < 1.0 => EffectVerdict::Lower,
            (true, false) => EffectVerdict::Higher,
            (false, true) => EffectVerdict::Equivalent,
            (false, false) => EffectVerdict::Inconclusive,
        };
        effect(ci, verdict, None)
    }

    /// The CI gate of `report` and `compare --fail-if-slower PCT`: true when the whole
    /// interval lies above `1 + fail_if_slower` (new is higher, i.e. slower for a time or a
    /// cost, by more than that share), or for a rate (`is_rate`: MB/s, higher is faster)
    /// below `1 / (1 + fail_if_slower)` (new does the same work in that much more time);
    /// false without a gate or without a bounded interval.
    pub fn slower_beyond(&self, fail_if_slower: Option<f64>, is_rate: bool) -> bool {
        match (fail_if_slower, self.ci) {
            (Some(share), Some(ci)) if is_rate => ci.upper < 1.0 / (1.0 + share),
            (Some(share), Some(ci)) => ci.lower > 1.0 + share,
            _ => false,
        }
    }

    /// Whether the effect is detected at all (including negligible ones).
    pub(crate) fn detected(&self) -> bool {
        matches!(
            self.verdict,
            EffectVerdict::Lower | EffectVerdict::Higher | EffectVerdict::Negligible
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A comparison's `direction` is one snake-case word: the metric's word for a detected
    /// effect, else the verdict's own serde name (never "no significant difference"); the
    /// text's word is the verdict's, and the CSV's (`wire` of the word) is the JSON's.
    #[test]
    fn directions_are_snake_case_words() {
        let all = [
            EffectVerdict::Lower,
            EffectVerdict::Higher,
            EffectVerdict::Negligible,
        ]
        .into_iter()
        .chain([EffectVerdict::Equivalent, EffectVerdict::Inconclusive])
        .chain([EffectVerdict::Tie, EffectVerdict::Unbounded]);
        for v in all {
            for (is_time, better, worse) in [(true, "faster", "slower"), (false, "lower", "higher")]
            {
                let d = Direction::of(v, is_time);
                let json = serde_json::to_value(d).unwrap();
                let want = match v {
                    EffectVerdict::Lower => better.to_string(),
                    EffectVerdict::Higher => worse.to_string(),
                    _ => serde_json::to_value(v)
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .to_string(),
                };
                assert_eq!(json, want.as_str(), "{v:?}");
                assert_eq!(d.word(), v.word(better, worse), "{v:?}");
            }
        }
    }

    fn th() -> Thresholds {
        Thresholds::default()
    }

    #[test]
    fn verdicts() {
        let c = |r, l, h| Effect::classify(r, Some((l, h)), &th(), true).verdict;
        assert_eq!(c(0.8, 0.7, 0.9), EffectVerdict::Lower);
        assert_eq!(c(1.2, 1.1, 1.3), EffectVerdict::Higher);
        assert_eq!(c(1.003, 1.001, 1.005), EffectVerdict::Negligible);
        assert_eq!(c(1.0, 0.995, 1.005), EffectVerdict::Equivalent);
        assert_eq!(c(1.0, 0.9, 1.1), EffectVerdict::Inconclusive);
        assert_eq!(c(1.0, 1.0, 1.0), EffectVerdict::Tie);
        assert_eq!(
            Effect::classify(1.0, None, &th(), true).verdict,
            EffectVerdict::Unbounded
        );
    }

    #[test]
    fn an_interval_of_a_positive_ratio_never_reaches_zero() {
        // Issue 21: "from 276.5 % faster to 294.0 % slower" came from a Fieller interval
        // with a negative lower end.
        let e = Effect::classify(1.1, Some((-1.765, 3.94)), &th(), true);
        assert_eq!(e.verdict, EffectVerdict::Unbounded);
        assert!(e.ci.is_none());
        assert_eq!(e.no_interval, Some(NoInterval::BelowZero));
    }
}
