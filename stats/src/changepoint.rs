//! Changepoints in a run sequence (iteration times of one execution) by PELT, and the
//! warmup they suggest — an aid shown to the user, never applied silently.
//!
//! PELT: Killick, Fearnhead & Eckley, "Optimal detection of changepoints with a linear
//! computational cost", JASA 107(500), 2012 — exact minimisation of
//! `Σ cost(segment) + β · #changepoints` with pruning. The cost is the normal change-in-mean
//! cost `Σ (x − x̄_seg)² / σ²` with σ estimated robustly from first differences (MAD), and
//! β = 3 ln n (the "MBIC"-like default of R's changepoint package used by warmup_stats,
//! Barrett et al., "Virtual machine warmup blows hot and cold", OOPSLA 2017).
//!
//! Kalibera & Jones §6.3 show that automatic warmup heuristics pick wrong iterations and
//! cause errors of tens of percent, so the result here is a *suggestion* for the person
//! reading the run-sequence plot, with the evidence (segments and their means).

use serde::Serialize;

use super::error::{at_least, StatsError};
use super::sample::median;

/// Changepoints and the warmup they suggest.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WarmupSuggestion {
    /// Indices where a new segment starts (0-based, increasing).
    pub changepoints: Vec<usize>,
    /// Mean of each segment, in order.
    pub segment_means: Vec<f64>,
    /// Iterations to discard as warmup: the start of the final segment when that segment
    /// covers at least half the sequence; `Some(0)` with no changepoint; `None` when the
    /// sequence never settles.
    pub warmup: Option<usize>,
}

/// Minimum segment length considered.
const MIN_SEGMENT: usize = 2;

/// PELT changepoints of `xs` with the given penalty per changepoint and noise scale
/// `sigma`; returns the start indices of every segment after the first.
pub fn pelt_mean(xs: &[f64], sigma: f64, penalty: f64) -> Vec<usize> {
    let n = xs.len();
    let mut s1 = vec![0.0; n + 1];
    let mut s2 = vec![0.0; n + 1];
    for (i, x) in xs.iter().enumerate() {
        s1[i + 1] = s1[i] + x;
        s2[i + 1] = s2[i] + x * x;
    }
    let var = sigma * sigma;
    let cost = |s: usize, t: usize| -> f64 {
        let len = (t - s) as f64;
        let sum = s1[t] - s1[s];
        ((s2[t] - s2[s]) - sum * sum / len).max(0.0) / var
    };
    let mut best = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    best[0] = -penalty;
    let mut candidates: Vec<usize> = vec![0];
    for t in MIN_SEGMENT..=n {
        let mut f_t = f64::INFINITY;
        let mut arg = 0;
        for &s in candidates.iter().filter(|&&s| t - s >= MIN_SEGMENT) {
            let f = best[s] + cost(s, t) + penalty;
            if f < f_t {
                f_t = f;
                arg = s;
            }
        }
        best[t] = f_t;
        last[t] = arg;
        // Prune: a start that cannot beat t now never will (the cost is additive).
        candidates.retain(|&s| t - s < MIN_SEGMENT || best[s] + cost(s, t) <= f_t);
        if t + MIN_SEGMENT <= n {
            candidates.push(t);
        }
    }
    let mut points = Vec::new();
    let mut t = n;
    while t > 0 {
        let s = last[t];
        if s > 0 {
            points.push(s);
        }
        t = s;
    }
    points.reverse();
    points
}

/// Robust noise scale from first differences: `MAD(Δx) · 1.4826 / √2`.
pub fn noise_scale(xs: &[f64]) -> f64 {
    let d: Vec<f64> = xs.windows(2).map(|w| w[1] - w[0]).collect();
    let m = median(&d);
    let abs: Vec<f64> = d.iter().map(|v| (v - m).abs()).collect();
    median(&abs) * 1.4826 / std::f64::consts::SQRT_2
}

