//! A cache's shape (size, ways, line): what maps a function's bytes onto cache lines and
//! sets ([`super::features`]). The simulated caches of a cachegrind run are three of these
//! (`crate::files::cache_model`, which also parses them).

use serde::{Deserialize, Serialize};

/// One simulated cache: total size, associativity and line size, in bytes and ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CacheGeometry {
    /// Total size in bytes.
    pub(crate) size: u64,
    /// Ways per set.
    pub(crate) assoc: u64,
    /// Line size in bytes.
    pub(crate) line: u64,
}
