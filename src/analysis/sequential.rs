//! Anytime-valid sequential experiments (issue 27): replay the randomised binaries in seed
//! order, look after each one from [`MIN_TOP_LEVEL_UNITS`], and stop when the interval is
//! as narrow as asked, when a comparison reaches a verdict, or when the binaries run out.
//!
//! Looking after every binary and stopping on what one sees is optional stopping: a
//! fixed-sample t interval then misses far more often than its level says (the calibration
//! in tests/sequential_calibration.rs measures it). The intervals here are a confidence
//! sequence ([`crate::stats::confidence_sequence`], Lai's t-mixture): at the level asked
//! they hold at every look at once, so the look at which one stops is as valid as any.
//!
//! The unit is the binary (seed): executions and iterations per binary are fixed
//! beforehand, so the binaries' means are i.i.d. (Kalibera & Jones 2013 §9.3). Means of
//! times and counts are positive, and so are ratios, so the sequence is computed on the log
//! scale and exponentiated, which keeps every bound positive: for one series it bounds the
//! geometric mean of the binaries' means; for a pair of variants, the geometric mean of the
//! per-seed ratios `new / base` (seeds matched, as in the paired analysis).

use serde::Serialize;

use super::effect::{wire, Effect, EffectVerdict, Interval};
use super::numfmt::{change_parts, level, percent, Scale};
use super::vocabulary::{Thresholds, MIN_TOP_LEVEL_UNITS};
use crate::stats::confidence_sequence::{sequence, SequenceInterval};
use crate::stats::repeated_t;
use crate::stats::StatsError;

/// The number of binaries at which the sequence is tuned to be tightest (its mixing
/// parameter, [`crate::stats::confidence_sequence::mixing_for`]) when nothing better is
/// known: the 20 of Kalibera & Jones' initial experiment (§9.1). `report --sequential`
/// tunes it to the store's size instead
/// ([`crate::analysis::report::sequential::tuned_to_store`]); growth logs of the version
/// that watched Lai's mixture were tuned here.
pub const PLANNED_BINARIES: usize = 20;

/// The relative half-width at which `report --sequential` stops a series when no
/// `--target` is given.
pub const DEFAULT_TARGET: f64 = 0.01;

/// The stopping rule, fixed before the first look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// Confidence of the sequence and the relevance threshold of the verdicts.
    pub thresholds: Thresholds,
    /// Stop once the relative half-width is at most this share.
    pub target: f64,
    /// The binaries the sequence is tuned for (Lai's mixture only).
    pub planned: usize,
    /// The most binaries there will ever be, fixed before the first look (an experiment's
    /// `max_binaries`): the looks are then Pocock-type repeated t intervals over
    /// [`MIN_TOP_LEVEL_UNITS`]`..=horizon` ([`crate::stats::repeated_t`]), which spend the
    /// whole error rate on those looks and are narrower; `None`: no horizon, Lai's mixture,
    /// valid for any number of looks.
    pub horizon: Option<usize>,
}

impl Rule {
    /// The method's name in the JSON (`method`).
    pub fn method(&self) -> &'static str {
        match self.horizon {
            Some(_) => REPEATED_T,
            None => LAI_T_MIXTURE,
        }
    }
}

/// `method` of Lai's t-mixture confidence sequence.
pub const LAI_T_MIXTURE: &str = "lai_t_mixture";
/// `method` of the repeated t intervals over a horizon fixed in advance.
pub const REPEATED_T: &str = "repeated_t";

/// Why the replay stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The relative half-width reached the target.
    TargetReached,
    /// A comparison's sequence is wholly faster, slower, or within ± negligible.
    Verdict,
    /// Every binary was used without meeting the rule.
    Cap,
}

/// The confidence sequence at one look (defined with the stopping log that records looks).
pub use crate::files::stopping::Look;

