//! The data of the HTML report's plots for one data set: which values each plot shows, the
//! boxes' quartiles, the autocorrelations, and the randomly reordered twins that make
//! Kalibera & Jones' manual inspection (§6.1) easy — a lag or ACF plot is read by comparing
//! it with the same data in random order, into the types of [`super::plot_data`]; the HTML
//! exporter draws them.

use crate::seeded::SeededRng;
use crate::stats::autocorr::acf;

use super::experiment::{BinaryData, Series};
use super::model::SeriesReport;
use super::plot_data::{
    BoxSummary, Dependence, DependenceSubject, RunSequence, SeriesPlots, StripGroup, VarianceBar,
};

/// Per-execution run-sequence plots shown at most (flagged executions come first).
pub(crate) const MAX_RUN_SEQUENCES: usize = 12;

/// Lags of the lag plots (Kalibera & Jones §6.1 check lags 1–4).
pub(crate) const LAGS: [usize; 4] = [1, 2, 3, 4];

/// Lags of the ACF plots.
pub(crate) const ACF_LAGS: usize = 20;

/// Autocorrelations from lag 1 on; none for a constant sequence (NaN).
fn lagged(acf: Vec<f64>) -> Vec<f64> {
    acf.into_iter().skip(1).filter(|r| r.is_finite()).collect()
}

/// The data of the plots of `series` (whose analysis is `report`).
pub(crate) fn series_plots(series: &Series, report: &SeriesReport) -> SeriesPlots {
    // The section's unit (its title and text), not one chosen from the plotted values.
    let scale = report.scale();
    let (factor, unit) = (scale.factor, scale.name);
    let scaled = |v: &[f64]| v.iter().map(|x| x / factor).collect::<Vec<f64>>();
    let group = |b: &BinaryData, highlight: bool| StripGroup {
        label: b.seed.map_or_else(|| "base".to_string(), |s| s.to_string()),
        points: scaled(&b.execution_means()),
        box_summary: BoxSummary::of(&scaled(
            &b.executions
                .iter()
                .flat_map(|e| e.live.iter().copied())
                .collect::<Vec<_>>(),
        )),
        highlight,
    };
    let mut binaries: Vec<StripGroup> = series.baseline.iter().map(|b| group(b, true)).collect();
    binaries.extend(series.seeds.iter().map(|b| group(b, false)));
    let variance = report
        .levels
        .iter()
        .map(|l| VarianceBar {
            level: l.name.clone(),
            repetitions: l.repetitions,
            t2: l.t2,
        })
        .collect();
    let schedule = in_schedule(series, factor);
    SeriesPlots {
        metric: series.metric.clone(),
        unit,
        binaries,
        variance,
        run_sequences: run_sequences(series, report, factor),
        dependence: dependence(series, &schedule, factor),
        schedule,
    }
}

/// Every execution's mean, scaled by `factor`, in schedule order.
fn in_schedule(series: &Series, factor: f64) -> Vec<f64> {
    let mut executions: Vec<(u64, f64)> = series
        .seeds
        .iter()
        .chain(series.baseline.iter())
        .flat_map(|b| {
            b.executions
                .iter()
                .zip(b.execution_means())
                .map(|(e, m)| (e.schedule_index, m / factor))
                .collect::<Vec<_>>()
        })
        .collect();
    executions.sort_by_key(|(i, _)| *i);
    executions.iter().map(|(_, m)| *m).collect()
}

