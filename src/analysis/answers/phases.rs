//! Binaries added after the run began ran in a phase of their own: `build --extend` relinks
//! new seeds and `run --resume` measures them, later, on the host as it is then. The phase's
//! host state is then in every one of its binaries' means, and comparing binaries across
//! phases counts it as layout (libdeflate 1.14 by wall time: 18 seeds added to 12 ran 0.85 %
//! faster as a group, and the layout's own share read 0.78 %). The layout's answers (its
//! sensitivity, the fixed layouts' shift and place) compare the binaries within their phase:
//! each phase's shift, the mean of its random binaries' means less the mean over all random
//! binaries, is taken out of its binaries' values (each binary's level the median of its
//! execution means, so that a load burst in one phase is no shift of it; the fixed layouts
//! ran in the first
//! phase). The mean over random layouts and the table of levels keep every value as it ran.
//! A phase's shift also holds the sampling noise of its layouts, so taking it out costs the
//! layout's answers one degree of freedom per added phase, which the F test does not charge
//! (it stays conservative: the between-binary sum of squares only shrinks).

use super::series::{BinaryData, Series};
use crate::stats::sample::{mean, median};

/// The phases of a series whose added binaries were centred on the first phase's level.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseShifts {
    /// Randomised binaries added after the run began.
    pub added: usize,
    /// Phases with randomised binaries, the first included.
    pub phases: usize,
    /// The largest phase shift relative to the mean of the random binaries' levels, signed.
    pub largest: f64,
}

/// `series` with each phase's shift taken out of its binaries' values, and the shifts; `None`
/// when no binary was added later, or when a phase (the first included) has no randomised
/// binary to estimate its shift from.
pub(crate) fn phase_centred(series: &Series) -> Option<(Series, PhaseShifts)> {
    let phase_of = |b: &BinaryData| series.later_phases.get(&b.binary).copied().unwrap_or(0);
    if !series.seeds.iter().any(|b| phase_of(b) > 0) {
        return None;
    }
    let means: Vec<(u32, f64)> = series
        .seeds
        .iter()
        .map(|b| (phase_of(b), median(&b.execution_means())))
        .collect();
    let grand = mean(&means.iter().map(|(_, m)| *m).collect::<Vec<_>>());
    let phases = means.iter().map(|(p, _)| *p).max().unwrap_or(0);
    let shifts: Vec<f64> = (0..=phases)
        .map(|p| {
            let of_phase: Vec<f64> = means
                .iter()
                .filter(|(q, _)| *q == p)
                .map(|(_, m)| *m)
                .collect();
            mean(&of_phase) - grand
        })
        .collect();
    if shifts.iter().any(|s| !s.is_finite()) || grand == 0.0 || !grand.is_finite() {
        return None;
    }
    let centred = |b: &BinaryData, shift: f64| BinaryData {
        executions: b
            .executions
            .iter()
            .map(|e| super::series::ExecutionData {
                warmup: e.warmup.iter().map(|v| v - shift).collect(),
                live: e.live.iter().map(|v| v - shift).collect(),
                ..e.clone()
            })
            .collect(),
        ..b.clone()
    };
    let first = shifts[0];
    let centred_series = Series {
        seeds: series
            .seeds
            .iter()
            .map(|b| centred(b, shifts[phase_of(b) as usize]))
            .collect(),
        baseline: series.baseline.as_ref().map(|b| centred(b, first)),
        as_built: series.as_built.as_ref().map(|b| centred(b, first)),
        ..series.clone()
    };
    let largest = shifts
        .iter()
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap_or(0.0)
        / grand;
    Some((
        centred_series,
        PhaseShifts {
            added: means.iter().filter(|(p, _)| *p > 0).count(),
            phases: shifts.len(),
            largest,
        },
    ))
}
