//! `DIR/slurm/`: what the submitter decided and what the tasks read back — the plan (the
//! store header every shard starts with, the number of shards, the node-local folder), the
//! shared-storage marker, the job script, the submitted jobs and the tasks' logs.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::files::store::shards::{shard_dir, shard_of};
use crate::files::store::{read_results, Header, RESULTS_FILE};
use crate::files::trust::Verified;
use crate::run::schedule::{plan_schedule, ScheduleShape, Slot};

/// Folder of the Slurm files inside an experiment directory.
pub(crate) const SLURM_DIR: &str = "slurm";
/// The plan, written by the submitter.
pub const PLAN_FILE: &str = "plan.json";
/// The shared-storage marker: a random token the submitter writes and every task must read
/// back before it runs anything.
pub(crate) const MARKER_FILE: &str = "shared-storage-marker";
/// The `sbatch` script of the latest submission.
pub(crate) const SCRIPT_FILE: &str = "job.sbatch";
/// One line per submitted array job.
pub(crate) const JOBS_FILE: &str = "jobs.jsonl";
/// The tasks' stdout and stderr.
pub(crate) const LOGS_DIR: &str = "logs";
/// Version of the plan format.
pub(crate) const PLAN_SCHEMA: u32 = 1;
/// Default node-local folder under which binaries are staged at a fixed path.
pub(crate) const DEFAULT_NODE_DIR: &str = "/tmp/layoutrand";

/// What every task of a Slurm run shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SlurmPlan {
    /// [`PLAN_SCHEMA`] of the writer.
    pub schema: u32,
    /// The header every shard store starts with (settings, command, environment, cwd).
    #[serde(deserialize_with = "crate::files::results::header_of_any_schema")]
    pub header: Header,
    /// Number of shards (array tasks of a complete run).
    pub shards: u32,
    /// Node-local folder; binaries run from `NODE_DIR/TOKEN/.run/bin/NAME`, the same path
    /// on every node.
    pub node_dir: PathBuf,
    /// The marker's token; also names the node-local folder of this experiment.
    pub token: String,
    /// The `layoutrand` executable the tasks run (must be visible on every node).
    pub layoutrand: PathBuf,
    /// `--partition`, when given.
    pub partition: Option<String>,
    /// At most this many tasks run at once (`--max-nodes`).
    pub max_nodes: Option<u32>,
    /// Extra `sbatch` options (`--slurm-arg`), one per line of the script.
    pub slurm_args: Vec<String>,
}

/// One submitted array job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct SubmittedJob {
    /// Slurm's job id of the array.
    pub(crate) job: String,
    /// The shards (array indices) it runs.
    pub(crate) shards: Vec<u32>,
    /// When it was submitted, seconds since the Unix epoch.
    pub(crate) submitted_unix: f64,
}

/// `DIR/slurm/NAME`.
pub fn slurm_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(SLURM_DIR).join(name)
}

impl SlurmPlan {
    /// Reads `DIR/slurm/plan.json` as data (for `status`, which runs nothing from it); `None`
    /// when there is none.
    pub(crate) fn load(dir: &Path) -> Result<Option<SlurmPlan>> {
        // Read as every reader of a received directory reads its side files: never through
        // a link, only a regular file (a FIFO planted here would stall `run --slurm
        // --resume` and `status` for ever), and never more than the side-file limit (a
        // planted 2 GB plan would cost 2 GB).
        let rel = Path::new(SLURM_DIR).join(PLAN_FILE);
        let Some(text) = crate::files::confined::read_side_file(dir, rel)? else {
            return Ok(None);
        };
        SlurmPlan::parse(dir, text.as_bytes()).map(Some)
    }

    /// Reads `DIR/slurm/plan.json` to run from it (submit its jobs again, run a shard):
    /// parsed from the very bytes whose MAC verified under this user's key, refused when it
    /// is not this user's own; `None` when there is none.
    pub(crate) fn load_verified(dir: &Path) -> Result<Option<Verified<SlurmPlan>>> {
        let rel = Path::new(SLURM_DIR).join(PLAN_FILE);
        crate::files::trust::read_verified(dir, &rel, crate::files::trust::Kind::SlurmPlan, |b| {
            SlurmPlan::parse(dir, b)
        })
    }

