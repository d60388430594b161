//! The code axis of a crossed (code seed × data seed) run (`run --data-seeds`, issue 35):
//! what the layout-sensitivity answer needs beyond its rank test. The rank test already
//! compares binaries within blocks of one round and one data seed (execution `k` of every
//! binary ran with the same data seed), so the data layout's effect never reaches it; but
//! its power, and the "no variation at all" case, must be judged against the noise within
//! a data seed too, not against executions that also differ in their data layout.

use super::data_split::{crossed_cells, Cells};
use super::series::Series;
use crate::stats::crossed_mean::detectable_code_variation;
use crate::stats::sample::mean;
use crate::stats::variance_split::{crossed_mean_squares, CrossedMeanSquares};

/// The crossed table of a series with several data seeds.
pub(super) struct CodeAxis {
    table: CrossedMeanSquares,
    /// Whether under each data seed every binary's executions averaged the same value:
    /// nothing varies from binary to binary (`MS_C = MS_CD = 0` without rounding).
    identical: bool,
}

impl CodeAxis {
    /// The crossed table of `series`, when it ran with at least two data seeds in a
    /// balanced table.
    pub(super) fn of(series: &Series) -> Option<CodeAxis> {
        let cells = crossed_cells(series)?;
        let table = crossed_mean_squares(&cells).ok()?;
        Some(CodeAxis {
            identical: identical_binaries(&cells),
            table,
        })
    }

    /// Data seeds.
    pub(super) fn data_seeds(&self) -> usize {
        self.table.data_seeds
    }

    /// Whether every binary measured the same under each data seed.
    pub(super) fn identical(&self) -> bool {
        self.identical
    }

    /// The code-layout standard deviation, relative to `mean`, that the crossed test finds
    /// with probability `power` at level `alpha` against the noise within a data seed.
    pub(super) fn detectable(&self, alpha: f64, power: f64, mean: f64) -> Option<f64> {
        detectable_code_variation(&self.table, alpha, power)
            .map(|sd| sd / mean.abs())
            .filter(|v| v.is_finite())
    }
}

/// Whether, under each data seed, every binary's cell mean is the first binary's.
fn identical_binaries(cells: &Cells) -> bool {
    let Some(first) = cells.first() else {
        return false;
    };
    cells.iter().all(|row| {
        row.iter()
            .zip(first)
            .all(|(cell, reference)| mean(cell) == mean(reference))
    })
}
