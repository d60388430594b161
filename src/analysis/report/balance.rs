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

/// Balances `binaries` of the data set `what` (used in the notes). Returns the balanced
/// binaries and one note per change made. Binaries with no execution with a live iteration
/// are left out.
pub fn balance(what: &str, binaries: Vec<BinaryData>) -> (Vec<BinaryData>, Vec<String>) {
    let mut notes = Vec::new();
    let mut binaries = with_live_executions(what, binaries, &mut notes);
    if binaries.is_empty() {
        return (binaries, notes);
    }
    balance_executions(what, &mut binaries, &mut notes);
    balance_iterations(what, &mut binaries, &mut notes);
    (binaries, notes)
}

/// Leaves out the executions without a live iteration, then the binaries left with no
/// execution, noting each binary that lost executions.
fn with_live_executions(
    what: &str,
    binaries: Vec<BinaryData>,
    notes: &mut Vec<String>,
) -> Vec<BinaryData> {
    binaries
        .into_iter()
        .map(|mut b| {
            let before = b.executions.len();
            b.executions.retain(|e| !e.live.is_empty());
            if b.executions.len() < before {
                notes.push(format!(
                    "{what}: {} execution(s) of {} had no live (non-warmup) iteration and were left out",
                    before - b.executions.len(),
                    b.binary
                ));
            }
            b
        })
        .filter(|b| !b.executions.is_empty())
        .collect()
}

/// Rule 1: keeps the binaries with at least `k` executions, their first `k` (`k` keeping
/// the most executions in total), noting the binaries left out and those cut short.
/// `binaries` must not be empty.
fn balance_executions(what: &str, binaries: &mut Vec<BinaryData>, notes: &mut Vec<String>) {
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
    let short: Vec<String> = binaries
        .iter()
        .filter(|b| b.executions.len() < k)
        .map(|b| format!("{} ({} of {k})", b.binary, b.executions.len()))
        .collect();
    if !short.is_empty() {
        notes.push(format!(
            "{what}: unbalanced data; left out binaries with fewer than {k} usable executions: {}",
            short.join(", ")
        ));
    }
    let long: Vec<String> = binaries
        .iter()
        .filter(|b| b.executions.len() > k)
        .map(|b| format!("{} ({})", b.binary, b.executions.len()))
        .collect();
    if !long.is_empty() {
        notes.push(format!(
            "{what}: unbalanced data; kept only the first {k} executions of {}",
            long.join(", ")
        ));
    }
    binaries.retain(|b| b.executions.len() >= k);
    for b in binaries.iter_mut() {
        b.executions.truncate(k);
    }
}

/// Rule 2: keeps the first live iterations of each execution, as many as the shortest
/// has, noting the executions cut short. `binaries` must have executions.
fn balance_iterations(what: &str, binaries: &mut [BinaryData], notes: &mut Vec<String>) {
    let m = binaries
        .iter()
        .flat_map(|b| b.executions.iter().map(|e| e.live.len()))
        .min()
        .expect("non-empty executions");
    let mut trimmed = Vec::new();
    for b in binaries.iter_mut() {
        for e in &mut b.executions {
            if e.live.len() > m {
                trimmed.push(format!(
                    "{} execution {} ({})",
                    b.binary,
                    e.execution,
                    e.live.len()
                ));
                e.live.truncate(m);
            }
        }
    }
    if !trimmed.is_empty() {
        let shown: Vec<&str> = trimmed.iter().take(8).map(String::as_str).collect();
        let more = if trimmed.len() > shown.len() {
            format!(" and {} more", trimmed.len() - shown.len())
        } else {
            String::new()
        };
        notes.push(format!(
            "{what}: unbalanced data; the shortest execution has {m} live iteration(s), so only the first {m} of each were kept; trimmed: {}{more}",
            shown.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::series::ExecutionData;

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
        let (out, notes) = balance("p wall", input.clone());
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
        let (out, notes) = balance("p wall", input);
        assert_eq!(out.len(), 3);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("seed-4 (1 of 3)"), "{notes:?}");
    }

    #[test]
    fn many_short_binaries_trim_the_long_ones() {
        let input = vec![
            binary("seed-1", &[2, 2, 2]),
            binary("seed-2", &[2]),
            binary("seed-3", &[2]),
            binary("seed-4", &[2]),
        ];
        let (out, notes) = balance("p wall", input);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|b| b.executions.len() == 1));
        assert!(
            notes[0].contains("first 1 executions of seed-1 (3)"),
            "{notes:?}"
        );
    }

    #[test]
    fn short_execution_trims_iterations_and_is_named() {
        let input = vec![binary("seed-1", &[5, 4]), binary("seed-2", &[5, 5])];
        let (out, notes) = balance("p wall", input);
        assert!(out.iter().all(|b| b.iterations() == 4));
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("seed-1 execution 0 (5)"), "{notes:?}");
        assert!(notes[0].contains("seed-2 execution 1 (5)"), "{notes:?}");
    }
}
