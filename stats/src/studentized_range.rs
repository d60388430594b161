//! The studentized range distribution: the law of `Q = (max − min of k standard normals) / S`
//! with `νS² ~ χ²_ν` independent of them, behind Tukey's HSD intervals (Georges et al. 2008
//! §4.1 "post-hoc test"; Tukey 1953, Lund & Lund, "Probabilities and upper quantiles for
//! the studentized range", Applied Statistics 32, 1983 give the integral form used here).
//!
//! `P(Q ≤ q) = ∫₀^∞ f_S(s) · P_k(q s) ds` with the range's law for known variance
//! `P_k(w) = k ∫ φ(z) [Φ(z) − Φ(z − w)]^{k−1} dz` and `f_S(s) ∝ s^{ν−1} e^{−ν s²/2}`.
//!
//! Own code, because nothing in our dependency tree provides it (statrs has no studentized
//! range) and the two public implementations are not ours to copy: R's `ptukey` (Copenhaver
//! & Holland's AS 190 in C, GPL) and scipy's (a Cython quadrature). A double composite
//! Gauss–Legendre rule over the finite ranges where the integrands live is short, easy to
//! check against closed forms (`k = 2` is `√2·|t_ν|`), and accurate to about 1e-9 against
//! scipy, far below what a confidence interval needs. The normalising constant of `f_S` is
//! integrated on the same grid, which cancels its quadrature error and avoids Γ(ν/2) for
//! large `ν`.

use std::sync::OnceLock;

use statrs::function::erf::erfc;

use super::error::{check_confidence, StatsError};
use super::tdist::t_quantile;

/// Gauss–Legendre nodes and weights on [−1, 1].
const GL_POINTS: usize = 20;

/// The standard normal density's reach: beyond ±8.5 it is below 1e-16.
const Z_REACH: f64 = 8.5;

/// Panels of the inner (normal) integral over [−Z_REACH, Z_REACH].
const INNER_PANELS: usize = 24;

/// Panels of the outer (`s`) integral over the range where `f_S` exceeds e^{−50} of its
/// maximum.
const OUTER_PANELS: usize = 32;

/// Above this many degrees of freedom `S` is 1 to within 1e-12 of its spread and the
/// known-variance law `P_k(q)` is used.
const LARGE_DF: f64 = 1e12;

fn gauss_legendre() -> &'static [(f64, f64); GL_POINTS] {
    static NODES: OnceLock<[(f64, f64); GL_POINTS]> = OnceLock::new();
    NODES.get_or_init(|| {
        // Newton's method on the Legendre polynomial P_n from Chebyshev starting points.
        let n = GL_POINTS;
        let mut out = [(0.0, 0.0); GL_POINTS];
        for (i, slot) in out.iter_mut().enumerate() {
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut derivative = 0.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, x);
                for j in 2..=n {
                    let p2 = ((2 * j - 1) as f64 * x * p1 - (j - 1) as f64 * p0) / j as f64;
                    p0 = p1;
                    p1 = p2;
                }
                derivative = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                let step = p1 / derivative;
                x -= step;
                if step.abs() < 1e-16 {
                    break;
                }
            }
            *slot = (x, 2.0 / ((1.0 - x * x) * derivative * derivative));
        }
        out
    })
}

/// `∫_a^b f` by the composite Gauss–Legendre rule with `panels` equal panels.
fn integrate(a: f64, b: f64, panels: usize, mut f: impl FnMut(f64) -> f64) -> f64 {
    let nodes = gauss_legendre();
    let width = (b - a) / panels as f64;
    let mut total = 0.0;
    for p in 0..panels {
        let centre = a + (p as f64 + 0.5) * width;
        let half = width / 2.0;
        total += half
            * nodes
                .iter()
                .map(|&(x, w)| w * f(centre + half * x))
                .sum::<f64>();
    }
    total
}

