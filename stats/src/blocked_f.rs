//! Do `k` treatments differ when the data come in randomised complete blocks? The two-way
//! additive ANOVA of a `treatments × blocks` table with one value per cell (the randomised
//! complete block design: Montgomery, "Design and Analysis of Experiments", 8th ed., §4.1;
//! with random treatments `E[MS_T] = σ² + b σ_τ²`, §4.1.3 and §13.1), `F = MS_T / MS_E` on
//! `(k − 1, (k − 1)(b − 1))` degrees of freedom, with its p-value from the experiment's own
//! randomisation: the within-block permutations of the values (Fisher, "The Design of
//! Experiments", 1935, §21; Edgington & Onghena, "Randomization Tests", 4th ed., ch. 6).
//!
//! Why this test for the layout question on a rounds schedule (issue 55): each round runs
//! every binary once in a fresh random order, so under "the layout does not matter" which
//! binary got which position of a round — hence which value — is the scheduler's draw, and
//! the within-round permutation distribution gives a p-value valid whatever the machine did
//! (a load burst belongs to positions of the schedule, not to binaries). The F statistic
//! weighs how far the binaries' means lie apart, so one layout 5 % off in every round is as
//! plain to it as a spread over all of them; rank tests (Friedman's) cannot rank one binary
//! beyond last and missed it with 3 rounds. A screen (e.g. outlying cells replaced by a
//! robust fit) may be applied before the statistic; every permutation applies it again, so
//! the p-value stays that of the whole procedure.

use super::anova::f_upper_tail;
use super::error::{at_least, StatsError};
use crate::seeded::SeededRng;

/// The two-way additive ANOVA of a `treatments × blocks` table, one value per cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdditiveAnova {
    /// Treatments `k` (rows) and blocks `b` (columns).
    pub treatments: usize,
    pub blocks: usize,
    /// `b Σ (ȳ_i· − ȳ)² / (k − 1)`.
    pub ms_treatment: f64,
    /// The residual (treatment × block) mean square, `SS_E / df_E`.
    pub ms_residual: f64,
    /// `(k − 1, (k − 1)(b − 1) − fitted)`: `fitted` cells replaced by a fit each take one
    /// residual degree of freedom (at least 1 is kept).
    pub df: (usize, usize),
    /// `MS_T / MS_E`: infinite when the residuals vanish and the treatments differ, 0 when
    /// the treatments' means are equal.
    pub f: f64,
    /// `P(F_{df} ≥ f)`, the normal-theory p-value, for reference.
    pub p_normal: f64,
    /// The treatments' variance component, `(MS_T − MS_E) / b` (negative when `F < 1`).
    pub var_treatment: f64,
}

/// The additive ANOVA of `table[treatment][block]` (complete, finite, at least 2 × 2), with
/// `fitted` cells that a screen replaced by a fit (their residuals are 0 by construction, so
/// each costs the residual a degree of freedom; an error when none is left).
pub fn additive_anova(table: &[Vec<f64>], fitted: usize) -> Result<AdditiveAnova, StatsError> {
    let (k, b) = shape(table)?;
    let (kf, bf) = (k as f64, b as f64);
    let row_means: Vec<f64> = table.iter().map(|r| r.iter().sum::<f64>() / bf).collect();
    let column_means: Vec<f64> = (0..b)
        .map(|c| table.iter().map(|r| r[c]).sum::<f64>() / kf)
        .collect();
    let grand = row_means.iter().sum::<f64>() / kf;
    let ss_treatment = bf * row_means.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    let ss_residual: f64 = table
        .iter()
        .zip(&row_means)
        .flat_map(|(row, rm)| {
            row.iter()
                .zip(&column_means)
                .map(move |(y, cm)| (y - rm - cm + grand).powi(2))
        })
        .sum();
    let df_treatment = k - 1;
    // A screen that replaced as many cells as the residual has degrees of freedom left no
    // residual to test against: refused, never a made-up degree of freedom.
    let df_residual = ((k - 1) * (b - 1))
        .checked_sub(fitted)
        .filter(|df| *df >= 1)
        .ok_or_else(|| {
            StatsError::Domain(format!(
                "blocked F test: {fitted} cells replaced by a fit leave no residual degree of \
                 freedom of the {} of a {k} × {b} table",
                (k - 1) * (b - 1)
            ))
        })?;
    let ms_treatment = ss_treatment / df_treatment as f64;
    // Rounding leaves residuals of an exactly additive table at ~1e-32 of the values'
    // square: that is no spread.
    let floor = 1e-24 * table.iter().flatten().map(|y| y * y).sum::<f64>() / (kf * bf);
    let ms_residual = if ss_residual <= floor {
        0.0
    } else {
        ss_residual / df_residual as f64
    };
    // Equal treatments are no evidence, even when nothing else varies either.
    let f = if ms_treatment == 0.0 {
        0.0
    } else {
        ms_treatment / ms_residual
    };
    Ok(AdditiveAnova {
        treatments: k,
        blocks: b,
        ms_treatment,
        ms_residual,
        df: (df_treatment, df_residual),
        f,
        p_normal: f_upper_tail(f, df_treatment, df_residual),
        var_treatment: (ms_treatment - ms_residual) / bf,
    })
}

