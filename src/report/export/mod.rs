//! One exporter per output format behind one trait, in the manner of hyperfine's
//! `src/export`: each turns the same [`Report`] into a string. The report carries everything
//! drawn, the plots' data included, so an exporter reads nothing else.

use anyhow::Result;

use crate::analysis::answers::model::Report;

pub mod analyze_text;
pub mod bmf;
pub mod compare_text;
pub mod csv;
pub mod explain;
pub mod explain_html;
pub(crate) mod glance;
pub(crate) mod html_parts;
pub(crate) mod json;
pub mod layout_text;
pub(crate) mod plots;
pub(crate) mod report_document;
pub(crate) mod report_sections;
pub(crate) mod report_split;
pub mod run_summary;
pub(crate) mod sequential;
pub(crate) mod summary;
pub mod svg;
pub(crate) mod svg_explain;
pub(crate) mod svg_split;
pub(crate) mod svg_variants;
pub mod tables;
pub(crate) mod variant_plots;

/// Renders a report in one format.
pub trait Exporter {
    /// The whole document.
    fn export(&self, report: &Report) -> Result<String>;
}

/// The output formats of `layoutrand report` (the library does not depend on clap: the CLI
/// offers [`Format::NAMES`] and parses them with [`std::str::FromStr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

impl Format {
    /// Every format, in the order `--help` lists them.
    pub(crate) const ALL: [Format; 7] = [
        Format::Text,
        Format::Markdown,
        Format::Json,
        Format::Csv,
        Format::Html,
        Format::Bmf,
        Format::Summary,
    ];
    /// Their names on the command line, in the order of [`Format::ALL`].
    pub const NAMES: [&'static str; 7] =
        ["text", "markdown", "json", "csv", "html", "bmf", "summary"];

    /// The format's name on the command line.
    pub(crate) fn name(self) -> &'static str {
        let at = Format::ALL.iter().position(|f| *f == self).unwrap_or(0);
        Format::NAMES[at]
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Format> {
        Format::NAMES
            .iter()
            .position(|n| *n == text)
            .map(|at| Format::ALL[at])
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "unknown report format `{text}` (one of: {})",
                    Format::NAMES.join(", ")
                )
            })
    }
}

/// Text, Markdown and HTML: the report's document ([`report_document`]) through one of
/// [`crate::report::document`]'s backends, so that each says what the others say, in their
/// order (HTML with its plots as inline SVG besides).
#[derive(Debug, Clone, Copy)]
struct DocumentExporter(fn(&crate::report::document::Document) -> String);

impl Exporter for DocumentExporter {
    fn export(&self, report: &Report) -> Result<String> {
        Ok((self.0)(&report_document::build(report)))
    }
}

/// The exporter of `format`.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    use crate::report::document::{html, markdown, text};
    match format {
        Format::Text => Box::new(DocumentExporter(text::render)),
        Format::Markdown => Box::new(DocumentExporter(markdown::render)),
        Format::Json => Box::new(json::JsonExporter),
        Format::Csv => Box::new(csv::CsvExporter),
        Format::Html => Box::new(DocumentExporter(html::render)),
        Format::Bmf => Box::new(bmf::BmfExporter),
        Format::Summary => Box::new(summary::SummaryExporter),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_reads_back_from_its_name_and_an_unknown_one_is_named() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
            assert_eq!(f.to_string(), f.name());
        }
        let e = "xml".parse::<Format>().unwrap_err().to_string();
        insta::assert_snapshot!(e);
    }
}
