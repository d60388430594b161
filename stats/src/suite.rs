//! Summaries over a suite of benchmarks, after Touati, Worms & Briais, "The Speedup-Test"
//! (§2–4): the median-based speedup of one program, the weighted overall performance gain
//! `G` of a suite, and the confidence interval of the proportion of programs that got
//! faster (Wilson's score interval, with the continuity correction R's `prop.test` uses).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use super::error::{at_least, check_confidence, StatsError};
use super::sample::median;

/// Touati §2: the speedup `m(P) / m(P')` of medians of the old and new execution times
/// (> 1 means the new program is faster). Medians resist the outliers of skewed timings.
pub fn median_speedup(old: &[f64], new: &[f64]) -> Result<f64, StatsError> {
    at_least(
        "a median speedup",
        "times per program",
        1,
        old.len().min(new.len()),
    )?;
    Ok(median(old) / median(new))
}

/// One program of the suite: its weight and its old and new (median) execution times.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProgramTimes {
    /// `W(P_j)`, any non-negative number (normalised by [`overall_gain`]).
    pub weight: f64,
    /// `ExecutionTime(P_j)` before the optimisation.
    pub old: f64,
    /// `ExecutionTime(P'_j)` after.
    pub new: f64,
}

/// Touati §3: the overall performance gain factor
/// `G = 1 − Σ W_j t'_j / Σ W_j t_j` (weights need not sum to one: they cancel).
/// Positive means time saved overall; it is a gain factor, not an average speedup.
///
/// ```
/// use layoutrand_stats::suite::{overall_gain, ProgramTimes};
/// // One program of 10 s made 8 s, one of 1 s made 2 s, weighted equally:
/// // G = 1 − (8 + 2) / (10 + 1) = 1/11 saved overall, although one program got slower.
/// let programs = [
///     ProgramTimes { weight: 1.0, old: 10.0, new: 8.0 },
///     ProgramTimes { weight: 1.0, old: 1.0, new: 2.0 },
/// ];
/// assert!((overall_gain(&programs).unwrap() - 1.0 / 11.0).abs() < 1e-12);
/// ```
pub fn overall_gain(programs: &[ProgramTimes]) -> Result<f64, StatsError> {
    at_least("the overall gain", "programs", 1, programs.len())?;
    if programs
        .iter()
        .any(|p| !(p.weight >= 0.0 && p.old > 0.0 && p.new > 0.0))
    {
        return Err(StatsError::Domain(
            "the overall gain needs non-negative weights and positive times".into(),
        ));
    }
    let new: f64 = programs.iter().map(|p| p.weight * p.new).sum();
    let old: f64 = programs.iter().map(|p| p.weight * p.old).sum();
    Ok(1.0 - new / old)
}

/// Touati's time-proportional weights `W_j = t_j / Σ t_i` (long programs count more,
/// because absolute time is what an optimisation saves).
pub fn time_weights(old_times: &[f64]) -> Vec<f64> {
    let total: f64 = old_times.iter().sum();
    old_times.iter().map(|t| t / total).collect()
}

/// A confidence interval for a proportion.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProportionCi {
    /// `C = successes / n`.
    pub proportion: f64,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// `1 − α`.
    pub confidence: f64,
    /// Whether the continuity correction was applied.
    pub continuity_correction: bool,
}

fn z_quantile(confidence: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(1.0 - (1.0 - confidence) / 2.0)
}

