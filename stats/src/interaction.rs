//! Does the ratio `new/base` depend on the layout? The variant × layout interaction on the
//! log (ratio) scale, tested against the scheduler's blocks.
//!
//! The runner executes, for each seed `j` and round `k`, the binary of seed `j` of every
//! variant back to back (one block; the run's schedule, `layoutrand::run::schedule`). Machine drift shared by a
//! block cancels in the block's log-ratio `d_jk = ln y_new,jk − ln y_base,jk` (each `y` an
//! execution's mean). The model is `d_jk = δ + g_j + e_jk`: `δ` the common log-ratio, `g_j ~
//! N(0, τ²)` the layout's own effect on the ratio (the interaction), `e_jk ~ N(0, σ²)` the
//! block's noise. With two variants this is the split-plot ANOVA's variant × seed term tested
//! against variant × round-within-seed (Montgomery, "Design and Analysis of Experiments",
//! §14.5: the whole-plot factor here is the seed, the sub-plot factor the variant), and it is
//! computed as the one-way random-effects ANOVA of the `d_jk` by seed (Searle, Casella &
//! McCulloch, "Variance Components", §3.5; [`super::anova::random_effects`]):
//!
//! - the test: `F = MS_between / MS_within` on `(b − 1, b(n − 1))` df for `b` seeds and `n`
//!   rounds;
//! - the magnitude: `τ̂ = √max(0, (MS_between − MS_within)/n)`, the standard deviation of
//!   the per-layout log-ratios net of the block noise (≈ the relative spread of the ratio);
//! - its interval: the modified large-sample (MLS) interval of Graybill & Wang (1980, JASA
//!   75, 869–873) for `τ² = (E MS_between − E MS_within)/n`, as given by Burdick & Graybill,
//!   "Confidence Intervals on Variance Components" (1992), §3.3 (eqs. 3.11–3.12), floored at
//!   zero, then square-rooted;
//! - the detectable spread: the `τ` the test finds with the given power at these counts,
//!   `√(ρ · MS_within)` with `ρ` from [`super::anova::detectable_variance_ratio`].

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF, FisherSnedecor};

use super::anova::{detectable_variance_ratio, random_effects};
use super::degrees_of_freedom::DegreesOfFreedom;
use super::error::{at_least, StatsError};
use super::interval::Interval;
use super::twoway::FTest;

/// The interaction of one pair of variants on the log scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LogRatioInteraction {
    /// Seeds (layouts) `b`.
    pub seeds: usize,
    /// Rounds (blocks) per seed `n`.
    pub rounds: usize,
    /// `MS_between / MS_within` on `(b − 1, b(n − 1))` df.
    pub test: FTest,
    /// `τ̂`, the standard deviation of the per-layout log-ratios net of block noise.
    pub spread: f64,
    /// The MLS interval of `τ` (two-sided at the confidence asked), both ends ≥ 0.
    pub spread_ci: Interval,
    /// The block noise `√MS_within`: the standard deviation of one block's log-ratio.
    pub block_noise: f64,
    /// The smallest `τ` the test detects with the power asked (`None` when not defined).
    pub detectable_spread: Option<f64>,
}

/// The interaction of `base[j][k]` and `new[j][k]`, the execution means of seed `j` in round
/// `k` (the same block in both). Needs at least two seeds, two rounds each, the same shape on
/// both sides and positive finite values (they are logged).
pub fn log_ratio_interaction(
    base: &[Vec<f64>],
    new: &[Vec<f64>],
    confidence: f64,
    power: f64,
) -> Result<LogRatioInteraction, StatsError> {
    if !(confidence > 0.0 && confidence < 1.0 && power > 0.0 && power < 1.0) {
        return Err(StatsError::Domain(
            "the interaction needs a confidence and a power strictly between 0 and 1".into(),
        ));
    }
    at_least("the interaction test", "seeds", 2, base.len())?;
    let rounds = base[0].len();
    at_least("the interaction test", "rounds per seed", 2, rounds)?;
    let same_shape = new.len() == base.len()
        && base
            .iter()
            .zip(new)
            .all(|(b, n)| b.len() == rounds && n.len() == rounds);
    if !same_shape {
        return Err(StatsError::Domain(
            "the interaction test needs both variants on the same seeds and rounds".into(),
        ));
    }
    let positive = |v: &f64| v.is_finite() && *v > 0.0;
    if !base.iter().chain(new).flatten().all(positive) {
        return Err(StatsError::Domain(
            "the interaction test on the log scale needs positive finite values".into(),
        ));
    }
    let diffs: Vec<Vec<f64>> = base
        .iter()
        .zip(new)
        .map(|(b, n)| b.iter().zip(n).map(|(b, n)| n.ln() - b.ln()).collect())
        .collect();
    let a = random_effects(&diffs)?;
    let n = rounds as f64;
    let (n1, n2) = (a.df_numerator, a.df_denominator);
    let (low, high) = mls_bounds(a.ms_between, n1, a.ms_within, n2, 1.0 / n, confidence)?;
    let alpha = 1.0 - confidence;
    Ok(LogRatioInteraction {
        seeds: base.len(),
        rounds,
        test: FTest {
            f: a.f,
            df: DegreesOfFreedom {
                df_numerator: n1,
                df_denominator: n2,
            },
            p_value: a.p_value,
        },
        spread: (a.var_between.max(0.0)).sqrt(),
        spread_ci: Interval {
            lower: low.sqrt(),
            upper: high.sqrt(),
        },
        block_noise: a.ms_within.sqrt(),
        detectable_spread: detectable_variance_ratio(base.len(), rounds, alpha, power)
            .map(|rho| (rho * a.ms_within).sqrt())
            .filter(|d| d.is_finite()),
    })
}

