//! "How did the experiment decide how many binaries?" in words: the rule of an experiment
//! whose top level grew on-line (`stopping.json`, [`GrowthLog`]) with its optional-stopping
//! caveat, and how it stopped. Built from the log's rule, method, rounds and watched
//! sequences; the log itself stores none of these sentences.

use crate::analysis::effect::{Effect, EffectVerdict};
use crate::analysis::sequential::{Method, Sequential};
use crate::analysis::sequential::{Reason, LAI_T_MIXTURE, REPEATED_T};
use crate::analysis::vocabulary::Thresholds;
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::files::stopping::{GrowthLog, Outcome, Watched};
use crate::report::numfmt::{level, percent};

super::on_the_wire!(GrowthLog {
    caveat: String = caveat
});
super::on_the_wire!(Watched {
    text: String = watched
});

/// What the stopping rule means for the intervals, for the method the log was grown by:
/// with a sequential interval, that it holds at every look; before the rule was sequential
/// (no method), that optional stopping lowered the fixed interval's coverage.
pub(crate) fn caveat(g: &GrowthLog) -> String {
    let (rule, first) = (&g.rule, MIN_TOP_LEVEL_UNITS);
    let (target, most, level) = (
        percent(rule.target, 3),
        rule.max_binaries,
        level(rule.confidence),
    );
    let grown = "The number of randomised binaries was not fixed in advance: binaries were \
                 added in rounds";
    let stop = "so the look at which the experiment stopped (optional stopping) keeps its";
    let fixed = "the report's fixed-sample intervals (Kalibera & Jones eq. 4) beside it do not \
                 have that guarantee under such a stop and are approximate.";
    match g.method.as_deref() {
        None => format!(
            "{grown} until the {level} confidence interval's relative half-width was at most \
             {target} (between {first} and {most} binaries). Stopping when an interval first \
             looks narrow enough (optional stopping) makes its real coverage somewhat lower \
             than the nominal {level}; treat the interval as approximate, or repeat the \
             experiment with the final count fixed in advance."
        ),
        Some(REPEATED_T) => format!(
            "{grown}, with a look after each binary from the {first}th, until the {level} \
             repeated confidence interval's relative half-width was at most {target} or, \
             comparing variants, every comparison's interval reached a verdict (at most \
             {most} binaries, fixed in advance). The repeated intervals (Pocock's boundary with \
             Student's t, one level for every look from the {first}th to the maximum) hold at \
             every one of those looks at once, {stop} {level} level; {fixed}"
        ),
        Some(LAI_T_MIXTURE) => format!(
            "{grown}, with a look after each binary from the {first}th, until the {level} \
             confidence sequence's relative half-width was at most {target} or, comparing \
             variants, every comparison's sequence reached a verdict (at most {most} \
             binaries). The sequence holds at every look at once, {stop} {level} level; \
             {fixed}"
        ),
        Some(_) => format!(
            "{grown}, with a look after each binary from the {first}th, until the {level} \
             confidence sequence's relative half-width was at most {target} or, comparing \
             variants, every comparison's interval reached a verdict (at most {most} \
             binaries, fixed in advance). The confidence sequence (Lai's t-mixture tuned to \
             the maximum, its level calibrated to hold also when a few layouts are much \
             slower) holds at every one of the looks from the {first}th to the maximum at \
             once, {stop} {level} level; {fixed}"
        ),
    }
}

/// One sentence on how the experiment stopped, or how far it has grown.
pub(crate) fn outcome(g: &GrowthLog) -> String {
    let last = g.rounds.last();
    let n = last.map_or(0, |r| r.binaries);
    let width = (last.and_then(|r| r.relative_half_width))
        .map_or("not computable".to_string(), |h| percent(h, 3));
    let what = if g.method.as_deref() == Some(REPEATED_T) {
        "repeated interval's relative half-width"
    } else if g.method.is_some() {
        "confidence sequence's relative half-width"
    } else {
        "relative half-width"
    };
    let rounds = g.rounds.len();
    match g.outcome {
        Some(Outcome::TargetMet) => format!(
            "target precision met: the {what} reached {} with at most {n} binaries after \
             {rounds} round(s) (now {width}){}",
            percent(g.rule.target, 3),
            stopped_by(g)
        ),
        Some(Outcome::VerdictReached) => format!(
            "every comparison met its rule (a verdict: faster, slower, or equivalent within \
             the relevance threshold; or the target precision) with at most {n} binaries \
             after {rounds} round(s){}",
            stopped_by(g)
        ),
        Some(Outcome::MaxReached) => format!(
            "target precision NOT met: {what} {width} with the maximum of {n} binaries \
             (target {}){}",
            percent(g.rule.target, 3),
            undecided(g)
        ),
        Some(Outcome::NotComputable) => {
            format!("stopped: the interval is not computable with {n} binaries")
        }
        None => format!("growing: {n} binaries so far, {what} {width}"),
    }
}

/// "; the last to meet it was O3 against O2 (prog wall): stopped at 6 of 9 binaries …",
/// the watched sequence that met its rule last; empty when none did.
fn stopped_by(g: &GrowthLog) -> String {
    let Some(label) = &g.stopped_by else {
        return String::new();
    };
    let text = (g.watched.iter())
        .find(|w| &w.label == label)
        .map(watched)
        .unwrap_or_default();
    format!("; the last to meet it was {label}: {text}")
}

/// At the maximum, what each comparison that reached no verdict says there ("; O3 against
/// O2 (prog wall): stopped at 30 of 30 binaries …: no significant difference …"); empty for
/// a series, whose width the sentence already gives.
fn undecided(g: &GrowthLog) -> String {
    (g.watched.iter())
        .filter(|w| w.verdict.is_some() && w.reason == Reason::Cap)
        .map(|w| format!("; {}: {}", w.label, watched(w)))
        .collect()
}

/// The outcome of a watched sequence in one sentence, as `report --sequential` says it
/// (a log of an earlier version: the sentence it kept).
pub(crate) fn watched(w: &Watched) -> String {
    let Some(r) = &w.replay else {
        return w.recorded_text.clone().unwrap_or_default();
    };
    // The log keeps the verdict in the one ratio vocabulary, as the wire writes it.
    let verdict: Option<EffectVerdict> = (w.verdict.as_deref())
        .and_then(|v| serde_json::from_value(serde_json::Value::from(v)).ok());
    let effect = match (verdict, r.is_time) {
        (Some(verdict), Some(is_time)) => Some(Effect {
            ratio: w.at_stop.estimate,
            ci: w.at_stop.ci,
            verdict,
            no_interval: None,
            thresholds: Thresholds::default(),
            is_time,
        }),
        _ => None,
    };
    super::sequential::words(&Sequential {
        method: Method::named(&r.method).map_or("", Method::name),
        horizon: r.horizon,
        confidence: w.confidence,
        target: r.target,
        planned_binaries: r.horizon.unwrap_or(r.available),
        stopped_at: w.stopped_at,
        available: r.available,
        beyond_horizon: r.beyond_horizon,
        looks: r.looks,
        at_stop: w.at_stop,
        effect,
        verdict,
        direction: None,
        reason: w.reason,
        scale: r.scale.clone(),
        last_look: r.last_look,
        sequence: Vec::new(),
    })
}
