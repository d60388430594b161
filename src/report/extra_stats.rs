//! Pure statistics the report needs and `stats` does not (yet) provide. Candidates to move
//! into `stats/`; no I/O here.

use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::stats::tdist::two_sided_critical;

/// Sample quantile of sorted data by linear interpolation between order statistics
/// (Hyndman & Fan 1996, definition 7; R's and NumPy's default). Used to draw box plots.
///
/// `sorted` must be non-empty and ascending; `p` in `[0, 1]`.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "quantile of no data");
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Expected `S_n²` of a real experiment with lower-level repetitions `r_1 … r_{n−1}`
/// (Kalibera & Jones 2013 §9.3, from the variance components of eq. 2):
/// `E[S_n²] = T_n² + T_{n−1}²/r_{n−1} + T_{n−2}²/(r_{n−1} r_{n−2}) + …`.
///
/// `t2` lists `T_1² … T_n²` (lowest level first); negative components count as 0 (KJ: the
/// level contributes no variation). `lower_repetitions` lists `r_1 … r_{n−1}`.
pub fn expected_top_variance(t2: &[f64], lower_repetitions: &[usize]) -> f64 {
    assert_eq!(
        t2.len(),
        lower_repetitions.len() + 1,
        "one repetition count per lower level"
    );
    let n = t2.len();
    let mut total = 0.0;
    let mut divisor = 1.0;
    for i in (0..n).rev() {
        total += t2[i].max(0.0) / divisor;
        if i > 0 {
            divisor *= lower_repetitions[i - 1] as f64;
        }
    }
    total
}

/// Smallest top-level repetition count `r_n ≥ minimum` whose confidence interval (KJ eq. 4)
/// has a relative half-width `t_{1−α/2, r_n−1} √(S_n²/r_n) / Ȳ` of at most `target`, when
/// `S_n²` equals `top_variance` (see [`expected_top_variance`]). `None` (∞) when even
/// `maximum` repetitions are not enough, as in KJ Table 6.
pub fn top_repetitions_for_precision(
    top_variance: f64,
    mean: f64,
    target: f64,
    confidence: f64,
    minimum: usize,
    maximum: usize,
) -> Option<usize> {
    let minimum = minimum.max(2);
    let fits = |r: usize| {
        let t = two_sided_critical(confidence, (r - 1) as f64);
        t * (top_variance / r as f64).sqrt() <= target * mean.abs()
    };
    if !fits(maximum) {
        return None;
    }
    // The half-width decreases with r, so bisect on [minimum, maximum].
    if fits(minimum) {
        return Some(minimum);
    }
    let (mut lo, mut hi) = (minimum, maximum);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// Sample autocorrelations r_1 … r_max_lag (Box & Jenkins; R's `acf`):
/// `r_h = Σ_{t=1}^{n−h} (x_t − x̄)(x_{t+h} − x̄) / Σ_t (x_t − x̄)²` — the correlation of a
/// series with itself h steps later, as Kalibera & Jones 2013 §6.1 plot it. `None` for a
/// constant series (no variation to correlate) or fewer than two values.
pub fn acf(xs: &[f64], max_lag: usize) -> Option<Vec<f64>> {
    let n = xs.len();
    if n < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let dev: Vec<f64> = xs.iter().map(|x| x - mean).collect();
    let denom: f64 = dev.iter().map(|d| d * d).sum();
    if denom <= 0.0 {
        return None;
    }
    Some(
        (1..=max_lag.min(n - 1))
            .map(|h| {
                dev[..n - h]
                    .iter()
                    .zip(&dev[h..])
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
                    / denom
            })
            .collect(),
    )
}

/// The Ljung–Box portmanteau test (Ljung & Box 1978).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LjungBox {
    /// `Q = n(n+2) Σ_{h=1}^{lags} r_h² / (n − h)`.
    pub q: f64,
    /// Degrees of freedom (the number of lags).
    pub df: usize,
    /// `P(χ²_df ≥ Q)`: small means the values are not independent.
    pub p: f64,
}

