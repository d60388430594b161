//! What `layoutrand layout` shows of one binary or of two: the typed documents behind its
//! JSON (schema [`LAYOUT_SCHEMA`], documented in docs/formats.md) and its text.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use super::binary::Function;
use super::distance::LayoutComparison;

/// Version of `layout --format json` (both forms): the one output schema of every command.
pub(crate) const LAYOUT_SCHEMA: u32 = crate::schema::OUTPUT_SCHEMA;

/// A binary's layout: its functions in address order and their fingerprint.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LayoutReport {
    /// [`LAYOUT_SCHEMA`].
    pub(crate) schema: u32,
    /// The layoutrand version that wrote the document.
    pub(crate) tool_version: &'static str,
    /// The binary.
    pub(crate) path: PathBuf,
    /// [`super::fingerprint()`] of the functions.
    pub(crate) fingerprint: String,
    /// The functions, by address.
    pub(crate) functions: Vec<Function>,
}

/// Two binaries' distances (the first is the base).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DistanceReport {
    /// [`LAYOUT_SCHEMA`].
    pub(crate) schema: u32,
    /// The layoutrand version that wrote the document.
    pub(crate) tool_version: &'static str,
    /// The base binary.
    pub(crate) base: PathBuf,
    /// The binary compared with it.
    pub(crate) other: PathBuf,
    /// The base's fingerprint.
    pub(crate) base_fingerprint: String,
    /// The other's fingerprint.
    pub(crate) other_fingerprint: String,
    /// The distances and the counts behind them (flattened into the document).
    #[serde(flatten)]
    pub(crate) comparison: LayoutComparison,
}

impl LayoutReport {
    /// Reads `path`'s functions (it must keep its .symtab).
    pub fn of(path: &Path) -> Result<LayoutReport> {
        let functions = super::binary::functions(path)?;
        Ok(LayoutReport {
            schema: LAYOUT_SCHEMA,
            tool_version: env!("CARGO_PKG_VERSION"),
            path: path.to_path_buf(),
            fingerprint: super::fingerprint(&functions),
            functions,
        })
    }
}

impl DistanceReport {
    /// Reads both binaries and measures the distances from `base` to `other`.
    pub fn between(base: &Path, other: &Path) -> Result<DistanceReport> {
        let base_functions = super::binary::functions(base)?;
        let other_functions = super::binary::functions(other)?;
        Ok(DistanceReport {
            schema: LAYOUT_SCHEMA,
            tool_version: env!("CARGO_PKG_VERSION"),
            base: base.to_path_buf(),
            other: other.to_path_buf(),
            base_fingerprint: super::fingerprint(&base_functions),
            other_fingerprint: super::fingerprint(&other_functions),
            comparison: super::distance::compare(&base_functions, &other_functions),
        })
    }
}