/// At most [`MAX_RUN_SEQUENCES`] executions' iterations, those whose changepoint suggests a
/// longer warmup first; none with one iteration per execution. Only the chosen executions'
/// values are copied.
fn run_sequences(series: &Series, report: &SeriesReport, factor: f64) -> Vec<RunSequence> {
    if series.iterations_per_execution() < 2 {
        return Vec::new();
    }
    let suggestion = |binary: &str, execution: u32| {
        report
            .diagnostics
            .warmup_suggestions
            .iter()
            .find(|w| w.binary == binary && w.execution == execution)
    };
    let mut candidates: Vec<(bool, &BinaryData, usize)> = Vec::new();
    for b in series.baseline.iter().chain(series.seeds.iter()) {
        for (k, e) in b.executions.iter().enumerate() {
            let flagged = suggestion(&b.binary, e.execution).is_some_and(|w| w.exceeds_discard);
            candidates.push((flagged, b, k));
        }
    }
    candidates.sort_by_key(|c| !c.0);
    candidates
        .into_iter()
        .take(MAX_RUN_SEQUENCES)
        .map(|(flagged, b, k)| {
            let e = &b.executions[k];
            RunSequence {
                binary: b.binary.clone(),
                execution: e.execution,
                longer_warmup: flagged,
                values: e
                    .warmup
                    .iter()
                    .chain(e.live.iter())
                    .map(|x| x / factor)
                    .collect(),
                warmup: e.warmup.len(),
                marks: suggestion(&b.binary, e.execution)
                    .map(|w| w.changepoints.clone())
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// The subject of the lag and ACF plots: the iterations of the first seed's first execution
/// when executions are long enough, else the execution means in schedule order; with its
/// seeded random reordering and both autocorrelation functions.
fn dependence(series: &Series, in_schedule: &[f64], factor: f64) -> Dependence {
    let (subject, values) = match series.seeds.first().and_then(|b| b.executions.first()) {
        Some(e) if e.live.len() >= 10 => (
            DependenceSubject::Iterations {
                binary: series.seeds[0].binary.clone(),
                execution: e.execution,
            },
            e.live.iter().map(|x| x / factor).collect::<Vec<f64>>(),
        ),
        _ => (DependenceSubject::ExecutionMeans, in_schedule.to_vec()),
    };
    let mut reordered = values.clone();
    SeededRng::new(0, "report-dependence-plots").shuffle(&mut reordered);
    let lags = LAGS.iter().copied().filter(|&h| h < values.len()).collect();
    let acf_pair = (values.len() >= 4).then(|| {
        let max_lag = ACF_LAGS.min(values.len() - 1);
        (
            lagged(acf(&values, max_lag)),
            lagged(acf(&reordered, max_lag)),
            1.96 / (values.len() as f64).sqrt(),
        )
    });
    Dependence {
        subject,
        values,
        reordered,
        lags,
        acf: acf_pair,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::series::ExecutionData;

    fn series(live: Vec<f64>) -> Series {
        Series {
            program: "p".into(),
            variant: None,
            metric: "wall".into(),
            unit: "ns".into(),
            seeds: vec![BinaryData {
                seed: Some(1),
                binary: "seed-1".into(),
                executions: vec![ExecutionData {
                    execution: 0,
                    schedule_index: 0,
                    wall_ns: 0,
                    data_seed: None,
                    warmup: Vec::new(),
                    live,
                }],
            }],
            baseline: None,
            as_built: None,
            warmup_discarded: 0,
            rounds: false,
            later_phases: Default::default(),
            binary_cost_seconds: None,
        }
    }

    /// The dependence plots' data: the iterations of a long execution, a seeded reordering
    /// of the same values, the lags shorter than the data, and both ACFs from lag 1 to
    /// min(20, n − 1) with the ±1.96/√n band.
    #[test]
    fn the_reordered_twin_is_a_permutation_with_the_same_band() {
        let values: Vec<f64> = (0..12).map(|i| f64::from(i * i % 7) + 1.0).collect();
        let s = series(values.clone());
        let d = dependence(&s, &[], 1.0);
        assert_eq!(
            d.subject,
            DependenceSubject::Iterations {
                binary: "seed-1".into(),
                execution: 0
            }
        );
        assert_eq!(d.values, values);
        assert_ne!(
            d.reordered, values,
            "a seeded shuffle of 12 distinct-enough values"
        );
        let sorted = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v
        };
        assert_eq!(sorted(&d.reordered), sorted(&values));
        assert_eq!(d.lags, [1, 2, 3, 4]);
        let (real, reordered, bound) = d.acf.unwrap();
        assert_eq!((real.len(), reordered.len()), (11, 11));
        assert!((bound - 1.96 / 12f64.sqrt()).abs() < 1e-15);
        // Seeded: the same data give the same twin.
        assert_eq!(dependence(&s, &[], 1.0).reordered, d.reordered);
    }

    /// Short executions: the execution means in schedule order instead, no ACF below 4.
    #[test]
    fn short_executions_fall_back_to_the_schedule() {
        let s = series(vec![1.0, 2.0]);
        let d = dependence(&s, &[5.0, 6.0, 7.0], 1.0);
        assert_eq!(d.subject, DependenceSubject::ExecutionMeans);
        assert_eq!(d.values, [5.0, 6.0, 7.0]);
        assert_eq!(d.lags, [1, 2]);
        assert!(d.acf.is_none());
    }
}
