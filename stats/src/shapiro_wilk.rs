//! The Shapiro–Wilk test of normality, W and its p-value, for 3 ≤ n ≤ 5000.
//!
//! Algorithm: Royston, P. (1995) "Remark AS R94: A remark on algorithm AS 181: the W-test
//! for normality", Applied Statistics 44(4), 547–551 — the approximation of the
//! coefficients `a_i` from normal scores, W computed as a squared correlation (so `1 − W`
//! keeps its precision when W is near 1), and the normalising transformations of `1 − W`
//! for the p-value (n ≤ 11 and n ≥ 12). R's `shapiro.test` implements the same algorithm.
//!
//! Used to check whether the top-level means look normal before trusting a t interval
//! with few units (Touati et al. §2: below 30 observations, check normality first).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use super::error::{at_least, StatsError};

/// The W statistic and its p-value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ShapiroWilk {
    /// W in (0, 1]; close to 1 for normal-looking data.
    pub w: f64,
    /// P-value of the hypothesis "the data are normal"; small means "not normal".
    pub p_value: f64,
    /// Sample size.
    pub n: usize,
}

// Polynomial coefficients of AS R94 (lowest order first).
const C1: [f64; 6] = [0.0, 0.221157, -0.147981, -2.071190, 4.434685, -2.706056];
const C2: [f64; 6] = [0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633];
const C3: [f64; 4] = [0.5440, -0.39978, 0.025054, -6.714e-4];
const C4: [f64; 4] = [1.3822, -0.77857, 0.062767, -0.0020322];
const C5: [f64; 4] = [-1.5861, -0.31082, -0.083751, 0.0038915];
const C6: [f64; 3] = [-0.4803, -0.082676, 0.0030302];
const G: [f64; 2] = [-2.273, 0.459];

fn poly(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
}

/// The Shapiro–Wilk test (Royston 1995, AS R94) on `xs` (any order, 3 ≤ n ≤ 5000).
/// Refuses samples whose values are all equal (W is undefined).
pub fn shapiro_wilk(xs: &[f64]) -> Result<ShapiroWilk, StatsError> {
    let n = xs.len();
    at_least("the Shapiro–Wilk test", "observations", 3, n)?;
    if n > 5000 {
        return Err(StatsError::Domain(format!(
            "the Shapiro–Wilk approximation (AS R94) is valid up to n = 5000, got {n}"
        )));
    }
    let mut x = xs.to_vec();
    x.sort_by(f64::total_cmp);
    let range = x[n - 1] - x[0];
    if range.is_nan() || range <= 1e-19 * x[n - 1].abs().max(1.0) {
        return Err(StatsError::Domain(
            "the Shapiro–Wilk test needs values that are not all equal".into(),
        ));
    }
    let a = coefficients(n);
    // W as the squared correlation between the data and the (antisymmetric) coefficient
    // vector, both centred; w1 = 1 − W computed without cancellation.
    let nf = n as f64;
    let coef = |i: usize| -> f64 {
        let j = n - 1 - i;
        match i.cmp(&j) {
            std::cmp::Ordering::Less => -a[i],
            std::cmp::Ordering::Greater => a[j],
            std::cmp::Ordering::Equal => 0.0,
        }
    };
    let sa = (0..n).map(coef).sum::<f64>() / nf;
    let sx = x.iter().map(|v| v / range).sum::<f64>() / nf;
    let (mut ssa, mut ssx, mut sax) = (0.0, 0.0, 0.0);
    for (i, xi) in x.iter().enumerate() {
        let asa = coef(i) - sa;
        let xsx = xi / range - sx;
        ssa += asa * asa;
        ssx += xsx * xsx;
        sax += asa * xsx;
    }
    let ssassx = (ssa * ssx).sqrt();
    let w1 = (ssassx - sax) * (ssassx + sax) / (ssa * ssx);
    let w = 1.0 - w1;
    Ok(ShapiroWilk {
        w,
        p_value: p_value(n, w, w1),
        n,
    })
}

/// `a_1 … a_{n/2}` (the positive half; the rest are their negatives).
fn coefficients(n: usize) -> Vec<f64> {
    let half = n / 2;
    if n == 3 {
        return vec![std::f64::consts::FRAC_1_SQRT_2];
    }
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    let an25 = n as f64 + 0.25;
    // Blom-type normal scores m_i (negative: lower half of the order statistics).
    let m: Vec<f64> = (1..=half)
        .map(|i| normal.inverse_cdf((i as f64 - 0.375) / an25))
        .collect();
    let summ2 = 2.0 * m.iter().map(|v| v * v).sum::<f64>();
    let ssumm2 = summ2.sqrt();
    let rsn = 1.0 / (n as f64).sqrt();
    let a1 = poly(&C1, rsn) - m[0] / ssumm2;
    let mut a = vec![0.0; half];
    a[0] = a1;
    let (first, fac) = if n > 5 {
        let a2 = -m[1] / ssumm2 + poly(&C2, rsn);
        a[1] = a2;
        let fac = ((summ2 - 2.0 * m[0] * m[0] - 2.0 * m[1] * m[1])
            / (1.0 - 2.0 * a1 * a1 - 2.0 * a2 * a2))
            .sqrt();
        (2, fac)
    } else {
        (
            (1),
            ((summ2 - 2.0 * m[0] * m[0]) / (1.0 - 2.0 * a1 * a1)).sqrt(),
        )
    };
    for i in first..half {
        a[i] = -m[i] / fac;
    }
    a
}

