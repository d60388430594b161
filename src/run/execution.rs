//! One execution: stage the binary at its fixed path, start the process in its fixed
//! environment, read the metric, and turn the outcome into store records.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::command::CommandTemplate;
use super::data_layout::DataLayout;
use super::environment::{padding_value, stage_binary, staged_binary_path, PAD_VARIABLE};
use super::heap_offset::{
    library_value, HeapOffsetLibrary, HEAP_OFFSET_VARIABLE, MMAP_THRESHOLD_VARIABLE,
    PRELOAD_VARIABLE,
};
use super::host::ExecutionHost;
use super::libraries::{self, stage_libraries, staged_library_dir, LIBRARY_PATH_VARIABLE};
use super::metric::{
    cachegrind_argv, extract_reported, profile_path, read_cachegrind_totals, EventCounts,
    MetricSpec,
};
use super::process::{file_tail, run_process, ProcessEnd, ProcessOutcome, ProcessSpec};
use super::schedule::Slot;
use super::settings::RunSettings;
use super::targets::{check_sha256, Target};
use crate::files::store::{Execution, ExecutionStatus, Measurement, Record};

/// Lines of output kept in failure records and error messages.
const TAIL_LINES: usize = 20;

/// What stays the same for every execution of a run.
pub(crate) struct ExecutionContext<'a> {
    /// The command template.
    pub(crate) template: &'a CommandTemplate,
    /// The metric.
    pub(crate) metric: &'a MetricSpec,
    /// The run's settings.
    pub(crate) settings: &'a RunSettings,
    /// `DIR/.run` (or a parallel worker's own, see `worker_staging_dir`): fixed binaries
    /// and captured output.
    pub(crate) staging: PathBuf,
    /// Where cachegrind writes its files.
    pub(crate) cachegrind_dir: PathBuf,
    /// The experiment directory, where `--metric cachegrind` keeps each binary's first
    /// per-function profile ([`keep_profile`]); `None` keeps none (a Slurm shard: its
    /// profiles would race the other shards' on a shared file system).
    pub(crate) profiles_in: Option<&'a Path>,
    /// Working directory of the benchmark.
    pub(crate) cwd: &'a Path,
    /// `--cases`: the pattern a suite's cases must match to be kept (and, counted, run).
    pub(crate) cases: Option<&'a regex::Regex>,
    /// The fixed environment, without the padding.
    pub(crate) base_env: &'a [(String, String)],
    /// Whether to set `ADDR_NO_RANDOMIZE`.
    pub(crate) aslr_disabled: bool,
    /// With `--data-seeds` above 1: the library that moves the heap, preloaded by every
    /// execution.
    pub(crate) heap: Option<&'a HeapOffsetLibrary>,
    /// `--wait-for-quiet`: wait at most this long for a quiet host before each execution,
    /// with the run's `jobs` executions at once not counted as other tasks.
    pub(crate) quiet: Option<QuietHost>,
}

impl OneExecution {
    /// An execution the run's interruption by `signal` took: nothing recorded, rerun on
    /// `--resume`.
    fn interrupted(signal: i32) -> OneExecution {
        OneExecution {
            records: Vec::new(),
            status: ExecutionStatus::Signal,
            problem: None,
            tail: String::new(),
            interrupted: Some(signal),
        }
    }
}

/// What waiting for a quiet host needs (`run --wait-for-quiet`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct QuietHost {
    /// The longest wait before one execution.
    pub(crate) longest: Duration,
    /// Executions the run keeps at once.
    pub(crate) jobs: u32,
}

/// The records of one execution and what the caller needs to know about it.
pub(crate) struct OneExecution {
    /// Measurements (none on failure) and the closing execution record.
    pub(crate) records: Vec<Record>,
    /// How it ended.
    pub(crate) status: ExecutionStatus,
    /// For metric failures: what went wrong.
    pub(crate) problem: Option<String>,
    /// For metric failures: the tail of the output the metric was read from.
    pub(crate) tail: String,
    /// The signal (SIGINT, SIGTERM) that interrupted the run during this execution, which was
    /// killed with its whole tree; then `records` is empty: nothing is to be committed.
    pub(crate) interrupted: Option<i32>,
}

