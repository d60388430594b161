//! The machine as a random factor: how much of the execution-level variation is due to
//! which machine ran an execution.
//!
//! Model (additive two-way, binaries fixed, machines random): the mean of execution `j` of
//! binary `b` on machine `m` is `y = μ + β_b + a_m + e` with `a_m ~ N(0, σ_m²)` and
//! `e ~ N(0, σ_e²)`. The test of machines is the type II (here equal to type III) F test:
//! the sum of squares of machines after binaries, `SS(M | B) = RSS(B) − RSS(B + M)`, from
//! the least-squares fit of the additive model (found by alternating the two factors'
//! means, the backfitting that converges to it), over the residual mean square of that fit.
//! When the schedule gives every machine each binary in proportion (each shard an equal mix
//! of binaries), machines are orthogonal to binaries and this is the one-way sum of squares
//! of the within-binary residuals grouped by machine; when shards or failures unbalance it,
//! only the type II sum of squares stays right (the one-way one was off by 8–26 %). Checked
//! against statsmodels' `anova_lm(typ=2)`. The variance estimators (an approximation
//! when the design is not orthogonal: Henderson's method 3 would weigh the machines
//! exactly; the F test above does not depend on them) are those
//! of the one-way random-effects model, Searle, Casella & McCulloch, "Variance Components"
//! (1992), §3.5–3.6, eq. (3.6)–(3.9) with `n₀ = (N − Σ n_m²/N)/(M − 1)`; only the error
//! degrees of freedom lose the `B − 1` binary means fitted first: `N − B − M + 1`
//! (Montgomery, "Design and Analysis of Experiments", §5.3, additive model).

use super::anova::f_upper_tail;
use super::degrees_of_freedom::DegreesOfFreedom;
use super::error::{at_least, StatsError};
use serde::Serialize;

/// The machine component of the execution-level variance.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MachineComponent {
    /// Machines `M`.
    pub machines: usize,
    /// Binaries `B`.
    pub binaries: usize,
    /// Executions `N`.
    pub executions: usize,
    /// Per machine, in input order of first appearance: executions and the mean offset of
    /// its executions from their binaries' means (`r̄_m`).
    pub offsets: Vec<(usize, f64)>,
    /// Mean square of machines, `Σ n_m r̄_m² / (M − 1)`.
    pub ms_machine: f64,
    /// Residual mean square, `ΣΣ (r − r̄_m)² / (N − B − M + 1)`.
    pub ms_error: f64,
    /// `F = MS_machine / MS_error`.
    pub f: f64,
    /// Degrees of freedom `(M − 1, N − B − M + 1)`.
    #[serde(flatten)]
    pub df: DegreesOfFreedom<usize>,
    /// `P(F ≥ f)` under `σ_m² = 0`.
    pub p_value: f64,
    /// `σ_m² = (MS_machine − MS_error)/n₀` (may be negative: no detectable machine
    /// variance).
    pub var_machine: f64,
    /// `σ_e² = MS_error`.
    pub var_error: f64,
    /// Share of the execution-level variance due to machines,
    /// `max(σ_m², 0) / (max(σ_m², 0) + σ_e²)`.
    pub share: f64,
}

