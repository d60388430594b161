//! The executor: walks the schedule, runs each execution in its fixed surroundings, and
//! commits its records to the store before starting the next.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::command::CommandTemplate;
use super::environment::{
    clean_environment, fixed_binary_path, padding_value, probe_aslr_off, stage_binary,
    PAD_VARIABLE, STAGING_DIR,
};
use super::host::detect_host;
use super::metric::{cachegrind_argv, extract_reported, read_cachegrind_totals, MetricSpec};
use super::process::{file_tail, run_process, ProcessEnd, ProcessOutcome, ProcessSpec};
use super::schedule::{build_schedule, Slot};
use super::settings::{resolve, RunRequest, RunSettings};
use super::store::{
    read_results, Execution, ExecutionStatus, Header, Measurement, Record, StoreWriter,
    RESULTS_FILE, RESULTS_SCHEMA,
};
use super::summary::{summarize, BinarySummary};
use crate::build::manifest::{Manifest, VariantStatus};

/// Free space below which the output directory counts as full.
const MIN_FREE_BYTES: u64 = 1 << 20;
/// Lines of output kept in failure records and error messages.
const TAIL_LINES: usize = 20;

/// What a finished (or budget-stopped) run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Executions run by this invocation.
    pub executed: usize,
    /// Executions found already committed (resume) and skipped.
    pub skipped: usize,
    /// Executions of the schedule not run because the budget ran out.
    pub remaining: usize,
    /// Whether ASLR was off for the benchmark processes.
    pub aslr_disabled: bool,
    /// The schedule seed used.
    pub schedule_seed: u64,
    /// Per binary: n, mean, CV, failures, over the whole store.
    pub summary: Vec<BinarySummary>,
    /// Warnings for the user (ASLR, store repairs).
    pub warnings: Vec<String>,
}

/// One binary under test of one variant: program name and variant label.
struct Target {
    program: String,
    variant: String,
    seed: Option<u64>,
    /// Source path of every binary of this variant, by program name.
    binaries: BTreeMap<String, PathBuf>,
}

