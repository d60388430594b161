//! The plots of the HTML report for one data set: which data each plot shows, and the
//! randomly reordered twins that make Kalibera & Jones' manual inspection (§6.1) easy —
//! a lag or ACF plot is read by comparing it with the same data in random order.

use crate::seeded::SeededRng;
use crate::stats::autocorr::acf;

use super::experiment::{BinaryData, Series};
use super::export::svg::{acf_plot, bars, lag_plot, run_sequence, strip_plot, StripGroup};
use super::model::SeriesReport;
use crate::analysis::numfmt::scale_for;

/// Per-execution run-sequence plots shown at most (flagged executions come first).
pub const MAX_RUN_SEQUENCES: usize = 12;

/// Lags of the lag plots (Kalibera & Jones §6.1 check lags 1–4).
pub const LAGS: [usize; 4] = [1, 2, 3, 4];

/// Lags of the ACF plots.
pub const ACF_LAGS: usize = 20;

/// The plots of one data set, as SVG strings grouped by section.
#[derive(Debug, Clone, Default)]
pub struct SeriesPlots {
    /// Strip/box plot of every binary, the baseline marked.
    pub binaries: String,
    /// Variance-component bars (T² per level).
    pub variance: String,
    /// Execution means in schedule order (drift across the experiment).
    pub schedule: String,
    /// Run-sequence plots of the iterations of selected executions.
    pub run_sequences: Vec<String>,
    /// What the lag and ACF plots show, in words.
    pub dependence_subject: String,
    /// Lag plots of the data and of the same data randomly reordered, pairwise.
    pub lags: Vec<(String, String)>,
    /// ACF of the data and of the same data randomly reordered.
    pub acf: Option<(String, String)>,
}

/// Autocorrelations from lag 1 on; none for a constant sequence (NaN).
fn lagged(acf: Vec<f64>) -> Vec<f64> {
    acf.into_iter().skip(1).filter(|r| r.is_finite()).collect()
}

/// One execution's run-sequence plot, before drawing.
struct RunSequence {
    flagged: bool,
    title: String,
    values: Vec<f64>,
    warmup: usize,
    marks: Vec<usize>,
}

/// Builds the plots of `series` (whose analysis is `report`).
pub fn series_plots(series: &Series, report: &SeriesReport) -> SeriesPlots {
    let typical = if report.mean.is_finite() {
        report.mean
    } else {
        1.0
    };
    let (factor, unit) = scale_for(&series.unit, typical);
    let scaled = |v: &[f64]| v.iter().map(|x| x / factor).collect::<Vec<f64>>();
    let label = format!("{} ({unit})", series.metric);

    let group = |b: &BinaryData, highlight: bool| StripGroup {
        label: b.seed.map_or_else(|| "base".to_string(), |s| s.to_string()),
        points: scaled(&b.execution_means()),
        box_values: scaled(
            &b.executions
                .iter()
                .flat_map(|e| e.live.clone())
                .collect::<Vec<_>>(),
        ),
        highlight,
    };
    let mut groups: Vec<StripGroup> = series.baseline.iter().map(|b| group(b, true)).collect();
    groups.extend(series.seeds.iter().map(|b| group(b, false)));
    let binaries = strip_plot(
        "Boxes: iterations; dots: execution means; orange: baseline",
        &label,
        &groups,
    );

    let variance = bars(
        "Share of the variance by level (T², Kalibera & Jones eq. 2)",
        &report
            .levels
            .iter()
            .map(|l| (format!("{} (r = {})", l.name, l.repetitions), l.t2))
            .collect::<Vec<_>>(),
    );

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
    let in_schedule: Vec<f64> = executions.iter().map(|(_, m)| *m).collect();
    let schedule = run_sequence(
        "Execution means in run order (drift?)",
        &label,
        &in_schedule,
        0,
        &[],
    );

    let flagged = |binary: &str, execution: u32| {
        report
            .diagnostics
            .warmup_suggestions
            .iter()
            .find(|w| w.binary == binary && w.execution == execution)
    };
    let mut candidates: Vec<RunSequence> = Vec::new();
    if series.iterations_per_execution() >= 2 {
        for b in series.baseline.iter().chain(series.seeds.iter()) {
            for e in &b.executions {
                let all: Vec<f64> = e.warmup.iter().chain(e.live.iter()).copied().collect();
                let suggestion = flagged(&b.binary, e.execution);
                let marks: Vec<usize> = suggestion
                    .map(|w| w.changepoints.clone())
                    .unwrap_or_default();
                candidates.push(RunSequence {
                    flagged: suggestion.is_some_and(|w| w.exceeds_discard),
                    title: format!("{} execution {}", b.binary, e.execution),
                    values: scaled(&all),
                    warmup: e.warmup.len(),
                    marks,
                });
            }
        }
    }
    candidates.sort_by_key(|c| !c.flagged);
    let run_sequences = candidates
        .into_iter()
        .take(MAX_RUN_SEQUENCES)
        .map(|c| {
            let title = if c.flagged {
                format!("{} — changepoint suggests a longer warmup", c.title)
            } else {
                c.title
            };
            run_sequence(&title, &label, &c.values, c.warmup, &c.marks)
        })
        .collect();

    // Lag and ACF plots: the iterations of the first seed's first execution when
    // executions are long enough, else the execution means in schedule order.
    let (subject, data) = match series.seeds.first().and_then(|b| b.executions.first()) {
        Some(e) if e.live.len() >= 10 => (
            format!(
                "the live iterations of {} execution {}",
                series.seeds[0].binary, e.execution
            ),
            scaled(&e.live),
        ),
        _ => (
            "the execution means in schedule order".to_string(),
            in_schedule.clone(),
        ),
    };
    let mut shuffled = data.clone();
    SeededRng::new(0, "report-dependence-plots").shuffle(&mut shuffled);
    let lags = LAGS
        .iter()
        .filter(|&&h| h < data.len())
        .map(|&h| {
            (
                lag_plot(&format!("lag {h}"), &data, h),
                lag_plot(&format!("lag {h}, reordered"), &shuffled, h),
            )
        })
        .collect();
    let acf_pair = (data.len() >= 4).then(|| {
        let max_lag = ACF_LAGS.min(data.len() - 1);
        let bound = 1.96 / (data.len() as f64).sqrt();
        (
            acf_plot("ACF", &lagged(acf(&data, max_lag)), bound),
            acf_plot("ACF, reordered", &lagged(acf(&shuffled, max_lag)), bound),
        )
    });
    SeriesPlots {
        binaries,
        variance,
        schedule,
        run_sequences,
        dependence_subject: subject,
        lags,
        acf: acf_pair,
    }
}
