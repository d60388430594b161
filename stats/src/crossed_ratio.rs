//! The ratio of two variants' means over random code *and* data layouts (issue 55): each
//! code seed `i` of the base and the new variant ran under the same data seeds `j`, giving
//! cell means `a_ij` (base) and `b_ij` (new) of an `I × J` crossed table.
//!
//! Pairing by code seed alone ([`super::paired_ratio`]) averages each binary over the data
//! seeds first. Every binary shares the same `J` data seeds, so what those data layouts do to
//! the difference between the variants is the same in every pair and cancels out of the
//! pairs' spread: the interval then holds "for these `J` data layouts", and a data layout
//! that favours one variant makes it look faster whatever the layout (issue 55: "8.5 % lower,
//! 95 % CI 8.5018 % to 8.5019 %" while the ratios of the three data seeds spread thirty
//! times wider).
//!
//! Here, as in [`super::paired_ratio`], the interval is the set of ratios `ρ` that a test of
//! `E[d(ρ)] = 0` does not reject, with `d_ij(ρ) = b_ij − ρ a_ij` (Fieller's theorem: exact
//! when `ρ` is the true ratio of means). The test is the one of the grand mean of a crossed
//! random-effects table ([`super::crossed_mean`]: Searle, Casella & McCulloch 1992 §4.6,
//! Satterthwaite 1946), whose variance is
//! `V(ρ) = (MS_C(ρ) + MS_D(ρ) − MS_CD(ρ)) / (I J)`, the mean squares being those of the
//! two-way table `d(ρ)` without replication. Each mean square is a quadratic form of the
//! table, so `MS_X(ρ) = M_X^bb − 2ρ M_X^ab + ρ² M_X^aa` with the "mean cross-products"
//! `M_X^xy` of the two tables, and `d̄(ρ)² ≤ t² V(ρ)` is the quadratic
//! `(ā² − t² L^aa / IJ) ρ² − 2 (ā b̄ − t² L^ab / IJ) ρ + (b̄² − t² L^bb / IJ) ≤ 0`,
//! `L^xy = M_C^xy + M_D^xy − M_CD^xy`: the paired formula with the pairs' covariance replaced
//! by the crossed combination. `t` is Student's at Satterthwaite's degrees of freedom of
//! `V(ρ̂)` at the estimate `ρ̂ = b̄ / ā`; when the combination at `ρ̂` is no larger than
//! `MS_CD(ρ̂)` (the data and code axes say less than the interaction), the interaction alone
//! is used, on its `(I − 1)(J − 1)` degrees of freedom, as in [`super::crossed_mean`].

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::fieller::RatioInterval;
use super::paired_ratio::fieller_quadratic;
use super::tdist::two_sided_critical;

/// The ratio of the new variant's mean to the base's over random code and data layouts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CrossedRatio {
    /// `b̄ / ā`, the ratio of the grand means.
    pub estimate: f64,
    /// The set of ratios the crossed test does not reject.
    pub interval: RatioInterval,
    /// Code seeds `I` (the pairs).
    pub code_seeds: usize,
    /// Data seeds `J`.
    pub data_seeds: usize,
    /// Satterthwaite's degrees of freedom of `V(ρ̂)`.
    pub df: f64,
}

impl CrossedRatio {
    /// `(low, high)` when bounded.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        match self.interval {
            RatioInterval::Bounded { lower, upper } => Some((lower, upper)),
            RatioInterval::Unbounded => None,
        }
    }
}

/// The three mean cross-products of a pair of `I × J` tables without replication: code,
/// data and interaction (`M_C^xy = J Σ_i (x̄_i· − x̄)(ȳ_i· − ȳ) / (I − 1)`, and so on).
fn cross_products(x: &[Vec<f64>], y: &[Vec<f64>]) -> [f64; 3] {
    let (i_n, j_n) = (x.len(), x[0].len());
    let row = |t: &[Vec<f64>]| -> Vec<f64> {
        t.iter()
            .map(|r| r.iter().sum::<f64>() / j_n as f64)
            .collect()
    };
    let col = |t: &[Vec<f64>]| -> Vec<f64> {
        (0..j_n)
            .map(|j| t.iter().map(|r| r[j]).sum::<f64>() / i_n as f64)
            .collect()
    };
    let (rx, ry, cx, cy) = (row(x), row(y), col(x), col(y));
    let (gx, gy) = (
        rx.iter().sum::<f64>() / i_n as f64,
        ry.iter().sum::<f64>() / i_n as f64,
    );
    let (fi, fj) = (i_n as f64, j_n as f64);
    let code = fj * (0..i_n).map(|i| (rx[i] - gx) * (ry[i] - gy)).sum::<f64>() / (fi - 1.0);
    let data = fi * (0..j_n).map(|j| (cx[j] - gx) * (cy[j] - gy)).sum::<f64>() / (fj - 1.0);
    let mut inter = 0.0;
    for i in 0..i_n {
        for j in 0..j_n {
            inter += (x[i][j] - rx[i] - cx[j] + gx) * (y[i][j] - ry[i] - cy[j] + gy);
        }
    }
    [code, data, inter / ((fi - 1.0) * (fj - 1.0))]
}

