//! Where a function sits relative to the front end's fixed-size units: the features
//! `layoutrand explain` tests against the binaries' means.
//!
//! A function's speed can depend on its placement through the units the instruction fetch
//! works in: the cache line (a function starting late in a line needs one more line for its
//! first bytes), the 32-byte fetch/decode window (Intel's decoded-instruction cache is
//! indexed by 32-byte windows), the 4 KiB page (one more iTLB entry), and the L1
//! instruction cache set its lines map to (more hot lines in a set than the cache has ways
//! evict each other: conflict misses). Every feature is read from the function's address and
//! size only, so it is exact for the binary as linked; PIE binaries load at a page-aligned
//! base, which keeps every offset below 4 KiB.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::binary::Function;
use super::cache_geometry::CacheGeometry;

/// Bytes of a page (x86-64 and AArch64 base pages).
pub const PAGE: u64 = 4096;
/// Bytes of a fetch/decode window.
pub const WINDOW: u64 = 32;

/// The instruction cache the set features are computed for: line size, number of sets and
/// ways (by default the I1 of [`crate::files::cache_model::CacheModel::DEFAULT`]: 32 KiB, 8-way,
/// 64-byte lines, so 64 sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ICache {
    /// Line size in bytes (a power of two).
    pub line: u64,
    /// Number of sets.
    pub sets: u64,
    /// Ways per set.
    pub ways: u64,
}

impl ICache {
    /// The geometry of a simulated cache (checked by the cache model: sets a power of two).
    pub fn from_geometry(g: &CacheGeometry) -> ICache {
        ICache {
            line: g.line,
            sets: (g.size / (g.assoc * g.line)).max(1),
            ways: g.assoc,
        }
    }
}

/// One placement feature of one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// 1 when the function starts in the upper half of a cache line, else 0.
    UpperHalfLine,
    /// The start address modulo 16.
    OffsetMod16,
    /// The start address modulo 32.
    OffsetMod32,
    /// The start address modulo the line size.
    OffsetModLine,
    /// How many 32-byte windows the function's bytes span.
    Windows32,
    /// How many cache lines the function's bytes span.
    Lines,
    /// 1 when the function's bytes cross a 4 KiB page boundary, else 0.
    CrossesPage,
    /// 1 when one of the function's lines maps to a set holding more hot lines than the
    /// cache has ways, else 0.
    OverfullSet,
}

/// Every feature, in the order reports list them.
pub const FEATURES: [Feature; 8] = [
    Feature::UpperHalfLine,
    Feature::OffsetMod16,
    Feature::OffsetMod32,
    Feature::OffsetModLine,
    Feature::Windows32,
    Feature::Lines,
    Feature::CrossesPage,
    Feature::OverfullSet,
];

impl Feature {
    /// The JSON name (`upper_half_line`).
    pub fn name(self) -> &'static str {
        match self {
            Feature::UpperHalfLine => "upper_half_line",
            Feature::OffsetMod16 => "offset_mod_16",
            Feature::OffsetMod32 => "offset_mod_32",
            Feature::OffsetModLine => "offset_mod_line",
            Feature::Windows32 => "windows_32",
            Feature::Lines => "lines",
            Feature::CrossesPage => "crosses_page",
            Feature::OverfullSet => "overfull_set",
        }
    }

    /// Whether the feature is 0/1 (else a count or an offset).
    pub fn is_binary(self) -> bool {
        matches!(
            self,
            Feature::UpperHalfLine | Feature::CrossesPage | Feature::OverfullSet
        )
    }
}

/// Number of `width`-byte aligned blocks the bytes `[address, address + size)` touch (size 0
/// counts as 1 byte).
pub fn blocks_spanned(address: u64, size: u64, width: u64) -> u64 {
    let last = address + size.max(1) - 1;
    last / width - address / width + 1
}

/// The cache sets of the lines the bytes `[address, address + size)` occupy, one per line.
pub fn sets_of(address: u64, size: u64, cache: &ICache) -> Vec<u64> {
    let first = address / cache.line;
    let last = (address + size.max(1) - 1) / cache.line;
    (first..=last).map(|l| l % cache.sets).collect()
}

