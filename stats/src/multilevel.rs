//! Kalibera & Jones 2013 §9: variance per level of a multi-level experiment, the optimal
//! repetition counts, and the confidence interval of the mean.
//!
//! Levels are numbered as in the paper: level 1 is the lowest (e.g. iterations), level `n`
//! the highest (e.g. binaries). All vectors here are indexed lowest level first.

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::hierarchy::Hierarchy;
use super::sample::MeanInterval;

/// The estimators of one level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LevelEstimate {
    /// `r_i`: repetitions at this level (children per unit of the level above).
    pub repetitions: usize,
    /// `S_i²` (eq. 1); `None` when `r_i = 1` (no variance is visible at the level).
    pub s2: Option<f64>,
    /// `T_i²` (eq. 2, corrected form): this level's own contribution to the variance.
    /// May be negative (an estimator, not a square). `None` when `S_i²` or `S_{i−1}²` is.
    pub t2: Option<f64>,
}

/// `S_i²` and `T_i²` for every level, lowest level first (Kalibera & Jones 2013 eq. 1 and
/// the corrected eq. 2: `T_1² = S_1²`, `T_i² = S_i² − S_{i−1}² / r_{i−1}`).
///
/// `S_i²` is the average, over the units of level `i + 1`, of the sample variance (divisor
/// `r_i − 1`) of the means of their `r_i` children; at the top level there is one "parent",
/// the grand mean. One pass per level, O(number of measurements) in total.
///
/// ```
/// use layoutrand_stats::hierarchy::Hierarchy;
/// use layoutrand_stats::multilevel::level_variances;
/// // Two executions of two iterations each: (1, 3) and (5, 7). S₁² = mean of var(1, 3) and
/// // var(5, 7) = 2; the execution means 2 and 6 give S₂² = 8, so T₂² = 8 − 2 / 2 = 7.
/// let h = Hierarchy::from_nested(vec![1.0, 3.0, 5.0, 7.0], vec![2, 2]).unwrap();
/// let levels = level_variances(&h);
/// assert_eq!((levels[0].s2, levels[0].t2), (Some(2.0), Some(2.0)));
/// assert_eq!((levels[1].s2, levels[1].t2), (Some(8.0), Some(7.0)));
/// ```
pub fn level_variances(h: &Hierarchy) -> Vec<LevelEstimate> {
    let reps = h.repetitions();
    let mut means: Vec<f64> = h.values().to_vec();
    let mut s2: Vec<Option<f64>> = Vec::with_capacity(reps.len());
    for &r in reps {
        let mut sum_sq = 0.0;
        let mut next = Vec::with_capacity(means.len() / r);
        for group in means.chunks_exact(r) {
            let m = group.iter().sum::<f64>() / r as f64;
            sum_sq += group.iter().map(|y| (y - m) * (y - m)).sum::<f64>();
            next.push(m);
        }
        let parents = next.len() as f64;
        s2.push((r >= 2).then(|| sum_sq / (parents * (r as f64 - 1.0))));
        means = next;
    }
    let mut out = Vec::with_capacity(reps.len());
    for (i, &r) in reps.iter().enumerate() {
        let t2 = if i == 0 {
            s2[0]
        } else {
            match (s2[i], s2[i - 1]) {
                (Some(si), Some(below)) => Some(si - below / reps[i - 1] as f64),
                _ => None,
            }
        };
        out.push(LevelEstimate {
            repetitions: r,
            s2: s2[i],
            t2,
        });
    }
    out
}

/// What eq. 3 says about the repetition count of one level below the top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum OptimalCount {
    /// `r_i = ⌈sqrt(c_{i+1}/c_i · T_i²/T_{i+1}²)⌉`.
    Count {
        /// The count (at least 1).
        repetitions: u64,
    },
    /// `T_i² ≤ 0`: this level adds no measurable variance of its own, so repeating here
    /// buys nothing — repeat once (Kalibera & Jones §9.2).
    NoVarianceHere,
    /// `T_{i+1}² ≤ 0` while `T_i² > 0`: the level above adds no variance, so eq. 3 has no
    /// finite answer; that level could be dropped and the repetition done here instead.
    NoVarianceAbove,
    /// `T_i²` or `T_{i+1}²` could not be estimated (a level had a single repetition).
    Unknown,
}

impl OptimalCount {
    /// The count to use, when eq. 3 gives one (`NoVarianceHere` means 1).
    pub fn repetitions(&self) -> Option<u64> {
        match self {
            OptimalCount::Count { repetitions } => Some(*repetitions),
            OptimalCount::NoVarianceHere => Some(1),
            _ => None,
        }
    }
}

