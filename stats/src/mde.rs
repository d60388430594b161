//! The minimum detectable effect: the smallest difference between two means that a
//! two-sided test at level α finds with probability (power) 1 − β, given the spread of the
//! measurements and how many there are.
//!
//! For two groups of `n` independent values with standard deviation σ, the difference of
//! the means has standard error σ·√(2/n), and the pooled two-sample t statistic (ν = 2(n − 1)
//! degrees of freedom) follows the noncentral t with noncentrality `λ = δ/(σ·√(2/n))` when
//! the true difference is δ. The two-sided test at level α rejects with probability
//!
//! ```text
//! power(λ) = P(T'_{ν,λ} > t(1 − α/2; ν)) + P(T'_{ν,λ} < −t(1 − α/2; ν)),
//! ```
//!
//! and the minimum detectable effect is `δ = λ* σ √(2/n)` with `power(λ*) = 1 − β`, found
//! by bisection (Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.
//! 1988, §2.4 and Table 2.4.1, whose tables are computed from the noncentral t; the
//! noncentral t itself from [`super::noncentral_t`], Lenth 1989 AS 243). The textbook
//! shortcut `λ* ≈ t(1 − α/2; ν) + t(1 − β; ν)` (and, with normal quantiles, van Belle's
//! "Lehr's rule" n = 16/Δ², *Statistical Rules of Thumb*, 2008 §2.3) is close for large `n`
//! but promises too much for small ones: at n = 2 it gives 76.6 % power where 80 % is
//! promised. Divided by the mean, with σ/mean the coefficient of variation, δ is the
//! relative effect a report can promise to see.

use super::noncentral_t::{noncentral_t_cdf, noncentral_t_sf};
use super::tdist::t_quantile;

/// The power of the two-sided pooled two-sample t-test at level `alpha` with `df` degrees
/// of freedom when the true difference is `lambda` standard errors (module docs).
pub fn two_sample_power(lambda: f64, df: f64, alpha: f64) -> Option<f64> {
    let critical = t_quantile(1.0 - alpha / 2.0, df);
    let upper = noncentral_t_sf(critical, df, lambda).ok()?;
    let lower = noncentral_t_cdf(-critical, df, lambda).ok()?;
    Some(upper + lower)
}

