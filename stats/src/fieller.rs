//! Fieller's confidence interval for the ratio of two means (Kalibera & Jones 2013 §10,
//! eq. 5) and the relative half-width relation of eq. 6.
//!
//! The ratio is `Ȳ'/Ȳ` (new over base). Fieller's set is the `ρ` with
//! `(Ȳ' − ρȲ)² ≤ h'² + ρ²h²`, where `h`, `h'` are the half-widths of the two single-system
//! intervals (eq. 4). It is a bounded interval only when the base's interval excludes zero
//! (`Ȳ² > h²`); otherwise it is the whole line or the outside of an interval, and we say
//! "unbounded" rather than print a misleading pair of numbers.

use serde::Serialize;

use super::sample::MeanInterval;

/// The Fieller interval, or the honest admission that it has no finite ends.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RatioInterval {
    /// `lower ≤ Ȳ'/Ȳ ≤ upper`.
    Bounded {
        /// Lower end.
        lower: f64,
        /// Upper end.
        upper: f64,
    },
    /// The base's interval contains zero: the ratio is not bounded at this confidence.
    Unbounded,
}

/// A ratio estimate `Ȳ'/Ȳ` with its Fieller interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RatioCi {
    /// `Ȳ'/Ȳ` (new mean over base mean).
    pub estimate: f64,
    /// Eq. 5.
    pub interval: RatioInterval,
    /// The confidence level of both single-system intervals, hence of this one.
    pub confidence: f64,
}

impl RatioCi {
    /// `(low, high)` when bounded.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        match self.interval {
            RatioInterval::Bounded {
                lower: low,
                upper: high,
            } => Some((low, high)),
            RatioInterval::Unbounded => None,
        }
    }
}

/// Eq. 5 from the two means and the half-widths `h` (base) and `h'` (new) of their
/// single-system intervals:
/// `(ȲȲ' ∓ sqrt((ȲȲ')² − (Ȳ² − h²)(Ȳ'² − h'²))) / (Ȳ² − h²)`.
pub fn ratio_interval(base_mean: f64, base_h: f64, new_mean: f64, new_h: f64) -> RatioInterval {
    let denom = base_mean * base_mean - base_h * base_h;
    if denom <= 0.0 || !denom.is_finite() {
        return RatioInterval::Unbounded;
    }
    let cross = base_mean * new_mean;
    // Expanded, the discriminant is Ȳ²h'² + Ȳ'²h² − h²h'², which is ≥ 0 whenever Ȳ² > h²;
    // this form avoids cancelling two large products.
    let disc = base_mean * base_mean * new_h * new_h + new_mean * new_mean * base_h * base_h
        - base_h * base_h * new_h * new_h;
    let root = disc.max(0.0).sqrt();
    RatioInterval::Bounded {
        lower: (cross - root) / denom,
        upper: (cross + root) / denom,
    }
}

/// Eq. 5 for two single-system intervals (eq. 4) at the same confidence level.
///
/// # Panics
/// If the two intervals have different confidence levels.
pub fn ratio_ci(base: &MeanInterval, new: &MeanInterval) -> RatioCi {
    assert!(
        (base.confidence - new.confidence).abs() < 1e-12,
        "ratio_ci: intervals at different confidence levels"
    );
    RatioCi {
        estimate: new.mean / base.mean,
        interval: ratio_interval(base.mean, base.half_width, new.mean, new.half_width),
        confidence: base.confidence,
    }
}

/// The exact half-width of the ratio interval from the relative half-widths `e = h/Ȳ`,
/// `e' = h'/Ȳ'` (Kalibera & Jones §10.2, before approximation):
/// `(Ȳ'/Ȳ) · sqrt(e² + e'² − e²e'²) / (1 − e²)`. Positive means assumed.
pub fn ratio_half_width(base_mean: f64, e_base: f64, new_mean: f64, e_new: f64) -> f64 {
    (new_mean / base_mean)
        * (e_base * e_base + e_new * e_new - e_base * e_base * e_new * e_new).sqrt()
        / (1.0 - e_base * e_base)
}

