//! `layoutrand compare`: is the new system faster than the base, and by how much?
//!
//! Both modes go through the engine ([`layoutrand::analysis::compare`], whose pair analysis
//! `report` shares for variants): the ratio of means `new/base` with the paired-by-id
//! interval when at least two top-level ids match, else Fieller's interval (Kalibera & Jones
//! 2013 eq. 5), classified as faster, slower, detectable but negligible (`--negligible`), a
//! tie or inconclusive, plus Welch, matched pairs, Mann–Whitney and an optional bootstrap.
//!
//! CSV mode: two files of nested measurements with the same `--levels` and `--value`.
//! Directory mode: two experiment directories, every program and metric they share, plus
//! Touati et al.'s summary across programs ([`layoutrand::analysis::answers::compare`]).
//! `--fail-if-slower` gates CI in both modes (exit 1).

use std::path::PathBuf;

use anyhow::{bail, Result};

use layoutrand::analysis::compare::CompareOptions;
use layoutrand::analysis::single::Dataset;
use layoutrand::measurements::{load_measurements, CsvSpec};
use layoutrand::report::export::compare_text::render_comparison;
use layoutrand::report::gate::GateJudgement;

use super::common::{
    BootstrapArgs, CsvColumnsArgs, FormatArgs, GateArgs, MetricFilterArgs, OutputFormat,
    VerdictArgs,
};

/// Arguments of `layoutrand compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The baseline's measurements (CSV with a header), or its experiment directory.
    pub base: PathBuf,
    /// The new system's measurements (CSV with a header), or its experiment directory.
    pub new: PathBuf,
    /// CSV mode only: the columns to read (values are times or costs: lower is better).
    #[command(flatten)]
    pub columns: CsvColumnsArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Directory mode only.
    #[command(flatten)]
    pub metric: MetricFilterArgs,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// Runs `layoutrand compare`.
pub fn run(args: Args) -> Result<i32> {
    let thresholds = args.verdict.thresholds()?;
    let json = matches!(args.format.format, OutputFormat::Json);
    match (args.base.is_dir(), args.new.is_dir()) {
        (true, true) => {
            if !args.columns.levels.is_empty() || args.columns.value.is_some() {
                bail!("--levels and --value apply to CSV files, not experiment directories (their levels are binary, execution, iteration)");
            }
            let (text, failed) = layoutrand::report::render_compare::run_directories(
                &args.base,
                &args.new,
                &args.metric.metrics,
                &thresholds,
                args.bootstrap.options(),
                args.gate.fail_if_slower,
                json,
            )?;
            layoutrand::out!("{text}");
            Ok(args.gate.exit_code("compare", &failed))
        }
        (false, false) => run_csv(&args, thresholds, json),
        _ => bail!(
            "compare needs two CSV files or two experiment directories, got one of each ({} and {})",
            args.base.display(),
            args.new.display()
        ),
    }
}

/// CSV mode: both arguments are measurement files.
fn run_csv(
    args: &Args,
    thresholds: layoutrand::analysis::vocabulary::Thresholds,
    json: bool,
) -> Result<i32> {
    if !args.metric.metrics.is_empty() {
        bail!("--metric applies to experiment directories; in CSV files the metric is the --value column");
    }
    let (levels, value) = args.columns.checked()?;
    let spec = CsvSpec {
        levels,
        value,
        require_positive: true,
    };
    let read = |path: &PathBuf| -> Result<Dataset> {
        let loaded = load_measurements(path, &spec)?;
        Ok(Dataset {
            source: path.display().to_string(),
            value: value.to_string(),
            levels: levels.to_vec(),
            hierarchy: loaded.hierarchy,
        })
    };
    let base = read(&args.base)?;
    let new = read(&args.new)?;
    let cmp = layoutrand::analysis::compare::compare(
        &base,
        &new,
        &CompareOptions {
            thresholds,
            is_time: true,
            is_rate: false,
            bootstrap: args.bootstrap.options(),
            fail_if_slower: args.gate.fail_if_slower,
        },
    )?;
    if json {
        layoutrand::outln!("{}", serde_json::to_string_pretty(&cmp)?);
    } else {
        layoutrand::out!(
            "{}",
            layoutrand::printable::for_terminal(&render_comparison(&cmp, &levels[0]))
        );
    }
    let judged: Vec<GateJudgement> = cmp
        .pair
        .gated
        .then(|| {
            GateJudgement::of(
                &cmp.pair,
                format!(
                    "{}: {}",
                    cmp.value,
                    layoutrand::report::words::effect::words(&cmp.pair.effect)
                ),
                cmp.confidence,
            )
        })
        .into_iter()
        .collect();
    let gate = layoutrand::report::gate::Gate {
        judged,
        refused: None,
    };
    Ok(args.gate.exit_code("compare", &gate))
}