/// Upper tail of the standard normal, `1 − Φ(x)`, accurate for large `x`.
fn upper_tail(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// `Φ(z) − Φ(z − w)` for `w ≥ 0`, from whichever tails keep the difference accurate.
fn normal_mass(z: f64, w: f64) -> f64 {
    if z - w / 2.0 > 0.0 {
        upper_tail(z - w) - upper_tail(z)
    } else {
        upper_tail(-z) - upper_tail(w - z)
    }
}

/// `P_k(w)`: the probability that the range of `k` independent standard normals is at most
/// `w` (the known-variance case, `ν = ∞`).
pub fn range_cdf(w: f64, k: usize) -> f64 {
    if w <= 0.0 {
        return 0.0;
    }
    if w.is_infinite() {
        return 1.0;
    }
    let inv_sqrt_2pi = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    let p = integrate(-Z_REACH, Z_REACH, INNER_PANELS, |z| {
        inv_sqrt_2pi * (-z * z / 2.0).exp() * normal_mass(z, w).powi(k as i32 - 1)
    });
    (k as f64 * p).clamp(0.0, 1.0)
}

/// `1 − P_k(w)`: the probability that the range of `k` independent standard normals
/// exceeds `w`, integrated directly so that small values keep their relative accuracy.
///
/// Since `k ∫ φ(z) Φ(z)^{k−1} dz = 1`, `1 − P_k(w) = k ∫ φ(z) (a^{k−1} − c^{k−1}) dz` with
/// `a = Φ(z)`, `c = Φ(z) − Φ(z − w)`; the difference of powers is expanded as
/// `(a − c) Σ_{j<k−1} a^j c^{k−2−j}` with `a − c = Φ(z − w)` taken from the normal tail, so
/// no term cancels.
pub fn range_sf(w: f64, k: usize) -> f64 {
    if w <= 0.0 {
        return 1.0;
    }
    if w.is_infinite() {
        return 0.0;
    }
    let inv_sqrt_2pi = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    let m = k as i32 - 1;
    // The integrand is small, e^{−w²/4} at most, and centred at z = w/2: cutting at
    // Z_REACH would lose a share of it as w grows, so reach Z_REACH beyond the centre, with
    // panels of the same width as the cdf's.
    let upper = Z_REACH.max(w / 2.0 + Z_REACH);
    let panels = (INNER_PANELS as f64 * (upper + Z_REACH) / (2.0 * Z_REACH)).ceil() as usize;
    let p = integrate(-Z_REACH, upper, panels, |z| {
        let a = if z < 0.0 {
            upper_tail(-z)
        } else {
            1.0 - upper_tail(z)
        };
        let c = normal_mass(z, w);
        let powers: f64 = (0..m).map(|j| a.powi(j) * c.powi(m - 1 - j)).sum();
        inv_sqrt_2pi * (-z * z / 2.0).exp() * upper_tail(w - z) * powers
    });
    (k as f64 * p).clamp(0.0, 1.0)
}

/// `P(Q ≤ q)` for the studentized range of `k ≥ 2` means with `df > 0` degrees of freedom
/// (`f64::INFINITY` for a known variance); NaN outside that domain, never a panic.
pub fn studentized_range_cdf(q: f64, k: usize, df: f64) -> f64 {
    over_estimated_variance(q, k, df, 0.0, range_cdf)
}

/// `P(Q > q)`, the survival function, integrated directly from [`range_sf`] (not
/// `1 − cdf`), so that Tukey p-values far below 1e-9 stay meaningful.
pub fn studentized_range_sf(q: f64, k: usize, df: f64) -> f64 {
    over_estimated_variance(q, k, df, 1.0, range_sf)
}

/// `range` (the known-variance cdf or sf of `k` means) integrated over the distribution of
/// `s` with `df` degrees of freedom; `at_zero` for `q ≤ 0`, NaN outside the domain.
fn over_estimated_variance(
    q: f64,
    k: usize,
    df: f64,
    at_zero: f64,
    range: fn(f64, usize) -> f64,
) -> f64 {
    if k < 2 || df.is_nan() || df <= 0.0 || q.is_nan() {
        return f64::NAN;
    }
    if q <= 0.0 {
        return at_zero;
    }
    if df > LARGE_DF {
        return range(q, k);
    }
    over_s(q, df, |w| range(w, k))
}

/// `∫ f_S(s) · law(q s) ds` over the range where `f_S` lives, normalised on the same grid
/// (module docs): the known-variance `law` mixed over the estimated standard deviation.
fn over_s(q: f64, df: f64, law: impl Fn(f64) -> f64) -> f64 {
    // log f_S(s) up to a constant, and where it lives.
    let log_g = |s: f64| (df - 1.0) * s.ln() - df * s * s / 2.0;
    let mode = if df > 1.0 {
        ((df - 1.0) / df).sqrt()
    } else {
        0.0
    };
    let peak = if mode > 0.0 { log_g(mode) } else { 0.0 };
    let spread = 1.0 / (2.0 * df).sqrt();
    let reach = |dir: f64| {
        let mut step = spread;
        let mut s = mode;
        loop {
            let next = s + dir * step;
            if next <= 0.0 {
                return 0.0;
            }
            if log_g(next) - peak < -50.0 {
                return next;
            }
            s = next;
            step *= 1.5;
        }
    };
    let (lo, hi) = (if mode > 0.0 { reach(-1.0) } else { 0.0 }, reach(1.0));
    let density = |s: f64| {
        if s <= 0.0 {
            0.0
        } else {
            (log_g(s) - peak).exp()
        }
    };
    let norm = integrate(lo, hi, OUTER_PANELS, density);
    let mass = integrate(lo, hi, OUTER_PANELS, |s| density(s) * law(q * s));
    (mass / norm).clamp(0.0, 1.0)
}

/// The `p` quantile of the studentized range: the `q` with `P(Q ≤ q) = p`.
///
/// Bracketed between `√2·t_{1−α/2}` (one pair, a lower bound) and the Bonferroni bound
/// `√2·t_{1−α/(k(k−1))}` over the `k(k−1)/2` pairs (an upper bound), then refined by the
/// Illinois variant of regula falsi to 1e-10 relative.
pub fn studentized_range_quantile(p: f64, k: usize, df: f64) -> Result<f64, StatsError> {
    // Each quantile costs a dozen double integrals, and a report (or a simulation) asks for
    // the same (p, k, df) again and again: remember the answers (a handful of designs).
    type Key = (u64, usize, u64);
    static MEMO: OnceLock<std::sync::Mutex<std::collections::HashMap<Key, f64>>> = OnceLock::new();
    let key = (p.to_bits(), k, df.to_bits());
    let memo = MEMO.get_or_init(Default::default);
    if let Some(q) = memo.lock().ok().and_then(|m| m.get(&key).copied()) {
        return Ok(q);
    }
    let q = quantile_uncached(p, k, df)?;
    if let Ok(mut m) = memo.lock() {
        if m.len() >= 1024 {
            m.clear();
        }
        m.insert(key, q);
    }
    Ok(q)
}

/// [`studentized_range_quantile`] computed afresh.
fn quantile_uncached(p: f64, k: usize, df: f64) -> Result<f64, StatsError> {
    check_confidence(p)?;
    if k < 2 || df.is_nan() || df <= 0.0 {
        return Err(StatsError::Domain(format!(
            "the studentized range needs k ≥ 2 and df > 0, got k = {k}, df = {df}"
        )));
    }
    let alpha = 1.0 - p;
    let pairs = (k * (k - 1) / 2) as f64;
    let mut lo = std::f64::consts::SQRT_2 * t_quantile(1.0 - alpha / 2.0, df).max(0.0);
    let mut hi = std::f64::consts::SQRT_2 * t_quantile(1.0 - alpha / (2.0 * pairs), df);
    let f = |q: f64| studentized_range_cdf(q, k, df) - p;
    let (mut f_lo, mut f_hi) = (f(lo), f(hi));
    // The bounds hold in theory; widen if quadrature rounding put one on the wrong side.
    while f_lo > 0.0 {
        lo /= 2.0;
        f_lo = f(lo);
    }
    while f_hi < 0.0 {
        hi *= 2.0;
        f_hi = f(hi);
    }
    let mut side = 0;
    for _ in 0..100 {
        let q = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
        let fq = f(q);
        if fq == 0.0 || (hi - lo) < 1e-10 * q {
            return Ok(q);
        }
        if fq < 0.0 {
            lo = q;
            f_lo = fq;
            if side == -1 {
                f_hi /= 2.0;
            }
            side = -1;
        } else {
            hi = q;
            f_hi = fq;
            if side == 1 {
                f_lo /= 2.0;
            }
            side = 1;
        }
        if (hi - lo) < 1e-10 * hi {
            return Ok((lo + hi) / 2.0);
        }
    }
    Ok((lo + hi) / 2.0)
}

// Reference values are pasted exactly as scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::tdist::t_cdf;

    // python3 -c "from scipy.stats import studentized_range as sr; print(repr(sr.cdf(q, k, df)))"
    // (scipy 1.17.1; df = np.inf for the infinite case)
    const CDF: &[(f64, usize, f64, f64)] = &[
        (3.5, 3, 10.0, 0.9228966891615896),
        (2.0, 4, 20.0, 0.4945596545878861),
        (4.0, 2, 5.0, 0.9632574019948479),
        (5.0, 10, 30.0, 0.9625770171515469),
        (10.0, 4, 1.0, 0.8375510886620144),
        (3.0, 5, 1000.0, 0.788271156758619),
        (3.3, 3, f64::INFINITY, 0.9486890935818101),
        (1.0, 3, 12.0, 0.2360181039227479),
        (6.0, 20, 60.0, 0.9896649423812391),
        (0.5, 2, 3.0, 0.25293992189533804),
    ];

    // python3 -c "from scipy.stats import studentized_range as sr; print(repr(sr.ppf(p, k, df)))"
    const QUANTILE: &[(f64, usize, f64, f64)] = &[
        (0.95, 3, 10.0, 3.876776750013158),
        (0.95, 4, 20.0, 3.9582935609453846),
        (0.95, 2, 5.0, 3.63535169514679),
        (0.99, 4, 12.0, 5.501626301057456),
        (0.95, 10, 30.0, 4.824141286183106),
        (0.95, 4, 1.0, 32.81872573277892),
        (0.95, 4, 1000.0, 3.63927523487881),
        (0.9, 6, 8.0, 4.430837137961394),
        (0.95, 3, f64::INFINITY, 3.314493155398122),
        (0.95, 4, 87.0, 3.704375164262269),
    ];

    #[test]
    fn cdf_matches_scipy() {
        for &(q, k, df, want) in CDF {
            let got = studentized_range_cdf(q, k, df);
            assert!(
                (got - want).abs() < 1e-9,
                "q={q} k={k} df={df}: {got} vs {want}"
            );
        }
    }

    // python3 -c "import numpy as np; from scipy.stats import studentized_range as sr
    // print(repr(sr.sf(q, k, df)))"   (scipy 1.17.1; df = np.inf for the infinite case)
    const SF: &[(f64, usize, f64, f64)] = &[
        (3.5, 3, 10.0, 0.07710331083841038),
        (6.0, 3, 10.0, 0.004420415342313744),
        (10.0, 3, 10.0, 9.176336454963518e-05),
        (15.0, 4, 20.0, 6.685382913929061e-09),
        (8.0, 5, 60.0, 4.452437588509106e-06),
        (9.0, 3, f64::INFINITY, 5.897436983204329e-10),
        (20.0, 3, 5.0, 7.537024629367117e-05),
        (12.0, 10, 30.0, 7.590600614726384e-08),
        (7.0, 2, 100.0, 3.0161441920695253e-06),
        (4.0, 4, 2.0, 0.24698913224187624),
    ];

    // Below about 1e-9 scipy's own quadrature is the limit of a comparison with it: its
    // sf(10, 2, ∞) is 1.5374368e-12 where the closed form 2·norm.sf(10/√2) is 1.5374598e-12,
    // its sf(12, 3, 60) 2.1930679e-11 and sf(18, 4, 40) 6.7723605e-15 where the quadrature
    // below gives 2.1922576e-11 and 7.1504830e-15. So the far tail is checked against an
    // independent arbitrary-precision quadrature of the same integrals (mpmath 1.3):
    // python3 -c "import mpmath as mp; mp.mp.dps = 20; P, p = mp.ncdf, mp.npdf
    // def rsf(w, k):
    //     f = lambda z: p(z)*(P(z)**(k-1) - (P(z) - P(z-w))**(k-1))
    //     return k*mp.quad(f, [-mp.inf, 0, w/2, w, mp.inf])
    // def sf(q, k, nu):
    //     c = nu**(nu/2) / (mp.gamma(nu/2) * 2**(nu/2 - 1))
    //     g = lambda s: c * s**(nu-1) * mp.exp(-nu*s*s/2) * rsf(q*s, k)
    //     return mp.quad(g, [0, 0.5, 0.8, 1, 1.2, 1.6, mp.inf])
    // print(rsf(10, 3), rsf(9, 3), rsf(10.5, 5), sf(12, 3, 60), sf(13.5, 3, 60),
    //       sf(18, 4, 40))"   (dps = 40 for the df = ∞ ones)
    const SF_MPMATH: &[(f64, usize, f64, f64)] = &[
        (10.0, 3, f64::INFINITY, 4.6122265303587988e-12),
        (9.0, 3, f64::INFINITY, 5.897436416604921e-10),
        (10.5, 5, f64::INFINITY, 1.1309855760861884e-12),
        (12.0, 3, 60.0, 2.19225763226275e-11),
        (13.5, 3, 60.0, 3.61105665073336e-13),
        (18.0, 4, 40.0, 7.15048304827456e-15),
    ];

    #[test]
    fn sf_matches_scipy_down_to_small_p() {
        for &(q, k, df, want) in SF {
            let got = studentized_range_sf(q, k, df);
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "q={q} k={k} df={df}: {got} vs {want}"
            );
        }
        for &(q, k, df, want) in SF_MPMATH {
            let got = studentized_range_sf(q, k, df);
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "q={q} k={k} df={df}: {got} vs {want}"
            );
        }
        // Where both are meaningful, sf + cdf = 1.
        let (q, k, df) = (3.5, 3, 10.0);
        let sum = studentized_range_sf(q, k, df) + studentized_range_cdf(q, k, df);
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
    }

    #[test]
    fn sf_of_two_means_is_twice_the_t_tail() {
        // Closed form for k = 2: P(Q > q) = 2·P(T_ν > q/√2):
        // python3 -c "import math; from scipy.stats import t
        // print(repr(2*t.sf(q/math.sqrt(2), df)))"   (scipy 1.17.1)
        for (q, df, want) in [
            (9.0, 4.0, 0.0031255892524457273),
            (12.0, 30.0, 1.8101656264978963e-09),
            (11.5, 60.0, 2.921655147863493e-11),
            (11.0, 120.0, 2.8460923964524536e-12),
        ] {
            let got = studentized_range_sf(q, 2, df);
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "q={q} df={df}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn quantile_matches_scipy() {
        for &(p, k, df, want) in QUANTILE {
            let got = studentized_range_quantile(p, k, df).unwrap();
            assert!(
                ((got - want) / want).abs() < 1e-8,
                "p={p} k={k} df={df}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn two_means_are_root_two_times_t() {
        // Closed form: the range of two normals over S is √2·|T_ν|, so
        // P(Q ≤ q) = 2·F_t(q/√2; ν) − 1.
        for (q, df) in [(1.0, 4.0), (2.5, 9.0), (4.0, 2.0), (3.0, 50.0), (0.3, 1.0)] {
            let want = 2.0 * t_cdf(q / std::f64::consts::SQRT_2, df) - 1.0;
            let got = studentized_range_cdf(q, 2, df);
            assert!((got - want).abs() < 1e-10, "q={q} df={df}: {got} vs {want}");
        }
    }

    #[test]
    fn range_of_normals_closed_form_for_two() {
        // P(|Z1 − Z2| ≤ w) = 2Φ(w/√2) − 1; scipy.stats.norm.cdf(1/sqrt(2))*2-1 = 0.5204998778130465
        let got = range_cdf(1.0, 2);
        // statrs' erfc is good to about 1e-12, the quadrature to better: 1e-10 is safe.
        assert!((got - 0.5204998778130465).abs() < 1e-10, "{got}");
    }

    #[test]
    fn refuses_bad_arguments() {
        assert!(studentized_range_quantile(1.0, 3, 10.0).is_err());
        assert!(studentized_range_quantile(0.95, 1, 10.0).is_err());
        assert!(studentized_range_quantile(0.95, 3, 0.0).is_err());
        assert_eq!(studentized_range_cdf(0.0, 3, 10.0), 0.0);
    }
}
