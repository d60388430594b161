//! Distances between two function orders (a seed's binary against the baseline).

use serde::{Deserialize, Serialize};

/// How far one binary's layout is from another's (normally: from the baseline's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LayoutDistance {
    /// Normalised Kendall tau distance between the two function orders: the share of
    /// function pairs whose relative order differs (0 = same order, 1 = reversed).
    pub kendall_tau: f64,
    /// Share of the functions common to both binaries whose address changed.
    pub share_moved: f64,
    /// Share whose address modulo 64 (the cache-line offset) changed.
    pub share_mod64_changed: f64,
    /// Share whose address modulo 4096 (the page offset) changed.
    pub share_mod4096_changed: f64,
}
