//! `layoutrand repair`: a damaged store made readable again, losing nothing.

use std::path::PathBuf;

use layoutrand::files::store::repair_store;

/// Arguments of `layoutrand repair`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment directory whose results.jsonl is damaged.
    pub dir: PathBuf,
}

/// Runs `layoutrand repair`: keeps every valid record of `DIR/results.jsonl` in a new store
/// and moves the damaged original to `results.jsonl.damaged-N`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let repair = repair_store(&args.dir)?;
    match &repair.moved_to {
        None => println!(
            "layoutrand repair: {} is valid ({} lines): nothing to repair",
            args.dir
                .join(layoutrand::files::store::RESULTS_FILE)
                .display(),
            repair.lines
        ),
        Some(aside) => {
            for d in &repair.dropped {
                println!("left out: {d}");
            }
            println!(
                "layoutrand repair: kept {} of {} lines; the damaged original is {}; `layoutrand \
                 run --resume --out {}` runs again what was lost",
                repair.kept,
                repair.lines,
                aside.display(),
                args.dir.display()
            );
        }
    }
    Ok(0)
}
