//! `layoutrand status`: progress of a Slurm run per shard, with its tasks' states.

use std::path::PathBuf;

use layoutrand::run::slurm::status::{render_status, shard_statuses};

/// Arguments of `layoutrand status`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment directory of a `layoutrand run --slurm`.
    #[arg(default_value = "layoutrand-out")]
    pub dir: PathBuf,
}

/// Runs `layoutrand status`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let statuses = shard_statuses(&args.dir)?;
    print!("{}", render_status(&statuses));
    Ok(0)
}