/// Estimates the machine component from `(binary, machine, value)` triples (indices from
/// 0; `value` an execution's mean). Needs two machines and more executions than
/// `B + M − 1`.
pub fn machine_component(data: &[(usize, usize, f64)]) -> Result<MachineComponent, StatsError> {
    let (binaries, machines) = dimensions(data)?;
    let n = data.len();
    let fitted = binaries + machines - 1;
    let mut sum_b = vec![0.0; binaries];
    let mut n_b = vec![0usize; binaries];
    for &(b, _, y) in data {
        sum_b[b] += y;
        n_b[b] += 1;
    }
    let resid: Vec<(usize, f64)> = data
        .iter()
        .map(|&(b, m, y)| (m, y - sum_b[b] / n_b[b] as f64))
        .collect();
    let mut sum_m = vec![0.0; machines];
    let mut n_m = vec![0usize; machines];
    for &(m, r) in &resid {
        sum_m[m] += r;
        n_m[m] += 1;
    }
    if n_m.contains(&0) {
        return Err(StatsError::Domain(
            "machine component: a machine index without executions".into(),
        ));
    }
    // RSS(B): the binaries alone.
    let rss_binaries: f64 = resid.iter().map(|(_, r)| r * r).sum();
    // RSS(B + M): backfitting from the machines' means of the within-binary residuals (the
    // exact answer when the design is orthogonal, after one step).
    let start: Vec<f64> = sum_m.iter().zip(&n_m).map(|(s, c)| s / *c as f64).collect();
    let (ss_error, machine_effect) = backfit(data, (&n_b, &n_m), start, rss_binaries);
    let ss_machine = (rss_binaries - ss_error).max(0.0);
    // Offsets: the machine effects centred on the executions' weighted mean.
    let centre = machine_effect
        .iter()
        .zip(&n_m)
        .map(|(a, c)| a * *c as f64)
        .sum::<f64>()
        / n as f64;
    let mean_m: Vec<f64> = machine_effect.iter().map(|a| a - centre).collect();
    let df = (machines - 1, n - fitted);
    let ms_machine = ss_machine / df.0 as f64;
    let ms_error = ss_error / df.1 as f64;
    let f = ms_machine / ms_error;
    let p = f_upper_tail(f, df.0, df.1);
    let sum_sq: f64 = n_m.iter().map(|&c| (c * c) as f64).sum();
    let n0 = (n as f64 - sum_sq / n as f64) / df.0 as f64;
    let var_machine = (ms_machine - ms_error) / n0;
    let pos = var_machine.max(0.0);
    Ok(MachineComponent {
        machines,
        binaries,
        executions: n,
        offsets: n_m.into_iter().zip(mean_m).collect(),
        ms_machine,
        ms_error,
        f,
        df: DegreesOfFreedom {
            df_numerator: df.0,
            df_denominator: df.1,
        },
        p_value: p,
        var_machine,
        var_error: ms_error,
        share: if pos + ms_error > 0.0 {
            pos / (pos + ms_error)
        } else {
            0.0
        },
    })
}

/// The numbers of binaries and machines of `data`, refused with fewer than two machines, too
/// few executions for the fit, or a non-finite value.
fn dimensions(data: &[(usize, usize, f64)]) -> Result<(usize, usize), StatsError> {
    let binaries = data.iter().map(|d| d.0 + 1).max().unwrap_or(0);
    let machines = data.iter().map(|d| d.1 + 1).max().unwrap_or(0);
    at_least("machine component", "machines", 2, machines)?;
    let n = data.len();
    let fitted = binaries + machines - 1;
    at_least(
        "machine component",
        "executions (more than binaries + machines − 1)",
        fitted + 1,
        n,
    )?;
    if data.iter().any(|d| !d.2.is_finite()) {
        return Err(StatsError::Domain(
            "machine component: a non-finite value".into(),
        ));
    }
    Ok((binaries, machines))
}

