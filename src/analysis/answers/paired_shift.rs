//! The default layout's (and the as-built binary's) shift from the mean over random code
//! layouts, paired with the random layouts' executions on what they shared: the data seed,
//! when every binary ran under the same data seeds (`run --data-seeds`, issue 35), else the
//! round of a rounds schedule. The data layout, or the host's state during a round (a load,
//! a drift over the run), moves a fixed binary and the random ones alike, so it must cancel
//! in their comparison instead of widening it as execution noise (simulated, a run drifting
//! 5 % over 6 rounds hid a default layout 2 % faster in 78 of 200 experiments unpaired, in
//! none paired: `on_rounds_the_shift_is_paired_by_round`).
//!
//! Each value is taken relative to its data seed's (or round's) level among the random
//! binaries (`y − m_j + m`, the data seed's effect removed; Searle, Casella & McCulloch 1992
//! §4.6, the crossed model's `d_j` estimated by the one-step additive fit, [`KeyLevels`]).
//! The fixed binary is summarised by one value per data seed or round (its cell means: the
//! interaction and the run noise are its uncertainty, on `b − 1` df), the random layouts by
//! their binaries' means (eq. 4 over binaries, which never carried the data axis or the
//! rounds' shifts: every binary averages the same data seeds and rounds), and the shift is
//! Fieller's ratio of the two as unpaired ([`super::shift::shift_of`]).

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

/// The level of each data seed (round) among the random binaries, and their grand mean: a
/// value is taken as `(y − level) + grand`.
struct KeyLevels {
    levels: BTreeMap<u64, f64>,
    grand: f64,
}

impl KeyLevels {
    /// The levels of `series`' data seeds (rounds): the grand mean of the binaries' means plus
    /// the mean deviation of the random binaries' execution means under the key from each
    /// one's own mean (the one-step additive fit of binary and key, which is the key's mean
    /// when every binary ran under every key, and stays unbiased by the layouts when the
    /// outlier screen left a binary out of a round); a key under which every value is the
    /// same has that value as its level, so that equal values become exactly the grand mean
    /// (a tie stays a tie). `None` with fewer than two keys, or an execution without one.
    fn of(series: &Series, on: PairedOn) -> Option<KeyLevels> {
        let mut by_key: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
        for b in &series.seeds {
            let own = b.mean();
            for e in &b.executions {
                by_key
                    .entry(on.key(e)?)
                    .or_default()
                    .push((exact_mean(&e.live), own));
            }
        }
        if by_key.len() < 2 {
            return None;
        }
        let grand = mean(&series.seeds.iter().map(|b| b.mean()).collect::<Vec<_>>());
        let levels = by_key
            .into_iter()
            .map(|(key, cells)| {
                let first = cells[0].0;
                let level = if cells.iter().all(|(y, _)| *y == first) {
                    first
                } else {
                    grand + mean(&cells.iter().map(|(y, own)| y - own).collect::<Vec<_>>())
                };
                (key, level)
            })
            .collect();
        Some(KeyLevels { levels, grand })
    }

    /// `y`, measured under `key`, relative to that key's level (`y − level` first: a value
    /// equal to its key's level becomes exactly the grand mean).
    fn relative(&self, y: f64, key: u64) -> f64 {
        (y - self.levels[&key]) + self.grand
    }

    /// Whether the keys' levels differ (else the pairing removed nothing).
    fn differ(&self) -> bool {
        let first = self.levels.values().next().copied();
        self.levels.values().any(|l| Some(*l) != first)
    }
}

/// `series` with every value relative to its data seed's (round's) level ([`KeyLevels`]),
/// each fixed binary summarised by one value per data seed (round) it ran in, when at least
/// two (else dropped: it is not paired). And `Some(on)` when the levels differ (else the
/// pairing removed nothing: a tie is then one value everywhere).
fn paired_series(series: &Series, on: PairedOn) -> Option<(Series, Option<PairedOn>)> {
    let levels = KeyLevels::of(series, on)?;
    let moved = levels.differ().then_some(on);
    let relative = |e: &ExecutionData| {
        let key = on.key(e);
        ExecutionData {
            live: e
                .live
                .iter()
                .map(|y| key.map_or(*y, |k| levels.relative(*y, k)))
                .collect(),
            ..e.clone()
        }
    };
    let seeds = series
        .seeds
        .iter()
        .map(|b| BinaryData {
            executions: b.executions.iter().map(relative).collect(),
            ..b.clone()
        })
        .collect();
    let cells = |b: &BinaryData| per_key(b, on, &levels);
    let paired = Series {
        seeds,
        baseline: series.baseline.as_ref().and_then(cells),
        as_built: series.as_built.as_ref().and_then(cells),
        ..series.clone()
    };
    Some((paired, moved))
}

/// `fixed` as one execution per data seed (round) of `levels` it ran in, holding its cell
/// mean relative to that key's level, when it ran in at least two of them.
fn per_key(fixed: &BinaryData, on: PairedOn, levels: &KeyLevels) -> Option<BinaryData> {
    let mut cells: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for e in &fixed.executions {
        let key = on.key(e)?;
        if levels.levels.contains_key(&key) {
            cells.entry(key).or_default().push(exact_mean(&e.live));
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
            live: vec![levels.relative(exact_mean(values), *key)],
            ..template.clone()
        })
        .collect();
    Some(BinaryData {
        executions,
        ..fixed.clone()
    })
}

/// The mean of `xs`, exactly their value when they are all equal (a sum of equal values
/// divided by their count can miss it by a rounding, which would break a tie).
fn exact_mean(xs: &[f64]) -> f64 {
    match xs.first() {
        Some(first) if xs.iter().all(|x| x == first) => *first,
        _ => mean(xs),
    }
}
