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
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LjungBox {
    /// `Q = n(n + 2) Σ_{k=1}^{h} r_k² / (n − k)`.
    pub q: f64,
    /// Degrees of freedom `h − fitted`.
    pub df: usize,
    /// `P(χ²_df ≥ Q)`: small means the sequence is autocorrelated.
    pub p: f64,
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
    Ok(LjungBox { q, df, p })
}

/// The result of Pilot's subsession merge.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::stats::test_support::close;

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
        assert!(close(lb.p, 2.9173750462296866e-05, 1e-8));
        // R: i <- 1:80; x <- sin(i*i*0.37) + cos(i*i*i*0.011)
        // Box.test(x, lag=10, type="Ljung-Box"): 15.58041819197474531, p 0.11228994047666596
        // with fitdf=2: p 0.048794813838544115
        let y = noise(80);
        let lb = ljung_box(&y, 10, 0).unwrap();
        assert!(close(lb.q, 15.58041819197474531, 1e-12));
        assert!(close(lb.p, 0.11228994047666596, 1e-9));
        let lb = ljung_box(&y, 10, 2).unwrap();
        assert_eq!(lb.df, 8);
        assert!(close(lb.p, 0.048794813838544115, 1e-9));
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
}
