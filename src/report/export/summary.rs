//! `--format summary`: the answers in a few lines of Markdown, for a CI job's page
//! (`>> $GITHUB_STEP_SUMMARY`) or a pull-request comment. It leads with a table of answers —
//! one row per comparison of variants, then one per program and metric — each with its
//! verdict, effect and interval, and points to the full report for the rest. Every word and
//! number is the report's (the one engine); nothing is computed here.

use std::fmt::Write;

use anyhow::Result;

use super::Exporter;
use crate::analysis::numfmt::{estimate, percent};
use crate::analysis::report::model::{Report, SeriesReport, Verdict};
use crate::analysis::report::series::program_label;

/// The short Markdown summary.
#[derive(Debug, Clone, Copy)]
pub struct SummaryExporter;

/// Rows of a table at most; the rest is counted and left to the full report.
const MAX_ROWS: usize = 15;

/// A table cell: `|` would end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The layout-sensitivity answer in a few words, with its magnitude.
fn sensitivity_words(s: &SeriesReport) -> String {
    let by = |v: Option<f64>| v.map(|v| format!(": varies {} by layout", percent(v, 2)));
    match s.sensitivity.verdict {
        Verdict::Detected => format!(
            "layout-sensitive{}",
            by(s.sensitivity.layout_variation).unwrap_or_default()
        ),
        Verdict::Negligible => "detectable but negligible".to_string(),
        Verdict::NotDetected => "not detected".to_string(),
        Verdict::Undetermined => match (&s.sensitivity.rests_on, s.sensitivity.detectable_variation) {
            (Some(r), _) => format!(
                "cannot tell: rests on one binary, {} ({}{} from the others; re-measure it with `run --resume --extend-executions K`)",
                r.binary,
                if r.deviation >= 0.0 { "+" } else { "" },
                percent(r.deviation, 2)
            ),
            (None, Some(d)) => format!("cannot tell (nothing below {} detectable)", percent(d, 2)),
            (None, None) => "cannot tell".to_string(),
        },
    }
}

/// The default layout's answer in a few words.
fn default_layout_words(s: &SeriesReport) -> &'static str {
    match s.default_layout.verdict {
        Verdict::Detected => "unusual: results on it alone are biased",
        Verdict::Negligible => "unusual, by a negligible amount",
        Verdict::NotDetected => "an ordinary layout",
        Verdict::Undetermined => "cannot tell",
    }
}

/// The mean over random layouts with its interval, or why there is none.
fn mean_words(s: &SeriesReport, confidence: f64) -> String {
    match s.ci {
        Some(ci) => estimate(s.mean, ci.lower, ci.upper, &s.unit, confidence),
        None => format!(
            "{} (no interval: {})",
            crate::analysis::numfmt::quantity(s.mean, &s.unit),
            s.interval_note.as_deref().unwrap_or("too few binaries")
        ),
    }
}

/// Writes a table's rows, at most [`MAX_ROWS`], and how many were left out.
fn rows(out: &mut String, rows: &[String]) -> std::fmt::Result {
    for r in rows.iter().take(MAX_ROWS) {
        writeln!(out, "{r}")?;
    }
    if rows.len() > MAX_ROWS {
        writeln!(
            out,
            "\n… and {} more rows in the full report.",
            rows.len() - MAX_ROWS
        )?;
    }
    Ok(())
}

impl Exporter for SummaryExporter {
    fn export(&self, report: &Report) -> Result<String> {
        let mut out = String::new();
        writeln!(out, "### layoutrand: `{}`\n", report.directory)?;
        if !report.comparisons.is_empty() {
            writeln!(out, "| variant | metric | answer | effect (interval) |")?;
            writeln!(out, "|:---|:---|:---|:---|")?;
            let lines: Vec<String> = report
                .comparisons
                .iter()
                .map(|c| {
                    format!(
                        "| {} vs {} | {} | **{}** | {} |",
                        cell(&program_label(&c.program, Some(&c.new))),
                        cell(&c.base),
                        cell(&c.metric),
                        c.pair.verdict,
                        cell(&c.pair.effect.words)
                    )
                })
                .collect();
            rows(&mut out, &lines)?;
            writeln!(out)?;
        }
        writeln!(
            out,
            "| program | metric | mean over random layouts | layout sensitivity | default layout |"
        )?;
        writeln!(out, "|:---|:---|:---|:---|:---|")?;
        let lines: Vec<String> = report
            .series
            .iter()
            .map(|s| {
                format!(
                    "| {} | {} | {} | {} | {} |",
                    cell(&program_label(&s.program, s.variant.as_deref())),
                    cell(&s.metric),
                    cell(&mean_words(s, report.confidence)),
                    cell(&sensitivity_words(s)),
                    default_layout_words(s)
                )
            })
            .collect();
        rows(&mut out, &lines)?;
        if !report.setup.host_warnings.is_empty() {
            writeln!(
                out,
                "\n⚠ Measured on a loaded or unsteady host: time verdicts may reflect the host."
            )?;
        }
        writeln!(
            out,
            "\n{} intervals; effects within ±{} count as negligible. The full report: `layoutrand report {}`.",
            crate::analysis::numfmt::level(report.confidence),
            percent(report.negligible, 2),
            report.directory
        )?;
        Ok(out)
    }
}
