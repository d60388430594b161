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

use super::effect::{Direction, Effect, EffectVerdict, Interval};
use super::vocabulary::{Thresholds, MIN_TOP_LEVEL_UNITS};
use crate::stats::confidence_sequence::{
    sequence, skew_calibrated_sequence, SequenceInterval, MAX_LOOKS, NO_HORIZON_LOOKS,
};
use crate::stats::repeated_t;
use crate::stats::StatsError;

/// The number of binaries at which Lai's mixture was tuned by the first growth rule
/// (`stopping.json` of method [`Method::LaiTMixture`]), replayed as that rule saw it: the 20
/// of Kalibera & Jones' initial experiment (§9.1).
pub const PLANNED_BINARIES: usize = 20;

/// The relative half-width at which `report --sequential` stops a series when no
/// `--target` is given.
pub const DEFAULT_TARGET: f64 = 0.01;

/// The family of sequential intervals a replay uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The engine: Lai's t-mixture tuned to the horizon (or the store's size) at the Ville
    /// level calibrated on skewed layout shapes
    /// ([`crate::stats::confidence_sequence::skew_calibrated_sequence`]): it holds at every
    /// look at once also when a few layouts are much slower, where the repeated t
    /// intervals' normal calibration does not (docs/sequential.md, "Skewed layouts").
    LaiCalibrated,
    /// Pocock-type repeated t intervals over looks up to a horizon
    /// ([`crate::stats::repeated_t`]): stores grown by the rule before the calibrated one,
    /// replayed as that rule saw them.
    RepeatedT,
    /// Lai's t-mixture at the nominal level tuned at [`PLANNED_BINARIES`]: stores grown by
    /// the first sequential rule, replayed as it saw them.
    LaiTMixture,
}

impl Method {
    /// The method's name in the JSON (`method`) and in `stopping.json`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::LaiCalibrated => LAI_CALIBRATED,
            Method::RepeatedT => REPEATED_T,
            Method::LaiTMixture => LAI_T_MIXTURE,
        }
    }

    /// The method named `name` (as [`Method::name`] writes it).
    pub(crate) fn named(name: &str) -> Option<Method> {
        [
            Method::LaiCalibrated,
            Method::RepeatedT,
            Method::LaiTMixture,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }
}

/// The stopping rule, fixed before the first look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// Confidence of the sequence and the relevance threshold of the verdicts.
    pub thresholds: Thresholds,
    /// Stop once the relative half-width is at most this share.
    pub target: f64,
    /// The family of intervals.
    pub method: Method,
    /// The binaries Lai's mixture is tuned for when there is no horizon (the store's size,
    /// or [`PLANNED_BINARIES`] for [`Method::LaiTMixture`]).
    pub planned: usize,
    /// The most binaries there will ever be, fixed before the first look (an experiment's
    /// `max_binaries`): the looks stop there, the calibrated sequence is tuned and
    /// calibrated over [`MIN_TOP_LEVEL_UNITS`]`..=horizon` (the repeated t intervals spend
    /// their whole error rate on those looks). `None`: no horizon; the calibrated sequence
    /// is then calibrated over looks up to [`NO_HORIZON_LOOKS`] (or the store's size when
    /// larger), valid for a size chosen by looking up to it.
    pub horizon: Option<usize>,
}

impl Rule {
    /// The method's name in the JSON (`method`).
    pub(crate) fn method(&self) -> &'static str {
        self.method.name()
    }

    /// The binaries the mixture is tuned for: the horizon when there is one (calibrated
    /// sequence), else [`Rule::planned`].
    pub(crate) fn tuned_for(&self) -> usize {
        match (self.method, self.horizon) {
            (Method::LaiCalibrated, Some(h)) => h,
            _ => self.planned,
        }
    }

    /// The last look the plan covers: the horizon, or for the calibrated sequence without
    /// one the last look its level is calibrated for: [`NO_HORIZON_LOOKS`], or the store's
    /// size when larger (a size no one chooses by looking), at most [`MAX_LOOKS`].
    pub(crate) fn last_look(&self) -> Option<usize> {
        match (self.method, self.horizon) {
            (_, Some(h)) => Some(h),
            (Method::LaiCalibrated, None) => Some(self.planned.clamp(NO_HORIZON_LOOKS, MAX_LOOKS)),
            (_, None) => None,
        }
    }
}

/// `method` of the skew-calibrated Lai t-mixture, the engine of every sequential answer.
pub(crate) const LAI_CALIBRATED: &str = "lai_calibrated";
/// `method` of Lai's t-mixture at the nominal level (stores grown by the first rule).
pub(crate) const LAI_T_MIXTURE: &str = "lai_t_mixture";
/// `method` of the repeated t intervals over a horizon (stores grown by the second rule).
pub(crate) const REPEATED_T: &str = "repeated_t";

/// Why the replay stopped (defined with the stopping log that records it).
pub use crate::files::stopping::Reason;

/// The confidence sequence at one look (defined with the stopping log that records looks).
pub(crate) use crate::files::stopping::Look;

