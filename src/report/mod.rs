//! Answers from an experiment: `report`, `dimension` and `compare`, in text, Markdown, JSON,
//! CSV and HTML.
//!
//! The flow: [`experiment::load`] reads the manifest and store into balanced data sets (one
//! per program and metric); [`analysis::analyse`] turns them into a [`model::Report`] using
//! the pure statistics of [`crate::stats`]; an [`export::Exporter`] renders it.
//! [`dimension`] and [`compare`] build their own answers from the same experiment model.

pub mod analysis;
pub mod balance;
pub mod columns;
pub mod compare;
pub mod diagnostics;
pub mod dimension;
pub mod experiment;
pub mod export;
pub mod machines;
pub mod model;
pub mod plots;
pub mod sensitivity;
pub mod series;
pub mod shift;

use std::path::Path;

use anyhow::Result;

pub use export::Format;

/// Loads the experiment in `dir`, keeps the given metrics (all when empty), analyses it at
/// `thresholds` and renders it in `format`: what `layoutrand report DIR --format F
/// --confidence C --negligible N [--metric M]…` prints.
pub fn render_report(
    dir: &Path,
    format: Format,
    thresholds: &crate::analysis::vocabulary::Thresholds,
    metrics: &[String],
) -> Result<String> {
    let options = analysis::AnalysisOptions {
        thresholds: *thresholds,
        ..Default::default()
    };
    Ok(render_gated_report(dir, format, &options, metrics)?.0)
}

/// [`render_report`] with every option of `report` (`--fail-if-slower`, `--bootstrap`):
/// also says whether some variant's whole ratio interval is slower than its base by more
/// than `options.fail_if_slower`.
pub fn render_gated_report(
    dir: &Path,
    format: Format,
    options: &analysis::AnalysisOptions,
    metrics: &[String],
) -> Result<(String, bool)> {
    let mut experiment = experiment::load_with_context(dir)?;
    experiment.retain_metrics(metrics)?;
    let report = analysis::analyse_with(&experiment, options)?;
    let failed = report.comparisons.iter().any(|c| c.slower_beyond_threshold);
    Ok((
        export::exporter(format).export(&report, &experiment)?,
        failed,
    ))
}