/// The sequential answer for one series or one comparison.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Sequential {
    /// "lai_t_mixture" (the confidence sequence of [`crate::stats::confidence_sequence`],
    /// valid for any number of looks) or "repeated_t" (repeated t intervals over a horizon
    /// fixed in advance, [`crate::stats::repeated_t`]).
    pub method: &'static str,
    /// The horizon of the repeated t intervals (the most binaries); absent for Lai's mixture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub horizon: Option<usize>,
    /// Confidence of the sequence (time-uniform).
    pub confidence: f64,
    /// The target relative half-width.
    pub target: f64,
    /// The binaries the sequence is tuned for.
    pub planned_binaries: usize,
    /// Binaries used when it stopped.
    pub stopped_at: usize,
    /// Binaries available (the cap): with a horizon, at most the horizon.
    pub available: usize,
    /// Binaries measured past the horizon (repeated t only): outside the plan fixed before
    /// the first look, so not looked at (the looks up to the horizon stay valid); 0 when
    /// every binary is inside the plan.
    pub beyond_horizon: usize,
    /// Looks taken up to the stop (one after each binary from the minimum).
    pub looks: usize,
    /// The look at the stop.
    pub at_stop: Look,
    /// Comparisons only: the sequence's interval classified at the thresholds.
    pub effect: Option<Effect>,
    /// Comparisons only: the effect's verdict at the stop, in the one ratio vocabulary
    /// (`lower`, `higher`, `negligible`, `equivalent`, `inconclusive`, `unbounded`): the
    /// same as `effect.verdict`, as a pair's `verdict` is.
    pub verdict: Option<EffectVerdict>,
    /// Comparisons only: the verdict in the words of the metric ("faster"/"slower" for
    /// times, "lower"/"higher" otherwise, else the verdict's word). JSON: snake case
    /// (`inconclusive`), as a pair's `direction`.
    #[serde(serialize_with = "wire_direction")]
    pub direction: Option<&'static str>,
    /// Why it stopped.
    pub reason: Reason,
    /// The outcome in one sentence.
    pub text: String,
    /// The sequence at every look over all the binaries available, also after the stop
    /// (valid there too): what the plots draw.
    pub sequence: Vec<Look>,
}

/// Replays the binaries' means of one series (in seed order); `scale` is the unit its
/// sentence gives them in (the series' section's, [`crate::analysis::report::model::SeriesReport::scale`]).
pub fn replay_mean(means: &[f64], rule: &Rule, scale: &Scale) -> Result<Sequential, StatsError> {
    let logs = logs_of_positive(means, "the binaries' means")?;
    let looks = looks(&logs, rule)?;
    let stop = looks
        .iter()
        .position(|l| l.relative_half_width.is_some_and(|h| h <= rule.target));
    let (index, reason) = match stop {
        Some(i) => (i, Reason::TargetReached),
        None => (looks.len() - 1, Reason::Cap),
    };
    Ok(finish(
        looks,
        logs.len(),
        index,
        reason,
        Outcome::Mean(scale),
        rule,
    ))
}

/// Replays the per-seed ratios `new[s] / base[s]` of matched seeds (in seed order);
/// `better`/`worse` name a ratio below/above 1 ("faster"/"slower" for times).
pub fn replay_ratio(
    base: &[f64],
    new: &[f64],
    rule: &Rule,
    better: &'static str,
    worse: &'static str,
) -> Result<Sequential, StatsError> {
    if base.len() != new.len() {
        return Err(StatsError::Domain(format!(
            "matched seeds need equal counts, got {} and {}",
            base.len(),
            new.len()
        )));
    }
    let ratios: Vec<f64> = base.iter().zip(new).map(|(b, n)| n / b).collect();
    let logs = logs_of_positive(&ratios, "the per-seed ratios")?;
    let looks = looks(&logs, rule)?;
    let classify = |l: &Look| {
        let bounds = l.ci.map(|c| (c.lower, c.upper));
        Effect::classify(l.estimate, bounds, &rule.thresholds, better, worse)
    };
    // A verdict stops the replay; so does the target, since a sequence that narrow will
    // not reach one soon.
    let stop = looks.iter().position(|l| {
        decisive(classify(l).verdict) || l.relative_half_width.is_some_and(|h| h <= rule.target)
    });
    let (index, reason) = match stop {
        Some(i) if decisive(classify(&looks[i]).verdict) => (i, Reason::Verdict),
        Some(i) => (i, Reason::TargetReached),
        None => (looks.len() - 1, Reason::Cap),
    };
    let classified = Classified {
        effect: classify(&looks[index]),
        better,
        worse,
    };
    Ok(finish(
        looks,
        logs.len(),
        index,
        reason,
        Outcome::Ratio(classified),
        rule,
    ))
}

