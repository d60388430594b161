//! The data of the HTML report's plots, as the report model carries them: values in the
//! plotted unit, the boxes' quartiles, the autocorrelations and their reordered twins.
//! [`super::plots`] fills them from an experiment; a leaf, so that the model can hold them.

use crate::stats::sample::quantile;

/// A box of a box plot: whiskers at the extremes, the box from the first to the third
/// quartile, a line at the median.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BoxSummary {
    /// Smallest value.
    pub(crate) low: f64,
    /// First quartile.
    pub(crate) q1: f64,
    /// Median.
    pub(crate) median: f64,
    /// Third quartile.
    pub(crate) q3: f64,
    /// Largest value.
    pub(crate) high: f64,
}

impl BoxSummary {
    /// The box of `values` (quartiles as [`crate::stats::sample::quantile`] defines them);
    /// none for no values.
    pub(crate) fn of(values: &[f64]) -> Option<BoxSummary> {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        Some(BoxSummary {
            low: *v.first()?,
            q1: quantile(&v, 0.25),
            median: quantile(&v, 0.5),
            q3: quantile(&v, 0.75),
            high: *v.last()?,
        })
    }
}

/// One group of a strip/box plot.
#[derive(Debug, Clone)]
pub(crate) struct StripGroup {
    /// Label under the group.
    pub(crate) label: String,
    /// Points drawn as dots (e.g. execution means).
    pub(crate) points: Vec<f64>,
    /// The box of the values it summarises (e.g. all live iterations); none without values.
    pub(crate) box_summary: Option<BoxSummary>,
    /// Draw this group as the baseline.
    pub(crate) highlight: bool,
}

/// One execution's iterations in run order.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunSequence {
    /// The binary (`seed-N`, `baseline`).
    pub(crate) binary: String,
    /// The execution's number.
    pub(crate) execution: u32,
    /// Whether changepoint detection suggests a longer warmup than the one discarded.
    pub(crate) longer_warmup: bool,
    /// Every iteration, warmup first.
    pub(crate) values: Vec<f64>,
    /// Iterations discarded as warmup (shaded).
    pub(crate) warmup: usize,
    /// Where changepoint detection suggests the warmup should end.
    pub(crate) marks: Vec<usize>,
}

/// What the lag and ACF plots show.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum DependenceSubject {
    /// The live iterations of one execution of a binary.
    Iterations {
        /// The binary (`seed-N`).
        binary: String,
        /// The execution's number.
        execution: u32,
    },
    /// Every execution's mean in schedule order (executions too short for their own).
    #[default]
    ExecutionMeans,
}

/// Values against their lagged selves and their autocorrelations, each beside the same
/// values randomly reordered.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dependence {
    /// What the values are.
    pub(crate) subject: DependenceSubject,
    /// The values in run order.
    pub(crate) values: Vec<f64>,
    /// The same values, randomly reordered (seeded).
    pub(crate) reordered: Vec<f64>,
    /// The lags of the lag plots (those shorter than the data).
    pub(crate) lags: Vec<usize>,
    /// Autocorrelations from lag 1 of the values and of the reordered twin, with the ±bound
    /// expected of independent noise; none below 4 values.
    pub(crate) acf: Option<(Vec<f64>, Vec<f64>, f64)>,
}

/// One level's bar of the variance-component plot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VarianceBar {
    /// The level (`iteration`, `execution`, `binary`).
    pub(crate) level: String,
    /// Its repetitions r_i.
    pub(crate) repetitions: usize,
    /// Its variance component T_i² (Kalibera & Jones eq. 2), in the metric's unit².
    pub(crate) t2: f64,
}

/// The plots of one data set, as data, every value in the scaled unit `unit`.
#[derive(Debug, Clone, Default)]
pub(crate) struct SeriesPlots {
    /// The metric measured.
    pub(crate) metric: String,
    /// The unit the values are shown in (the section's scale; empty for a count).
    pub(crate) unit: String,
    /// Strip/box plot of every binary, the baseline marked.
    pub(crate) binaries: Vec<StripGroup>,
    /// Variance components (T² per level).
    pub(crate) variance: Vec<VarianceBar>,
    /// Execution means in schedule order (drift across the experiment).
    pub(crate) schedule: Vec<f64>,
    /// Run sequences of the iterations of selected executions.
    pub(crate) run_sequences: Vec<RunSequence>,
    /// What the lag and ACF plots show.
    pub(crate) dependence: Dependence,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quartiles by Hyndman & Fan's definition 7, the input unsorted; reference:
    /// `python3 -c "import numpy as np; print(np.quantile([4,1,3,2],[0.25,0.5,0.75]))"`
    /// → `[1.75 2.5 3.25]`.
    #[test]
    fn a_box_has_numpys_quartiles_and_the_extremes() {
        let b = BoxSummary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(
            (b.low, b.q1, b.median, b.q3, b.high),
            (1.0, 1.75, 2.5, 3.25, 4.0)
        );
        assert_eq!(BoxSummary::of(&[]), None);
    }
}
