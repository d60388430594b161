//! Flag groups shared by the subcommands, so one notion has one flag, one parser and one
//! default everywhere (percentages via [`layoutrand::analysis::vocabulary`]).

use std::path::PathBuf;

use layoutrand::analysis::single::BootstrapOptions;
use layoutrand::analysis::vocabulary::Thresholds;
use layoutrand::flags::{confidence_arg, share_arg};

/// The experiment directory of a command that reads one (`report`, `dimension`, `export`,
/// `explain`, `status`, `repair`): a positional `DIR`, or `--out DIR`, the flag the commands
/// that write one (`build`, `run`, `experiment`) name it by, so that the same `--out` works in
/// every command.
#[derive(Debug, Clone, clap::Args)]
pub struct ExperimentDirArgs {
    /// The experiment directory (what `build` and `run` wrote) [default: layoutrand-out].
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// The experiment directory, as `build`, `run` and `experiment` take it: the same as DIR.
    #[arg(long = "out", value_name = "DIR", conflicts_with = "dir")]
    out: Option<PathBuf>,
}

impl ExperimentDirArgs {
    /// The directory given, by either spelling, or the default one.
    pub fn path(&self) -> PathBuf {
        self.dir
            .clone()
            .or_else(|| self.out.clone())
            .unwrap_or_else(|| PathBuf::from(layoutrand::files::DEFAULT_DIR))
    }
}

/// `--confidence`: the level of every interval; tests reject at `1 − confidence`.
#[derive(Debug, Clone, clap::Args)]
pub struct ConfidenceArgs {
    /// Confidence level of every interval and test (0.95 or 95%).
    #[arg(long, default_value = "0.95", value_parser = confidence_arg)]
    pub confidence: f64,
}

/// `--confidence` and `--negligible`: for subcommands that give verdicts on effects.
#[derive(Debug, Clone, clap::Args)]
pub struct VerdictArgs {
    #[command(flatten)]
    pub confidence: ConfidenceArgs,
    /// Relevance threshold: an effect whose whole interval lies within ± this is called
    /// "detectable but negligible" (1% or 0.01).
    #[arg(long, value_name = "PCT", default_value = "1%", value_parser = share_arg)]
    pub negligible: f64,
}

impl VerdictArgs {
    /// The checked thresholds.
    pub fn thresholds(&self) -> anyhow::Result<Thresholds> {
        Thresholds::new(self.confidence.confidence, self.negligible)
    }
}

/// `--bootstrap N --bootstrap-seed S`: the studentized bootstrap over top-level units.
#[derive(Debug, Clone, clap::Args)]
pub struct BootstrapArgs {
    /// Also compute a studentized bootstrap interval (resampling the top-level units) with
    /// this many resamples (100 to 10^7; 10000 is typical).
    #[arg(long, value_name = "N")]
    pub bootstrap: Option<usize>,
    /// Seed of the bootstrap resampling (needs --bootstrap) [default: 1]. Not the layout
    /// seeds of `build --seed-base`, nor the schedule's `run --schedule-seed`.
    #[arg(long = "bootstrap-seed", value_name = "S", requires = "bootstrap")]
    pub bootstrap_seed: Option<u64>,
    /// Deprecated spelling of --bootstrap-seed (warns on stderr).
    #[arg(
        long = "seed",
        hide = true,
        requires = "bootstrap",
        conflicts_with = "bootstrap_seed"
    )]
    pub seed: Option<u64>,
}

impl BootstrapArgs {
    /// The options, when a bootstrap was asked for (warning once when the seed was given by
    /// its deprecated spelling).
    pub fn options(&self) -> Option<BootstrapOptions> {
        let seed = seed_by_either_spelling(self.bootstrap_seed, self.seed, "--bootstrap-seed");
        self.bootstrap
            .map(|resamples| BootstrapOptions { resamples, seed })
    }
}

/// A seed given by its own flag (`name`) or by `--seed`, the deprecated spelling `report` and
/// `explain` once had (warning on stderr when it was used); 1 when neither was given.
pub fn seed_by_either_spelling(named: Option<u64>, deprecated: Option<u64>, name: &str) -> u64 {
    if deprecated.is_some() {
        layoutrand::flags::warn_deprecated("--seed", name);
    }
    named.or(deprecated).unwrap_or(1)
}

/// `--format text|json` of `analyze`, `compare`, `dimension`, `doctor`, `explain` and `layout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Aligned text for people.
    Text,
    /// One JSON object (schema in docs/formats.md).
    Json,
}

/// `--format text|json`.
#[derive(Debug, Clone, clap::Args)]
pub struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// `--levels` and `--value`: what to read from a CSV of measurements.
#[derive(Debug, Clone, clap::Args)]
pub struct CsvColumnsArgs {
    /// Columns identifying the unit at each level, highest level first, as a path from the
    /// top (e.g. `binary,execution,iteration`); one column gives a plain sample. (The JSON
    /// output's `levels` list runs the other way, lowest first, as Kalibera & Jones number
    /// their levels.)
    #[arg(long, value_delimiter = ',')]
    pub levels: Vec<String>,
    /// The numeric column to analyse.
    #[arg(long)]
    pub value: Option<String>,
}

