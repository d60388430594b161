//! The mean over random code and data layouts of a crossed (code seed × data seed) design,
//! with its interval, and the code-layout variation its test detects (issue 35).
//!
//! Under the two-way crossed random-effects model of [`super::variance_split`]
//! (`y_ijk = μ + c_i + d_j + (cd)_ij + e_ijk`, Searle, Casella & McCulloch, "Variance
//! Components", 1992, §4.6), the grand mean `ȳ` of `a` code seeds × `b` data seeds × `n`
//! replicates estimates `μ` with variance
//!
//! `V = σ_c²/a + σ_d²/b + σ_cd²/(a b) + σ_e²/(a b n)`,
//!
//! since every binary shares the same `b` data seeds: averaging over binaries alone (Kalibera
//! & Jones eq. 4) leaves the data seeds' `σ_d²/b` out. From the expected mean squares
//! (Searle et al. table 4.8) `V = (E[MS_C] + E[MS_D] − E[MS_CD]) / (a b n)`, so
//! `V̂ = (MS_C + MS_D − MS_CD) / (a b n)` is unbiased, and `(ȳ − μ)/√V̂` is referred to a t
//! distribution whose degrees of freedom are Satterthwaite's for this linear combination of
//! mean squares (Satterthwaite, "An approximate distribution of estimates of variance
//! components", Biometrics Bulletin 1946; Searle et al. §2.6.d):
//! `ν = L² / (MS_C²/(a − 1) + MS_D²/(b − 1) + MS_CD²/((a − 1)(b − 1)))`, `L = MS_C + MS_D −
//! MS_CD`. When `L ≤ MS_CD` the combination says less than the interaction alone: `V̂` is
//! then the truncated components' `MS_CD/(a b n)`, the smallest the model allows, on the
//! interaction's `(a − 1)(b − 1)` df. Its coverage, measured by seeded simulation, is in
//! docs/statistics.md.

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::interval::Interval;
use super::sample::quantile;
use super::tdist::two_sided_critical;
use super::variance_split::{chi_square, CrossedMeanSquares};
use crate::seeded::SeededRng;

/// The interval of the grand mean of a crossed design, as a half-width around it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CrossedMeanInterval {
    /// `V̂`, the estimated variance of the grand mean.
    pub variance: f64,
    /// Satterthwaite's degrees of freedom of `V̂`.
    pub df: f64,
    /// `t_{1−α/2, ν} · √V̂`.
    pub half_width: f64,
}

/// The interval of the grand mean of the crossed design whose ANOVA table is `table`, at
/// `confidence` (see the module's comment). An error when nothing varies between code or
/// data seeds (`V̂ = 0` has no degrees of freedom).
pub fn crossed_mean_interval(
    table: &CrossedMeanSquares,
    confidence: f64,
) -> Result<CrossedMeanInterval, StatsError> {
    check_confidence(confidence)?;
    let (a, b, n) = (table.code_seeds, table.data_seeds, table.replicates);
    let cells = (a * b * n) as f64;
    let [df_c, df_d, df_cd, _] = table.degrees_of_freedom().map(|d| d as f64);
    let (c, d, cd) = (table.ms_code, table.ms_data, table.ms_code_x_data);
    let combination = c + d - cd;
    let (variance, df) = if combination > cd {
        let spread = c * c / df_c + d * d / df_d + cd * cd / df_cd;
        (combination / cells, combination * combination / spread)
    } else {
        (cd / cells, df_cd)
    };
    if !(variance > 0.0 && variance.is_finite() && df > 0.0) {
        return Err(StatsError::Degenerate(
            "the crossed mean's interval: nothing varies between code or data seeds".into(),
        ));
    }
    Ok(CrossedMeanInterval {
        variance,
        df,
        half_width: two_sided_critical(confidence, df) * variance.sqrt(),
    })
}

/// The smallest code-layout standard deviation `σ_c` that the crossed F test of the code
/// axis (`MS_C / MS_CD` on `(a − 1, (a − 1)(b − 1))` df, Searle et al. §4.6) detects at
/// level `alpha` with probability `power`, given the observed `MS_CD` (the noise a
/// binary's comparison with another meets within one data seed: interaction and runs).
///
/// `MS_C / MS_CD ~ (1 + b n σ_c² / E[MS_CD]) · F(a − 1, (a − 1)(b − 1))`, so the power at
/// `σ_c` is `P(F > F_{1−α} / (1 + b n σ_c² / E[MS_CD]))` (as in
/// [`super::anova::detectable_variance_ratio`] for the one-way design), which gives
/// `σ_c² = (F_{1−α} / F_{1−power} − 1) · MS_CD / (b n)`. `None` below two code or data seeds.
pub fn detectable_code_variation(
    table: &CrossedMeanSquares,
    alpha: f64,
    power: f64,
) -> Option<f64> {
    let (a, b, n) = (table.code_seeds, table.data_seeds, table.replicates);
    detectable_variation(table, (a, b * n), alpha, power)
}

