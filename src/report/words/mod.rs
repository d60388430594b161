//! The sentences of the report, built from the model's numbers and enums: one file per
//! question. The analysis ([`crate::analysis`]) leaves every `text` of the model empty and
//! says what it found as figures and grounds (e.g.
//! [`crate::analysis::report::model::SensitivityGrounds`]); [`fill`] writes the sentences
//! once, after the analysis and before any exporter, so the text, Markdown, HTML and JSON
//! outputs carry the same words. Functions here are pure: model in, `String` out.

pub mod sensitivity;
pub mod variance_split;

use crate::analysis::report::model::Report;
use crate::analysis::vocabulary::Thresholds;

/// Writes every sentence of `report` from its numbers and grounds, at the report's own
/// confidence and relevance threshold.
pub fn fill(report: &mut Report) {
    let thresholds = Thresholds {
        confidence: report.confidence,
        negligible: report.negligible,
    };
    for series in &mut report.series {
        series.sensitivity.text = sensitivity::sentence(&series.sensitivity, &thresholds);
    }
}
