//! One array task (`layoutrand run-shard`): check the shared-storage marker, then run one
//! shard with the local runner's building blocks — binaries staged at one fixed node-local
//! path, ASLR off, the recorded environment plus padding, timeouts — committing every
//! execution, with the machine that ran it, to the shard's own crash-safe store.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use nix::fcntl::{Flock, FlockArg};

use super::plan::{slurm_path, SlurmPlan, MARKER_FILE, SLURM_DIR};
use crate::files::manifest::Manifest;
use crate::files::store::shards::shard_dir;
use crate::files::store::{read_results, Record, Results, StoreWriter, RESULTS_FILE};
use crate::run::environment::{probe_aslr_off, STAGING_DIR};
use crate::run::execution::{run_one, unix_now, ExecutionContext};
use crate::run::host::{detect_conditions, detect_host};
use crate::run::machine::{detect_machine, Machine};
use crate::run::preflight::check_writable;
use crate::run::prepare::{prepare_run, PreparedRun};
use crate::run::reaper;
use crate::run::settings::RunRequest;

/// What a task did.
#[derive(Debug, Clone)]
pub struct ShardReport {
    /// Executions run now.
    pub(crate) executed: usize,
    /// Executions found committed already (a resubmitted shard).
    pub(crate) skipped: usize,
    /// The machine.
    pub machine: Machine,
}

/// Runs shard `shard` of the Slurm run in `dir`, after checking that `token` is what the
/// submitter wrote into the marker (so the directory is the submitter's, seen through
/// shared storage).
pub fn run_shard(dir: &Path, shard: u32, token: &str) -> Result<ShardReport> {
    let machine = detect_machine();
    let here = machine.label();
    crate::files::confined::refuse_links_in(dir, &["slurm", "shards"])?;
    check_marker(dir, token, &here)?;
    let (plan, prepared) = planned_shard(dir, shard)?;
    if let Err(why) = probe_aslr_off() {
        bail!("node {here} cannot run benchmarks with ASLR off ({why}); the plan requires it of every node");
    }
    let (_local, staging, _local_lock) = node_folder(&plan, &here)?;

    let sdir = shard_dir(dir, shard);
    let (mut writer, previous) = open_shard_store(&sdir, &plan)?;
    let done: HashSet<crate::files::results::ExecutionKey> =
        previous.executions.iter().map(|e| e.key()).collect();

    let h = &plan.header;
    let cwd = PathBuf::from(h.cwd.clone().unwrap_or_else(|| dir.display().to_string()));
    let base_env = h.environment_pairs();
    crate::run::environment::check_recorded_environment(&base_env)?;
    let heap =
        crate::run::heap_offset::for_run(prepared.settings.data_seeds, &prepared.targets, dir)?;
    let ctx = ExecutionContext {
        template: &prepared.template,
        metric: &prepared.metric,
        settings: &prepared.settings,
        cachegrind_dir: staging.join("cachegrind"),
        profiles_in: None,
        staging: staging.clone(),
        cwd: &cwd,
        cases: prepared.cases.as_ref(),
        base_env: &base_env,
        aslr_disabled: true,
        heap: heap.as_ref(),
        // The node is the task's own (`--exclusive`): nothing to wait for.
        quiet: None,
    };
    // SIGTERM (scancel, the time limit) stops the task between executions, the running
    // benchmark's whole tree killed and its execution discarded, as in a local run.
    reaper::install()?;
    let mut report = ShardReport {
        executed: 0,
        skipped: 0,
        machine: machine.clone(),
    };
    for slot in plan.shard_slots(shard) {
        let target = prepared.target(&slot);
        if done.contains(&target.key(slot.execution)) {
            report.skipped += 1;
            continue;
        }
        if let Some(signal) = crate::signals::caught() {
            return Err(interrupted(shard, signal, &report, dir));
        }
        let mut one = run_one(&ctx, &slot, target)?;
        if let Some(signal) = one.interrupted {
            return Err(interrupted(shard, signal, &report, dir));
        }
        for r in &mut one.records {
            if let Record::Execution(e) = r {
                e.machine = Some(machine.clone());
            }
        }
        writer.append(&one.records)?;
        report.executed += 1;
    }
    crate::diagnostic!(
        "layoutrand: shard {shard} on {here}: {} execution(s) run, {} already done; stored in {}",
        report.executed,
        report.skipped,
        sdir.join(RESULTS_FILE).display()
    );
    Ok(report)
}

/// The node-local folder of the run (its binaries and outputs), its staging folder, and
/// the lock this task holds on it while it runs.
fn node_folder(plan: &SlurmPlan, here: &str) -> Result<(PathBuf, PathBuf, Flock<std::fs::File>)> {
    // The fixed path is node-local and the same on every node. Two tasks on one host (an
    // emulated cluster, or nodes shared despite --exclusive) would swap binaries under each
    // other's feet: the folder's lock makes them take turns.
    let local = plan.node_dir.join(&plan.token);
    // The node folder is the plan's (signed) choice; the token one plain name below it.
    crate::files::confined::ExperimentDir::create(&plan.node_dir)
        .and_then(|d| d.create_dir_all(&plan.token))
        .with_context(|| format!("cannot create the node-local folder {}", local.display()))?;
    let lock = lock_node_folder(&local, here)?;
    let staging = local.join(STAGING_DIR);
    check_writable(&local, &staging)?;
    Ok((local, staging, lock))
}