/// The same for the data axis: `MS_D / MS_CD ~ (1 + a n σ_d² / E[MS_CD]) · F(b − 1, (a −
/// 1)(b − 1))`, so `σ_d² = (F_{1−α} / F_{1−power} − 1) · MS_CD / (a n)`.
pub fn detectable_data_variation(
    table: &CrossedMeanSquares,
    alpha: f64,
    power: f64,
) -> Option<f64> {
    let (a, b, n) = (table.code_seeds, table.data_seeds, table.replicates);
    detectable_variation(table, (b, a * n), alpha, power)
}

/// `σ` of an axis with `levels` levels, each mean over `per_level` observations, tested
/// against `MS_CD` (see [`detectable_code_variation`]).
fn detectable_variation(
    table: &CrossedMeanSquares,
    (levels, per_level): (usize, usize),
    alpha: f64,
    power: f64,
) -> Option<f64> {
    use statrs::distribution::{ContinuousCDF, FisherSnedecor};
    let (a, b) = (table.code_seeds, table.data_seeds);
    if a < 2 || b < 2 || !(alpha > 0.0 && alpha < 1.0) || !(power > 0.0 && power < 1.0) {
        return None;
    }
    let f = FisherSnedecor::new((levels - 1) as f64, ((a - 1) * (b - 1)) as f64).ok()?;
    let ratio = f.inverse_cdf(1.0 - alpha) / f.inverse_cdf(1.0 - power) - 1.0;
    let variance = ratio * table.ms_code_x_data / per_level as f64;
    (variance.is_finite() && variance >= 0.0).then(|| variance.sqrt())
}