/// Ljung–Box test of independence of `xs` over `lags` lags (R's
/// `Box.test(x, lag, type = "Ljung-Box")`). `None` for a constant series or when
/// `lags` is not below the series' length.
pub fn ljung_box(xs: &[f64], lags: usize) -> Option<LjungBox> {
    let n = xs.len();
    if lags == 0 || lags >= n {
        return None;
    }
    let r = acf(xs, lags)?;
    let nf = n as f64;
    let q = nf
        * (nf + 2.0)
        * r.iter()
            .enumerate()
            .map(|(i, rh)| rh * rh / (nf - (i + 1) as f64))
            .sum::<f64>();
    let p = ChiSquared::new(lags as f64).ok()?.sf(q);
    Some(LjungBox { q, df: lags, p })
}

/// The warmup a changepoint analysis suggests: the number of initial values to drop.
///
/// Binary segmentation for changes in the mean (Scott & Knott 1974) with a penalty in the
/// spirit of Killick et al.'s MBIC: a split is kept when it lowers the residual sum of
/// squares by more than `3 ln(n) σ̂²`, where σ̂ is estimated from first differences
/// (`median |Δx| / (0.6745 √2)`), which level shifts barely affect. The suggested warmup is
/// the last changepoint in the first half of the series (a change later on is not warmup but
/// a change of state, which the report's run-sequence plots show); 0 when there is none.
pub fn suggested_warmup(xs: &[f64]) -> usize {
    let n = xs.len();
    if n < 6 {
        return 0;
    }
    let mut diffs: Vec<f64> = xs.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
    diffs.sort_by(f64::total_cmp);
    let mad = quantile(&diffs, 0.5);
    let sigma = mad / (0.6745 * std::f64::consts::SQRT_2);
    // Deterministic metrics (cachegrind) have σ̂ = 0; any real shift then counts, but not
    // rounding noise.
    let scale = xs
        .iter()
        .map(|x| x.abs())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let sigma2 = (sigma * sigma).max((scale * 1e-12).powi(2));
    let threshold = 3.0 * (n as f64).ln() * sigma2;
    let mut changepoints = Vec::new();
    let mut stack = vec![(0usize, n)];
    while let Some((lo, hi)) = stack.pop() {
        if let Some((k, gain)) = best_split(&xs[lo..hi]) {
            if gain > threshold {
                changepoints.push(lo + k);
                stack.push((lo, lo + k));
                stack.push((lo + k, hi));
            }
        }
    }
    changepoints
        .into_iter()
        .filter(|&k| k <= n / 2)
        .max()
        .unwrap_or(0)
}