/// The largest count eq. 3 reports as a number (2^53, the largest integer an f64 holds
/// exactly).
pub const MAX_EXACT_COUNT: f64 = 9_007_199_254_740_992.0;

/// Optimal repetition counts `r_1 … r_{n−1}` for the real experiment (Kalibera & Jones 2013
/// eq. 3), given the estimators of the initial experiment and the cost `c_i` of one
/// repetition at each level (lowest first, `costs.len() == levels.len()`, all positive).
/// The top level has no optimum (more repetitions there always help), so the result has
/// one entry fewer than `levels`.
///
/// ```
/// use layoutrand_stats::hierarchy::Hierarchy;
/// use layoutrand_stats::multilevel::{level_variances, optimal_repetitions};
/// // T₁² = 2, T₂² = 7 (see `level_variances`); an iteration costs 1, an execution 100:
/// // r₁ = ⌈√(100 · 2 / (1 · 7))⌉ = ⌈5.35⌉ = 6 iterations per execution.
/// let h = Hierarchy::from_nested(vec![1.0, 3.0, 5.0, 7.0], vec![2, 2]).unwrap();
/// let counts = optimal_repetitions(&level_variances(&h), &[1.0, 100.0]).unwrap();
/// assert_eq!(counts.len(), 1);
/// assert_eq!(counts[0].repetitions(), Some(6));
/// ```
pub fn optimal_repetitions(
    levels: &[LevelEstimate],
    costs: &[f64],
) -> Result<Vec<OptimalCount>, StatsError> {
    if costs.len() != levels.len() {
        return Err(StatsError::Domain(format!(
            "{} costs given for {} levels",
            costs.len(),
            levels.len()
        )));
    }
    if let Some(c) = costs.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
        return Err(StatsError::Domain(format!(
            "cost {c} is not a positive number"
        )));
    }
    let mut out = Vec::with_capacity(levels.len().saturating_sub(1));
    for i in 0..levels.len().saturating_sub(1) {
        let advice = match (levels[i].t2, levels[i + 1].t2) {
            (Some(ti), _) if ti <= 0.0 => OptimalCount::NoVarianceHere,
            (Some(_), Some(above)) if above <= 0.0 => OptimalCount::NoVarianceAbove,
            (Some(ti), Some(above)) => {
                let r = ((costs[i + 1] / costs[i]) * (ti / above)).sqrt().ceil();
                // Beyond 2^53 the count is not even representable exactly: the level above's
                // variance is negligible beside this one's, which is the NoVarianceAbove case
                // (a cast would silently saturate to u64::MAX instead).
                if r.is_finite() && r <= MAX_EXACT_COUNT {
                    OptimalCount::Count {
                        repetitions: (r as u64).max(1),
                    }
                } else {
                    OptimalCount::NoVarianceAbove
                }
            }
            _ => OptimalCount::Unknown,
        };
        out.push(advice);
    }
    Ok(out)
}