/// Suggests a warmup for one execution's run sequence (at least 8 iterations).
pub fn suggest_warmup(xs: &[f64]) -> Result<WarmupSuggestion, StatsError> {
    let n = xs.len();
    at_least("changepoint detection", "iterations", 8, n)?;
    let mut sigma = noise_scale(xs);
    if sigma.is_nan() || sigma <= 0.0 {
        // Mostly identical values: fall back to the plain standard deviation, and to a tiny
        // scale for a constant sequence (which then has no changepoint).
        let m = xs.iter().sum::<f64>() / n as f64;
        sigma = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64).sqrt();
        if sigma.is_nan() || sigma <= 0.0 {
            sigma = 1.0;
        }
    }
    let changepoints = pelt_mean(xs, sigma, 3.0 * (n as f64).ln());
    let mut bounds = vec![0];
    bounds.extend(&changepoints);
    bounds.push(n);
    let segment_means = bounds
        .windows(2)
        .map(|w| xs[w[0]..w[1]].iter().sum::<f64>() / (w[1] - w[0]) as f64)
        .collect();
    // The last segment must cover half the sequence to be taken as the steady state; with
    // no changepoint the whole sequence is.
    let warmup = match changepoints.last() {
        None => Some(0),
        Some(&start) if n - start >= n / 2 => Some(start),
        Some(_) => None,
    };
    Ok(WarmupSuggestion {
        changepoints,
        segment_means,
        warmup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wiggle(n: usize) -> Vec<f64> {
        (1..=n)
            .map(|i| {
                let i = i as f64;
                0.05 * ((i * i * 0.37).sin() + (i * 1.7).cos())
            })
            .collect()
    }

    /// Exact optimal partitioning (Jackson et al. 2005), O(n²): PELT must find the same.
    fn optimal_partitioning(xs: &[f64], sigma: f64, penalty: f64) -> Vec<usize> {
        let n = xs.len();
        let cost = |s: usize, t: usize| {
            let seg = &xs[s..t];
            let m = seg.iter().sum::<f64>() / seg.len() as f64;
            seg.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (sigma * sigma)
        };
        let mut best = vec![f64::INFINITY; n + 1];
        let mut last = vec![0; n + 1];
        best[0] = -penalty;
        for t in MIN_SEGMENT..=n {
            for s in 0..=t - MIN_SEGMENT {
                if s != 0 && s < MIN_SEGMENT {
                    continue;
                }
                let f = best[s] + cost(s, t) + penalty;
                if f < best[t] {
                    best[t] = f;
                    last[t] = s;
                }
            }
        }
        let mut points = Vec::new();
        let mut t = n;
        while t > 0 {
            if last[t] > 0 {
                points.push(last[t]);
            }
            t = last[t];
        }
        points.reverse();
        points
    }

    #[test]
    fn finds_a_warmup_step() {
        // 15 slow iterations, then 85 fast ones.
        let x: Vec<f64> = wiggle(100)
            .iter()
            .enumerate()
            .map(|(i, w)| if i < 15 { 2.0 + w } else { 1.0 + w })
            .collect();
        let s = suggest_warmup(&x).unwrap();
        assert_eq!(s.changepoints, vec![15]);
        assert_eq!(s.warmup, Some(15));
        assert!((s.segment_means[0] - 2.0).abs() < 0.05);
    }

    #[test]
    fn stable_sequence_needs_no_warmup() {
        let x: Vec<f64> = wiggle(100).iter().map(|w| 5.0 + w).collect();
        let s = suggest_warmup(&x).unwrap();
        assert!(s.changepoints.is_empty());
        assert_eq!(s.warmup, Some(0));
        let constant = suggest_warmup(&[3.0; 20]).unwrap();
        assert_eq!(constant.warmup, Some(0));
    }

    #[test]
    fn late_change_is_not_a_warmup() {
        // Slows down at iteration 70 of 100: no steady state to trust.
        let x: Vec<f64> = wiggle(100)
            .iter()
            .enumerate()
            .map(|(i, w)| if i < 70 { 1.0 + w } else { 1.5 + w })
            .collect();
        let s = suggest_warmup(&x).unwrap();
        assert_eq!(s.changepoints, vec![70]);
        assert_eq!(s.warmup, None);
    }

    #[test]
    fn pelt_equals_optimal_partitioning() {
        // Several steps of different sizes plus noise.
        let levels = [3.0, 3.4, 2.9, 2.9, 3.8, 3.1];
        let x: Vec<f64> = wiggle(120)
            .iter()
            .enumerate()
            .map(|(i, w)| levels[i / 20] + 2.0 * w)
            .collect();
        for penalty in [2.0, 5.0, 3.0 * 120f64.ln(), 40.0] {
            let sigma = noise_scale(&x);
            assert_eq!(
                pelt_mean(&x, sigma, penalty),
                optimal_partitioning(&x, sigma, penalty),
                "penalty {penalty}"
            );
        }
        assert!(suggest_warmup(&x[..7]).is_err());
    }
}
