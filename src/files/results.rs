//! The records of `DIR/results.jsonl`, the store of an experiment's measurements.
//!
//! Only the format lives here (what one line holds, its schema number, the file name); the
//! crash-safe reading and appending are [`crate::files::store`]. The schema is
//! documented in `docs/formats.md`; change it only additively, and bump [`RESULTS_SCHEMA`]
//! when a reader could misread an old file.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Version of the results format written by this build of the tool.
///
/// Schema 2 renamed the label of a binary (`baseline`, `seed-N`) from `variant` to `binary`
/// (the header's `variants` to `binaries`), so that `variant` names a version of the program
/// compared in one experiment (`build --variant`). Schema-1 files still read: a measurement
/// or execution without `binary` is schema 1 and its `variant` is the binary's label
/// ([`upgrade_label`]); a header of schema 1 has its labels under `variants`
/// ([`Header::upgraded`]). A resumed schema-1 store keeps its header and gains schema-2
/// records, each of which says which it is.
pub const RESULTS_SCHEMA: u32 = 2;

/// The first schema with `binary`/`binaries` (see [`RESULTS_SCHEMA`]).
pub(crate) const SCHEMA_WITH_BINARY: u32 = 2;

/// File name of the store inside an output directory.
pub const RESULTS_FILE: &str = "results.jsonl";

/// The most executions a store may hold: one run's schedule (every program, variant, binary
/// and execution, extensions included) is planned whole and refused above this, so a store
/// holding more was not written by layoutrand, and its readers refuse it rather than hold
/// every record of it (issue 34, attack 11).
pub const MAX_STORED_EXECUTIONS: u64 = 1_000_000;

/// One line of the store.
// The header is large but appears once per file; boxing it would only complicate readers.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum Record {
    /// First line: what was run, where, how.
    Header(#[serde(deserialize_with = "header_of_any_schema")] Header),
    /// One value of one metric of one iteration.
    Measurement(#[serde(deserialize_with = "measurement_of_any_schema")] Measurement),
    /// Closes one execution (process) and commits its measurements.
    Execution(#[serde(deserialize_with = "execution_of_any_schema")] Execution),
    /// Binaries added to a resumed run (the top level grown on-line).
    Extension(Extension),
    /// The end of one `run` invocation: its parallelism and the host's load then.
    Finish(Finish),
}

/// Binaries added to the run after it started: `layoutrand build --extend` appended seeds to
/// the manifest and `layoutrand run --resume` took them in. The header's `binaries` plus
/// every extension's, in file order, are the run's planned binaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Extension {
    /// Labels of the binaries added (`seed-N`); `variants` in schema 1.
    #[serde(alias = "variants")]
    pub binaries: Vec<String>,
    /// Execution rounds added to every binary (`run --resume --extend-executions K`); the
    /// header's `executions` plus every extension's are the run's planned executions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) executions: Option<u32>,
    /// When they were added, seconds since the Unix epoch.
    pub(crate) added_unix: f64,
}

/// Metadata of the experiment, written once at the top.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Header {
    /// [`RESULTS_SCHEMA`] of the writer.
    pub schema: u32,
    /// `layoutrand` version that wrote the file.
    pub tool_version: String,
    /// The benchmark command, with `{bin}` placeholders unexpanded.
    pub command: Vec<String>,
    /// Programs (binary names from the manifest) under test.
    pub programs: Vec<String>,
    /// Binary labels (`baseline`, `seed-N`) under test (under `variants` in schema 1: see
    /// [`Header::upgraded`]).
    #[serde(default)]
    pub binaries: Vec<String>,
    /// Names of the variants (versions of the program built with `build --variant`) under
    /// test, in build order; empty when the experiment has one unnamed variant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    /// Metric specification as given (`wall`, `cpu`, `cachegrind`, `regex:...`).
    pub metric: String,
    /// Planned executions per binary.
    pub executions: u32,
    /// Planned iterations per execution (1 without a program-reported metric; 0 when the
    /// program reports as many iterations as it likes and `--iterations` was not given).
    pub iterations: u32,
    /// Iterations dropped as warmup at the start of each execution.
    pub warmup: u32,
    /// Exclusive upper bound of the environment padding in bytes.
    pub env_pad_max: u32,
    /// Seed of the execution schedule and of the padding sizes.
    pub schedule_seed: u64,
    /// Data seeds per binary (`run --data-seeds`): each (binary, data seed) cell is run
    /// `executions` times with the data layout the data seed names (see
    /// [`crate::run::data_layout`]). 1 (and absent) when the data layout is not a factor:
    /// the padding then varies per execution as it always has.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub data_seeds: u32,
    /// Whether each data seed also names a level of malloc's mmap threshold (`run
    /// --vary-mmap-threshold`, recorded per execution as `mmap_threshold`); absent when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub vary_mmap_threshold: bool,
    /// The pattern a suite's cases had to match to be kept (`run --cases`); absent: every
    /// case the suite reported or listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<String>,
    /// How the schedule was planned from the seed: `rounds` (each execution round runs every
    /// (program, binary) block once, in its own random order) since the field exists; a
    /// store without it was planned `free` (all slots shuffled at once), and a resume replans
    /// it so.
    #[serde(default)]
    pub schedule_design: ScheduleDesign,
    /// Per-execution timeout in seconds, if any.
    pub timeout_seconds: Option<f64>,
    /// Exit codes besides 0 with which an execution ended ok (`run --ok-exit-codes`),
    /// sorted; absent: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ok_exit_codes: Vec<i32>,
    /// Whether ASLR was disabled for the benchmark processes.
    pub aslr_disabled: bool,
    /// The machine.
    pub host: HostInfo,
    /// Start time, seconds since the Unix epoch.
    pub started_unix: f64,
    /// First line of `--version` of each build tool, by tool name (from the manifest).
    #[serde(default)]
    pub toolchain: BTreeMap<String, String>,
    /// Working directory of every benchmark process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The fixed environment of every benchmark process (`NAME=value`), without the
    /// padding variable.
    #[serde(default)]
    pub environment: Vec<String>,
    /// Name of the environment padding variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pad_variable: Option<String>,
    /// The host's state (load, frequency scaling, SMT) when the run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<HostConditions>,
    /// `--metric cachegrind`: the cache model simulated (passed to valgrind explicitly).
    /// Absent for other metrics and in cachegrind stores written before it was recorded
    /// (those simulated valgrind's model of their host, which is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_model: Option<crate::files::cache_model::CacheModel>,
    /// `--metric cachegrind`: the first line of `valgrind --version` when the run began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valgrind_version: Option<String>,
}

