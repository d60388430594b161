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
    let mut experiment = experiment::load_with_context(dir)?;
    experiment.retain_metrics(metrics)?;
    let report = analysis::analyse(&experiment, thresholds)?;
    export::exporter(format).export(&report, &experiment)
}