/// The shape `(k, b)` of a complete, finite table of at least 2 treatments and 2 blocks.
fn shape(table: &[Vec<f64>]) -> Result<(usize, usize), StatsError> {
    let k = table.len();
    at_least("blocked F test", "treatments", 2, k)?;
    let b = table[0].len();
    at_least("blocked F test", "blocks", 2, b)?;
    if table.iter().any(|row| row.len() != b) {
        return Err(StatsError::Domain(
            "blocked F test: every treatment needs a value in every block".into(),
        ));
    }
    if table.iter().flatten().any(|v| !v.is_finite()) {
        return Err(StatsError::Domain(
            "blocked F test: a value is not finite".into(),
        ));
    }
    Ok((k, b))
}

/// A screen applied before the statistic: the screened table (same shape; it may change
/// the scale, e.g. to logarithms) and how many of its cells it replaced by a fit.
pub type Screen = dyn Fn(&[Vec<f64>]) -> (Vec<Vec<f64>>, usize);

/// The blocked F test with its randomisation p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockedFTest {
    /// The ANOVA of the screened observed table.
    pub anova: AdditiveAnova,
    /// Cells the screen replaced in the observed table.
    pub fitted: usize,
    /// `(1 + #{F* ≥ F}) / (1 + permutations)` over seeded within-block permutations (valid
    /// at any size: never below the true level's share). 1 when the treatments' means are
    /// equal.
    pub p: f64,
    /// Within-block permutations drawn.
    pub permutations: usize,
}

/// The blocked F test of `table[treatment][block]` screened by `screen`, its p-value from
/// `permutations` within-block permutations of the raw values drawn with `rng` (the
/// caller's seed makes the p-value reproducible), each screened again.
pub fn blocked_f_test_of(
    table: &[Vec<f64>],
    permutations: usize,
    rng: &mut SeededRng,
    screen: &Screen,
) -> Result<BlockedFTest, StatsError> {
    let family = blocked_f_family(table, permutations, rng, &[screen])?;
    Ok(family.tests[0])
}

/// Several blocked F tests of one table, each under its own screen, and one p-value for
/// the family: the min-p randomisation test (Westfall & Young, "Resampling-Based Multiple
/// Testing", 1993, §2.6, algorithm 2.8; Pesarin, "Multivariate Permutation Tests", 2001,
/// ch. 6 on combining dependent permutation tests).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockedFFamily {
    /// Each screen's test, in the order given, with its own (marginal) p-value from the
    /// same permutations.
    pub tests: Vec<BlockedFTest>,
    /// The family's p-value: the share of the tables (the observed one and each permuted
    /// one) whose smallest marginal p-value is at most the observed table's. Exact at any
    /// size whatever the dependence between the screens, and never below the smallest
    /// marginal p-value; where the screens agree it stays close to it, where Bonferroni
    /// would multiply it by the number of screens.
    pub p: f64,
    /// The test with the smallest marginal p-value (the first of equals).
    pub decided: usize,
}