/// How a run's schedule places the executions (docs/run.md, "Schedule").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleDesign {
    /// Every (program, binary, execution) block of the run shuffled at once: one binary's
    /// executions may run back to back. Stores written before the header recorded a design.
    #[default]
    Free,
    /// Randomised complete blocks: execution round `k` runs every (program, binary) block
    /// once, in a fresh random order, and holds execution `k` of every binary. Round `k`
    /// is then a block of the analysis.
    Rounds,
}

/// What we could learn about the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct HostInfo {
    /// `model name` from /proc/cpuinfo.
    pub(crate) cpu_model: Option<String>,
    /// `uname -r`.
    pub(crate) kernel: Option<String>,
    /// Online logical CPUs.
    pub(crate) cores: Option<u32>,
    /// cpufreq governor of CPU 0, when readable.
    pub(crate) governor: Option<String>,
    /// Host name.
    pub(crate) hostname: Option<String>,
    /// CPU 0's first-level instruction cache, from sysfs: the cache `explain` places a
    /// timed run's functions in (absent when unreadable, and in stores written before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) l1i: Option<crate::layout::cache_geometry::CacheGeometry>,
}

/// One value: metric `metric` of iteration `iteration` of execution `execution` of the
/// binary `program` built as `binary` (of `variant`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Measurement {
    /// Program (binary name from the manifest).
    pub program: String,
    /// `baseline` or `seed-N` (under `variant` in schema 1: see [`upgrade_label`]).
    #[serde(default)]
    pub binary: String,
    /// The variant (`build --variant NAME`) the binary belongs to; `None` when the
    /// experiment has one unnamed variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The seed (`None` for the baseline).
    pub seed: Option<u64>,
    /// Index of the execution of this binary, from 0.
    pub execution: u32,
    /// Index of the iteration within the execution, from 0 (0 when there is one value per
    /// execution).
    pub iteration: u32,
    /// True for the first `warmup` iterations, which the statistics leave out.
    pub warmup: bool,
    /// Metric name, e.g. `wall`, `cpu`, `max_rss`, `reported`, `I1_misses`.
    pub metric: String,
    /// The value, in `unit`. Always finite when written by this version; layoutrand 0.1 wrote
    /// a non-finite value as `null`, which reads back as NaN (the store reader then counts that
    /// execution as a metric failure).
    #[serde(deserialize_with = "number_or_null")]
    pub value: f64,
    /// Unit of `value`, e.g. `ns`, `KiB`, `count`, or the unit the program printed.
    pub unit: String,
}

