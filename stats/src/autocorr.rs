//! Autocorrelation of a run sequence, the Ljung–Box test of independence, and Pilot's
//! subsession merge.
//!
//! Kalibera & Jones §6 inspect the autocorrelation function of the iterations of one
//! execution to decide whether they are independent; Li et al.'s Pilot (§III-D) reduces
//! autocorrelation by averaging batches of adjacent samples ("subsession analysis"), taking
//! the smallest batch size whose lag-1 autocorrelation lies within ±0.1. The Ljung–Box
//! portmanteau test (Ljung & Box 1978, Biometrika 65(2)) turns the first `h` autocorrelations
//! into one p-value.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::error::StatsError;

/// The sample autocorrelation `r_k` for `k = 0..=max_lag` (Box & Jenkins' estimator, as
/// R's `acf`): `r_k = Σ_{t=1}^{n−k} (x_t − x̄)(x_{t+k} − x̄) / Σ_t (x_t − x̄)²`.
/// `r_0 = 1`. Constant sequences give NaN beyond lag 0 (no variance to correlate).
pub fn acf(xs: &[f64], max_lag: usize) -> Vec<f64> {
    let n = xs.len();
    let m = xs.iter().sum::<f64>() / n as f64;
    let d: Vec<f64> = xs.iter().map(|x| x - m).collect();
    let denom: f64 = d.iter().map(|v| v * v).sum();
    (0..=max_lag.min(n.saturating_sub(1)))
        .map(|k| {
            if k == 0 {
                1.0
            } else {
                d[..n - k]
                    .iter()
                    .zip(&d[k..])
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
                    / denom
            }
        })
        .collect()
}

/// The Ljung–Box test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LjungBox {
    /// `Q = n(n + 2) Σ_{k=1}^{h} r_k² / (n − k)`.
    pub q: f64,
    /// Degrees of freedom `h − fitted`.
    pub df: usize,
    /// `P(χ²_df ≥ Q)`: small means the sequence is autocorrelated.
    pub p_value: f64,
}

/// Ljung–Box test on the first `lags` autocorrelations; `fitted` is the number of model
/// parameters already estimated from the series (0 for raw measurements).
pub fn ljung_box(xs: &[f64], lags: usize, fitted: usize) -> Result<LjungBox, StatsError> {
    let n = xs.len();
    if lags == 0 || lags <= fitted || lags >= n {
        return Err(StatsError::Domain(format!(
            "Ljung–Box needs 0 ≤ fitted ({fitted}) < lags ({lags}) < n ({n})"
        )));
    }
    let r = acf(xs, lags);
    if r[1].is_nan() {
        return Err(StatsError::Domain(
            "Ljung–Box needs a sequence that is not constant".into(),
        ));
    }
    let nf = n as f64;
    let q = nf
        * (nf + 2.0)
        * (1..=lags)
            .map(|k| r[k] * r[k] / (nf - k as f64))
            .sum::<f64>();
    let df = lags - fitted;
    let p = ChiSquared::new(df as f64)
        .expect("positive degrees of freedom")
        .sf(q);
    Ok(LjungBox { q, df, p_value: p })
}

/// The result of Pilot's subsession merge.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Subsessions {
    /// Batch size: how many adjacent samples are averaged into one.
    pub size: usize,
    /// Lag-1 autocorrelation of the batch means.
    pub lag1: f64,
    /// The batch means (a trailing incomplete batch is dropped).
    pub means: Vec<f64>,
}

/// Pilot's subsession analysis (Li et al. §III-D): the smallest batch size `b` whose
/// non-overlapping batch means have a lag-1 autocorrelation within `±threshold` (Pilot uses
/// 0.1), keeping at least `min_batches` batches. `None` when no batch size qualifies — the
/// sequence is too autocorrelated for its length.
pub fn subsession_merge(xs: &[f64], threshold: f64, min_batches: usize) -> Option<Subsessions> {
    let min_batches = min_batches.max(3);
    (1..=xs.len() / min_batches).find_map(|size| {
        let means: Vec<f64> = xs
            .chunks_exact(size)
            .map(|c| c.iter().sum::<f64>() / size as f64)
            .collect();
        let lag1 = acf(&means, 1).get(1).copied().unwrap_or(f64::NAN);
        // A constant sequence has no autocorrelation to remove.
        let ok = lag1.is_nan() || lag1.abs() <= threshold;
        ok.then(|| Subsessions {
            size,
            lag1: if lag1.is_nan() { 0.0 } else { lag1 },
            means,
        })
    })
}

