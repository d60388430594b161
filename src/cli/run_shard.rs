//! `layoutrand run-shard` (hidden): what each task of a `run --slurm` array job runs.

use std::path::PathBuf;

use layoutrand::run::slurm::task::run_shard;

/// Arguments of `layoutrand run-shard`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The experiment directory (on shared storage).
    #[arg(long)]
    pub out: PathBuf,
    /// The shard to run (the array task's index).
    #[arg(long)]
    pub shard: u32,
    /// The token the submitter wrote into slurm/shared-storage-marker.
    #[arg(long)]
    pub token: String,
}

/// Runs `layoutrand run-shard`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    // The node runs what the plan holds: only a plan this user's layoutrand wrote (the
    // submitter signed or adopted it; the nodes share the user's key through the home).
    let uses = super::trust::Uses {
        plan: true,
        ..Default::default()
    };
    super::trust::require_own(&args.out, "run-shard", uses, false)?;
    super::run::start_watchdog()?;
    run_shard(&args.out, args.shard, &args.token)?;
    Ok(0)
}
