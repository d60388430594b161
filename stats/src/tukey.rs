//! Tukey's HSD ("honestly significant difference") simultaneous intervals for every pair of
//! `k` means (Georges et al. 2008 §4.1, post-hoc test after an ANOVA; Tukey 1953): with
//! probability `1 − α` *all* the `k(k−1)/2` intervals
//! `(ȳ_j − ȳ_i) ± q_{1−α; k, ν} · sqrt(MS_error / n)` cover their true differences at once,
//! where `q` is the studentized range quantile ([`super::studentized_range`]), `MS_error`
//! the ANOVA's error mean square on `ν` degrees of freedom and `n` the size of each mean.
//!
//! Which error term is the caller's choice: the within-group mean square of a one-way ANOVA
//! for independent groups, or the interaction mean square of the two-way mixed ANOVA
//! ([`super::twoway`]) when the same layouts were measured under every variant (the
//! randomised-block form; Montgomery §13.3). Balanced designs only: every mean averages the
//! same number of observations, for which the family-wise error is exactly `α`.

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::studentized_range::{studentized_range_quantile, studentized_range_sf};

/// The simultaneous interval of one pair.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TukeyPair {
    /// Index of the first mean (the reference of the difference).
    pub i: usize,
    /// Index of the second mean.
    pub j: usize,
    /// `ȳ_j − ȳ_i`.
    pub difference: f64,
    /// Lower end of the simultaneous interval.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Adjusted p-value, `P(Q ≥ |ȳ_j − ȳ_i| / sqrt(MS_error / n))`.
    pub p_value: f64,
}

/// Tukey's HSD for every pair.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TukeyHsd {
    /// `q_{1−α; k, ν}`.
    pub q_critical: f64,
    /// `ν`, the error term's degrees of freedom.
    pub df: f64,
    /// Half-width shared by every interval, `q · sqrt(MS_error / n)`.
    pub half_width: f64,
    /// The confidence level of the family.
    pub confidence: f64,
    /// Pairs `(i, j)` with `i < j`, in lexicographic order.
    pub pairs: Vec<TukeyPair>,
}

/// Tukey's HSD for `means`, each of `n` observations, with error mean square `ms_error` on
/// `df` degrees of freedom. At least two means.
pub fn tukey_hsd(
    means: &[f64],
    ms_error: f64,
    df: f64,
    n: f64,
    confidence: f64,
) -> Result<TukeyHsd, StatsError> {
    check_confidence(confidence)?;
    let k = means.len();
    at_least("Tukey's HSD", "means", 2, k)?;
    if !(ms_error.is_finite() && ms_error >= 0.0 && n > 0.0 && df > 0.0)
        || means.iter().any(|m| !m.is_finite())
    {
        return Err(StatsError::Domain(format!(
            "Tukey's HSD needs finite means, a finite error mean square ≥ 0 and n, df > 0 \
             (got MS = {ms_error}, n = {n}, df = {df})"
        )));
    }
    let q_critical = studentized_range_quantile(confidence, k, df)?;
    let se = (ms_error / n).sqrt();
    let mut pairs = tukey_intervals(means, ms_error, n, q_critical);
    for pair in &mut pairs {
        pair.p_value = if se > 0.0 {
            // The survival function itself: 1 − cdf would round every small p to the
            // cdf's last digits (all pairs at 8.12e-12 on one real report).
            studentized_range_sf(pair.difference.abs() / se, k, df)
        } else if pair.difference == 0.0 {
            1.0
        } else {
            0.0
        };
    }
    let half_width = q_critical * se;
    Ok(TukeyHsd {
        q_critical,
        df,
        half_width,
        confidence,
        pairs,
    })
}

/// The simultaneous intervals for a known critical value `q_critical` (e.g. computed once
/// for many data sets of the same design), with the p-values left as NaN: the cheap part of
/// [`tukey_hsd`].
pub fn tukey_intervals(means: &[f64], ms_error: f64, n: f64, q_critical: f64) -> Vec<TukeyPair> {
    let half_width = q_critical * (ms_error / n).sqrt();
    let k = means.len();
    let mut pairs = Vec::with_capacity(k * k.saturating_sub(1) / 2);
    for i in 0..k {
        for j in i + 1..k {
            let difference = means[j] - means[i];
            pairs.push(TukeyPair {
                i,
                j,
                difference,
                lower: difference - half_width,
                upper: difference + half_width,
                p_value: f64::NAN,
            });
        }
    }
    pairs
}