/// Eq. 6, the approximation for narrow single-system intervals:
/// `(Ȳ'/Ȳ) · sqrt(e² + e'²)`. Comparing a system with itself gives `√2 · e`.
pub fn ratio_half_width_approx(base_mean: f64, e_base: f64, new_mean: f64, e_new: f64) -> f64 {
    (new_mean / base_mean) * (e_base * e_base + e_new * e_new).sqrt()
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::test_support::close;

    #[test]
    fn matches_the_quadratic_solved_independently() {
        // numpy: h = t.ppf(0.975, r-1)*sqrt(s2/r) for (s2, r) = (0.8, 10) and (0.5, 12);
        // sorted(np.roots([Y*Y-hb*hb, -2*Y*Yp, Yp*Yp-hn*hn]).real) with Y = 10, Yp = 9.4
        let base = MeanInterval::from_summary(10.0, 0.8, 10, 0.95).unwrap();
        let new = MeanInterval::from_summary(9.4, 0.5, 12, 0.95).unwrap();
        assert!(close(base.half_width, 0.6398346679697325, 1e-12));
        assert!(close(new.half_width, 0.4492742144718717, 1e-12));
        let r = ratio_ci(&base, &new);
        let (low, high) = r.bounds().unwrap();
        assert!(close(low, 0.8685385933827989, 1e-12), "{low}");
        assert!(close(high, 1.0191895466902923, 1e-12), "{high}");
        assert!(close(r.estimate, 0.94, 1e-15));
        // A wide, asymmetric case: Y = 2, h = 1.2, Yp = 3, h' = 0.9 (same numpy recipe).
        let RatioInterval::Bounded {
            lower: low,
            upper: high,
        } = ratio_interval(2.0, 1.2, 3.0, 0.9)
        else {
            panic!("bounded expected")
        };
        assert!(close(low, 0.8291723979934206, 1e-12));
        assert!(close(high, 3.8583276020065793, 1e-12));
    }

    #[test]
    fn exact_new_mean_gives_the_reciprocal_interval() {
        // With h' = 0 the set is Ȳ'/[Ȳ − h, Ȳ + h] reversed.
        let RatioInterval::Bounded {
            lower: low,
            upper: high,
        } = ratio_interval(4.0, 1.0, 6.0, 0.0)
        else {
            panic!()
        };
        assert!(close(low, 6.0 / 5.0, 1e-15) && close(high, 6.0 / 3.0, 1e-15));
    }

    #[test]
    fn unbounded_when_the_base_interval_holds_zero() {
        assert_eq!(ratio_interval(1.0, 1.5, 3.0, 0.1), RatioInterval::Unbounded);
        assert_eq!(ratio_interval(1.0, 1.0, 3.0, 0.1), RatioInterval::Unbounded);
    }

    #[test]
    fn half_width_relations() {
        let (y, h, yp, hp) = (10.0, 0.7, 9.0, 0.4);
        let RatioInterval::Bounded {
            lower: low,
            upper: high,
        } = ratio_interval(y, h, yp, hp)
        else {
            panic!()
        };
        let exact = ratio_half_width(y, h / y, yp, hp / yp);
        assert!(close((high - low) / 2.0, exact, 1e-12));
        // Same system twice: eq. 6 gives √2 e.
        let e = 0.01;
        assert!(close(
            ratio_half_width_approx(5.0, e, 5.0, e),
            2f64.sqrt() * e,
            1e-15
        ));
        // The approximation is close for narrow intervals.
        let approx = ratio_half_width_approx(y, 0.01, yp, 0.02);
        let exact = ratio_half_width(y, 0.01, yp, 0.02);
        assert!((approx - exact).abs() / exact < 2e-4);
    }
}
