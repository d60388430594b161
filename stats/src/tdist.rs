//! Student's t distribution: quantiles accurate for any degrees of freedom.
//!
//! Every confidence interval in the crate (Kalibera & Jones 2013 eq. 4, Fieller's eq. 5,
//! Welch, the matched-pair interval of Georges et al. 2008 §5.2) needs a t quantile.
//! statrs inverts the regularised incomplete beta function, which is exact for small df but
//! drifts for large df (df = 10⁶ gives 1.959848 for the 0.975 quantile instead of
//! 1.959966), and its cdf itself loses resolution near the centre for large df (it works
//! with `df/(df + t²)`, which rounds to 1). So: for df ≥ 2000 we use the Cornish–Fisher
//! expansion around the normal quantile, exact to double precision there; below, statrs'
//! value polished by Newton steps on the upper-tail probability.

use statrs::distribution::{Continuous, ContinuousCDF, Normal, StudentsT};

/// Quantile `t_{p, df}` of Student's t distribution: the `x` with `P(T ≤ x) = p`.
///
/// `df` may be fractional (Welch–Satterthwaite) or infinite (the standard normal).
/// Accurate to about 1e-12 relative for `0 < p < 1` and any `df > 0`; NaN outside that
/// domain (`p` not in `(0, 1)`, `df` not positive, either NaN), which every interval built
/// on it then carries: the callers leave a NaN interval out with its reason, never panic.
///
/// ```
/// use layoutrand_stats::tdist::t_quantile;
/// // Student's t table: t(0.975, 9) = 2.262157…; infinite df is the standard normal.
/// assert!((t_quantile(0.975, 9.0) - 2.2621571627409915).abs() < 1e-9);
/// assert!((t_quantile(0.975, f64::INFINITY) - 1.959963984540054).abs() < 1e-9);
/// assert!(t_quantile(1.5, 9.0).is_nan());
/// ```
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0 && df > 0.0) {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    // Symmetry: solve for the upper tail q = P(T > x) with x > 0.
    let upper = p > 0.5;
    let q = if upper { 1.0 - p } else { p };
    // The upper-tail normal quantile, computed from q itself so tiny q keep their precision.
    let z = -standard_normal().inverse_cdf(q);
    if df.is_infinite() {
        return if upper { z } else { -z };
    }
    if df >= CORNISH_FISHER_MIN_DF && z <= 6.0 {
        let x = cornish_fisher(z, df);
        return if upper { x } else { -x };
    }
    let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0 is a valid Student's t");
    let mut x = dist.inverse_cdf(q).abs();
    if !x.is_finite() || x == 0.0 {
        x = z;
    }
    // Newton on sf(x) = q, keeping the best iterate: statrs' cdf is only piecewise constant
    // at the 1e-12 scale, so once the residual stops shrinking further steps would drift.
    let mut best = (f64::INFINITY, x);
    for _ in 0..30 {
        let residual = dist.sf(x) - q;
        if residual.abs() >= best.0 {
            break;
        }
        best = (residual.abs(), x);
        let density = dist.pdf(x);
        if density <= 0.0 || !density.is_finite() || residual == 0.0 {
            break;
        }
        let next = x + residual / density;
        x = if next <= 0.0 { x / 2.0 } else { next };
    }
    let x = best.1;
    if upper {
        x
    } else {
        -x
    }
}

/// The two-sided critical value `t_{1−α/2, df}` for a `confidence = 1 − α` interval; NaN
/// when `confidence` is not in `(0, 1)` or `df` is not positive (see [`t_quantile`]).
pub fn two_sided_critical(confidence: f64, df: f64) -> f64 {
    if !(confidence > 0.0 && confidence < 1.0) {
        return f64::NAN;
    }
    t_quantile(1.0 - (1.0 - confidence) / 2.0, df)
}

/// `P(T ≤ x)` for Student's t with `df` degrees of freedom (normal when `df` is infinite).
pub fn t_cdf(x: f64, df: f64) -> f64 {
    if df.is_infinite() {
        return standard_normal().cdf(x);
    }
    StudentsT::new(0.0, 1.0, df)
        .expect("df > 0 is a valid Student's t")
        .cdf(x)
}

/// Two-sided p-value `P(|T| ≥ |t|)`, computed from the upper tail so small values keep
/// their precision.
pub fn two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    let tail = if df.is_infinite() {
        standard_normal().sf(t.abs())
    } else {
        StudentsT::new(0.0, 1.0, df)
            .expect("df > 0 is a valid Student's t")
            .sf(t.abs())
    };
    (2.0 * tail).min(1.0)
}

/// From this many degrees of freedom on, the Cornish–Fisher expansion is exact to double
/// precision for |z| ≤ 6 (its first omitted term is below 1e-13 there, checked against
/// scipy in the tests), while statrs' cdf loses resolution near the centre.
const CORNISH_FISHER_MIN_DF: f64 = 2000.0;