/// Whether a comparison's verdict ends the experiment: faster, slower, or within
/// ± negligible (detected but negligible, or equivalent in the sense of two one-sided tests).
fn decisive(verdict: EffectVerdict) -> bool {
    matches!(
        verdict,
        EffectVerdict::Lower
            | EffectVerdict::Higher
            | EffectVerdict::Negligible
            | EffectVerdict::Equivalent
    )
}

/// Logs of positive values; a value at or below zero has no log and makes the geometric
/// mean meaningless, so it refuses rather than drop it.
fn logs_of_positive(values: &[f64], what: &str) -> Result<Vec<f64>, StatsError> {
    if let Some(v) = values.iter().find(|v| !(**v > 0.0 && v.is_finite())) {
        return Err(StatsError::Degenerate(format!(
            "{what} must be positive for the sequence on the log scale (one is {v})"
        )));
    }
    Ok(values.iter().map(|v| v.ln()).collect())
}

/// The sequence at every look from [`MIN_TOP_LEVEL_UNITS`], back on the original scale.
/// With a horizon, binaries past it are outside the plan: the looks stop at the horizon
/// (they stay valid there), and [`Sequential::beyond_horizon`] counts the rest.
fn looks(logs: &[f64], rule: &Rule) -> Result<Vec<Look>, StatsError> {
    let confidence = rule.thresholds.confidence;
    let cs = match rule.horizon {
        Some(last) => {
            let planned = &logs[..logs.len().min(last)];
            repeated_t::sequence(planned, MIN_TOP_LEVEL_UNITS, last, confidence)?
        }
        None => sequence(logs, MIN_TOP_LEVEL_UNITS, confidence, rule.planned)?,
    };
    Ok(cs.iter().map(look).collect())
}

fn look(s: &SequenceInterval) -> Look {
    let estimate = s.mean.exp();
    let ci = s.bounds.map(|(lo, hi)| Interval {
        lower: lo.exp(),
        upper: hi.exp(),
    });
    Look {
        binaries: s.n,
        estimate,
        ci,
        relative_half_width: ci.map(|c| (c.upper - c.lower) / (2.0 * estimate)),
    }
}

/// The classification of a comparison's look and the words of its directions.
struct Classified {
    effect: Effect,
    better: &'static str,
    worse: &'static str,
}

/// What a replay answers: a series' mean, in its unit, or a ratio with its verdict.
enum Outcome<'a> {
    Mean(&'a Scale),
    Ratio(Classified),
}

/// The answer at look `index` of `looks`, over `measured` binaries (more than the looks
/// cover when some are past the horizon).
fn finish(
    looks: Vec<Look>,
    measured: usize,
    index: usize,
    reason: Reason,
    outcome: Outcome,
    rule: &Rule,
) -> Sequential {
    let at_stop = looks[index];
    let available = looks.last().map_or(0, |l| l.binaries);
    let beyond_horizon = measured.saturating_sub(available);
    let mut text = sentence(&looks, index, reason, &outcome, rule);
    if let (Some(last), 1..) = (rule.horizon, beyond_horizon) {
        let later = match beyond_horizon {
            1 => "1 later binary is".to_string(),
            n => format!("{n} later binaries are"),
        };
        text.push_str(&format!(
            "; {later} outside the plan (past the maximum of {last} fixed before the first look) and not in the sequence"
        ));
    }
    let classified = match outcome {
        Outcome::Ratio(c) => Some(c),
        Outcome::Mean(_) => None,
    };
    Sequential {
        method: rule.method(),
        horizon: rule.horizon,
        confidence: rule.thresholds.confidence,
        target: rule.target,
        planned_binaries: rule.planned,
        stopped_at: at_stop.binaries,
        available,
        beyond_horizon,
        looks: index + 1,
        at_stop,
        verdict: classified.as_ref().map(|c| c.effect.verdict),
        direction: classified
            .as_ref()
            .map(|c| c.effect.verdict.word(c.better, c.worse)),
        effect: classified.map(|c| c.effect),
        reason,
        text,
        sequence: looks,
    }
}

