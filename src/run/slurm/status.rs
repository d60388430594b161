//! `layoutrand status DIR` and `run --slurm --wait`: progress per shard from the shard
//! stores, task states from `squeue` (ended tasks stay listed for the controller's
//! `MinJobAge`; after that, the shard store alone tells whether the task finished its work).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use super::plan::{read_jobs, SlurmPlan};
use super::queue::{squeue, troubled_nodes, TaskState};

/// One shard's progress and the state of the task that last ran it.
#[derive(Debug, Clone)]
pub struct ShardStatus {
    /// Shard index (= array index).
    pub(crate) shard: u32,
    /// Executions planned.
    pub(crate) planned: u32,
    /// Executions committed to its store.
    pub(crate) done: usize,
    /// The latest submitted task for this shard, as `squeue` sees it (`None` when never
    /// submitted or forgotten by the controller).
    pub(crate) task: Option<TaskState>,
    /// The job that last ran (or runs) it.
    pub(crate) job: Option<String>,
}

/// The status of every shard of the Slurm run in `dir`.
pub fn shard_statuses(dir: &Path) -> Result<Vec<ShardStatus>> {
    let Some(plan) = SlurmPlan::load(dir)? else {
        bail!(
            "{} holds no Slurm run (no slurm/plan.json): `layoutrand status` reports on runs started with `layoutrand run --slurm`",
            dir.display()
        );
    };
    let jobs = read_jobs(dir)?;
    let ids: Vec<String> = jobs.iter().map(|j| j.job.clone()).collect();
    let tasks = squeue(&ids)?;
    let progress = plan.progress(dir)?;
    Ok(progress
        .into_iter()
        .enumerate()
        .map(|(k, (planned, done))| {
            let k = k as u32;
            let job = jobs
                .iter()
                .rev()
                .find(|j| j.shards.contains(&k))
                .map(|j| j.job.clone());
            let task = job
                .as_ref()
                .and_then(|j| tasks.iter().find(|t| &t.job == j && t.task == k).cloned());
            ShardStatus {
                shard: k,
                planned,
                done,
                task,
                job,
            }
        })
        .collect())
}

/// How a wait ended.
#[derive(Debug, Clone)]
pub struct WaitOutcome {
    /// Every shard's status once no task was queued or running.
    pub statuses: Vec<ShardStatus>,
    /// Shards whose stores are incomplete: their task failed, was cancelled, timed out or
    /// lost its node.
    pub incomplete: Vec<u32>,
}

/// How often `run --slurm --wait` says what it is waiting for.
pub const WAIT_REPORT_EVERY: Duration = Duration::from_secs(30);

/// How often the wait reads the shard stores to see whether the data is complete (reading
/// them is heavier than asking `squeue`).
const COMPLETE_CHECK_EVERY: Duration = Duration::from_secs(10);

/// Blocks until no task of the run in `dir` is queued or running, polling `squeue` every
/// `poll`, or until every shard's store is complete (a task can stay listed as running for
/// minutes after its node died, when its data was already written). Every `report_every` it
/// says on stderr what it waits for: the executions done, the tasks still queued or running
/// and where, and the nodes that do not answer the controller.
pub fn wait_until_ended(dir: &Path, poll: Duration, report_every: Duration) -> Result<WaitOutcome> {
    let ids: Vec<String> = read_jobs(dir)?.into_iter().map(|j| j.job).collect();
    let started = Instant::now();
    let (mut last_report, mut last_check) = (started, started);
    // The statuses read when the data was found complete, so they are not read again.
    let mut complete = None;
    loop {
        let active: Vec<TaskState> = squeue(&ids)?
            .into_iter()
            .filter(TaskState::is_active)
            .collect();
        if active.is_empty() {
            break;
        }
        let now = Instant::now();
        let report_due = now.duration_since(last_report) >= report_every;
        if report_due || now.duration_since(last_check) >= COMPLETE_CHECK_EVERY {
            last_check = now;
            let statuses = shard_statuses(dir)?;
            let troubled = troubled_nodes();
            if statuses.iter().all(|s| s.done >= s.planned as usize) {
                crate::diagnostic!("{}", still_listed(&active, &troubled));
                complete = Some(statuses);
                break;
            }
            if report_due {
                last_report = now;
                crate::diagnostic!(
                    "{}",
                    waiting_line(&statuses, &active, &troubled, started.elapsed())
                );
            }
        }
        std::thread::sleep(poll);
    }
    let statuses = match complete {
        Some(statuses) => statuses,
        None => shard_statuses(dir)?,
    };
    let incomplete = statuses
        .iter()
        .filter(|s| s.done < s.planned as usize)
        .map(|s| s.shard)
        .collect();
    Ok(WaitOutcome {
        statuses,
        incomplete,
    })
}

