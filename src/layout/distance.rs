//! Distances between two function orders (a seed's binary against the baseline).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::binary::{Function, FunctionId};

/// How far one binary's layout is from another's (normally: from the baseline's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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

/// A comparison of two layouts with the counts behind the shares in [`LayoutDistance`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LayoutComparison {
    /// The distances over the functions common to both layouts.
    pub distance: LayoutDistance,
    /// Functions present exactly once in both layouts (the ones the distances are over).
    pub common: usize,
    /// Functions of the base layout that are not common (absent from the other, or whose
    /// identity is ambiguous because it occurs more than once in either layout).
    pub only_in_base: usize,
    /// Functions of the other layout that are not common.
    pub only_in_other: usize,
}

/// The distances from `base` to `other`; see [`compare`] for the definitions.
pub fn between(base: &[Function], other: &[Function]) -> LayoutDistance {
    compare(base, other).distance
}

/// Compares two layouts, each a list of functions in layout (address) order as returned by
/// [`crate::layout::binary::functions`].
///
/// Only functions whose identity occurs exactly once in each list are compared (a duplicated
/// identity cannot be matched reliably). Over these `n` common functions:
/// * `kendall_tau` = discordant pairs / (n choose 2): 0 for the same relative order, 1 for
///   the reverse; computed in O(n log n) by counting inversions with a merge sort;
/// * `share_moved` = share whose address differs;
/// * `share_mod64_changed` / `share_mod4096_changed` = share whose address modulo 64 (cache
///   line offset) / 4096 (page offset) differs.
///
/// With fewer than two common functions the Kendall distance is 0, and with none every
/// share is 0 (there is nothing to disagree on; `common` says so). The result is symmetric
/// in its arguments except that `only_in_base` and `only_in_other` swap.
pub fn compare(base: &[Function], other: &[Function]) -> LayoutComparison {
    let base_once = positions_of_unique(base);
    let other_once = positions_of_unique(other);
    // Base ranks of the common functions, listed in the other layout's order.
    let mut ranks_in_other_order = Vec::new();
    let (mut moved, mut mod64, mut mod4096) = (0usize, 0usize, 0usize);
    for (other_pos, function) in other.iter().enumerate() {
        if other_once.get(&function.id) != Some(&other_pos) {
            continue;
        }
        let Some(&base_pos) = base_once.get(&function.id) else {
            continue;
        };
        ranks_in_other_order.push(base_pos);
        let (a, b) = (base[base_pos].address, function.address);
        moved += usize::from(a != b);
        mod64 += usize::from(a % 64 != b % 64);
        mod4096 += usize::from(a % 4096 != b % 4096);
    }
    let common = ranks_in_other_order.len();
    let share = |count: usize| {
        if common == 0 {
            0.0
        } else {
            count as f64 / common as f64
        }
    };
    LayoutComparison {
        distance: LayoutDistance {
            kendall_tau: normalised_kendall(&ranks_in_other_order),
            share_moved: share(moved),
            share_mod64_changed: share(mod64),
            share_mod4096_changed: share(mod4096),
        },
        common,
        only_in_base: base.len() - common,
        only_in_other: other.len() - common,
    }
}

/// Position of each identity occurring exactly once.
fn positions_of_unique(functions: &[Function]) -> HashMap<&FunctionId, usize> {
    let mut seen: HashMap<&FunctionId, Option<usize>> = HashMap::with_capacity(functions.len());
    for (pos, function) in functions.iter().enumerate() {
        seen.entry(&function.id)
            .and_modify(|p| *p = None)
            .or_insert(Some(pos));
    }
    seen.into_iter()
        .filter_map(|(id, pos)| pos.map(|p| (id, p)))
        .collect()
}

/// Normalised Kendall tau distance of a sequence of distinct ranks against sorted order:
/// inversions / (n choose 2), 0 when n < 2.
pub fn normalised_kendall(ranks: &[usize]) -> f64 {
    let n = ranks.len() as u64;
    if n < 2 {
        return 0.0;
    }
    inversions(ranks) as f64 / (n * (n - 1) / 2) as f64
}

/// Number of pairs i < j with `values[i] > values[j]`, by merge sort in O(n log n).
pub fn inversions(values: &[usize]) -> u64 {
    let mut work = values.to_vec();
    let mut buffer = vec![0; values.len()];
    sort_counting(&mut work, &mut buffer)
}

fn sort_counting(values: &mut [usize], buffer: &mut [usize]) -> u64 {
    let n = values.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut count = {
        let (left, right) = values.split_at_mut(mid);
        let (left_buf, right_buf) = buffer.split_at_mut(mid);
        sort_counting(left, left_buf) + sort_counting(right, right_buf)
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if values[i] <= values[j] {
            buffer[k] = values[i];
            i += 1;
        } else {
            // values[j] is smaller than every remaining left element.
            count += (mid - i) as u64;
            buffer[k] = values[j];
            j += 1;
        }
        k += 1;
    }
    buffer[k..k + (mid - i)].copy_from_slice(&values[i..mid]);
    k += mid - i;
    buffer[k..k + (n - j)].copy_from_slice(&values[j..n]);
    values.copy_from_slice(&buffer[..n]);
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, address: u64) -> Function {
        Function::named(name, address, 16)
    }

    #[test]
    fn small_inversion_counts() {
        assert_eq!(inversions(&[]), 0);
        assert_eq!(inversions(&[0, 1, 2, 3]), 0);
        assert_eq!(inversions(&[3, 2, 1, 0]), 6);
        assert_eq!(inversions(&[1, 0, 3, 2]), 2);
        assert_eq!(inversions(&[2, 0, 1]), 2);
    }

    #[test]
    fn hand_computed_distances() {
        // base: a@0x1000 b@0x1040 c@0x1080 d@0x2000; other swaps a and b, moves d by 4096,
        // drops c and adds e. Common = a, b, d; discordant pairs: (a,b) only → 1/3.
        let base = [
            f("a", 0x1000),
            f("b", 0x1040),
            f("c", 0x1080),
            f("d", 0x2000),
        ];
        let other = [
            f("b", 0x1000),
            f("a", 0x1010),
            f("e", 0x1020),
            f("d", 0x3000),
        ];
        let c = compare(&base, &other);
        assert_eq!(c.common, 3);
        assert_eq!((c.only_in_base, c.only_in_other), (1, 1));
        assert!((c.distance.kendall_tau - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.distance.share_moved - 1.0).abs() < 1e-12);
        // a: 0x1000→0x1010 changes mod 64 and mod 4096; b: 0x1040→0x1000 keeps its cache
        // line offset (0) but changes page offset; d: 0x2000→0x3000 keeps both offsets.
        assert!((c.distance.share_mod64_changed - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.distance.share_mod4096_changed - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn duplicated_identities_are_not_compared() {
        let base = [f("x", 0), f("x", 16), f("y", 32)];
        let other = [f("y", 0), f("x", 16), f("x", 32)];
        let c = compare(&base, &other);
        assert_eq!(c.common, 1);
        assert_eq!(c.distance.kendall_tau, 0.0);
    }

    #[test]
    fn nothing_in_common_gives_zeros() {
        let c = compare(&[f("a", 0)], &[f("b", 0)]);
        assert_eq!(c.common, 0);
        assert_eq!(c.distance.share_moved, 0.0);
    }
}
