//! "Does the ratio new/base depend on the layout?" in words: the clause of a comparison's
//! sentence that says how much the ratio varies from one layout to another, from the
//! verdict and figures of [`crate::analysis::interaction`].

use crate::analysis::interaction::InteractionJson;
use crate::analysis::vocabulary::Verdict;
use crate::report::numfmt::{level, p_value, percent, percent_bounds};

super::on_the_wire!(InteractionJson {
    text: String = clause
});

/// The clause, e.g. "the ratio varies with the layout by 2.1 % (standard deviation across
/// layouts, 95 % CI: 1.2 % to 3.5 %; interaction p = 0.0003)". The same words for speedups
/// and slowdowns: it is the ratio that varies.
pub(crate) fn clause(i: &InteractionJson) -> String {
    let (th, detected, detectable) = (&i.thresholds, i.detected(), i.detectable_spread);
    let (spread, ci) = (i.spread, i.spread_ci);
    let (lo, hi) = percent_bounds(ci.lower, ci.upper, 2);
    let lvl = level(th.confidence);
    let test = i.p_value.map_or_else(
        || "every block gave the same ratio".to_string(),
        |p| format!("interaction {}", p_value(p)),
    );
    let margin = percent(th.negligible, 2);
    match i.verdict {
        Verdict::Detected => format!(
            "the ratio varies with the layout by {} (standard deviation across layouts, {lvl} \
             CI: {lo} to {hi}; {test})",
            percent(spread, 2)
        ),
        Verdict::Negligible if detected => format!(
            "the ratio varies with the layout by a negligible {} ({lvl} CI: {lo} to {hi}, \
             within ± {margin}; {test})",
            percent(spread, 2)
        ),
        Verdict::Negligible => format!(
            "the ratio does not vary with the layout by more than a negligible {hi} ({lvl} CI \
             upper end, within ± {margin}; {test})"
        ),
        Verdict::NotDetected => format!(
            "no evidence that the ratio varies with the layout (up to {hi} fits the data; a \
             spread of {} would have been found with 80 % power; {test})",
            detectable.map_or_else(|| "?".to_string(), |d| percent(d, 2))
        ),
        Verdict::Undetermined => format!(
            "cannot tell whether the ratio varies with the layout: up to {hi} fits the data{} \
             ({test})",
            detectable.map_or_else(String::new, |d| format!(
                ", and only a spread above {} would likely be found; more seeds or rounds \
                 would tell",
                percent(d, 2)
            ))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::interaction::judge;
    use crate::analysis::interaction::tests::computed;
    use crate::analysis::vocabulary::Thresholds;

    #[test]
    fn each_verdict_in_words() {
        let th = Thresholds::default();
        let v =
            |p, spread, ci, detectable| clause(&judge(&computed(p, spread, ci, detectable), &th));
        let detected = v(0.001, 0.02, (0.012, 0.035), 0.008);
        // The xz case of issue 21: a spread of 0.045 percentage points.
        let negligible = v(0.01, 0.00045, (0.0002, 0.0009), 0.0003);
        let quiet = v(0.5, 0.0, (0.0, 0.004), 0.003);
        let not_detected = v(0.5, 0.0, (0.0, 0.012), 0.009);
        let undetermined = v(0.5, 0.0, (0.0, 0.05), 0.03);
        insta::assert_snapshot!(format!(
            "detected: {detected}\nnegligible: {negligible}\nquiet: {quiet}\n\
             not detected: {not_detected}\nundetermined: {undetermined}"
        ));
    }

    #[test]
    fn a_constant_ratio_says_every_block_gave_the_same() {
        let mut i = computed(f64::NAN, 0.0, (0.0, 0.0), 0.0);
        i.test.f = f64::NAN;
        let j = judge(&i, &Thresholds::new(0.95, 0.0).unwrap());
        insta::assert_snapshot!(clause(&j));
    }
}
