//! One-sample summaries: mean, unbiased variance and the Student t interval of the mean.
//!
//! The t interval is the single-level case of Kalibera & Jones 2013 eq. 4 (and of
//! Georges et al. 2007 §3.2.1); the multi-level interval applies it to the top-level means.

use super::error::{at_least, check_confidence, StatsError};
use super::tdist::two_sided_critical;
use serde::Serialize;

/// Arithmetic mean (NaN for an empty slice). When the plain sum overflows although every
/// value is finite (values near ±1.8e308), the values are scaled by the largest magnitude
/// first, so the mean of finite values is always finite.
pub fn mean(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    if sum.is_finite() || xs.iter().any(|x| !x.is_finite()) {
        return sum / n;
    }
    let scale = xs.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    xs.iter().map(|x| x / scale).sum::<f64>() / n * scale
}

/// Unbiased sample variance `Σ(x − x̄)² / (n − 1)` (NaN below two values). Two-pass for
/// accuracy when the mean is large relative to the spread.
pub fn variance(xs: &[f64]) -> f64 {
    let m = mean(xs);
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() as f64 - 1.0)
}

/// Median (average of the two middle values for even lengths; NaN when empty).
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let k = v.len() / 2;
    if v.len() % 2 == 1 {
        v[k]
    } else {
        (v[k - 1] + v[k]) / 2.0
    }
}

/// Sample quantile of sorted data by linear interpolation between order statistics
/// (Hyndman & Fan 1996, definition 7; R's and NumPy's default). Used to draw box plots.
///
/// `sorted` ascending; `p` in `[0, 1]`. NaN for no data.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// A two-sided confidence interval for a mean: `mean ± half_width`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MeanInterval {
    /// The point estimate.
    pub mean: f64,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// `t_{1−α/2, df} · sqrt(s² / r)`.
    pub half_width: f64,
    /// Degrees of freedom of the t quantile.
    pub df: f64,
    /// `1 − α`.
    pub confidence: f64,
}

impl MeanInterval {
    /// `half_width / |mean|`: the precision Kalibera & Jones §10.2 call `e`.
    pub fn relative_half_width(&self) -> f64 {
        self.half_width / self.mean.abs()
    }

    /// Builds the interval `mean ± t_{1−α/2, r−1} · sqrt(s2 / r)` from summary values
    /// (Kalibera & Jones eq. 4 with `s2 = S_n²`, `r = r_n`).
    pub fn from_summary(mean: f64, s2: f64, r: usize, confidence: f64) -> Result<Self, StatsError> {
        check_confidence(confidence)?;
        at_least("a t confidence interval", "units", 2, r)?;
        let df = (r - 1) as f64;
        let half_width = two_sided_critical(confidence, df) * (s2 / r as f64).sqrt();
        Ok(MeanInterval {
            mean,
            lower: mean - half_width,
            upper: mean + half_width,
            half_width,
            df,
            confidence,
        })
    }
}

/// The Student t interval for the mean of an i.i.d. sample.
///
/// ```
/// // 1 … 5: mean 3, s² = 2.5, so the 95 % half-width is t(0.975, 4) · √(2.5 / 5), with
/// // t(0.975, 4) = 2.7764451051977987 (Student's t table).
/// let ci = layoutrand_stats::sample::mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95).unwrap();
/// assert_eq!(ci.mean, 3.0);
/// assert!((ci.half_width - 2.7764451051977987 * 0.5_f64.sqrt()).abs() < 1e-9);
/// assert!((ci.lower - 1.036756838522439).abs() < 1e-9);
/// ```
pub fn mean_interval(xs: &[f64], confidence: f64) -> Result<MeanInterval, StatsError> {
    MeanInterval::from_summary(mean(xs), variance(xs), xs.len(), confidence)
}

