//! Student's t distribution: quantiles accurate for any degrees of freedom.
//!
//! Every confidence interval in the crate (Kalibera & Jones 2013 eq. 4, Fieller's eq. 5,
//! Welch, the matched-pair interval of Georges et al. 2008 §5.2) needs a t quantile.
//! statrs inverts the regularised incomplete beta function, which is exact for small df but
//! drifts for large df (df = 10⁶ gives 1.959848 for the 0.975 quantile instead of
//! 1.959966). We keep statrs' value as the starting point and polish it with Newton steps
//! on the cdf, which statrs computes accurately, working on the tail probability so that
//! nothing cancels.

use statrs::distribution::{Continuous, ContinuousCDF, Normal, StudentsT};

/// Quantile `t_{p, df}` of Student's t distribution: the `x` with `P(T ≤ x) = p`.
///
/// `df` may be fractional (Welch–Satterthwaite) or infinite (the standard normal).
/// Accurate to about 1e-12 relative for `0 < p < 1` and any `df > 0`.
///
/// # Panics
/// If `p` is outside `(0, 1)` or `df` is not positive.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0, "t_quantile: p = {p} is outside (0, 1)");
    assert!(df > 0.0, "t_quantile: df = {df} is not positive");
    if p == 0.5 {
        return 0.0;
    }
    // Symmetry: solve for the upper tail q = P(T > x) with x > 0.
    let upper = p > 0.5;
    let q = if upper { 1.0 - p } else { p };
    if df.is_infinite() {
        let x = standard_normal().inverse_cdf(1.0 - q);
        return if upper { x } else { -x };
    }
    let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0 is a valid Student's t");
    let mut x = dist.inverse_cdf(1.0 - q).abs();
    if !x.is_finite() || x == 0.0 {
        x = standard_normal().inverse_cdf(1.0 - q);
    }
    for _ in 0..50 {
        let density = dist.pdf(x);
        if density <= 0.0 || !density.is_finite() {
            break;
        }
        // f(x) = sf(x) - q is decreasing with f'(x) = -pdf(x).
        let step = (dist.sf(x) - q) / density;
        let next = x + step;
        let next = if next <= 0.0 { x / 2.0 } else { next };
        let converged = (next - x).abs() <= 1e-15 * x.abs();
        x = next;
        if converged {
            break;
        }
    }
    if upper {
        x
    } else {
        -x
    }
}

/// The two-sided critical value `t_{1−α/2, df}` for a `confidence = 1 − α` interval.
pub fn two_sided_critical(confidence: f64, df: f64) -> f64 {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence} is outside (0, 1)"
    );
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

fn standard_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("the standard normal is valid")
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

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