/// Runs one execution of one binary and returns its outcome as store records: the seam
/// between the runner's schedule and the processes (the runner's tests put a scripted
/// executor here; [`ExecutionContext`] is the real one).
pub(crate) trait Executor: Sync {
    /// Runs execution `slot` of `target` in the run's fixed environment plus the padding
    /// variable of `slot.env_pad` bytes (see [`execution_environment`]), and returns its
    /// records (not yet written): measurements and the execution record with its status
    /// (ok, exit, signal, timeout, spawn, metric). `Err` only for problems of the runner
    /// itself; every way the benchmark can fail is an execution record.
    fn execute(&self, slot: &Slot, target: &Target) -> Result<OneExecution>;
}

impl Executor for ExecutionContext<'_> {
    fn execute(&self, slot: &Slot, target: &Target) -> Result<OneExecution> {
        run_one(self, slot, target)
    }
}

/// The environment of one execution: the run's fixed variables, the loader's path to the
/// seed's own libraries when it has some, with data seeds the heap-offset library with its
/// offset and, when the run varies it, malloc's mmap threshold (`heap`: the library's path
/// and the data layout; the values have a fixed width), and last the
/// padding variable whose value is `env_pad` bytes long. Only the padding differs in size
/// between executions of one run, so the environment's size (and with it the initial
/// stack's placement) varies by exactly the scheduled padding.
pub(crate) fn execution_environment(
    base_env: &[(String, String)],
    library_dir: Option<&Path>,
    heap: Option<(&Path, &DataLayout)>,
    env_pad: u32,
) -> Vec<(String, String)> {
    let mut env = base_env.to_vec();
    if let Some(dir) = library_dir {
        env.push((LIBRARY_PATH_VARIABLE.to_string(), dir.display().to_string()));
    }
    if let Some((library, data)) = heap {
        env.push((PRELOAD_VARIABLE.to_string(), library.display().to_string()));
        env.push((
            HEAP_OFFSET_VARIABLE.to_string(),
            library_value(data.heap_offset),
        ));
        if let Some(threshold) = data.mmap_threshold {
            env.push((
                MMAP_THRESHOLD_VARIABLE.to_string(),
                library_value(threshold),
            ));
        }
    }
    env.push((PAD_VARIABLE.to_string(), padding_value(env_pad)));
    env
}

/// Runs the execution `slot` of `target` and returns its records (not yet written).
///
/// `Err` only for problems of the runner itself (staging the binary); every way the
/// benchmark can fail is an execution record.
pub(crate) fn run_one(
    ctx: &ExecutionContext,
    slot: &Slot,
    target: &Target,
) -> Result<OneExecution> {
    let (spec, wrong_library) = process_spec(ctx, slot, target)?;
    let quiet_wait = ctx
        .quiet
        .map(|q| super::host::wait_for_quiet(q.longest, q.jobs, &crate::signals::is_caught));
    if let Some(signal) = crate::signals::caught() {
        // Interrupted while waiting: the execution never started.
        return Ok(OneExecution::interrupted(signal));
    }
    // The host around the execution, sampled outside the measured process.
    let running = super::host::settled_running();
    let cpu_before = super::host::cpu_times();
    let start_unix = unix_now();
    let suite_before = match ctx.metric {
        MetricSpec::Suite(suite) => super::suite::source_before(suite, ctx.cwd),
        _ => super::suite::SourceBefore::default(),
    };
    let (outcome, counted) = match (wrong_library, ctx.metric) {
        (Some(why), _) => (ProcessOutcome::not_run(ProcessEnd::SpawnFailed(why)), None),
        (None, MetricSpec::SuiteCounts(suite)) => {
            let model = ctx.settings.cache_model.as_ref();
            let counted =
                super::case_counts::run(&spec, (suite, ctx.cases), &ctx.cachegrind_dir, model);
            (counted.outcome, Some((counted.cases, counted.failed_step)))
        }
        (None, _) => (run_process(&spec), None),
    };
    if let ProcessEnd::Interrupted(signal) = outcome.end {
        return Ok(OneExecution::interrupted(signal));
    }
    let host = ExecutionHost {
        quiet_wait,
        ..super::host::around_execution(running, cpu_before, super::host::cpu_times())
    };
    Ok(outcome_records(
        ctx,
        slot,
        target,
        (&spec, &suite_before, counted),
        &outcome,
        (start_unix, host),
    ))
}

