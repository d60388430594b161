//! `layoutrand repair`: a damaged store made readable again, losing nothing.

use layoutrand::files::store::repair_store;

/// Arguments of `layoutrand repair`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
}

/// Runs `layoutrand repair`: keeps every valid record of `DIR/results.jsonl` in a new store
/// and moves the damaged original to `results.jsonl.damaged-N`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let dir = args.dir.path();
    let repair = repair_store(&dir)?;
    match &repair.moved_to {
        None => layoutrand::outln!(
            "layoutrand repair: {} is valid ({} lines): nothing to repair",
            dir.join(layoutrand::files::store::RESULTS_FILE).display(),
            repair.lines
        ),
        Some(aside) => {
            for d in &repair.dropped {
                layoutrand::outln!("left out: {d}");
            }
            layoutrand::outln!(
                "layoutrand repair: kept {} of {} lines; the damaged original is {}; `layoutrand \
                 run --resume --out {}` runs again what was lost",
                repair.kept,
                repair.lines,
                aside.display(),
                dir.display()
            );
        }
    }
    Ok(0)
}