/// The additive fit `y = binary effect + machine effect` of `data` by backfitting (Hastie &
/// Tibshirani's alternating means), from the machine effects `machine_effect`, until the
/// residual sum of squares stops falling (relative to `rss_binaries`, the binaries-only fit)
/// or after 10 000 rounds. `counts` are the executions per binary and per machine (none 0).
/// Returns the residual sum of squares and the machine effects.
fn backfit(
    data: &[(usize, usize, f64)],
    counts: (&[usize], &[usize]),
    mut machine_effect: Vec<f64>,
    rss_binaries: f64,
) -> (f64, Vec<f64>) {
    let (n_b, n_m) = counts;
    let mut binary_effect = vec![0.0; n_b.len()];
    let mut previous = f64::INFINITY;
    for _ in 0..10_000 {
        let mut sum = vec![0.0; n_b.len()];
        for &(b, m, y) in data {
            sum[b] += y - machine_effect[m];
        }
        for (effect, (s, c)) in binary_effect.iter_mut().zip(sum.iter().zip(n_b)) {
            *effect = s / *c as f64;
        }
        let mut sum = vec![0.0; n_m.len()];
        for &(b, m, y) in data {
            sum[m] += y - binary_effect[b];
        }
        for (effect, (s, c)) in machine_effect.iter_mut().zip(sum.iter().zip(n_m)) {
            *effect = s / *c as f64;
        }
        let rss: f64 = data
            .iter()
            .map(|&(b, m, y)| {
                let e = y - binary_effect[b] - machine_effect[m];
                e * e
            })
            .sum();
        let converged = previous - rss <= 1e-15 * rss_binaries.max(f64::MIN_POSITIVE);
        previous = rss;
        if converged {
            break;
        }
    }
    (previous, machine_effect)
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::seeded::SeededRng;
    use crate::test_support::close;

    /// 3 binaries; machine 0 ran 4 executions of each, machine 1 two of each (as when one
    /// node ran two shards and the other one).
    fn data() -> Vec<(usize, usize, f64)> {
        let cells: [((usize, usize), &[f64]); 6] = [
            ((0, 0), &[10.1, 10.3, 10.2, 10.6]),
            ((1, 0), &[11.0, 11.4, 11.1, 11.3]),
            ((2, 0), &[9.7, 9.9, 10.0, 9.8]),
            ((0, 1), &[10.9, 10.7]),
            ((1, 1), &[11.9, 11.6]),
            ((2, 1), &[10.4, 10.6]),
        ];
        cells
            .iter()
            .flat_map(|((b, m), ys)| ys.iter().map(move |y| (*b, *m, *y)))
            .collect()
    }

    #[test]
    fn matches_statsmodels_two_way_anova() {
        // python3 (statsmodels 0.14): anova_lm(ols('y ~ C(b) + C(m)', df).fit(), typ=2)
        //   C(m): sum_sq 1.284444, df 1, F 46.042674253201106, PR(>F) 8.80069403050418e-06
        //   Residual: sum_sq 0.390556, df 14 -> MSE 0.027896825396825458
        // numpy: n0 = 8.0, (MSM - MSE)/n0 = 0.1570684523809546, share 0.8491780417817603
        let c = machine_component(&data()).unwrap();
        assert_eq!(
            (c.machines, c.binaries, c.executions, c.df),
            (
                2,
                3,
                18,
                DegreesOfFreedom {
                    df_numerator: 1,
                    df_denominator: 14
                }
            )
        );
        assert!(close(c.f, 46.042674253201106, 1e-10));
        assert!(close(c.p_value, 8.80069403050418e-06, 1e-6));
        assert!(close(c.ms_machine, 1.2844444444444623, 1e-10));
        assert!(close(c.ms_error, 0.027896825396825458, 1e-10));
        assert!(close(c.var_machine, 0.1570684523809546, 1e-10));
        assert!(close(c.share, 0.8491780417817603, 1e-10));
        // Machine 1 is slower: a positive offset, balanced by machine 0's.
        assert!(c.offsets[1].1 > 0.0 && c.offsets[0].1 < 0.0);
        assert!((4.0 * 3.0 * c.offsets[0].1 + 2.0 * 3.0 * c.offsets[1].1).abs() < 1e-12);
    }

    #[test]
    fn refuses_one_machine_and_too_few_executions() {
        assert!(machine_component(&[(0, 0, 1.0), (0, 0, 2.0), (1, 0, 3.0)]).is_err());
        assert!(machine_component(&[(0, 0, 1.0), (1, 1, 2.0)]).is_err());
        assert!(
            machine_component(&[(0, 0, 1.0), (0, 1, f64::NAN), (0, 1, 2.0), (0, 0, 1.0)]).is_err()
        );
    }

    /// Simulated experiments: 10 binaries × 4 machines × 3 executions each, binary effects
    /// large. Without a machine effect the test rejects at about its level; with σ_m = σ_e
    /// (true share 0.5) it nearly always detects it and the share estimate centres near 0.5.
    #[test]
    fn simulation_level_and_power() {
        let mut rng = SeededRng::new(12, "machines-test");
        let mut normal = move || {
            // Box–Muller from two uniform draws in (0, 1].
            let u1 = (rng.below(1 << 30) + 1) as f64 / (1u64 << 30) as f64;
            let u2 = rng.below(1 << 30) as f64 / (1u64 << 30) as f64;
            (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        };
        let trials = 400;
        let mut rejected = [0; 2];
        let mut share_sum = 0.0;
        for t in 0..trials * 2 {
            let sigma_m = if t < trials { 0.0 } else { 1.0 };
            let machine: Vec<f64> = (0..4).map(|_| sigma_m * normal()).collect();
            let mut d = Vec::new();
            for b in 0..10 {
                let beta = 5.0 * normal();
                for (m, a) in machine.iter().enumerate() {
                    for _ in 0..3 {
                        d.push((b, m, 100.0 + beta + a + normal()));
                    }
                }
            }
            let c = machine_component(&d).unwrap();
            if c.p_value < 0.05 {
                rejected[usize::from(t >= trials)] += 1;
            }
            if t >= trials {
                share_sum += c.share;
            }
        }
        // Binomial(400, 0.05): mean 20, sd 4.4; allow 4 sd.
        assert!(
            (3..=38).contains(&rejected[0]),
            "{} null rejections",
            rejected[0]
        );
        assert!(rejected[1] > 300, "power {} of {trials}", rejected[1]);
        let mean_share = share_sum / trials as f64;
        assert!((0.3..0.7).contains(&mean_share), "mean share {mean_share}");
    }
    #[test]
    fn unbalanced_designs_match_statsmodels_type_ii() {
        // A failure left machine 1 without binary 2, and machine 0 ran binary 0 three times
        // but binary 1 once: not orthogonal.
        // python3 (statsmodels 0.15):
        //   import pandas as pd; from statsmodels.formula.api import ols
        //   from statsmodels.stats.anova import anova_lm
        //   d = pd.DataFrame(DATA, columns=['b','m','y'])
        //   anova_lm(ols('y ~ C(b) + C(m)', d).fit(), typ=2)
        //   C(m): sum_sq 0.7088333333333352, df 2, F 25.1822368421052, PR 0.00020569393880583565
        //   Residual: sum_sq 0.12666666666666732, df 9
        const SS_MACHINE: f64 = 0.7088333333333352;
        const SS_RESIDUAL: f64 = 0.12666666666666732;
        const F_MACHINE: f64 = 25.1822368421052;
        const P_MACHINE: f64 = 0.00020569393880583565;
        let d = [
            (0, 0, 10.1),
            (0, 0, 10.4),
            (0, 0, 10.2),
            (1, 0, 11.2),
            (2, 0, 9.8),
            (2, 0, 9.9),
            (0, 1, 10.9),
            (1, 1, 11.9),
            (1, 1, 11.6),
            (1, 1, 11.8),
            (0, 2, 10.5),
            (1, 2, 11.5),
            (2, 2, 10.1),
            (2, 2, 10.3),
        ];
        let c = machine_component(&d).unwrap();
        assert_eq!(
            c.df,
            DegreesOfFreedom {
                df_numerator: 2,
                df_denominator: 9
            }
        );
        assert!(close(c.ms_machine * 2.0, SS_MACHINE, 1e-9), "{c:?}");
        assert!(close(c.ms_error * 9.0, SS_RESIDUAL, 1e-9), "{c:?}");
        assert!(close(c.f, F_MACHINE, 1e-9), "{c:?}");
        assert!(close(c.p_value, P_MACHINE, 1e-6), "{c:?}");
    }
}
