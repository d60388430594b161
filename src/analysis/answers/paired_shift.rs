//! The default layout's (and the as-built binary's) shift from the mean over random code
//! layouts, paired on the data seed, when every binary ran under the same data seeds (`run
//! --data-seeds`, issue 35): the data layout moves a fixed binary and the random ones alike,
//! so it must cancel in their comparison instead of widening it as execution noise.
//!
//! Each value is taken relative to its data seed's mean over the random binaries (`y − m_j
//! + m`, the data seed's effect removed; Searle, Casella & McCulloch 1992 §4.6, the crossed
//! model's `d_j` estimated by the data seed's mean). The fixed binary is summarised by one
//! value per data seed (its cell means: the interaction with the data seed and the run
//! noise are its uncertainty, on `b − 1` df), the random layouts by their binaries' means
//! (eq. 4 over binaries, which never carried the data axis: every binary averages the same
//! data seeds), and the shift is Fieller's ratio of the two as without data seeds
//! ([`super::shift::shift_of`]).

use std::collections::{BTreeMap, BTreeSet};

use super::model::Shift;
use super::series::{BinaryData, ExecutionData, Series};
use super::shift::{baseline_interval, shift_of, Fixed};
use crate::analysis::single::IntervalNote;
use crate::analysis::vocabulary::Thresholds;
use crate::stats::sample::{mean, MeanInterval};

/// The shifts of the baseline and of the as-built binary paired on the data seed (marked
/// [`Shift::paired_on_data_seed`] when the data seeds' means differ), when `series` has at least two data seeds and the fixed
/// binary ran under exactly the random binaries' data seeds; `None` for a fixed binary that
/// cannot be paired (then the unpaired answer stands). `random` is the eq. 4 interval over
/// binaries with its note.
pub(crate) fn paired_shifts(
    series: &Series,
    random: (Option<&MeanInterval>, Option<&IntervalNote>),
    thresholds: &Thresholds,
) -> (Option<Shift>, Option<Shift>) {
    let Some((paired, data_moves)) = paired_series(series) else {
        return (None, None);
    };
    let shift = |fixed: Fixed, data: Option<&BinaryData>| {
        let data = data?;
        let ci = baseline_interval(data, thresholds.confidence);
        Some(Shift {
            paired_on_data_seed: data_moves,
            ..shift_of(&paired, &fixed, random, ci.as_ref(), thresholds)
        })
    };
    (
        shift(Fixed::baseline(&paired), paired.baseline.as_ref()),
        shift(Fixed::as_built(&paired), paired.as_built.as_ref()),
    )
}

/// `series` with every value relative to its data seed's mean over the random binaries,
/// and each fixed binary that ran under exactly their data seeds summarised by one value
/// per data seed (others dropped: they are not paired); and whether the data seeds' means
/// differ (else the pairing removed nothing: a tie is then one value everywhere).
fn paired_series(series: &Series) -> Option<(Series, bool)> {
    let mut by_seed: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for e in series.seeds.iter().flat_map(|b| b.executions.iter()) {
        by_seed.entry(e.data_seed?).or_default().push(mean(&e.live));
    }
    if by_seed.len() < 2 {
        return None;
    }
    let seed_means: BTreeMap<u64, f64> = by_seed.iter().map(|(s, v)| (*s, mean(v))).collect();
    let grand = mean(&seed_means.values().copied().collect::<Vec<_>>());
    let first = seed_means.values().next().copied();
    let data_moves = seed_means.values().any(|m| Some(*m) != first);
    // `y − m_j` first: a value equal to its data seed's mean becomes exactly `grand`.
    let relative = |y: f64, seed: u64| (y - seed_means[&seed]) + grand;
    let seeds = series
        .seeds
        .iter()
        .map(|b| {
            let executions = b
                .executions
                .iter()
                .map(|e| {
                    let seed = e.data_seed?;
                    Some(ExecutionData {
                        live: e.live.iter().map(|y| relative(*y, seed)).collect(),
                        ..e.clone()
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(BinaryData {
                executions,
                ..b.clone()
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let cells = |b: &BinaryData| per_data_seed(b, &seed_means, grand);
    let paired = Series {
        seeds,
        baseline: series.baseline.as_ref().and_then(cells),
        as_built: series.as_built.as_ref().and_then(cells),
        ..series.clone()
    };
    Some((paired, data_moves))
}

/// `fixed` as one execution per data seed holding its cell mean relative to the data
/// seed's mean, when it ran under exactly the data seeds of `seed_means`.
fn per_data_seed(
    fixed: &BinaryData,
    seed_means: &BTreeMap<u64, f64>,
    grand: f64,
) -> Option<BinaryData> {
    let mut cells: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for e in &fixed.executions {
        cells.entry(e.data_seed?).or_default().push(mean(&e.live));
    }
    let ran: BTreeSet<&u64> = cells.keys().collect();
    if ran != seed_means.keys().collect::<BTreeSet<_>>() {
        return None;
    }
    let template = fixed.executions.first()?;
    let executions = cells
        .iter()
        .enumerate()
        .map(|(i, (seed, values))| ExecutionData {
            execution: i as u32,
            data_seed: Some(*seed),
            warmup: Vec::new(),
            live: vec![(mean(values) - seed_means[seed]) + grand],
            ..template.clone()
        })
        .collect();
    Some(BinaryData {
        executions,
        ..fixed.clone()
    })
}
