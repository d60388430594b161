//! One CSV row per program and metric, flat columns, empty cells for "not computable".

use anyhow::Result;

use super::Exporter;
use crate::analysis::report::experiment::Experiment;
use crate::analysis::report::model::{Report, Verdict};

/// CSV.
#[derive(Debug, Clone, Copy)]
pub struct CsvExporter;

/// The columns, in order.
/// `variant` and the bootstrap columns come last so that readers of the first 22 columns
/// (reports before variants and `--bootstrap`) keep working; the default layout's verdict
/// and prediction interval were added after them.
pub const COLUMNS: [&str; 28] = [
    "program",
    "metric",
    "unit",
    "confidence",
    "binaries",
    "executions",
    "iterations",
    "mean",
    "ci_lower",
    "ci_upper",
    "relative_half_width",
    "t_iteration",
    "t_execution",
    "t_binary",
    "anova_f",
    "anova_p",
    "icc",
    "sensitivity",
    "shift_ratio",
    "shift_ci_lower",
    "shift_ci_upper",
    "shift",
    "variant",
    "bootstrap_lower",
    "bootstrap_upper",
    "default_layout",
    "default_layout_pi_lower",
    "default_layout_pi_upper",
];

fn opt(x: Option<f64>) -> String {
    x.map_or_else(String::new, |v| format!("{v}"))
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Detected => "detected",
        Verdict::Negligible => "negligible",
        Verdict::NotDetected => "not_detected",
        Verdict::Undetermined => "undetermined",
    }
}

impl Exporter for CsvExporter {
    fn export(&self, report: &Report, _experiment: &Experiment) -> Result<String> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        w.write_record(COLUMNS)?;
        for s in &report.series {
            let level = |name: &str| s.levels.iter().find(|l| l.name == name);
            let reps = |name: &str| level(name).map_or(1, |l| l.repetitions).to_string();
            let t = |name: &str| opt(level(name).and_then(|l| l.relative_variation));
            let row = [
                s.program.clone(),
                s.metric.clone(),
                s.unit.clone(),
                format!("{}", report.confidence),
                reps("binary"),
                reps("execution"),
                reps("iteration"),
                format!("{}", s.mean),
                opt(s.ci.map(|c| c.lower)),
                opt(s.ci.map(|c| c.upper)),
                opt(s.relative_half_width),
                t("iteration"),
                t("execution"),
                t("binary"),
                opt(s.sensitivity.f),
                opt(s.sensitivity.p_value),
                opt(s.sensitivity.icc),
                verdict(s.sensitivity.verdict).to_string(),
                opt(s.shift.ratio),
                opt(s.shift.ci.map(|c| c.lower)),
                opt(s.shift.ci.map(|c| c.upper)),
                verdict(s.shift.verdict).to_string(),
                s.variant.clone().unwrap_or_default(),
                opt(s.bootstrap.as_ref().map(|b| b.low)),
                opt(s.bootstrap.as_ref().map(|b| b.high)),
                verdict(s.default_layout.verdict).to_string(),
                opt(s.default_layout.prediction_interval.map(|p| p.lower)),
                opt(s.default_layout.prediction_interval.map(|p| p.upper)),
            ];
            w.write_record(&row)?;
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }
}
