//! Planning the real experiment (Kalibera & Jones 2013 §9.3 and §10.2): the expected
//! top-level variance for given lower-level counts, and the top-level count that reaches a
//! target precision.

use super::tdist::two_sided_critical;

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
    // The half-width decreases with r.
    smallest_count(minimum, maximum, fits)
}

/// The smallest count in `minimum..=maximum` for which `fits` holds, when `fits` is
/// monotone (false below some count, true from it on); `None` when even `maximum` does not
/// fit. Bisection: O(log(maximum − minimum)) calls.
pub fn smallest_count(
    minimum: usize,
    maximum: usize,
    fits: impl Fn(usize) -> bool,
) -> Option<usize> {
    if minimum > maximum || !fits(maximum) {
        return None;
    }
    if fits(minimum) {
        return Some(minimum);
    }
    let (mut lo, mut hi) = (minimum, maximum);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

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
