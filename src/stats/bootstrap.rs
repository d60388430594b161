//! Percentile bootstrap confidence intervals for the mean of nested data and for the ratio
//! of two such means, resampling hierarchically: draw top-level units with replacement,
//! then within each drawn unit draw its children with replacement, down to the values
//! (Davison & Hinkley, "Bootstrap Methods and their Application", 1997, §3.8, strategy of
//! resampling at every stage; Efron & Tibshirani 1993 ch. 13 for the percentile interval).
//!
//! The fallback when the t interval's normality assumption is doubtful (few top-level units
//! and a failed Shapiro–Wilk test). Resampling every stage slightly overstates the variance
//! of the lower levels, so the interval errs on the wide side. All randomness comes from
//! [`SeededRng`], so a seed reproduces the interval exactly.

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::hierarchy::Hierarchy;
use crate::seeded::SeededRng;

/// A percentile bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BootstrapCi {
    /// The statistic on the original data.
    pub estimate: f64,
    /// `α/2` quantile of the bootstrap distribution.
    pub low: f64,
    /// `1 − α/2` quantile.
    pub high: f64,
    /// Number of resamples.
    pub resamples: usize,
    /// `1 − α`.
    pub confidence: f64,
}

/// The mean of one hierarchical resample of `h`.
pub fn resampled_mean(h: &Hierarchy, rng: &mut SeededRng) -> f64 {
    let reps = h.repetitions();
    unit_mean(h.values(), reps, &blocks(reps), reps.len(), 0, rng)
}

/// `block[i]`: number of values under one unit of level `i` (level 0 = a single value).
fn blocks(reps: &[usize]) -> Vec<usize> {
    let mut block = Vec::with_capacity(reps.len() + 1);
    block.push(1usize);
    for &r in reps {
        block.push(block.last().unwrap() * r);
    }
    block
}

/// The mean of top-level unit `k` of `h` with every level below it resampled.
fn resampled_top_unit(h: &Hierarchy, block: &[usize], k: usize, rng: &mut SeededRng) -> f64 {
    let reps = h.repetitions();
    let top = reps.len();
    if top == 1 {
        return h.values()[k];
    }
    unit_mean(h.values(), reps, block, top - 1, k * block[top - 1], rng)
}

fn unit_mean(
    values: &[f64],
    reps: &[usize],
    block: &[usize],
    level: usize,
    offset: usize,
    rng: &mut SeededRng,
) -> f64 {
    if level == 0 {
        return values[offset];
    }
    let r = reps[level - 1];
    let child = block[level - 1];
    let mut sum = 0.0;
    for _ in 0..r {
        let j = rng.below(r as u64) as usize;
        sum += unit_mean(values, reps, block, level - 1, offset + j * child, rng);
    }
    sum / r as f64
}

fn check(confidence: f64, resamples: usize) -> Result<(), StatsError> {
    check_confidence(confidence)?;
    at_least("a percentile bootstrap", "resamples", 100, resamples)?;
    Ok(())
}

/// Percentile interval from bootstrap replicates (linear interpolation between order
/// statistics, R's quantile type 7).
fn percentile_interval(mut stats: Vec<f64>, estimate: f64, confidence: f64) -> BootstrapCi {
    stats.sort_by(f64::total_cmp);
    let q = |p: f64| -> f64 {
        let pos = p * (stats.len() - 1) as f64;
        let lo = pos.floor() as usize;
        let hi = pos.ceil() as usize;
        stats[lo] + (pos - lo as f64) * (stats[hi] - stats[lo])
    };
    let alpha = 1.0 - confidence;
    BootstrapCi {
        estimate,
        low: q(alpha / 2.0),
        high: q(1.0 - alpha / 2.0),
        resamples: stats.len(),
        confidence,
    }
}

/// Percentile bootstrap CI of the mean of `h` (hierarchical resampling).
pub fn mean_ci(
    h: &Hierarchy,
    confidence: f64,
    resamples: usize,
    rng: &mut SeededRng,
) -> Result<BootstrapCi, StatsError> {
    check(confidence, resamples)?;
    let stats = (0..resamples).map(|_| resampled_mean(h, rng)).collect();
    Ok(percentile_interval(stats, h.mean(), confidence))
}

/// Percentile bootstrap CI of `mean(new) / mean(base)`, resampling the two data sets
/// independently (hierarchically). Replicates whose base mean is not positive are kept as
/// they are; the caller should only use this on positive data (times).
pub fn ratio_ci(
    base: &Hierarchy,
    new: &Hierarchy,
    confidence: f64,
    resamples: usize,
    rng: &mut SeededRng,
) -> Result<BootstrapCi, StatsError> {
    check(confidence, resamples)?;
    let stats = (0..resamples)
        .map(|_| {
            let b = resampled_mean(base, rng);
            resampled_mean(new, rng) / b
        })
        .collect();
    Ok(percentile_interval(
        stats,
        new.mean() / base.mean(),
        confidence,
    ))
}