/// The generalized confidence interval of the data layout's standard deviation `σ_d`
/// (Weerahandi 1993; Hamada & Weerahandi, Technometrics 2000, §3, as for the shares in
/// [`super::variance_split`]): `σ_d² = (R_D − R_CD) / (a n)` truncated at 0, each `R =
/// df · ms / W` with `W ~ χ²_df` drawn afresh, over `draws` draws of the stream `seed`; the
/// interval is the square roots of its `α/2` and `1 − α/2` quantiles, so it never goes
/// below 0. With `MS_CD = 0` it is the chi-square interval of `√(MS_D / (a n))` on `b − 1` df.
pub fn data_variation_interval(
    table: &CrossedMeanSquares,
    confidence: f64,
    draws: usize,
    seed: u64,
) -> Result<Interval, StatsError> {
    check_confidence(confidence)?;
    at_least("the data layout's interval", "draws", 100, draws)?;
    let mut rng = SeededRng::new(seed, "crossed-data-variation");
    let [_, df_d, df_cd, _] = table.degrees_of_freedom().map(|d| d as f64);
    let per_level = (table.code_seeds * table.replicates) as f64;
    let pivot = |rng: &mut SeededRng, ms: f64, df: f64| {
        let w = chi_square(rng, df);
        if ms > 0.0 {
            df * ms / w
        } else {
            0.0
        }
    };
    let mut pivots: Vec<f64> = (0..draws)
        .map(|_| {
            let d = pivot(&mut rng, table.ms_data, df_d);
            let cd = pivot(&mut rng, table.ms_code_x_data, df_cd);
            ((d - cd) / per_level).max(0.0)
        })
        .collect();
    pivots.sort_by(f64::total_cmp);
    let alpha = 1.0 - confidence;
    Ok(Interval {
        lower: quantile(&pivots, alpha / 2.0).sqrt(),
        upper: quantile(&pivots, 1.0 - alpha / 2.0).sqrt(),
    })
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;
    use crate::variance_split::crossed_mean_squares;

    fn table() -> Vec<Vec<Vec<f64>>> {
        vec![
            vec![vec![10.1, 10.4], vec![12.0, 11.7], vec![9.2, 9.5]],
            vec![vec![10.9, 10.6], vec![12.8, 12.9], vec![9.9, 10.3]],
            vec![vec![9.7, 9.9], vec![11.5, 11.9], vec![9.0, 8.7]],
            vec![vec![10.4, 10.2], vec![12.2, 12.6], vec![9.8, 9.4]],
        ]
    }

    #[test]
    fn matches_the_closed_form_computed_with_numpy() {
        // python3: the mean squares by numpy from the same table, L = MS_C + MS_D − MS_CD,
        // V = L/(a b n), ν = L²/(MS_C²/(a−1) + MS_D²/(b−1) + MS_CD²/((a−1)(b−1))),
        // scipy.stats.t.ppf(0.975, ν)·√V ->
        // V 0.7080555555555553, ν 2.333365569602531, half-width 3.167326144077462.
        let ms = crossed_mean_squares(&table()).unwrap();
        let i = crossed_mean_interval(&ms, 0.95).unwrap();
        assert!(close(i.variance, 0.7080555555555553, 1e-12), "{i:?}");
        assert!(close(i.df, 2.333365569602531, 1e-10), "{i:?}");
        assert!(close(i.half_width, 3.167326144077462, 1e-9), "{i:?}");
    }

    #[test]
    fn a_deterministic_data_effect_is_uncertainty_over_data_seeds() {
        // Every binary measures the same under each data seed: the mean's uncertainty is
        // the data seeds' alone, V = s_d²/b on b − 1 df (the t interval of the b data
        // seeds' means).
        let cells: Vec<Vec<Vec<f64>>> = (0..5)
            .map(|_| [10.0, 13.0, 11.0].iter().map(|v| vec![*v; 2]).collect())
            .collect();
        let ms = crossed_mean_squares(&cells).unwrap();
        let i = crossed_mean_interval(&ms, 0.95).unwrap();
        // data means 10, 13, 11: s² = 7/3, V = s²/3.
        assert!(close(i.variance, 7.0 / 9.0, 1e-12), "{i:?}");
        assert!(close(i.df, 2.0, 1e-12), "{i:?}");
        // Nothing varies between binaries within a data seed: σ_c detectable is 0.
        assert_eq!(detectable_code_variation(&ms, 0.05, 0.8), Some(0.0));
        let constant = vec![vec![vec![1.0, 1.0]; 2]; 2];
        let ms = crossed_mean_squares(&constant).unwrap();
        assert!(crossed_mean_interval(&ms, 0.95).is_err());
    }

    /// One crossed table drawn from the model with grand mean `mu` and the standard
    /// deviations `[σ_c, σ_d, σ_cd, σ_e]`.
    fn draw(
        rng: &mut SeededRng,
        (a, b, n): (usize, usize, usize),
        sd: [f64; 4],
    ) -> Vec<Vec<Vec<f64>>> {
        let code: Vec<f64> = (0..a).map(|_| sd[0] * rng.normal()).collect();
        let data: Vec<f64> = (0..b).map(|_| sd[1] * rng.normal()).collect();
        (0..a)
            .map(|i| {
                (0..b)
                    .map(|j| {
                        let cell = 100.0 + code[i] + data[j] + sd[2] * rng.normal();
                        (0..n).map(|_| cell + sd[3] * rng.normal()).collect()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn covers_the_grand_mean_about_95_percent_of_the_time() {
        // 600 seeded experiments per configuration; the binomial sd of the rate at 0.95 is
        // 0.9 %, so [0.92, 0.98] fails a correct interval rarely and a binary-only interval
        // (which misses the data axis: 60–80 % here) always.
        for (shape, sd) in [
            ((6, 4, 2), [1.0, 2.0, 0.5, 1.0]),
            ((8, 3, 2), [2.0, 0.5, 0.5, 1.0]),
        ] {
            let mut rng = SeededRng::new(35, "crossed-mean-coverage");
            let trials = 600;
            let mut covered = 0;
            for _ in 0..trials {
                let cells = draw(&mut rng, shape, sd);
                let ms = crossed_mean_squares(&cells).unwrap();
                let i = crossed_mean_interval(&ms, 0.95).unwrap();
                let all: Vec<f64> = cells.iter().flatten().flatten().copied().collect();
                let grand = all.iter().sum::<f64>() / all.len() as f64;
                if (grand - 100.0).abs() <= i.half_width {
                    covered += 1;
                }
            }
            let rate = covered as f64 / trials as f64;
            assert!((0.92..=0.98).contains(&rate), "{shape:?} {sd:?}: {rate}");
        }
    }

    #[test]
    fn the_data_variation_interval_is_the_chi_square_interval_without_interaction() {
        // MS_CD = 0 (every binary the same under each data seed): σ_d² = (b−1)·MS_D/(a n W),
        // W ~ χ²_{b−1}, so the interval is √((b−1)·MS_D/(a n χ²_{b−1, 1−α/2})) to
        // √((b−1)·MS_D/(a n χ²_{b−1, α/2})). scipy.stats.chi2.ppf([0.025, 0.975], 2) ->
        // 0.05063561596857975, 7.377758908227871; here MS_D = 2·5·7/3, a n = 10.
        let cells: Vec<Vec<Vec<f64>>> = (0..5)
            .map(|_| [10.0, 13.0, 11.0].iter().map(|v| vec![*v; 2]).collect())
            .collect();
        let ms = crossed_mean_squares(&cells).unwrap();
        let i = data_variation_interval(&ms, 0.95, 20_000, 7).unwrap();
        let scaled = 2.0 * ms.ms_data / 10.0;
        let (lower, upper) = (
            (scaled / 7.377758908227871).sqrt(),
            (scaled / 0.05063561596857975).sqrt(),
        );
        // The quantiles of 20 000 draws: within 3 % at the lower end, 6 % at the upper (the
        // tail of 1/χ²₂ is long).
        assert!((i.lower / lower - 1.0).abs() < 0.03, "{i:?} {lower}");
        assert!((i.upper / upper - 1.0).abs() < 0.06, "{i:?} {upper}");
        assert_eq!(detectable_data_variation(&ms, 0.05, 0.8), Some(0.0));
    }
}
