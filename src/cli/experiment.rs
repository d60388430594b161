//! `layoutrand experiment`: build → run → report in one resumable command.

use std::path::PathBuf;

use anyhow::{Context, Result};
use layoutrand::experiment::{run_experiment, ExperimentConfig, Mode};
use layoutrand::flags::build::{GranularityArg, LinkerArg};

/// Arguments of `layoutrand experiment`. Every flag overrides the same key of the file.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment file (TOML; see docs/experiment.md and recipes/).
    pub file: Option<PathBuf>,
    /// Run the initial (dimensioning) experiment: 20 binaries × 5 executions × 10 iterations
    /// unless set otherwise, ending with the table of repetitions per target precision.
    #[arg(long)]
    pub initial: bool,
    /// Output directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Directory of an initial experiment: take the lower levels' optimal counts and the
    /// starting number of binaries for the target from its dimensioning (instead of the
    /// file's counts; counts given as flags still win).
    #[arg(long, conflicts_with = "initial")]
    pub from: Option<PathBuf>,
    /// Fixed maximum of randomised binaries when the top level grows on-line.
    #[arg(long = "max-binaries")]
    pub max_binaries: Option<u32>,
    /// Number of randomised binaries.
    #[arg(long)]
    pub seeds: Option<u32>,
    /// What to randomise (as `build --granularity`).
    #[arg(long, value_enum)]
    pub granularity: Option<GranularityArg>,
    /// Linker for the relinks (as `build --linker`).
    #[arg(long, value_enum)]
    pub linker: Option<LinkerArg>,
    #[command(flatten)]
    pub design: super::common::DesignArgs,
    /// Executions at once (as `run --jobs`: 1 to 1024; deterministic metrics such as
    /// cachegrind only).
    #[arg(long, value_parser = layoutrand::flags::jobs_arg)]
    pub jobs: Option<usize>,
    /// Target relative half-width of the CI (`1%` or `0.01`).
    #[arg(long, value_name = "PCT", value_parser = layoutrand::flags::target_arg)]
    pub target: Option<f64>,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// Build command, as one shell-quoted string (e.g. "make -j2").
    #[arg(long = "build-cmd")]
    pub build_cmd: Option<String>,
    /// Run command with {bin}, as one shell-quoted string.
    #[arg(long = "run-cmd")]
    pub run_cmd: Option<String>,
    /// Check command with {bin} that every binary must pass, as one shell-quoted string.
    #[arg(long = "check-cmd")]
    pub check_cmd: Option<String>,
    /// Resume and extend an output directory that is not your own (received, edited, or
    /// written before layoutrand signed its directories), and adopt it; see `layoutrand trust`.
    #[arg(long)]
    pub trust: bool,
}

/// Runs `layoutrand experiment`.
pub fn run(args: Args) -> Result<i32> {
    let mut config = match &args.file {
        Some(path) => ExperimentConfig::load(path)?,
        None => ExperimentConfig::default(),
    };
    let words = |flag: &str, s: &str| -> Result<Vec<String>> {
        shell_words::split(s).with_context(|| format!("{flag} {s:?}: unbalanced quotes"))
    };
    config.trust = args.trust;
    if let Some(s) = &args.build_cmd {
        config.build.command = words("--build-cmd", s)?;
    }
    if let Some(s) = &args.run_cmd {
        config.run.command = words("--run-cmd", s)?;
    }
    if let Some(s) = &args.check_cmd {
        config.check = Some(layoutrand::experiment::config::CheckConfig {
            command: words("--check-cmd", s)?,
        });
    }
    if args.from.is_some() {
        // The initial experiment's dimensioning decides the counts (KJ §9): the file's counts
        // were for an experiment without one. Counts given on the command line still win.
        config.build.seeds = None;
        config.run.executions = None;
        config.run.iterations = None;
    }
    config.out = args.out.or(config.out);
    config.build.seeds = args.seeds.or(config.build.seeds);
    config.build.granularity = args.granularity.or(config.build.granularity);
    config.build.linker = args.linker.or(config.build.linker);
    config.run.executions = args.design.executions.or(config.run.executions);
    config.run.iterations = args.design.iterations.or(config.run.iterations);
    config.run.warmup = args.design.warmup.or(config.run.warmup);
    config.run.metric = args.design.metric.or(config.run.metric);
    if !args.design.ok_exit_codes.is_empty() {
        config.run.ok_exit_codes = args.design.ok_exit_codes;
    }
    config.run.timeout = args
        .limits
        .timeout
        .map(|t| t.as_secs_f64())
        .or(config.run.timeout);
    config.run.wait_for_quiet = args
        .limits
        .wait_for_quiet
        .map(|t| t.as_secs_f64())
        .or(config.run.wait_for_quiet);
    config.run.jobs = args.jobs.or(config.run.jobs);
    config.target.precision = args
        .target
        .map(|t| t.to_string())
        .or(config.target.precision);
    config.target.max_binaries = args.max_binaries.or(config.target.max_binaries);
    let mode = if args.initial {
        Mode::Initial
    } else {
        Mode::Real
    };
    run_experiment(&config, mode, args.limits.budget, args.from.as_deref())
        .or_else(|err| super::common::exit_if_interrupted(err, "layoutrand experiment"))
}
