//! "What did balancing the data leave out?" in words: the notes of trimming unbalanced
//! three-level data ([`crate::analysis::answers::balance`]), from the binaries and their
//! counts.

use crate::analysis::answers::balance::BalanceNote;
use crate::analysis::answers::experiment::BalanceWarning;

/// The executions cut short that a note names; the rest are counted.
pub(crate) const SHOWN_EXECUTIONS: usize = 8;

/// One warning of balancing, prefixed with the series it concerns (`PROGRAM (VARIANT)
/// METRIC`, and the fixed layout in parentheses when it was balanced on its own).
pub(crate) fn warning(w: &BalanceWarning) -> String {
    let series = match &w.variant {
        Some(v) => format!("{} ({v}) {}", w.program, w.metric),
        None => format!("{} {}", w.program, w.metric),
    };
    let what = match &w.fixed {
        Some(binary) => format!("{series} ({binary})"),
        None => series,
    };
    format!("{what}: {}", note(&w.note))
}

/// What balancing changed, in words.
pub(crate) fn note(n: &BalanceNote) -> String {
    match n {
        BalanceNote::NoLiveIteration { binary, executions } => format!(
            "{executions} execution(s) of {binary} had no live (non-warmup) iteration and were left out"
        ),
        BalanceNote::FewerExecutions {
            executions,
            binaries,
        } => format!(
            "unbalanced data; left out binaries with fewer than {executions} usable executions: {}",
            list(binaries.iter().map(|(b, n)| format!("{b} ({n} of {executions})")))
        ),
        BalanceNote::MoreExecutions {
            executions,
            binaries,
        } => format!(
            "unbalanced data; kept only the first {executions} executions of {}",
            list(binaries.iter().map(|(b, n)| format!("{b} ({n})")))
        ),
        BalanceNote::MoreIterations {
            iterations,
            executions,
        } => {
            let shown = list(executions.iter().take(SHOWN_EXECUTIONS).map(|e| {
                format!("{} execution {} ({})", e.binary, e.execution, e.iterations)
            }));
            let more = match executions.len().saturating_sub(SHOWN_EXECUTIONS) {
                0 => String::new(),
                more => format!(" and {more} more"),
            };
            format!(
                "unbalanced data; the shortest execution has {iterations} live iteration(s), so only the first {iterations} of each were kept; trimmed: {shown}{more}"
            )
        }
    }
}

/// Items joined with commas.
fn list(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::balance::TrimmedExecution;

    fn warning_of(fixed: Option<&str>, variant: Option<&str>, note: BalanceNote) -> String {
        warning(&BalanceWarning {
            program: "p".into(),
            variant: variant.map(str::to_string),
            metric: "wall".into(),
            fixed: fixed.map(str::to_string),
            note,
        })
    }

    /// The words the notes had when `balance` built them (same series prefix, same lists).
    #[test]
    fn the_notes_read_as_before() {
        let fewer = BalanceNote::FewerExecutions {
            executions: 3,
            binaries: vec![("seed-4".into(), 1), ("seed-5".into(), 2)],
        };
        assert_eq!(
            warning_of(None, None, fewer),
            "p wall: unbalanced data; left out binaries with fewer than 3 usable executions: \
             seed-4 (1 of 3), seed-5 (2 of 3)"
        );
        let more = BalanceNote::MoreExecutions {
            executions: 1,
            binaries: vec![("seed-1".into(), 3)],
        };
        assert_eq!(
            warning_of(None, Some("O2"), more),
            "p (O2) wall: unbalanced data; kept only the first 1 executions of seed-1 (3)"
        );
        let none_live = BalanceNote::NoLiveIteration {
            binary: "baseline".into(),
            executions: 2,
        };
        assert_eq!(
            warning_of(Some("baseline"), None, none_live),
            "p wall (baseline): 2 execution(s) of baseline had no live (non-warmup) iteration \
             and were left out"
        );
    }

    /// Eight trimmed executions are named, the others counted.
    #[test]
    fn trimmed_executions_beyond_eight_are_counted() {
        let trimmed = |execution| TrimmedExecution {
            binary: "seed-1".into(),
            execution,
            iterations: 5,
        };
        let words = |n: u32| {
            note(&BalanceNote::MoreIterations {
                iterations: 4,
                executions: (0..n).map(trimmed).collect(),
            })
        };
        assert_eq!(
            words(1),
            "unbalanced data; the shortest execution has 4 live iteration(s), so only the first \
             4 of each were kept; trimmed: seed-1 execution 0 (5)"
        );
        let ten = words(10);
        assert!(ten.ends_with("seed-1 execution 7 (5) and 2 more"), "{ten}");
        assert!(!ten.contains("execution 8"), "{ten}");
        assert!(words(8).ends_with("seed-1 execution 7 (5)"));
    }
}