/// Percentile bootstrap CI of `mean(new) / mean(base)` for data matched by top-level unit
/// (seed `s` of the base with seed `s` of the new variant): each replicate draws top-level
/// indices with replacement *jointly* for both sides, so a drawn seed brings its pair, then
/// resamples each side's lower levels independently within the drawn unit (Davison &
/// Hinkley 1997 §3.8 applied to pairs; the pairing of Georges et al. 2008 §5.2). Unit `k` of
/// `base` is paired with unit `k` of `new`; both must have the same number of top-level
/// units (at least two). Their lower levels may differ in size.
pub fn paired_ratio_ci(
    base: &Hierarchy,
    new: &Hierarchy,
    confidence: f64,
    resamples: usize,
    rng: &mut SeededRng,
) -> Result<BootstrapCi, StatsError> {
    check(confidence, resamples)?;
    let units = *base.repetitions().last().expect("a level");
    if units != *new.repetitions().last().expect("a level") {
        return Err(StatsError::Domain(format!(
            "a paired bootstrap needs the same top-level units on both sides, got {units} and {}",
            new.repetitions().last().expect("a level")
        )));
    }
    at_least("a paired bootstrap", "top-level units", 2, units)?;
    let (base_block, new_block) = (blocks(base.repetitions()), blocks(new.repetitions()));
    let stats = (0..resamples)
        .map(|_| {
            let (mut b, mut n) = (0.0, 0.0);
            for _ in 0..units {
                let k = rng.below(units as u64) as usize;
                b += resampled_top_unit(base, &base_block, k, rng);
                n += resampled_top_unit(new, &new_block, k, rng);
            }
            n / b
        })
        .collect();
    Ok(percentile_interval(
        stats,
        new.mean() / base.mean(),
        confidence,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sample::mean_interval;

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
        let bw = b.high - b.low;
        let tw = t.high - t.low;
        assert!((bw / tw - 1.0).abs() < 0.1, "widths {bw} vs {tw}");
        assert!(b.low < t.mean && t.mean < b.high);
    }

    #[test]
    fn constant_units_give_the_top_level_bootstrap_variance() {
        // Within each top unit all values are equal, so a hierarchical resample mean is the
        // mean of 5 top units drawn with replacement: its variance is the plug-in
        // Σ(x − x̄)²/5 / 5 = 4.24 / 5 = 0.848 (closed form), its mean 5.4.
        let tops = [3.0, 5.0, 4.0, 9.0, 6.0];
        let nested: Vec<f64> = tops.iter().flat_map(|&v| [v; 6]).collect();
        let h = Hierarchy::from_nested(nested, vec![3, 2, 5]).unwrap();
        let mut rng = SeededRng::new(2, "bootstrap-variance");
        let reps: Vec<f64> = (0..20_000).map(|_| resampled_mean(&h, &mut rng)).collect();
        let m = reps.iter().sum::<f64>() / reps.len() as f64;
        let v = reps.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (reps.len() - 1) as f64;
        // Standard errors: mean ±0.0065, variance ±~1.5 % at 20 000 replicates.
        assert!((m - 5.4).abs() < 0.03, "{m}");
        assert!((v / 0.848 - 1.0).abs() < 0.06, "{v}");
    }

    #[test]
    fn seeded_and_reproducible() {
        let h = Hierarchy::from_nested(sample(24), vec![4, 3, 2]).unwrap();
        let a = mean_ci(&h, 0.95, 300, &mut SeededRng::new(7, "bootstrap")).unwrap();
        let b = mean_ci(&h, 0.95, 300, &mut SeededRng::new(7, "bootstrap")).unwrap();
        assert_eq!(a, b);
        assert!(mean_ci(&h, 0.95, 10, &mut SeededRng::new(7, "x")).is_err());
    }

    #[test]
    fn ratio_of_a_scaled_copy_is_the_scale() {
        let base = Hierarchy::from_nested(sample(60), vec![6, 10]).unwrap();
        let scaled: Vec<f64> = base.values().iter().map(|v| v * 0.8).collect();
        let new = Hierarchy::from_nested(scaled, vec![6, 10]).unwrap();
        let r = ratio_ci(&base, &new, 0.95, 1000, &mut SeededRng::new(3, "r")).unwrap();
        assert!((r.estimate - 0.8).abs() < 1e-12);
        assert!(r.low < 0.8 && 0.8 < r.high);
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
        assert!(paired.low < 0.9 && 0.9 < paired.high, "{paired:?}");
        assert!(paired.high - paired.low < 0.01, "{paired:?}");
        assert!(apart.high - apart.low > 5.0 * (paired.high - paired.low));
        // Reproducible from the seed.
        let again = paired_ratio_ci(&base, &new, 0.95, 2000, &mut SeededRng::new(4, "p")).unwrap();
        assert_eq!(paired, again);
    }

    #[test]
    fn paired_bootstrap_agrees_with_paired_fieller_on_a_large_sample() {
        // 200 matched units with one value each: the percentile interval and Fieller's
        // paired interval estimate the same thing, their widths agree within 10 %.
        let base: Vec<f64> = (0..200)
            .map(|i| 50.0 + 5.0 * (i as f64 * 0.9).sin())
            .collect();
        let new: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, v)| 0.95 * v + 2.0 * (i as f64 * 2.1).cos())
            .collect();
        let f = crate::stats::paired_ratio::paired_ratio(&base, &new, 0.95).unwrap();
        let (flo, fhi) = f.bounds().unwrap();
        let hb = Hierarchy::from_nested(base, vec![200]).unwrap();
        let hn = Hierarchy::from_nested(new, vec![200]).unwrap();
        let b = paired_ratio_ci(&hb, &hn, 0.95, 4000, &mut SeededRng::new(5, "q")).unwrap();
        assert!(
            ((b.high - b.low) / (fhi - flo) - 1.0).abs() < 0.1,
            "{b:?} {flo} {fhi}"
        );
        assert!(paired_ratio_ci(&hb, &hb, 0.95, 50, &mut SeededRng::new(5, "q")).is_err());
    }
}
