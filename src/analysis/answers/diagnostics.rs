//! Checks of the assumptions behind the report's numbers: enough warmup discarded
//! (changepoints), independent iterations (Ljung–Box; Kalibera & Jones 2013 §6.1), normal
//! top-level means for the t interval (Shapiro–Wilk, computed by the one engine in
//! [`crate::analysis::single`]), failed executions.

use super::experiment::{FailureCounts, Series};
use super::model::{
    DiagnosticConcern, Diagnostics, Drift, DriftUntested, ExecutionId, Independence,
    WarmupSuggestion,
};
use crate::analysis::vocabulary::{Thresholds, Verdict};
use crate::seeded::SeededRng;
use crate::stats::autocorr::{grouped_lag1_test, ljung_box};
use crate::stats::changepoint::suggest_warmup;
use crate::stats::sample::mean;

/// Fewer live iterations than this per execution and Ljung–Box is not run: its
/// chi-squared approximation needs a reasonably long series.
pub(crate) const MIN_ITERATIONS_FOR_INDEPENDENCE: usize = 10;

/// Fewer values (warmup and live) than this per execution and no changepoint is sought.
pub(crate) const MIN_ITERATIONS_FOR_WARMUP: usize = 8;

/// Shapiro–Wilk is run on the binaries' means when there are at least 3 and fewer than this
/// many (from 30 on the central limit theorem makes the t interval robust enough).
pub(crate) const NORMALITY_BELOW: usize = 30;

/// The number of Ljung–Box lags for a series of `n` values: min(10, n/5), at least 1.
pub(crate) fn ljung_box_lags(n: usize) -> usize {
    (n / 5).clamp(1, 10)
}

/// Fewer executions than this in run order and drift is not tested.
pub(crate) const MIN_EXECUTIONS_FOR_DRIFT: usize = 10;

/// Permutations of the drift test: enough for a p-value to ± 0.007 at 0.05.
pub(crate) const DRIFT_PERMUTATIONS: usize = 999;

