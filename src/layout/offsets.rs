//! How spread a binary's function start addresses are over cache-line and page offsets: the
//! check that `build --pad` does what it says (with padding, the seeds' functions start at
//! more offsets than the compiler's alignment alone would give them).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::binary::Function;

/// The number of distinct start offsets of a binary's functions within a cache line and
/// within a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OffsetSpread {
    /// Distinct values of `address mod 64` over the functions (at most 64; at most 4 when
    /// every function is 16-byte aligned).
    pub distinct_mod_64: usize,
    /// Distinct values of `address mod 4096`.
    pub distinct_mod_4096: usize,
}

/// The spread of `functions`' start addresses (0 and 0 for none).
pub(crate) fn spread(functions: &[Function]) -> OffsetSpread {
    let distinct = |m: u64| {
        functions
            .iter()
            .map(|f| f.address % m)
            .collect::<BTreeSet<_>>()
            .len()
    };
    OffsetSpread {
        distinct_mod_64: distinct(64),
        distinct_mod_4096: distinct(4096),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_residues() {
        let f = |a| Function::named("f", a, 1);
        let s = spread(&[f(0x1000), f(0x1040), f(0x2010), f(0x1050), f(0x3010)]);
        // mod 64: 0, 0, 16, 16, 16; mod 4096: 0x000, 0x040, 0x010, 0x050, 0x010.
        assert_eq!(s.distinct_mod_64, 2);
        assert_eq!(s.distinct_mod_4096, 4);
        assert_eq!(spread(&[]).distinct_mod_64, 0);
    }
}
