//! `layoutrand dimension [DIR]`: optimal repetition counts for a target precision
//! (Kalibera & Jones 2013 §9, Tables 6 and 7).

use std::io::Write;
use std::path::PathBuf;

use layoutrand::report::dimension::{dimension, parse_costs, parse_targets, render_text};
use layoutrand::report::experiment::load_with_context;

/// Arguments of `layoutrand dimension`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The initial experiment's directory.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Costs overriding the measured ones, e.g. `iteration=0.5s,execution=2s,binary=20ms`.
    #[arg(long)]
    pub costs: Option<String>,
    /// Target relative half-widths of the confidence interval.
    #[arg(long, default_value = "0.5%,1%,2%,5%")]
    pub target: String,
    /// Confidence level of the intervals the targets refer to.
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Write JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `layoutrand dimension`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        anyhow::bail!(
            "--confidence {} is not strictly between 0 and 1",
            args.confidence
        );
    }
    let costs = parse_costs(args.costs.as_deref().unwrap_or(""))?;
    let targets = parse_targets(&args.target)?;
    let experiment = load_with_context(&args.dir)?;
    let d = dimension(&experiment, costs, &targets, args.confidence)?;
    let text = if args.json {
        serde_json::to_string_pretty(&d)? + "\n"
    } else {
        render_text(&d)
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(0)
}