/// The sequential answer for one series or one comparison.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The outcome in one sentence."
))]
pub struct Sequential {
    /// [`Method::name`]: "lai_calibrated" (the engine), or for stores grown by an earlier
    /// rule "repeated_t" or "lai_t_mixture".
    pub method: &'static str,
    /// The horizon (the most binaries, fixed before the first look); absent without one.
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
    /// Binaries measured past the horizon (or, without one, past the [`MAX_LOOKS`] the
    /// calibrated level covers at most): outside the plan, so not looked at (the looks up to it stay
    /// valid); 0 when every binary is inside the plan.
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
    /// Comparisons only: the verdict in the words of the metric (`faster`/`slower` for
    /// times, `lower`/`higher` otherwise, else the verdict's own), as a pair's `direction`.
    pub direction: Option<Direction>,
    /// Why it stopped.
    pub reason: Reason,
    /// A series' scale (its section's unit, chosen for its mean), in which its words give
    /// the mean; `None` for a comparison, whose words give a ratio.
    #[serde(skip)]
    pub scale: Option<crate::units::Scale>,
    /// The last look the plan covers ([`Rule::last_look`]): binaries past it are counted in
    /// [`Self::beyond_horizon`]; `None` when the plan has no last look.
    #[serde(skip)]
    pub last_look: Option<usize>,
    /// The sequence at every look over all the binaries available, also after the stop
    /// (valid there too): what the plots draw.
    pub sequence: Vec<Look>,
}

/// A series or comparison `report --sequential` could not replay (a warning of the
/// report, in words in `crate::report::words::sequential`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unreplayed {
    /// Program.
    pub(crate) program: String,
    /// Metric.
    pub(crate) metric: String,
    /// What was not replayed.
    pub(crate) subject: Unreplayable,
    /// Why.
    pub(crate) error: StatsError,
}

/// The replay that failed: one series' binaries' means, or a comparison's per-seed ratios.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unreplayable {
    /// A series, of `variant` when the experiment has variants.
    Series {
        /// The variant; `None` without variants.
        variant: Option<String>,
    },
    /// The comparison of variant `new` against `base`.
    Pair {
        /// The base variant.
        base: String,
        /// The new variant.
        new: String,
    },
}

/// Replays the binaries' means of one series (in seed order).
pub fn replay_mean(means: &[f64], rule: &Rule) -> Result<Sequential, StatsError> {
    let logs = logs_of_positive(means, "the binaries' means")?;
    let looks = looks(&logs, rule)?;
    let stop = looks
        .iter()
        .position(|l| l.relative_half_width.is_some_and(|h| h <= rule.target));
    let (index, reason) = match stop {
        Some(i) => (i, Reason::TargetReached),
        None => (looks.len() - 1, Reason::Cap),
    };
    Ok(finish(looks, logs.len(), index, reason, None, rule))
}

/// Replays the per-seed ratios `new[s] / base[s]` of matched seeds (in seed order) of a
/// metric that is a time (`is_time`) or not.
pub fn replay_ratio(
    base: &[f64],
    new: &[f64],
    rule: &Rule,
    is_time: bool,
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
        Effect::classify(l.estimate, bounds, &rule.thresholds, is_time)
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
    let classified = classify(&looks[index]);
    Ok(finish(
        looks,
        logs.len(),
        index,
        reason,
        Some(classified),
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
/// Binaries past the rule's last look are outside the plan: the looks stop there (they
/// stay valid), and [`Sequential::beyond_horizon`] counts the rest.
fn looks(logs: &[f64], rule: &Rule) -> Result<Vec<Look>, StatsError> {
    let confidence = rule.thresholds.confidence;
    let planned = &logs[..logs.len().min(rule.last_look().unwrap_or(usize::MAX))];
    let first = MIN_TOP_LEVEL_UNITS;
    let cs = match (rule.method, rule.last_look()) {
        (Method::LaiCalibrated, Some(last)) => {
            skew_calibrated_sequence(planned, first, last, confidence, rule.tuned_for())?
        }
        (Method::RepeatedT, Some(last)) => repeated_t::sequence(planned, first, last, confidence)?,
        (Method::RepeatedT, None) => {
            return Err(StatsError::Domain(
                "repeated t intervals need a horizon fixed before the first look".into(),
            ))
        }
        (Method::LaiTMixture | Method::LaiCalibrated, _) => {
            sequence(planned, first, confidence, rule.planned)?
        }
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

/// The answer at look `index` of `looks`, over `measured` binaries (more than the looks
/// cover when some are past the horizon); `classified` for a comparison.
fn finish(
    looks: Vec<Look>,
    measured: usize,
    index: usize,
    reason: Reason,
    classified: Option<Effect>,
    rule: &Rule,
) -> Sequential {
    let at_stop = looks[index];
    let available = looks.last().map_or(0, |l| l.binaries);
    Sequential {
        method: rule.method(),
        horizon: rule.horizon,
        confidence: rule.thresholds.confidence,
        target: rule.target,
        planned_binaries: rule.tuned_for(),
        stopped_at: at_stop.binaries,
        available,
        beyond_horizon: measured.saturating_sub(available),
        looks: index + 1,
        at_stop,
        verdict: classified.map(|e| e.verdict),
        direction: classified.map(|e| Direction::of(e.verdict, e.is_time)),
        effect: classified,
        reason,
        scale: None,
        last_look: rule.last_look(),
        sequence: looks,
    }
}