    /// The plan in `bytes` (the plan file of `dir`), its schema and fields checked.
    fn parse(dir: &Path, bytes: &[u8]) -> Result<SlurmPlan> {
        let path = slurm_path(dir, PLAN_FILE);
        let plan: SlurmPlan = serde_json::from_slice(bytes)
            .with_context(|| format!("{} is not a layoutrand Slurm plan", path.display()))?;
        if plan.schema > PLAN_SCHEMA {
            bail!(
                "{} has plan schema {}; this layoutrand reads up to {PLAN_SCHEMA}",
                path.display(),
                plan.schema
            );
        }
        plan.check()
            .with_context(|| format!("{} is refused", path.display()))?;
        Ok(plan)
    }

    /// Checks the fields the job script and the nodes use as they stand: the token names a
    /// node-local folder (one plain name of letters, digits, `-` and `_`), the node folder and
    /// the program are absolute, and nothing that reaches the job script holds a control
    /// character (a newline in `partition` would add a line to the script).
    pub(crate) fn check(&self) -> Result<()> {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if self.token.is_empty() || !self.token.chars().all(plain) {
            bail!("its token {:?} is not a plain name", self.token);
        }
        for (what, path) in [
            ("node_dir", &self.node_dir),
            ("layoutrand", &self.layoutrand),
        ] {
            let text = path.to_string_lossy();
            if !path.is_absolute() || text.chars().any(char::is_control) {
                bail!("its {what} {text:?} is not an absolute path without control characters");
            }
            if path
                .components()
                .any(|c| c == std::path::Component::ParentDir)
            {
                bail!("its {what} {text:?} contains `..`");
            }
        }
        self.header.check_names().map_err(anyhow::Error::msg)?;
        self.check_counts()?;
        for text in self.partition.iter().chain(&self.slurm_args) {
            if text.chars().any(char::is_control) {
                bail!("{text:?} holds a control character (it would add a line to the job script)");
            }
        }
        Ok(())
    }

    /// The counts the plan's schedule, shards and progress are computed from, within what a
    /// run may plan (a received plan is data: 4 294 967 295 shards made `status` walk that
    /// many shard folders, a count of billions of executions would plan them all): 1 to
    /// `executions` shards (each a block of rounds), and the schedule within
    /// [`crate::run::schedule::check_schedule_size`], data seeds counted.
    fn check_counts(&self) -> Result<()> {
        let h = &self.header;
        if self.shards == 0 || self.shards > h.executions {
            bail!(
                "its {} shards are not 1 to its {} executions per binary (a shard is a block \
                 of rounds)",
                self.shards,
                h.executions
            );
        }
        if h.data_seeds == 0 || h.data_seeds > crate::run::settings::MAX_DATA_SEEDS {
            bail!(
                "its {} data seeds are not 1 to {}",
                h.data_seeds,
                crate::run::settings::MAX_DATA_SEEDS
            );
        }
        let executions = h.executions.checked_mul(h.data_seeds).with_context(|| {
            format!(
                "its {} executions per binary and data seed × {} data seeds overflow",
                h.executions, h.data_seeds
            )
        })?;
        crate::run::schedule::check_schedule_size(
            h.programs.len(),
            h.variants.len(),
            h.binaries.len(),
            executions,
            h.iterations,
        )
    }

    /// Writes the plan atomically and signs it as this user's ([`crate::files::trust`]).
    pub(crate) fn save(&self, dir: &Path) -> Result<()> {
        let root = crate::files::confined::ExperimentDir::open(dir)?;
        root.create_dir_all(SLURM_DIR)?;
        let path = slurm_path(dir, PLAN_FILE);
        let bytes = serde_json::to_vec_pretty(self)?;
        // Signed first: a crash between the two writes leaves the old or the new one verifying.
        crate::files::trust::sign_or_warn(
            dir,
            &Path::new(SLURM_DIR).join(PLAN_FILE),
            crate::files::trust::Kind::SlurmPlan,
            &bytes,
        );
        root.write_atomic(root.rel(&path)?, &bytes)
    }

    /// The whole schedule, as a local run with these settings would walk it.
    pub(crate) fn schedule(&self) -> Vec<Slot> {
        let h = &self.header;
        let shape = ScheduleShape {
            programs: h.programs.len(),
            variants: h.variants.len().max(1),
            binaries: h.binaries.len(),
            executions: h.executions,
            data_seeds: h.data_seeds,
            vary_mmap_threshold: h.vary_mmap_threshold,
        };
        plan_schedule(h.schedule_design, shape, h.schedule_seed, h.env_pad_max)
    }

