//! Planning a crossed experiment (issue 35): how many binaries (code seeds) `a`, data seeds
//! `b` and executions per pair `n` reach a target precision of the mean over code and data
//! layouts at the least cost — Kalibera & Jones's eq. 3 cost optimisation carried over from
//! their nested hierarchy to the two-way crossed random-effects model of
//! [`super::variance_split`] (derivation in docs/statistics.md, "Planning the crossed
//! design").
//!
//! Under that model the grand mean of a balanced `a × b × n` experiment has the variance
//! (Searle, Casella & McCulloch 1992 §4.6: each effect averaged over its own levels)
//!
//! `V(a, b, n) = σ_c²/a + σ_d²/b + σ_cd²/(a b) + σ_e²/(a b n)`,
//!
//! and the experiment costs `C = a c_bin + a b n c_exec` (a binary is built once; a data
//! seed is a run-time parameter, free but for the executions it adds). For fixed `a` and
//! executions per binary `m = b n`, `V` falls as `b` grows at no cost, so the cheapest design
//! has the fewest executions per pair that still separates run noise from the interaction:
//! `n = 2` (`n = 1` is cheaper for the mean alone but leaves the split without its run
//! share). Note `σ_d²/b` does not shrink with binaries: a data-layout effect is averaged
//! only by more data seeds, so a target below `z σ_d / (ȳ √b)` needs more data seeds whatever
//! the number of binaries. With `n` fixed, the cheapest `(a, b)` meeting the target is found
//! by direct search: for each `b`, the smallest `a` (the half-width falls with `a`), then
//! the least cost over `b`.
//!
//! The half-width is `t_{1−α/2, ν} √V / ȳ` with `ν = min(a, b) − 1`, the fewer levels of the
//! two random factors whose mean squares estimate `V` (a conservative stand-in for the
//! Satterthwaite degrees of freedom, which lie between `min(a, b) − 1` and `a b n − 1` when
//! the components are positive): a plan errs towards more layouts, never fewer.

use serde::Serialize;

use super::tdist::two_sided_critical;

/// The cost of each unit of the crossed design, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrossedCosts {
    /// Building one more binary.
    pub binary: f64,
    /// One execution with its iterations.
    pub execution: f64,
}

/// A planned crossed experiment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CrossedPlan {
    /// Binaries (code seeds) `a`.
    pub code_seeds: usize,
    /// Data seeds `b`.
    pub data_seeds: usize,
    /// Executions of every binary with every data seed `n`.
    pub replicates: usize,
    /// The expected relative half-width of the mean's interval.
    pub relative_half_width: f64,
    /// `a c_bin + a b n c_exec`, in seconds.
    pub cost_seconds: f64,
}

/// `V(a, b, n)` of the module's comment, from the components `[σ_c², σ_d², σ_cd², σ_e²]`
/// (negative ones count as 0).
pub fn crossed_mean_variance(components: [f64; 4], a: usize, b: usize, n: usize) -> f64 {
    let [c, d, cd, e] = components.map(|v| v.max(0.0));
    let (af, bf, nf) = (a as f64, b as f64, n as f64);
    c / af + d / bf + cd / (af * bf) + e / (af * bf * nf)
}

/// The expected relative half-width of the mean of an `a × b × n` experiment.
fn half_width(
    components: [f64; 4],
    mean: f64,
    confidence: f64,
    a: usize,
    b: usize,
    n: usize,
) -> f64 {
    let df = (a.min(b) - 1) as f64;
    two_sided_critical(confidence, df) * crossed_mean_variance(components, a, b, n).sqrt()
        / mean.abs()
}

/// The cheapest `a × b × replicates` design (each of `a`, `b` from 2 to `max_levels`) whose
/// mean's expected relative half-width is at most `target`; `None` when none within
/// `max_levels` reaches it (for instance a data effect too large for `max_levels` data
/// seeds). Ties in cost go to fewer binaries.
pub fn crossed_plan(
    components: [f64; 4],
    mean: f64,
    costs: CrossedCosts,
    target: f64,
    confidence: f64,
    replicates: usize,
    max_levels: usize,
) -> Option<CrossedPlan> {
    let n = replicates.max(1);
    let fits = |a: usize, b: usize| half_width(components, mean, confidence, a, b, n) <= target;
    let mut best: Option<CrossedPlan> = None;
    for b in 2..=max_levels {
        if !fits(max_levels, b) {
            continue;
        }
        // The half-width falls as `a` grows (variance and t quantile both fall).
        let (mut lo, mut hi) = (2, max_levels);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if fits(mid, b) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let cost = lo as f64 * costs.binary + (lo * b * n) as f64 * costs.execution;
        if best.is_none_or(|p| cost < p.cost_seconds) {
            best = Some(CrossedPlan {
                code_seeds: lo,
                data_seeds: b,
                replicates: n,
                relative_half_width: half_width(components, mean, confidence, lo, b, n),
                cost_seconds: cost,
            });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const COSTS: CrossedCosts = CrossedCosts {
        binary: 20.0,
        execution: 2.0,
    };

    #[test]
    fn the_plan_is_the_cheapest_design_that_meets_the_target() {
        // Brute force over every (a, b) up to 60 agrees with the search.
        let components = [4.0, 9.0, 1.0, 16.0];
        let plan = crossed_plan(components, 1000.0, COSTS, 0.005, 0.95, 2, 60).unwrap();
        let mut cheapest = f64::INFINITY;
        for a in 2..=60 {
            for b in 2..=60 {
                if half_width(components, 1000.0, 0.95, a, b, 2) <= 0.005 {
                    cheapest = cheapest.min(a as f64 * 20.0 + (a * b * 2) as f64 * 2.0);
                }
            }
        }
        assert_eq!(plan.cost_seconds, cheapest);
        assert!(plan.relative_half_width <= 0.005);
    }

    #[test]
    fn a_data_effect_is_averaged_only_by_data_seeds() {
        // σ_d = 3 % of the mean: with b data seeds the half-width is at least
        // z · 3 % / √b whatever a, so 0.5 % needs b ≥ (1.96 · 3 / 0.5)² ≈ 138.
        let components = [0.0, 9.0, 0.0, 1.0];
        assert_eq!(
            crossed_plan(components, 100.0, COSTS, 0.005, 0.95, 2, 100),
            None
        );
        let plan = crossed_plan(components, 100.0, COSTS, 0.005, 0.95, 2, 400).unwrap();
        assert!(plan.data_seeds >= 138, "{plan:?}");
        // Without a data effect, data seeds only share out the executions.
        let no_data = crossed_plan([9.0, 0.0, 0.0, 1.0], 100.0, COSTS, 0.02, 0.95, 2, 200).unwrap();
        assert!(no_data.code_seeds > no_data.data_seeds, "{no_data:?}");
    }

    #[test]
    fn the_mean_variance_is_the_model_s() {
        // a = 2, b = 5, n = 3: 4/2 + 10/5 + 6/10 + 30/30.
        let v = crossed_mean_variance([4.0, 10.0, 6.0, 30.0], 2, 5, 3);
        assert!((v - (2.0 + 2.0 + 0.6 + 1.0)).abs() < 1e-12);
    }
}
