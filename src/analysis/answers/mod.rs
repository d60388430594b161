//! The answers about an experiment directory: `report`, `dimension` and `compare`, as data.
//!
//! The flow: [`experiment::load`] reads the manifest (when there) and store into balanced
//! data sets (one per program and metric, [`series`], [`balance`]); [`builder::analyse`]
//! turns them into a [`model::Report`] — per level ([`crate::stats`]), [`sensitivity`],
//! [`shift`] (and [`as_built`], the build's own binary), [`data_split`] (code, data and run
//! noise, when the run varied the data layout) and [`crossed_mean`] (the mean's interval then), [`diagnostics`], [`machines`] and the data each plot shows ([`plots`] fills
//! [`plot_data`]).
//! [`dimension`] and [`compare`] build their own answers from the same experiment model.
//! Everything here is a number or an enum; the sensitivity verdict carries its grounds
//! ([`model::SensitivityGrounds`]). The model's sentence slots are left empty here and
//! written from those numbers and enums by `crate::report::words`, which
//! [`crate::report`] calls before it renders.

pub(crate) mod as_built;
pub(crate) mod balance;
pub mod builder;
mod code_axis;
pub mod compare;
pub mod crossed_mean;
pub mod data_sensitivity;
pub mod data_split;
pub(crate) mod diagnostics;
pub mod dimension;
pub mod experiment;
pub mod host_conditions;
pub(crate) mod machines;
pub mod model;
pub(crate) mod paired_shift;
pub(crate) mod phases;
pub(crate) mod plot_data;
pub(crate) mod plots;
pub(crate) mod screening;
pub mod sensitivity;
pub(crate) mod sequential;
pub mod series;
mod set_aside_padding;
pub(crate) mod shift;
pub mod spread;
pub mod suite;

use std::path::Path;

use anyhow::Result;

use builder::AnalysisOptions;
use model::Report;

/// Loads the experiment in `dir`, keeps the given metrics (all when empty) and analyses it
/// with `options`: the data `layoutrand report DIR` renders (everything drawn included).
pub(crate) fn analyse_directory(
    dir: &Path,
    options: &AnalysisOptions,
    metrics: &[String],
) -> Result<Report> {
    let mut experiment = experiment::load_with_context(dir)?;
    experiment.retain_metrics(metrics)?;
    builder::analyse_with(&experiment, options)
}