/// Wilson's score interval for `successes` out of `n` (Touati §4's proportion of
/// accelerated programs). With `continuity_correction` it is the interval R's
/// `prop.test(x, n)` prints (correction 1/2; R lowers it only when x is within 1/2 of n/2).
/// Unlike the Wald interval `C ± z sqrt(C(1−C)/n)` of the paper, it stays inside [0, 1] and
/// behaves for small `n·C`, so the paper's `n·C ≥ 10` restriction is not needed.
///
/// ```
/// // 8 of 10 programs sped up: Wilson's 95 % interval is 49.0 % to 94.3 %.
/// let ci = layoutrand_stats::suite::wilson_ci(8, 10, 0.95, false).unwrap();
/// assert!((ci.lower - 0.49016247153664183).abs() < 1e-9);
/// assert!((ci.upper - 0.9433178485456247).abs() < 1e-9);
/// ```
pub fn wilson_ci(
    successes: u64,
    n: u64,
    confidence: f64,
    continuity_correction: bool,
) -> Result<ProportionCi, StatsError> {
    check_confidence(confidence)?;
    if n == 0 || successes > n {
        return Err(StatsError::Domain(format!(
            "a proportion needs 0 ≤ successes ({successes}) ≤ n ({n}) and n > 0"
        )));
    }
    let nf = n as f64;
    let c = successes as f64 / nf;
    let z = z_quantile(confidence);
    let yates = if continuity_correction { 0.5 } else { 0.0 };
    let z22n = z * z / (2.0 * nf);
    let end = |pc: f64, sign: f64| -> f64 {
        (pc + z22n + sign * z * (pc * (1.0 - pc) / nf + z22n / (2.0 * nf)).sqrt())
            / (1.0 + 2.0 * z22n)
    };
    let upper_c = c + yates / nf;
    let lower_c = c - yates / nf;
    Ok(ProportionCi {
        proportion: c,
        lower: if lower_c <= 0.0 {
            0.0
        } else {
            end(lower_c, -1.0)
        },
        upper: if upper_c >= 1.0 {
            1.0
        } else {
            end(upper_c, 1.0)
        },
        confidence,
        continuity_correction,
    })
}

/// Touati §4: how many benchmarks are needed to know the proportion `c` within `±precision`
/// at `confidence`: `⌈z² c(1 − c) / precision²⌉`.
pub fn benchmarks_needed(c: f64, precision: f64, confidence: f64) -> Result<u64, StatsError> {
    check_confidence(confidence)?;
    if !(0.0..=1.0).contains(&c) || precision.is_nan() || precision <= 0.0 {
        return Err(StatsError::Domain(format!(
            "need 0 ≤ proportion ({c}) ≤ 1 and precision ({precision}) > 0"
        )));
    }
    let z = z_quantile(confidence);
    Ok((z * z * c * (1.0 - c) / (precision * precision)).ceil() as u64)
}

/// A suite's geometric mean over its cases (or the ratio of two), with its interval over the
/// top-level units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SuiteMean {
    /// The geometric mean (or the ratio of two).
    pub estimate: f64,
    /// Lower end of its interval (always above zero: it is an exponential).
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// The units (binaries) it rests on; for a ratio, the fewer of the two sides'.
    pub units: usize,
    /// The standard deviation of the units' log scores: about how much the suite's mean
    /// varies from one unit (layout) to another, relatively, execution noise included (for
    /// a ratio, the larger of the two sides').
    pub log_sd: f64,
    /// The standard error of the mean log score (of their difference, for a ratio).
    pub log_std_error: f64,
    /// The degrees of freedom of the t quantile behind the interval (Welch's, for a ratio).
    pub df: f64,
}

/// The log score of each unit: the mean over cases of the log of the unit's mean of that
/// case (`case_means[unit][case]`, all positive, every unit with every case).
fn unit_log_scores(case_means: &[Vec<f64>]) -> Result<Vec<f64>, StatsError> {
    let cases = case_means.first().map_or(0, Vec::len);
    at_least("a suite's geometric mean", "cases", 1, cases)?;
    if case_means.iter().any(|u| u.len() != cases) {
        return Err(StatsError::Domain(
            "a suite's geometric mean needs every unit to have every case".into(),
        ));
    }
    if case_means
        .iter()
        .flatten()
        .any(|m| !(*m > 0.0 && m.is_finite()))
    {
        return Err(StatsError::Domain(
            "a suite's geometric mean needs positive, finite case means".into(),
        ));
    }
    Ok(case_means
        .iter()
        .map(|u| u.iter().map(|m| m.ln()).sum::<f64>() / cases as f64)
        .collect())
}

