//! `layoutrand status`: progress of a Slurm run per shard, with its tasks' states.

use layoutrand::report::slurm_status::render_status;
use layoutrand::run::slurm::status::shard_statuses;

/// Arguments of `layoutrand status`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
}

/// Runs `layoutrand status`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let statuses = shard_statuses(&args.dir.path())?;
    layoutrand::out!(
        "{}",
        layoutrand::printable::for_terminal(&render_status(&statuses))
    );
    Ok(0)
}