/// Royston's normalising transformations of `1 − W`.
fn p_value(n: usize, w: f64, w1: f64) -> f64 {
    if n == 3 {
        // Exact for n = 3: p = 6/π (asin(√W) − asin(√(3/4))).
        let pw = 6.0 / std::f64::consts::PI * (w.sqrt().asin() - std::f64::consts::FRAC_PI_3);
        return pw.clamp(0.0, 1.0);
    }
    let nf = n as f64;
    let y = w1.ln();
    let (z, mean, sd) = if n <= 11 {
        let gamma = poly(&G, nf);
        if y >= gamma {
            return 1e-99; // AS R94's "p is tiny" sentinel
        }
        (-(gamma - y).ln(), poly(&C3, nf), poly(&C4, nf).exp())
    } else {
        let ln_n = nf.ln();
        (y, poly(&C5, ln_n), poly(&C6, ln_n).exp())
    };
    Normal::new(mean, sd).expect("positive sd").sf(z)
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    // Deterministic test data, written the same way in R.
    fn f(n: usize) -> Vec<f64> {
        (1..=n)
            .map(|i| {
                let i = i as f64;
                i.sin() + (i * 2.3).sin() / 2.0 + (i * 0.37).cos() / 3.0
            })
            .collect()
    }
    fn g(n: usize) -> Vec<f64> {
        (1..=n)
            .map(|i| (i as f64 * 0.7).sin().exp() + i as f64 / n as f64)
            .collect()
    }

    // R 4.2: f <- function(n) { i <- 1:n; sin(i) + sin(i*2.3)/2 + cos(i*0.37)/3 };
    // g <- function(n) { i <- 1:n; exp(sin(i*0.7)) + i/n };
    // r <- shapiro.test(f(n)); sprintf("%.17g %.17g", r$statistic, r$p.value)
    // scipy.stats.shapiro (single-precision Fortran swilk) agrees to ~1e-9 on W.
    const R_F: &[(usize, f64, f64)] = &[
        (3, 0.81293495442937169, 0.1457677495200235),
        (4, 0.94942082733113931, 0.7125005567689362),
        (5, 0.95290706282686732, 0.75793178846207987),
        (6, 0.98051783363937239, 0.95410258366062861),
        (7, 0.97938770817633958, 0.95651333404171601),
        (11, 0.9348645724099035, 0.46212830836813917),
        (12, 0.95470075162705959, 0.70636126357112294),
        (20, 0.9662217966995601, 0.67395268668505204),
        (25, 0.97158114143435725, 0.6853555495692838),
        (100, 0.97415966132909915, 0.046382932298089971),
        (1000, 0.98279177411251228, 1.7644580553605633e-09),
        (5000, 0.98379405902951444, 1.6391454139433971e-23),
    ];
    const R_G: &[(usize, f64, f64)] = &[
        (3, 0.76659073305600722, 0.037011112997551658),
        (5, 0.90153101855461881, 0.41840529682594119),
        (11, 0.92227941147857273, 0.33808452067577283),
        (20, 0.9431084474776289, 0.27432045678155614),
        (25, 0.94237535314590581, 0.16793894813322188),
        (100, 0.94324579180044044, 0.00030583659529906263),
        (1000, 0.94103467116389239, 1.7025553180318588e-19),
    ];

    #[test]
    fn matches_r() {
        for (data, table) in [(f as fn(usize) -> Vec<f64>, R_F), (g, R_G)] {
            for &(n, w, p) in table {
                let r = shapiro_wilk(&data(n)).unwrap();
                assert!(rel(r.w, w) < 1e-10, "n={n}: W {} vs {w}", r.w);
                assert!(rel(r.p_value, p) < 1e-8, "n={n}: p {} vs {p}", r.p_value);
            }
        }
    }

    #[test]
    fn design_md_vectors() {
        // docs/design.md (R 4.2.2): Touati's T1 and 1..11.
        let r = shapiro_wilk(&[2.799, 2.046, 1.259, 1.877, 2.244]).unwrap();
        assert!(rel(r.w, 0.986190408160782) < 1e-12);
        assert!(rel(r.p_value, 0.964734206740106) < 1e-10);
        let one_to_eleven: Vec<f64> = (1..=11).map(f64::from).collect();
        let r = shapiro_wilk(&one_to_eleven).unwrap();
        assert!(rel(r.w, 0.968391280517045) < 1e-12);
        assert!(rel(r.p_value, 0.869842328783786) < 1e-10);
    }

    #[test]
    fn order_does_not_matter_and_bad_input_is_refused() {
        let mut x = f(20);
        let a = shapiro_wilk(&x).unwrap();
        x.reverse();
        assert_eq!(shapiro_wilk(&x).unwrap(), a);
        assert!(shapiro_wilk(&[1.0, 2.0]).is_err());
        assert!(shapiro_wilk(&[2.0; 10]).is_err());
        assert!(shapiro_wilk(&vec![1.0; 5001]).is_err());
    }
}
