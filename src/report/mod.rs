//! Answers from an experiment: `report`, `dimension` and `compare`, in text, Markdown, JSON,
//! CSV and HTML.
//!
//! The flow: [`experiment::load`] reads the manifest (when there) and store into balanced
//! data sets (one per program and metric); [`analysis::analyse`] turns them into a [`model::Report`] using
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
/// also names each comparison whose whole ratio interval says a variant is slower than its
/// base by more than `options.fail_if_slower` ("program metric: new against base: effect";
/// empty when the gate passes).
pub fn render_gated_report(
    dir: &Path,
    format: Format,
    options: &analysis::AnalysisOptions,
    metrics: &[String],
) -> Result<(String, Vec<String>)> {
    let mut experiment = experiment::load_with_context(dir)?;
    experiment.retain_metrics(metrics)?;
    let report = analysis::analyse_with(&experiment, options)?;
    let tripped = report
        .comparisons
        .iter()
        .filter(|c| c.pair.slower_beyond_threshold)
        .map(|c| {
            format!(
                "{} {}: {} against {}: {}",
                c.program, c.metric, c.new, c.base, c.pair.effect.words
            )
        })
        .collect();
    Ok((
        export::exporter(format).export(&report, &experiment)?,
        tripped,
    ))
}
