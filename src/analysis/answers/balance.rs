//! Trimming unbalanced three-level data to its largest balanced part, with a note for every
//! binary or execution that was short.
//!
//! Kalibera & Jones' estimators (eq. 1–2) need the same number of executions per binary and
//! of iterations per execution. The rule, chosen to keep as many measurements as possible
//! while staying predictable:
//!
//! 1. executions per binary: the count `k` that keeps the most executions in total
//!    (`k` × number of binaries with at least `k` executions; ties go to the larger `k`).
//!    Binaries with fewer than `k` executions are left out; binaries with more keep their
//!    first `k` (by execution index, so the choice does not depend on the values).
//! 2. live iterations per execution: the smallest count among the kept executions; longer
//!    executions keep their first ones.

use super::series::BinaryData;

pub(crate) use crate::analysis::reading::{BalanceNote, TrimmedExecution};

/// Balances `binaries`. Returns the balanced binaries and one note per change made.
/// Binaries with no execution with a live iteration are left out.
pub(crate) fn balance(binaries: Vec<BinaryData>) -> (Vec<BinaryData>, Vec<BalanceNote>) {
    let mut notes = Vec::new();
    let mut binaries = with_live_executions(binaries, &mut notes);
    if binaries.is_empty() {
        return (binaries, notes);
    }
    notes.extend(balance_executions(&mut binaries));
    notes.extend(balance_iterations(&mut binaries));
    (binaries, notes)
}

/// Leaves out the executions without a live iteration, then the binaries left with no
/// execution, noting each binary that lost executions.
fn with_live_executions(
    binaries: Vec<BinaryData>,
    notes: &mut Vec<BalanceNote>,
) -> Vec<BinaryData> {
    binaries
        .into_iter()
        .map(|mut b| {
            let before = b.executions.len();
            b.executions.retain(|e| !e.live.is_empty());
            if b.executions.len() < before {
                notes.push(BalanceNote::NoLiveIteration {
                    binary: b.binary.clone(),
                    executions: before - b.executions.len(),
                });
            }
            b
        })
        .filter(|b| !b.executions.is_empty())
        .collect()
}

/// Rule 1: keeps the binaries with at least `k` executions, their first `k` (`k` keeping
/// the most executions in total), noting the binaries left out and those cut short.
/// `binaries` must not be empty.
fn balance_executions(binaries: &mut Vec<BinaryData>) -> Vec<BalanceNote> {
    let mut counts: Vec<usize> = binaries.iter().map(|b| b.executions.len()).collect();
    counts.sort_unstable();
    counts.dedup();
    let kept_executions =
        |k: usize| binaries.iter().filter(|b| b.executions.len() >= k).count() * k;
    let k = counts
        .iter()
        .copied()
        .max_by_key(|&k| (kept_executions(k), k))
        .expect("at least one binary");
    let with_counts = |keep: &dyn Fn(usize) -> bool| -> Vec<(String, usize)> {
        binaries
            .iter()
            .filter(|b| keep(b.executions.len()))
            .map(|b| (b.binary.clone(), b.executions.len()))
            .collect()
    };
    let fewer = with_counts(&|n| n < k);
    let more = with_counts(&|n| n > k);
    binaries.retain(|b| b.executions.len() >= k);
    for b in binaries.iter_mut() {
        b.executions.truncate(k);
    }
    let fewer = (!fewer.is_empty()).then_some(BalanceNote::FewerExecutions {
        executions: k,
        binaries: fewer,
    });
    let more = (!more.is_empty()).then_some(BalanceNote::MoreExecutions {
        executions: k,
        binaries: more,
    });
    fewer.into_iter().chain(more).collect()
}

/// Rule 2: keeps the first live iterations of each execution, as many as the shortest
/// has, noting the executions cut short. `binaries` must have executions.
fn balance_iterations(binaries: &mut [BinaryData]) -> Option<BalanceNote> {
    let m = binaries
        .iter()
        .flat_map(|b| b.executions.iter().map(|e| e.live.len()))
        .min()
        .expect("non-empty executions");
    let mut trimmed = Vec::new();
    for b in binaries.iter_mut() {
        for e in &mut b.executions {
            if e.live.len() > m {
                trimmed.push(TrimmedExecution {
                    binary: b.binary.clone(),
                    execution: e.execution,
                    iterations: e.live.len(),
                });
                e.live.truncate(m);
            }
        }
    }
    (!trimmed.is_empty()).then_some(BalanceNote::MoreIterations {
        iterations: m,
        executions: trimmed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::series::ExecutionData;

    fn binary(binary: &str, iterations: &[usize]) -> BinaryData {
        BinaryData {
            binary: binary.into(),
            seed: None,
            executions: iterations
                .iter()
                .enumerate()
                .map(|(i, &n)| ExecutionData {
                    execution: i as u32,
                    schedule_index: 0,
                    wall_ns: 0,
                    data_seed: None,
                    warmup: vec![],
                    live: (0..n).map(|j| j as f64).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn balanced_data_is_left_alone() {
        let input = vec![binary("seed-1", &[3, 3]), binary("seed-2", &[3, 3])];
        let (out, notes) = balance(input.clone());
        assert_eq!(out, input);
        assert!(notes.is_empty());
    }

    #[test]
    fn one_short_binary_is_dropped_rather_than_trimming_all() {
        // 3 binaries × 3 executions keep 9; trimming to 1 execution would keep 4.
        let input = vec![
            binary("seed-1", &[2, 2, 2]),
            binary("seed-2", &[2, 2, 2]),
            binary("seed-3", &[2, 2, 2]),
            binary("seed-4", &[2]),
        ];
        let (out, notes) = balance(input);
        assert_eq!(out.len(), 3);
        assert_eq!(
            notes,
            vec![BalanceNote::FewerExecutions {
                executions: 3,
                binaries: vec![("seed-4".into(), 1)]
            }]
        );
    }

    #[test]
    fn many_short_binaries_trim_the_long_ones() {
        let input = vec![
            binary("seed-1", &[2, 2, 2]),
            binary("seed-2", &[2]),
            binary("seed-3", &[2]),
            binary("seed-4", &[2]),
        ];
        let (out, notes) = balance(input);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|b| b.executions.len() == 1));
        assert_eq!(
            notes,
            vec![BalanceNote::MoreExecutions {
                executions: 1,
                binaries: vec![("seed-1".into(), 3)]
            }]
        );
    }

    #[test]
    fn short_execution_trims_iterations_and_is_named() {
        let input = vec![binary("seed-1", &[5, 4]), binary("seed-2", &[5, 5])];
        let (out, notes) = balance(input);
        assert!(out.iter().all(|b| b.iterations() == 4));
        let trimmed = |binary: &str, execution| TrimmedExecution {
            binary: binary.into(),
            execution,
            iterations: 5,
        };
        assert_eq!(
            notes,
            vec![BalanceNote::MoreIterations {
                iterations: 4,
                executions: vec![
                    trimmed("seed-1", 0),
                    trimmed("seed-2", 0),
                    trimmed("seed-2", 1)
                ]
            }]
        );
    }

    #[test]
    fn executions_without_live_iterations_are_counted_per_binary() {
        let input = vec![binary("seed-1", &[2, 0, 0]), binary("seed-2", &[2])];
        let (out, notes) = balance(input);
        assert_eq!(out.len(), 2);
        assert_eq!(
            notes,
            vec![BalanceNote::NoLiveIteration {
                binary: "seed-1".into(),
                executions: 2
            }]
        );
    }
}
