//! Binaries added after the run began ran in a phase of their own: `build --extend` relinks
//! new seeds and `run --resume` measures them, later, on the host as it is then. The phase's
//! host state is then in every one of its binaries' means, and comparing binaries across
//! phases counts it as layout (libdeflate 1.14 by wall time: 18 seeds added to 12 ran 0.85 %
//! faster as a group, and the layout's own share read 0.78 %). The layout's answers (its
//! sensitivity, the fixed layouts' shift and place) compare the binaries within their phase:
//! each later phase's shift, the median of its random binaries' levels over the first
//! phase's (a ratio for positive values, which stays positive; a difference otherwise), is
//! taken out of its binaries' values. A binary's level is the median of its execution means,
//! so that a load burst in one phase is no shift of it; and the median over the phase's
//! binaries, so that a layout far off the others is none either (mawk's I1 misses, 12 seeds
//! with one at 386k among 2.5k to 11k and 12 added: means by phase shifted the default
//! layout's count to −5,059). The fixed layouts ran in the first phase and stay as they ran;
//! so does the mean over random layouts and the table of levels. Not for a metric measured
//! by cachegrind, a simulation the host's state does not move
//! (`super::experiment::later_phases`).
//! A phase's shift also holds the sampling noise of its layouts, so taking it out costs the
//! layout's answers one degree of freedom per added phase, which the F test does not charge
//! (it stays conservative: the between-binary sum of squares only shrinks).

use super::series::{BinaryData, Series};
use crate::stats::sample::median;

/// The phases of a series whose added binaries were centred on the first phase's level.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseShifts {
    /// Randomised binaries added after the run began.
    pub added: usize,
    /// Phases with randomised binaries, the first included.
    pub phases: usize,
    /// The largest later phase's shift relative to the first phase's level, signed.
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
    let phases = means.iter().map(|(p, _)| *p).max().unwrap_or(0);
    let level_of = |p: u32| -> f64 {
        let of_phase: Vec<f64> = means
            .iter()
            .filter(|(q, _)| *q == p)
            .map(|(_, m)| *m)
            .collect();
        match of_phase.is_empty() {
            true => f64::NAN,
            false => median(&of_phase),
        }
    };
    let first = level_of(0);
    // A ratio for positive values (a time, a count), which stays positive; else a difference.
    let ratio = means.iter().all(|(_, m)| *m > 0.0);
    let shifts: Vec<f64> = (0..=phases)
        .map(|p| match ratio {
            true => level_of(p) / first,
            false => level_of(p) - first,
        })
        .collect();
    if shifts.iter().any(|s| !s.is_finite()) || !first.is_finite() || first == 0.0 {
        return None;
    }
    let take_out = |v: f64, shift: f64| match ratio {
        true => v / shift,
        false => v - shift,
    };
    let centred = |b: &BinaryData, shift: f64| BinaryData {
        executions: b
            .executions
            .iter()
            .map(|e| super::series::ExecutionData {
                warmup: e.warmup.iter().map(|v| take_out(*v, shift)).collect(),
                live: e.live.iter().map(|v| take_out(*v, shift)).collect(),
                ..e.clone()
            })
            .collect(),
        ..b.clone()
    };
    // The fixed layouts ran in the first phase, whose values stay as they ran.
    let centred_series = Series {
        seeds: series
            .seeds
            .iter()
            .map(|b| centred(b, shifts[phase_of(b) as usize]))
            .collect(),
        ..series.clone()
    };
    let relative: Vec<f64> = shifts
        .iter()
        .map(|s| match ratio {
            true => s - 1.0,
            false => s / first,
        })
        .collect();
    let largest = relative
        .into_iter()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap_or(0.0);
    Some((
        centred_series,
        PhaseShifts {
            added: means.iter().filter(|(p, _)| *p > 0).count(),
            phases: shifts.len(),
            largest,
        },
    ))
}