/// Writes a [`Sequential::direction`] as the machine formats do ([`wire`]).
fn wire_direction<S: serde::Serializer>(
    direction: &Option<&'static str>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match direction {
        Some(word) => s.serialize_str(wire(word)),
        None => s.serialize_none(),
    }
}

/// "stopped at 12 of 30 binaries (8 looks): a verdict was reached: faster, 3.1 % faster
/// (95 % confidence sequence: 1.2 % to 5.0 % faster)".
fn sentence(
    looks: &[Look],
    index: usize,
    reason: Reason,
    outcome: &Outcome,
    rule: &Rule,
) -> String {
    let at = &looks[index];
    let why = match reason {
        Reason::TargetReached => format!(
            "the relative half-width reached the target of ± {}",
            percent(rule.target, 2)
        ),
        Reason::Verdict => "a verdict was reached".to_string(),
        Reason::Cap => "every binary was used without reaching the target or a verdict".into(),
    };
    let cs = match rule.horizon {
        Some(last) => format!(
            "{} repeated confidence interval (looks {MIN_TOP_LEVEL_UNITS} to {last})",
            level(rule.thresholds.confidence)
        ),
        None => format!("{} confidence sequence", level(rule.thresholds.confidence)),
    };
    let answer = match (at.ci, outcome) {
        (Some(ci), Outcome::Ratio(c)) => {
            let (head, bounds) =
                change_parts(c.effect.ratio, ci.lower, ci.upper, 1.0, c.better, c.worse);
            // change_parts names its interval "… CI: bounds"; this one is a sequence.
            let bounds = bounds.split_once(": ").map_or(bounds.as_str(), |(_, b)| b);
            format!(
                "{}: {head} ({cs}: {bounds})",
                c.effect.verdict.word(c.better, c.worse)
            )
        }
        (Some(ci), Outcome::Mean(scale)) => {
            let (lower, upper) = scale.bounds(ci.lower, ci.upper);
            let half = at
                .relative_half_width
                .map(|h| format!(", ± {}", percent(h, 2)))
                .unwrap_or_default();
            format!(
                "geometric mean of the binaries' means {} ({cs}: {lower} to {upper}{half})",
                scale.quantity_digits(at.estimate, 6),
            )
        }
        (None, _) => format!("cannot tell: the {cs} is not yet bounded"),
    };
    let looks_taken = match index + 1 {
        1 => "1 look".to_string(),
        n => format!("{n} looks"),
    };
    format!(
        "stopped at {} of {} binaries ({looks_taken}): {why}; {answer}",
        at.binaries,
        looks.last().map_or(0, |l| l.binaries),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A series' sentence gives its mean and interval in the unit of its section, never as
    /// a bare number in the stored unit ("1,020,000" for 1.02 ms stored in ns).
    #[test]
    fn a_series_sentence_carries_its_unit() {
        let means: Vec<f64> = (0..12)
            .map(|i| 1.02e6 * (1.0 + 0.003 * (i as f64 * 1.7).sin()))
            .collect();
        let rule = Rule {
            thresholds: Default::default(),
            target: 0.01,
            planned: PLANNED_BINARIES,
            horizon: None,
        };
        let scale = Scale::for_values("ns", 1.02e6);
        let s = replay_mean(&means, &rule, &scale).unwrap();
        assert_eq!(s.reason, Reason::TargetReached, "{}", s.text);
        let ci = s.at_stop.ci.unwrap();
        let (lower, upper) = scale.bounds(ci.lower, ci.upper);
        assert!(
            lower.ends_with(" ms") && upper.ends_with(" ms"),
            "{lower} {upper}"
        );
        let expected = format!(
            "geometric mean of the binaries' means {} (",
            scale.quantity_digits(s.at_stop.estimate, 6)
        );
        assert!(s.text.contains(&expected), "{}", s.text);
        assert!(
            s.text.contains(&format!(": {lower} to {upper}, ± ")),
            "{}",
            s.text
        );
        assert!(
            s.text.contains(" ms") && !s.text.contains("1,0"),
            "{}",
            s.text
        );
    }
}
