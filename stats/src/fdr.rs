//! Screening many hypotheses at once: the Benjamini–Hochberg step-up adjustment (false
//! discovery rate) and a permutation test of association between a feature and a response.
//!
//! `layoutrand explain` tests every (hot function, layout feature) pair against the binaries'
//! means. Hundreds of tests at 5 % each would name a dozen innocent functions by chance; the
//! Benjamini–Hochberg procedure (Benjamini & Hochberg, "Controlling the false discovery rate",
//! JRSS B 57, 1995, §3) keeps the expected share of false names among the named at most `q`
//! when the tests are independent or positively dependent (Benjamini & Yekutieli 2001, Thm
//! 1.2). The per-test p-values come from a permutation test: the unit is the binary, whose
//! labels are exchangeable under "the feature does not matter", so no normality is assumed.

use crate::seeded::SeededRng;

use super::error::{at_least, StatsError};

/// Benjamini–Hochberg adjusted p-values ("q-values"), as R's `p.adjust(p, "BH")`:
/// `q_(i) = min_{j ≥ i} min(1, m · p_(j) / j)` over the p-values sorted increasingly
/// (Benjamini & Hochberg 1995, §3; the adjusted form of Yekutieli & Benjamini 1999). A test is
/// a discovery at false discovery rate `q` when its adjusted value is at most `q`. Returned in
/// the input order. Errors: no p-value, or one outside [0, 1] (NaN included).
///
/// ```
/// // Sorted: 0.01, 0.03, 0.04, 0.5; m·p/j = 0.04, 0.06, 0.0533, 0.5, then the running
/// // minimum from the top (R: p.adjust(c(0.01, 0.04, 0.03, 0.5), "BH")).
/// let q = layoutrand_stats::fdr::benjamini_hochberg(&[0.01, 0.04, 0.03, 0.5]).unwrap();
/// let want = [0.04, 0.16 / 3.0, 0.16 / 3.0, 0.5];
/// assert!(q.iter().zip(want).all(|(q, w)| (q - w).abs() < 1e-12));
/// ```
pub fn benjamini_hochberg(p: &[f64]) -> Result<Vec<f64>, StatsError> {
    at_least("Benjamini–Hochberg", "p-values", 1, p.len())?;
    if let Some(bad) = p.iter().find(|v| !(0.0..=1.0).contains(*v)) {
        return Err(StatsError::Domain(format!(
            "Benjamini–Hochberg: p-value {bad} is not in [0, 1]"
        )));
    }
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut q = vec![0.0; m];
    let mut running = 1.0_f64;
    // Step up from the largest p-value: the running minimum makes the q-values monotone.
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(p[i] * m as f64 / (rank + 1) as f64);
        q[i] = running.min(1.0);
    }
    Ok(q)
}

/// The outcome of [`permutation_correlation`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PermutationTest {
    /// Pearson's correlation of feature and response in the data as observed.
    pub r: f64,
    /// Two-sided p-value: `(1 + #{|r*| ≥ |r|}) / (1 + permutations)` over the permuted data
    /// (Phipson & Smyth, "Permutation p-values should never be zero", SAGMB 9, 2010, eq. 2:
    /// the observed labelling counts as one of the permutations, so the test is exact in
    /// size and p is never 0).
    pub p: f64,
    /// Number of random permutations drawn.
    pub permutations: usize,
}

/// Permutation test of association between `feature` and `response` (one value per unit),
/// with Pearson's |r| as the statistic: the response is shuffled over the units
/// `permutations` times with `rng` (Good, *Permutation Tests*, 2nd ed. 2000, §3.5). Under the
/// null hypothesis that the response does not depend on the feature the units' responses are
/// exchangeable, so the test's size is exact whatever their distribution; |r| makes it
/// sensitive to a monotone (linear) association, which covers a 0/1 feature completely (r is
/// then the point-biserial correlation, a monotone function of the t statistic).
///
/// Errors: fewer than 3 units, lengths that differ, fewer than 19 permutations (no p below
/// 0.05 possible), a non-finite value, or a feature or response that does not vary (no
/// association is defined: the caller says "cannot tell" or leaves the feature out).
pub fn permutation_correlation(
    feature: &[f64],
    response: &[f64],
    permutations: usize,
    rng: &mut SeededRng,
) -> Result<PermutationTest, StatsError> {
    const METHOD: &str = "the permutation test of association";
    at_least(METHOD, "units", 3, feature.len())?;
    at_least(METHOD, "permutations", 19, permutations)?;
    if feature.len() != response.len() {
        return Err(StatsError::Domain(format!(
            "{METHOD}: {} feature values for {} responses",
            feature.len(),
            response.len()
        )));
    }
    if feature.iter().chain(response).any(|v| !v.is_finite()) {
        return Err(StatsError::Domain(format!(
            "{METHOD}: a value is not finite"
        )));
    }
    let r = pearson(feature, response)?;
    let mut shuffled = response.to_vec();
    let mut at_least_as_extreme = 0usize;
    // Round-off: a permutation giving the observed |r| exactly (ties of a 0/1 feature) may
    // differ in the last bits; it must count as "as extreme".
    let bar = r.abs() * (1.0 - 1e-12);
    for _ in 0..permutations {
        rng.shuffle(&mut shuffled);
        if pearson(feature, &shuffled)?.abs() >= bar {
            at_least_as_extreme += 1;
        }
    }
    Ok(PermutationTest {
        r,
        p: (1 + at_least_as_extreme) as f64 / (1 + permutations) as f64,
        permutations,
    })
}