/// `task 12_3 (RUNNING on n2)`, or `(PENDING: Resources)` for a task without a node.
fn describe_task(t: &TaskState) -> String {
    if t.node.is_empty() {
        format!("{}_{} ({}: {})", t.job, t.task, t.state, t.reason)
    } else {
        format!("{}_{} ({} on {})", t.job, t.task, t.state, t.node)
    }
}

/// The nodes among `troubled` that hold one of the `active` tasks, as `n2 (idle*)`.
fn troubled_nodes_of(active: &[TaskState], troubled: &[(String, String)]) -> Vec<String> {
    troubled
        .iter()
        .filter(|(node, _)| active.iter().any(|t| &t.node == node))
        .map(|(node, state)| format!("{node} ({state})"))
        .collect()
}

/// What the wait is waiting for, as one line.
fn waiting_line(
    statuses: &[ShardStatus],
    active: &[TaskState],
    troubled: &[(String, String)],
    waited: Duration,
) -> String {
    let done: usize = statuses.iter().map(|s| s.done).sum();
    let planned: u64 = statuses.iter().map(|s| u64::from(s.planned)).sum();
    let tasks: Vec<String> = active.iter().map(describe_task).collect();
    let mut line = format!(
        "layoutrand: waited {}: {done} of {planned} execution(s) stored; waiting for {} task(s): {}",
        humantime::format_duration(Duration::from_secs(waited.as_secs())),
        active.len(),
        tasks.join(", ")
    );
    let nodes = troubled_nodes_of(active, troubled);
    if !nodes.is_empty() {
        line.push_str(&format!(
            "; not answering the controller: {} (a task there may never end: `scancel` it, \
             then `layoutrand run --slurm --resume`)",
            nodes.join(", ")
        ));
    }
    line
}

/// Why the wait ends with tasks still listed: their data is all stored.
fn still_listed(active: &[TaskState], troubled: &[(String, String)]) -> String {
    let tasks: Vec<String> = active.iter().map(describe_task).collect();
    let nodes = troubled_nodes_of(active, troubled);
    let why = if nodes.is_empty() {
        String::new()
    } else {
        format!(" (not answering the controller: {})", nodes.join(", "))
    };
    format!(
        "layoutrand: every shard's executions are stored; not waiting for the task(s) still \
         listed: {}{why}",
        tasks.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(task: u32, state: &str, node: &str, reason: &str) -> TaskState {
        TaskState {
            job: "12".into(),
            task,
            state: state.into(),
            node: node.into(),
            reason: reason.into(),
        }
    }

    #[test]
    fn the_waiting_line_says_progress_tasks_and_silent_nodes() {
        let statuses: Vec<ShardStatus> = [(10, 10), (10, 4)]
            .iter()
            .enumerate()
            .map(|(k, &(planned, done))| ShardStatus {
                shard: k as u32,
                planned,
                done,
                task: None,
                job: Some("12".into()),
            })
            .collect();
        let active = [
            task(1, "RUNNING", "n2", "None"),
            task(2, "PENDING", "", "Resources"),
        ];
        let troubled = [
            ("n2".to_string(), "mixed*".to_string()),
            ("n9".to_string(), "down".to_string()),
        ];
        let line = waiting_line(&statuses, &active, &troubled, Duration::from_secs(95));
        // Only the node that holds a task of ours (n2, not n9) is named.
        insta::assert_snapshot!(line);
        let quiet = waiting_line(&statuses, &active, &[], Duration::from_secs(30));
        insta::assert_snapshot!(quiet);
        insta::assert_snapshot!(still_listed(&active[..1], &troubled));
    }
}