    /// The slots of shard `k`, in schedule order.
    pub(crate) fn shard_slots(&self, k: u32) -> Vec<Slot> {
        let e = self.header.executions;
        self.schedule()
            .into_iter()
            .filter(|s| shard_of(s.round(self.header.data_seeds), e, self.shards) == k)
            .collect()
    }

    /// Per shard: (executions planned, executions committed in its store).
    pub(crate) fn progress(&self, dir: &Path) -> Result<Vec<(u32, usize)>> {
        let mut planned = vec![0u32; self.shards as usize];
        for s in self.schedule() {
            let round = s.round(self.header.data_seeds);
            planned[shard_of(round, self.header.executions, self.shards) as usize] += 1;
        }
        let mut out = Vec::new();
        for (k, n) in planned.into_iter().enumerate() {
            let sd = shard_dir(dir, k as u32);
            let done = if sd.join(RESULTS_FILE).exists() {
                read_results(&sd)?.executions.len()
            } else {
                0
            };
            out.push((n, done));
        }
        Ok(out)
    }

    /// The shards whose stores lack some of their executions.
    pub(crate) fn incomplete_shards(&self, dir: &Path) -> Result<Vec<u32>> {
        Ok(self
            .progress(dir)?
            .into_iter()
            .enumerate()
            .filter(|(_, (planned, done))| done < &(*planned as usize))
            .map(|(k, _)| k as u32)
            .collect())
    }
}

/// The jobs submitted so far, oldest first.
pub(crate) fn read_jobs(dir: &Path) -> Result<Vec<SubmittedJob>> {
    let path = slurm_path(dir, JOBS_FILE);
    // A side file of a received directory: no link, no FIFO, bounded (see `SlurmPlan::load`).
    let rel = Path::new(SLURM_DIR).join(JOBS_FILE);
    let Some(text) = crate::files::confined::read_side_file(dir, rel)? else {
        return Ok(Vec::new());
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{}:{}: not a submitted job", path.display(), i + 1))
        })
        .collect()
}

/// Records a submitted job (one line, synced).
pub(crate) fn append_job(dir: &Path, job: &SubmittedJob) -> Result<()> {
    use std::io::Write;
    let path = slurm_path(dir, JOBS_FILE);
    let root = crate::files::confined::ExperimentDir::open(dir)?;
    let mut f = root.open_append(root.rel(&path)?, "the Slurm job list")?;
    let mut line = serde_json::to_vec(job)?;
    line.push(b'\n');
    f.write_all(&line)?;
    f.sync_all()?;
    Ok(())
}

/// Issue 54: the Slurm plan is a file of a received directory, and what it says reaches the
/// job script and every node. Any one of its values changed is refused by the reader or
/// loads a plan whose checks hold; never a panic.
#[cfg(test)]
mod fuzz {
    use super::*;
    use crate::fuzz_support::{mutation, seeded, with_value_mutated};
    use proptest::prelude::*;

    /// A plan as `run --slurm` writes it.
    fn valid() -> serde_json::Value {
        serde_json::json!({
            "schema": PLAN_SCHEMA,
            "header": serde_json::from_str::<serde_json::Value>(r#"{"schema":2,"tool_version":"0","command":["{bin}"],"programs":["p"],"binaries":["baseline","seed-1"],"metric":"wall","executions":4,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null},"started_unix":0.0}"#).unwrap(),
            "shards": 2,
            "node_dir": "/tmp/layoutrand-node",
            "token": "a1b2c3",
            "layoutrand": "/usr/local/bin/layoutrand",
            "partition": "debug",
            "max_nodes": 2,
            "slurm_args": ["--time=10"],
        })
    }

    fn load_json(doc: &serde_json::Value) -> Result<Option<SlurmPlan>> {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join(SLURM_DIR)).unwrap();
        std::fs::write(
            slurm_path(d.path(), PLAN_FILE),
            serde_json::to_vec(doc).unwrap(),
        )
        .unwrap();
        SlurmPlan::load(d.path())
    }

    #[test]
    fn the_valid_plan_loads() {
        assert!(load_json(&valid()).unwrap().is_some());
    }

    proptest! {
        #![proptest_config(seeded(1000))]

        #[test]
        fn a_plan_with_any_value_changed_is_refused_or_holds_its_checks(
            index in 0usize..100_000,
            change in mutation(),
        ) {
            let doc = with_value_mutated(&valid(), index, &change);
            if let Ok(Some(plan)) = load_json(&doc) {
                prop_assert!(plan.check().is_ok());
            }
        }
    }
}