/// The MLS interval of `θ = c (E S1 − E S2)` from mean squares `s1` on `n1` df and `s2` on
/// `n2` df (Burdick & Graybill 1992 §3.3, with `c1 = c2 = c`), two-sided at `confidence`,
/// both ends floored at zero. With `s2 = 0` it is the exact chi-square interval of `c E S1`.
fn mls_bounds(
    s1: f64,
    n1: usize,
    s2: f64,
    n2: usize,
    c: f64,
    confidence: f64,
) -> Result<(f64, f64), StatsError> {
    fn domain(e: impl std::fmt::Display) -> StatsError {
        StatsError::Domain(e.to_string())
    }
    let a = (1.0 - confidence) / 2.0;
    // 1 / F_{q; df, ∞} = df / χ²_q(df): the quantile of a mean square over its expectation.
    let inv_f_inf = |q: f64, df: usize| -> Result<f64, StatsError> {
        Ok(df as f64 / ChiSquared::new(df as f64).map_err(domain)?.inverse_cdf(q))
    };
    let f = FisherSnedecor::new(n1 as f64, n2 as f64).map_err(domain)?;
    let (f_hi, f_lo) = (f.inverse_cdf(1.0 - a), f.inverse_cdf(a));
    let g1 = 1.0 - inv_f_inf(1.0 - a, n1)?;
    let h1 = inv_f_inf(a, n1)? - 1.0;
    let g2 = 1.0 - inv_f_inf(1.0 - a, n2)?;
    let h2 = inv_f_inf(a, n2)? - 1.0;
    let g12 = ((f_hi - 1.0).powi(2) - g1 * g1 * f_hi * f_hi - h2 * h2) / f_hi;
    let h12 = ((1.0 - f_lo).powi(2) - h1 * h1 * f_lo * f_lo - g2 * g2) / f_lo;
    let theta = c * (s1 - s2);
    let (c1s1, c2s2) = (c * s1, c * s2);
    let v_low = g1 * g1 * c1s1 * c1s1 + h2 * h2 * c2s2 * c2s2 + g12 * c1s1 * c2s2;
    let v_high = h1 * h1 * c1s1 * c1s1 + g2 * g2 * c2s2 * c2s2 + h12 * c1s1 * c2s2;
    let low = theta - v_low.max(0.0).sqrt();
    let high = theta + v_high.max(0.0).sqrt();
    if !(low.is_finite() && high.is_finite()) {
        return Err(StatsError::Domain(
            "the interaction's spread interval is not computable (values beyond double \
             precision)"
                .into(),
        ));
    }
    Ok((low.max(0.0), high.max(0.0)))
}