/// The geometric mean over a suite's cases with a t interval over the top-level units
/// (Kalibera & Jones eq. 4 applied to each unit's log score, the suite summary Touati et al.
/// §3 and Fleming & Wallace 1986 recommend for ratios of times): each unit (a randomised
/// binary) gives the mean over cases of the log of its mean of that case; their mean `ḡ`
/// with `ḡ ± t_{1−α/2, n−1} s / √n` is exponentiated. The cases of one binary share its
/// layout, so the binary is the independent unit and the cases' correlation within it is
/// carried by its score. Needs two units.
///
/// ```
/// // Two cases; units score (ln 1 + ln 4)/2 = ln 2 and (ln 2 + ln 8)/2 = ln 4.
/// let m = layoutrand_stats::suite::geometric_mean_over_units(
///     &[vec![1.0, 4.0], vec![2.0, 8.0]], 0.95).unwrap();
/// assert!((m.estimate - 8f64.sqrt()).abs() < 1e-12);
/// // s = ln 2 / √2, so the half-width on the log scale is t(0.975, 1) · ln 2 / 2.
/// let half = 12.706204736174705 * 2f64.ln() / 2.0;
/// assert!((m.upper - (8f64.sqrt().ln() + half).exp()).abs() < 1e-9);
/// ```
pub fn geometric_mean_over_units(
    case_means: &[Vec<f64>],
    confidence: f64,
) -> Result<SuiteMean, StatsError> {
    check_confidence(confidence)?;
    let scores = unit_log_scores(case_means)?;
    let ci = super::sample::mean_interval(&scores, confidence)?;
    let log_sd = super::sample::variance(&scores).sqrt();
    Ok(SuiteMean {
        estimate: ci.mean.exp(),
        lower: ci.lower.exp(),
        upper: ci.upper.exp(),
        units: scores.len(),
        log_sd,
        log_std_error: log_sd / (scores.len() as f64).sqrt(),
        df: ci.df,
    })
}

