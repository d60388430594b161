//! "Is this program data-layout-sensitive?" when the run varied the data layout (`run
//! --data-seeds`, issue 35): the crossed design's test of the data axis (`MS_D / MS_CD`,
//! [`crate::stats::variance_split::axis_tests`]) with its magnitude — how much the metric
//! moves from one data layout to another, relative to the mean, with its interval
//! ([`crate::stats::crossed_mean::data_variation_interval`]) — judged as the code layout's
//! answer is: detectable is not relevant (`--negligible`), and a test that could not have
//! found a relevant effect says "cannot tell". Numbers and enums; the words are
//! `crate::report::words::data_sensitivity`'s.

use serde::Serialize;

use super::data_split::crossed_cells;
use super::series::Series;
use crate::analysis::effect::Interval;
use crate::analysis::vocabulary::Thresholds;
use crate::analysis::vocabulary::Verdict;
use crate::stats::crossed_mean::{data_variation_interval, detectable_data_variation};
use crate::stats::sample::mean;
use crate::stats::variance_split::{axis_tests, crossed_mean_squares};

/// Pivot draws behind the magnitude's interval (as the split's).
const PIVOT_DRAWS: usize = 4000;

/// The pivots' stream: fixed, so that the same store gives the same report.
const PIVOT_SEED: u64 = 35;

/// The data-layout answer of one series.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The answer in words."
))]
pub struct DataSensitivity {
    /// `detected` (the test rejects and the magnitude's interval lies above 0),
    /// `negligible` (detected, but the interval's upper end within `--negligible`),
    /// `not_detected`, or `undetermined` (the test rejects but the interval reaches 0, or it
    /// does not reject and could not have found a variation of `--negligible` with 80 %
    /// power).
    pub verdict: Verdict,
    /// Data seeds every binary ran under.
    pub(crate) data_seeds: usize,
    /// The data layout's standard deviation over the mean (ANOVA estimate, truncated at 0):
    /// how much the metric moves from one data layout to another, e.g. 0.035 for 3.5 %.
    pub variation: f64,
    /// Its generalized confidence interval, relative to the mean (never below 0).
    pub variation_ci: Interval,
    /// `F = MS_D / MS_CD`; absent when `MS_CD = 0` (no noise within a data seed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) f: Option<f64>,
    /// Its numerator's degrees of freedom, `b − 1`.
    pub(crate) df_numerator: usize,
    /// Its denominator's degrees of freedom, `(a − 1)(b − 1)`.
    pub(crate) df_denominator: usize,
    /// The test's p-value.
    pub(crate) p_value: f64,
    /// The relative standard deviation the test finds with 80 % power.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) detectable_variation: Option<f64>,
    /// Executions the layout-sensitivity screening set aside as outlying (load bursts),
    /// left out of this answer; absent when none.
    #[serde(default, skip_serializing_if = "super::data_split::is_zero")]
    pub(crate) executions_set_aside: usize,
    /// The thresholds the verdict was reached at, for its words.
    #[serde(skip)]
    pub(crate) thresholds: crate::analysis::vocabulary::Thresholds,
}

impl DataSensitivity {
    /// This answer, saying that `set_aside` executions were left out before it.
    pub(crate) fn with_set_aside(self, set_aside: usize) -> DataSensitivity {
        DataSensitivity {
            executions_set_aside: set_aside,
            ..self
        }
    }
}

/// The data-layout answer of `series`, when it ran with at least two data seeds in a
/// balanced crossed table; `None` otherwise (one data seed: nothing changes).
pub(crate) fn data_sensitivity(
    series: &Series,
    thresholds: &Thresholds,
) -> Option<DataSensitivity> {
    let cells = crossed_cells(series)?;
    let table = crossed_mean_squares(&cells).ok()?;
    let all: Vec<f64> = cells.iter().flatten().flatten().copied().collect();
    let grand = mean(&all).abs();
    let relative = |v: f64| v / grand;
    let [_, test, _] = axis_tests(&table);
    let per_level = (table.code_seeds * table.replicates) as f64;
    let variation = relative(
        ((table.ms_data - table.ms_code_x_data) / per_level)
            .max(0.0)
            .sqrt(),
    );
    let ci =
        data_variation_interval(&table, thresholds.confidence, PIVOT_DRAWS, PIVOT_SEED).ok()?;
    let variation_ci = Interval {
        lower: relative(ci.lower),
        upper: relative(ci.upper),
    };
    let detectable =
        detectable_data_variation(&table, thresholds.alpha(), crate::stats::mde::DEFAULT_POWER)
            .map(relative)
            .filter(|v| v.is_finite());
    if !(variation.is_finite() && variation_ci.upper.is_finite()) {
        return None;
    }
    // A rejection is judged on the interval the answer prints (issue 55: "data-layout-
    // sensitive: varies by 0.71 % (0.0 % to 2.0 %), p = 0.040" with no data effect in
    // truth): when the magnitude's interval reaches 0 the data cannot tell.
    let verdict = if test.p_value < thresholds.alpha() {
        if variation_ci.lower <= 0.0 {
            Verdict::Undetermined
        } else if variation_ci.upper <= thresholds.negligible {
            Verdict::Negligible
        } else {
            Verdict::Detected
        }
    } else if detectable.is_some_and(|d| d > thresholds.negligible) {
        Verdict::Undetermined
    } else {
        Verdict::NotDetected
    };
    Some(DataSensitivity {
        verdict,
        data_seeds: table.data_seeds,
        variation,
        variation_ci,
        f: test.f,
        df_numerator: test.df_numerator,
        df_denominator: test.df_denominator,
        p_value: test.p_value,
        detectable_variation: detectable,
        executions_set_aside: 0,
        thresholds: *thresholds,
    })
}