/// The process of execution `slot`: the binaries staged at their fixed paths (checked
/// against the manifest), the command expanded (under cachegrind if that is the metric) and
/// the environment; with, when the seed's libraries are not what the loader would load,
/// why (the execution then fails to spawn rather than measure other libraries).
fn process_spec(
    ctx: &ExecutionContext,
    slot: &Slot,
    target: &Target,
) -> Result<(ProcessSpec, Option<String>)> {
    let staging = ctx.staging.as_path();
    let cg_dir = ctx.cachegrind_dir.as_path();
    let mut fixed = BTreeMap::new();
    for (name, source) in &target.binaries {
        let path = staged_binary_path(staging, name);
        stage_binary(source, &path)?;
        check_sha256(
            "binary",
            source,
            &path,
            &target.sha256[name],
            &target.binary,
        )?;
        fixed.insert(name.clone(), path);
    }
    let bin = ctx.template.uses_bin.then(|| &fixed[&target.program]);
    let mut argv = ctx.template.expand(bin, &fixed, ctx.settings.iterations);
    if let MetricSpec::Cachegrind = ctx.metric {
        super::metric::empty_cachegrind_dir(cg_dir)?;
        argv = cachegrind_argv(cg_dir, ctx.settings.cache_model.as_ref(), &argv);
    }
    let mut wrong_library = None;
    let library_dir = (!target.libraries.is_empty()).then(|| staged_library_dir(staging));
    let heap = match (ctx.heap, slot.data.as_ref()) {
        (Some(library), Some(data)) => {
            library.check()?;
            Some((library.path.as_path(), data))
        }
        _ => None,
    };
    let env = execution_environment(ctx.base_env, library_dir.as_deref(), heap, slot.env_pad);
    if let Some(dir) = &library_dir {
        // The seed's own libraries, and proof from the loader that they are what loads.
        stage_libraries(&target.libraries, dir, &target.binary)?;
        // Asked with the environment before the padding, as it always was.
        let loader_env = &env[..env.len() - 1];
        for path in fixed.values() {
            wrong_library = libraries::wrong_library(path, &target.libraries, dir, loader_env)?;
            if wrong_library.is_some() {
                break;
            }
        }
    }
    let spec = ProcessSpec {
        argv,
        env,
        cwd: ctx.cwd.to_path_buf(),
        stdout: staging.join("stdout"),
        stderr: staging.join("stderr"),
        disable_aslr: ctx.aslr_disabled,
        timeout: ctx.settings.timeout,
    };
    Ok((spec, wrong_library))
}

