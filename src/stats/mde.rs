//! The minimum detectable effect: the smallest difference between two means that a
//! two-sided test at level α finds with probability (power) 1 − β, given the spread of the
//! measurements and how many there are.
//!
//! For two groups of `n` independent values with standard deviation σ, the difference of
//! the means has standard error σ·√(2/n). A difference δ is found with power 1 − β when
//! δ / (σ·√(2/n)) exceeds the test's critical value by the (1 − β) quantile, which gives
//!
//! ```text
//! δ = (t(1 − α/2; ν) + t(1 − β; ν)) · σ · √(2/n),   ν = 2(n − 1)
//! ```
//!
//! (Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed. 1988, §2.4 and
//! eq. 2.4.1 with normal quantiles; van Belle, *Statistical Rules of Thumb*, 2nd ed. 2008,
//! §2.3 "Lehr's rule", n = 16/Δ² for α = 0.05 and power 0.8; the t quantiles in place of the
//! normal ones are the usual small-sample correction, Snedecor & Cochran, *Statistical
//! Methods*, 8th ed. 1989, §6.14). Divided by the mean, with σ/mean the coefficient of
//! variation, δ is the relative effect a report can promise to see.

use super::tdist::t_quantile;

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
    let multiplier = t_quantile(1.0 - alpha / 2.0, df) + t_quantile(power, df);
    Some(multiplier * cv * (2.0 / n as f64).sqrt())
}

/// The smallest count `n` in `2..=maximum` of values per group whose minimum detectable
/// effect ([`minimum_detectable_effect`], same formula and sources) is at most `effect`:
/// how many executions per binary a difference of `effect` between two binaries needs when
/// executions vary by `cv`. `None` when even `maximum` is not enough or the inputs are
/// outside the domain of [`minimum_detectable_effect`] or `effect` is not positive.
///
/// The effect shrinks as `n` grows (both the t quantiles and `√(2/n)` decrease), so the
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
    use crate::stats::tdist::two_sided_p;

    #[test]
    fn large_samples_reach_the_normal_closed_form_and_lehrs_rule() {
        // z(0.975) + z(0.8) = 1.959964 + 0.841621 = 2.801585 (qnorm in R).
        let n = 100_000;
        let got = minimum_detectable_effect(1.0, n, 0.05, 0.8).unwrap();
        let closed = 2.801585 * (2.0 / n as f64).sqrt();
        assert!((got / closed - 1.0).abs() < 1e-4, "{got} vs {closed}");
        // Lehr: n = 16 / Δ² per group detects Δ standard deviations (α 5 %, power 80 %);
        // 2.8016² · 2 = 15.70 ≈ 16, so at n = 16 the detectable Δ is just below 1 (normal)
        // and just above it with t quantiles (ν = 30).
        let lehr = minimum_detectable_effect(1.0, 16, 0.05, 0.8).unwrap();
        assert!(lehr > 0.99 && lehr < 1.05, "{lehr}");
        assert_eq!(minimum_detectable_effect(0.1, 1, 0.05, 0.8), None);
        assert_eq!(minimum_detectable_effect(f64::NAN, 5, 0.05, 0.8), None);
        assert_eq!(minimum_detectable_effect(0.0, 5, 0.05, 0.8), Some(0.0));
    }

    #[test]
    fn counts_to_detect_match_an_exhaustive_search_with_scipy() {
        // python3 -c "from scipy.stats import t; import math
        // mde=lambda cv,n: (t.ppf(.975,2*(n-1))+t.ppf(.8,2*(n-1)))*cv*math.sqrt(2/n)
        // print([next(n for n in range(2,10**5) if mde(cv,.01)<=.01) for cv in
        //        (.01,.014,.05,.0038)])"  (with mde(cv, n)) prints [17, 32, 394, 4];
        // and for cv = 1, effect 1 (Lehr's 16 with normal quantiles): 17.
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
        for (n, cv) in [(5usize, 0.14), (10, 0.05)] {
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
            // The t approximation is slightly conservative or liberal by about a point;
            // the simulation's own standard error is √(0.8·0.2/4000) = 0.6 points.
            assert!((power - 0.8).abs() < 0.03, "n = {n}: power {power}");
        }
    }
}