/// Refuses to run unless the marker in `dir` holds `token`: the directory is the
/// submitter's, seen through shared storage from node `here`.
fn check_marker(dir: &Path, token: &str, here: &str) -> Result<()> {
    let marker = slurm_path(dir, MARKER_FILE);
    match crate::files::confined::read_side_file(dir, Path::new(SLURM_DIR).join(MARKER_FILE)) {
        Ok(Some(t)) if t.trim() == token => Ok(()),
        Ok(Some(t)) => bail!(
            "{} on node {here} holds token {:?}, not {token:?}: the directory changed since this job was submitted (another submission); this task does nothing",
            marker.display(),
            t.trim()
        ),
        Ok(None) => bail!(
            "node {here} cannot read {} (it does not exist): the experiment directory must be on storage every node sees (a shared file system), at the same path",
            marker.display()
        ),
        Err(e) => bail!(
            "node {here} cannot read {} ({e:#}): the experiment directory must be on storage every node sees (a shared file system), at the same path",
            marker.display()
        ),
    }
}

/// The Slurm plan of `dir` and the run it prepares, checked to have shard `shard` and the
/// binaries planned at submission.
fn planned_shard(dir: &Path, shard: u32) -> Result<(SlurmPlan, PreparedRun)> {
    let Some(verified) = SlurmPlan::load_verified(dir)? else {
        bail!("{} has no Slurm plan", dir.display());
    };
    let header = verified.clone().map(|p| p.header);
    let plan = verified.into_inner();
    if shard >= plan.shards {
        bail!(
            "shard {shard} does not exist: the run has {} shards",
            plan.shards
        );
    }
    let manifest = Manifest::load(dir)?;
    let req = RunRequest {
        out_dir: dir.to_path_buf(),
        resume: true,
        ..RunRequest::default()
    };
    let prepared = prepare_run(&req, Some(&header), &manifest, dir)?;
    if prepared.binary_labels != plan.header.binaries {
        bail!(
            "the manifest in {} no longer lists the planned binaries ({}): the binaries were rebuilt after submission",
            dir.display(),
            plan.header.binaries.join(",")
        );
    }
    Ok((plan, prepared))
}

/// The shard's store in `sdir`, opened for appending (with the plan's header, stamped with
/// this node and time, when new), and what it already holds.
fn open_shard_store(sdir: &Path, plan: &SlurmPlan) -> Result<(StoreWriter, Results)> {
    // shards/ (made here when missing) and the shard's own folder are made without
    // following a link.
    let (shards, name) = crate::files::confined::make_parent_of(sdir)?;
    shards
        .create_dir_all(name)
        .with_context(|| format!("cannot create {}", sdir.display()))?;
    let mut writer = StoreWriter::open(sdir)?;
    let previous = read_results(sdir)?;
    for w in &previous.warnings {
        crate::diagnostic!("layoutrand: warning: {w}");
    }
    if previous.header.is_none() {
        let mut h = plan.header.clone();
        h.started_unix = unix_now();
        h.host = detect_host();
        h.conditions = Some(detect_conditions());
        writer.append_header(h)?;
    }
    Ok((writer, previous))
}

/// The error of a task stopped by a signal: what its shard kept, and how to continue.
fn interrupted(shard: u32, signal: i32, report: &ShardReport, dir: &Path) -> anyhow::Error {
    let kept = crate::units::counted(report.skipped + report.executed, "execution", "executions");
    anyhow::anyhow!(
        "shard {shard} interrupted by signal {signal}: the running execution was discarded; the shard keeps {kept} (this task added {}); submit what is missing with `layoutrand run --slurm --resume --out {}`",
        report.executed,
        dir.display()
    )
}

/// Takes the node-local folder's lock, waiting (and saying so) while another task holds it.
fn lock_node_folder(local: &Path, here: &str) -> Result<Flock<std::fs::File>> {
    let path = local.with_extension("lock");
    let (dir, name) = crate::files::confined::parent_of(&path)?;
    let file = dir
        .open_append(name, "the node folder's lock")
        .with_context(|| format!("cannot open {}", path.display()))?;
    // The lock lives as long as the returned guard (it unlocks on drop, as closing would).
    let file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(locked) => return Ok(locked),
        Err((file, _)) => file,
    };
    crate::diagnostic!(
        "layoutrand: node {here}: another task of this experiment uses {} on this host; waiting for it",
        local.display()
    );
    Flock::lock(file, FlockArg::LockExclusive)
        .map_err(|(_, errno)| anyhow::anyhow!("cannot lock {}: {errno}", path.display()))
}
