//! Studentized (bootstrap-t) confidence intervals for the mean of nested data and for the
//! ratio of two such means, resampling the top-level units (the binaries, i.e. the layout
//! seeds) only.
//!
//! Why the top level only: on balanced data the top-level means are independent and
//! identically distributed, and each already carries its executions' and iterations' noise,
//! so resampling them reproduces the variance of the grand mean; resampling every level as
//! well counts the lower levels' variance twice (Davison & Hinkley, "Bootstrap Methods and
//! their Application", 1997, §3.8, who recommend resampling the top stage only). Pairs of
//! variants are resampled jointly: a drawn seed brings both of its variants (the pairing of
//! Georges et al. 2008 §5.2).
//!
//! Why studentized: the percentile interval of a mean over `n` units is too narrow by about
//! `√((n − 1)/n)` and ignores the pivot's heavy tails, so it misses badly with few units.
//! The bootstrap-t interval (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993,
//! §12.5; Davison & Hinkley 1997 §5.2.1, eq. 5.7) pivots each replicate on its own standard
//! error: `t* = (θ* − θ̂)/se*`, and the interval is `[θ̂ − t*_(1−α/2)·se, θ̂ − t*_(α/2)·se]`.
//! Ratios, and means of positive data, are handled on the log scale (`θ = ln` of the
//! statistic, standard errors by the delta method) and mapped back, so their bounds stay
//! positive and a ratio's interval is invariant under swapping base and new.
//!
//! All randomness comes from [`SeededRng`], so a seed reproduces the interval exactly.
//! Coverage measured by seeded simulation of the three-level design is in
//! docs/statistics.md; with fewer than [`ADVISABLE_UNITS`] top-level units it falls short.

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::hierarchy::Hierarchy;
use super::sample::mean;
use crate::seeded::SeededRng;

/// Fewest top-level units at which the report advises the bootstrap: Kalibera & Jones'
/// minimum, where the simulated coverage of a 95 % interval is 94.7–94.8 % under normal
/// effects (93.5 % under lognormal ones; docs/statistics.md). With 3 units the interval
/// cannot be formed; with 4 its bootstrap distribution has only 35 distinct resamples and
/// 2 in 10 000 simulated intervals could not be formed.
pub const ADVISABLE_UNITS: usize = 5;

/// A studentized bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BootstrapCi {
    /// The statistic on the original data.
    pub estimate: f64,
    /// Lower bound: `θ̂ − t*_(1−α/2)·se` mapped back from the working scale.
    pub lower: f64,
    /// Upper bound: `θ̂ − t*_(α/2)·se` mapped back.
    pub upper: f64,
    /// Number of resamples.
    pub resamples: usize,
    /// `1 − α`.
    pub confidence: f64,
}

/// A statistic on its working scale with its standard error.
#[derive(Debug, Clone, Copy)]
struct Pivot {
    theta: f64,
    se: f64,
}

/// Sample variance (n − 1 divisor) of `x`.
fn variance(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64
}

/// The mean of `x` as a pivot: on the log scale when `log` (delta method:
/// `se(ln x̄) = s/(√n·x̄)`), else on its own.
fn mean_pivot(x: &[f64], log: bool) -> Pivot {
    let (m, se) = (mean(x), (variance(x) / x.len() as f64).sqrt());
    if log {
        Pivot {
            theta: m.ln(),
            se: se / m,
        }
    } else {
        Pivot { theta: m, se }
    }
}

/// `ln(n̄/b̄)` of independent samples, `se² = s_n²/(N_n n̄²) + s_b²/(N_b b̄²)` (delta method).
fn ratio_pivot(base: &[f64], new: &[f64]) -> Pivot {
    let (b, n) = (mean_pivot(base, true), mean_pivot(new, true));
    Pivot {
        theta: n.theta - b.theta,
        se: (b.se * b.se + n.se * n.se).sqrt(),
    }
}

/// `ln(n̄/b̄)` of matched pairs, `se² = var(n_k/n̄ − b_k/b̄)/N` (delta method with the
/// pairs' covariance).
fn paired_pivot(pairs: &[(f64, f64)]) -> Pivot {
    let count = pairs.len() as f64;
    let b = pairs.iter().map(|p| p.0).sum::<f64>() / count;
    let n = pairs.iter().map(|p| p.1).sum::<f64>() / count;
    let d: Vec<f64> = pairs.iter().map(|p| p.1 / n - p.0 / b).collect();
    Pivot {
        theta: (n / b).ln(),
        se: (variance(&d) / count).sqrt(),
    }
}