/// Runs (or resumes) the experiment described by `req`.
pub fn run_experiment(req: &RunRequest) -> Result<RunReport> {
    let manifest = Manifest::load(&req.out_dir)?;
    // Absolute, so the fixed binary path means the same wherever the command `cd`s to.
    let out_abs = req
        .out_dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", req.out_dir.display()))?;
    let out = &out_abs;
    let mut warnings = Vec::new();

    let store_path = out.join(RESULTS_FILE);
    let previous = if store_path.exists() {
        let r = read_results(out)?;
        match (&r.header, req.resume) {
            (Some(_), false) => bail!(
                "{} already holds results: pass --resume to continue that run, or choose another --out",
                store_path.display()
            ),
            (None, _) if !r.executions.is_empty() => {
                bail!("{} has records but no header", store_path.display())
            }
            _ => {}
        }
        warnings.extend(r.warnings.iter().cloned());
        r.header.is_some().then_some(r)
    } else {
        None
    };
    let settings = resolve(req, previous.as_ref().and_then(|r| r.header.as_ref()))?;
    let metric = MetricSpec::parse(&settings.metric)?;
    if !metric.has_iterations() && (settings.iterations.is_some() || settings.warmup > 0) {
        bail!(
            "--iterations and --warmup need a program-reported metric (--metric regex:PATTERN); --metric {} gives one value per execution",
            settings.metric
        );
    }
    if settings.executions == 0 {
        bail!("--executions must be at least 1");
    }
    if let (Some(i), w) = (settings.iterations, settings.warmup) {
        if w >= i {
            bail!("--warmup {w} leaves none of the {i} iterations to measure");
        }
    }
    let template = CommandTemplate::parse(&settings.command)?;
    let (programs, targets) = plan_targets(&manifest, out, &template, &settings)?;
    let variant_labels: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for t in &targets {
            if !v.contains(&t.variant) {
                v.push(t.variant.clone());
            }
        }
        v
    };
    if let Some(h) = previous.as_ref().and_then(|r| r.header.as_ref()) {
        if h.variants != variant_labels {
            bail!(
                "--resume: the manifest's variants ({}) differ from the interrupted run's ({}): the binaries were rebuilt; start a new run in another --out",
                variant_labels.join(","),
                h.variants.join(",")
            );
        }
    }
    if metric_needs_valgrind(&metric) && which("valgrind").is_none() {
        bail!("--metric cachegrind needs valgrind on PATH (apt-get install valgrind)");
    }

    // Everything that can fail before the first execution fails here.
    let staging = out.join(STAGING_DIR);
    check_writable(out, &staging)?;
    let aslr_disabled = match probe_aslr_off() {
        Ok(()) => true,
        Err(why) => {
            let w = format!(
                "ASLR stays ON for the benchmarks ({why}): stack and heap addresses change on every run and drown the environment padding's effect; recorded as aslr_disabled=false"
            );
            eprintln!("layoutrand: warning: {w}");
            warnings.push(w);
            false
        }
    };
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let base_env = clean_environment(&cwd);

    let mut writer = StoreWriter::open(out)?;
    let header = match previous.as_ref().and_then(|r| r.header.clone()) {
        Some(h) => h,
        None => {
            let h = Header {
                schema: RESULTS_SCHEMA,
                tool_version: env!("CARGO_PKG_VERSION").to_string(),
                command: settings.command.clone(),
                programs: programs.clone(),
                variants: variant_labels.clone(),
                metric: settings.metric.clone(),
                executions: settings.executions,
                iterations: match (&metric, settings.iterations) {
                    (MetricSpec::Reported(_), Some(i)) => i,
                    (MetricSpec::Reported(_), None) => 0,
                    _ => 1,
                },
                warmup: settings.warmup,
                env_pad_max: settings.env_pad_max,
                schedule_seed: settings.schedule_seed,
                timeout_seconds: settings.timeout.map(|t| t.as_secs_f64()),
                aslr_disabled,
                host: detect_host(),
                started_unix: unix_now(),
                toolchain: manifest.toolchain.clone(),
                cwd: Some(cwd.display().to_string()),
                environment: base_env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                pad_variable: Some(PAD_VARIABLE.to_string()),
            };
            writer.append(&[Record::Header(h.clone())])?;
            h
        }
    };
    if header.aslr_disabled != aslr_disabled {
        let w = format!(
            "the interrupted run had aslr_disabled={} but now it is {}: executions of the two parts are not comparable",
            header.aslr_disabled, aslr_disabled
        );
        eprintln!("layoutrand: warning: {w}");
        warnings.push(w);
    }

    let done: HashSet<(String, String, u32)> = previous
        .as_ref()
        .map(|r| {
            r.executions
                .iter()
                .map(|e| (e.program.clone(), e.variant.clone(), e.execution))
                .collect()
        })
        .unwrap_or_default();
    let mut any_metric_ok = previous
        .as_ref()
        .is_some_and(|r| r.executions.iter().any(|e| e.status == ExecutionStatus::Ok));

    let schedule = build_schedule(
        programs.len(),
        variant_labels.len(),
        settings.executions,
        settings.schedule_seed,
        settings.env_pad_max,
    );
    let target_of = |s: &Slot| &targets[s.program * variant_labels.len() + s.variant];
    let todo: Vec<&Slot> = schedule
        .iter()
        .filter(|s| {
            let t = target_of(s);
            !done.contains(&(t.program.clone(), t.variant.clone(), s.execution))
        })
        .collect();
    let skipped = schedule.len() - todo.len();

    let bar = progress_bar(req.progress, schedule.len() as u64, skipped as u64);
    let started = Instant::now();
    let mut executed = 0;
    let cg_dir = staging.join("cachegrind");
    for slot in &todo {
        if let Some(budget) = req.budget {
            if started.elapsed() >= budget {
                break;
            }
        }
        let target = target_of(slot);
        let records = run_one(
            slot,
            target,
            &template,
            &metric,
            &settings,
            &staging,
            &cg_dir,
            &cwd,
            &base_env,
            aslr_disabled,
        )?;
        writer.append(&records.records)?;
        executed += 1;
        bar.inc(1);
        match records.status {
            ExecutionStatus::Ok => any_metric_ok = true,
            ExecutionStatus::Metric if !any_metric_ok => {
                bar.abandon();
                bail!(
                    "{} (execution {} of {} {}); the output ends with:\n{}",
                    records.problem.unwrap_or_default(),
                    slot.execution,
                    target.program,
                    target.variant,
                    records.tail
                );
            }
            _ => {}
        }
    }
    bar.finish_and_clear();
    let final_results = read_results(out)?;
    let summary = summarize(
        &final_results,
        super::metric::primary_name_of_spec(&header.metric),
    );
    Ok(RunReport {
        executed,
        skipped,
        remaining: todo.len() - executed,
        aslr_disabled,
        schedule_seed: header.schedule_seed,
        summary,
        warnings,
    })
}

fn metric_needs_valgrind(m: &MetricSpec) -> bool {
    matches!(m, MetricSpec::Cachegrind)
}