/// Drift between executions: the execution means in run order (the schedule index), each
/// with its binary's own level taken out, tested for positive lag-1 autocorrelation by
/// permuting each binary's executions over its places in the run
/// ([`grouped_lag1_test`], seeded: the same store gives the same p-value), and the change
/// from the first half of the run to the second as the magnitude. Slow drift (a warming
/// machine, a neighbour's job) makes neighbouring executions alike. `None` below
/// [`MIN_EXECUTIONS_FOR_DRIFT`] executions or with one execution per binary (no binary's
/// own level to take out). Its verdict weighs the test's rejection against the largest
/// departure of one execution from its binary's mean: a drift no execution shows beyond
/// `--negligible` is negligible.
pub(crate) fn drift(series: &Series, thresholds: Thresholds) -> Option<Drift> {
    if series.executions_per_binary() < 2 || drift_overflows(series) {
        return None;
    }
    let grand = mean(&series.seeds.iter().map(|b| b.mean()).collect::<Vec<_>>());
    if !grand.is_finite() || grand == 0.0 {
        return None;
    }
    let mut in_order: Vec<(u64, usize, f64)> = series
        .seeds
        .iter()
        .chain(series.baseline.iter())
        .filter(|b| b.executions.len() >= 2)
        .enumerate()
        .flat_map(|(g, b)| {
            b.executions
                .iter()
                .map(move |e| (e.schedule_index, g, mean(&e.live) / grand.abs()))
        })
        .collect();
    if in_order.len() < MIN_EXECUTIONS_FOR_DRIFT {
        return None;
    }
    in_order.sort_by_key(|(i, _, _)| *i);
    let groups: Vec<usize> = in_order.iter().map(|(_, g, _)| *g).collect();
    let values: Vec<f64> = in_order.iter().map(|(_, _, v)| *v).collect();
    let mut rng = SeededRng::new(1, "report-drift");
    let test = grouped_lag1_test(&values, &groups, DRIFT_PERMUTATIONS, &mut rng).ok()?;
    // The halves, each execution less its binary's mean.
    let binary_means: Vec<f64> = (0..=groups.iter().max().copied().unwrap_or(0))
        .map(|g| {
            mean(
                &values
                    .iter()
                    .zip(&groups)
                    .filter(|(_, h)| **h == g)
                    .map(|(v, _)| *v)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let residuals: Vec<f64> = values
        .iter()
        .zip(&groups)
        .map(|(v, g)| v - binary_means[*g])
        .collect();
    let half = residuals.len() / 2;
    let halves_change =
        (1.0 + mean(&residuals[residuals.len() - half..])) / (1.0 + mean(&residuals[..half])) - 1.0;
    let largest_departure = residuals.iter().map(|r| r.abs()).fold(0.0, f64::max);
    let verdict = if test.p_value >= 1.0 - thresholds.confidence {
        Verdict::NotDetected
    } else if largest_departure <= thresholds.negligible {
        Verdict::Negligible
    } else {
        Verdict::Detected
    };
    Some(Drift {
        executions: residuals.len(),
        lag1: test.r1,
        p_value: test.p_value,
        halves_change,
        largest_departure,
        verdict,
        thresholds,
    })
}

/// Whether the executions' means spread beyond f64 (one value near 1e308): their halves'
/// change and autocorrelation would then be arithmetic noise, not a drift.
fn drift_overflows(series: &Series) -> bool {
    let means: Vec<f64> = series
        .seeds
        .iter()
        .chain(series.baseline.iter())
        .flat_map(|b| b.execution_means())
        .collect();
    !crate::stats::sample::variance(&means).is_finite()
}

/// Why drift was not tested, when [`drift`] gives nothing.
fn drift_untested(series: &Series) -> DriftUntested {
    if drift_overflows(series) {
        DriftUntested::Overflow
    } else {
        DriftUntested::TooFewExecutions
    }
}

/// Diagnoses `series` (seeds and baseline) at the report's `thresholds`: its confidence for
/// every test, `--negligible` for the size of a drift.
pub(crate) fn diagnose(
    series: &Series,
    failures: FailureCounts,
    thresholds: Thresholds,
) -> Diagnostics {
    let alpha = 1.0 - thresholds.confidence;
    let binaries = || series.seeds.iter().chain(series.baseline.iter());

    let mut warmup_suggestions = Vec::new();
    for b in binaries() {
        for e in &b.executions {
            let all: Vec<f64> = e.warmup.iter().chain(e.live.iter()).copied().collect();
            if all.len() < MIN_ITERATIONS_FOR_WARMUP {
                continue;
            }
            let Ok(s) = suggest_warmup(&all) else {
                continue;
            };
            warmup_suggestions.push(WarmupSuggestion {
                binary: b.binary.clone(),
                execution: e.execution,
                suggested: s.warmup,
                exceeds_discard: s.warmup.is_none_or(|w| w > e.warmup.len()),
                changepoints: s.changepoints,
            });
        }
    }

    let iterations = series.iterations_per_execution();
    let independence = if iterations >= MIN_ITERATIONS_FOR_INDEPENDENCE {
        let lags = ljung_box_lags(iterations);
        let mut tested = 0;
        let mut failing = Vec::new();
        for b in binaries() {
            for e in &b.executions {
                if let Ok(lb) = ljung_box(&e.live, lags, 0) {
                    tested += 1;
                    if lb.p_value < alpha {
                        failing.push(ExecutionId {
                            binary: b.binary.clone(),
                            execution: e.execution,
                        });
                    }
                }
            }
        }
        (tested > 0).then_some(Independence {
            lags,
            tested,
            failing_executions: failing,
            expected_by_chance: tested as f64 * alpha,
        })
    } else {
        None
    };

    let mut concerns = Vec::new();
    if let Some(i) = &independence {
        if i.failing_executions.len() as f64 > 2.0 * i.expected_by_chance + 1.0 {
            concerns.push(DiagnosticConcern::DependentIterations);
        }
    }
    if series.executions_per_binary() == 1 && series.seeds.len() >= 2 {
        concerns.push(DiagnosticConcern::OneExecutionPerBinary);
    }
    let found_drift = drift(series, thresholds);
    Diagnostics {
        warmup_discarded: series.warmup_discarded,
        warmup_suggestions,
        // Filled in from the one engine by the caller (`analyse_series`).
        normality: None,
        independence,
        drift_untested: found_drift.is_none().then(|| drift_untested(series)),
        drift: found_drift,
        failures,
        concerns,
        minimum_detectable_effect: None,
    }
}
