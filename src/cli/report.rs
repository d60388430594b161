//! `layoutrand report [DIR]`: the statistics of an experiment directory.

use std::path::PathBuf;

use layoutrand::report::{render_gated_report, Format};

/// Arguments of `layoutrand report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
    /// Output format.
    #[arg(long, default_value_t = Format::Text, value_parser = report_format())]
    pub format: Format,
    #[command(flatten)]
    pub verdict: super::common::VerdictArgs,
    #[command(flatten)]
    pub metric: super::common::MetricFilterArgs,
    #[command(flatten)]
    pub gate: super::common::GateArgs,
    #[command(flatten)]
    pub bootstrap: super::common::BootstrapArgs,
    /// Replay the binaries in seed order and look after each (from 5) with a confidence
    /// sequence, valid at every look: each series stops when its relative half-width reaches
    /// `--target`, each comparison also when it is faster, slower or equivalent within
    /// `--negligible`; the JSON's `sequential` objects and a section of the text (docs/report.md).
    #[arg(long)]
    pub sequential: bool,
    /// The relative half-width at which `--sequential` stops (a percentage, e.g. 1% or 0.01).
    #[arg(long, requires = "sequential", value_parser = layoutrand::flags::target_arg)]
    pub target: Option<f64>,
    /// Write the report to this file (atomically: a reader never sees half of it) instead
    /// of stdout; the exit code is the same.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Runs `layoutrand report`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let options = layoutrand::analysis::answers::builder::AnalysisOptions {
        thresholds: args.verdict.thresholds()?,
        fail_if_slower: args.gate.fail_if_slower,
        bootstrap: args.bootstrap.options(),
        sequential: args.sequential.then(|| {
            args.target
                .unwrap_or(layoutrand::analysis::sequential::DEFAULT_TARGET)
        }),
    };
    let (text, slower) = render_gated_report(
        &args.dir.path(),
        args.format,
        &options,
        &args.metric.metrics,
    )?;
    match &args.output {
        Some(path) => {
            layoutrand::files::output::write_output(path, &args.dir.path(), text.as_bytes())?
        }
        None => super::common::write_stdout(&text)?,
    }
    Ok(args.gate.exit_code("report", &slower))
}

/// `--format`: the library's [`Format`] names, listed in `--help` (the library does not
/// depend on clap).
pub(crate) fn report_format() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Format::NAMES)
        .map(|name| name.parse::<Format>().unwrap_or(Format::Text))
}