/// The records of an execution that ended (not interrupted) with `outcome`: its measurements
/// when it exited 0 and its metric could be read, and its execution record.
fn outcome_records(
    ctx: &ExecutionContext,
    slot: &Slot,
    target: &Target,
    (spec, suite_before, counted): (&ProcessSpec, &super::suite::SourceBefore, Option<Counts>),
    outcome: &ProcessOutcome,
    (start_unix, host): (f64, ExecutionHost),
) -> OneExecution {
    let mut records = Vec::new();
    let mut problem = None;
    let mut shown_tail = String::new();
    let (counted, failed_step) = match counted {
        Some((cases, step)) => (Some(cases), step),
        None => (None, None),
    };
    // Under `cachegrind:SUITE` an execution is many processes: say which one failed.
    let stderr_tail = || match &failed_step {
        Some(step) => format!("{step}:\n{}", file_tail(&spec.stderr, TAIL_LINES)),
        None => file_tail(&spec.stderr, TAIL_LINES),
    };
    let (status, stored_tail) = match &outcome.end {
        ProcessEnd::Exited(code) if ctx.settings.exit_ok(*code) => match collect_metrics(
            ctx,
            (&spec.stdout, suite_before, counted),
            &ctx.cachegrind_dir,
            outcome,
        ) {
            Ok(values) => {
                for (name, iteration, warmup, value, unit) in values {
                    records.push(measurement(
                        target, slot, &name, iteration, warmup, value, unit,
                    ));
                }
                if let (MetricSpec::Cachegrind, Some(out)) = (ctx.metric, ctx.profiles_in) {
                    keep_profile(out, &ctx.cachegrind_dir, target);
                }
                (ExecutionStatus::Ok, None)
            }
            Err(e) => {
                // Metric failures show the output the metric was read from.
                shown_tail = match ctx.metric {
                    MetricSpec::Cachegrind => stderr_tail(),
                    _ => file_tail(&spec.stdout, TAIL_LINES),
                };
                problem = Some(format!("{e:#}"));
                (
                    ExecutionStatus::Metric,
                    Some(format!("{e:#}\n{shown_tail}")),
                )
            }
        },
        ProcessEnd::Exited(_) => (ExecutionStatus::Exit, Some(stderr_tail())),
        ProcessEnd::Signaled(_) => (ExecutionStatus::Signal, Some(stderr_tail())),
        ProcessEnd::TimedOut => (ExecutionStatus::Timeout, Some(stderr_tail())),
        ProcessEnd::SpawnFailed(msg) => (ExecutionStatus::Spawn, Some(msg.clone())),
        ProcessEnd::Interrupted(_) => (ExecutionStatus::Signal, None), // returned before
    };
    let heap_moved = ctx
        .heap
        .is_some_and(|h| !h.static_programs.contains(&target.program));
    records.push(Record::Execution(execution_record(
        target,
        slot,
        heap_moved,
        outcome,
        status,
        stored_tail,
        (start_unix, host),
    )));
    OneExecution {
        records,
        status,
        problem,
        tail: shown_tail,
        interrupted: None,
    }
}

/// One measured value of execution `slot` of `target`.
fn measurement(
    target: &Target,
    slot: &Slot,
    metric: &str,
    iteration: u32,
    warmup: bool,
    value: f64,
    unit: String,
) -> Record {
    Record::Measurement(Measurement {
        program: target.program.clone(),
        binary: target.binary.clone(),
        variant: target.variant.clone(),
        seed: target.seed,
        execution: slot.execution,
        iteration,
        warmup,
        metric: metric.to_string(),
        value,
        unit,
    })
}

/// The execution record closing execution `slot` of `target`.
fn execution_record(
    target: &Target,
    slot: &Slot,
    heap_moved: bool,
    outcome: &ProcessOutcome,
    status: ExecutionStatus,
    output_tail: Option<String>,
    (start_unix, host): (f64, ExecutionHost),
) -> Execution {
    Execution {
        program: target.program.clone(),
        binary: target.binary.clone(),
        variant: target.variant.clone(),
        seed: target.seed,
        execution: slot.execution,
        schedule_index: slot.schedule_index,
        env_pad: slot.env_pad,
        data_seed: slot.data.map(|d| d.data_seed),
        heap_offset: slot.data.filter(|_| heap_moved).map(|d| d.heap_offset),
        mmap_threshold: slot
            .data
            .filter(|_| heap_moved)
            .and_then(|d| d.mmap_threshold),
        start_unix,
        wall_ns: outcome.wall_ns,
        status,
        exit_code: match outcome.end {
            ProcessEnd::Exited(c) => Some(c),
            _ => None,
        },
        signal: match outcome.end {
            ProcessEnd::Signaled(s) => Some(s),
            ProcessEnd::TimedOut => Some(libc::SIGKILL),
            _ => None,
        },
        output_tail,
        machine: None,
        abandoned: outcome.abandoned,
        host: Some(host),
    }
}

/// (metric, iteration, warmup, value, unit) of a successful execution.
type Value = (String, u32, bool, f64, String);

/// Under `cachegrind:SUITE`: each case's estimated cycles, or why there are none.
type CaseCounts = Result<Vec<(String, f64)>>;

/// Under `cachegrind:SUITE`: each case's counts, and which of the execution's processes
/// failed, if one did.
type Counts = (CaseCounts, Option<String>);

