//! `layoutrand report [DIR]`: the statistics of an experiment directory.

use std::path::PathBuf;

use layoutrand::report::{render_gated_report, Format};

/// Arguments of `layoutrand report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The experiment directory (results.jsonl, and manifest.json when there: without it
    /// what only the build knows is reported as unknown).
    #[arg(default_value = layoutrand::analysis::vocabulary::DEFAULT_DIR)]
    pub dir: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub verdict: super::common::VerdictArgs,
    #[command(flatten)]
    pub metric: super::common::MetricFilterArgs,
    #[command(flatten)]
    pub gate: super::common::GateArgs,
    #[command(flatten)]
    pub bootstrap: super::common::BootstrapArgs,
    /// Write the report to this file (atomically: a reader never sees half of it) instead
    /// of stdout; the exit code is the same.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Runs `layoutrand report`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let options = layoutrand::analysis::report::builder::AnalysisOptions {
        thresholds: args.verdict.thresholds()?,
        fail_if_slower: args.gate.fail_if_slower,
        bootstrap: args.bootstrap.options(),
    };
    let (text, slower) =
        render_gated_report(&args.dir, args.format, &options, &args.metric.metrics)?;
    match &args.output {
        Some(path) => layoutrand::files::write_atomically(path, text.as_bytes())?,
        None => super::common::write_stdout(&text)?,
    }
    Ok(args.gate.exit_code("report", &slower))
}