/// The end of one execution. Its presence commits the measurements before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Execution {
    /// Program (binary name from the manifest).
    pub program: String,
    /// `baseline` or `seed-N` (under `variant` in schema 1: see [`upgrade_label`]).
    #[serde(default)]
    pub binary: String,
    /// The variant (`build --variant NAME`) the binary belongs to; `None` when the
    /// experiment has one unnamed variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The seed (`None` for the baseline).
    pub seed: Option<u64>,
    /// Index of the execution of this binary, from 0.
    pub execution: u32,
    /// Position in the interleaved schedule, from 0.
    pub schedule_index: u64,
    /// Size in bytes of the environment padding variable.
    pub env_pad: u32,
    /// The data seed of the execution's cell (`run --data-seeds` above 1); absent when the
    /// data layout is not a factor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_seed: Option<u64>,
    /// Bytes the heap preload library allocated before `main` (moves the heap's first
    /// blocks); absent when the heap was not moved (one data seed, or a static binary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_offset: Option<u32>,
    /// Malloc's mmap threshold in bytes the preload library set before `main` (`run
    /// --vary-mmap-threshold`); absent when it was malloc's own (not varied, or a static
    /// binary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mmap_threshold: Option<u32>,
    /// Start time, seconds since the Unix epoch.
    pub start_unix: f64,
    /// Wall time of the whole process, in nanoseconds.
    pub wall_ns: u64,
    /// `ok`, `exit`, `signal`, `timeout` or `spawn`.
    pub status: ExecutionStatus,
    /// Exit code, when the process exited.
    pub exit_code: Option<i32>,
    /// Signal number, when the process was killed by a signal.
    pub signal: Option<i32>,
    /// Last lines of stderr (and of stdout for metric errors) when the execution failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
    /// The machine that ran it (Slurm runs; absent for local runs, whose machine is the
    /// header's host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<Machine>,
    /// Processes the execution left running when its leader ended, outside its process
    /// group (abandoned children re-parented to the runner, `setsid()` escapees), which the
    /// runner killed after it: a benchmark that leaves work behind. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub abandoned: u32,
    /// The host around the execution (issue 55: noise the tool sees): what else was running
    /// when it started and how much CPU time the hypervisor stole while it ran. Absent in
    /// stores written before 2026-12-03 and when /proc cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<ExecutionHost>,
}

/// The host around one execution, sampled by the runner just before the benchmark starts
/// and just after it ends (outside the measured process, a few microseconds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExecutionHost {
    /// Runnable tasks when it started (/proc/stat `procs_running`, the median of five reads
    /// over the 2 ms before it started), the runner itself and the run's other executions
    /// under way (`--jobs`) included.
    pub running: Option<u32>,
    /// The share of all CPUs' time stolen by the hypervisor while it ran (/proc/stat
    /// `steal` over all the `cpu` line's times, between the two samples); `None` when no
    /// time passed or /proc/stat could not be read.
    pub steal: Option<f64>,
    /// With `run --wait-for-quiet`: how long the runner waited for a quiet host before it
    /// started this execution, and whether the host was quiet then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_wait: Option<QuietWait>,
}

/// Above this share of the CPU time stolen by the hypervisor while an execution ran, other
/// guests held its CPU long enough to disturb a time measurement (2 %: a 1 s execution lost
/// 20 ms of its CPU, twice the 1 % noise a quiet machine shows).
pub const STOLEN_SHARE: f64 = 0.02;

impl ExecutionHost {
    /// Runnable tasks beyond the runner and the run's own `jobs` executions at once.
    pub fn other_tasks(&self, jobs: u32) -> u32 {
        self.running.map_or(0, |r| r.saturating_sub(jobs.max(1)))
    }

    /// Whether the host was busy: other runnable tasks ([`Self::other_tasks`]) or more than
    /// [`STOLEN_SHARE`] of the CPU time stolen. The one definition the runner waits on and
    /// the report counts.
    pub fn busy(&self, jobs: u32) -> bool {
        self.other_tasks(jobs) > 0 || self.steal.unwrap_or(0.0) > STOLEN_SHARE
    }
}

