//! `layoutrand run --slurm`: plan the run, write the job script, submit it; on `--resume`,
//! resubmit only the shards whose stores are incomplete, and never while a task of an
//! earlier submission may still be writing.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::plan::{
    append_job, read_jobs, slurm_path, SlurmPlan, SubmittedJob, DEFAULT_NODE_DIR, LOGS_DIR,
    MARKER_FILE, PLAN_SCHEMA, SCRIPT_FILE,
};
use super::queue::{sbatch, squeue};
use super::script::job_script;
use crate::files::manifest::Manifest;
use crate::files::store::shards::{shard_stores, SHARDS_DIR};
use crate::files::store::RESULTS_FILE;
use crate::run::environment::clean_environment;
use crate::run::execution::unix_now;
use crate::run::prepare::prepare_run;
use crate::run::settings::RunRequest;

/// The Slurm options of `layoutrand run --slurm`.
#[derive(Debug, Clone, Default)]
pub struct SlurmOptions {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--max-nodes`: at most this many tasks at once.
    pub max_nodes: Option<u32>,
    /// `--slurm-arg`, repeated: extra `sbatch` options.
    pub slurm_args: Vec<String>,
    /// `--shards` [default: one per execution round].
    pub shards: Option<u32>,
    /// `--node-dir` [default: /tmp/layoutrand].
    pub node_dir: Option<PathBuf>,
    /// `--dry-run`: write the plan and the script, submit nothing.
    pub dry_run: bool,
}

/// What a submission did.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The experiment directory, absolute.
    pub dir: PathBuf,
    /// The script written.
    pub script: PathBuf,
    /// The array job's id (`None` for a dry run or when nothing was left to run).
    pub job: Option<String>,
    /// The shards submitted.
    pub shards: Vec<u32>,
    /// All shards of the run.
    pub total_shards: u32,
}

/// Plans (or, with `--resume`, re-plans) the run in `req.out_dir` and submits its missing
/// shards as one array job.
pub fn submit(req: &RunRequest, opts: &SlurmOptions) -> Result<Submission> {
    if req.budget.is_some() {
        bail!("--budget does not apply to --slurm: give the tasks a time limit with --slurm-arg=--time=HH:MM:SS");
    }
    if req.jobs.is_some_and(|j| j > 1) || req.cpus.is_some() {
        bail!("--jobs and --cpus do not apply to --slurm: each task runs its shard one execution at a time on a node of its own");
    }
    let dir = experiment_dir(req)?;
    let manifest = Manifest::load(&dir)?;
    if dir.join(RESULTS_FILE).exists() {
        bail!(
            "{} holds the store of a local run: continue it with `layoutrand run --resume`, or use another --out for the Slurm run",
            dir.join(RESULTS_FILE).display()
        );
    }
    let plan = plan_or_resume(req, opts, &manifest, &dir)?;
    plan.check()
        .context("--partition, --slurm-arg or --node-dir")?;
    plan.save(&dir)?;
    let root = slurm_folders(&dir, &plan.token)?;

    let missing = plan.incomplete_shards(&dir)?;
    let script = slurm_path(&dir, SCRIPT_FILE);
    let mut submission = Submission {
        dir: dir.clone(),
        script: script.clone(),
        job: None,
        shards: missing.clone(),
        total_shards: plan.shards,
    };
    if missing.is_empty() {
        return Ok(submission);
    }
    root.write_atomic(
        root.rel(&script)?,
        job_script(&dir, &plan, &missing)?.as_bytes(),
    )?;
    if opts.dry_run {
        return Ok(submission);
    }
    let job = sbatch(&script)?;
    append_job(
        &dir,
        &SubmittedJob {
            job: job.clone(),
            shards: missing,
            submitted_unix: unix_now(),
        },
    )?;
    submission.job = Some(job);
    Ok(submission)
}

/// The plan of the run in `dir`: the earlier one with `--resume` (its options updated; flags
/// that contradict it refused, as in a local resume), else a fresh one. Refused: a resume
/// with nothing to resume or while jobs are active, a fresh plan over a run that started.
fn plan_or_resume(
    req: &RunRequest,
    opts: &SlurmOptions,
    manifest: &Manifest,
    dir: &Path,
) -> Result<SlurmPlan> {
    let jobs = read_jobs(dir)?;
    let earlier = SlurmPlan::load(dir)?;
    let started = !jobs.is_empty() || !shard_stores(dir)?.is_empty();
    Ok(match earlier {
        Some(_) if req.resume => {
            refuse_while_active(&jobs)?;
            // What the plan records is submitted again: only as verified.
            let verified = SlurmPlan::load_verified(dir)?
                .with_context(|| format!("{} disappeared while it was read", dir.display()))?;
            let header = verified.clone().map(|p| p.header);
            let mut plan = verified.into_inner();
            let prepared = prepare_run(req, Some(&header), manifest, dir)?;
            if prepared.binary_labels != plan.header.binaries {
                bail!(changed_binaries(&plan.header.binaries, &prepared.binary_labels));
            }
            update_options(&mut plan, opts);
            plan
        }
        Some(_) if started => bail!(
            "{} already holds a Slurm run: pass --resume to submit what is missing, or choose another --out",
            dir.display()
        ),
        None if req.resume => bail!(
            "--resume: {} holds no Slurm run to resume ({} is missing)",
            dir.display(),
            slurm_path(dir, super::plan::PLAN_FILE).display()
        ),
        // A fresh plan; an earlier dry run's plan is replaced, since nothing ran from it.
        _ => new_plan(req, opts, manifest, dir)?,
    })
}

/// Writes the Slurm marker and makes the logs and shards folders, through the confined
/// writer (a planted `slurm` or `shards` link is refused); returns that writer.
fn slurm_folders(dir: &Path, token: &str) -> Result<crate::files::confined::ExperimentDir> {
    let root = crate::files::confined::ExperimentDir::open(dir)?;
    root.write_atomic(root.rel(&slurm_path(dir, MARKER_FILE))?, token.as_bytes())?;
    root.create_dir_all(root.rel(&slurm_path(dir, LOGS_DIR))?)?;
    root.create_dir_all(SHARDS_DIR)?;
    Ok(root)
}

/// A new plan: the run's settings resolved and checked as for a local run.
fn new_plan(
    req: &RunRequest,
    opts: &SlurmOptions,
    manifest: &Manifest,
    dir: &Path,
) -> Result<SlurmPlan> {
    let prepared = prepare_run(req, None, manifest, dir)?;
    let executions = prepared.settings.executions;
    let shards = opts.shards.unwrap_or(executions);
    if shards == 0 || shards > executions {
        bail!("--shards {shards}: a shard is a block of rounds of the schedule (one execution of every binary per round), so it must be between 1 and --executions ({executions})");
    }
    if opts.max_nodes == Some(0) {
        bail!("--max-nodes must be at least 1");
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let base_env = clean_environment(&cwd);
    // Every task refuses to run when its node cannot switch ASLR off, so the plan can say
    // that every execution ran without it.
    let header = prepared.header(manifest, true, &cwd, &base_env);
    let layoutrand = std::env::current_exe()
        .context("cannot find the layoutrand executable to run on the nodes")?;
    let mut plan = SlurmPlan {
        schema: PLAN_SCHEMA,
        header,
        shards,
        node_dir: PathBuf::from(DEFAULT_NODE_DIR),
        token: fresh_token(),
        layoutrand,
        partition: None,
        max_nodes: None,
        slurm_args: Vec::new(),
    };
    update_options(&mut plan, opts);
    Ok(plan)
}

/// The options a (re)submission may change: where and how the tasks run, not what they
/// measure.
fn update_options(plan: &mut SlurmPlan, opts: &SlurmOptions) {
    if let Some(p) = &opts.partition {
        plan.partition = Some(p.clone());
    }
    if let Some(n) = opts.max_nodes {
        plan.max_nodes = Some(n);
    }
    if !opts.slurm_args.is_empty() {
        plan.slurm_args = opts.slurm_args.clone();
    }
    if let Some(d) = &opts.node_dir {
        plan.node_dir = d.clone();
    }
}

/// Refuses while any task of an earlier submission is queued or running: it may still
/// write its shard, and a second task on the same shard would run its executions twice.
fn refuse_while_active(jobs: &[SubmittedJob]) -> Result<()> {
    if jobs.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = jobs.iter().map(|j| j.job.clone()).collect();
    let active: Vec<String> = squeue(&ids)?
        .into_iter()
        .filter(|t| t.is_active())
        .map(|t| format!("{}_{} {}", t.job, t.task, t.state))
        .collect();
    if !active.is_empty() {
        bail!(
            "tasks of this run are still queued or running ({}): wait for them (`layoutrand status`) or cancel them with scancel, then resume",
            active.join(", ")
        );
    }
    Ok(())
}

/// Why `--slurm --resume` refuses a manifest whose binaries differ from the planned run's.
/// Binaries added by `build --extend` get their own message: a Slurm run's shards are fixed
/// blocks of the schedule planned at the first submission (each task's store and lock are
/// per shard), so new binaries cannot join it, unlike a local run, which records an
/// `extension` and schedules them.
fn changed_binaries(planned: &[String], current: &[String]) -> String {
    let added: Vec<&str> = current
        .iter()
        .filter(|b| !planned.contains(b))
        .map(String::as_str)
        .collect();
    let kept = planned.iter().all(|b| current.contains(b));
    if kept && !added.is_empty() {
        format!(
            "--resume: the manifest gained binaries since this Slurm run was planned ({}, from `build --extend`); a Slurm run cannot take in new binaries: its shards are fixed blocks of the schedule planned at the first submission. Resume it as planned by restoring the manifest, or run every binary in a new Slurm run in another --out (a local `layoutrand run --resume` does take in extended binaries)",
            added.join(",")
        )
    } else {
        format!(
            "--resume: the manifest's binaries ({}) differ from the planned run's ({}): the binaries were rebuilt; start a new run in another --out",
            current.join(","),
            planned.join(",")
        )
    }
}

/// The experiment directory of `req`, absolute; refused when a link is planted where the
/// submission writes (slurm/: plan, script, jobs, logs; shards/).
fn experiment_dir(req: &RunRequest) -> Result<PathBuf> {
    let dir = req
        .out_dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", req.out_dir.display()))?;
    crate::files::confined::refuse_links_in(&dir, &["slurm", "shards"])?;
    Ok(dir)
}

/// 16 hex digits that differ between submissions: clock, process id and address-space
/// noise hashed together.
fn fresh_token() -> String {
    let mut h = blake3::Hasher::new();
    h.update(&unix_now().to_le_bytes());
    h.update(&std::process::id().to_le_bytes());
    let local = 0u8;
    h.update(&(std::ptr::addr_of!(local) as usize).to_le_bytes());
    h.finalize().to_hex()[..16].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_binaries_get_their_own_refusal() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let planned = v(&["baseline", "seed-1"]);
        let extended = changed_binaries(&planned, &v(&["baseline", "seed-1", "seed-2"]));
        insta::assert_snapshot!(extended);
        let rebuilt = changed_binaries(&planned, &v(&["baseline", "seed-2"]));
        insta::assert_snapshot!(rebuilt);
    }
}
