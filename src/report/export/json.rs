//! JSON with the schema documented in docs/report.md (the serde form of
//! [`crate::analysis::answers::model::Report`]).

use anyhow::Result;

use super::Exporter;
use crate::analysis::answers::model::Report;

/// Pretty-printed JSON.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, report: &Report) -> Result<String> {
        let mut s = serde_json::to_string_pretty(report)?;
        s.push('\n');
        Ok(s)
    }
}
