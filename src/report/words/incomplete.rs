//! An unfinished store in words: what every format says first when the store holds fewer
//! executions than the run planned (issue 55: at 24 of 48 executions the report read as
//! final and the reason came at line 753 of 791).

use crate::analysis::answers::experiment::Incomplete;

/// The note the title of every rendering carries: `incomplete: 24 of 48 executions`.
pub(crate) fn title_note(i: &Incomplete) -> String {
    format!("incomplete: {} of {} executions", i.stored, i.planned)
}

/// The sentence right under the title: what is missing, how to finish it, and what it
/// means for the answers and the gate. `dir` is the experiment directory.
pub(crate) fn sentence(i: &Incomplete, dir: &str) -> String {
    format!(
        "Incomplete: {} of the {} planned executions are stored ({} missing): the run was interrupted or is still going, and `layoutrand run --resume --out {dir}` finishes it. Every answer below is provisional, and `--fail-if-slower` does not judge an incomplete store (exit 2).",
        i.stored,
        i.planned,
        i.planned - i.stored
    )
}

/// Why the CI gate did not judge: the store is incomplete.
pub(crate) fn gate_refusal(i: &Incomplete) -> String {
    format!(
        "not judged: the store is incomplete ({} of {} planned executions); finish the run (`layoutrand run --resume`) before gating on it",
        i.stored, i.planned
    )
}

/// Why BMF refuses: a dashboard would record provisional numbers as final.
pub(crate) fn bmf_refusal(i: &Incomplete) -> String {
    format!(
        "the store is incomplete ({} of {} planned executions): BMF is for continuous benchmarking, which would record these provisional numbers as final; finish the run (`layoutrand run --resume`) first, or read them with --format text or json",
        i.stored, i.planned
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counts_and_the_way_on_are_said() {
        let i = Incomplete {
            stored: 24,
            planned: 48,
        };
        assert_eq!(title_note(&i), "incomplete: 24 of 48 executions");
        insta::assert_snapshot!(sentence(&i, "out"));
    }
}