/// The two-sided `confidence` interval of a normal sample's standard deviation:
/// `sqrt((n − 1) s² / χ²_{1−α/2, n−1})` to `sqrt((n − 1) s² / χ²_{α/2, n−1})` (the textbook
/// chi-square interval for a variance, e.g. NIST/SEMATECH e-Handbook §1.3.5.8). Needs two
/// values.
pub fn sd_interval(xs: &[f64], confidence: f64) -> Result<(f64, f64), StatsError> {
    check_confidence(confidence)?;
    at_least(
        "the interval of a standard deviation",
        "values",
        2,
        xs.len(),
    )?;
    sd_interval_of_variance(variance(xs), xs.len() - 1, confidence)
}

/// [`sd_interval`] from a variance estimate `s2` on `df` degrees of freedom (`df · s2 / σ²`
/// chi-square distributed), such as an ANOVA's mean square: `(√(df s2 / χ²_{1−α/2}),
/// √(df s2 / χ²_{α/2}))`.
pub fn sd_interval_of_variance(
    s2: f64,
    df: usize,
    confidence: f64,
) -> Result<(f64, f64), StatsError> {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    check_confidence(confidence)?;
    at_least(
        "the interval of a standard deviation",
        "degrees of freedom",
        1,
        df,
    )?;
    let df = df as f64;
    let chi = ChiSquared::new(df).map_err(|e| StatsError::Domain(e.to_string()))?;
    let alpha = 1.0 - confidence;
    let ss = df * s2;
    let low = (ss / chi.inverse_cdf(1.0 - alpha / 2.0)).sqrt();
    let high = (ss / chi.inverse_cdf(alpha / 2.0)).sqrt();
    Ok((low, high))
}

/// The two-sided `confidence` interval of a standard deviation that does not assume
/// normality: Bonett (2006), "Approximate confidence interval for standard deviation of
/// nonnormal distributions", Computational Statistics & Data Analysis 50, 775–782. With the
/// kurtosis estimate `γ = n Σ(x − m)⁴ / (Σ(x − x̄)²)²`, `m` the mean trimmed by
/// `1 / (2 √(n − 4))` at each end, `c = n / (n − z)` and `z` the normal quantile of
/// `1 − α/2`, the variance's interval is `exp(ln(c s²) ± z c √((γ − (n − 3)/n) / (n − 1)))`
/// and the deviation's its square root. The chi-square interval ([`sd_interval`]) is exact
/// for normal samples and far too narrow for heavy-tailed or two-valued ones (a few layouts
/// far off), which is what layouts give. Needs five values; a sample with no spread gives
/// `(0, 0)`.
pub fn sd_interval_nonnormal(xs: &[f64], confidence: f64) -> Result<(f64, f64), StatsError> {
    check_confidence(confidence)?;
    at_least(
        "the interval of a standard deviation (Bonett 2006)",
        "values",
        5,
        xs.len(),
    )?;
    let n = xs.len() as f64;
    let var = variance(xs);
    if var <= 0.0 {
        return Ok((0.0, 0.0));
    }
    let (fourth, squares) = kurtosis_sums(xs);
    let kurtosis = n * fourth / (squares * squares);
    let z = normal_quantile(confidence)?;
    let c = n / (n - z);
    let se = c * ((kurtosis - (n - 3.0) / n).max(0.0) / (n - 1.0)).sqrt();
    let centre_log = (c * var).ln();
    Ok((
        (centre_log - z * se).exp().sqrt(),
        (centre_log + z * se).exp().sqrt(),
    ))
}

/// Bonett's two sums for a kurtosis estimate that stays stable in small samples: the fourth
/// powers about the mean trimmed by `1 / (2 √(n − 4))` at each end, and the squares about
/// the mean (Bonett 2006, CSDA 50, §2). Needs five values.
fn kurtosis_sums(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let cut = (n / (2.0 * (n - 4.0).sqrt())).floor() as usize;
    let trimmed = mean(&sorted[cut..sorted.len() - cut]);
    let centre = mean(xs);
    let fourth = xs.iter().map(|x| (x - trimmed).powi(4)).sum();
    let squares = xs.iter().map(|x| (x - centre).powi(2)).sum();
    (fourth, squares)
}

