//! `layoutrand dimension [DIR]`: optimal repetition counts for a target precision
//! (Kalibera & Jones 2013 §9, Tables 6 and 7).

use layoutrand::analysis::answers::dimension::{dimension, parse_costs, parse_targets};
use layoutrand::analysis::answers::experiment::load_with_context;
use layoutrand::report::render_dimension::render_text;

/// Arguments of `layoutrand dimension`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
    /// Costs overriding the measured ones, e.g. `iteration=0.5s,execution=2s,binary=20ms`.
    #[arg(long)]
    pub costs: Option<String>,
    /// Target relative half-widths of the confidence interval (`1%` or `0.01`, comma-separated).
    #[arg(long, default_value = layoutrand::analysis::answers::dimension::DEFAULT_TARGETS_TEXT)]
    pub target: String,
    #[command(flatten)]
    pub confidence: super::common::ConfidenceArgs,
    #[command(flatten)]
    pub format: super::common::FormatArgs,
    /// Same as `--format json` (kept for scripts written before `--format`).
    #[arg(long, hide = true)]
    pub json: bool,
}

/// Runs `layoutrand dimension`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let costs = parse_costs(args.costs.as_deref().unwrap_or(""))?;
    let targets = parse_targets(&args.target)?;
    let experiment = load_with_context(&args.dir.path())?;
    let d = dimension(&experiment, costs, &targets, args.confidence.confidence)?;
    let text = if args.json || args.format.format == super::common::OutputFormat::Json {
        serde_json::to_string_pretty(&d)? + "\n"
    } else {
        layoutrand::printable::for_terminal(&render_text(&d)).into_owned()
    };
    super::common::write_stdout(&text)?;
    Ok(0)
}