/// Keeps the per-function profile of `target`'s execution that just ended under cachegrind
/// (its files in `cg_dir`) at [`profile_path`] in `out`, unless one is kept already: the
/// binary's first successful execution, which `explain` reads instead of profiling every
/// binary again (issue 49: the differential profile cost twice the run). A profile that
/// cannot be kept costs the execution nothing: explain then profiles that binary itself.
fn keep_profile(out: &Path, cg_dir: &Path, target: &Target) {
    let rel = profile_path(&target.program, target.variant.as_deref(), &target.binary);
    let kept = (|| -> Result<()> {
        let root = crate::files::confined::ExperimentDir::open(out)?;
        if !matches!(root.entry(&rel)?, crate::files::confined::Entry::Missing) {
            return Ok(());
        }
        let counts = EventCounts::of_dir(cg_dir)?;
        root.write_atomic(&rel, counts.to_text().as_bytes())
    })();
    if let Err(e) = kept {
        crate::diagnostic!(
            "layoutrand: warning: the profile of {} was not kept ({e:#}); explain will \
             profile it again",
            target.binary
        );
    }
}

/// The measurements of a successful execution.
fn collect_metrics(
    ctx: &ExecutionContext,
    (stdout, suite_before, counted): (&Path, &super::suite::SourceBefore, Option<CaseCounts>),
    cg_dir: &Path,
    outcome: &ProcessOutcome,
) -> Result<Vec<Value>> {
    let (metric, settings) = (ctx.metric, ctx.settings);
    let mut values: Vec<Value> = Vec::new();
    let process_values = [
        ("wall", outcome.wall_ns as f64, "ns"),
        ("cpu", outcome.cpu_ns as f64, "ns"),
        ("max_rss", outcome.max_rss_kib as f64, "KiB"),
    ];
    match metric {
        MetricSpec::Cachegrind => {
            // Under valgrind, time and memory are valgrind's, not the program's: leave them out.
            for (name, v) in read_cachegrind_totals(cg_dir)? {
                values.push((name, 0, false, v, "count".to_string()));
            }
        }
        MetricSpec::Reported(re, declared) => {
            let file = crate::files::confined::open_regular(stdout)?;
            let reported = extract_reported(re, std::io::BufReader::new(file))?;
            if reported.is_empty() {
                bail!(
                    "--metric regex:{} matched nothing in the program's output",
                    re.as_str()
                );
            }
            let what = format!("--metric regex:{} matched", re.as_str());
            check_iterations(&what, reported.len(), settings)?;
            for (i, (v, unit)) in reported.into_iter().enumerate() {
                let i = i as u32;
                let unit = declared.clone().unwrap_or(unit);
                values.push((
                    super::metric::REPORTED.into(),
                    i,
                    i < settings.warmup,
                    v,
                    unit,
                ));
            }
            for (name, v, unit) in process_values {
                values.push((name.into(), 0, false, v, unit.into()));
            }
        }
        MetricSpec::SuiteCounts(_) => {
            let cases = counted.context("an execution under cachegrind:SUITE counts cases")??;
            for (name, v) in cases {
                values.push((name, 0, false, v, "count".to_string()));
            }
        }
        MetricSpec::Suite(suite) => {
            let cases = super::suite::read_cases(suite, stdout, ctx.cwd, suite_before)?;
            let cases = super::suite::kept_cases(cases, ctx.cases, |c| &c.name)?;
            values.extend(case_values(cases, settings)?);
            for (name, v, unit) in process_values {
                values.push((name.into(), 0, false, v, unit.into()));
            }
        }
        MetricSpec::Wall | MetricSpec::Cpu => {
            for (name, v, unit) in process_values {
                values.push((name.into(), 0, false, v, unit.into()));
            }
        }
    }
    // JSON has no NaN or infinity (they would be stored as null and break every reader), and
    // no statistic means anything with them: the execution is a metric failure instead.
    if let Some((name, _, _, v, _)) = values.iter().find(|v| !v.3.is_finite()) {
        bail!("the {name} value is not finite ({v}): only finite numbers can be measurements");
    }
    Ok(values)
}
/// The values of a suite's `cases`, each case's iterations checked against `--iterations`
/// and its first `--warmup` flagged.
fn case_values(cases: Vec<super::suite::Case>, settings: &RunSettings) -> Result<Vec<Value>> {
    let mut values = Vec::new();
    for case in cases {
        let what = format!("case {:?} reported a value", case.name);
        check_iterations(&what, case.values.len(), settings).map_err(|e| {
            anyhow::anyhow!(
                "{e:#}: leave --iterations out to take the repetitions the suite reports, or \
                 make the suite repeat each case that often (Google Benchmark: \
                 --benchmark_repetitions=N)"
            )
        })?;
        for (i, v) in case.values.into_iter().enumerate() {
            let i = i as u32;
            values.push((
                case.name.clone(),
                i,
                i < settings.warmup,
                v,
                case.unit.clone(),
            ));
        }
    }
    Ok(values)
}