/// The standard normal quantile of `1 − α/2` for a two-sided `confidence` interval.
fn normal_quantile(confidence: f64) -> Result<f64, StatsError> {
    use statrs::distribution::{ContinuousCDF, Normal};
    Ok(Normal::new(0.0, 1.0)
        .map_err(|e| StatsError::Domain(e.to_string()))?
        .inverse_cdf(1.0 - (1.0 - confidence) / 2.0))
}

/// The two-sided `confidence` interval of the ratio of two standard deviations,
/// `σ_new / σ_base`, that does not assume normality: Bonett (2006), "Robust confidence
/// interval for a ratio of standard deviations", Applied Psychological Measurement 30,
/// 432–439. With the pooled kurtosis `γ = (n₁ + n₂) Σᵢ Σⱼ (xᵢⱼ − mᵢ)⁴ / (Σᵢ Σⱼ (xᵢⱼ − x̄ᵢ)²)²`
/// (`mᵢ` each sample's mean trimmed as in [`sd_interval_nonnormal`]), `seᵢ² = (γ − (nᵢ −
/// 3)/nᵢ) / (nᵢ − 1)` and `c = (n_new / (n_new − z)) / (n_base / (n_base − z))`, the
/// variances' ratio has the interval `exp(ln(c s²_new / s²_base) ± z √(se²_new + se²_base))`
/// and the deviations' its square root.
///
/// Why this one: a pinned layout's spread is compared with a random layout's, and random
/// layouts are lumpy (a few far off). In a seeded simulation (20 and 20 values; normal,
/// uniform, log-normal and two-point mixtures) its upper end fell below the true ratio in at
/// most 3.5 % of samples, where the F interval's did in up to 23 % and a percentile bootstrap's
/// in up to 5.5 %: the upper end is what a claimed reduction rests on. Needs five values on
/// each side, and spread on each (a side whose values are all equal has no logarithm).
///
/// ```
/// use layoutrand_stats::sample::sd_ratio_interval_nonnormal;
/// let base = [10.0, 12.0, 9.0, 30.0, 11.0, 10.5];
/// let new = [10.0, 10.2, 9.9, 10.1, 10.3, 9.8];
/// let (low, high) = sd_ratio_interval_nonnormal(&base, &new, 0.95).unwrap();
/// assert!(0.0 < low && low < high && high < 1.0); // new's spread is smaller
/// ```
pub fn sd_ratio_interval_nonnormal(
    base: &[f64],
    new: &[f64],
    confidence: f64,
) -> Result<(f64, f64), StatsError> {
    check_confidence(confidence)?;
    let what = "the interval of a ratio of standard deviations (Bonett 2006)";
    at_least(what, "values on each side", 5, base.len().min(new.len()))?;
    let (var_base, var_new) = (variance(base), variance(new));
    if var_base <= 0.0 || var_new <= 0.0 {
        return Err(StatsError::Domain(format!(
            "{what} needs spread on each side; the {} values are all equal",
            if var_base <= 0.0 {
                "base's"
            } else {
                "new side's"
            }
        )));
    }
    let (nb, nn) = (base.len() as f64, new.len() as f64);
    let (fourth_base, squares_base) = kurtosis_sums(base);
    let (fourth_new, squares_new) = kurtosis_sums(new);
    let squares = squares_base + squares_new;
    let kurtosis = (nb + nn) * (fourth_base + fourth_new) / (squares * squares);
    let se2 = |n: f64| (kurtosis - (n - 3.0) / n).max(0.0) / (n - 1.0);
    let z = normal_quantile(confidence)?;
    let c = (nn / (nn - z)) / (nb / (nb - z));
    let centre = (c * var_new / var_base).ln();
    let half = z * (se2(nb) + se2(nn)).sqrt();
    Ok((((centre - half) / 2.0).exp(), ((centre + half) / 2.0).exp()))
}