/// The runner's wait for a quiet host before one execution (`run --wait-for-quiet`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuietWait {
    /// Seconds waited beyond the first look at the host (0.1 s): 0 when it was quiet at once.
    pub seconds: f64,
    /// Whether the host was quiet when it started (false: the wait's limit was reached on a
    /// host still busy, or the run was interrupted while waiting).
    pub quiet: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The machine and scheduler context of one execution (recorded by Slurm runs, so the
/// analysis can treat the machine as a factor).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct Machine {
    /// Slurm's name of the node (`SLURMD_NODENAME`); on an emulated cluster several nodes
    /// share one host, so this, not the host name, tells them apart.
    pub node: Option<String>,
    /// Host name of the machine.
    pub hostname: Option<String>,
    /// `model name` from /proc/cpuinfo.
    pub cpu_model: Option<String>,
    /// Kernel release (`uname -r`).
    pub kernel: Option<String>,
    /// Slurm job id of the array (`SLURM_ARRAY_JOB_ID`).
    pub slurm_job: Option<String>,
    /// Slurm array task id (`SLURM_ARRAY_TASK_ID`).
    pub slurm_task: Option<u32>,
}

impl Machine {
    /// The name the report groups executions by: the Slurm node, else the host name.
    pub(crate) fn label(&self) -> String {
        self.node
            .clone()
            .or_else(|| self.hostname.clone())
            .unwrap_or_else(|| "unknown".to_string())
    }
}

/// How an execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    /// Exited 0 and every metric was read.
    Ok,
    /// Exited with a non-zero code.
    Exit,
    /// Killed by a signal.
    Signal,
    /// Killed by us after the timeout.
    Timeout,
    /// Could not be started.
    Spawn,
    /// Exited 0 but the metric could not be read from its output.
    Metric,
}

/// The machine's load at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Load {
    /// Load averages over 1, 5 and 15 minutes (/proc/loadavg).
    pub(crate) average: [f64; 3],
    /// Runnable tasks other than the reader itself (/proc/stat `procs_running` − 1, the
    /// median of five reads over 2 ms): the other busy processes competing for the cores
    /// right now.
    pub(crate) other_running: u32,
}

/// The state of the host that makes time measurements noisy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct HostConditions {
    /// Load when the run started.
    pub(crate) load: Option<Load>,
    /// cpufreq governors in use (one entry per distinct governor over all CPUs); empty when
    /// the kernel exposes no frequency scaling (typical of virtual machines).
    #[serde(default)]
    pub(crate) governors: Vec<String>,
    /// Whether boost/turbo is on (`cpufreq/boost` or `intel_pstate/no_turbo`), when known.
    pub(crate) boost: Option<bool>,
    /// Whether simultaneous multithreading is active (`smt/active`), when known.
    pub(crate) smt: Option<bool>,
}

/// The end of one `run` invocation: how it ran and the load it left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finish {
    /// When this invocation started and ended, seconds since the Unix epoch.
    pub(crate) started_unix: f64,
    /// See `started_unix`.
    pub(crate) ended_unix: f64,
    /// Load when this invocation started (the header holds the first invocation's too).
    pub(crate) load_before: Option<Load>,
    /// Load when it ended.
    pub(crate) load_after: Option<Load>,
    /// Executions run at once (`--jobs`).
    pub jobs: u32,
    /// CPUs the executions were pinned to (`--cpus`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpus: Option<Vec<usize>>,
    /// Executions this invocation committed.
    pub(crate) executed: u64,
}

/// A JSON number, or `null` read as NaN (see [`Measurement::value`]).
fn number_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

