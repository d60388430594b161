//! The invariant every seed must satisfy: the same code as the baseline, at other addresses.
//!
//! A randomised binary is only a valid sample of the layout distribution if it differs from
//! the baseline in *where* functions sit and in nothing else. Link order handed to gcc's LTO
//! changes inlining; the first COMDAT copy or weak definition the linker meets wins; so a
//! mechanism that changes what is linked (not only where) yields other code. This module
//! checks, per binary, that the multiset of functions — identity ([`FunctionId`]: symbol
//! name, qualified by its source file when the name is ambiguous) with its size — is the
//! baseline's. A COMDAT copy taken from another object shows up as a size difference in
//! the cases measured (`vector<EvalString>::_M_realloc_insert`: 0x25c vs 0x1db bytes); two
//! copies of equal size but different bytes would not (the manifest says what was compared).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::binary::{Function, FunctionId};

/// What the code check of one binary compared, for the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeCheck {
    /// Functions compared (all functions of the binary).
    pub functions: usize,
    /// Sum of their sizes in bytes.
    pub bytes: u64,
    /// What was found equal to the baseline, in words.
    pub compared: String,
}

/// The words stored in [`CodeCheck::compared`].
pub const COMPARED: &str =
    "every function's symbol (with its source file when ambiguous) and size equal the baseline's";

/// One difference between the baseline's code and a seed's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CodeDifference {
    /// The function.
    pub(crate) id: FunctionId,
    /// Its sizes in the baseline (one entry per copy; empty when absent).
    pub(crate) baseline_sizes: Vec<u64>,
    /// Its sizes in the seed.
    pub(crate) seed_sizes: Vec<u64>,
}

/// Compares the code of `seed` with `baseline` (both as [`super::binary::functions`] lists
/// them). `Ok` carries what was verified; `Err` every differing function, in identity order.
///
/// Guarantees: the result depends on the multisets of (identity, size) only, never on the
/// order or addresses, so any pure re-layout (including padding between functions) passes,
/// and a function that is missing, extra, duplicated or of another size fails.
pub(crate) fn check(
    baseline: &[Function],
    seed: &[Function],
) -> Result<CodeCheck, Vec<CodeDifference>> {
    let base = sizes(baseline);
    let other = sizes(seed);
    let mut differences = Vec::new();
    for id in base.keys().chain(other.keys()) {
        let b = base.get(id).cloned().unwrap_or_default();
        let s = other.get(id).cloned().unwrap_or_default();
        if b != s && !differences.iter().any(|d: &CodeDifference| &d.id == *id) {
            differences.push(CodeDifference {
                id: (*id).clone(),
                baseline_sizes: b,
                seed_sizes: s,
            });
        }
    }
    if !differences.is_empty() {
        differences.sort_by(|a, b| a.id.cmp(&b.id));
        return Err(differences);
    }
    Ok(CodeCheck {
        functions: seed.len(),
        bytes: seed.iter().map(|f| f.size).sum(),
        compared: COMPARED.to_string(),
    })
}

fn sizes(fs: &[Function]) -> BTreeMap<&FunctionId, Vec<u64>> {
    let mut map: BTreeMap<&FunctionId, Vec<u64>> = BTreeMap::new();
    for f in fs {
        map.entry(&f.id).or_default().push(f.size);
    }
    for v in map.values_mut() {
        v.sort_unstable();
    }
    map
}

/// A message naming the first few differences with both sizes, for a failed seed.
pub(crate) fn describe(differences: &[CodeDifference]) -> String {
    let sizes = |v: &[u64]| -> String {
        if v.is_empty() {
            "absent".to_string()
        } else {
            v.iter()
                .map(|s| format!("{s} bytes"))
                .collect::<Vec<_>>()
                .join(" + ")
        }
    };
    let mut text = String::from("the code differs from the baseline's (not a pure re-layout): ");
    for (k, d) in differences.iter().take(3).enumerate() {
        if k > 0 {
            text.push_str("; ");
        }
        let file =
            d.id.file
                .as_deref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default();
        let _ = write!(
            text,
            "function {}{file} is {} in the baseline and {} in this seed",
            d.id.name,
            sizes(&d.baseline_sizes),
            sizes(&d.seed_sizes)
        );
    }
    if differences.len() > 3 {
        let _ = write!(text, "; and {} more", differences.len() - 3);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, address: u64, size: u64) -> Function {
        Function::named(name, address, size)
    }

    #[test]
    fn a_permutation_with_other_addresses_passes() {
        let base = [f("a", 0, 10), f("b", 16, 20), f("c", 48, 4)];
        let seed = [f("c", 0, 4), f("a", 64, 10), f("b", 128, 20)];
        let ok = check(&base, &seed).unwrap();
        assert_eq!(ok.functions, 3);
        assert_eq!(ok.bytes, 34);
    }

    #[test]
    fn another_size_names_the_function_and_both_sizes() {
        let base = [
            f("a", 0, 10),
            f("_ZN6vectorI10EvalStringE17_M_realloc_insert", 16, 0x25c),
        ];
        let seed = [
            f("_ZN6vectorI10EvalStringE17_M_realloc_insert", 0, 0x1db),
            f("a", 9000, 10),
        ];
        let diffs = check(&base, &seed).unwrap_err();
        assert_eq!(diffs.len(), 1);
        let text = describe(&diffs);
        assert!(
            text.contains(
                "_M_realloc_insert is 604 bytes in the baseline and 475 bytes in this seed"
            ),
            "{text}"
        );
    }

    #[test]
    fn missing_extra_and_duplicated_functions_fail() {
        let base = [f("a", 0, 10), f("b", 16, 20)];
        let diffs = check(&base, &[f("a", 0, 10)]).unwrap_err();
        assert!(describe(&diffs).contains("b is 20 bytes in the baseline and absent"));
        let diffs = check(
            &base,
            &[f("a", 0, 10), f("b", 16, 20), f("b.lto_priv.0", 40, 3)],
        )
        .unwrap_err();
        assert_eq!(diffs[0].id.name, "b.lto_priv.0");
        let diffs = check(&base, &[f("a", 0, 10), f("b", 16, 20), f("b", 64, 20)]).unwrap_err();
        assert_eq!(diffs[0].seed_sizes, vec![20, 20]);
    }
}