/// The programs under test and one target per (program, variant), program-major.
fn plan_targets(
    manifest: &Manifest,
    out: &Path,
    template: &CommandTemplate,
    settings: &RunSettings,
) -> Result<(Vec<String>, Vec<Target>)> {
    let all: Vec<String> = manifest
        .baseline
        .binaries
        .iter()
        .map(|b| b.name.clone())
        .collect();
    let programs: Vec<String> = if template.uses_bin {
        match &settings.programs {
            Some(p) => p.clone(),
            None => all.clone(),
        }
    } else {
        let label = template.named.join("+");
        if let Some(p) = &settings.programs {
            if p != &vec![label.clone()] {
                bail!("--programs picks what {{bin}} stands for, but the command has only {{bin:NAME}} placeholders");
            }
        }
        vec![label]
    };
    if programs.is_empty() {
        bail!("the manifest in {} lists no programs", out.display());
    }
    let needed: Vec<String> = if template.uses_bin {
        let mut n = programs.clone();
        n.extend(template.named.iter().cloned());
        n
    } else {
        template.named.clone()
    };
    for name in &needed {
        if !all.contains(name) {
            bail!(
                "no program named {name:?} in {}/manifest.json (it has: {})",
                out.display(),
                all.join(", ")
            );
        }
    }
    let mut targets = Vec::new();
    for program in &programs {
        for variant in manifest.variants() {
            if variant.status != VariantStatus::Ok {
                continue;
            }
            let mut binaries = BTreeMap::new();
            for name in &needed {
                let b = variant
                    .binaries
                    .iter()
                    .find(|b| &b.name == name)
                    .with_context(|| {
                        format!(
                            "{}/manifest.json: variant {} has no binary {name:?}",
                            out.display(),
                            variant.label()
                        )
                    })?;
                let path = out.join(&b.path);
                if !path.is_file() {
                    bail!(
                        "binary {} of {} is missing: {} (rebuild with `layoutrand build`)",
                        name,
                        variant.label(),
                        path.display()
                    );
                }
                binaries.insert(name.clone(), path);
            }
            targets.push(Target {
                program: program.clone(),
                variant: variant.label(),
                seed: variant.seed,
                binaries,
            });
        }
    }
    if targets.is_empty() {
        bail!(
            "{}/manifest.json has no successfully built variant",
            out.display()
        );
    }
    Ok((programs, targets))
}

/// The records of one execution and what the caller needs to know about it.
struct OneExecution {
    records: Vec<Record>,
    status: ExecutionStatus,
    problem: Option<String>,
    tail: String,
}

#[allow(clippy::too_many_arguments)]
fn run_one(
    slot: &Slot,
    target: &Target,
    template: &CommandTemplate,
    metric: &MetricSpec,
    settings: &RunSettings,
    staging: &Path,
    cg_dir: &Path,
    cwd: &Path,
    base_env: &[(String, String)],
    aslr_disabled: bool,
) -> Result<OneExecution> {
    let out_dir = staging.parent().unwrap_or(staging);
    let mut fixed = BTreeMap::new();
    for (name, source) in &target.binaries {
        let path = fixed_binary_path(out_dir, name);
        stage_binary(source, &path)?;
        fixed.insert(name.clone(), path);
    }
    let bin = template.uses_bin.then(|| &fixed[&target.program]);
    let mut argv = template.expand(bin, &fixed, settings.iterations);
    if let MetricSpec::Cachegrind = metric {
        let _ = std::fs::remove_dir_all(cg_dir);
        std::fs::create_dir_all(cg_dir)
            .with_context(|| format!("cannot create {}", cg_dir.display()))?;
        argv = cachegrind_argv(cg_dir, &argv);
    }
    let mut env = base_env.to_vec();
    env.push((PAD_VARIABLE.to_string(), padding_value(slot.env_pad)));
    let spec = ProcessSpec {
        argv,
        env,
        cwd: cwd.to_path_buf(),
        stdout: staging.join("stdout"),
        stderr: staging.join("stderr"),
        disable_aslr: aslr_disabled,
        timeout: settings.timeout,
    };
    let start_unix = unix_now();
    let outcome = run_process(&spec);
    let measurement = |metric: &str, iteration: u32, warmup: bool, value: f64, unit: &str| {
        Record::Measurement(Measurement {
            program: target.program.clone(),
            variant: target.variant.clone(),
            seed: target.seed,
            execution: slot.execution,
            iteration,
            warmup,
            metric: metric.to_string(),
            value,
            unit: unit.to_string(),
        })
    };
    let mut records = Vec::new();
    let mut problem = None;
    let stderr_tail = || file_tail(&spec.stderr, TAIL_LINES);
    // Metric failures show the output the metric was read from.
    let metric_source_tail = || match metric {
        MetricSpec::Cachegrind => stderr_tail(),
        _ => file_tail(&spec.stdout, TAIL_LINES),
    };
    let mut shown_tail = String::new();
    let (status, stored_tail) = match &outcome.end {
        ProcessEnd::Exited(0) => {
            match collect_metrics(metric, settings, &spec.stdout, cg_dir, &outcome) {
                Ok(values) => {
                    for (name, iteration, warmup, value, unit) in values {
                        records.push(measurement(&name, iteration, warmup, value, &unit));
                    }
                    (ExecutionStatus::Ok, None)
                }
                Err(e) => {
                    shown_tail = metric_source_tail();
                    problem = Some(format!("{e:#}"));
                    (
                        ExecutionStatus::Metric,
                        Some(format!("{e:#}\n{shown_tail}")),
                    )
                }
            }
        }
        ProcessEnd::Exited(_) => (ExecutionStatus::Exit, Some(stderr_tail())),
        ProcessEnd::Signaled(_) => (ExecutionStatus::Signal, Some(stderr_tail())),
        ProcessEnd::TimedOut => (ExecutionStatus::Timeout, Some(stderr_tail())),
        ProcessEnd::SpawnFailed(msg) => (ExecutionStatus::Spawn, Some(msg.clone())),
    };
    records.push(Record::Execution(Execution {
        program: target.program.clone(),
        variant: target.variant.clone(),
        seed: target.seed,
        execution: slot.execution,
        schedule_index: slot.schedule_index,
        env_pad: slot.env_pad,
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
        output_tail: stored_tail,
    }));
    Ok(OneExecution {
        records,
        status,
        problem,
        tail: shown_tail,
    })
}

