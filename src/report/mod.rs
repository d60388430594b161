//! Renderings of the answers about an experiment: `report`, `dimension` and `compare`, in
//! text, Markdown, JSON, CSV and HTML.
//!
//! The numbers come from [`crate::analysis::answers`] (the experiment loaded, analysed into a
//! [`crate::analysis::answers::model::Report`], the plotted data chosen); [`words`] makes
//! every sentence from the model's numbers and enums. An [`export::Exporter`] renders a
//! report (the HTML one draws the plots' data with [`export::plots`]); [`render_compare`]
//! and [`render_dimension`] render those answers; [`slurm_status`] the shards of a Slurm run;
//! [`doctor`] the doctor's answer ([`crate::analysis::doctor`]) and each check's sentence.
//! The text, Markdown, HTML and summary reports are [`document::Document`]s rendered by its
//! backends. Nothing here computes a number.

pub mod build_summary;
pub(crate) mod checks;
pub(crate) mod columns;
pub mod doctor;
pub mod document;
pub mod export;
pub mod gate;
pub mod numfmt;
pub mod pin;
pub mod render_compare;
pub mod render_dimension;
pub mod slurm_status;
pub(crate) mod title;
pub mod watch;
pub mod words;

use std::path::Path;

use anyhow::Result;

use crate::analysis::answers::analyse_directory;
use crate::analysis::answers::builder::AnalysisOptions;
use crate::report::gate::{Gate, GateJudgement};

pub use export::Format;

/// Loads the experiment in `dir`, keeps `metrics` (all when empty), analyses it with every
/// option of `report` (`--fail-if-slower`, `--bootstrap`) and renders it in `format`:
/// also each comparison the gate judged, failed when its whole ratio interval says a variant
/// is slower than its base by more than `options.fail_if_slower` (see `gate_judgements` below).
pub fn render_gated_report(
    dir: &Path,
    format: Format,
    options: &AnalysisOptions,
    metrics: &[String],
) -> Result<(String, Gate)> {
    let report = analyse_directory(dir, options, metrics)?;
    render_with_gate(&report, format)
}

/// `report` rendered in `format`, and what the CI gate judged in it (nothing without
/// `--fail-if-slower`): [`render_gated_report`] of a report already analysed.
pub fn render_with_gate(
    report: &crate::analysis::answers::model::Report,
    format: Format,
) -> Result<(String, Gate)> {
    let text = export::exporter(format).export(report)?;
    // JSON escapes its own control characters (and `\x` is no JSON escape); every other
    // format is read on a terminal or in a browser.
    let text = match format {
        Format::Json | Format::Bmf => text,
        _ => crate::printable::for_terminal(&text).into_owned(),
    };
    let gate = Gate {
        judged: gate_judgements(report),
        refused: report
            .incomplete
            .as_ref()
            .map(words::incomplete::gate_refusal),
    };
    Ok((text, gate))
}

/// The comparisons of `report` that the CI gate judged (`--fail-if-slower` given, on a gated
/// metric), each named ("program metric: new against base: effect") with whether it failed:
/// the whole ratio interval says the variant is slower than its base by more than the gate
/// allows. Empty without a gate, or when it had nothing to judge (no variants).
fn gate_judgements(report: &crate::analysis::answers::model::Report) -> Vec<GateJudgement> {
    let suites = report
        .suite_comparisons
        .iter()
        .filter(|c| c.gated)
        .map(|c| words::suite::gate_judgement(c, &c.program, report.confidence));
    report
        .comparisons
        .iter()
        .filter(|c| c.pair.gated)
        .map(|c| {
            GateJudgement::of(
                &c.pair,
                format!(
                    "{} {}: {} against {}: {}",
                    c.program,
                    c.metric,
                    c.new,
                    c.base,
                    words::effect::words(&c.pair.effect)
                ),
                report.confidence,
            )
        })
        .chain(suites)
        .collect()
}