/// `n` units drawn with replacement from `x`.
fn draw<T: Copy>(x: &[T], rng: &mut SeededRng) -> Vec<T> {
    (0..x.len())
        .map(|_| x[rng.below(x.len() as u64) as usize])
        .collect()
}

fn check(confidence: f64, resamples: usize) -> Result<(), StatsError> {
    check_confidence(confidence)?;
    at_least("a studentized bootstrap", "resamples", 100, resamples)?;
    Ok(())
}

/// The bootstrap-t interval on the working scale from the original pivot and `resamples`
/// replicate pivots (Davison & Hinkley 1997 eq. 5.7). A replicate with no spread (every
/// drawn unit alike) has `t* = ±∞` unless it reproduces `θ̂`: such replicates are real
/// outcomes of the resampling and are kept, so the interval is unbounded (an error) when
/// they reach the tail quantiles, as with very few units.
fn studentized(
    original: Pivot,
    resamples: usize,
    confidence: f64,
    mut replicate: impl FnMut() -> Pivot,
) -> Result<(f64, f64), StatsError> {
    if !(original.theta.is_finite() && original.se.is_finite()) {
        return Err(StatsError::Degenerate(
            "the statistic or its standard error is not finite".into(),
        ));
    }
    if original.se == 0.0 {
        return Ok((original.theta, original.theta));
    }
    // A replicate of identical units has a standard error of zero, or a rounding residue
    // (1e-16 of the working scale's magnitude) that would pass as a finite, huge t: below
    // this share of the original's it counts as zero.
    let no_spread = original.se * ROUNDING_SHARE;
    let mut t: Vec<f64> = (0..resamples)
        .map(|_| {
            let r = replicate();
            let diff = r.theta - original.theta;
            if diff == 0.0 {
                0.0
            } else if r.se <= no_spread {
                diff.signum() * f64::INFINITY
            } else {
                diff / r.se
            }
        })
        .collect();
    t.sort_by(f64::total_cmp);
    // Order statistic ⌈(B + 1)p⌉ (Davison & Hinkley 1997 §5.2.1), clamped to 1..=B; the
    // 1e-9 keeps rounding in 1 − confidence from pushing a whole (B + 1)p up by one.
    let order = |p: f64| {
        let k = (((resamples + 1) as f64 * p - 1e-9).ceil() as usize).clamp(1, resamples);
        t[k - 1]
    };
    let alpha = 1.0 - confidence;
    let (t_low, t_high) = (order(alpha / 2.0), order(1.0 - alpha / 2.0));
    let bounds = (
        original.theta - t_high * original.se,
        original.theta - t_low * original.se,
    );
    if bounds.0.is_finite() && bounds.1.is_finite() {
        Ok(bounds)
    } else {
        Err(StatsError::Degenerate(format!(
            "too few distinct units for a {} % studentized bootstrap: resamples without \
             spread reach its tails",
            100.0 * confidence
        )))
    }
}

/// A replicate's standard error below this share of the original's is a rounding residue of
/// a draw without spread (see [`studentized`]).
const ROUNDING_SHARE: f64 = 1e-9;

/// The interval from working-scale bounds: exponentiated when the pivot was on the log scale;
/// an error when the way back overflows (a log-scale bound beyond ±709 is no interval of a
/// time: "0 to ∞").
fn finish(
    estimate: f64,
    bounds: (f64, f64),
    log: bool,
    resamples: usize,
    confidence: f64,
) -> Result<BootstrapCi, StatsError> {
    let back = |x: f64| if log { x.exp() } else { x };
    let (low, high) = (back(bounds.0), back(bounds.1));
    if !(low.is_finite() && high.is_finite()) || (log && low <= 0.0) {
        return Err(StatsError::Degenerate(format!(
            "the {} % studentized bootstrap interval is unbounded: resamples with almost no \
             spread reach its tails",
            100.0 * confidence
        )));
    }
    Ok(BootstrapCi {
        estimate,
        lower: low,
        upper: high,
        resamples,
        confidence,
    })
}

/// Checks `x` has at least two units and, for a ratio, only positive means (times).
fn check_units(method: &'static str, x: &[f64], positive: bool) -> Result<(), StatsError> {
    at_least(method, "top-level units", 2, x.len())?;
    if positive && !x.iter().all(|&v| v > 0.0 && v.is_finite()) {
        return Err(StatsError::Domain(format!(
            "{method} needs positive, finite means"
        )));
    }
    Ok(())
}

