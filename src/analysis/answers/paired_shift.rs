//! The default layout's (and the as-built binary's) shift from the mean over random code
//! layouts, paired with the random layouts' executions on what they shared: the data seed,
//! when every binary ran under the same data seeds (`run --data-seeds`, issue 35), else the
//! round of a rounds schedule. The data layout, or the host's state during a round, moves a
//! fixed binary and the random ones alike, so it must cancel in their comparison instead of
//! widening it as execution noise (flac by wall time, rounds 2 % apart: the unpaired shift
//! read "cannot tell: from 3.0 % faster to 0.53 % slower" beside a default layout found
//! unusual, 1.3 % faster, by the prediction interval, which the rounds never widened).
//!
//! Each value is taken relative to its data seed's (or round's) mean over the random
//! binaries (`y − m_j + m`, the data seed's effect removed; Searle, Casella & McCulloch 1992
//! §4.6, the crossed model's `d_j` estimated by the data seed's mean), over the data seeds or
//! rounds every random binary has. The fixed binary is summarised by one value per data seed
//! or round (its cell means: the interaction and the run noise are its uncertainty, on
//! `b − 1` df), the random layouts by their binaries' means (eq. 4 over binaries, which never
//! carried the data axis or the rounds' shifts: every binary averages the same data seeds
//! and rounds), and the shift is Fieller's ratio of the two as unpaired
//! ([`super::shift::shift_of`]).

use std::collections::BTreeMap;

use super::model::{PairedOn, Shift};
use super::series::{BinaryData, ExecutionData, Series};
use super::shift::{baseline_interval, shift_of, Fixed};
use crate::analysis::single::IntervalNote;
use crate::analysis::vocabulary::Thresholds;
use crate::stats::sample::{mean, MeanInterval};

/// The shifts of the baseline and of the as-built binary paired on the data seed, else on
/// the round of a rounds schedule (marked [`Shift::paired_on`] when the data seeds' or rounds'
/// means differ), when the random binaries share at least two of them and the fixed binary
/// ran in at least two of those; `None` for a fixed binary that cannot be paired (then the
/// unpaired answer stands). `random` is the eq. 4 interval over binaries with its note.
pub(crate) fn paired_shifts(
    series: &Series,
    random: (Option<&MeanInterval>, Option<&IntervalNote>),
    thresholds: &Thresholds,
) -> (Option<Shift>, Option<Shift>) {
    let candidates = [PairedOn::DataSeed, PairedOn::Round];
    let Some((paired, moved)) = candidates
        .into_iter()
        .filter(|on| *on == PairedOn::DataSeed || series.rounds)
        .find_map(|on| paired_series(series, on))
    else {
        return (None, None);
    };
    let shift = |fixed: Fixed, data: Option<&BinaryData>| {
        let data = data?;
        let ci = baseline_interval(data, thresholds.confidence);
        Some(Shift {
            paired_on: moved,
            ..shift_of(&paired, &fixed, random, ci.as_ref(), thresholds)
        })
    };
    (
        shift(Fixed::baseline(&paired), paired.baseline.as_ref()),
        shift(Fixed::as_built(&paired), paired.as_built.as_ref()),
    )
}

impl PairedOn {
    /// The data seed or round of `e` (`None`: an execution without a data seed, which
    /// cannot be paired on it).
    fn key(self, e: &ExecutionData) -> Option<u64> {
        match self {
            PairedOn::DataSeed => e.data_seed,
            PairedOn::Round => Some(u64::from(e.execution)),
        }
    }
}

/// `series` with every value less its data seed's (round's) shift: the mean deviation of
/// the random binaries' values under it from each one's own mean (the one-step additive
/// fit of binary and data seed, which is the data seed's mean less the grand mean when every
/// binary ran under every data seed, and stays unbiased by the layouts when the outlier
/// screen left a binary out of a round); each fixed binary summarised by one value per data
/// seed (round) it ran in, when at least two (else dropped: it is not paired). And `Some(on)`
/// when those shifts differ (else the pairing removed nothing: a tie is then one value
/// everywhere).
fn paired_series(series: &Series, on: PairedOn) -> Option<(Series, Option<PairedOn>)> {
    let mut by_key: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for b in &series.seeds {
        let own = b.mean();
        for e in &b.executions {
            by_key
                .entry(on.key(e)?)
                .or_default()
                .push(mean(&e.live) - own);
        }
    }
    if by_key.len() < 2 {
        return None;
    }
    let shifts: BTreeMap<u64, f64> = by_key.iter().map(|(k, v)| (*k, mean(v))).collect();
    let first = shifts.values().next().copied();
    let moved = shifts.values().any(|m| Some(*m) != first).then_some(on);
    let less_shift = |e: &ExecutionData| {
        let shift = on.key(e).map_or(0.0, |k| shifts[&k]);
        ExecutionData {
            live: e.live.iter().map(|y| y - shift).collect(),
            ..e.clone()
        }
    };
    let seeds = series
        .seeds
        .iter()
        .map(|b| BinaryData {
            executions: b.executions.iter().map(less_shift).collect(),
            ..b.clone()
        })
        .collect();
    let cells = |b: &BinaryData| per_key(b, on, &shifts);
    let paired = Series {
        seeds,
        baseline: series.baseline.as_ref().and_then(cells),
        as_built: series.as_built.as_ref().and_then(cells),
        ..series.clone()
    };
    Some((paired, moved))
}

/// `fixed` as one execution per data seed (round) of `shifts` it ran in, holding its cell
/// mean less that data seed's (round's) shift, when it ran in at least two of them.
fn per_key(fixed: &BinaryData, on: PairedOn, shifts: &BTreeMap<u64, f64>) -> Option<BinaryData> {
    let mut cells: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for e in &fixed.executions {
        let key = on.key(e)?;
        if shifts.contains_key(&key) {
            cells.entry(key).or_default().push(mean(&e.live));
        }
    }
    if cells.len() < 2 {
        return None;
    }
    let template = fixed.executions.first()?;
    let executions = cells
        .iter()
        .enumerate()
        .map(|(i, (key, values))| ExecutionData {
            execution: i as u32,
            data_seed: (on == PairedOn::DataSeed).then_some(*key),
            warmup: Vec::new(),
            live: vec![mean(values) - shifts[key]],
            ..template.clone()
        })
        .collect();
    Some(BinaryData {
        executions,
        ..fixed.clone()
    })
}