/// The blocked F tests of `table` under each of `screens`, all on the same `permutations`
/// within-block permutations of the raw values (drawn with `rng`; every permuted table is
/// screened again by each screen), and the family's min-p p-value. Why a family: no one
/// screen keeps the power in every case (issue 55). A screen that replaces outlying cells
/// by a robust fit of the whole table keeps it through load bursts but, permuted, makes a
/// deviant row out of two far values in one row; one that judges each block alone (which
/// does not depend on the labels) removes bursts however they fall but also a layout
/// further off than its cut; the plain table keeps a layout far off but not bursts. Taking
/// the best of them is only a test when the choice is paid for, and min-p pays for it by
/// the permutations themselves rather than by Bonferroni's factor.
pub fn blocked_f_family(
    table: &[Vec<f64>],
    permutations: usize,
    rng: &mut SeededRng,
    screens: &[&Screen],
) -> Result<BlockedFFamily, StatsError> {
    shape(table)?;
    if screens.is_empty() {
        return Err(StatsError::Domain(
            "blocked F test: no statistic to test".into(),
        ));
    }
    let observed: Vec<(AdditiveAnova, usize)> = screens
        .iter()
        .map(|screen| {
            let (screened, fitted) = screen(table);
            Ok((additive_anova(&screened, fitted)?, fitted))
        })
        .collect::<Result<_, StatsError>>()?;
    let result = |p: f64, marginal: &[f64]| {
        let tests: Vec<BlockedFTest> = observed
            .iter()
            .zip(marginal)
            .map(|(&(anova, fitted), &p)| BlockedFTest {
                anova,
                fitted,
                p,
                permutations,
            })
            .collect();
        let decided = (0..tests.len())
            .min_by(|&a, &b| tests[a].p.total_cmp(&tests[b].p))
            .unwrap_or(0);
        BlockedFFamily { tests, p, decided }
    };
    if observed.iter().all(|(a, _)| a.f == 0.0) {
        // The treatments' means are equal under every screen: no evidence that they differ
        // (every permutation reaches F = 0).
        return Ok(result(1.0, &vec![1.0; screens.len()]));
    }
    // statistics[j][0] is screen j's observed F, statistics[j][m] that of permutation m.
    let mut statistics: Vec<Vec<f64>> = observed.iter().map(|(a, _)| vec![a.f]).collect();
    for permuted in within_block_permutations(table, permutations, rng) {
        for (screen, column) in screens.iter().zip(statistics.iter_mut()) {
            let (screened, fitted) = screen(&permuted);
            // A permuted table the ANOVA refuses never counts as large.
            let f = additive_anova(&screened, fitted).map_or(f64::NEG_INFINITY, |a| a.f);
            column.push(if f.is_nan() { f64::NEG_INFINITY } else { f });
        }
    }
    // as_large[j][m]: how many of the tables reach table m's statistic j (itself included).
    let as_large: Vec<Vec<usize>> = statistics.iter().map(|s| counts_as_large(s)).collect();
    let tables = permutations + 1;
    let smallest = |m: usize| as_large.iter().map(|c| c[m]).min().unwrap_or(tables);
    let observed_smallest = smallest(0);
    let family = (0..tables)
        .filter(|&m| smallest(m) <= observed_smallest)
        .count();
    let marginal: Vec<f64> = as_large
        .iter()
        .map(|c| c[0] as f64 / tables as f64)
        .collect();
    Ok(result(family as f64 / tables as f64, &marginal))
}

/// For each value of `statistics`, how many values reach it (itself included), a value
/// equal up to rounding counting as reaching it (an infinite one is reached only by
/// another infinite one).
fn counts_as_large(statistics: &[f64]) -> Vec<usize> {
    let mut sorted = statistics.to_vec();
    sorted.sort_by(f64::total_cmp);
    statistics
        .iter()
        .map(|&s| {
            let tolerance = if s.is_finite() {
                1e-9 * s.abs().max(1.0)
            } else {
                0.0
            };
            let below = sorted.partition_point(|&x| x < s - tolerance);
            sorted.len() - below
        })
        .collect()
}

