//! Do `k` treatments differ when the data come in randomised complete blocks? Friedman's rank
//! test (Friedman 1937, J. Amer. Statist. Assoc. 32: 675–701), in the F form of Iman &
//! Davenport (1980, Commun. Statist. A 9: 571–595: the two-way ANOVA of the within-block
//! ranks, treatments tested against the treatment × block residual), with its p-value from
//! the randomisation distribution: the within-block permutations of the ranks (Hollander &
//! Wolfe, "Nonparametric Statistical Methods", 2nd ed., §7.1).
//!
//! Why this test for the layout question on a rounds schedule: each round runs every binary
//! once in a fresh random order, so under the null hypothesis that the layout does not
//! matter, which binary got which position of a round — hence which value — is the
//! scheduler's draw. Permuting the values within each round is then exactly the
//! experiment's own randomisation, and the p-value is valid whatever the machine did: a
//! load burst is attached to positions of the schedule, not to binaries. Ranks bound what
//! one execution can contribute (a +20 % burst is the top rank of its round, no more), so a
//! few bursts cost little power instead of swamping the test, as they do the F test of the
//! raw values (docs/statistics.md, "Layout sensitivity", gives the simulated rates).

use super::anova::f_upper_tail;
use super::error::{at_least, StatsError};
use crate::seeded::SeededRng;

/// The blocked rank test of a `treatments × blocks` table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockedRankTest {
    /// Friedman's χ² (corrected for ties).
    pub chi2: f64,
    /// Iman & Davenport's `F = (b − 1)χ² / (b(k − 1) − χ²)`: the ANOVA F of the ranks
    /// (infinite when every block ranks the treatments alike).
    pub f: f64,
    /// Its degrees of freedom, `(k − 1, (k − 1)(b − 1))`.
    pub df: (usize, usize),
    /// `P(F_{k−1,(k−1)(b−1)} ≥ f)`: Iman & Davenport's approximation, for reference.
    pub p_approximate: f64,
    /// The randomisation p-value `(1 + #{χ²* ≥ χ²}) / (1 + permutations)` over seeded
    /// within-block permutations of the ranks (valid at any size: never below the true
    /// level's share).
    pub p: f64,
    /// Within-block permutations drawn.
    pub permutations: usize,
}

/// Mid-ranks (1-based, ties sharing their average rank) of `values` (no NaN).
pub fn mid_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            ranks[o] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// Friedman's statistic of within-block ranks given per block (`ranks[block][treatment]`):
/// `χ² = [12/(b k (k+1)) Σ_j R_j² − 3 b (k+1)] / C`, `R_j` treatment `j`'s rank sum and
/// `C = 1 − Σ(t³ − t) / (b k (k² − 1))` the tie correction (Hollander & Wolfe eq. 7.8; as
/// scipy.stats.friedmanchisquare). NaN when every block is one tie.
pub fn friedman_chi2(ranks: &[Vec<f64>]) -> f64 {
    let b = ranks.len() as f64;
    let k = ranks.first().map_or(0, Vec::len);
    let kf = k as f64;
    let sums: Vec<f64> = (0..k).map(|j| ranks.iter().map(|r| r[j]).sum()).collect();
    let raw = 12.0 / (b * kf * (kf + 1.0)) * sums.iter().map(|s| s * s).sum::<f64>()
        - 3.0 * b * (kf + 1.0);
    let ties: f64 = ranks.iter().map(|r| tie_sum(r)).sum();
    let correction = 1.0 - ties / (b * kf * (kf * kf - 1.0));
    if correction <= 0.0 {
        return f64::NAN;
    }
    raw / correction
}

/// `Σ (t³ − t)` over the groups of equal ranks in `ranks`.
fn tie_sum(ranks: &[f64]) -> f64 {
    let mut sorted = ranks.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut total = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let j = sorted[i..].iter().take_while(|&&r| r == sorted[i]).count();
        let t = j as f64;
        total += t * t * t - t;
        i += j;
    }
    total
}

/// A table's screening before ranking: a table of the same shape.
pub type Screen = dyn Fn(&[Vec<f64>]) -> Vec<Vec<f64>>;

/// The blocked rank test of `table[treatment][block]` (every cell present and finite; at
/// least 2 treatments and 2 blocks), its p-value from `permutations` within-block
/// permutations drawn with `rng` (the caller's seed makes the p-value reproducible).
pub fn blocked_rank_test(
    table: &[Vec<f64>],
    permutations: usize,
    rng: &mut SeededRng,
) -> Result<BlockedRankTest, StatsError> {
    blocked_rank_test_of(table, permutations, rng, &|t: &[Vec<f64>]| t.to_vec())
}

