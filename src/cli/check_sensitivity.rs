//! `layoutrand check-sensitivity`: the quick question "is this program's speed sensitive to
//! code layout on this machine?", answered with defaults sized to finish in minutes.

use std::path::PathBuf;

use anyhow::{bail, Result};
use layoutrand::experiment::config::{BuildConfig, RunConfig};
use layoutrand::experiment::{run_experiment, ExperimentConfig, Mode};
use layoutrand::flags::build::GranularityArg;
use layoutrand::flags::{DesignArgs, LimitArgs, MeasuredProgramsArgs};

/// Arguments of `layoutrand check-sensitivity`: the flags of `experiment`, defined once in
/// [`layoutrand::flags`], with defaults for a quick answer.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Defaults: 10 seeds × 3 executions of wall time, each execution killed after 300s.\n\nExample:\n  layoutrand check-sensitivity -- make -j2 -- '{bin}' input.txt"
)]
pub struct Args {
    /// Randomised binaries to build (each one relink).
    #[arg(long, default_value_t = 10)]
    pub seeds: u32,
    #[command(flatten)]
    pub design: DesignArgs,
    /// What to randomise (as `build --granularity`).
    #[arg(long, value_enum, default_value_t = GranularityArg::Module)]
    pub granularity: GranularityArg,
    /// Output directory.
    #[arg(long, default_value = "layoutrand-out/sensitivity")]
    pub out: PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub programs: MeasuredProgramsArgs,
    /// `-- BUILD COMMAND... -- RUN COMMAND...` (the run command uses {bin}).
    #[arg(last = true, required = true, allow_hyphen_values = true)]
    pub commands: Vec<String>,
}

/// The executions per binary and the timeout of one execution when not given: a check
/// sized to finish in minutes.
const EXECUTIONS: u32 = 3;
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Runs `layoutrand check-sensitivity`.
pub fn run(args: Args) -> Result<i32> {
    let (build, run) = split_commands(&args.commands)?;
    let config = ExperimentConfig {
        out: Some(args.out),
        build: BuildConfig {
            command: build,
            seeds: Some(args.seeds),
            granularity: Some(args.granularity),
            linker: None,
            pad: None,
            data_order: None,
            keep_debug: None,
            pin: None,
        },
        run: RunConfig {
            command: run,
            programs: args.programs.programs,
            metric: Some(args.design.metric.unwrap_or_else(|| "wall".into())),
            executions: Some(args.design.executions.unwrap_or(EXECUTIONS)),
            iterations: args.design.iterations,
            warmup: args.design.warmup,
            timeout: Some(args.limits.timeout.unwrap_or(TIMEOUT).as_secs_f64()),
            wait_for_quiet: args.limits.wait_for_quiet.map(|t| t.as_secs_f64()),
            ok_exit_codes: args.design.ok_exit_codes,
            ..RunConfig::default()
        },
        ..ExperimentConfig::default()
    };
    run_experiment(&config, Mode::Real, args.limits.budget, None)
}

/// Splits `BUILD... -- RUN...` at the first `--`.
fn split_commands(words: &[String]) -> Result<(Vec<String>, Vec<String>)> {
    let Some(sep) = words.iter().position(|w| w == "--") else {
        bail!("expected `-- BUILD COMMAND... -- RUN COMMAND...`: the second `--` is missing");
    };
    let (build, run) = (words[..sep].to_vec(), words[sep + 1..].to_vec());
    if build.is_empty() || run.is_empty() {
        bail!("expected `-- BUILD COMMAND... -- RUN COMMAND...`: one of the two commands is empty");
    }
    Ok((build, run))
}