/// The Cornish–Fisher expansion of the t quantile in powers of 1/ν around the normal
/// quantile `z` (Abramowitz & Stegun 26.7.5, Fisher 1925), through the ν⁻⁴ term.
fn cornish_fisher(z: f64, df: f64) -> f64 {
    let z2 = z * z;
    let g1 = z * (z2 + 1.0) / 4.0;
    let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
}

fn standard_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("the standard normal is valid")
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    /// Issue 22: no input reaches a panic. Outside their domain the distribution functions
    /// give NaN, which the callers leave out with a reason.
    #[test]
    fn out_of_domain_arguments_give_nan_not_a_panic() {
        for (p, df) in [
            (0.0, 5.0),
            (1.0, 5.0),
            (1.5, 5.0),
            (f64::NAN, 5.0),
            (0.9, 0.0),
            (0.9, -1.0),
            (0.9, f64::NAN),
        ] {
            assert!(t_quantile(p, df).is_nan(), "t_quantile({p}, {df})");
        }
        assert!(two_sided_critical(1.2, 5.0).is_nan());
        assert!(two_sided_critical(0.95, 0.0).is_nan());
        use crate::studentized_range::{studentized_range_cdf, studentized_range_sf};
        assert!(studentized_range_cdf(2.0, 1, 10.0).is_nan());
        assert!(studentized_range_sf(2.0, 3, 0.0).is_nan());
        assert!(studentized_range_sf(f64::NAN, 3, 10.0).is_nan());
        assert!(crate::sample::quantile(&[], 0.5).is_nan());
        // In the domain, the ordinary values: python3 -c "from scipy.stats import t;
        // print(repr(t.ppf(0.975, 10)))" gives 2.228138851986274.
        assert!((two_sided_critical(0.95, 10.0) - 2.228_138_851_986_274).abs() < 1e-9);
    }

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    // References: scipy 1.17.1, `scipy.stats.t.ppf(p, df)` printed with repr().
    const QUANTILES: &[(f64, f64, f64)] = &[
        (1.0, 0.975, 12.706204736174694),
        (1.0, 0.995, 63.656741162871526),
        (1.0, 0.6, 0.32491969623290634),
        (1.0, 0.999999, 318309.88617359026),
        (2.0, 0.975, 4.302652729749462),
        (2.0, 0.999999, 707.1057205157672),
        (5.0, 0.975, 2.5705818356363146),
        (5.0, 0.95, 2.0150483733330233),
        (30.0, 0.975, 2.0422724563012378),
        (30.0, 0.995, 2.7499956535672254),
        (2000.0, 0.975, 1.9611508260994377),
        (2000.0, 0.95, 1.6456158666989071),
        (2000.0, 0.6, 0.2533808068206651),
        (1e6, 0.975, 1.959966356814107),
        (1e6, 0.995, 2.5758342201053344),
        (1e6, 0.6, 0.25334717053784184),
        (1e6, 0.999999, 4.7534523482738695),
        (2.5, 0.975, 3.5746548420036817),
        (7.3, 0.995, 3.451031655622185),
    ];

    #[test]
    fn quantiles_match_scipy() {
        for &(df, p, want) in QUANTILES {
            let got = t_quantile(p, df);
            assert!(rel(got, want) < 1e-10, "df={df} p={p}: {got} vs {want}");
            let low = t_quantile(1.0 - p, df);
            assert!(rel(low, -want) < 1e-9, "df={df} p={}: {low}", 1.0 - p);
        }
    }

    // scipy 1.17.1 `t.ppf(p, df)` near the centre and for huge df, where statrs' cdf rounds
    // df/(df + t²) to 1 and a Newton polish on it cannot reach 1e-10.
    const CENTRE: &[(f64, f64, f64)] = &[
        (1e4, 0.5001, 0.0002506690967374758),
        (1e5, 0.52, 0.05015370916423969),
        (270699.9626203403, 0.5612210329644499, 0.15406584401044165),
        (1e6, 0.9, 1.281552412129939),
        (1e7, 0.5001, 0.0002506628363545787),
        (1e9, 0.975, 1.959963986912325),
    ];

    #[test]
    fn centre_and_huge_df_match_scipy() {
        for &(df, p, want) in CENTRE {
            let got = t_quantile(p, df);
            assert!(rel(got, want) < 1e-12, "df={df} p={p}: {got} vs {want}");
        }
    }

    #[test]
    fn infinite_df_is_the_normal() {
        // scipy.stats.norm.ppf(0.975) = 1.959963984540054
        assert!(rel(t_quantile(0.975, f64::INFINITY), 1.959963984540054) < 1e-12);
    }

    #[test]
    fn two_sided_helpers_agree_with_quantile() {
        assert_eq!(two_sided_critical(0.95, 5.0), t_quantile(0.975, 5.0));
        let t = t_quantile(0.975, 12.0);
        assert!((two_sided_p(t, 12.0) - 0.05).abs() < 1e-12);
        assert!((t_cdf(t, 12.0) - 0.975).abs() < 1e-12);
    }
}
