//! Which analysis decides a comparison, and the others as checks of it: the words of
//! `compare` (CSV files and directories) and of `report`'s variants section, from the
//! engine's [`PairAnalysis::basis`] and [`PairAnalysis::checks`] (issue 36, item 2: a headline
//! that says "no significant difference" above side tests with p = 0.017 must say which one
//! decides and what their disagreement means).

use crate::analysis::pair::{Basis, Check, CheckTest, PairAnalysis};
use crate::analysis::single::plural;

/// What decides the verdict and why, e.g. "decided by the interval paired by binary (10
/// pairs): the seeds match, and pairing removes the layout effect both sides share".
pub(crate) fn basis_sentence(pair: &PairAnalysis, top_name: &str) -> String {
    let units = plural(top_name);
    match (pair.basis, pair.data_layouts) {
        (Basis::Paired, Some(d)) => format!(
            "decided by the interval paired by {top_name} ({} pairs) over {} data seeds as a \
             random factor too (a crossed design, {:.1} degrees of freedom): the {units} \
             match, pairing removes the layout effect both sides share, and the data seeds' \
             own effect on the difference counts as the random data layout it is, so the \
             answer holds over data layouts, not only for these {}",
            pair.binaries.len(),
            d.data_seeds,
            d.df,
            d.data_seeds
        ),
        (Basis::Paired, None) => format!(
            "decided by the interval paired by {top_name} ({} pairs): the {units} match, and \
             pairing removes the layout effect both sides share",
            pair.binaries.len()
        ),
        (Basis::Fieller, _) => format!(
            "decided by Fieller's interval (Kalibera & Jones eq. 5): the sides share fewer \
             than two {units}, so they are compared as independent samples"
        ),
    }
}

/// A check's name as the text writes it.
pub(crate) fn check_name(test: CheckTest) -> &'static str {
    match test {
        CheckTest::Fieller => "eq. 5 (Fieller, independent sides)",
        CheckTest::Welch => "Welch's test",
        CheckTest::MannWhitney => "Mann–Whitney",
        CheckTest::Bootstrap => "the bootstrap",
    }
}

/// What a disagreement between the checks and the verdict means, in one sentence; `None`
/// when every check agrees.
pub(crate) fn disagreement(pair: &PairAnalysis) -> Option<String> {
    let bootstrap_paired = pair.bootstrap.is_some_and(|b| b.paired);
    let against: Vec<&Check> = pair.checks.iter().filter(|k| !k.agrees).collect();
    let first = against.first()?;
    let names = against
        .iter()
        .map(|k| check_name(k.test))
        .collect::<Vec<_>>()
        .join(" and ");
    // The verbs agree with the number of tests named ("Mann–Whitney misses", "Welch's test
    // and Mann–Whitney miss").
    let one = against.len() == 1;
    let (ignore, find, miss, their) = if one {
        ("ignores", "finds", "misses", "its")
    } else {
        ("ignore", "find", "miss", "their")
    };
    let independent = against.iter().all(|k| k.test.independent(bootstrap_paired));
    let sentence = match (pair.basis, independent, first.detects) {
        (Basis::Paired, true, true) => format!(
            "{names}, which {ignore} the pairing, {find} a difference the paired interval does \
             not: the binaries' means do not move together across the sides, so {their} \
             narrower verdict is not valid for matched binaries; the verdict stands until more \
             binaries settle it."
        ),
        (Basis::Paired, true, false) => format!(
            "{names}, which {ignore} the pairing, {miss} the difference the paired interval \
             finds: the layout effect both sides share widens their spread, and pairing \
             removes it."
        ),
        (_, _, true) => format!(
            "{names} {find} a difference the verdict's interval does not: it lies at the edge of \
             what these binaries resolve; more binaries would settle it."
        ),
        (_, _, false) => format!(
            "{names} {find} no difference where the verdict's interval does: it lies at the edge \
             of what these binaries resolve; more binaries would settle it."
        ),
    };
    Some(sentence)
}
