//! Two-way mixed ANOVA with replicates: does the effect of the variant depend on the layout?
//!
//! The model (Georges et al. 2008 §4.1, "two-factor ANOVA"; the mixed-model expected mean
//! squares are those of Montgomery, "Design and Analysis of Experiments", §13.3, restricted
//! model) is `Y_ijk = μ + α_i + β_j + (αβ)_ij + ε_ijk`: variant `i` a fixed effect, binary
//! (layout seed) `j` a random one — the seeds are a sample of all layouts — their
//! interaction random, and `k` the replicates (executions, each summarised by its mean).
//! With `a` variants, `b` binaries and `n` replicates per cell:
//!
//! - interaction: `F = MS_AB / MS_E` on `((a−1)(b−1), ab(n−1))` df — does the difference
//!   vary with the layout? (On the scale of the data and against the replicates: the
//!   report asks it of the ratio, against the scheduler's blocks, with
//!   [`super::interaction`]);
//! - variant: `F = MS_A / MS_AB` on `(a−1, (a−1)(b−1))` df — the layouts are random, so the
//!   variant's effect is judged against how much it varies from layout to layout, not
//!   against the execution noise;
//! - binary: `F = MS_B / MS_E` on `(b−1, ab(n−1))` df.
//!
//! Balanced data only: every cell has the same number of replicates.

use serde::Serialize;

use super::anova::f_upper_tail;
use super::degrees_of_freedom::DegreesOfFreedom;
use super::error::{at_least, StatsError};
use super::sample::mean;

/// One F-test of the table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FTest {
    /// The F statistic.
    pub f: f64,
    /// Numerator and denominator degrees of freedom.
    #[serde(flatten)]
    pub df: DegreesOfFreedom<usize>,
    /// `P(F ≥ f)`.
    pub p_value: f64,
}

/// The two-way mixed ANOVA table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TwoWayMixed {
    /// Variants `a`.
    pub variants: usize,
    /// Binaries `b`.
    pub binaries: usize,
    /// Replicates per cell `n`.
    pub replicates: usize,
    /// Mean square of the variants, `bn Σ(ȳ_i·· − ȳ)² / (a − 1)`.
    pub ms_variant: f64,
    /// Mean square of the binaries, `an Σ(ȳ_·j· − ȳ)² / (b − 1)`.
    pub ms_binary: f64,
    /// Mean square of the interaction.
    pub ms_interaction: f64,
    /// Mean square within cells (`None` with one replicate per cell).
    pub ms_within: Option<f64>,
    /// Variant effect, `MS_A / MS_AB`.
    pub variant: FTest,
    /// Binary effect, `MS_B / MS_E` (`None` with one replicate).
    pub binary: Option<FTest>,
    /// Interaction, `MS_AB / MS_E` (`None` with one replicate: it cannot be told from the
    /// noise).
    pub interaction: Option<FTest>,
}

/// The two-way mixed ANOVA of `cells[i][j]`, the replicates of variant `i` on binary `j`.
/// Needs at least two variants and two binaries and the same number (≥ 1) of replicates in
/// every cell.
pub fn two_way_mixed<C: AsRef<[f64]>>(cells: &[Vec<C>]) -> Result<TwoWayMixed, StatsError> {
    let (a, b, n) = balanced_shape(cells)?;
    let cell_means: Vec<Vec<f64>> = cells
        .iter()
        .map(|row| row.iter().map(|c| mean(c.as_ref())).collect())
        .collect();
    let row_means: Vec<f64> = cell_means.iter().map(|r| mean(r)).collect();
    let col_means: Vec<f64> = (0..b)
        .map(|j| cell_means.iter().map(|r| r[j]).sum::<f64>() / a as f64)
        .collect();
    let grand = mean(&row_means);
    let nf = n as f64;
    let ss_a = b as f64 * nf * row_means.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    let ss_b = a as f64 * nf * col_means.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    let mut ss_ab = 0.0;
    let mut ss_e = 0.0;
    for i in 0..a {
        for j in 0..b {
            let m = cell_means[i][j];
            ss_ab += (m - row_means[i] - col_means[j] + grand).powi(2);
            ss_e += cells[i][j]
                .as_ref()
                .iter()
                .map(|y| (y - m).powi(2))
                .sum::<f64>();
        }
    }
    ss_ab *= nf;
    let (df_a, df_b, df_ab) = (a - 1, b - 1, (a - 1) * (b - 1));
    let df_e = a * b * (n - 1);
    let ms_a = ss_a / df_a as f64;
    let ms_b = ss_b / df_b as f64;
    let ms_ab = ss_ab / df_ab as f64;
    let ms_e = (df_e > 0).then(|| ss_e / df_e as f64);
    let test = |num: f64, den: f64, d1: usize, d2: usize| {
        let f = num / den;
        FTest {
            f,
            df: DegreesOfFreedom {
                df_numerator: d1,
                df_denominator: d2,
            },
            p_value: f_upper_tail(f, d1, d2),
        }
    };
    Ok(TwoWayMixed {
        variants: a,
        binaries: b,
        replicates: n,
        ms_variant: ms_a,
        ms_binary: ms_b,
        ms_interaction: ms_ab,
        ms_within: ms_e,
        variant: test(ms_a, ms_ab, df_a, df_ab),
        binary: ms_e.map(|e| test(ms_b, e, df_b, df_e)),
        interaction: ms_e.map(|e| test(ms_ab, e, df_ab, df_e)),
    })
}