/// The noncentrality `λ ≥ 0` at which [`two_sample_power`] reaches `power`: bisection to
/// 1e-12 relative (power increases with λ ≥ 0). `0` when the test's size already reaches
/// `power`.
///
/// It is also how many standard errors beyond a threshold a true effect must lie for a
/// one-sided test with a t statistic on `df` degrees of freedom (rejecting when the lower end
/// of a two-sided `1 − alpha` interval clears the threshold) to reject with probability
/// `power`: the lower tail that [`two_sample_power`] adds is below 1e-4 at 80 % power.
/// `None` outside the domain, or beyond 100 standard errors.
///
/// ```
/// // scipy: c = t.ppf(0.975, 29); brentq(lambda l: nct.sf(c, 29, l) + nct.cdf(-c, 29, l)
/// // - 0.8, 0.1, 6, xtol=1e-14) -> 2.8987428463248635 (normal theory: 1.96 + 0.84 = 2.80).
/// let l = layoutrand_stats::mde::noncentrality_for_power(29.0, 0.05, 0.8).unwrap();
/// assert!((l - 2.8987428463248635).abs() < 1e-6, "{l}");
/// ```
pub fn noncentrality_for_power(df: f64, alpha: f64, power: f64) -> Option<f64> {
    let reaches = |lambda: f64| two_sample_power(lambda, df, alpha).map(|p| p >= power);
    if reaches(0.0)? {
        return Some(0.0);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while !reaches(hi)? {
        lo = hi;
        hi *= 2.0;
        if hi > 100.0 {
            return None;
        }
    }
    while hi - lo > 1e-12 * hi {
        let mid = (lo + hi) / 2.0;
        if reaches(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// Power the report's minimum detectable effects assume.
pub const DEFAULT_POWER: f64 = 0.8;

/// The minimum detectable relative difference between two means of `n` values each whose
/// relative standard deviation (coefficient of variation) is `cv`, for a two-sided test at
/// significance `alpha` with power `power` (module docs for the formula and its sources).
///
/// `None` when it cannot be computed: `n < 2`, a negative or non-finite `cv`, or `alpha`
/// or `power` outside (0, 1).
pub fn minimum_detectable_effect(cv: f64, n: usize, alpha: f64, power: f64) -> Option<f64> {
    if n < 2 || !(cv.is_finite() && cv >= 0.0) {
        return None;
    }
    if !(alpha > 0.0 && alpha < 1.0 && power > 0.0 && power < 1.0) {
        return None;
    }
    let df = 2.0 * (n as f64 - 1.0);
    let multiplier = noncentrality_for_power(df, alpha, power)?;
    Some(multiplier * cv * (2.0 / n as f64).sqrt())
}

/// The smallest count `n` in `2..=maximum` of values per group whose minimum detectable
/// effect ([`minimum_detectable_effect`], same formula and sources) is at most `effect`:
/// how many executions per binary a difference of `effect` between two binaries needs when
/// executions vary by `cv`. `None` when even `maximum` is not enough or the inputs are
/// outside the domain of [`minimum_detectable_effect`] or `effect` is not positive.
///
/// The effect shrinks as `n` grows (more degrees of freedom and a smaller `√(2/n)`), so the
/// search bisects ([`super::planning::smallest_count`]).
pub fn count_to_detect(
    cv: f64,
    effect: f64,
    alpha: f64,
    power: f64,
    maximum: usize,
) -> Option<usize> {
    if !(effect.is_finite() && effect > 0.0) || maximum < 2 {
        return None;
    }
    let fits =
        |n: usize| minimum_detectable_effect(cv, n, alpha, power).is_some_and(|d| d <= effect);
    super::planning::smallest_count(2, maximum, fits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded::SeededRng;
    use crate::tdist::two_sided_p;

    #[test]
    fn large_samples_reach_the_normal_closed_form_and_lehrs_rule() {
        // z(0.975) + z(0.8) = 1.959964 + 0.841621 = 2.801585 (qnorm in R).
        let n = 100_000;
        let got = minimum_detectable_effect(1.0, n, 0.05, 0.8).unwrap();
        let closed = 2.801585 * (2.0 / n as f64).sqrt();
        assert!((got / closed - 1.0).abs() < 1e-4, "{got} vs {closed}");
        // Lehr: n = 16 / Δ² per group detects Δ standard deviations (α 5 %, power 80 %);
        // 2.8016² · 2 = 15.70 ≈ 16, so at n = 16 the detectable Δ is just below 1 (normal)
        // and just above it with the t test (ν = 30).
        let lehr = minimum_detectable_effect(1.0, 16, 0.05, 0.8).unwrap();
        assert!(lehr > 0.99 && lehr < 1.05, "{lehr}");
        assert_eq!(minimum_detectable_effect(0.1, 1, 0.05, 0.8), None);
        assert_eq!(minimum_detectable_effect(f64::NAN, 5, 0.05, 0.8), None);
        assert_eq!(minimum_detectable_effect(0.0, 5, 0.05, 0.8), Some(0.0));
    }

    // The exact MDE with scipy's noncentral t (scipy 1.17.1):
    // python3 -c "
    // from scipy.stats import nct, t; from scipy.optimize import brentq; import math
    // def power(l, n, a=0.05):
    //     df = 2*(n-1); c = t.ppf(1-a/2, df); return nct.sf(c, df, l) + nct.cdf(-c, df, l)
    // def mde(cv, n, a=0.05, p=0.8):
    //     return brentq(lambda l: power(l, n, a) - p, 0, 8, xtol=1e-14) * cv * math.sqrt(2/n)
    // print([repr(mde(1.0, n)) for n in (2, 3, 5, 10, 16, 100)])
    // print([next(n for n in range(2,10**5) if mde(cv,n)<=e) for cv,e in
    //        ((.01,.01),(.014,.01),(.05,.01),(.0038,.01),(1.0,1.0),(0.0141421,0.01))])
    // print(power(t.ppf(.975,2)+t.ppf(.8,2), 2))"
    // prints 5.653489266197127, 3.0708922663636877, 2.0244393393845423, 1.3249473925792303,
    // 1.02366374400154, 0.398138137568236; [17, 32, 394, 4, 17, 33]; 0.7662710461269014.
    const SCIPY_MDE: &[(usize, f64)] = &[
        (2, 5.653489266197127),
        (3, 3.0708922663636877),
        (5, 2.0244393393845423),
        (10, 1.3249473925792303),
        (16, 1.02366374400154),
        (100, 0.398138137568236),
    ];

    #[test]
    fn mde_matches_scipys_noncentral_t() {
        for &(n, want) in SCIPY_MDE {
            let got = minimum_detectable_effect(1.0, n, 0.05, 0.8).unwrap();
            assert!((got / want - 1.0).abs() < 1e-6, "n = {n}: {got} vs {want}");
        }
        // The t + t shortcut's multiplier at n = 2 has 76.6 % power, not 80 %.
        let shortcut = t_quantile(0.975, 2.0) + t_quantile(0.8, 2.0);
        let p = two_sample_power(shortcut, 2.0, 0.05).unwrap();
        assert!((p - 0.7662710461269014).abs() < 1e-6, "{p}");
    }

    #[test]
    fn counts_to_detect_match_an_exhaustive_search_with_scipy() {
        // The exhaustive search above (SCIPY_MDE's command) gives [17, 32, 394, 4, 17].
        for (cv, effect, n) in [
            (0.01, 0.01, 17),
            (0.014, 0.01, 32),
            (0.05, 0.01, 394),
            (0.0038, 0.01, 4),
            (1.0, 1.0, 17),
        ] {
            assert_eq!(
                count_to_detect(cv, effect, 0.05, 0.8, 100_000),
                Some(n),
                "cv {cv}"
            );
        }
        assert_eq!(count_to_detect(0.0, 0.01, 0.05, 0.8, 100), Some(2));
        assert_eq!(count_to_detect(0.05, 0.01, 0.05, 0.8, 100), None);
        assert_eq!(count_to_detect(0.05, 0.0, 0.05, 0.8, 100), None);
        assert_eq!(count_to_detect(f64::NAN, 0.01, 0.05, 0.8, 100), None);
    }

    /// Standard normal draws (Box–Muller) from a seeded stream.
    fn normal(rng: &mut SeededRng) -> f64 {
        let u1 = 1.0 - rng.unit_f64();
        let u2 = rng.unit_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    #[test]
    fn an_effect_of_the_mde_is_found_with_the_promised_power() {
        // Simulation: two groups of n normal values (sd = cv · 100 around 100), the second
        // shifted by the MDE; a pooled two-sample t-test at 5 % should reject in ≈ 80 %.
        let mut rng = SeededRng::new(13, "mde");
        for (n, cv) in [(2usize, 0.05), (5, 0.14), (10, 0.05)] {
            let delta = minimum_detectable_effect(cv, n, 0.05, 0.8).unwrap() * 100.0;
            let trials = 4000;
            let mut rejected = 0;
            for _ in 0..trials {
                let a: Vec<f64> = (0..n)
                    .map(|_| 100.0 + 100.0 * cv * normal(&mut rng))
                    .collect();
                let b: Vec<f64> = (0..n)
                    .map(|_| 100.0 + delta + 100.0 * cv * normal(&mut rng))
                    .collect();
                let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
                let ss = |v: &[f64]| {
                    let m = mean(v);
                    v.iter().map(|x| (x - m).powi(2)).sum::<f64>()
                };
                let pooled = (ss(&a) + ss(&b)) / (2.0 * n as f64 - 2.0);
                let t = (mean(&b) - mean(&a)) / (pooled * 2.0 / n as f64).sqrt();
                if two_sided_p(t, 2.0 * n as f64 - 2.0) < 0.05 {
                    rejected += 1;
                }
            }
            let power = rejected as f64 / trials as f64;
            // Exact power: only the simulation's own standard error remains,
            // √(0.8·0.2/4000) = 0.63 points; 2 points is 3 standard errors.
            assert!((power - 0.8).abs() < 0.02, "n = {n}: power {power}");
        }
    }
}