impl Header {
    /// The recorded fixed environment as (name, value) pairs, as the benchmark processes
    /// get it; an entry without `=` (never written by the runner) is skipped.
    pub(crate) fn environment_pairs(&self) -> Vec<(String, String)> {
        self.environment
            .iter()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Checks the names the header lists (programs, binaries, variants): none holds a
    /// control character or a newline (each is printed in one table cell and one CSV field,
    /// and a terminal would act on an escape sequence), and none is listed twice (a run
    /// would record each of its executions twice, then refuse its own store).
    pub(crate) fn check_names(&self) -> Result<(), String> {
        for (what, names) in [
            ("program", &self.programs),
            ("binary", &self.binaries),
            ("variant", &self.variants),
        ] {
            let mut seen = std::collections::BTreeSet::new();
            for name in names {
                if crate::printable::has_control(name) {
                    return Err(format!(
                        "the {what} name {name:?} holds a control character or a newline \
                         (names are printed one per table cell and CSV field)"
                    ));
                }
                if !seen.insert(name.as_str()) {
                    return Err(format!(
                        "the {what} {name:?} is listed twice (a run would record each of its \
                         executions twice)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The header as schema 2 reads: a schema-1 header's `variants` are binary labels.
    pub(crate) fn upgraded(mut self) -> Header {
        if self.schema < SCHEMA_WITH_BINARY && self.binaries.is_empty() {
            self.binaries = std::mem::take(&mut self.variants);
        }
        self
    }
}

/// A header of any schema, upgraded (see [`Header::upgraded`]); for every reader of a header.
pub(crate) fn header_of_any_schema<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Header, D::Error> {
    Header::deserialize(d).map(Header::upgraded)
}

/// Moves a schema-1 record's `variant` (the binary's label then) into `binary`. A record
/// without `binary` can only be schema 1: every schema-2 record has one.
pub(crate) fn upgrade_label(
    binary: &mut String,
    variant: &mut Option<String>,
) -> Result<(), String> {
    if binary.is_empty() {
        *binary = variant
            .take()
            .ok_or("the record has neither `binary` nor (schema 1) `variant`")?;
    }
    Ok(())
}

fn measurement_of_any_schema<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Measurement, D::Error> {
    let mut m = Measurement::deserialize(d)?;
    upgrade_label(&mut m.binary, &mut m.variant).map_err(serde::de::Error::custom)?;
    Ok(m)
}

fn execution_of_any_schema<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Execution, D::Error> {
    let mut e = Execution::deserialize(d)?;
    upgrade_label(&mut e.binary, &mut e.variant).map_err(serde::de::Error::custom)?;
    Ok(e)
}

/// What identifies one execution in a store: program, variant, binary, execution index.
pub(crate) type ExecutionKey = (String, Option<String>, String, u32);

/// [`ExecutionKey`], borrowed.
pub(crate) type ExecutionKeyRef<'a> = (&'a str, Option<&'a str>, &'a str, u32);

/// The owned copy of a borrowed key.
fn owned_key((program, variant, binary, execution): ExecutionKeyRef<'_>) -> ExecutionKey {
    (
        program.to_string(),
        variant.map(str::to_string),
        binary.to_string(),
        execution,
    )
}

impl Execution {
    /// The execution this record closes.
    pub fn key(&self) -> ExecutionKey {
        owned_key(self.key_ref())
    }

    /// [`Execution::key`], borrowed.
    pub(crate) fn key_ref(&self) -> ExecutionKeyRef<'_> {
        (
            &self.program,
            self.variant.as_deref(),
            &self.binary,
            self.execution,
        )
    }
}

impl Measurement {
    /// The execution this value belongs to.
    pub(crate) fn key(&self) -> ExecutionKey {
        owned_key(self.key_ref())
    }

    /// [`Measurement::key`], borrowed.
    pub(crate) fn key_ref(&self) -> ExecutionKeyRef<'_> {
        (
            &self.program,
            self.variant.as_deref(),
            &self.binary,
            self.execution,
        )
    }
}

/// Records for unit tests: one `wall` value in ns of program `p`, and the successful
/// execution that commits it; tests change the fields they care about with `..`.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{Execution, ExecutionStatus, Measurement};

    /// Iteration `iteration` of execution `execution` of `binary`, not warmup.
    pub(crate) fn measurement(
        binary: &str,
        execution: u32,
        iteration: u32,
        value: f64,
    ) -> Measurement {
        Measurement {
            program: "p".into(),
            binary: binary.into(),
            variant: None,
            seed: None,
            execution,
            iteration,
            warmup: false,
            metric: "wall".into(),
            value,
            unit: "ns".into(),
        }
    }

    /// Execution `execution` of `binary`, at `schedule_index`, exited 0.
    pub(crate) fn execution(binary: &str, execution: u32, schedule_index: u64) -> Execution {
        Execution {
            program: "p".into(),
            binary: binary.into(),
            variant: None,
            seed: None,
            execution,
            schedule_index,
            env_pad: 0,
            data_seed: None,
            heap_offset: None,
            mmap_threshold: None,
            start_unix: 0.0,
            wall_ns: 1,
            status: ExecutionStatus::Ok,
            exit_code: Some(0),
            signal: None,
            output_tail: None,
            machine: None,
            abandoned: 0,
            host: None,
        }
    }
}