// Reference values are pasted exactly as statsmodels/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::seeded::SeededRng;
    use crate::test_support::close;

    /// Deterministic data: 6 seeds × 4 rounds, a 2× speedup whose size changes with the seed
    /// by `amp` (relative), block noise from the sines.
    fn data(amp: f64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let base = |j: f64, k: f64| {
            10.0 * (1.0 + 0.03 * (1.3 * j).sin()) * (1.0 + 0.02 * (0.7 * k + j).cos())
        };
        let new = |j: f64, k: f64| {
            0.5 * base(j, k)
                * (1.0 + amp * (2.1 * j).cos())
                * (1.0 + 0.01 * (1.9 * k + 0.4 * j).sin())
        };
        let grid = |f: &dyn Fn(f64, f64) -> f64| -> Vec<Vec<f64>> {
            (0..6)
                .map(|j| (0..4).map(|k| f(j as f64, k as f64)).collect())
                .collect()
        };
        (grid(&base), grid(&new))
    }

    // python3 (statsmodels 0.15.0, scipy 1.17.1): rows (v, s, r, log y) for both variants;
    // t = anova_lm(ols('ly ~ C(v)*C(s) + C(s):C(r)', d).fit(), typ=1);
    // t.loc['C(v):C(s)', ['F', 'PR(>F)']] — the split-plot interaction against the variant ×
    // round(seed) residual (df 5, 18). The MLS bounds: Burdick & Graybill's formula written
    // out in numpy with scipy.stats.chi2.ppf / f.ppf; detectable: sqrt((f.ppf(.95, 5, 18) /
    // f.ppf(.2, 5, 18) − 1) / 4 · MS_within).
    #[test]
    fn a_layout_dependent_ratio_matches_the_split_plot_anova() {
        let (b, n) = data(0.02);
        let i = log_ratio_interaction(&b, &n, 0.95, 0.8).unwrap();
        assert_eq!(
            i.test.df,
            DegreesOfFreedom {
                df_numerator: 5,
                df_denominator: 18
            }
        );
        assert!(close(i.test.f, 14.233206278684154, 1e-9));
        assert!(close(i.test.p_value, 1.0168265241728913e-05, 1e-6));
        assert!(close(i.spread, 0.014506548698808297, 1e-9));
        assert!(close(i.spread_ci.lower, 0.00842556852025718, 1e-7));
        assert!(close(i.spread_ci.upper, 0.03666985136138829, 1e-7));
        assert!(close(
            i.detectable_spread.unwrap(),
            0.008929947417489216,
            1e-6
        ));
    }

    #[test]
    fn a_nearly_constant_ratio_matches_the_split_plot_anova() {
        let (b, n) = data(0.003);
        let i = log_ratio_interaction(&b, &n, 0.95, 0.8).unwrap();
        assert!(close(i.test.f, 0.28704707870267765, 1e-9));
        assert!(close(i.test.p_value, 0.9140168796997882, 1e-9));
        assert_eq!((i.spread, i.spread_ci.lower), (0.0, 0.0));
        assert!(close(i.spread_ci.upper, 0.003407659038798063, 1e-7));
    }

    #[test]
    fn the_ratio_scale_ignores_a_constant_speedup_and_shared_drift() {
        // Every new value is exactly half its block's base value, whatever the layout and the
        // block: no interaction at all on the ratio scale (the raw scale would see one, the
        // layouts differing by ±30 %).
        let base: Vec<Vec<f64>> = (0..5)
            .map(|j| {
                (0..3)
                    .map(|k| 100.0 * (1.0 + 0.3 * (j as f64).sin()) * (1.0 + 0.1 * k as f64))
                    .collect()
            })
            .collect();
        let new: Vec<Vec<f64>> = base
            .iter()
            .map(|r| r.iter().map(|v| v * 0.5).collect())
            .collect();
        let i = log_ratio_interaction(&base, &new, 0.95, 0.8).unwrap();
        assert!(i.block_noise < 1e-12 && i.spread < 1e-12, "{i:?}");
    }

    #[test]
    fn the_spread_interval_covers_the_true_spread() {
        // Seeded simulation of the model: 10 seeds × 4 rounds, τ = 1 %, σ = 1.5 %; 2 000
        // experiments (standard error of a 95 % coverage: 0.49 points). MLS intervals are
        // known to be close to nominal, slightly conservative.
        let mut rng = SeededRng::new(21, "mls-coverage");
        let (tau, sigma, runs) = (0.01, 0.015, 2000);
        let mut covered = 0;
        for _ in 0..runs {
            let mut base = Vec::new();
            let mut new = Vec::new();
            for _ in 0..10 {
                let g = tau * rng.normal();
                let b: Vec<f64> = (0..4).map(|_| 1.0).collect();
                let n: Vec<f64> = (0..4).map(|_| (g + sigma * rng.normal()).exp()).collect();
                base.push(b);
                new.push(n);
            }
            let Interval {
                lower: lo,
                upper: hi,
            } = log_ratio_interaction(&base, &new, 0.95, 0.8)
                .unwrap()
                .spread_ci;
            if lo <= tau && tau <= hi {
                covered += 1;
            }
        }
        let coverage = covered as f64 / runs as f64;
        eprintln!("MLS spread interval coverage: {covered} of {runs}");
        assert!((0.935..=0.98).contains(&coverage), "coverage {coverage}");
    }

    #[test]
    fn refuses_what_it_cannot_log_or_test() {
        let ok = vec![vec![1.0, 2.0], vec![1.5, 2.5]];
        assert!(log_ratio_interaction(&ok, &ok, 0.95, 0.8).is_ok());
        let zero = vec![vec![1.0, 0.0], vec![1.5, 2.5]];
        assert!(log_ratio_interaction(&zero, &ok, 0.95, 0.8).is_err());
        assert!(log_ratio_interaction(&ok[..1], &ok[..1], 0.95, 0.8).is_err());
        let one_round = vec![vec![1.0], vec![2.0]];
        assert!(log_ratio_interaction(&one_round, &one_round, 0.95, 0.8).is_err());
        assert!(log_ratio_interaction(&ok, &one_round, 0.95, 0.8).is_err());
        assert!(log_ratio_interaction(&ok, &ok, 1.0, 0.8).is_err());
    }
}