/// The ratio `new / base` of two suites' geometric means over the same cases, with Welch's
/// interval of the difference of the units' mean log scores (Welch 1947; the units of the
/// two sides are different binaries, independent), exponentiated: a ratio interval that
/// never reaches zero. Needs two units on each side.
pub fn geometric_mean_ratio(
    base: &[Vec<f64>],
    new: &[Vec<f64>],
    confidence: f64,
) -> Result<SuiteMean, StatsError> {
    check_confidence(confidence)?;
    let base_scores = unit_log_scores(base)?;
    let new_scores = unit_log_scores(new)?;
    if base.first().map(Vec::len) != new.first().map(Vec::len) {
        return Err(StatsError::Domain(
            "a suites' ratio needs the same cases on both sides".into(),
        ));
    }
    let test = super::welch::welch(&new_scores, &base_scores)?;
    let half = super::tdist::two_sided_critical(confidence, test.df) * test.std_error;
    let sd = |xs: &[f64]| super::sample::variance(xs).sqrt();
    Ok(SuiteMean {
        estimate: test.difference.exp(),
        lower: (test.difference - half).exp(),
        upper: (test.difference + half).exp(),
        units: base_scores.len().min(new_scores.len()),
        log_sd: sd(&base_scores).max(sd(&new_scores)),
        log_std_error: test.std_error,
        df: test.df,
    })
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;

    #[test]
    fn touati_speedups() {
        // Touati §2: s(P) = m(P)/m(P') = 2.046/1.046; and R's median(T2)/median(T1)
        // = 0.5112414 for the reverse direction.
        let t1 = [2.799, 2.046, 1.259, 1.877, 2.244];
        let t2 = [1.046, 0.259, 0.877, 1.244, 1.799];
        assert!(close(
            median_speedup(&t1, &t2).unwrap(),
            2.046 / 1.046,
            1e-15
        ));
        assert!((median_speedup(&t2, &t1).unwrap() - 0.5112414).abs() < 5e-8);
    }

    #[test]
    fn touati_overall_gain_example() {
        // Touati Example 3.1: P1 3 s → 1 s, P2 3600 s → 3428 s. With time weights
        // G = 1 − (3·1 + 3600·3428)/(3·3 + 3600²) = 1 − 12340803/12960009 (paper: 4.77 %
        // with rounded weights); with unit weights G = 1 − 3429/3603 (paper: 4.82 %).
        let old = [3.0, 3600.0];
        let new = [1.0, 3428.0];
        let w = time_weights(&old);
        let programs: Vec<ProgramTimes> = (0..2)
            .map(|j| ProgramTimes {
                weight: w[j],
                old: old[j],
                new: new[j],
            })
            .collect();
        let g = overall_gain(&programs).unwrap();
        assert!(close(g, 1.0 - 12340803.0 / 12960009.0, 1e-13));
        let unit: Vec<ProgramTimes> = programs
            .iter()
            .map(|p| ProgramTimes { weight: 1.0, ..*p })
            .collect();
        assert!(close(
            overall_gain(&unit).unwrap(),
            1.0 - 3429.0 / 3603.0,
            1e-13
        ));
        assert!(overall_gain(&[]).is_err());
    }

    #[test]
    fn wilson_without_correction_matches_statsmodels() {
        // python3 -c "from statsmodels.stats.proportion import proportion_confint as pc;
        //   print(pc(k, n, alpha=1-c, method='wilson'))"   (statsmodels 0.15.0)
        let cases = [
            (28, 30, 0.95, 0.7867654163738308, 0.9815229762087295),
            (0, 10, 0.95, 0.0, 0.2775327998628892),
            (10, 10, 0.95, 0.7224672001371107, 1.0),
            (17, 30, 0.9, 0.4185199205577713, 0.7037835050255487),
            (5, 12, 0.99, 0.15066932985904913, 0.7420051484157378),
            (1, 1, 0.95, 0.20654931437723745, 1.0),
        ];
        for (k, n, c, lo, hi) in cases {
            let w = wilson_ci(k, n, c, false).unwrap();
            assert!((w.lower - lo).abs() < 1e-12, "{k}/{n}: {} vs {lo}", w.lower);
            assert!((w.upper - hi).abs() < 1e-12, "{k}/{n}: {} vs {hi}", w.upper);
        }
    }

    #[test]
    fn wilson_matches_r_prop_test() {
        // Touati Example 4.1 in R: prop.test(17, 30, conf.level=0.90)$conf.int
        // -> 0.40271569854699063 0.71840486794119640; correct=FALSE ->
        // 0.41851992055777149 0.70378350502554865; conf.level=0.5 ->
        // 0.48844423786674823 0.64235721462150353.
        let ci = wilson_ci(17, 30, 0.90, true).unwrap();
        assert!(close(ci.lower, 0.40271569854699063, 1e-10));
        assert!(close(ci.upper, 0.71840486794119640, 1e-10));
        let ci = wilson_ci(17, 30, 0.90, false).unwrap();
        assert!(close(ci.lower, 0.41851992055777149, 1e-10));
        assert!(close(ci.upper, 0.70378350502554865, 1e-10));
        let ci = wilson_ci(17, 30, 0.5, true).unwrap();
        assert!(close(ci.lower, 0.48844423786674823, 1e-10));
        assert!(close(ci.upper, 0.64235721462150353, 1e-10));
        let all = wilson_ci(5, 5, 0.95, true).unwrap();
        assert_eq!(all.upper, 1.0);
        assert!(wilson_ci(6, 5, 0.95, true).is_err());
    }

    #[test]
    fn touati_benchmarks_needed() {
        // Touati Example 4.2: 1.960² · 0.566 · 0.434 / 0.05² = 377.46 → 378.
        assert_eq!(benchmarks_needed(0.566, 0.05, 0.95).unwrap(), 378);
    }

    /// The ratio against scipy 1.17.1's Welch interval of the units' mean log scores:
    /// `python3 -c "import numpy as np, scipy.stats as st; base=[[10,20,30],[11,19,33],
    /// [9.5,21,29],[10.4,20.5,31]]; new=[[9,18,28],[9.2,18.5,27],[8.8,19,29.5]];
    /// gb=[np.mean(np.log(u)) for u in base]; gn=[np.mean(np.log(u)) for u in new];
    /// r=st.ttest_ind(gn,gb,equal_var=False); ci=r.confidence_interval(0.95);
    /// print(np.exp(np.mean(gn)-np.mean(gb)), np.exp(ci.low), np.exp(ci.high))"`.
    #[test]
    fn geometric_mean_ratio_matches_scipy_welch_on_the_log_scores() {
        let base = [
            vec![10.0, 20.0, 30.0],
            vec![11.0, 19.0, 33.0],
            vec![9.5, 21.0, 29.0],
            vec![10.4, 20.5, 31.0],
        ];
        let new = [
            vec![9.0, 18.0, 28.0],
            vec![9.2, 18.5, 27.0],
            vec![8.8, 19.0, 29.5],
        ];
        let r = geometric_mean_ratio(&base, &new, 0.95).unwrap();
        assert!((r.estimate - 0.9056349811656025).abs() < 1e-12);
        assert!((r.lower - 0.868173006737891).abs() < 1e-9);
        assert!((r.upper - 0.9447134531313978).abs() < 1e-9);
        assert_eq!(r.units, 3);
        assert!(geometric_mean_ratio(&base, &[vec![1.0, 2.0]], 0.95).is_err());
        assert!(geometric_mean_over_units(&[vec![1.0, -2.0], vec![1.0, 2.0]], 0.95).is_err());
    }
}
