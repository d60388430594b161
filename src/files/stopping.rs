//! `OUT/stopping.json`: the stopping rule of an experiment whose number of randomised
//! binaries grew on-line, and each round (written by `layoutrand experiment`, shown by
//! `report`). The growth logic is in `crate::experiment::growth`.

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

/// File (in the output directory) recording the stopping rule and each round.
pub(crate) const STOPPING_FILE: &str = "stopping.json";

/// The growth rule, fixed before the experiment starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Growth {
    /// Target relative half-width (0.01 for 1 %).
    pub(crate) target: f64,
    /// Confidence level of the interval.
    pub(crate) confidence: f64,
    /// The fixed maximum of randomised binaries.
    pub(crate) max_binaries: u32,
    /// Metric whose interval is watched.
    pub(crate) metric: String,
}

/// One round: the binaries measured and the width of the watched interval with them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Round {
    /// Randomised binaries measured so far.
    pub(crate) binaries: u32,
    /// Relative half-width of the watched sequential interval after this round (the widest
    /// when several comparisons are watched; `None`: not computable).
    pub(crate) relative_half_width: Option<f64>,
}

/// The record of an on-line grown experiment. Its JSON in a report carries its caveat in
/// words beside it (`crate::report::words::stopping`); the file holds none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "caveat",
    crate::wire::Shape::Sentence,
    "What the stopping rule means for the intervals: with a sequential interval, that they hold at every look (older logs: that optional stopping lowered the fixed interval's coverage). In a report only: stopping.json does not store it."
))]
pub struct GrowthLog {
    /// The rule.
    pub(crate) rule: Growth,
    /// Binaries of the first round.
    pub(crate) start_binaries: u32,
    /// Every round, in order.
    pub(crate) rounds: Vec<Round>,
    /// How it stopped; null while growing.
    pub(crate) outcome: Option<Outcome>,
    /// The sequential interval watched: `repeated_t` (repeated t intervals over looks 5 to
    /// `max_binaries`), `lai_t_mixture` in logs of an earlier version; `None` in logs written before
    /// the rule was sequential.
    #[serde(default)]
    pub(crate) method: Option<String>,
    /// The watched sequence at every look (one after each binary from the minimum) over
    /// the binaries measured so far (the first of `watched`).
    #[serde(default)]
    pub(crate) looks: Vec<Look>,
    /// Every watched sequence after the last round (the series of the run's metric, or each
    /// comparison of the variants): every look and why it stopped or did not.
    #[serde(default)]
    pub(crate) watched: Vec<Watched>,
    /// The label of the watched sequence whose stop ended the experiment (the last to meet
    /// its rule); `None` while growing or when the maximum ended it.
    #[serde(default)]
    pub(crate) stopped_by: Option<String>,
}

/// Why a sequential replay stopped (`crate::analysis::sequential`), as the stopping log and
/// `report --sequential` record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The relative half-width reached the target.
    TargetReached,
    /// A comparison's sequence is wholly faster, slower, or within ± negligible.
    Verdict,
    /// Every binary was used without meeting the rule.
    Cap,
}

/// How an on-line grown experiment stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every watched sequence reached the target precision.
    TargetMet,
    /// Every watched sequence met its rule, some by a verdict (a comparison faster, slower
    /// or equivalent).
    VerdictReached,
    /// The maximum of binaries was reached first.
    MaxReached,
    /// The watched interval could not be computed.
    NotComputable,
}

/// One watched sequential interval as the stopping rule saw it after the last round. Its
/// JSON in a report carries its outcome in words (`crate::report::words::stopping`); the
/// file holds none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The outcome in one sentence (the same as `report --sequential` gives). In a report only: stopping.json does not store it."
))]
pub(crate) struct Watched {
    /// What it is: "PROGRAM METRIC" for a series, "NEW against BASE (PROGRAM METRIC)" for a
    /// comparison of variants.
    pub(crate) label: String,
    /// Confidence of the sequence (Bonferroni-adjusted for a comparison among more than two
    /// variants).
    pub(crate) confidence: f64,
    /// Why its replay stopped (`cap`: its rule is not met at any look yet).
    pub(crate) reason: Reason,
    /// Binaries at the look where its rule was met (the last look when `cap`).
    pub(crate) stopped_at: usize,
    /// Comparisons only: the verdict at that look in the one ratio vocabulary (`lower`,
    /// `higher`, `negligible`, `equivalent`, `inconclusive`, `unbounded`; logs written
    /// before it held the direction's words here: "faster", "no significant difference").
    pub(crate) verdict: Option<String>,
    /// Comparisons only: the verdict in the metric's words, snake case (`faster`, `slower`,
    /// `lower`, `higher`, …, `inconclusive`); absent from older logs.
    #[serde(default)]
    pub(crate) direction: Option<String>,
    /// The look where its rule was met.
    pub(crate) at_stop: Look,
    /// What the outcome's sentence is built from besides the fields above (the same
    /// sentence `report --sequential` gives); absent in logs of earlier versions, which kept
    /// the sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) replay: Option<Replay>,
    /// The outcome in one sentence as a log of an earlier version kept it: read, never
    /// written.
    #[serde(rename = "text", default, skip_serializing)]
    #[schemars(skip)]
    pub(crate) recorded_text: Option<String>,
    /// The sequence at every look over the binaries measured.
    pub(crate) looks: Vec<Look>,
}

