//! The mean over random code and data layouts when the run varied the data layout
//! (`run --data-seeds`, issue 35): every binary ran under the same data seeds, so the
//! binaries' means share the data seeds' effect and their spread (Kalibera & Jones eq. 4)
//! leaves it out. The interval comes from the crossed design instead
//! ([`crate::stats::crossed_mean`]). Numbers only; the words are
//! `crate::report::words::crossed_mean`'s.

use serde::Serialize;

use super::data_split::crossed_cells;
use super::series::Series;
use crate::analysis::single::{interval_use, IntervalNote, IntervalUse, Narrowing};
use crate::stats::crossed_mean::crossed_mean_interval;
use crate::stats::sample::MeanInterval;
use crate::stats::variance_split::crossed_mean_squares;

/// The crossed design the mean's interval comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CrossedMean {
    /// Binaries (code seeds).
    pub code_seeds: usize,
    /// Data seeds every binary ran under.
    pub data_seeds: usize,
    /// Executions of every binary with every data seed that the interval used.
    pub(crate) executions_per_cell: usize,
    /// Satterthwaite's degrees of freedom of the mean's variance.
    pub(crate) df: f64,
}

/// The interval of the mean over random code and data layouts of `series` centred on
/// `mean`, with the note that says why it cannot inform (withheld when it would reach zero
/// for a positive quantity: the house's one rule, [`interval_use`]); `None` without at
/// least two data seeds in a balanced crossed table, or when nothing varies between code or
/// data seeds (the binaries' interval then says as much).
pub(crate) fn crossed_mean(
    series: &Series,
    mean: f64,
    confidence: f64,
) -> Option<(CrossedMean, Option<MeanInterval>, Option<IntervalNote>)> {
    let cells = crossed_cells(series)?;
    let table = crossed_mean_squares(&cells).ok()?;
    let interval = crossed_mean_interval(&table, confidence).ok()?;
    let design = CrossedMean {
        code_seeds: table.code_seeds,
        data_seeds: table.data_seeds,
        executions_per_cell: table.replicates,
        df: interval.df,
    };
    let positive = series
        .seeds
        .iter()
        .flat_map(|b| b.executions.iter().flat_map(|e| e.live.iter()))
        .all(|v| *v > 0.0);
    let judged = interval_use(mean, interval.half_width, positive);
    let ci = MeanInterval {
        mean,
        lower: mean - interval.half_width,
        upper: mean + interval.half_width,
        half_width: interval.half_width,
        df: interval.df,
        confidence,
    };
    let ci = (!matches!(judged, IntervalUse::Withheld(_))).then_some(ci);
    Some((design, ci, judged.note(Narrowing::BinariesAndDataSeeds)))
}