/// Pearson's product-moment correlation of two equally long samples; an error when either
/// does not vary.
pub fn pearson(x: &[f64], y: &[f64]) -> Result<f64, StatsError> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    // Relative guard: a sample whose spread is round-off of its mean does not vary.
    let flat = |s: f64, m: f64| s <= (m.abs() * 1e-12).powi(2) * n;
    if flat(sxx, mx) || flat(syy, my) {
        return Err(StatsError::Degenerate(
            "a correlation needs both samples to vary".into(),
        ));
    }
    Ok((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// The fewest units with which a perfect association of a 0/1 feature (half the units each
/// way) can reach a Benjamini–Hochberg discovery at rate `q` among `tests` tests: the
/// smallest `n` whose exact two-sided permutation p-value `2 / C(n, ⌊n/2⌋)` is at most
/// `q / tests` (a lone true effect is discovered only when its p is below `q / m`; BH 1995
/// §3). Fewer units can name no culprit however strong the effect: the screening then says
/// "cannot tell" and this number. Errors: `q` outside (0, 1) or no test.
pub fn units_needed(tests: usize, q: f64) -> Result<usize, StatsError> {
    if !(q > 0.0 && q < 1.0) || tests == 0 {
        return Err(StatsError::Domain(format!(
            "units needed: a rate in (0, 1) and at least one test are needed (got {q}, {tests})"
        )));
    }
    let bar = q / tests as f64;
    let mut n = 2usize;
    // C(n, n/2) grows like 2^n / sqrt(n): the loop ends within a few dozen steps for any
    // number of tests a program can have.
    loop {
        if 2.0 / binomial(n, n / 2) <= bar {
            return Ok(n);
        }
        n += 1;
    }
}

/// The partial correlation of `x` and `y` given `z`, and its two-sided p-value: r_xy·z =
/// (r_xy − r_xz r_yz) / √((1 − r_xz²)(1 − r_yz²)), tested with t = r √(n − 3) / √(1 − r²)
/// on n − 3 degrees of freedom (Fisher 1924; Cohen, Cohen, West & Aiken 2003, §3.3).
/// Errors: fewer than 4 values, unequal lengths, a sample that does not vary, or `x` or
/// `y` a perfect linear function of `z` (nothing left to correlate).
pub fn partial_correlation(x: &[f64], y: &[f64], z: &[f64]) -> Result<(f64, f64), StatsError> {
    crate::error::at_least("a partial correlation", "values", 4, x.len())?;
    if y.len() != x.len() || z.len() != x.len() {
        return Err(StatsError::Domain(
            "a partial correlation needs samples of equal length".into(),
        ));
    }
    let (rxy, rxz, ryz) = (pearson(x, y)?, pearson(x, z)?, pearson(y, z)?);
    let denominator = ((1.0 - rxz * rxz) * (1.0 - ryz * ryz)).sqrt();
    if denominator <= 1e-12 {
        return Err(StatsError::Degenerate(
            "a sample is a linear function of the one held fixed".into(),
        ));
    }
    let r = ((rxy - rxz * ryz) / denominator).clamp(-1.0, 1.0);
    let df = x.len() as f64 - 3.0;
    let p = if r.abs() >= 1.0 {
        0.0
    } else {
        let t = r.abs() * df.sqrt() / (1.0 - r * r).sqrt();
        2.0 * (1.0 - crate::tdist::t_cdf(t, df))
    };
    Ok((r, p.clamp(0.0, 1.0)))
}

/// [`units_needed`] at an uneven split: the fewest units with which a perfect association
/// of a 0/1 feature holding `share` of the units on its smaller side (0 < share ≤ 1/2) can
/// reach a Benjamini–Hochberg discovery at rate `q` among `tests` tests. With k = ⌈share ·
/// n⌉ units on that side, the best exact permutation p-value is 1 / C(n, k) (the one
/// arrangement putting exactly those units highest; 2 / C(n, n/2) at an even split, whose
/// mirror arrangement is as extreme). A 3-of-20 split needs more units than halves do.
/// Errors: `q` outside (0, 1), no test, or `share` outside (0, 1/2].
pub fn units_needed_at_split(tests: usize, q: f64, share: f64) -> Result<usize, StatsError> {
    if !(share > 0.0 && share <= 0.5) {
        return Err(StatsError::Domain(format!(
            "units needed at a split: the smaller side's share must be in (0, 1/2] (got {share})"
        )));
    }
    let halves = units_needed(tests, q)?;
    let bar = q / tests as f64;
    let mut n = 2usize;
    loop {
        let k = ((share * n as f64).ceil() as usize).clamp(1, n / 2);
        let best = if 2 * k == n { 2.0 } else { 1.0 } / binomial(n, k);
        if best <= bar || n >= halves.max(2) * 64 {
            return Ok(n.max(halves));
        }
        n += 1;
    }
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against R's ppcor::pcor.test, reproduced with scipy (R is not installed here):
    /// python3 -c "import numpy as np, scipy.stats as st
    ///   x=[1,2,3,4,5,6,7,8]; y=[2,1,4,3,6,5,8,9]; z=[1,1,2,2,3,3,5,4]
    ///   rx=np.polyfit(z,x,1); ry=np.polyfit(z,y,1)
    ///   ex=np.array(x)-np.polyval(rx,z); ey=np.array(y)-np.polyval(ry,z)
    ///   r=np.corrcoef(ex,ey)[0,1]; t=r*np.sqrt(5)/np.sqrt(1-r*r)
    ///   print(r, 2*st.t.sf(abs(t),5))"
    #[test]
    fn partial_correlation_matches_the_residual_correlation() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let y = [2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 9.0];
        let z = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 5.0, 4.0];
        let (r, p) = partial_correlation(&x, &y, &z).unwrap();
        assert!((r - 0.428746462856272).abs() < 1e-9, "{r}");
        assert!((p - 0.3371491779905248).abs() < 1e-6, "{p}");
        assert!(partial_correlation(&x, &y, &x).is_err());
        assert!(partial_correlation(&x[..3], &y[..3], &z[..3]).is_err());
    }

    /// Closed forms: at halves it is `units_needed`; 3 of 20 (0.15) among 277 tests at 5 %
    /// (bar 1.805e-4): C(n, ⌈0.15 n⌉) must reach 5540: n = 20 gives C(20, 3) = 1140, n = 21
    /// C(21, 4) = 5985 ≥ 5540 — but never fewer than at halves (16 for 277 tests).
    #[test]
    fn units_needed_at_an_uneven_split() {
        assert_eq!(
            units_needed_at_split(24, 0.05, 0.5).unwrap(),
            units_needed(24, 0.05).unwrap()
        );
        assert_eq!(units_needed(277, 0.05).unwrap(), 16);
        assert_eq!(units_needed_at_split(277, 0.05, 0.15).unwrap(), 21);
        // One in 20: C(n, ⌈n/20⌉) = n for n ≤ 20, so n ≥ 5540 / ... grows until k = 2.
        assert!(units_needed_at_split(277, 0.05, 0.05).unwrap() > 21);
        assert!(units_needed_at_split(10, 0.05, 0.0).is_err());
        assert!(units_needed_at_split(10, 0.05, 0.6).is_err());
    }

    #[test]
    fn bh_matches_r_p_adjust() {
        // Reference (R is not installed here; statsmodels implements R's p.adjust "BH"):
        // python3 -c "from statsmodels.stats.multitest import multipletests as m;
        //   print(list(m([0.01,0.04,0.03,0.005,0.5,0.2,0.04], method='fdr_bh')[1]))"
        // -> [0.035, 0.056, 0.056, 0.035, 0.5, 0.23333333333333336, 0.056]
        // R: p.adjust(c(0.01,0.04,0.03,0.005,0.5,0.2,0.04), "BH") gives the same values.
        let p = [0.01, 0.04, 0.03, 0.005, 0.5, 0.2, 0.04];
        let want = [0.035, 0.056, 0.056, 0.035, 0.5, 0.23333333333333334, 0.056];
        let q = benjamini_hochberg(&p).unwrap();
        for (a, b) in q.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
        // Capped at 1; one test is its own q.
        assert_eq!(benjamini_hochberg(&[0.9, 0.95]).unwrap(), vec![0.95, 0.95]);
        assert_eq!(benjamini_hochberg(&[0.3]).unwrap(), vec![0.3]);
        assert!(benjamini_hochberg(&[]).is_err());
        assert!(benjamini_hochberg(&[0.1, f64::NAN]).is_err());
        assert!(benjamini_hochberg(&[1.5]).is_err());
    }

    #[test]
    fn pearson_closed_forms() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert!((pearson(&x, &[2.0, 4.0, 6.0, 8.0]).unwrap() - 1.0).abs() < 1e-15);
        assert!((pearson(&x, &[8.0, 6.0, 4.0, 2.0]).unwrap() + 1.0).abs() < 1e-15);
        // python3 -c "import numpy as n; print(n.corrcoef([1,2,3,4],[1,3,2,5])[0,1])"
        // -> 0.8315218406202999
        assert!((pearson(&x, &[1.0, 3.0, 2.0, 5.0]).unwrap() - 0.8315218406202999).abs() < 1e-12);
        assert!(pearson(&x, &[5.0; 4]).is_err());
    }

    #[test]
    fn perfect_split_reaches_its_exact_p_value() {
        // 8 units, 4 with the feature: a perfect separation is 2 of C(8,4) = 70 labellings
        // (both signs), so the Monte Carlo p converges to 2/70 ≈ 0.0286.
        let x = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
        let y = [1.0, 1.1, 0.9, 1.05, 2.0, 2.1, 1.9, 2.05];
        let mut rng = SeededRng::new(7, "fdr:test");
        let t = permutation_correlation(&x, &y, 20_000, &mut rng).unwrap();
        // python3 -c "import numpy as n; print(n.corrcoef([0,0,0,0,1,1,1,1],
        //   [1,1.1,.9,1.05,2,2.1,1.9,2.05])[0,1])"  -> 0.9892387336589958
        assert!((t.r - 0.9892387336589958).abs() < 1e-12, "{t:?}");
        assert!((t.p - 2.0 / 70.0).abs() < 0.004, "{t:?}");
        assert!(permutation_correlation(&x, &[1.0; 8], 100, &mut rng).is_err());
        assert!(permutation_correlation(&x[..2], &y[..2], 100, &mut rng).is_err());
        assert!(permutation_correlation(&x, &y, 10, &mut rng).is_err());
    }

    #[test]
    fn units_needed_closed_form() {
        // One test at 5 %: 2/C(n, n/2) <= 0.05 first at n = 8 (2/70 = 0.029; n = 7: 2/35 =
        // 0.057). 40 tests: bar 0.00125; n = 12 gives 2/924 = 0.0022, n = 13 gives 2/1716 =
        // 0.00117: so 13.
        assert_eq!(units_needed(1, 0.05).unwrap(), 8);
        assert_eq!(units_needed(40, 0.05).unwrap(), 13);
        assert!(units_needed(0, 0.05).is_err());
    }

    /// Seeded simulation of the screening under the complete null: 200 experiments of 20
    /// binaries, each with 30 features independent of the response. BH at 5 % must name at
    /// least one feature in at most about 5 % of experiments (under the complete null the
    /// FDR is the family-wise rate). Counted per experiment.
    #[test]
    fn simulated_false_discovery_rate_under_the_null() {
        let mut rng = SeededRng::new(2026, "fdr:simulation");
        let (experiments, units, features) = (200, 20, 30);
        let mut with_false = 0;
        for _ in 0..experiments {
            let y: Vec<f64> = (0..units).map(|_| rng.normal()).collect();
            let mut p = Vec::new();
            for f in 0..features {
                // Half 0/1 features (as the cache-line halves), half continuous offsets.
                let x: Vec<f64> = (0..units)
                    .map(|_| match f % 2 {
                        0 => rng.below(2) as f64,
                        _ => rng.below(64) as f64,
                    })
                    .collect();
                match permutation_correlation(&x, &y, 999, &mut rng) {
                    Ok(t) => p.push(t.p),
                    Err(_) => p.push(1.0),
                }
            }
            if benjamini_hochberg(&p).unwrap().iter().any(|&q| q <= 0.05) {
                with_false += 1;
            }
        }
        // Binomial(200, 0.05): mean 10, sd 3.1; the bound 20 is 3.2 sd above.
        assert!(with_false <= 20, "{with_false} of {experiments}");
        eprintln!("BH null: {with_false} of {experiments} experiments named a feature");
    }
}