/// Hot lines per cache set: every line of every function in `hot` counted in its set (a line
/// shared by two hot functions counts once).
pub fn hot_lines_per_set(hot: &[&Function], cache: &ICache) -> BTreeMap<u64, u64> {
    let mut lines = std::collections::BTreeSet::new();
    for f in hot {
        let first = f.address / cache.line;
        let last = (f.address + f.size.max(1) - 1) / cache.line;
        lines.extend(first..=last);
    }
    let mut per_set = BTreeMap::new();
    for l in lines {
        *per_set.entry(l % cache.sets).or_insert(0) += 1;
    }
    per_set
}

/// The value of `feature` for function `f` of a binary whose hot lines per set are
/// `pressure` (from [`hot_lines_per_set`]).
pub fn value(feature: Feature, f: &Function, cache: &ICache, pressure: &BTreeMap<u64, u64>) -> f64 {
    let bit = |b: bool| if b { 1.0 } else { 0.0 };
    match feature {
        Feature::UpperHalfLine => bit(f.address % cache.line >= cache.line / 2),
        Feature::OffsetMod16 => (f.address % 16) as f64,
        Feature::OffsetMod32 => (f.address % 32) as f64,
        Feature::OffsetModLine => (f.address % cache.line) as f64,
        Feature::Windows32 => blocks_spanned(f.address, f.size, WINDOW) as f64,
        Feature::Lines => blocks_spanned(f.address, f.size, cache.line) as f64,
        Feature::CrossesPage => bit(blocks_spanned(f.address, f.size, PAGE) > 1),
        Feature::OverfullSet => bit(sets_of(f.address, f.size, cache)
            .iter()
            .any(|s| pressure.get(s).copied().unwrap_or(0) > cache.ways)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::cache_model::CacheModel;

    #[test]
    fn default_geometry_has_64_sets() {
        let c = ICache::from_geometry(&CacheModel::DEFAULT.i1);
        assert_eq!((c.line, c.sets, c.ways), (64, 64, 8));
    }

    #[test]
    fn features_of_known_placements() {
        let c = ICache {
            line: 64,
            sets: 64,
            ways: 8,
        };
        let none = BTreeMap::new();
        // 0x1030: 48 bytes into its line (upper half), 16 into its 32-byte window; 40 bytes
        // reach 0x1057: windows 0x1020 and 0x1040 (2), lines 0x1000 and 0x1040 (2), one page.
        let f = Function::named("f", 0x1030, 40);
        let v = |feature| value(feature, &f, &c, &none);
        assert_eq!(v(Feature::UpperHalfLine), 1.0);
        assert_eq!(v(Feature::OffsetMod16), 0.0);
        assert_eq!(v(Feature::OffsetMod32), 16.0);
        assert_eq!(v(Feature::OffsetModLine), 48.0);
        assert_eq!(v(Feature::Windows32), 2.0);
        assert_eq!(v(Feature::Lines), 2.0);
        assert_eq!(v(Feature::CrossesPage), 0.0);
        // 0x1ff0 + 32 bytes crosses 0x2000; starts at 48 of its line.
        let g = Function::named("g", 0x1ff0, 32);
        assert_eq!(value(Feature::CrossesPage, &g, &c, &none), 1.0);
        assert_eq!(value(Feature::UpperHalfLine, &g, &c, &none), 1.0);
        // 31 is the lower half, 32 the upper.
        let h = Function::named("h", 0x101f, 1);
        assert_eq!(value(Feature::UpperHalfLine, &h, &c, &none), 0.0);
        assert_eq!(blocks_spanned(0x1000, 64, 64), 1);
        assert_eq!(blocks_spanned(0x1001, 64, 64), 2);
        assert_eq!(blocks_spanned(0x1000, 0, 64), 1);
    }

    #[test]
    fn set_pressure_counts_distinct_hot_lines() {
        // A 2-set, 1-way cache of 64-byte lines: lines 0 and 2 share set 0, line 1 is set 1.
        let c = ICache {
            line: 64,
            sets: 2,
            ways: 1,
        };
        let a = Function::named("a", 0, 64); // line 0 → set 0
        let b = Function::named("b", 128, 10); // line 2 → set 0
        let d = Function::named("d", 64, 8); // line 1 → set 1
        let e = Function::named("e", 72, 8); // line 1 again: not a second line
        let p = hot_lines_per_set(&[&a, &b, &d, &e], &c);
        assert_eq!(p, BTreeMap::from([(0, 2), (1, 1)]));
        assert_eq!(value(Feature::OverfullSet, &a, &c, &p), 1.0);
        assert_eq!(value(Feature::OverfullSet, &d, &c, &p), 0.0);
        assert_eq!(sets_of(120, 20, &c), vec![1, 0]);
    }
}