/// The confidence interval of the mean (Kalibera & Jones 2013 eq. 4):
/// `Ȳ ± t_{1−α/2, r_n−1} · sqrt(S_n² / r_n)`, i.e. the t interval over the top-level means.
/// Needs at least two top-level units.
pub fn mean_ci(h: &Hierarchy, confidence: f64) -> Result<MeanInterval, StatsError> {
    check_confidence(confidence)?;
    let top = *h.repetitions().last().expect("a hierarchy has a level");
    at_least(
        "the confidence interval (Kalibera & Jones eq. 4)",
        "top-level units",
        2,
        top,
    )?;
    let levels = level_variances(h);
    let s2_top = levels.last().and_then(|l| l.s2).expect("r_n ≥ 2");
    MeanInterval::from_summary(h.mean(), s2_top, top, confidence)
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;

    /// libkalibera's public test vector (docs/design.md): {(0,0):[3,4,3], (0,1):[1.2,3.1,3],
    /// (1,0):[0.2,1,1.5], (1,1):[1,2,3]}, printed there to 6 decimals.
    fn libkalibera() -> Hierarchy {
        Hierarchy::from_nested(
            vec![3.0, 4.0, 3.0, 1.2, 3.1, 3.0, 0.2, 1.0, 1.5, 1.0, 2.0, 3.0],
            vec![3, 2, 2],
        )
        .unwrap()
    }

    #[test]
    fn libkalibera_vector() {
        let l = level_variances(&libkalibera());
        let s2 = [0.726667, 0.505, 1.027222];
        let t2 = [0.726667, 0.262778, 0.774722];
        for i in 0..3 {
            assert!((l[i].s2.unwrap() - s2[i]).abs() < 5e-7, "S{}", i + 1);
            assert!((l[i].t2.unwrap() - t2[i]).abs() < 5e-7, "T{}", i + 1);
        }
        // Full precision, numpy: d = array(data).reshape(2, 2, 3);
        // d.var(axis=2, ddof=1).mean() = 0.7266666666666668;
        // e = d.mean(axis=2); e.var(axis=1, ddof=1).mean() = 0.5050000000000001;
        // e.mean(axis=1).var(ddof=1) = 1.027222222222222; T2² = 0.2627777777777779.
        assert!(close(l[0].s2.unwrap(), 0.7266666666666668, 1e-12));
        assert!(close(l[1].s2.unwrap(), 0.5050000000000001, 1e-12));
        assert!(close(l[2].s2.unwrap(), 1.027222222222222, 1e-12));
        assert!(close(l[1].t2.unwrap(), 0.2627777777777779, 1e-12));
    }

    #[test]
    fn negative_t2_guard() {
        // Executions identical within a binary except iteration noise: S2² small, T2² < 0.
        let h = Hierarchy::from_nested(vec![1.0, 3.0, 2.0, 2.0, 5.0, 7.0, 6.0, 6.0], vec![2, 2, 2])
            .unwrap();
        let l = level_variances(&h);
        assert!(l[1].t2.unwrap() < 0.0);
        let r = optimal_repetitions(&l, &[1.0, 10.0, 100.0]).unwrap();
        assert_eq!(r[0], OptimalCount::NoVarianceAbove);
        assert_eq!(r[1], OptimalCount::NoVarianceHere);
        assert_eq!(r[1].repetitions(), Some(1));
    }

    /// A level above whose variance is tiny beside this one's gives a count no integer type
    /// holds; it is reported as NoVarianceAbove, never as a saturated number.
    #[test]
    fn an_astronomical_count_is_no_variance_above_not_a_saturated_number() {
        let level = |t2: f64| LevelEstimate {
            repetitions: 10,
            s2: None,
            t2: Some(t2),
        };
        for above in [1e-300, 1e-20] {
            let r = optimal_repetitions(&[level(1e10), level(above)], &[1.0, 1e6]).unwrap();
            assert_eq!(r, vec![OptimalCount::NoVarianceAbove], "above = {above}");
        }
        // Under the bound it is still a count: sqrt(4 · 2^98) = 2^50 ≤ 2^53, exactly.
        let r = optimal_repetitions(&[level(1.0), level(2f64.powi(-98))], &[1.0, 4.0]).unwrap();
        assert_eq!(
            r,
            vec![OptimalCount::Count {
                repetitions: 1 << 50
            }]
        );
    }

    /// Kalibera & Jones Table 5: c₁, c₂ and t_i = sqrt(T_i²/Ȳ) → r₁. Only the ratio
    /// T₁²/T₂² = (t₁/t₂)² enters eq. 3, so the normalisation cancels.
    #[test]
    fn kalibera_jones_table_5() {
        let rows = [
            (35.5, 110.0, 14.0, 2.7, 10),
            (1.7, 12.3, 3.4, 30.3, 1),
            (10.8, 24.6, 7.2, 8.9, 2),
            (6.7, 71.8, 3.5, 0.8, 15),
        ];
        for (c1, c2, t1, t2, want) in rows {
            let levels = [
                LevelEstimate {
                    repetitions: 10,
                    s2: None,
                    t2: Some(t1 * t1),
                },
                LevelEstimate {
                    repetitions: 10,
                    s2: None,
                    t2: Some(t2 * t2),
                },
            ];
            let r = optimal_repetitions(&levels, &[c1, c2]).unwrap();
            assert_eq!(r, vec![OptimalCount::Count { repetitions: want }]);
        }
    }

    #[test]
    fn ci_is_the_t_interval_of_the_top_means() {
        let h = libkalibera();
        let ci = mean_ci(&h, 0.95).unwrap();
        // scipy: m=[(3+4+3+1.2+3.1+3)/6, (0.2+1+1.5+1+2+3)/6];
        // stats.t.interval(0.95, 1, loc=np.mean(m), scale=stats.sem(m))
        // -> (-6.939446727591861, 11.272780060925193)
        assert!(close(ci.lower, -6.939446727591861, 1e-10), "{}", ci.lower);
        assert!(close(ci.upper, 11.272780060925193, 1e-10), "{}", ci.upper);
        assert_eq!(ci.df, 1.0);
    }

    #[test]
    fn too_few_top_units() {
        let h = Hierarchy::from_nested(vec![1.0, 2.0], vec![2, 1]).unwrap();
        assert!(matches!(mean_ci(&h, 0.95), Err(StatsError::TooFew { .. })));
        let l = level_variances(&h);
        assert_eq!(l[1].s2, None);
        assert_eq!(l[1].t2, None);
    }
}
