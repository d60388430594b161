//! `OUT/watch.json`: what `layoutrand watch` was asked to compare (so that the same command
//! resumes and another one is refused), and what each of its rounds found, as numbers and
//! enums (the words are `crate::report::watch`'s).
//!
//! The file is data: on a resume its inputs are compared with the command line's, never
//! taken from it. Commands and refs come from the command line only.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::stats::interval::Interval;

/// File (in the watch's output directory) recording the inputs and the rounds.
pub const WATCH_FILE: &str = "watch.json";

/// The schema number of [`WATCH_FILE`].
pub const WATCH_SCHEMA: u32 = 1;

/// A git revision as the user named it and the commit it stood for when the watch began.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Revision {
    /// The name given on the command line (`main`, `HEAD~1`, a hash).
    pub reference: String,
    /// The full commit hash it resolved to.
    pub commit: String,
}

/// Everything that decides what a watch measures; a resume must give the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchInputs {
    /// The version compared against.
    pub base: Revision,
    /// The version judged.
    pub head: Revision,
    /// The build command, a shell script run by `sh -c` in each version's worktree.
    pub build_command: String,
    /// The benchmark command (argv, with `{bin}`), run in the head's worktree.
    pub run_command: Vec<String>,
    /// Randomised binaries per version (the same seeds for both).
    pub seeds: u32,
    /// Executions per binary in each round.
    pub executions: u32,
    /// The run's metric, as `run --metric` takes it.
    pub metric: String,
    /// `--fail-if-slower`: the slowdown (a share) the whole interval must exceed to fail.
    pub fail_if_slower: f64,
    /// Whether a failed first round is confirmed by a second before the watch fails.
    pub confirmation: bool,
    /// The pin file both versions were built with (`build --pin`), if any.
    pub pin: Option<PathBuf>,
    /// The other flags of the build and run stages, as their argv (granularity, linker,
    /// programs, cache model, iterations, warmup, timeout), so that a change is seen.
    pub stage_flags: Vec<String>,
}

/// How one round's gate ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoundOutcome {
    /// No comparison's whole interval said slower than allowed.
    Pass,
    /// Some comparison's whole interval said slower than allowed.
    Fail,
    /// The store was incomplete (or held no comparison to judge): not gated.
    NotJudged,
}

/// One comparison of head against base as a round's gate judged it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JudgedComparison {
    /// The program measured.
    pub program: String,
    /// The metric judged.
    pub metric: String,
    /// head / base, the estimate.
    pub ratio: f64,
    /// Its interval, when it has one.
    pub ci: Option<Interval>,
    /// The interval's confidence level.
    pub confidence: f64,
    /// Whether the metric is a time (a ratio above 1 is then "slower", else "higher").
    pub is_time: bool,
    /// The whole interval said slower than `fail_if_slower` allows.
    pub failed: bool,
    /// The slowdown (a share) this design catches 80 % of the time at this threshold, when
    /// it can be estimated (sides paired by seed, at least three pairs).
    pub detectable_slowdown: Option<f64>,
}

/// One round: a fresh set of executions of the same builds, gated alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchRound {
    /// 1 for the first round, 2 for the confirmation.
    pub number: u32,
    /// How its gate ended.
    pub outcome: RoundOutcome,
    /// Each comparison it judged.
    pub comparisons: Vec<JudgedComparison>,
    /// `[busy, sampled]`: executions that started beside other runnable tasks (or with CPU
    /// time stolen), of those sampled, when enough were to warn (time metrics only).
    pub busy_executions: Option<[u64; 2]>,
}

/// How the whole watch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WatchVerdict {
    /// The first round passed.
    Pass,
    /// The first round failed and the confirmation round passed.
    Unconfirmed,
    /// The first round failed and so did the confirmation (or there was none to run).
    Fail,
    /// A round's store could not be judged.
    NotJudged,
}

/// `OUT/watch.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchFile {
    /// [`WATCH_SCHEMA`].
    pub schema: u32,
    /// What was compared, and how.
    pub inputs: WatchInputs,
    /// The rounds gated so far.
    pub rounds: Vec<WatchRound>,
    /// The verdict, once reached.
    pub verdict: Option<WatchVerdict>,
}

impl WatchFile {
    /// The record in `out`, if there is one (read through the confined reader).
    pub fn load(out: &Path) -> Result<Option<WatchFile>> {
        let path = out.join(WATCH_FILE);
        let Some(text) = crate::files::confined::read_side_file(out, WATCH_FILE)? else {
            return Ok(None);
        };
        let file: WatchFile = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a watch record", path.display()))?;
        if file.schema != WATCH_SCHEMA {
            anyhow::bail!(
                "{} has schema {}, this layoutrand reads {WATCH_SCHEMA}; give a new output \
                 directory",
                path.display(),
                file.schema
            );
        }
        Ok(Some(file))
    }

    /// Writes the record into `out` atomically, through the experiment directory's writer.
    pub fn save(&self, out: &crate::files::confined::ExperimentDir) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        out.write_atomic(WATCH_FILE, text.as_bytes())
    }
}

impl WatchInputs {
    /// The first input in which `other` differs from `self`, by its JSON name.
    pub fn first_difference(&self, other: &WatchInputs) -> Option<String> {
        let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
            (serde_json::to_value(self), serde_json::to_value(other))
        else {
            return Some("inputs".into());
        };
        a.iter()
            .find(|(key, value)| b.get(*key) != Some(value))
            .map(|(key, _)| key.clone())
    }
}