/// Studentized bootstrap CI of the mean of `h`, resampling its top-level units (module
/// docs). On the log scale when every top-level mean is positive, so the bounds stay
/// positive; on the plain scale otherwise.
pub fn mean_ci(
    h: &Hierarchy,
    confidence: f64,
    resamples: usize,
    rng: &mut SeededRng,
) -> Result<BootstrapCi, StatsError> {
    check(confidence, resamples)?;
    let units = h.top_means();
    check_units("a studentized bootstrap of the mean", &units, false)?;
    let log = units.iter().all(|&v| v > 0.0);
    let bounds = studentized(mean_pivot(&units, log), resamples, confidence, || {
        mean_pivot(&draw(&units, rng), log)
    })?;
    finish(h.mean(), bounds, log, resamples, confidence)
}

/// Studentized bootstrap CI of `mean(new) / mean(base)` for unmatched data: each side's
/// top-level units are resampled independently, the pivot is the log ratio (module docs).
/// Both sides need at least two top-level units and positive means (times).
pub fn ratio_ci(
    base: &Hierarchy,
    new: &Hierarchy,
    confidence: f64,
    resamples: usize,
    rng: &mut SeededRng,
) -> Result<BootstrapCi, StatsError> {
    check(confidence, resamples)?;
    let (b, n) = (base.top_means(), new.top_means());
    let method = "a studentized bootstrap of a ratio";
    check_units(method, &b, true)?;
    check_units(method, &n, true)?;
    let bounds = studentized(ratio_pivot(&b, &n), resamples, confidence, || {
        let rb = draw(&b, rng);
        ratio_pivot(&rb, &draw(&n, rng))
    })?;
    finish(
        new.mean() / base.mean(),
        bounds,
        true,
        resamples,
        confidence,
    )
}