// Reference values are pasted exactly as scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    #[test]
    fn one_way_matches_scipy_tukey_hsd() {
        // python3: g = the four groups below; r = scipy.stats.tukey_hsd(*g);
        // ci = r.confidence_interval(0.95); r.statistic[i, j] (= ȳ_i − ȳ_j, the negative of
        // ours), ci.low/high[i, j], r.pvalue[i, j]   (scipy 1.17.1)
        let g = [
            [9.8, 10.1, 10.0, 9.9, 10.2],
            [10.6, 10.4, 10.9, 10.5, 10.3],
            [9.5, 9.7, 9.4, 9.9, 9.6],
            [10.2, 10.0, 10.3, 10.1, 9.9],
        ];
        let means: Vec<f64> = g.iter().map(|x| x.iter().sum::<f64>() / 5.0).collect();
        let ss: f64 = g
            .iter()
            .zip(&means)
            .map(|(x, m)| x.iter().map(|v| (v - m).powi(2)).sum::<f64>())
            .sum();
        let t = tukey_hsd(&means, ss / 16.0, 16.0, 5.0, 0.95).unwrap();
        // (i, j, scipy statistic, low, high, p)
        let want = [
            (
                0,
                1,
                -0.5400000000000009,
                -0.8785204327462848,
                -0.20147956725371713,
                0.001631339349276506,
            ),
            (
                0,
                2,
                0.379999999999999,
                0.04147956725371521,
                0.7185204327462829,
                0.025203045577297245,
            ),
            (
                0,
                3,
                -0.09999999999999964,
                -0.43852043274628344,
                0.23852043274628415,
                0.8322451132438872,
            ),
            (
                1,
                2,
                0.9199999999999999,
                0.5814795672537161,
                1.2585204327462838,
                4.388250173015251e-06,
            ),
            (
                1,
                3,
                0.4400000000000013,
                0.10147956725371748,
                0.7785204327462851,
                0.009081488605087396,
            ),
            (
                2,
                3,
                -0.47999999999999865,
                -0.8185204327462825,
                -0.14147956725371486,
                0.004563915064954682,
            ),
        ];
        assert_eq!(t.pairs.len(), 6);
        for (pair, (i, j, stat, low, high, p)) in t.pairs.iter().zip(want) {
            assert_eq!((pair.i, pair.j), (i, j));
            assert!((pair.difference + stat).abs() < 1e-12);
            // Ours is j − i: scipy's interval of i − j, negated and swapped.
            assert!((pair.lower + high).abs() < 1e-8, "{pair:?}");
            assert!((pair.upper + low).abs() < 1e-8, "{pair:?}");
            // scipy's p is studentized_range.sf, as ours: 1e-6 relative.
            assert!(((pair.p_value - p) / p).abs() < 1e-6, "{pair:?} vs {p}");
        }
    }

    #[test]
    fn small_p_values_stay_distinct() {
        // Means 0, 6, 6.75 with MS_error 1 on 60 df, n 4 (se 0.5): q = 12, 13.5 and 1.5.
        // python3 -c "from scipy.stats import studentized_range as sr
        // print(repr(sr.sf(1.5, 3, 60.0)))"   (scipy 1.17.1) prints 0.5420055838190907;
        // for q = 12 and 13.5 scipy's quadrature is off by 4e-4 and 2 % (2.1930679e-11,
        // 3.6903813e-13), so those are the 20-digit mpmath quadrature of
        // studentized_range::tests (2.19225763226275e-11, 3.61105665073336e-13).
        let t = tukey_hsd(&[0.0, 6.0, 6.75], 1.0, 60.0, 4.0, 0.95).unwrap();
        let want = [
            2.19225763226275e-11,
            3.61105665073336e-13,
            0.5420055838190907,
        ];
        for (pair, p) in t.pairs.iter().zip(want) {
            assert!(((pair.p_value - p) / p).abs() < 1e-6, "{pair:?} vs {p}");
        }
        // Distinct, as 1 − cdf could not make them.
        assert!(t.pairs[1].p_value < t.pairs[0].p_value / 10.0);
    }

    #[test]
    fn refuses_degenerate_input() {
        assert!(tukey_hsd(&[1.0], 1.0, 5.0, 3.0, 0.95).is_err());
        assert!(tukey_hsd(&[1.0, 2.0], -1.0, 5.0, 3.0, 0.95).is_err());
        assert!(tukey_hsd(&[1.0, f64::NAN], 1.0, 5.0, 3.0, 0.95).is_err());
        let exact = tukey_hsd(&[1.0, 1.0, 2.0], 0.0, 5.0, 3.0, 0.95).unwrap();
        assert_eq!(exact.pairs[0].p_value, 1.0);
        assert_eq!(exact.pairs[1].p_value, 0.0);
    }
}