crate::wire::read_as_written!(Watched);

/// The replay of one watched sequence, as its outcome's words need it
/// (`crate::report::words::stopping` says it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Replay {
    /// The sequence's method (`lai_calibrated`, …).
    pub(crate) method: String,
    /// The most binaries, fixed before the first look; absent without one.
    pub(crate) horizon: Option<usize>,
    /// The target relative half-width.
    pub(crate) target: f64,
    /// Binaries available (at most the horizon).
    pub(crate) available: usize,
    /// Binaries measured past the plan, not looked at.
    pub(crate) beyond_horizon: usize,
    /// Looks taken up to the stop.
    pub(crate) looks: usize,
    /// The last look the plan covers; absent when it has none.
    pub(crate) last_look: Option<usize>,
    /// Comparisons only: whether the metric is a time (a ratio below 1 is then "faster").
    pub(crate) is_time: Option<bool>,
    /// Series only: the unit its geometric mean is given in.
    pub(crate) scale: Option<crate::units::Scale>,
}

/// `stopping.json` as written ([`GrowthLog::save`]): the log's data, without the caveat a
/// report's JSON adds; for its schema.
pub struct StoppingFile;

impl schemars::JsonSchema for StoppingFile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        GrowthLog::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = GrowthLog::json_schema(generator);
        crate::wire::without_words(&mut schema, "caveat");
        // Each watched sequence's outcome is worded on the wire only, too.
        if let Some(watched) = generator.definitions_mut().get_mut("Watched") {
            if let Ok(mut data) = schemars::Schema::try_from(watched.clone()) {
                crate::wire::without_words(&mut data, "text");
                *watched = data.to_value();
            }
        }
        schema
    }
}

crate::wire::read_as_written!(GrowthLog);

impl GrowthLog {
    /// Refuses a log whose rule no experiment could have written: a received `stopping.json`
    /// is data, and its maximum is the horizon `report --sequential` calibrates its level
    /// over (a maximum of 4 294 967 295 binaries kept it computing for ever). The maximum is
    /// 1 to [`crate::stats::confidence_sequence::MAX_LOOKS`], as `[target] max_binaries`
    /// allows; the target and the confidence are shares strictly between 0 and 1.
    pub(crate) fn check(&self) -> Result<()> {
        let most = crate::stats::confidence_sequence::MAX_LOOKS;
        let r = &self.rule;
        if r.max_binaries == 0 || r.max_binaries as usize > most {
            anyhow::bail!(
                "its maximum of {} binaries is not 1 to {most}",
                r.max_binaries
            );
        }
        for (what, share) in [("target", r.target), ("confidence", r.confidence)] {
            if !(share > 0.0 && share < 1.0) {
                anyhow::bail!("its {what} {share} is not strictly between 0 and 1");
            }
        }
        Ok(())
    }

    /// Writes the log atomically to `out/stopping.json`: its data, without the words a
    /// report's JSON adds.
    pub(crate) fn save(&self, out: &Path) -> Result<()> {
        let text = crate::wire::data_only(|| serde_json::to_string_pretty(self))?;
        super::write_atomically(&out.join(STOPPING_FILE), text.as_bytes())
    }
}

/// The sequential interval (confidence sequence or repeated t interval) at one look.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Look {
    /// Binaries seen.
    pub binaries: usize,
    /// The geometric mean (of the binaries' means, or of the per-seed ratios).
    pub estimate: f64,
    /// The interval; `None` while it is not yet finite.
    pub ci: Option<crate::stats::interval::Interval>,
    /// `(upper − lower) / (2 · estimate)`.
    pub relative_half_width: Option<f64>,
}
