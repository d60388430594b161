//! Do `k` chosen observations lie closer together than `k` drawn at random? The exact
//! permutation test whose statistic is the range (largest minus smallest) of the chosen
//! ones: under the null, the chosen `k` are a uniformly random `k`-subset of all `n`
//! (Good, "Permutation, Parametric and Bootstrap Tests of Hypotheses", 3rd ed., §3.1: the
//! exact distribution of a statistic over every rearrangement), so the p-value is the share
//! of the `C(n, k)` subsets whose range is at most the chosen one's. It is counted, not
//! sampled: sorted, a subset whose lowest member is the `i`-th has a range within `r` exactly
//! when its other `k − 1` members are among the `m_i` later observations within `r` of the
//! `i`-th, so the count is `Σ_i C(m_i, k − 1)` (ties broken by position, each subset counted
//! once, at its first member).
//!
//! The run uses it on the environment paddings of executions an outlier screen set aside:
//! paddings drawn independently of the measurements are a random subset's under the null,
//! and paddings that bunch say where the stack starts sets those executions apart.

use super::error::{at_least, StatsError};
use statrs::function::factorial::ln_binomial;

/// The exact p-value `P(range of a random k-subset of values ≤ range of chosen)`, for the
/// `chosen` observations among `values` (`chosen` holds their values; each must be one of
/// `values`, as often as it is chosen).
///
/// ```
/// // 2 of 10 evenly spaced values, 1 apart: 9 of the C(10, 2) = 45 pairs are that close.
/// let values: Vec<f64> = (0..10).map(f64::from).collect();
/// let p = layoutrand_stats::range_test::range_p_value(&values, &[3.0, 4.0]).unwrap();
/// assert!((p - 9.0 / 45.0).abs() < 1e-12);
/// ```
pub fn range_p_value(values: &[f64], chosen: &[f64]) -> Result<f64, StatsError> {
    let k = chosen.len();
    at_least("the range test", "chosen observations", 2, k)?;
    if values.len() < k {
        return Err(StatsError::Domain(format!(
            "the range test: {k} chosen of {} observations",
            values.len()
        )));
    }
    if values.iter().chain(chosen).any(|v| !v.is_finite()) {
        return Err(StatsError::Domain(
            "the range test: a value is not finite".to_string(),
        ));
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut remaining = sorted.clone();
    for c in chosen {
        let Some(i) = remaining.iter().position(|v| v == c) else {
            return Err(StatsError::Domain(format!(
                "the range test: the chosen value {c} is not among the observations (as often)"
            )));
        };
        remaining.remove(i);
    }
    let lowest = chosen.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = chosen.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = highest - lowest;
    let n = sorted.len();
    let ln_subsets = ln_binomial(n as u64, k as u64);
    let mut p = 0.0;
    for (i, low) in sorted.iter().enumerate() {
        // The later observations within `range` of this one: sorted, a prefix of the rest.
        let within = sorted[i + 1..].partition_point(|v| v - low <= range);
        if within + 1 >= k {
            p += (ln_binomial(within as u64, (k - 1) as u64) - ln_subsets).exp();
        }
    }
    Ok(p.min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded::SeededRng;

    /// Every k-subset enumerated: the share whose range is at most the chosen one's.
    fn enumerated(values: &[f64], chosen_range: f64, k: usize) -> f64 {
        fn subsets(
            n: usize,
            k: usize,
            start: usize,
            picked: &mut Vec<usize>,
            out: &mut Vec<Vec<usize>>,
        ) {
            if picked.len() == k {
                out.push(picked.clone());
                return;
            }
            for i in start..n {
                picked.push(i);
                subsets(n, k, i + 1, picked, out);
                picked.pop();
            }
        }
        let mut all = Vec::new();
        subsets(values.len(), k, 0, &mut Vec::new(), &mut all);
        let close = all
            .iter()
            .filter(|s| {
                let picked: Vec<f64> = s.iter().map(|&i| values[i]).collect();
                let hi = picked.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let lo = picked.iter().copied().fold(f64::INFINITY, f64::min);
                hi - lo <= chosen_range
            })
            .count();
        close as f64 / all.len() as f64
    }

    /// The count against brute-force enumeration of every subset, on seeded draws from a
    /// coarse grid (ties included), for k = 2, 3 and 4.
    #[test]
    fn the_count_equals_the_enumeration_of_every_subset() {
        let mut rng = SeededRng::new(11, "range test against enumeration");
        for trial in 0..60 {
            let n = 6 + trial % 7;
            let values: Vec<f64> = (0..n)
                .map(|_| (rng.unit_f64() * 16.0).floor() * 16.0)
                .collect();
            let k = 2 + trial % 3;
            let chosen = &values[..k];
            let hi = chosen.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = chosen.iter().copied().fold(f64::INFINITY, f64::min);
            let p = range_p_value(&values, chosen).unwrap();
            let expected = enumerated(&values, hi - lo, k);
            assert!(
                (p - expected).abs() < 1e-9,
                "trial {trial}: {p} against {expected}"
            );
        }
    }

    /// A closed form: for n distinct equally spaced values, the pairs within d steps number
    /// Σ_{i} min(d, n − 1 − i) = d·n − d(d + 1)/2.
    #[test]
    fn pairs_of_equally_spaced_values_follow_the_closed_form() {
        let n = 256;
        let values: Vec<f64> = (0..n).map(|i| f64::from(i) * 16.0).collect();
        for d in [1u32, 8, 12, 100] {
            let p = range_p_value(&values, &[0.0, f64::from(d) * 16.0]).unwrap();
            let (n, d) = (f64::from(n), f64::from(d));
            let expected = (d * n - d * (d + 1.0) / 2.0) / (n * (n - 1.0) / 2.0);
            assert!((p - expected).abs() < 1e-12, "{d}: {p} against {expected}");
        }
    }

    /// Under the null (k drawn at random from the n), the p-value falls below 5 % in about 5 %
    /// of draws (a discrete test: at most that often).
    #[test]
    fn random_subsets_reject_at_most_at_the_level() {
        let mut rng = SeededRng::new(5, "range test size");
        let values: Vec<f64> = (0..60)
            .map(|_| (rng.unit_f64() * 256.0).floor() * 16.0)
            .collect();
        let draws = 2000;
        let mut rejected = 0;
        for _ in 0..draws {
            let chosen: Vec<f64> = rng.permutation(60)[..3]
                .iter()
                .map(|&i| values[i])
                .collect();
            if range_p_value(&values, &chosen).unwrap() < 0.05 {
                rejected += 1;
            }
        }
        // Binomial(2000, 0.05) exceeds 125 with probability below 0.001.
        assert!(rejected <= 125, "{rejected} of {draws}");
        assert!(
            rejected >= 60,
            "{rejected} of {draws}: the test has lost its size"
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(range_p_value(&[1.0, 2.0], &[1.0]).is_err());
        assert!(range_p_value(&[1.0], &[1.0, 1.0]).is_err());
        assert!(range_p_value(&[1.0, 2.0, 3.0], &[1.0, 5.0]).is_err());
        assert!(range_p_value(&[1.0, 2.0, 3.0], &[1.0, 1.0]).is_err());
        assert!(range_p_value(&[1.0, f64::NAN, 3.0], &[1.0, 3.0]).is_err());
    }
}