/// Studentized bootstrap CI of `mean(new) / mean(base)` for data matched by top-level unit
/// (seed `s` of the base with seed `s` of the new variant): each replicate draws seeds with
/// replacement *jointly*, so a drawn seed brings its pair and the layout effect the two
/// variants share stays out of the interval (module docs). Unit `k` of `base` is paired with
/// unit `k` of `new`; both need the same number of top-level units (at least two) and
/// positive means. Their lower levels may differ in size.
pub fn paired_ratio_ci(
    base: &Hierarchy,
    new: &Hierarchy,
    confidence: f64,
    resamples: usize,
    rng: &mut SeededRng,
) -> Result<BootstrapCi, StatsError> {
    check(confidence, resamples)?;
    let (b, n) = (base.top_means(), new.top_means());
    if b.len() != n.len() {
        return Err(StatsError::Domain(format!(
            "a paired bootstrap needs the same top-level units on both sides, got {} and {}",
            b.len(),
            n.len()
        )));
    }
    let method = "a paired studentized bootstrap";
    check_units(method, &b, true)?;
    check_units(method, &n, true)?;
    let pairs: Vec<(f64, f64)> = b.into_iter().zip(n).collect();
    let bounds = studentized(paired_pivot(&pairs), resamples, confidence, || {
        paired_pivot(&draw(&pairs, rng))
    })?;
    finish(
        new.mean() / base.mean(),
        bounds,
        true,
        resamples,
        confidence,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::mean_interval;

    fn sample(n: usize) -> Vec<f64> {
        // Deterministic, roughly symmetric values.
        (1..=n)
            .map(|i| 10.0 + (i as f64 * 1.3).sin() + (i as f64 * 0.7).cos() / 2.0)
            .collect()
    }

    #[test]
    fn close_to_the_t_interval_on_a_large_plain_sample() {
        let x = sample(400);
        let h = Hierarchy::from_nested(x.clone(), vec![400]).unwrap();
        let mut rng = SeededRng::new(1, "bootstrap-test");
        let b = mean_ci(&h, 0.95, 4000, &mut rng).unwrap();
        let t = mean_interval(&x, 0.95).unwrap();
        assert_eq!(b.estimate, t.mean);
        let bw = b.upper - b.lower;
        let tw = t.upper - t.lower;
        assert!((bw / tw - 1.0).abs() < 0.1, "widths {bw} vs {tw}");
        assert!(b.lower < t.mean && t.mean < b.upper);
    }

    #[test]
    fn only_the_top_level_is_resampled() {
        // Two data sets with the same top-level means but different lower levels (one flat,
        // one with large execution noise) give the same interval from the same seed.
        let tops = [3.0, 5.0, 4.0, 9.0, 6.0, 7.0];
        let flat: Vec<f64> = tops.iter().flat_map(|&v| [v; 4]).collect();
        let noisy: Vec<f64> = tops
            .iter()
            .flat_map(|&v| [v - 2.0, v + 2.0, v + 1.0, v - 1.0])
            .collect();
        let a = Hierarchy::from_nested(flat, vec![2, 2, 6]).unwrap();
        let b = Hierarchy::from_nested(noisy, vec![2, 2, 6]).unwrap();
        let ca = mean_ci(&a, 0.95, 999, &mut SeededRng::new(2, "top")).unwrap();
        let cb = mean_ci(&b, 0.95, 999, &mut SeededRng::new(2, "top")).unwrap();
        assert!((ca.lower - cb.lower).abs() < 1e-12 && (ca.upper - cb.upper).abs() < 1e-12);
        assert!(ca.lower < 34.0 / 6.0 && 34.0 / 6.0 < ca.upper, "{ca:?}");
    }

    #[test]
    fn a_positive_mean_keeps_a_positive_interval() {
        // Ten skewed positive unit means: the t interval (mean 5.3, s 15.7) reaches below
        // zero, the log-scale bootstrap stays above it.
        let x = [0.1, 0.2, 0.15, 0.12, 50.0, 0.3, 0.11, 0.25, 1.5, 0.4];
        let t = mean_interval(&x, 0.95).unwrap();
        assert!(t.lower < 0.0);
        let h = Hierarchy::from_nested(x.to_vec(), vec![10]).unwrap();
        let b = mean_ci(&h, 0.95, 2000, &mut SeededRng::new(3, "pos")).unwrap();
        assert!(
            b.lower > 0.0 && b.lower < b.estimate && b.estimate < b.upper,
            "{b:?}"
        );
        // Data with a negative unit are handled on the plain scale.
        let y = Hierarchy::from_nested(vec![-1.0, 2.0, 0.5, 1.0, 3.0], vec![5]).unwrap();
        let c = mean_ci(&y, 0.95, 2000, &mut SeededRng::new(3, "neg")).unwrap();
        assert!(c.lower < 1.1 && 1.1 < c.upper, "{c:?}");
    }

    #[test]
    fn seeded_and_reproducible() {
        let h = Hierarchy::from_nested(sample(24), vec![4, 6]).unwrap();
        let a = mean_ci(&h, 0.95, 300, &mut SeededRng::new(7, "bootstrap")).unwrap();
        let b = mean_ci(&h, 0.95, 300, &mut SeededRng::new(7, "bootstrap")).unwrap();
        assert_eq!(a, b);
        assert!(mean_ci(&h, 0.95, 10, &mut SeededRng::new(7, "x")).is_err());
        let one = Hierarchy::from_nested(sample(4), vec![4, 1]).unwrap();
        assert!(mean_ci(&one, 0.95, 300, &mut SeededRng::new(7, "x")).is_err());
        // Three units: 1 resample in 9 has no spread and reaches the tails: no interval.
        let three = Hierarchy::from_nested(sample(6), vec![2, 3]).unwrap();
        assert!(mean_ci(&three, 0.95, 999, &mut SeededRng::new(7, "x")).is_err());
    }

    #[test]
    fn ratio_of_a_scaled_copy_is_the_scale() {
        let base = Hierarchy::from_nested(sample(60), vec![6, 10]).unwrap();
        let scaled: Vec<f64> = base.values().iter().map(|v| v * 0.8).collect();
        let new = Hierarchy::from_nested(scaled, vec![6, 10]).unwrap();
        let r = ratio_ci(&base, &new, 0.95, 1000, &mut SeededRng::new(3, "r")).unwrap();
        assert!((r.estimate - 0.8).abs() < 1e-12);
        assert!(r.lower < 0.8 && 0.8 < r.upper);
        // Paired, every seed's ratio is exactly 0.8: no spread, a point interval.
        let p = paired_ratio_ci(&base, &new, 0.95, 1000, &mut SeededRng::new(3, "r")).unwrap();
        assert!(
            (p.lower - 0.8).abs() < 1e-12 && (p.upper - 0.8).abs() < 1e-12,
            "{p:?}"
        );
        let negative = Hierarchy::from_nested(vec![-1.0; 60], vec![6, 10]).unwrap();
        assert!(ratio_ci(&base, &negative, 0.95, 1000, &mut SeededRng::new(3, "r")).is_err());
    }

    #[test]
    fn swapping_the_sides_inverts_a_paired_interval() {
        // On the log scale the pivot of base/new is minus that of new/base with the same
        // draws, so the interval is the reciprocal one (B = 999: (B + 1)·0.025 is whole).
        let base = Hierarchy::from_nested(sample(12), vec![12]).unwrap();
        let new: Vec<f64> = sample(12)
            .iter()
            .enumerate()
            .map(|(i, v)| 0.9 * v + (i as f64).cos())
            .collect();
        let new = Hierarchy::from_nested(new, vec![12]).unwrap();
        let ab = paired_ratio_ci(&base, &new, 0.95, 999, &mut SeededRng::new(6, "s")).unwrap();
        let ba = paired_ratio_ci(&new, &base, 0.95, 999, &mut SeededRng::new(6, "s")).unwrap();
        assert!((ab.lower * ba.upper - 1.0).abs() < 1e-12, "{ab:?} {ba:?}");
        assert!((ab.upper * ba.lower - 1.0).abs() < 1e-12, "{ab:?} {ba:?}");
    }

    #[test]
    fn paired_resampling_keeps_the_shared_layout_effect_out() {
        // Per-unit effects shared by both sides (large), the new side 0.9 × the base plus a
        // little execution noise: drawing pairs jointly gives a narrow interval around 0.9,
        // drawing the sides independently a wide one.
        let unit = |i: usize| 100.0 + 15.0 * (i as f64 * 1.7).sin();
        let noise = |i: usize, j: usize| ((i * 7 + j * 3) as f64).cos() * 0.2;
        let base: Vec<f64> = (0..30)
            .flat_map(|i| (0..5).map(move |j| unit(i) + noise(i, j)))
            .collect();
        let new: Vec<f64> = (0..30)
            .flat_map(|i| (0..5).map(move |j| 0.9 * unit(i) + noise(j, i)))
            .collect();
        let base = Hierarchy::from_nested(base, vec![5, 30]).unwrap();
        let new = Hierarchy::from_nested(new, vec![5, 30]).unwrap();
        let paired = paired_ratio_ci(&base, &new, 0.95, 2000, &mut SeededRng::new(4, "p")).unwrap();
        let apart = ratio_ci(&base, &new, 0.95, 2000, &mut SeededRng::new(4, "p")).unwrap();
        assert!(paired.lower < 0.9 && 0.9 < paired.upper, "{paired:?}");
        assert!(paired.upper - paired.lower < 0.01, "{paired:?}");
        assert!(apart.upper - apart.lower > 5.0 * (paired.upper - paired.lower));
        // Reproducible from the seed.
        let again = paired_ratio_ci(&base, &new, 0.95, 2000, &mut SeededRng::new(4, "p")).unwrap();
        assert_eq!(paired, again);
    }

    #[test]
    fn paired_bootstrap_agrees_with_paired_fieller_on_a_large_sample() {
        // 200 matched units with one value each: the studentized interval and Fieller's
        // paired interval estimate the same thing, their widths agree within 10 %.
        let base: Vec<f64> = (0..200)
            .map(|i| 50.0 + 5.0 * (i as f64 * 0.9).sin())
            .collect();
        let new: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, v)| 0.95 * v + 2.0 * (i as f64 * 2.1).cos())
            .collect();
        let f = crate::paired_ratio::paired_ratio(&base, &new, 0.95).unwrap();
        let (flo, fhi) = f.bounds().unwrap();
        let hb = Hierarchy::from_nested(base, vec![200]).unwrap();
        let hn = Hierarchy::from_nested(new, vec![200]).unwrap();
        let b = paired_ratio_ci(&hb, &hn, 0.95, 4000, &mut SeededRng::new(5, "q")).unwrap();
        assert!(
            ((b.upper - b.lower) / (fhi - flo) - 1.0).abs() < 0.1,
            "{b:?} {flo} {fhi}"
        );
        assert!(paired_ratio_ci(&hb, &hb, 0.95, 50, &mut SeededRng::new(5, "q")).is_err());
    }
}