impl CsvColumnsArgs {
    /// The checked columns: levels non-empty and distinct, value given.
    pub fn checked(&self) -> anyhow::Result<(&[String], &str)> {
        use anyhow::{bail, Context};
        let levels = &self.levels;
        if levels.is_empty() || levels.iter().any(String::is_empty) {
            bail!("--levels needs column names, highest level first (e.g. binary,execution,iteration)");
        }
        for (i, l) in levels.iter().enumerate() {
            if levels[..i].contains(l) {
                bail!("--levels names the column \"{l}\" twice");
            }
        }
        let value = self
            .value
            .as_deref()
            .context("--value is needed: name the numeric column")?;
        Ok((levels, value))
    }
}

/// `--metric NAME` of `report` and `compare` (directories): which recorded metrics to analyse,
/// and so which the CI gate judges.
#[derive(Debug, Clone, clap::Args)]
pub struct MetricFilterArgs {
    /// Analyse only this recorded metric: a name in the store (repeatable; e.g. `wall`,
    /// `I1_misses`, `max_rss`), not what `run --metric` measures (`cachegrind`,
    /// `regex:...`), nor in CSV mode a column (that is `--value`). Default: every metric
    /// recorded, the one asked of `run` first. `--fail-if-slower` judges the metrics
    /// named here, and without any only the one asked of `run` (`wall`, `cpu`,
    /// `estimated_cycles`, the reported value).
    #[arg(long = "metric", value_name = "NAME")]
    pub metrics: Vec<String>,
}

/// `--fail-if-slower PCT`: the CI gate of `report` and `compare` (one flag, one rule: the
/// engine's [`layoutrand::analysis::effect::Effect::slower_beyond`]).
#[derive(Debug, Clone, clap::Args)]
pub struct GateArgs {
    /// CI gate: exit 1 when some comparison's whole ratio interval says new is slower than
    /// its base by more than this (`3%` or `0.03`); exit 0 otherwise, 2 on an error. In
    /// `report`, new is every variant and base the first variant built; in `compare`, the new
    /// experiment (or CSV file) against the base one, per program and variant. Of an
    /// experiment's metrics it judges the one asked of `run`, or those named by `--metric`.
    // Hyphen values reach the parser, so `-5%` gets its message rather than clap's
    // "unexpected argument".
    #[arg(long, value_name = "PCT", value_parser = share_arg, allow_hyphen_values = true)]
    pub fail_if_slower: Option<f64>,
}

impl GateArgs {
    /// The exit code for the comparisons the gate judged: 1 when one failed, 0 otherwise.
    /// With a gate, stderr says what it judged, one line per comparison
    /// (`layoutrand COMMAND: --fail-if-slower 1 %: pass: …`), then for a failure the
    /// summary `layoutrand COMMAND: FAIL: …` with one line per failed comparison; a gate
    /// with nothing to judge says so rather than passing silently.
    pub fn exit_code(&self, command: &str, gate: &Gate) -> i32 {
        let Some(share) = self.fail_if_slower else {
            return 0;
        };
        for line in gate.lines(&format!("layoutrand {command}"), share) {
            layoutrand::diagnostic!("{line}");
        }
        match gate.outcome() {
            GateOutcome::Refused => layoutrand::exit::Exit::InputError.code(),
            GateOutcome::Pass => 0,
            GateOutcome::Fail => layoutrand::exit::Exit::GateFailed.code(),
        }
    }
}

pub use layoutrand::flags::{DesignArgs, LimitArgs};
use layoutrand::report::gate::{Gate, GateOutcome};

pub use layoutrand::files::output::write_stdout;

/// The exit status of a command that a signal stopped after keeping what it had finished
/// ([`Interrupted`](layoutrand::signals::Interrupted): 128 + signal), said on stderr as
/// `{command}: {what was kept}: {how to continue}` (a stage of an experiment leaves out how to
/// continue: the experiment says it); any other error is returned as it is.
pub fn exit_if_interrupted(err: anyhow::Error, command: &str) -> anyhow::Result<i32> {
    match err.downcast_ref::<layoutrand::signals::Interrupted>() {
        Some(stop) => {
            if std::env::var_os(layoutrand::signals::ENV_EXPERIMENT_STAGE).is_some() {
                layoutrand::diagnostic!("{command}: {}", stop.in_a_stage());
            } else {
                layoutrand::diagnostic!("{command}: {stop}");
            }
            Ok(layoutrand::exit::interrupted_by(stop.signal))
        }
        None => Err(err),
    }
}
