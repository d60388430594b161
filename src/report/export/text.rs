//! Plain text for a terminal.

use std::fmt::Write;

use anyhow::Result;

use super::tables::{
    as_built_lines, baseline_line, confidence_line, diagnostic_lines, lead_variant_lines,
    level_rows, mean_line, series_title, setup_line, stopping_line, variant_lines, LEVEL_HEADERS,
    VARIANTS_LEAD_TITLE, VARIANTS_TITLE,
};
use super::Exporter;
use crate::analysis::report::model::Report;

/// Plain text.
#[derive(Debug, Clone, Copy)]
pub struct TextExporter;

impl Exporter for TextExporter {
    fn export(&self, report: &Report) -> Result<String> {
        let mut out = String::new();
        writeln!(out, "layoutrand report of {}", report.directory)?;
        writeln!(out, "{}", confidence_line(report))?;
        writeln!(out, "Set-up: {}", setup_line(report))?;
        if let Some(line) = stopping_line(report) {
            writeln!(out, "{line}")?;
        }
        let glance = super::glance::glance_text(report, "  ");
        if !glance.is_empty() {
            write!(out, "\n{}:\n{glance}", super::glance::GLANCE_TITLE)?;
        }
        for line in &report.across_metrics {
            writeln!(out, "Across metrics: {line}")?;
        }
        let lead = lead_variant_lines(report);
        if !lead.is_empty() {
            writeln!(out, "\n{VARIANTS_LEAD_TITLE}:")?;
            for line in lead {
                writeln!(out, "  {line}")?;
            }
        }
        for s in &report.series {
            let title = series_title(s);
            writeln!(out, "\n{title}\n{}", "=".repeat(title.chars().count()))?;
            writeln!(out, "{}", mean_line(s, report.confidence))?;
            if let Some(b) = baseline_line(s, report.confidence) {
                writeln!(out, "{b}")?;
            }
            writeln!(out, "\nVariation by level (Kalibera & Jones eq. 1–2):")?;
            let mut rows = vec![LEVEL_HEADERS.map(String::from)];
            rows.extend(level_rows(s));
            out.push_str(&aligned(&rows, "  "));
            writeln!(out, "\nLayout sensitivity: {}", s.sensitivity.text)?;
            writeln!(out, "Layout shift: {}", s.shift.text)?;
            writeln!(
                out,
                "Default layout among random layouts: {}",
                s.default_layout.text
            )?;
            for line in as_built_lines(s, report.confidence) {
                writeln!(out, "{line}")?;
            }
            writeln!(out, "\nDiagnostics:")?;
            for line in diagnostic_lines(s, report.confidence) {
                writeln!(out, "  - {line}")?;
            }
            writeln!(out, "\nIn short: {}", s.summary)?;
        }
        let variants = variant_lines(report);
        if !variants.is_empty() {
            writeln!(out, "\n{VARIANTS_TITLE}:")?;
            for line in variants {
                writeln!(out, "  {line}")?;
            }
        }
        let sequential = super::sequential::sequential_lines(report);
        if !sequential.is_empty() {
            let title = super::sequential::SEQUENTIAL_TITLE;
            writeln!(
                out,
                "\n{title}:\n  {}",
                super::sequential::sequential_note(report)
            )?;
            for line in sequential {
                writeln!(out, "  - {line}")?;
            }
        }
        out.push_str(&crate::report::render_machines::render_text(
            &report.machines,
        ));
        if !report.warnings.is_empty() {
            writeln!(out, "\nWarnings:")?;
            for w in &report.warnings {
                writeln!(out, "  - {w}")?;
            }
        }
        Ok(out)
    }
}

/// Rows as left-aligned columns (numbers right-aligned), each line indented by `indent`.
pub fn aligned(rows: &[[String; 5]], indent: &str) -> String {
    crate::report::columns::aligned(rows, indent, "  ")
}
