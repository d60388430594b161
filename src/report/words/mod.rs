//! The sentences of the report, built from the model's numbers and enums: one file per
//! question. The analysis ([`crate::analysis`]) leaves every `text` of the model empty and
//! says what it found as figures and grounds (e.g.
//! [`crate::analysis::report::model::SensitivityGrounds`]); [`fill`] writes the sentences
//! once, after the analysis and before any exporter, so the text, Markdown, HTML and JSON
//! outputs carry the same words. Functions here are pure: model in, `String` out.

pub mod as_built;
pub mod comparison;
pub mod default_layout;
pub mod diagnostics;
pub mod pair;
pub mod sensitivity;
pub mod shift;
pub mod single;
pub mod summary;
pub mod variance_split;
pub mod variants;
pub mod versus_baseline;

use crate::analysis::report::model::{Report, ReportWarning};
use crate::analysis::vocabulary::Thresholds;

/// Writes every sentence of `report` from its numbers and grounds, at the report's own
/// confidence and relevance threshold.
pub fn fill(report: &mut Report) {
    let thresholds = Thresholds {
        confidence: report.confidence,
        negligible: report.negligible,
    };
    let said_later = std::mem::take(&mut report.warnings);
    report.warnings = report
        .concerns
        .iter()
        .map(warning)
        .chain(said_later)
        .collect();
    let host_warnings = &report.setup.host_warnings;
    for series in &mut report.series {
        diagnostics::fill(&mut series.diagnostics);
        series.sensitivity.text = sensitivity::sentence(&series.sensitivity, &thresholds);
        let (unit, is_time) = (series.unit.as_str(), series.is_time);
        series.shift.text = shift::sentence(&series.shift, &shift::BASELINE, is_time, &thresholds);
        series.default_layout.text = default_layout::sentence(
            &series.default_layout,
            &shift::BASELINE,
            (unit, is_time),
            &thresholds,
        );
        if let Some(a) = series.as_built.as_mut() {
            a.shift.text = shift::sentence(&a.shift, &shift::AS_BUILT, is_time, &thresholds);
            a.placement.text = default_layout::sentence(
                &a.placement,
                &shift::AS_BUILT,
                (unit, is_time),
                &thresholds,
            );
            a.text = as_built::sentence(a, is_time, &thresholds);
        }
        // Last: it quotes the answers' sentences.
        series.summary = summary::summary(series, &thresholds, host_warnings);
    }
}

/// One of the report's warnings in words, e.g. "lua wall: O3 vs O2: no interaction test: …".
fn warning(w: &ReportWarning) -> String {
    match w {
        ReportWarning::Said(words) => words.clone(),
        ReportWarning::Variant {
            program,
            metric,
            warning,
        } => format!("{program} {metric}: {}", variants::warning(warning)),
    }
}
