//! `layoutrand status DIR` and `run --slurm --wait`: progress per shard from the shard
//! stores, task states from `squeue` (ended tasks stay listed for the controller's
//! `MinJobAge`; after that, the shard store alone tells whether the task finished its work).

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Result};

use super::plan::{read_jobs, SlurmPlan};
use super::queue::{squeue, TaskState};

/// One shard's progress and the state of the task that last ran it.
#[derive(Debug, Clone)]
pub struct ShardStatus {
    /// Shard index (= array index).
    pub shard: u32,
    /// Executions planned.
    pub planned: u32,
    /// Executions committed to its store.
    pub done: usize,
    /// The latest submitted task for this shard, as `squeue` sees it (`None` when never
    /// submitted or forgotten by the controller).
    pub task: Option<TaskState>,
    /// The job that last ran (or runs) it.
    pub job: Option<String>,
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

/// The status as a table, one line per shard, then the total.
pub fn render_status(statuses: &[ShardStatus]) -> String {
    let mut s = String::from("shard  executions  task              state        node\n");
    for st in statuses {
        let (task, state, node) = match (&st.task, &st.job) {
            (Some(t), _) => (
                format!("{}_{}", t.job, t.task),
                t.state.clone(),
                if t.node.is_empty() {
                    format!("({})", t.reason)
                } else {
                    t.node.clone()
                },
            ),
            (None, Some(j)) => (format!("{j}_{}", st.shard), "ended".into(), String::new()),
            (None, None) => ("-".into(), "not submitted".into(), String::new()),
        };
        s.push_str(&format!(
            "{:<6} {:>5}/{:<5}  {:<17} {:<12} {}\n",
            st.shard, st.done, st.planned, task, state, node
        ));
    }
    let done: usize = statuses.iter().map(|s| s.done).sum();
    let planned: u64 = statuses.iter().map(|s| u64::from(s.planned)).sum();
    let complete = statuses
        .iter()
        .filter(|s| s.done >= s.planned as usize)
        .count();
    s.push_str(&format!(
        "total  {done}/{planned} executions; {complete} of {} shards complete\n",
        statuses.len()
    ));
    s
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

/// Blocks until no task of the run in `dir` is queued or running, polling `squeue` every
/// `poll`.
pub fn wait_until_ended(dir: &Path, poll: Duration) -> Result<WaitOutcome> {
    let ids: Vec<String> = read_jobs(dir)?.into_iter().map(|j| j.job).collect();
    while squeue(&ids)?.iter().any(TaskState::is_active) {
        std::thread::sleep(poll);
    }
    let statuses = shard_statuses(dir)?;
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
