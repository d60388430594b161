//! Plain text for a terminal: the report's document ([`super::report_document`]) through the
//! text backend.

use anyhow::Result;

use super::Exporter;
use crate::analysis::answers::model::Report;

/// Plain text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextExporter;

impl Exporter for TextExporter {
    fn export(&self, report: &Report) -> Result<String> {
        Ok(crate::report::document::text::render(
            &super::report_document::build(report),
        ))
    }
}
