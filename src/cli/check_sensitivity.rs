//! `layoutrand check-sensitivity`: the quick question "is this program's speed sensitive to
//! code layout on this machine?", answered with defaults sized to finish in minutes.

use std::path::PathBuf;

use anyhow::{bail, Result};
use layoutrand::experiment::config::{BuildConfig, RunConfig};
use layoutrand::experiment::{run_experiment, ExperimentConfig, Mode};
use layoutrand::flags::build::GranularityArg;

/// Arguments of `layoutrand check-sensitivity`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  layoutrand check-sensitivity -- make -j2 -- '{bin}' input.txt")]
pub struct Args {
    /// Randomised binaries to build (each one relink).
    #[arg(long, default_value_t = 10)]
    pub seeds: u32,
    /// Executions per binary.
    #[arg(long, default_value_t = 3)]
    pub executions: u32,
    /// wall, cpu, cachegrind or regex:PATTERN (cachegrind: deterministic simulated cache
    /// misses, for noisy machines).
    #[arg(long, default_value = "wall")]
    pub metric: String,
    /// Iterations per execution (with a regex metric).
    #[arg(long)]
    pub iterations: Option<u32>,
    /// What to randomise (as `build --granularity`).
    #[arg(long, value_enum, default_value_t = GranularityArg::Module)]
    pub granularity: GranularityArg,
    /// Output directory.
    #[arg(long, default_value = "layoutrand-out/sensitivity")]
    pub out: PathBuf,
    /// Kill an execution after this long (as `run --timeout`: e.g. 90s, 5m; a bare number is
    /// seconds).
    #[arg(long, value_name = "DURATION", default_value = "300s", value_parser = layoutrand::units::duration_arg)]
    pub timeout: std::time::Duration,
    /// `-- BUILD COMMAND... -- RUN COMMAND...` (the run command uses {bin}).
    #[arg(last = true, required = true, allow_hyphen_values = true)]
    pub commands: Vec<String>,
}

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
        },
        run: RunConfig {
            command: run,
            metric: Some(args.metric),
            executions: Some(args.executions),
            iterations: args.iterations,
            timeout: Some(args.timeout.as_secs_f64()),
            ..RunConfig::default()
        },
        ..ExperimentConfig::default()
    };
    run_experiment(&config, Mode::Real, None, None)
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
