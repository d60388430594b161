//! `layoutrand analyze`: the multi-level statistics on any CSV of measurements.
//!
//! Parses the arguments, reads the CSV into a [`Dataset`] and prints what the engine
//! ([`layoutrand::analysis::single::analyze`]) computes, as the library renders it
//! ([`render_analysis`]). `--format json` prints
//! [`Analysis`] as one object (schema in docs/formats.md). Rows of an export marked as the
//! default layout are left out, as `report` leaves out the baseline.

use std::path::PathBuf;

use anyhow::Result;

use layoutrand::analysis::single::{analyze, costs_for_levels, Dataset, Excluded};
use layoutrand::analysis::vocabulary::Thresholds;
use layoutrand::measurements::{load_measurements, CsvSpec};
use layoutrand::report::export::analyze_text::render_analysis;
use layoutrand::units::parse_costs;

use super::common::{BootstrapArgs, ConfidenceArgs, CsvColumnsArgs, FormatArgs, OutputFormat};

/// Arguments of `layoutrand analyze`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// CSV file with a header row.
    pub file: PathBuf,
    #[command(flatten)]
    pub columns: CsvColumnsArgs,
    /// Cost of one repetition at each level, e.g. `binary=20s,execution=2s,iteration=0.5s`
    /// (the levels are the --levels columns; Kalibera & Jones §9.1); with them the optimal
    /// repetition counts (eq. 3) are reported.
    #[arg(long)]
    pub costs: Option<String>,
    #[command(flatten)]
    pub confidence: ConfidenceArgs,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub format: FormatArgs,
}

/// Runs `layoutrand analyze`.
pub fn run(args: Args) -> Result<i32> {
    let (levels, value) = args.columns.checked()?;
    let thresholds = Thresholds::new(args.confidence.confidence, 0.0)?;
    let spec = CsvSpec {
        levels,
        value,
        require_positive: false,
    };
    let loaded = load_measurements(&args.file, &spec)?;
    let data = Dataset {
        source: args.file.display().to_string(),
        value: value.to_string(),
        levels: levels.to_vec(),
        hierarchy: loaded.hierarchy,
    };
    let costs = args
        .costs
        .as_deref()
        .map(|text| costs_for_levels(&parse_costs(text)?, levels))
        .transpose()?;
    let mut analysis = analyze(
        &data,
        &thresholds,
        costs.as_deref(),
        args.bootstrap.options(),
    )?;
    if loaded.default_layout_rows > 0 {
        (analysis.excluded).push(Excluded::DefaultLayoutRows(loaded.default_layout_rows));
    }
    if loaded.as_built_rows > 0 {
        (analysis.excluded).push(Excluded::AsBuiltRows(loaded.as_built_rows));
    }
    match args.format.format {
        OutputFormat::Json => layoutrand::outln!("{}", serde_json::to_string_pretty(&analysis)?),
        OutputFormat::Text => layoutrand::out!(
            "{}",
            layoutrand::printable::for_terminal(&render_analysis(&analysis, &data.source))
        ),
    }
    Ok(0)
}