/// The crossed ratio of `new[i][j]` to `base[i][j]`, the cell means of code seed `i` with
/// data seed `j` (the same code and data seeds on both sides, in the same order), at
/// `confidence` (see the module's comment). At least two code seeds and two data seeds.
pub fn crossed_ratio(
    base: &[Vec<f64>],
    new: &[Vec<f64>],
    confidence: f64,
) -> Result<CrossedRatio, StatsError> {
    const METHOD: &str = "the ratio over code and data layouts";
    check_confidence(confidence)?;
    at_least(METHOD, "code seeds", 2, base.len())?;
    let j_n = base[0].len();
    at_least(METHOD, "data seeds", 2, j_n)?;
    let balanced = new.len() == base.len()
        && base
            .iter()
            .chain(new)
            .all(|r| r.len() == j_n && r.iter().all(|v| v.is_finite()));
    if !balanced {
        return Err(StatsError::Domain(
            "the ratio over code and data layouts needs every code seed with every data \
             seed on both sides, finite"
                .into(),
        ));
    }
    let i_n = base.len();
    let cells = (i_n * j_n) as f64;
    let grand = |t: &[Vec<f64>]| t.iter().flatten().sum::<f64>() / cells;
    let (a, b) = (grand(base), grand(new));
    let aa = cross_products(base, base);
    let ab = cross_products(base, new);
    let bb = cross_products(new, new);
    let rho = b / a;
    // The mean squares of d(ρ̂) = b − ρ̂ a, per component.
    let ms = |k: usize| bb[k] - 2.0 * rho * ab[k] + rho * rho * aa[k];
    let (c, d, cd) = (ms(0), ms(1), ms(2));
    let (df_c, df_d, df_cd) = (
        (i_n - 1) as f64,
        (j_n - 1) as f64,
        ((i_n - 1) * (j_n - 1)) as f64,
    );
    let combined = c + d - cd > cd;
    let (weights, df) = if combined {
        let l = c + d - cd;
        (
            [1.0, 1.0, -1.0],
            l * l / (c * c / df_c + d * d / df_d + cd * cd / df_cd),
        )
    } else {
        ([0.0, 0.0, 1.0], df_cd)
    };
    if !(df > 0.0 && df.is_finite()) {
        return Err(StatsError::Degenerate(
            "the ratio over code and data layouts: the difference between the variants is \
             the same in every cell"
                .into(),
        ));
    }
    let l = |m: &[f64; 3]| weights[0] * m[0] + weights[1] * m[1] + weights[2] * m[2];
    let t = two_sided_critical(confidence, df);
    let interval = fieller_quadratic((a, b), (l(&aa), l(&ab), l(&bb)), t * t / cells);
    Ok(CrossedRatio {
        estimate: rho,
        interval,
        code_seeds: i_n,
        data_seeds: j_n,
        df,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded::SeededRng;

    /// 4 code seeds × 3 data seeds; the new variant 5 % lower, data seed 2 favouring it.
    fn tables() -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let base = vec![
            vec![10.0, 10.4, 9.9],
            vec![10.6, 11.0, 10.3],
            vec![9.7, 10.2, 9.8],
            vec![10.2, 10.5, 10.1],
        ];
        let new = vec![
            vec![9.5, 9.6, 9.5],
            vec![10.1, 10.2, 9.9],
            vec![9.2, 9.4, 9.4],
            vec![9.7, 9.8, 9.6],
        ];
        (base, new)
    }

    /// The quadratic solved independently with numpy, from the crossed ANOVA of
    /// d(ρ̂) = b − ρ̂ a and the cross-product forms:
    /// python3 -c "import numpy as np, scipy.stats as st
    /// a=np.array(A); b=np.array(B); I,J=a.shape
    /// def ms(x,y):
    ///   rx,ry=x.mean(1),y.mean(1); cx,cy=x.mean(0),y.mean(0); gx,gy=x.mean(),y.mean()
    ///   c=J*((rx-gx)*(ry-gy)).sum()/(I-1); d=I*((cx-gx)*(cy-gy)).sum()/(J-1)
    ///   e=((x-rx[:,None]-cx[None,:]+gx)*(y-ry[:,None]-cy[None,:]+gy)).sum()/((I-1)*(J-1))
    ///   return np.array([c,d,e])
    /// r=b.mean()/a.mean(); m=ms(b-r*a,b-r*a); L=m[0]+m[1]-m[2]
    /// df=L**2/(m[0]**2/(I-1)+m[1]**2/(J-1)+m[2]**2/((I-1)*(J-1))); t=st.t.ppf(0.975,df)
    /// w=np.array([1,1,-1]); k=t*t/(I*J)
    /// qa=a.mean()**2-k*w@ms(a,a); qb=a.mean()*b.mean()-k*w@ms(a,b); qc=b.mean()**2-k*w@ms(b,b)
    /// print(r, df, sorted(np.roots([qa,-2*qb,qc]).real))"
    /// printed 0.9445802770986145 1.9494769159979741 [0.9048778047098328, 0.9893601264632148]
    /// (the data axis dominates: its two degrees of freedom make the interval wide)
    #[test]
    fn matches_the_quadratic_solved_with_numpy() {
        let (base, new) = tables();
        let r = crossed_ratio(&base, &new, 0.95).unwrap();
        let (low, high) = r.bounds().unwrap();
        assert!((r.estimate - 0.9445802770986145).abs() < 1e-12, "{r:?}");
        assert!((r.df - 1.9494769159979741).abs() < 1e-9, "{r:?}");
        assert!((low - 0.9048778047098328).abs() < 1e-9, "{low}");
        assert!((high - 0.9893601264632148).abs() < 1e-9, "{high}");
        assert_eq!((r.code_seeds, r.data_seeds), (4, 3));
    }

    /// Seeded simulation of the crossed model (code seed, data seed, interaction and run
    /// effects, shared by both variants except a data-seed-dependent speedup): the crossed
    /// interval covers the true ratio over random data layouts at about its level, where the
    /// interval of pairs by code seed alone, blind to the data seeds, covers far less.
    #[test]
    fn covers_the_ratio_over_random_data_layouts() {
        let mut rng = SeededRng::new(55, "crossed ratio coverage");
        let (experiments, i_n, j_n) = (1000, 10, 3);
        let (mut crossed, mut by_code) = (0, 0);
        for _ in 0..experiments {
            let code: Vec<f64> = (0..i_n).map(|_| 0.02 * rng.normal()).collect();
            let data: Vec<f64> = (0..j_n).map(|_| 0.02 * rng.normal()).collect();
            // The speedup is 0.95 on average over data layouts; each data layout moves it.
            let speedup: Vec<f64> = (0..j_n)
                .map(|_| 0.95 * (1.0 + 0.01 * rng.normal()))
                .collect();
            let mut base = vec![vec![0.0; j_n]; i_n];
            let mut new = vec![vec![0.0; j_n]; i_n];
            for i in 0..i_n {
                for j in 0..j_n {
                    let cell = 100.0 * (1.0 + code[i] + data[j]);
                    base[i][j] = cell * (1.0 + 0.001 * rng.normal());
                    new[i][j] = cell * speedup[j] * (1.0 + 0.001 * rng.normal());
                }
            }
            let inside = |(l, h): (f64, f64)| l <= 0.95 && 0.95 <= h;
            let r = crossed_ratio(&base, &new, 0.95).unwrap();
            crossed += usize::from(r.bounds().is_some_and(inside));
            let mean = |t: &[Vec<f64>]| -> Vec<f64> {
                t.iter()
                    .map(|r| r.iter().sum::<f64>() / j_n as f64)
                    .collect()
            };
            let p =
                super::super::paired_ratio::paired_ratio(&mean(&base), &mean(&new), 0.95).unwrap();
            by_code += usize::from(p.bounds().is_some_and(inside));
        }
        let (crossed, by_code) = (
            crossed as f64 / experiments as f64,
            by_code as f64 / experiments as f64,
        );
        assert!(crossed >= 0.93, "crossed coverage {crossed}");
        assert!(by_code < 0.5, "pairs by code seed covered {by_code}");
    }

    #[test]
    fn a_table_without_two_data_seeds_is_refused() {
        let base = vec![vec![1.0], vec![2.0]];
        assert!(crossed_ratio(&base, &base, 0.95).is_err());
    }
}
