//! The titles and axis labels of a series' plots in the HTML report, from the plot data
//! ([`crate::analysis::answers::plot_data`]): which binary and execution a run sequence
//! shows, what the dependence plots are of, the variance bars' levels, the values' axis.

use crate::analysis::answers::plot_data::{DependenceSubject, RunSequence, VarianceBar};

/// The axis of the measured values: the metric and the unit they are shown in, `count` for
/// a plain count (which [`crate::report::numfmt::Scale`] shows without a unit after the
/// number), as the section's heading names it (`crate::report::title::heading_unit`).
pub(crate) fn values_axis(metric: &str, unit: &str) -> String {
    let unit = if unit.is_empty() { "count" } else { unit };
    format!("{metric} ({unit})")
}

/// A variance bar's label: its level and repetitions, `execution (r = 2)`.
pub(crate) fn variance_bar(bar: &VarianceBar) -> String {
    format!("{} (r = {})", bar.level, bar.repetitions)
}

/// A run sequence's title: `seed-3 execution 1`, and why it is shown first when its
/// changepoint suggests a longer warmup.
pub(crate) fn run_sequence_title(r: &RunSequence) -> String {
    let title = format!("{} execution {}", r.binary, r.execution);
    if r.longer_warmup {
        format!("{title} — changepoint suggests a longer warmup")
    } else {
        title
    }
}

/// What the lag and ACF plots are of, as the object of "Of …".
pub(crate) fn dependence_subject(subject: &DependenceSubject) -> String {
    match subject {
        DependenceSubject::Iterations { binary, execution } => {
            format!("the live iterations of {binary} execution {execution}")
        }
        DependenceSubject::ExecutionMeans => "the execution means in schedule order".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each label is worded from the plot's data alone: the flag adds the warmup's note,
    /// the subject names the binary and execution whose iterations are plotted.
    #[test]
    fn titles_and_labels_are_worded_from_the_plot_data() {
        let mut r = RunSequence {
            binary: "seed-3".into(),
            execution: 1,
            ..RunSequence::default()
        };
        assert_eq!(run_sequence_title(&r), "seed-3 execution 1");
        r.longer_warmup = true;
        assert_eq!(
            run_sequence_title(&r),
            "seed-3 execution 1 — changepoint suggests a longer warmup"
        );
        let bar = VarianceBar {
            level: "execution".into(),
            repetitions: 2,
            t2: 4.0,
        };
        assert_eq!(variance_bar(&bar), "execution (r = 2)");
        assert_eq!(values_axis("wall", "ms"), "wall (ms)");
        // Not "D1_misses ()": the plotted unit of a count is empty.
        let count = crate::report::numfmt::Scale::for_values("count", 1e6);
        assert_eq!(values_axis("D1_misses", &count.name), "D1_misses (count)");
        assert_eq!(
            dependence_subject(&DependenceSubject::Iterations {
                binary: "seed-1".into(),
                execution: 0
            }),
            "the live iterations of seed-1 execution 0"
        );
        assert_eq!(
            dependence_subject(&DependenceSubject::ExecutionMeans),
            "the execution means in schedule order"
        );
    }
}