/// Refuses `count` values of one series in an execution (`what` says whose, "… matched"
/// or "… reported a value") other than `--iterations`, or none beyond `--warmup`.
fn check_iterations(what: &str, count: usize, settings: &RunSettings) -> Result<()> {
    if let Some(want) = settings.iterations {
        if count != want as usize {
            bail!("{what} {count} times but --iterations is {want}");
        }
    }
    if count <= settings.warmup as usize {
        bail!(
            "{what} {count} times, all of them within --warmup {}",
            settings.warmup
        );
    }
    Ok(())
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_differs_between_executions_only_by_the_padding() {
        let base = vec![("PATH".to_string(), "/bin".to_string())];
        let dir = Path::new("/o/.run/lib");
        let small = execution_environment(&base, Some(dir), None, 16);
        let large = execution_environment(&base, Some(dir), None, 4080);
        let bytes = |env: &[(String, String)]| -> usize {
            env.iter().map(|(k, v)| k.len() + v.len() + 2).sum()
        };
        assert_eq!(bytes(&large) - bytes(&small), 4080 - 16);
        // The fixed variables, then the loader's path, then the padding last.
        let names: Vec<&str> = small.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["PATH", LIBRARY_PATH_VARIABLE, PAD_VARIABLE]);
        assert_eq!(small[2].1.len(), 16);
        let without = execution_environment(&base, None, None, 0);
        assert_eq!(
            without,
            [base[0].clone(), (PAD_VARIABLE.into(), String::new())]
        );
    }

    #[test]
    fn the_heap_offset_changes_the_environment_by_no_byte() {
        let base = vec![("PATH".to_string(), "/bin".to_string())];
        let lib = Path::new("/home/u/.cache/layoutrand/heap-offset-0/libheapoffset.so");
        let bytes = |env: &[(String, String)]| -> usize {
            env.iter().map(|(k, v)| k.len() + v.len() + 2).sum()
        };
        let layout = |heap_offset, mmap_threshold| DataLayout {
            data_seed: 1,
            env_pad: 80,
            heap_offset,
            mmap_threshold,
        };
        let (near, far) = (layout(0, None), layout(4080, None));
        let near = execution_environment(&base, None, Some((lib, &near)), 80);
        let far = execution_environment(&base, None, Some((lib, &far)), 80);
        assert_eq!(bytes(&near), bytes(&far));
        assert_ne!(near, far);
        let names: Vec<&str> = near.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            ["PATH", PRELOAD_VARIABLE, HEAP_OFFSET_VARIABLE, PAD_VARIABLE]
        );
        assert_eq!(far[2].1, "00004080");
        // Both mmap threshold levels, with the smallest and largest offsets: one size.
        let [low, high] = crate::run::data_layout::MMAP_THRESHOLDS;
        let sizes: Vec<usize> = [layout(0, Some(low)), layout(4080, Some(high))]
            .iter()
            .map(|d| bytes(&execution_environment(&base, None, Some((lib, d)), 80)))
            .collect();
        assert_eq!(sizes[0], sizes[1]);
        let varied = execution_environment(&base, None, Some((lib, &layout(16, Some(high)))), 80);
        assert_eq!(
            varied[3],
            (MMAP_THRESHOLD_VARIABLE.into(), "33554432".into())
        );
        assert_eq!(varied.last().unwrap().0, PAD_VARIABLE);
    }
}
