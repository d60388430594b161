//! The one closed interval every answer carries (`lower`, `upper` on the wire: docs/formats.md).

use serde::{Deserialize, Serialize};

/// A closed interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Interval {
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}
