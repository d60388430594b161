//! The HTML report's plots of one data set drawn as SVG, from the data
//! [`crate::analysis::answers::plots`] chose (values, quartiles, autocorrelations, the
//! reordered twins), titled and labelled by [`crate::report::words::plots`].

use crate::analysis::answers::plot_data::SeriesPlots;
use crate::report::words::plots::{
    dependence_subject, run_sequence_title, values_axis, variance_bar,
};

use super::svg::{acf_plot, bars, lag_plot, run_sequence, strip_plot};

/// The plots of one data set, as SVG strings grouped by section.
#[derive(Debug, Clone, Default)]
pub(crate) struct DrawnPlots {
    /// Strip/box plot of every binary, the baseline marked.
    pub(crate) binaries: String,
    /// Variance-component bars (T² per level).
    pub(crate) variance: String,
    /// Execution means in schedule order (drift across the experiment).
    pub(crate) schedule: String,
    /// Run-sequence plots of the iterations of selected executions.
    pub(crate) run_sequences: Vec<String>,
    /// What the lag and ACF plots show, in words.
    pub(crate) dependence_subject: String,
    /// Lag plots of the data and of the same data randomly reordered, pairwise.
    pub(crate) lags: Vec<(String, String)>,
    /// ACF of the data and of the same data randomly reordered.
    pub(crate) acf: Option<(String, String)>,
}

/// Draws the plots of `plots`.
pub(crate) fn draw(plots: &SeriesPlots) -> DrawnPlots {
    let label = &values_axis(&plots.metric, &plots.unit);
    let d = &plots.dependence;
    let variance: Vec<(String, f64)> = (plots.variance.iter())
        .map(|bar| (variance_bar(bar), bar.t2))
        .collect();
    DrawnPlots {
        binaries: strip_plot(
            "Boxes: iterations; dots: execution means; orange: baseline",
            label,
            &plots.binaries,
        ),
        variance: bars(
            "Share of the variance by level (T², Kalibera & Jones eq. 2)",
            &variance,
        ),
        schedule: run_sequence(
            "Execution means in run order (drift?)",
            "execution, in run order",
            label,
            &plots.schedule,
            0,
            &[],
        ),
        run_sequences: plots
            .run_sequences
            .iter()
            .map(|r| {
                let title = run_sequence_title(r);
                run_sequence(&title, "iteration", label, &r.values, r.warmup, &r.marks)
            })
            .collect(),
        dependence_subject: dependence_subject(&d.subject),
        lags: d
            .lags
            .iter()
            .map(|&h| {
                (
                    lag_plot(&format!("lag {h}"), &d.values, h),
                    lag_plot(&format!("lag {h}, reordered"), &d.reordered, h),
                )
            })
            .collect(),
        acf: d.acf.as_ref().map(|(real, reordered, bound)| {
            (
                acf_plot("ACF", real, *bound),
                acf_plot("ACF, reordered", reordered, *bound),
            )
        }),
    }
}