/// The shape of `cells` (variants, binaries, replicates per cell), refused unless there are
/// at least two variants and two binaries, every cell has the same number (≥ 1) of
/// replicates, and every replicate is finite.
fn balanced_shape<C: AsRef<[f64]>>(cells: &[Vec<C>]) -> Result<(usize, usize, usize), StatsError> {
    let a = cells.len();
    let b = cells.first().map_or(0, Vec::len);
    at_least(
        "the two-way ANOVA",
        "variants and binaries (each)",
        2,
        a.min(b),
    )?;
    let n = cells[0][0].as_ref().len();
    for row in cells {
        if row.len() != b || row.iter().any(|c| c.as_ref().len() != n) {
            return Err(StatsError::Domain(
                "the two-way ANOVA needs every variant on the same binaries with the same \
                 number of replicates"
                    .into(),
            ));
        }
    }
    if n == 0
        || cells
            .iter()
            .flatten()
            .flat_map(|c| c.as_ref())
            .any(|v| !v.is_finite())
    {
        return Err(StatsError::Domain(
            "the two-way ANOVA needs finite replicates in every cell".into(),
        ));
    }
    Ok((a, b, n))
}

// Reference values are pasted exactly as statsmodels/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;

    fn cells(a: usize, b: usize, n: usize, f: impl Fn(f64, f64, f64) -> f64) -> Vec<Vec<Vec<f64>>> {
        (0..a)
            .map(|v| {
                (0..b)
                    .map(|j| (0..n).map(|r| f(v as f64, j as f64, r as f64)).collect())
                    .collect()
            })
            .collect()
    }

    // python3: rows = [(f"v{v}", f"b{b}", f(v, b, r)) for v in range(A) for b in range(B)
    //   for r in range(R)]; d = pd.DataFrame(rows, columns=['v', 'b', 'y']);
    // t = anova_lm(ols('y ~ C(v)*C(b)', d).fit(), typ=2); ms = t.sum_sq/t.df;
    // FA = ms['C(v)']/ms['C(v):C(b)']; scipy.stats.f.sf(FA, A-1, (A-1)*(B-1));
    // t.F and t['PR(>F)'] for the interaction and C(b). statsmodels 0.15.0, scipy 1.17.1.

    #[test]
    fn no_interaction_matches_statsmodels() {
        // f = 10 + 0.3v + sin(1.3b) + 0.2cos(vb + 1.1r) + 0.05r, A, B, R = 3, 4, 3
        let c = cells(3, 4, 3, |v, b, r| {
            10.0 + 0.3 * v + (1.3 * b).sin() + 0.2 * (v * b + r * 1.1).cos() + 0.05 * r
        });
        let t = two_way_mixed(&c).unwrap();
        assert!(close(t.ms_variant * 2.0, 1.9362373657053038, 1e-12));
        assert!(close(t.ms_binary * 3.0, 12.407246674308452, 1e-12));
        assert!(close(t.ms_interaction * 6.0, 0.08822165897382855, 1e-11));
        assert!(close(
            t.ms_within.unwrap() * 24.0,
            0.3882206045705669,
            1e-12
        ));
        assert!(close(t.variant.f, 65.84224514344146, 1e-11));
        assert!(close(t.variant.p_value, 8.275584694629251e-05, 1e-8));
        assert_eq!(
            t.variant.df,
            DegreesOfFreedom {
                df_numerator: 2,
                df_denominator: 6
            }
        );
        let i = t.interaction.unwrap();
        assert!(close(i.f, 0.9089848187879218, 1e-11));
        assert!(close(i.p_value, 0.5051339012335527, 1e-9));
        assert_eq!(
            i.df,
            DegreesOfFreedom {
                df_numerator: 6,
                df_denominator: 24
            }
        );
        let b = t.binary.unwrap();
        assert!(close(b.f, 255.67415079439834, 1e-11));
        assert!(close(b.p_value, 2.4174217105544627e-18, 1e-6));
    }

    #[test]
    fn strong_interaction_matches_statsmodels() {
        // f = 10 + 0.3v + sin(1.3b) + 0.4v·cos(b) + 0.1cos(vb + 1.1r), A, B, R = 2, 5, 4
        let c = cells(2, 5, 4, |v, b, r| {
            10.0 + 0.3 * v + (1.3 * b).sin() + 0.4 * v * b.cos() + 0.1 * (v * b + r * 1.1).cos()
        });
        let t = two_way_mixed(&c).unwrap();
        assert!(close(t.variant.f, 2.978374456122594, 1e-11));
        assert!(close(t.variant.p_value, 0.15946469672060928, 1e-9));
        let i = t.interaction.unwrap();
        assert!(close(i.f, 29.835595230497734, 1e-11));
        assert!(close(i.p_value, 4.545425725995607e-10, 1e-6));
        assert!(close(t.binary.unwrap().f, 859.8589172043139, 1e-11));
    }

    #[test]
    fn one_replicate_tests_only_the_variant() {
        let c = cells(2, 4, 1, |v, b, _| 5.0 + v + b.sin() + 0.1 * (v * b).cos());
        let t = two_way_mixed(&c).unwrap();
        assert!(t.interaction.is_none() && t.binary.is_none() && t.ms_within.is_none());
        assert!(t.variant.f.is_finite());
    }

    #[test]
    fn refuses_unbalanced_or_degenerate_designs() {
        assert!(two_way_mixed(&[vec![vec![1.0, 2.0], vec![1.0, 3.0]]]).is_err());
        assert!(two_way_mixed(&[
            vec![vec![1.0, 2.0], vec![1.0, 3.0]],
            vec![vec![1.0, 2.0], vec![1.0]],
        ])
        .is_err());
        assert!(
            two_way_mixed(&[vec![vec![1.0], vec![f64::NAN]], vec![vec![1.0], vec![2.0]]]).is_err()
        );
    }
}