/// [`blocked_rank_test`] of the table `screen` makes of `table` (e.g. outlying cells
/// replaced by a robust fit): the ranks are those of `screen(table)`, and every permutation
/// permutes the raw values within blocks and screens again, so the p-value stays the
/// randomisation p-value of the whole procedure (valid for any `screen` that keeps the
/// table's shape).
pub fn blocked_rank_test_of(
    table: &[Vec<f64>],
    permutations: usize,
    rng: &mut SeededRng,
    screen: &Screen,
) -> Result<BlockedRankTest, StatsError> {
    let k = table.len();
    at_least("blocked rank test", "treatments", 2, k)?;
    let b = table[0].len();
    at_least("blocked rank test", "blocks", 2, b)?;
    if table.iter().any(|row| row.len() != b) {
        return Err(StatsError::Domain(
            "blocked rank test: every treatment needs a value in every block".into(),
        ));
    }
    if table.iter().flatten().any(|v| !v.is_finite()) {
        return Err(StatsError::Domain(
            "blocked rank test: a value is not finite".into(),
        ));
    }
    let statistic = |t: &[Vec<f64>]| friedman_chi2(&block_ranks(&screen(t)));
    let chi2 = statistic(table);
    let (bf, kf) = (b as f64, k as f64);
    let df = (k - 1, (k - 1) * (b - 1));
    if chi2.is_nan() {
        // Every block is one tie: the treatments are equal wherever they met, so the data
        // hold no evidence that they differ (not an infinite F: the ranks do not vary at
        // all), and every permutation of a tie is the same table.
        return Ok(BlockedRankTest {
            chi2: 0.0,
            f: 0.0,
            df,
            p_approximate: 1.0,
            p: 1.0,
            permutations,
        });
    }
    let denominator = bf * (kf - 1.0) - chi2;
    let f = if denominator > 1e-12 * bf * kf {
        (bf - 1.0) * chi2 / denominator
    } else {
        f64::INFINITY
    };
    let p_approximate = if f.is_finite() {
        f_upper_tail(f, df.0, df.1)
    } else {
        0.0
    };
    let as_large = permutations_as_large(table, permutations, rng, &statistic, chi2);
    Ok(BlockedRankTest {
        chi2,
        f,
        df,
        p_approximate,
        p: (1 + as_large) as f64 / (1 + permutations) as f64,
        permutations,
    })
}

/// Of `permutations` tables permuted within blocks (the same `statistic`, so the same
/// screening and ranks, as the observed `chi2`), how many reach `chi2`.
fn permutations_as_large(
    table: &[Vec<f64>],
    permutations: usize,
    rng: &mut SeededRng,
    statistic: &impl Fn(&[Vec<f64>]) -> f64,
    chi2: f64,
) -> usize {
    let b = table.first().map_or(0, Vec::len);
    // Blocks as columns, so that a permutation shuffles one vector per block.
    let mut columns: Vec<Vec<f64>> = (0..b)
        .map(|block| table.iter().map(|row| row[block]).collect())
        .collect();
    let mut permuted = table.to_vec();
    let mut as_large = 0usize;
    // A permuted statistic equal to the observed one up to rounding counts as large.
    let tolerance = 1e-9 * chi2.abs().max(1.0);
    for _ in 0..permutations {
        for (block, column) in columns.iter_mut().enumerate() {
            rng.shuffle(column);
            for (row, v) in permuted.iter_mut().zip(column.iter()) {
                row[block] = *v;
            }
        }
        if statistic(&permuted) >= chi2 - tolerance {
            as_large += 1;
        }
    }
    as_large
}