/// The distribution-free two-sided interval of a median: the order statistics `x₍ₖ₎` and
/// `x₍ₙ₋ₖ₊₁₎` with `k − 1` the largest count such that `P(Binomial(n, ½) ≤ k − 1) ≤ α/2`
/// (Conover, *Practical Nonparametric Statistics*, 3rd ed., §3.2); its coverage is at least
/// `confidence` for any continuous distribution (95.9 % for 20 values at 95 %: `x₍₆₎` to
/// `x₍₁₅₎`). Needs enough values for the extremes to reach the confidence (six at 95 %).
pub fn median_interval(xs: &[f64], confidence: f64) -> Result<(f64, f64), StatsError> {
    use statrs::distribution::{Binomial, DiscreteCDF};
    check_confidence(confidence)?;
    let n = xs.len();
    let binomial = Binomial::new(0.5, n as u64).map_err(|e| StatsError::Domain(e.to_string()))?;
    let tail = (1.0 - confidence) / 2.0;
    let Some(below) = (0..=n / 2).rev().find(|&k| binomial.cdf(k as u64) <= tail) else {
        return Err(StatsError::Domain(format!(
            "a {:.0} % interval of a median needs more than {n} values",
            confidence * 100.0
        )));
    };
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    Ok((sorted[below], sorted[n - 1 - below]))
}

/// A two-sided prediction interval for one new draw from the population a sample came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PredictionInterval {
    /// The centre (the sample mean).
    pub centre: f64,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Standard deviation of `new − centre`: `sqrt(var_new + s²/n)`.
    pub sd: f64,
    /// Degrees of freedom of the t quantile.
    pub df: f64,
    /// `1 − α`.
    pub confidence: f64,
}

impl PredictionInterval {
    /// Where `x` lies in the predictive distribution: the two-sided p-value
    /// `P(|T_df| ≥ |x − centre| / sd)` of "x is one more draw of the population".
    pub fn p_value(&self, x: f64) -> f64 {
        if self.sd > 0.0 {
            super::tdist::two_sided_p((x - self.centre) / self.sd, self.df)
        } else if x == self.centre {
            1.0
        } else {
            0.0
        }
    }

    /// Whether `x` lies outside the interval.
    pub fn excludes(&self, x: f64) -> bool {
        x < self.lower || x > self.upper
    }
}

