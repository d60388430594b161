//! `run --jobs N`: N executions at once, committed to the store in schedule order.
//!
//! Only a deterministic metric (cachegrind's simulation) is immune to the executions
//! sharing the machine; time metrics measure the contention too, so the runner refuses
//! `--jobs` with them unless forced (see [`check_jobs`]). Each worker has its own staging
//! directory of the same path length (`worker_staging_dir`), so an execution sees the same
//! fixed binary path length, environment and padding whichever worker runs it, and the
//! store is the one a serial run writes: workers take slots in schedule order, and finished
//! executions wait until every earlier one is committed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{bail, Result};

use super::cpus::pin_this_thread;
use super::execution::{Executor, OneExecution};
use super::metric::MetricSpec;
use super::schedule::Slot;
use super::targets::Target;

/// Refuses `jobs` parallel executions with a metric that parallel executions would bias,
/// unless `force`; explains why.
pub(crate) fn check_jobs(
    metric: &MetricSpec,
    metric_text: &str,
    jobs: usize,
    force: bool,
) -> Result<()> {
    if jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    if jobs > super::environment::MAX_JOBS {
        bail!(
            "--jobs {jobs}: at most {} parallel executions",
            super::environment::MAX_JOBS
        );
    }
    if jobs > 1 && !metric.is_deterministic() && !force {
        bail!(
            "--jobs {jobs} with --metric {metric_text}: executions running at once compete for \
             cores, caches and memory bandwidth, so each one's time would measure the others \
             too and the layout's effect would drown in that contention. Parallel executions \
             are for deterministic metrics (--metric cachegrind); run time metrics with \
             --jobs 1, or pass --force-parallel if you accept the bias"
        );
    }
    Ok(())
}

/// The default `--jobs`: the number of cores for a deterministic metric, else 1.
pub(crate) fn default_jobs(metric: &MetricSpec) -> usize {
    if metric.is_deterministic() {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(super::environment::MAX_JOBS)
    } else {
        1
    }
}

/// Runs `slots` in order with one worker per entry of `executors`, worker `k` pinned to
/// `cpus[k]` when given, and hands each finished execution to `commit` in slot order.
///
/// A worker takes the next slot only while `may_start()` holds (the budget) and nothing has
/// failed; an error of `commit` or of the runner stops it (executions already under way
/// still finish, uncommitted) and is returned. Returns the number of executions committed.
pub(crate) fn run_slots<'t, E: Executor>(
    executors: &[E],
    cpus: &[Option<Vec<usize>>],
    slots: &[&Slot],
    target_of: &(dyn Fn(&Slot) -> &'t Target + Sync),
    may_start: &(dyn Fn() -> bool + Sync),
    mut commit: impl FnMut(&Slot, OneExecution) -> Result<()>,
) -> Result<usize> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<OneExecution>)>();
    std::thread::scope(|scope| {
        for (k, executor) in executors.iter().enumerate() {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            let pin = cpus.get(k).cloned().flatten();
            scope.spawn(move || {
                if let Some(list) = pin {
                    // Children inherit the thread's mask; a failure is sent like any other.
                    if let Err(e) = pin_this_thread(&list) {
                        let _ = tx.send((usize::MAX, Err(e)));
                        return;
                    }
                }
                loop {
                    if stop.load(Ordering::SeqCst) || !may_start() {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(slot) = slots.get(i) else { return };
                    let outcome = executor.execute(slot, target_of(slot));
                    if tx.send((i, outcome)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut finished: BTreeMap<usize, OneExecution> = BTreeMap::new();
        let mut committed = 0;
        let mut failure: Option<anyhow::Error> = None;
        for (i, outcome) in rx {
            match outcome {
                Ok(one) if failure.is_none() => {
                    finished.insert(i, one);
                }
                Ok(_) => {}
                Err(e) => {
                    stop.store(true, Ordering::SeqCst);
                    failure.get_or_insert(e);
                }
            }
            while failure.is_none() {
                let Some(one) = finished.remove(&committed) else {
                    break;
                };
                match commit(slots[committed], one) {
                    Ok(()) => committed += 1,
                    Err(e) => {
                        stop.store(true, Ordering::SeqCst);
                        failure = Some(e);
                    }
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(committed),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_metrics_are_refused_in_parallel_unless_forced() {
        let wall = MetricSpec::parse("wall").unwrap();
        let err = check_jobs(&wall, "wall", 2, false).unwrap_err().to_string();
        assert!(
            err.contains("--force-parallel") && err.contains("compete"),
            "{err}"
        );
        check_jobs(&wall, "wall", 2, true).unwrap();
        check_jobs(&wall, "wall", 1, false).unwrap();
        let cg = MetricSpec::parse("cachegrind").unwrap();
        check_jobs(&cg, "cachegrind", 2, false).unwrap();
        assert!(check_jobs(&cg, "cachegrind", 0, false).is_err());
        assert_eq!(default_jobs(&wall), 1);
        assert!(default_jobs(&cg) >= 1);
    }
}