/// The within-block mid-ranks of `table[treatment][block]`, per block.
fn block_ranks(table: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let b = table.first().map_or(0, Vec::len);
    (0..b)
        .map(|block| mid_ranks(&table.iter().map(|row| row[block]).collect::<Vec<_>>()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mid_ranks_share_ties() {
        assert_eq!(mid_ranks(&[3.0, 1.0, 2.0]), [3.0, 1.0, 2.0]);
        assert_eq!(mid_ranks(&[5.0, 1.0, 5.0, 0.0]), [3.5, 2.0, 3.5, 1.0]);
    }

    /// Reference values from scipy 1.17.1 and statsmodels 0.15.0:
    /// ```text
    /// from scipy import stats; import numpy as np
    /// t = np.array([[1.00, 1.20, 0.99], [1.03, 1.02, 1.04], [0.97, 0.98, 0.96],
    ///               [1.01, 1.00, 1.02]])              # treatments × blocks
    /// stats.friedmanchisquare(*t)                        # chi2 = 6.6, p = 0.08580
    /// # Iman–Davenport F = 2*6.6/(3*3-6.6) = 5.5, df (3, 6):
    /// stats.f.sf(5.5, 3, 6)                              # 0.037083
    /// # the same F from statsmodels' two-way ANOVA of the within-block ranks:
    /// import pandas as pd, statsmodels.formula.api as smf, statsmodels.api as sm
    /// r = np.apply_along_axis(stats.rankdata, 0, t)
    /// d = pd.DataFrame([(i, j, r[i, j]) for i in range(4) for j in range(3)],
    ///                  columns=['t', 'b', 'r'])
    /// sm.stats.anova_lm(smf.ols('r ~ C(t) + C(b)', d).fit())  # F(t) = 5.5
    /// # exact randomisation p over all 24^3 within-block permutations: 0.074653
    /// ```
    #[test]
    fn friedman_and_iman_davenport_match_scipy_and_the_exact_permutation_p() {
        let t = vec![
            vec![1.00, 1.20, 0.99],
            vec![1.03, 1.02, 1.04],
            vec![0.97, 0.98, 0.96],
            vec![1.01, 1.00, 1.02],
        ];
        let mut rng = SeededRng::new(1, "test");
        let r = blocked_rank_test(&t, 20_000, &mut rng).unwrap();
        assert!((r.chi2 - 6.6).abs() < 1e-12, "{}", r.chi2);
        assert!((r.f - 5.5).abs() < 1e-12, "{}", r.f);
        assert_eq!(r.df, (3, 6));
        assert!(
            (r.p_approximate - 0.037083).abs() < 1e-5,
            "{}",
            r.p_approximate
        );
        // Monte Carlo standard error at p ≈ 0.075 with 20,000 draws: 0.0018.
        assert!((r.p - 0.074653).abs() < 0.0075, "{}", r.p);
    }

    /// `scipy.stats.friedmanchisquare([1, 2, 2, 3], [2, 1, 2, 1], [3, 3, 1, 2])` (scipy
    /// 1.17.1), ties inside two blocks: statistic 0.933333 (tie-corrected).
    #[test]
    fn ties_are_corrected_as_scipy_corrects_them() {
        let t = vec![
            vec![1.0, 2.0, 2.0, 3.0],
            vec![2.0, 1.0, 2.0, 1.0],
            vec![3.0, 3.0, 1.0, 2.0],
        ];
        let mut rng = SeededRng::new(1, "test");
        let r = blocked_rank_test(&t, 10, &mut rng).unwrap();
        assert!((r.chi2 - 0.933_333_333).abs() < 1e-6, "{}", r.chi2);
    }

    /// A deterministic metric measured in blocks that each hold one condition (e.g. one data
    /// layout per round under cachegrind): every block is one tie. Before this was handled,
    /// χ² was NaN, F infinite and no permutation "as large", so p was the smallest possible
    /// and equal binaries were called different.
    #[test]
    fn equal_treatments_in_every_block_are_no_evidence() {
        let table = vec![vec![7.0, 9.0, 8.0, 7.0]; 5];
        let t = blocked_rank_test(&table, 199, &mut SeededRng::new(3, "ties")).unwrap();
        assert_eq!((t.f, t.p, t.p_approximate), (0.0, 1.0, 1.0));
        // One block that breaks the tie makes a finite, large p again.
        let mut table = table;
        table[0][0] = 7.5;
        let t = blocked_rank_test(&table, 199, &mut SeededRng::new(3, "ties")).unwrap();
        assert!(t.f.is_finite() && t.p > 0.2, "{t:?}");
    }

    #[test]
    fn same_order_in_every_block_is_the_smallest_p() {
        let t: Vec<Vec<f64>> = (0..5).map(|i| vec![i as f64; 3]).collect();
        let mut rng = SeededRng::new(3, "test");
        let r = blocked_rank_test(&t, 999, &mut rng).unwrap();
        assert!(r.f.is_infinite());
        // P(all 3 blocks agree) = 1/120² ≈ 7e-5: few of 999 permutations reach it.
        assert!(r.p < 0.005, "{}", r.p);
        assert!(blocked_rank_test(&t[..1], 9, &mut rng).is_err());
        let ragged = vec![vec![1.0, 2.0], vec![1.0]];
        assert!(blocked_rank_test(&ragged, 9, &mut rng).is_err());
    }
}