/// The prediction interval of one new draw whose variance differs from the sample's
/// (Hahn & Meeker, "Statistical Intervals", 1991, §4.7): `centre ± t_{1−α/2, n−1} ·
/// sqrt(var_new + s²/n)`, with `centre` and `s²` the sample's mean and variance. With
/// `var_new = s²` it is the textbook interval `x̄ ± t · s · sqrt(1 + 1/n)`, exact for a normal
/// population. Needs two values and a finite, non-negative `var_new`.
pub fn prediction_interval(
    xs: &[f64],
    var_new: f64,
    confidence: f64,
) -> Result<PredictionInterval, StatsError> {
    check_confidence(confidence)?;
    at_least("a prediction interval", "values", 2, xs.len())?;
    if !(var_new.is_finite() && var_new >= 0.0) {
        return Err(StatsError::Domain(format!(
            "a prediction interval needs a finite, non-negative variance of the new draw, got {var_new}"
        )));
    }
    let n = xs.len() as f64;
    let centre = mean(xs);
    let sd = (var_new + variance(xs) / n).sqrt();
    let df = n - 1.0;
    let half = two_sided_critical(confidence, df) * sd;
    Ok(PredictionInterval {
        centre,
        lower: centre - half,
        upper: centre + half,
        sd,
        df,
        confidence,
    })
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    #[test]
    fn t_interval_matches_scipy() {
        // scipy: x=[2.799,2.046,1.259,1.877,2.244];
        // stats.t.interval(0.95, 4, loc=np.mean(x), scale=stats.sem(x))
        // -> (1.3497407799692995, 2.7402592200307003)
        let x = [2.799, 2.046, 1.259, 1.877, 2.244];
        let ci = mean_interval(&x, 0.95).unwrap();
        assert!((ci.lower - 1.3497407799692995).abs() < 1e-12);
        assert!((ci.upper - 2.7402592200307003).abs() < 1e-12);
        assert_eq!(ci.df, 4.0);
    }

    #[test]
    fn sd_interval_matches_scipy() {
        // scipy: s2 = np.var(x, ddof=1); np.sqrt(4*s2/chi2.ppf(0.975, 4)),
        // np.sqrt(4*s2/chi2.ppf(0.025, 4)) -> 0.3354795174955126 1.6090230946167656
        let x = [2.799, 2.046, 1.259, 1.877, 2.244];
        let (low, high) = sd_interval(&x, 0.95).unwrap();
        assert!((low - 0.3354795174955126).abs() < 1e-9, "{low}");
        assert!((high - 1.6090230946167656).abs() < 1e-9, "{high}");
    }

    #[test]
    fn sd_interval_of_a_variance_is_the_samples_interval() {
        // The sample of `sd_interval_matches_scipy`: its variance on n − 1 = 4 degrees gives
        // scipy's interval.
        let x = [2.799, 2.046, 1.259, 1.877, 2.244];
        let (low, high) = sd_interval_of_variance(variance(&x), 4, 0.95).unwrap();
        assert!((low - 0.3354795174955126).abs() < 1e-9, "{low}");
        assert!((high - 1.6090230946167656).abs() < 1e-9, "{high}");
        assert!(sd_interval_of_variance(1.0, 0, 0.95).is_err());
    }

    /// Bonett (2006) by the paper's formula, computed apart in Python 3 (statistics,
    /// math; the trimmed mean cuts floor(n / (2 √(n − 4))) values at each end):
    /// x = [3616, 3655, 3700, 78939, 202398, 5000, 3640, 3620, 90000, 120000, 3700, 3800];
    /// n = 12, cut = 2 -> 31635.519835748408 161780.7927162639.
    #[test]
    fn the_nonnormal_sd_interval_follows_bonett() {
        let x = [
            3616.0, 3655.0, 3700.0, 78939.0, 202398.0, 5000.0, 3640.0, 3620.0, 90000.0, 120000.0,
            3700.0, 3800.0,
        ];
        let (low, high) = sd_interval_nonnormal(&x, 0.95).unwrap();
        assert!((low / 31635.519835748408 - 1.0).abs() < 1e-9, "{low}");
        assert!((high / 161780.7927162639 - 1.0).abs() < 1e-9, "{high}");
        assert_eq!(sd_interval_nonnormal(&[2.0; 6], 0.95).unwrap(), (0.0, 0.0));
        assert!(sd_interval_nonnormal(&[1.0, 2.0, 3.0, 4.0], 0.95).is_err());
    }

    /// Seeded simulation, 4000 samples of 20 each: the interval covers the true deviation
    /// in 95 % ± 2 % of normal samples; in lumpy ones (a value 60 % higher with probability
    /// 0.1, as a few slow layouts give) it covers in at least 82 % (not 95 %: two-valued
    /// samples are its hardest case: 84 % here, and 84–89 % in a Python run of the same
    /// formula at probabilities 0.1 to 0.3), where the chi-square interval covers in less
    /// (75 % here).
    #[test]
    fn the_nonnormal_sd_interval_covers_normal_and_lumpy_samples() {
        let mut rng = crate::seeded::SeededRng::new(11, "bonett-coverage");
        let runs = 4000;
        let (mut normal, mut lumpy, mut lumpy_chi) = (0, 0, 0);
        // A two-point mixture plus 1 % noise: sd² = p (1 − p) 0.6² + 0.01².
        let p = 0.1;
        let truth = (p * (1.0 - p) * 0.36f64 + 1e-4).sqrt();
        for _ in 0..runs {
            let xs: Vec<f64> = (0..20).map(|_| 10.0 + 2.0 * rng.normal()).collect();
            let (l, h) = sd_interval_nonnormal(&xs, 0.95).unwrap();
            normal += usize::from(l <= 2.0 && 2.0 <= h);
            let ys: Vec<f64> = (0..20)
                .map(|_| {
                    let slow = if rng.unit_f64() < p { 0.6 } else { 0.0 };
                    1.0 + slow + 0.01 * rng.normal()
                })
                .collect();
            let (l, h) = sd_interval_nonnormal(&ys, 0.95).unwrap();
            lumpy += usize::from(l <= truth && truth <= h);
            let (l, h) = sd_interval(&ys, 0.95).unwrap();
            lumpy_chi += usize::from(l <= truth && truth <= h);
        }
        let rate = |k: usize| k as f64 / runs as f64;
        assert!(
            (rate(normal) - 0.95).abs() < 0.02,
            "normal {}",
            rate(normal)
        );
        assert!(rate(lumpy) >= 0.82, "lumpy {}", rate(lumpy));
        assert!(
            rate(lumpy) - rate(lumpy_chi) > 0.05,
            "chi-square on lumpy {}",
            rate(lumpy_chi)
        );
    }

    /// Bonett (2006, APM) by the paper's formula, computed apart in Python 3 (math and
    /// statistics; z = scipy.stats.norm.ppf(0.975), the trimmed means as above):
    /// base = the lumpy sample above, new = [3610, 3650, 3702, 3690, 3711, 3645, 3633, 3688,
    /// 3701, 3666] -> (0.00012767281768380107, 0.0021992046166721306); at 90 %,
    /// [2.799, 2.046, 1.259, 1.877, 2.244, 2.5] against [1.1, 0.9, 1.3, 1.0, 0.7, 1.2, 0.95]
    /// -> (0.14549347136272195, 0.9114861819959815).
    #[test]
    fn the_sd_ratio_interval_follows_bonett() {
        let base = [
            3616.0, 3655.0, 3700.0, 78939.0, 202398.0, 5000.0, 3640.0, 3620.0, 90000.0, 120000.0,
            3700.0, 3800.0,
        ];
        let new = [
            3610.0, 3650.0, 3702.0, 3690.0, 3711.0, 3645.0, 3633.0, 3688.0, 3701.0, 3666.0,
        ];
        let (low, high) = sd_ratio_interval_nonnormal(&base, &new, 0.95).unwrap();
        assert!((low / 0.00012767281768380107 - 1.0).abs() < 1e-9, "{low}");
        assert!((high / 0.0021992046166721306 - 1.0).abs() < 1e-9, "{high}");
        let (low, high) = sd_ratio_interval_nonnormal(
            &[2.799, 2.046, 1.259, 1.877, 2.244, 2.5],
            &[1.1, 0.9, 1.3, 1.0, 0.7, 1.2, 0.95],
            0.90,
        )
        .unwrap();
        assert!((low / 0.14549347136272195 - 1.0).abs() < 1e-9, "{low}");
        assert!((high / 0.9114861819959815 - 1.0).abs() < 1e-9, "{high}");
        assert!(sd_ratio_interval_nonnormal(&base, &[2.0; 6], 0.95).is_err());
        assert!(sd_ratio_interval_nonnormal(&base, &[1.0, 2.0, 3.0, 4.0], 0.95).is_err());
    }

    /// Seeded simulation, 2000 pairs of samples of 20: the upper end of the ratio's
    /// interval lies below the true ratio (the error that overstates a reduction) in at most
    /// 4 % of normal pairs and of lumpy random layouts (a value 8 sd off with probability
    /// 0.1) against a normal pinned side, where the F interval's does more often; the
    /// two-sided coverage of normal pairs is at least 95 % (the pooled kurtosis makes it
    /// conservative there: 99 % in the Python run behind the doc comment).
    #[test]
    fn the_sd_ratio_interval_rarely_overstates_a_reduction() {
        use statrs::distribution::{ContinuousCDF, FisherSnedecor};
        let mut rng = crate::seeded::SeededRng::new(12, "bonett-ratio-coverage");
        let runs = 2000;
        let f = FisherSnedecor::new(19.0, 19.0).unwrap();
        let f_low = f.inverse_cdf(0.025);
        let (mut normal_cover, mut normal_over, mut lumpy_over, mut lumpy_over_f) = (0, 0, 0, 0);
        let lumpy_sd = (1.0 + 0.1 * 0.9 * 64.0f64).sqrt();
        for _ in 0..runs {
            let base: Vec<f64> = (0..20).map(|_| rng.normal()).collect();
            let new: Vec<f64> = (0..20).map(|_| 0.2 * rng.normal()).collect();
            let (l, h) = sd_ratio_interval_nonnormal(&base, &new, 0.95).unwrap();
            normal_cover += usize::from(l <= 0.2 && 0.2 <= h);
            normal_over += usize::from(h < 0.2);
            let lumpy: Vec<f64> = (0..20)
                .map(|_| rng.normal() + if rng.unit_f64() < 0.1 { 8.0 } else { 0.0 })
                .collect();
            let pinned: Vec<f64> = (0..20).map(|_| 0.3 * rng.normal()).collect();
            let truth = 0.3 / lumpy_sd;
            let (_, h) = sd_ratio_interval_nonnormal(&lumpy, &pinned, 0.95).unwrap();
            lumpy_over += usize::from(h < truth);
            let f_high = (variance(&pinned) / variance(&lumpy) / f_low).sqrt();
            lumpy_over_f += usize::from(f_high < truth);
        }
        let rate = |k: usize| k as f64 / runs as f64;
        assert!(rate(normal_cover) >= 0.95, "normal {}", rate(normal_cover));
        assert!(
            rate(normal_over) <= 0.04,
            "normal over {}",
            rate(normal_over)
        );
        assert!(rate(lumpy_over) <= 0.04, "lumpy over {}", rate(lumpy_over));
        assert!(
            rate(lumpy_over_f) > rate(lumpy_over),
            "F {} against Bonett {}",
            rate(lumpy_over_f),
            rate(lumpy_over)
        );
    }

    /// scipy.stats.binom.cdf gives the ranks: n = 20 -> 6th and 15th values (coverage
    /// 0.9586105346679688), n = 10 -> 2nd and 9th, n = 6 -> the extremes; n = 5 has none.
    #[test]
    fn the_median_interval_takes_binomial_ranks() {
        let xs: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        assert_eq!(median_interval(&xs, 0.95).unwrap(), (6.0, 15.0));
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_interval(&ten, 0.95).unwrap(), (2.0, 9.0));
        assert_eq!(median_interval(&ten[..6], 0.95).unwrap(), (1.0, 6.0));
        assert!(median_interval(&ten[..5], 0.95).is_err());
    }

    #[test]
    fn mean_of_huge_values_is_finite() {
        assert_eq!(mean(&[1.7e308, 1.5e308]), 1.6e308);
        assert!(mean(&[1.0, f64::INFINITY]).is_infinite());
    }

    #[test]
    fn quantile_matches_r_type_7() {
        // R: quantile(c(1, 2, 4, 8, 16), c(.25, .5, .9)) → 2, 4, 12.8
        let v = [1.0, 2.0, 4.0, 8.0, 16.0];
        assert_eq!(quantile(&v, 0.25), 2.0);
        assert_eq!(quantile(&v, 0.5), 4.0);
        assert!((quantile(&v, 0.9) - 12.8).abs() < 1e-12);
    }

    #[test]
    fn summaries() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(variance(&[1.0, 2.0, 3.0, 4.0]), 5.0 / 3.0);
        assert!(mean_interval(&[1.0], 0.95).is_err());
        assert!(mean_interval(&[1.0, 2.0], 1.0).is_err());
    }
    #[test]
    fn prediction_interval_matches_scipy() {
        // scipy: x=[2.799,2.046,1.259,1.877,2.244]; n=5; s=np.std(x, ddof=1)
        // np.mean(x) -/+ stats.t.ppf(0.975, 4)*s*np.sqrt(1+1/n)
        // -> 0.341969671959367 3.748030328040633
        let x = [2.799, 2.046, 1.259, 1.877, 2.244];
        let pi = prediction_interval(&x, variance(&x), 0.95).unwrap();
        assert!((pi.lower - 0.341969671959367).abs() < 1e-9, "{pi:?}");
        assert!((pi.upper - 3.748030328040633).abs() < 1e-9, "{pi:?}");
        // At its own bound the predictive p-value is 1 − confidence.
        assert!((pi.p_value(pi.upper) - 0.05).abs() < 1e-9);
        assert!(!pi.excludes(2.0) && pi.excludes(3.8));
        assert!(prediction_interval(&x, -1.0, 0.95).is_err());
        assert!(prediction_interval(&x[..1], 1.0, 0.95).is_err());
    }
}