/// A permutation test of drift in a sequence of measurements of several groups.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GroupedLag1 {
    /// Lag-1 autocorrelation of the sequence, each value less its group's mean.
    pub r1: f64,
    /// One-sided permutation p-value of `r1` (positive autocorrelation: drift).
    pub p_value: f64,
    /// Permutations drawn.
    pub permutations: usize,
}

/// Tests a sequence (in time order) of values from several groups for positive lag-1
/// autocorrelation (drift) once each group's own level is taken out: `values[i]` belongs to
/// group `groups[i]`.
///
/// The statistic is `r₁` of the residuals `value − group mean`. Under "no drift" the values
/// of one group are exchangeable over that group's places in the sequence, so the reference
/// distribution is that of `r₁` with each group's residuals shuffled among its places (a
/// randomisation test, Edgington & Onghena, "Randomization Tests", 4th ed., 2007, ch. 1): its
/// size is exact whatever the schedule. (Ljung–Box on the residuals is not: a group's
/// residuals sum to zero, which correlates the lag-1 products of a periodic schedule; it
/// raised 11 % alarms at 5 % on the report's design.) `p = (1 + #{r₁* ≥ r₁}) / (1 +
/// permutations)`. Needs 3 values and a sequence that is not constant within groups.
pub fn grouped_lag1_test(
    values: &[f64],
    groups: &[usize],
    permutations: usize,
    rng: &mut crate::seeded::SeededRng,
) -> Result<GroupedLag1, StatsError> {
    if values.len() != groups.len() || values.len() < 3 || permutations == 0 {
        return Err(StatsError::Domain(format!(
            "the drift test needs as many groups as values (got {} and {}), at least 3 of them, and permutations",
            groups.len(),
            values.len()
        )));
    }
    let group_count = groups.iter().max().map_or(0, |g| g + 1);
    let mut places: Vec<Vec<usize>> = vec![Vec::new(); group_count];
    for (i, g) in groups.iter().enumerate() {
        places[*g].push(i);
    }
    let mut residuals = values.to_vec();
    for p in &places {
        let m = p.iter().map(|&i| values[i]).sum::<f64>() / p.len().max(1) as f64;
        for &i in p {
            residuals[i] = values[i] - m;
        }
    }
    let lag1 = |xs: &[f64]| {
        let denom: f64 = xs.iter().map(|v| v * v).sum();
        xs.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / denom
    };
    let r1 = lag1(&residuals);
    if !r1.is_finite() {
        return Err(StatsError::Degenerate(
            "every value equals its group's mean: no variation to correlate".into(),
        ));
    }
    let mut shuffled = residuals.clone();
    let mut at_least = 0usize;
    for _ in 0..permutations {
        for p in &places {
            let mut own: Vec<f64> = p.iter().map(|&i| residuals[i]).collect();
            rng.shuffle(&mut own);
            for (&i, v) in p.iter().zip(own) {
                shuffled[i] = v;
            }
        }
        if lag1(&shuffled) >= r1 - 1e-12 * r1.abs() {
            at_least += 1;
        }
    }
    Ok(GroupedLag1 {
        r1,
        p_value: (1 + at_least) as f64 / (1 + permutations) as f64,
        permutations,
    })
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;

    fn trend(n: usize) -> Vec<f64> {
        (1..=n)
            .map(|i| {
                let i = i as f64;
                (i * 0.9).sin() + i / 30.0 + (i * 2.1).cos() / 2.0
            })
            .collect()
    }

    fn noise(n: usize) -> Vec<f64> {
        (1..=n)
            .map(|i| {
                let i = i as f64;
                (i * i * 0.37).sin() + (i * i * i * 0.011).cos()
            })
            .collect()
    }

    #[test]
    fn acf_and_ljung_box_match_r() {
        // R: x <- sin((1:60)*0.9) + (1:60)/30 + cos((1:60)*2.1)/2
        // acf(x, lag.max=5)$acf[2:6] = 0.60646573470891362856 0.16451033641355342074
        //   -0.00083679158828468369 -0.21654693170770489274 0.08158005039381516221
        // Box.test(x, lag=5, type="Ljung-Box"): 28.491144581372602, p 2.9173750462296866e-05
        let x = trend(60);
        let r = acf(&x, 5);
        let want = [
            0.60646573470891362856,
            0.16451033641355342074,
            -0.00083679158828468369,
            -0.21654693170770489274,
            0.08158005039381516221,
        ];
        for k in 1..=5 {
            assert!(close(r[k], want[k - 1], 1e-10), "lag {k}");
        }
        let lb = ljung_box(&x, 5, 0).unwrap();
        assert!(close(lb.q, 28.491144581372602, 1e-12));
        assert!(close(lb.p_value, 2.9173750462296866e-05, 1e-8));
        // R: i <- 1:80; x <- sin(i*i*0.37) + cos(i*i*i*0.011)
        // Box.test(x, lag=10, type="Ljung-Box"): 15.58041819197474531, p 0.11228994047666596
        // with fitdf=2: p 0.048794813838544115
        let y = noise(80);
        let lb = ljung_box(&y, 10, 0).unwrap();
        assert!(close(lb.q, 15.58041819197474531, 1e-12));
        assert!(close(lb.p_value, 0.11228994047666596, 1e-9));
        let lb = ljung_box(&y, 10, 2).unwrap();
        assert_eq!(lb.df, 8);
        assert!(close(lb.p_value, 0.048794813838544115, 1e-9));
    }

    #[test]
    fn subsession_merge_removes_autocorrelation() {
        // An AR(1)-like sequence built deterministically: x_t = 0.9 x_{t−1} + e_t.
        let e = noise(2000);
        let mut x = vec![0.0; e.len()];
        for t in 1..x.len() {
            x[t] = 0.9 * x[t - 1] + e[t];
        }
        assert!(acf(&x, 1)[1] > 0.8);
        let s = subsession_merge(&x, 0.1, 10).unwrap();
        assert!(s.size > 1);
        assert!(s.lag1.abs() <= 0.1);
        assert_eq!(s.means.len(), x.len() / s.size);
        // The smallest such size: one less does not qualify.
        let smaller: Vec<f64> = x
            .chunks_exact(s.size - 1)
            .map(|c| c.iter().sum::<f64>() / c.len() as f64)
            .collect();
        assert!(acf(&smaller, 1)[1].abs() > 0.1);
        // Already independent data need no merging.
        let white = noise(500);
        assert_eq!(subsession_merge(&white, 0.1, 10).unwrap().size, 1);
        // Impossible within the length: a pure trend.
        let ramp: Vec<f64> = (0..50).map(f64::from).collect();
        assert_eq!(subsession_merge(&ramp, 0.1, 10), None);
    }

    #[test]
    fn bad_lags_are_refused() {
        let x = trend(10);
        assert!(ljung_box(&x, 0, 0).is_err());
        assert!(ljung_box(&x, 10, 0).is_err());
        assert!(ljung_box(&x, 3, 3).is_err());
        assert!(ljung_box(&[1.0; 10], 3, 0).is_err());
    }
    #[test]
    fn grouped_lag1_test_holds_its_size_and_finds_drift() {
        // The report's design: 11 groups × 3 values in a periodic (group-major) schedule,
        // i.i.d. normal values: alarms at 5 % in about 5 % of 400 seeded sequences (Ljung–Box
        // on the same residuals: 11 %).
        let mut rng = crate::seeded::SeededRng::new(3, "drift-size");
        let mut normal = crate::seeded::SeededRng::new(4, "drift-values");
        let mut draw = || {
            let u1 = 1.0 - normal.unit_f64();
            let u2 = normal.unit_f64();
            (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        };
        let groups: Vec<usize> = (0..3).flat_map(|_| 0..11).collect();
        let runs = 400;
        let mut alarms = 0;
        for _ in 0..runs {
            let values: Vec<f64> = groups.iter().map(|g| *g as f64 + draw()).collect();
            if grouped_lag1_test(&values, &groups, 199, &mut rng)
                .unwrap()
                .p_value
                < 0.05
            {
                alarms += 1;
            }
        }
        // 5 % of 400 is 20, binomial standard error 4.4.
        assert!((8..=31).contains(&alarms), "{alarms} of {runs}");
        // A step of 4 standard deviations half-way through is found.
        let values: Vec<f64> = groups
            .iter()
            .enumerate()
            .map(|(i, g)| *g as f64 + draw() + if i >= 17 { 4.0 } else { 0.0 })
            .collect();
        let t = grouped_lag1_test(&values, &groups, 999, &mut rng).unwrap();
        assert!(t.r1 > 0.3 && t.p_value < 0.01, "{t:?}");
        assert!(grouped_lag1_test(&[1.0, 1.0, 1.0], &[0, 0, 0], 9, &mut rng).is_err());
        assert!(grouped_lag1_test(&[1.0, 2.0], &[0, 0], 9, &mut rng).is_err());
    }
}