/// (metric, iteration, warmup, value, unit) of a successful execution.
type Value = (String, u32, bool, f64, String);

fn collect_metrics(
    metric: &MetricSpec,
    settings: &RunSettings,
    stdout: &Path,
    cg_dir: &Path,
    outcome: &ProcessOutcome,
) -> Result<Vec<Value>> {
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
        MetricSpec::Reported(re) => {
            let bytes = std::fs::read(stdout)
                .with_context(|| format!("cannot read {}", stdout.display()))?;
            let text = String::from_utf8_lossy(&bytes);
            let reported = extract_reported(re, &text)?;
            if reported.is_empty() {
                bail!(
                    "--metric regex:{} matched nothing in the program's output",
                    re.as_str()
                );
            }
            if let Some(want) = settings.iterations {
                if reported.len() != want as usize {
                    bail!(
                        "--metric regex:{} matched {} times but --iterations is {want}",
                        re.as_str(),
                        reported.len()
                    );
                }
            }
            if reported.len() <= settings.warmup as usize {
                bail!(
                    "--metric regex:{} matched {} times, all of them within --warmup {}",
                    re.as_str(),
                    reported.len(),
                    settings.warmup
                );
            }
            for (i, (v, unit)) in reported.into_iter().enumerate() {
                let i = i as u32;
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
        MetricSpec::Wall | MetricSpec::Cpu => {
            for (name, v, unit) in process_values {
                values.push((name.into(), 0, false, v, unit.into()));
            }
        }
    }
    Ok(values)
}

/// Refuses an output directory we cannot write to or whose filesystem is (nearly) full,
/// before any execution runs.
fn check_writable(out: &Path, staging: &Path) -> Result<()> {
    std::fs::create_dir_all(staging).with_context(|| {
        format!(
            "cannot create {} (is {} writable?)",
            staging.display(),
            out.display()
        )
    })?;
    let probe = staging.join("write-probe");
    std::fs::write(&probe, vec![0u8; 64 * 1024])
        .and_then(|_| std::fs::File::open(&probe)?.sync_all())
        .with_context(|| format!("cannot write to {} (is the disk full?)", out.display()))?;
    let _ = std::fs::remove_file(&probe);
    if let Ok(st) = nix::sys::statvfs::statvfs(out) {
        let free = st.blocks_available() * st.fragment_size();
        if free < MIN_FREE_BYTES {
            bail!(
                "{} is nearly full ({free} bytes free): the results could not be stored",
                out.display()
            );
        }
    }
    Ok(())
}

fn progress_bar(enabled: bool, total: u64, done: u64) -> indicatif::ProgressBar {
    if !enabled {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:30} {pos}/{len} executions  {elapsed_precise} elapsed, ETA {eta}",
    ) {
        bar.set_style(style);
    }
    bar.set_position(done);
    bar.reset_eta();
    bar
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}
