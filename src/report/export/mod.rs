//! One exporter per output format behind one trait, in the manner of hyperfine's
//! `src/export`: each turns the same [`Report`] into a string. The report carries everything
//! drawn, the plots' data included; the [`Experiment`] it was computed from is passed too but
//! no exporter reads it any more (it stays in the signature so that callers did not change).

use anyhow::Result;

use crate::analysis::report::experiment::Experiment;
use crate::analysis::report::model::Report;

pub mod analyze_text;
pub mod bmf;
pub mod compare_text;
pub mod csv;
pub mod explain;
pub mod html;
pub mod html_machines;
pub mod html_parts;
pub mod html_variants;
pub mod json;
pub mod layout_text;
pub mod markdown;
pub mod plots;
pub mod run_summary;
pub mod sequential;
pub mod summary;
pub mod svg;
pub mod svg_variants;
pub mod tables;
pub mod text;
pub mod variant_plots;

/// Renders a report in one format.
pub trait Exporter {
    /// The whole document.
    fn export(&self, report: &Report, experiment: &Experiment) -> Result<String>;
}

/// The output formats of `layoutrand report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Plain text for a terminal.
    Text,
    /// GitHub-flavoured Markdown tables.
    Markdown,
    /// JSON with the schema of docs/report.md.
    Json,
    /// One CSV row per program and metric.
    Csv,
    /// One self-contained HTML file with inline SVG plots.
    Html,
    /// Bencher Metric Format JSON, for `bencher run --adapter json`.
    Bmf,
    /// The answers in a few lines of Markdown (a CI job's summary, a PR comment).
    Summary,
}

/// The exporter of `format`.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Text => Box::new(text::TextExporter),
        Format::Markdown => Box::new(markdown::MarkdownExporter),
        Format::Json => Box::new(json::JsonExporter),
        Format::Csv => Box::new(csv::CsvExporter),
        Format::Html => Box::new(html::HtmlExporter),
        Format::Bmf => Box::new(bmf::BmfExporter),
        Format::Summary => Box::new(summary::SummaryExporter),
    }
}
