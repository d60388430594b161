//! Checks of the assumptions behind the report's numbers: enough warmup discarded
//! (changepoints), independent iterations (Ljung–Box; Kalibera & Jones 2013 §6.1), normal
//! top-level means for the t interval (Shapiro–Wilk, computed by the one engine in
//! [`crate::analysis::single`]), failed executions.

use super::experiment::{FailureCounts, Series};
use super::model::{Diagnostics, Independence, WarmupSuggestion};
use crate::stats::autocorr::ljung_box;
use crate::stats::changepoint::suggest_warmup;

/// Fewer live iterations than this per execution and Ljung–Box is not run: its
/// chi-squared approximation needs a reasonably long series.
pub const MIN_ITERATIONS_FOR_INDEPENDENCE: usize = 10;

/// Fewer values (warmup and live) than this per execution and no changepoint is sought.
pub const MIN_ITERATIONS_FOR_WARMUP: usize = 8;

/// Shapiro–Wilk is run on the binaries' means when there are at least 3 and fewer than this
/// many (from 30 on the central limit theorem makes the t interval robust enough).
pub const NORMALITY_BELOW: usize = 30;

/// The number of Ljung–Box lags for a series of `n` values: min(10, n/5), at least 1.
pub fn ljung_box_lags(n: usize) -> usize {
    (n / 5).clamp(1, 10)
}

/// Diagnoses `series` (seeds and baseline) at `confidence`.
pub fn diagnose(series: &Series, failures: FailureCounts, confidence: f64) -> Diagnostics {
    let alpha = 1.0 - confidence;
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
                    if lb.p < alpha {
                        failing.push(format!("{} execution {}", b.binary, e.execution));
                    }
                }
            }
        }
        (tested > 0).then_some(Independence {
            lags,
            tested,
            failing,
            expected_by_chance: tested as f64 * alpha,
        })
    } else {
        None
    };

    let mut notes = Vec::new();
    if let Some(i) = &independence {
        if i.failing.len() as f64 > 2.0 * i.expected_by_chance + 1.0 {
            notes.push(
                "More executions fail the independence test than chance explains: iterations within an execution are not independent (Kalibera & Jones §6.2), so the iteration-level variance is biased; inspect the run-sequence and lag plots (--format html) and consider a longer warmup or one iteration per execution."
                    .to_string(),
            );
        }
    }
    if series.executions_per_binary() == 1 && series.seeds.len() >= 2 {
        notes.push(
            "One execution per binary: execution-level variation is confounded with the layout's."
                .into(),
        );
    }
    Diagnostics {
        warmup_discarded: series.warmup_discarded,
        warmup_suggestions,
        // Filled in from the one engine by the caller (`analyse_series`).
        normality: None,
        independence,
        failures,
        notes,
        minimum_detectable_effect: None,
    }
}