/// The split `k` (segments `..k` and `k..`, each at least 2 long) that most reduces the
/// residual sum of squares around segment means, and that reduction.
fn best_split(xs: &[f64]) -> Option<(usize, f64)> {
    let n = xs.len();
    if n < 4 {
        return None;
    }
    let total: f64 = xs.iter().sum();
    let mut left = 0.0;
    let mut best: Option<(usize, f64)> = None;
    for k in 1..n {
        left += xs[k - 1];
        if k < 2 || n - k < 2 {
            continue;
        }
        let (a, b) = (k as f64, (n - k) as f64);
        // SSE(whole) − SSE(left) − SSE(right) = a·b/n · (mean_left − mean_right)².
        let d = left / a - (total - left) / b;
        let gain = a * b / n as f64 * d * d;
        if best.map_or(true, |(_, g)| gain > g) {
            best = Some((k, gain));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded::SeededRng;

    const SERIES: [f64; 16] = [
        5.1, 4.9, 5.3, 5.0, 5.6, 5.2, 4.8, 5.4, 5.5, 5.0, 5.7, 5.1, 4.9, 5.3, 5.8, 5.2,
    ];

    #[test]
    fn acf_matches_r() {
        // R: acf(SERIES, lag.max = 4, plot = FALSE)$acf[2:5]
        let want = [
            -0.2225467289719625,
            -0.3123831775700933,
            0.1856308411214955,
            -0.0462616822429909,
        ];
        let got = acf(&SERIES, 4).unwrap();
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
        assert_eq!(acf(&[3.0; 5], 2), None);
    }

    #[test]
    fn ljung_box_matches_r() {
        // R: Box.test(SERIES, lag = 3, type = "Ljung-Box") → X-squared 3.721741300886202,
        // p 0.293121094959271; Box.test(1:12, lag = 2, type = "Ljung-Box") → 12.90921316445793,
        // p 0.00157325810749454.
        let lb = ljung_box(&SERIES, 3).unwrap();
        assert!((lb.q - 3.721741300886202).abs() < 1e-10, "{lb:?}");
        assert!((lb.p - 0.293121094959271).abs() < 1e-10, "{lb:?}");
        let trend: Vec<f64> = (1..=12).map(f64::from).collect();
        let lb = ljung_box(&trend, 2).unwrap();
        assert!(
            (lb.q - 12.90921316445793).abs() < 1e-9 && (lb.p - 0.00157325810749454).abs() < 1e-12
        );
        assert_eq!(ljung_box(&[1.0, 1.0, 1.0, 1.0], 2), None);
    }

    fn noise(seed: u64, n: usize) -> Vec<f64> {
        let mut rng = SeededRng::new(seed, "changepoint-test");
        (0..n)
            .map(|_| {
                let (u1, u2) = (1.0 - rng.unit_f64(), rng.unit_f64());
                100.0 + (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
            })
            .collect()
    }

    #[test]
    fn warmup_is_found_where_the_level_settles() {
        let mut xs = noise(1, 40);
        for x in &mut xs[..6] {
            *x += 8.0;
        }
        assert_eq!(suggested_warmup(&xs), 6);
        // A deterministic metric with one slow first iteration.
        let mut det = vec![1000.0; 20];
        det[0] = 1500.0;
        det[1] = 1200.0;
        assert_eq!(suggested_warmup(&det), 2);
        // A change late in the run is not warmup.
        let mut late = noise(2, 40);
        for x in &mut late[30..] {
            *x += 8.0;
        }
        assert_eq!(suggested_warmup(&late), 0);
    }

    #[test]
    fn pure_noise_rarely_suggests_a_warmup() {
        let alarms = (0..300)
            .filter(|&s| suggested_warmup(&noise(100 + s, 30)) > 0)
            .count();
        assert!(
            alarms <= 15,
            "{alarms} of 300 stationary series got a warmup"
        );
    }

    #[test]
    fn quantile_matches_r_type_7() {
        // R: quantile(c(1, 2, 4, 8, 16), c(.25, .5, .9)) → 2, 4, 12.8
        let v = [1.0, 2.0, 4.0, 8.0, 16.0];
        assert_eq!(quantile(&v, 0.25), 2.0);
        assert_eq!(quantile(&v, 0.5), 4.0);
        assert!((quantile(&v, 0.9) - 12.8).abs() < 1e-12);
    }

    #[test]
    fn expected_top_variance_adds_components_divided_by_lower_counts() {
        // T² = [4, 2, 1], r_1 = 2, r_2 = 4: 1 + 2/4 + 4/(4·2) = 2.
        assert_eq!(expected_top_variance(&[4.0, 2.0, 1.0], &[2, 4]), 2.0);
        assert_eq!(expected_top_variance(&[4.0, -2.0, 1.0], &[2, 4]), 1.5);
    }

    #[test]
    fn repetitions_for_precision() {
        // S² = 1, mean = 100, target 1 % → need t_{r−1}·√(1/r) ≤ 1. Exhaustive search
        // with scipy: min r ≥ 5 with t.ppf(.975, r-1)/sqrt(r) <= 1 →
        // python3 -c "from scipy.stats import t; print(next(r for r in range(5,100) if t.ppf(.975,r-1)/r**.5<=1))"
        // prints 7.
        assert_eq!(
            top_repetitions_for_precision(1.0, 100.0, 0.01, 0.95, 5, 1000),
            Some(7)
        );
        // Never below the minimum.
        assert_eq!(
            top_repetitions_for_precision(1e-9, 100.0, 0.01, 0.95, 5, 1000),
            Some(5)
        );
        // ∞ when 1000 are not enough: need t·√(S²/1000) ≤ 1 with S² = 1e4·… .
        assert_eq!(
            top_repetitions_for_precision(1e4, 100.0, 0.01, 0.95, 5, 1000),
            None
        );
    }
}
