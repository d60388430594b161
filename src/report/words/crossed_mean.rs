//! How the mean over random layouts is named and on what it rests, when the run varied the
//! data layout too (`run --data-seeds`): over random code and data layouts, from the crossed
//! design ([`crate::analysis::answers::crossed_mean`]). With one data seed the words are
//! today's (Kalibera & Jones eq. 4 over binaries).

use crate::analysis::answers::model::SeriesReport;
use crate::report::numfmt::sig;

/// What the mean is over: "random layouts" (code only) or "random code and data layouts".
pub(crate) fn over(s: &SeriesReport) -> &'static str {
    if s.crossed_mean.is_some() {
        "random code and data layouts"
    } else {
        "random layouts"
    }
}

/// What the summary says the mean is over: "random code layouts" or "random code and data
/// layouts".
pub(crate) fn summary_over(s: &SeriesReport) -> &'static str {
    if s.crossed_mean.is_some() {
        "random code and data layouts"
    } else {
        "random code layouts"
    }
}

/// What the interval rests on: "6 binaries, KJ eq. 4" or "6 binaries × 6 data seeds × 2
/// executions, crossed design with 5.00 df by Satterthwaite".
pub(crate) fn basis(s: &SeriesReport, binaries: usize) -> String {
    match &s.crossed_mean {
        Some(c) => format!(
            "{} binaries × {} data seeds × {} executions, crossed design with {} df by Satterthwaite",
            c.code_seeds,
            c.data_seeds,
            c.executions_per_cell,
            sig(c.df, 3)
        ),
        None => format!("{binaries} binaries, KJ eq. 4"),
    }
}

/// Over which data seeds a fixed binary's (baseline, as-built) own interval is: "" without
/// data seeds, else " under the same 6 data seeds as the random layouts; its shift from them
/// is compared within each data seed".
pub(crate) fn fixed_under(s: &SeriesReport) -> String {
    match &s.crossed_mean {
        Some(c) => format!(
            " under the same {} data seeds as the random layouts (its shift from them is compared within each data seed)",
            c.data_seeds
        ),
        None => String::new(),
    }
}
