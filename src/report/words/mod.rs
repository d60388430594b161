//! The sentences of the report, built from the model's numbers and enums: one file per
//! question. The analysis ([`crate::analysis`]) leaves every `text` of the model empty and
//! says what it found as figures and grounds (e.g.
//! [`crate::analysis::answers::model::SensitivityGrounds`]); [`fill`] writes the sentences
//! once, after the analysis and before any exporter, so the text, Markdown, HTML and JSON
//! outputs carry the same words. Functions here are pure: model in, `String` out.

pub(crate) mod across_programs;
pub(crate) mod answers;
pub(crate) mod as_built;
pub(crate) mod balance;
pub(crate) mod comparison;
pub(crate) mod crossed_mean;
pub(crate) mod data_sensitivity;
pub(crate) mod default_layout;
pub(crate) mod diagnostics;
pub mod dimension;
pub mod effect;
pub(crate) mod experiment;
pub(crate) mod explain;
pub(crate) mod host_conditions;
pub(crate) mod incomplete;
pub(crate) mod interaction;
pub mod machines;
pub(crate) mod pair;
pub(crate) mod plots;
pub mod run_summary;
pub(crate) mod sensitivity;
pub(crate) mod sequential;
pub(crate) mod setup;
pub(crate) mod shift;
pub mod single;
pub(crate) mod summary;
pub mod variance_split;
pub(crate) mod variants;
pub(crate) mod versus_baseline;
pub(crate) mod withheld;

use crate::analysis::answers::model::Report;
use crate::analysis::vocabulary::Thresholds;

/// How every report names what only `manifest.json` records (the build's granularity,
/// linker, mode, padding, link times) when the directory holds only `results.jsonl`: the
/// store cannot tell, so the report says so rather than guess (JSON: `null`).
pub const UNKNOWN_WITHOUT_MANIFEST: &str = "unknown (no manifest.json)";

/// Why a statistic of finite values is not computable: their spread (a sum of squares)
/// overflows f64. One wording for every command that says it (`analyze`, `report`).
pub(crate) const OVERFLOW_REASON: &str =
    "the spread of the values exceeds the range of double precision (values near ±1.8e308)";

/// Writes every sentence of `report` from its numbers and grounds, at the report's own
/// confidence and relevance threshold.
pub(crate) fn fill(report: &mut Report) {
    let thresholds = Thresholds {
        confidence: report.confidence,
        negligible: report.negligible,
    };
    report.setup.host_warnings = (report.setup.host_conditions.iter())
        .map(host_conditions::warning)
        .collect();
    setup::fill(&mut report.setup);
    let host_warnings = &report.setup.host_warnings;
    for series in &mut report.series {
        single::fill_series(series);
        diagnostics::fill(&mut series.diagnostics);
        series.sensitivity.text = sensitivity::sentence(&series.sensitivity, &thresholds);
        let (unit, is_time) = (series.unit.as_str(), series.is_time);
        series.shift.text = shift::sentence(&series.shift, &shift::BASELINE, is_time);
        series.default_layout.text = default_layout::sentence(
            &series.default_layout,
            &shift::BASELINE,
            (unit, is_time),
            &thresholds,
        );
        if let Some(a) = series.as_built.as_mut() {
            a.shift.text = shift::sentence(&a.shift, &shift::AS_BUILT, is_time);
            a.placement.text = default_layout::sentence(
                &a.placement,
                &shift::AS_BUILT,
                (unit, is_time),
                &thresholds,
            );
            a.text = as_built::sentence(a, is_time, &thresholds);
        }
        let scale = series.scale();
        if let Some(q) = series.sequential.as_mut() {
            q.text = sequential::series_sentence(q, &scale);
        }
        if let Some(d) = series.data_sensitivity.as_mut() {
            d.text = data_sensitivity::sentence(d, &thresholds);
        }
        // Last: it quotes the answers' sentences.
        series.summary = summary::summary(series, &thresholds, host_warnings);
    }
    for m in &mut report.multiple {
        variants::fill_tukey(&mut m.family);
    }
    for c in &mut report.comparisons {
        variants::fill(c);
        if let Some(q) = c.sequential.as_mut() {
            q.text = sequential::pair_sentence(q);
        }
    }
    machines::fill(&mut report.machines);
    report.across_metrics = answers::across_metrics(&report.series);
    // The analysis's warnings first, then the machines', then those added after it.
    let mut warnings: Vec<String> = report
        .warning_grounds
        .iter()
        .map(experiment::report_warning)
        .collect();
    warnings.extend(machines::warnings(&report.machines));
    warnings.append(&mut report.warnings);
    warnings.extend(report.unreplayed.iter().map(sequential::unreplayed));
    report.warnings = warnings;
}
