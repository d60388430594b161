//! GitHub-flavoured Markdown, tables in hyperfine's spirit.

use std::fmt::Write;

use anyhow::Result;

use super::tables::{
    as_built_lines, baseline_line, confidence_line, diagnostic_lines, lead_variant_lines,
    level_rows, mean_line, series_title, setup_line, stopping_line, variant_lines, LEVEL_HEADERS,
    VARIANTS_LEAD_TITLE,
};
use super::Exporter;
use crate::analysis::report::model::Report;

/// Markdown.
#[derive(Debug, Clone, Copy)]
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn export(&self, report: &Report) -> Result<String> {
        let mut out = String::new();
        writeln!(out, "# layoutrand report of `{}`\n", report.directory)?;
        writeln!(out, "{}\n", confidence_line(report))?;
        writeln!(out, "Set-up: {}", setup_line(report))?;
        if let Some(line) = stopping_line(report) {
            writeln!(out, "\n{line}")?;
        }
        glance_markdown(&mut out, report)?;
        for line in &report.across_metrics {
            writeln!(out, "\n**Across metrics:** {line}")?;
        }
        let lead = lead_variant_lines(report);
        if !lead.is_empty() {
            writeln!(out, "\n## {VARIANTS_LEAD_TITLE}\n")?;
            for line in lead {
                writeln!(out, "- {line}")?;
            }
        }
        for s in &report.series {
            writeln!(out, "\n## {}\n", series_title(s))?;
            writeln!(out, "{}", mean_line(s, report.confidence))?;
            if let Some(b) = baseline_line(s, report.confidence) {
                writeln!(out, "\n{b}")?;
            }
            writeln!(out, "\n| {} |", LEVEL_HEADERS.join(" | "))?;
            writeln!(out, "|:---|---:|---:|---:|---:|")?;
            for row in level_rows(s) {
                writeln!(out, "| {} |", row.join(" | "))?;
            }
            writeln!(out, "\n**Layout sensitivity:** {}\n", s.sensitivity.text)?;
            writeln!(out, "**Layout shift:** {}\n", s.shift.text)?;
            writeln!(
                out,
                "**Default layout among random layouts:** {}\n",
                s.default_layout.text
            )?;
            for line in as_built_lines(s, report.confidence) {
                writeln!(out, "{line}\n")?;
            }
            writeln!(out, "### Diagnostics\n")?;
            for line in diagnostic_lines(s, report.confidence) {
                writeln!(out, "- {line}")?;
            }
            writeln!(out, "\n**In short:** {}", s.summary)?;
        }
        let variants = variant_lines(report);
        if !variants.is_empty() {
            writeln!(out, "\n## Variants\n\n```text")?;
            for line in variants {
                writeln!(out, "{line}")?;
            }
            writeln!(out, "```")?;
        }
        let machines = crate::report::render_machines::render_text(&report.machines);
        if !machines.is_empty() {
            writeln!(out, "\n## Machines\n\n```text{machines}```")?;
        }
        if !report.warnings.is_empty() {
            writeln!(out, "\n## Warnings\n")?;
            for w in &report.warnings {
                writeln!(out, "- {w}")?;
            }
        }
        Ok(out)
    }
}

/// The glance as Markdown tables (nothing without a series).
fn glance_markdown(out: &mut String, report: &Report) -> std::fmt::Result {
    use super::glance::{
        glance_comparisons, glance_rows, COMPARISON_HEADERS, GLANCE_HEADERS, GLANCE_TITLE,
    };
    let rows = glance_rows(report);
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n## {GLANCE_TITLE}\n")?;
    writeln!(
        out,
        "| {} |\n|:---|:---|:---|:---|",
        GLANCE_HEADERS.join(" | ")
    )?;
    for row in rows {
        writeln!(
            out,
            "| {} |",
            row.map(|c| c.replace('|', "\\|")).join(" | ")
        )?;
    }
    let comparisons = glance_comparisons(report);
    if !comparisons.is_empty() {
        writeln!(
            out,
            "\n| {} |\n|:---|:---|:---|",
            COMPARISON_HEADERS.join(" | ")
        )?;
        for row in comparisons {
            writeln!(
                out,
                "| {} |",
                row.map(|c| c.replace('|', "\\|")).join(" | ")
            )?;
        }
    }
    Ok(())
}
