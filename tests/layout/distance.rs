//! Properties of the layout distances (`layout::distance`) against their definitions.

use proptest::prelude::*;

use layoutrand::layout::binary::{Function, FunctionId};
use layoutrand::layout::distance::{between, compare, inversions, normalised_kendall};

fn function(name: usize, address: u64) -> Function {
    Function {
        id: FunctionId {
            name: format!("f{name}"),
            file: None,
        },
        name: format!("f{name}"),
        file: None,
        address,
        size: 16,
    }
}

/// A layout: functions `order[0], order[1], ...` at consecutive addresses from `base`.
fn layout(order: &[usize], base: u64, stride: u64) -> Vec<Function> {
    order
        .iter()
        .enumerate()
        .map(|(i, &name)| function(name, base + i as u64 * stride))
        .collect()
}

/// The O(n²) definition: pairs ordered one way in `a` and the other way in `b`.
fn discordant_pairs_naive(a: &[usize], b: &[usize]) -> u64 {
    let pos_b = |x: usize| b.iter().position(|&y| y == x).unwrap();
    let mut count = 0;
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            if pos_b(a[i]) > pos_b(a[j]) {
                count += 1;
            }
        }
    }
    count
}

fn permutation(max_len: usize) -> impl Strategy<Value = Vec<usize>> {
    (0..=max_len).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())
}

fn two_permutations(max_len: usize) -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (0..=max_len).prop_flat_map(|n| {
        let ids: Vec<usize> = (0..n).collect();
        (Just(ids.clone()).prop_shuffle(), Just(ids).prop_shuffle())
    })
}

proptest! {
    #[test]
    fn identity_is_zero(order in permutation(60)) {
        let a = layout(&order, 0x1000, 32);
        let d = between(&a, &a);
        prop_assert_eq!(d.kendall_tau, 0.0);
        prop_assert_eq!(d.share_moved, 0.0);
        prop_assert_eq!(d.share_mod64_changed, 0.0);
        prop_assert_eq!(d.share_mod4096_changed, 0.0);
    }

    #[test]
    fn reverse_is_one(order in permutation(60)) {
        prop_assume!(order.len() >= 2);
        let mut reversed = order.clone();
        reversed.reverse();
        let d = between(&layout(&order, 0x1000, 32), &layout(&reversed, 0x1000, 32));
        prop_assert_eq!(d.kendall_tau, 1.0);
    }

    #[test]
    fn symmetric((a, b) in two_permutations(40)) {
        let (la, lb) = (layout(&a, 0x1000, 48), layout(&b, 0x2010, 16));
        prop_assert_eq!(between(&la, &lb), between(&lb, &la));
    }

    #[test]
    fn kendall_equals_the_quadratic_definition((a, b) in two_permutations(25)) {
        let d = between(&layout(&a, 0, 16), &layout(&b, 0, 16));
        let n = a.len() as f64;
        let expected = if a.len() < 2 { 0.0 } else { discordant_pairs_naive(&a, &b) as f64 / (n * (n - 1.0) / 2.0) };
        prop_assert!((d.kendall_tau - expected).abs() < 1e-12, "{} vs {}", d.kendall_tau, expected);
    }

    #[test]
    fn inversion_count_matches_naive(values in proptest::collection::vec(0usize..1000, 0..80)) {
        let mut naive = 0u64;
        for i in 0..values.len() {
            for j in i + 1..values.len() {
                naive += u64::from(values[i] > values[j]);
            }
        }
        prop_assert_eq!(inversions(&values), naive);
    }

    #[test]
    fn only_common_functions_count(order in permutation(30), extra in 1usize..5) {
        // Extra functions only in the other layout change nothing for the common ones.
        let base = layout(&order, 0x1000, 16);
        let mut other_order = order.clone();
        other_order.extend((0..extra).map(|k| 1000 + k));
        let c = compare(&base, &layout(&other_order, 0x1000, 16));
        prop_assert_eq!(c.common, order.len());
        prop_assert_eq!(c.only_in_other, extra);
        prop_assert_eq!(c.distance.kendall_tau, 0.0);
        prop_assert_eq!(c.distance.share_moved, 0.0);
    }
}

#[test]
fn shift_by_a_page_moves_everything_but_no_offset() {
    let order: Vec<usize> = (0..10).collect();
    let d = between(&layout(&order, 0x1000, 48), &layout(&order, 0x2000, 48));
    assert_eq!((d.kendall_tau, d.share_moved), (0.0, 1.0));
    assert_eq!((d.share_mod64_changed, d.share_mod4096_changed), (0.0, 0.0));
    // A shift by 16 bytes changes every cache-line and page offset.
    let d = between(&layout(&order, 0x1000, 48), &layout(&order, 0x1010, 48));
    assert_eq!((d.share_mod64_changed, d.share_mod4096_changed), (1.0, 1.0));
}

#[test]
fn kendall_of_a_known_permutation() {
    // [2, 0, 1] against sorted: pairs (2,0) and (2,1) are inverted → 2 of 3.
    assert!((normalised_kendall(&[2, 0, 1]) - 2.0 / 3.0).abs() < 1e-15);
    // scipy cross-check: scipy.stats.kendalltau([0,1,2,3,4],[3,0,4,1,2]).statistic = 0.0,
    // i.e. concordant = discordant = 5 of 10 pairs → normalised distance (1 - tau)/2 = 0.5.
    assert!((normalised_kendall(&[3, 0, 4, 1, 2]) - 0.5).abs() < 1e-15);
}
