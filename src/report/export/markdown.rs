//! GitHub-flavoured Markdown, tables in hyperfine's spirit: the report's document
//! ([`super::report_document`]) through the Markdown backend.

use anyhow::Result;

use super::Exporter;
use crate::analysis::answers::model::Report;

/// Markdown.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn export(&self, report: &Report) -> Result<String> {
        Ok(crate::report::document::markdown::render(
            &super::report_document::build(report),
        ))
    }
}
