//! `report --format html`: one self-contained page, the report's document
//! ([`super::report_document`]) through the HTML backend, so that it says what the text and
//! Markdown reports say, in their order, with the plots besides.

use anyhow::Result;

use super::Exporter;
use crate::analysis::answers::model::Report;

/// HTML with inline SVG.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HtmlExporter;

impl Exporter for HtmlExporter {
    fn export(&self, report: &Report) -> Result<String> {
        Ok(crate::report::document::html::render(
            &super::report_document::build(report),
        ))
    }
}
