//! `run --jobs N`: N executions at once, committed to the store in schedule order.
//!
//! Only a deterministic metric (cachegrind's simulation) is immune to the executions
//! sharing the machine; time metrics measure the contention too, so the runner refuses
//! `--jobs` with them unless forced (see [`check_jobs`]). Each worker has its own staging
//! directory of the same path length (`worker_staging_dir`), so an execution sees the same
//! fixed binary path length, environment and padding whichever worker runs it, and the
//! store is the one a serial run writes: workers take slots in schedule order, and finished
//! executions wait until every earlier one is committed.
//!
//! A worker takes its next slot only once the committing thread has handled its last
//! execution (committed it, when it was next in order): the store's write and `fsync` would
//! otherwise run beside the next execution, which a serial run's measurement must not share
//! the machine with (the store promises each execution durable before the next starts).

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
/// failed, and only after its last execution was handed to `commit` (or set aside until the
/// earlier ones finish); an error of `commit` or of the runner stops it (executions already
/// under way still finish, uncommitted) and is returned. Returns the number of executions
/// committed.
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
    let (tx, rx) = mpsc::channel::<(usize, usize, Result<OneExecution>)>();
    let mut handled = Vec::with_capacity(executors.len());
    std::thread::scope(|scope| {
        for (k, executor) in executors.iter().enumerate() {
            let tx = tx.clone();
            let (handled_tx, handled_rx) = mpsc::channel::<()>();
            handled.push(handled_tx);
            let (next, stop) = (&next, &stop);
            let pin = cpus.get(k).cloned().flatten();
            scope.spawn(move || {
                if let Some(list) = pin {
                    // Children inherit the thread's mask; a failure is sent like any other.
                    if let Err(e) = pin_this_thread(&list) {
                        let _ = tx.send((k, usize::MAX, Err(e)));
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
                    if tx.send((k, i, outcome)).is_err() || handled_rx.recv().is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut finished: BTreeMap<usize, OneExecution> = BTreeMap::new();
        let mut committed = 0;
        let mut failure: Option<anyhow::Error> = None;
        for (k, i, outcome) in rx {
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
            // The worker waits for this before its next execution (a worker that stopped
            // has dropped its end: nothing to tell).
            let _ = handled[k].send(());
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
    use std::sync::Mutex;
    use std::time::Duration;

    /// Logs when each execution starts and ends.
    struct Logging<'a> {
        log: &'a Mutex<Vec<String>>,
    }

    impl Executor for Logging<'_> {
        fn execute(&self, slot: &Slot, _: &Target) -> Result<OneExecution> {
            let i = slot.schedule_index;
            self.log.lock().unwrap().push(format!("start {i}"));
            std::thread::sleep(Duration::from_millis(2));
            self.log.lock().unwrap().push(format!("end {i}"));
            Ok(OneExecution {
                records: Vec::new(),
                status: crate::files::results::ExecutionStatus::Ok,
                problem: None,
                tail: String::new(),
                interrupted: None,
            })
        }
    }

    fn slots(n: u64) -> Vec<Slot> {
        (0..n)
            .map(|i| Slot {
                schedule_index: i,
                program: 0,
                variant: 0,
                binary: 0,
                execution: i as u32,
                env_pad: 0,
                data: None,
            })
            .collect()
    }

    fn target() -> Target {
        Target {
            program: "p".into(),
            variant: None,
            binary: "baseline".into(),
            seed: None,
            binaries: BTreeMap::new(),
            sha256: BTreeMap::new(),
            libraries: BTreeMap::new(),
        }
    }

    /// Runs `slots` with `workers` logging executors and a commit that takes 20 ms (a slow
    /// fsync); returns the log.
    fn run_logged(slots: &[Slot], workers: usize) -> Vec<String> {
        let log = Mutex::new(Vec::new());
        let executors: Vec<Logging> = (0..workers).map(|_| Logging { log: &log }).collect();
        let target = target();
        let refs: Vec<&Slot> = slots.iter().collect();
        let committed = run_slots(
            &executors,
            &vec![None; workers],
            &refs,
            &|_| &target,
            &|| true,
            |slot, _| {
                std::thread::sleep(Duration::from_millis(20));
                log.lock()
                    .unwrap()
                    .push(format!("commit {}", slot.schedule_index));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(committed, slots.len());
        log.into_inner().unwrap()
    }

    #[test]
    fn a_serial_run_commits_each_execution_before_the_next_starts() {
        let log = run_logged(&slots(4), 1);
        let expected: Vec<String> = (0..4)
            .flat_map(|i| {
                [
                    format!("start {i}"),
                    format!("end {i}"),
                    format!("commit {i}"),
                ]
            })
            .collect();
        assert_eq!(log, expected);
    }

    #[test]
    fn parallel_workers_commit_in_schedule_order() {
        let log = run_logged(&slots(8), 2);
        let commits: Vec<&String> = log.iter().filter(|l| l.starts_with("commit")).collect();
        let in_order: Vec<String> = (0..8).map(|i| format!("commit {i}")).collect();
        assert_eq!(commits, in_order.iter().collect::<Vec<_>>());
    }

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
