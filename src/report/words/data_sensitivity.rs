//! "Is this program data-layout-sensitive?" in words
//! ([`crate::analysis::answers::data_sensitivity`]): the verdict with how much the metric
//! moves from one data layout to another, and the test it rests on.

use crate::analysis::answers::data_sensitivity::DataSensitivity;
use crate::analysis::answers::model::Verdict;
use crate::report::numfmt::{p_value, percent, statistic};

/// The heading of the answer and the glance table's column.
pub(crate) const TITLE: &str = "Data-layout sensitivity";

/// The glance table's column header.
pub(crate) const GLANCE_HEADER: &str = "data layout";

super::on_the_wire!(DataSensitivity {
    text: String = sentence
});

/// The sentence of `d`, at the thresholds its verdict was reached at.
pub(crate) fn sentence(d: &DataSensitivity) -> String {
    let thresholds = &d.thresholds;
    let set_aside = super::variance_split::set_aside_phrase(d.executions_set_aside)
        .map(|p| format!("; {p}"))
        .unwrap_or_default();
    let test = format!("{}{set_aside}", test_words(d));
    let magnitude = format!(
        "the metric varies by {} ({} to {}) from one data layout to another (standard deviation over the mean, over {} data seeds)",
        percent(d.variation, 2),
        percent(d.variation_ci.lower, 2),
        percent(d.variation_ci.upper, 2),
        d.data_seeds
    );
    match d.verdict {
        Verdict::Detected => format!("data-layout-sensitive: {magnitude}; {test}."),
        Verdict::Negligible => format!(
            "detectable but negligible: {magnitude}, within the {} worth finding (--negligible); {test}.",
            percent(thresholds.negligible, 2)
        ),
        Verdict::NotDetected => format!("not detected: {magnitude}; {test}."),
        Verdict::Undetermined if d.variation_ci.lower <= 0.0 && d.p_value < thresholds.alpha() => format!(
            "cannot tell: the test rejects but {magnitude}, an interval that reaches 0, so a data-layout effect is not established; {test}. More data seeds narrow the interval."
        ),
        Verdict::Undetermined => format!(
            "cannot tell (nothing below {} was detectable with these counts): {magnitude}; {test}.",
            percent(d.detectable_variation.unwrap_or(f64::NAN), 2)
        ),
    }
}

/// The test: `F(df1, df2) = f, p = …` against the variation within a data seed.
fn test_words(d: &DataSensitivity) -> String {
    let f = match d.f {
        Some(f) => format!("F({}, {}) = {}", d.df_numerator, d.df_denominator, statistic(f)),
        None => format!(
            "F({}, {}) is not a ratio: every binary measured the same under each data seed, so the data seeds' differences are certain",
            d.df_numerator, d.df_denominator
        ),
    };
    format!(
        "{f}, {} (data seeds against how their effect differs from binary to binary)",
        p_value(d.p_value)
    )
}

/// The glance table's cell: the verdict with its magnitude.
pub(crate) fn glance_cell(d: &DataSensitivity) -> String {
    match d.verdict {
        Verdict::Detected => format!("sensitive: ± {} per data layout", percent(d.variation, 2)),
        Verdict::Negligible => format!("negligible: at most {}", percent(d.variation_ci.upper, 2)),
        Verdict::NotDetected => "not detected".to_string(),
        Verdict::Undetermined => "cannot tell".to_string(),
    }
}