/// `permutations` tables, each `table` with every block's (column's) values shuffled anew
/// by `rng`.
fn within_block_permutations<'a>(
    table: &'a [Vec<f64>],
    permutations: usize,
    rng: &'a mut SeededRng,
) -> impl Iterator<Item = Vec<Vec<f64>>> + 'a {
    let b = table.first().map_or(0, Vec::len);
    // Blocks as columns, so that a permutation shuffles one vector per block.
    let mut columns: Vec<Vec<f64>> = (0..b)
        .map(|block| table.iter().map(|row| row[block]).collect())
        .collect();
    let mut permuted = table.to_vec();
    (0..permutations).map(move |_| {
        for (block, column) in columns.iter_mut().enumerate() {
            rng.shuffle(column);
            for (row, v) in permuted.iter_mut().zip(column.iter()) {
                row[block] = *v;
            }
        }
        permuted.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::close;

    fn unscreened(t: &[Vec<f64>]) -> (Vec<Vec<f64>>, usize) {
        (t.to_vec(), 0)
    }

    /// Reference values from statsmodels 0.15.0 and scipy 1.17.1:
    /// ```text
    /// import numpy as np, pandas as pd, statsmodels.formula.api as smf, statsmodels.api as sm
    /// t = np.array([[1.00, 1.20, 0.99], [1.03, 1.02, 1.04], [0.97, 0.98, 0.96],
    ///               [1.01, 1.00, 1.02]])              # treatments × blocks
    /// d = pd.DataFrame([(i, j, t[i, j]) for i in range(4) for j in range(3)],
    ///                  columns=['t', 'b', 'y'])
    /// sm.stats.anova_lm(smf.ols('y ~ C(t) + C(b)', d).fit())
    /// #           df    sum_sq            mean_sq           F               PR(>F)
    /// # C(t)       3     0.0137            0.00456666666667  1.20971302428   0.38391626854
    /// # C(b)       2     0.00601666666667  0.00300833333333  0.796909492274  0.493256741348
    /// # Residual   6     0.02265           0.003775
    /// # exact randomisation p of F over all 24^3 = 13,824 within-block permutations
    /// # (itertools.permutations of each block's column): 0.380208
    /// ```
    #[test]
    fn the_additive_anova_matches_statsmodels_and_the_exact_permutation_p() {
        let t = vec![
            vec![1.00, 1.20, 0.99],
            vec![1.03, 1.02, 1.04],
            vec![0.97, 0.98, 0.96],
            vec![1.01, 1.00, 1.02],
        ];
        let a = additive_anova(&t, 0).unwrap();
        assert_eq!(a.df, (3, 6));
        assert!(close(a.ms_treatment, 0.00456666666667, 1e-9), "{a:?}");
        assert!(close(a.ms_residual, 0.003775, 1e-9), "{a:?}");
        assert!(close(a.f, 1.20971302428, 1e-9), "{a:?}");
        assert!(close(a.p_normal, 0.38391626854, 1e-8), "{a:?}");
        assert!(close(
            a.var_treatment,
            (0.00456666666667 - 0.003775) / 3.0,
            1e-9
        ));
        let mut rng = SeededRng::new(1, "test");
        let r = blocked_f_test_of(&t, 20_000, &mut rng, &unscreened).unwrap();
        // Monte Carlo standard error at p ≈ 0.38 with 20,000 draws: 0.0034.
        assert!((r.p - 0.380208).abs() < 0.014, "{}", r.p);
        // Each cell replaced by a fit costs a degree of freedom; none left is an error.
        assert_eq!(additive_anova(&t, 5).unwrap().df, (3, 1));
        assert!(additive_anova(&t, 6).is_err());
        assert!(additive_anova(&t, 13).is_err());
    }

    /// One treatment far off in every block, the others equal up to small noise: the F test
    /// finds it, where Friedman's ranks of 3 blocks cannot (that treatment is merely last in
    /// each block: χ² ≈ 14 on 9 df, p ≈ 0.13). Its p is the randomisation's floor for one
    /// deviant row: a permutation reaches the observed F when it puts the three far values
    /// in one row again, which happens with probability 1/k^(b−1) = 1/100.
    #[test]
    fn one_treatment_far_off_in_every_block_is_found() {
        let mut rng = SeededRng::new(2, "one-off");
        let t: Vec<Vec<f64>> = (0..10)
            .map(|i| {
                (0..3)
                    .map(|_| (if i == 0 { 1.5 } else { 1.0 }) * (1.0 + 0.01 * rng.normal()))
                    .collect()
            })
            .collect();
        let r = blocked_f_test_of(&t, 1999, &mut rng, &unscreened).unwrap();
        // The count of permutations at the floor is binomial(1999, 0.01): 20 ± 4.5.
        assert!(r.p > 0.004 && r.p < 0.02, "{r:?}");
        assert!(r.anova.var_treatment > 0.0);
    }

    /// The family's p-value: with one screen it is that screen's own; with several it is
    /// never below the smallest marginal p-value, and under "the rows do not differ" it
    /// rejects at its level (seeded simulation: 400 tables of 10 × 3 normal cells, the
    /// plain table and a round screen, 199 permutations; the count at 5 % is
    /// binomial(400, 0.05) = 20 ± 4.4, and the bounds are 3 standard deviations).
    #[test]
    fn the_family_p_is_a_level_test_and_never_below_its_best_member() {
        let round_screen = |t: &[Vec<f64>]| crate::robust_fit::column_screened(t, 4.0, 0.3, 6);
        let mut g = SeededRng::new(5, "family-null");
        let table = |g: &mut SeededRng| -> Vec<Vec<f64>> {
            (0..10)
                .map(|_| (0..3).map(|_| g.normal()).collect())
                .collect()
        };
        let t = table(&mut g);
        let one = blocked_f_test_of(&t, 199, &mut SeededRng::new(9, "p"), &unscreened).unwrap();
        let family =
            blocked_f_family(&t, 199, &mut SeededRng::new(9, "p"), &[&unscreened]).unwrap();
        assert_eq!(family.p, one.p);
        let mut rejected = 0;
        for _ in 0..400 {
            let t = table(&mut g);
            let f = blocked_f_family(&t, 199, &mut g, &[&unscreened, &round_screen]).unwrap();
            let best = f.tests.iter().map(|t| t.p).fold(1.0, f64::min);
            assert!(f.p >= best, "{f:?}");
            assert_eq!(f.tests[f.decided].p, best);
            if f.p <= 0.05 {
                rejected += 1;
            }
        }
        assert!((7..=34).contains(&rejected), "{rejected} of 400 rejected");
    }

    #[test]
    fn degenerate_tables_are_no_evidence_or_refused() {
        let mut rng = SeededRng::new(3, "degenerate");
        // Every value equal: nothing varies, F = 0, p = 1.
        let flat = vec![vec![7.0; 4]; 5];
        let r = blocked_f_test_of(&flat, 99, &mut rng, &unscreened).unwrap();
        assert_eq!((r.anova.f, r.p), (0.0, 1.0));
        // Only the blocks differ: F = 0, p = 1 (every permutation reaches 0).
        let blocks = vec![vec![7.0, 9.0, 8.0, 7.5]; 5];
        let r = blocked_f_test_of(&blocks, 99, &mut rng, &unscreened).unwrap();
        assert_eq!(r.anova.f, 0.0);
        assert_eq!(r.p, 1.0);
        // Treatments differ exactly additively, no residual: F infinite; p near the floor
        // 1/(5!)² of permutations that restore the order in both other blocks.
        let exact: Vec<Vec<f64>> = (0..5)
            .map(|i| vec![i as f64, i as f64 + 1.0, i as f64 + 3.0])
            .collect();
        let r = blocked_f_test_of(&exact, 999, &mut rng, &unscreened).unwrap();
        assert!(r.anova.f.is_infinite(), "{r:?}");
        assert!(r.p < 0.01, "{r:?}");
        assert!(blocked_f_test_of(&exact[..1], 9, &mut rng, &unscreened).is_err());
        let ragged = vec![vec![1.0, 2.0], vec![1.0]];
        assert!(blocked_f_test_of(&ragged, 9, &mut rng, &unscreened).is_err());
        let nan = vec![vec![1.0, f64::NAN], vec![1.0, 2.0]];
        assert!(additive_anova(&nan, 0).is_err());
    }
}
