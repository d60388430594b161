//! The run as a whole: settings, pre-flight checks, header, then the schedule walked one
//! execution at a time, each committed to the store before the next starts; progress and
//! budget; the summary at the end.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::cpus::assign_cpus;
use super::environment::{clean_environment, probe_aslr_off, worker_staging_dir, STAGING_DIR};
use super::execution::{unix_now, ExecutionContext};
use super::host::{current_load, Finish};
use super::preflight::check_writable;
use super::prepare::{prepare_run, PreparedRun};
use super::reaper::{self, Interrupted};
use super::schedule::Slot;
use super::settings::RunRequest;
use super::summary::{BinarySummary, Summarizer};
use crate::files::manifest::Manifest;
use crate::files::results::Header;
use crate::files::store::{
    scan_results, ExecutionStatus, Extension, Record, StoreWriter, RESULTS_FILE,
};

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

/// The working directory and fixed environment of every benchmark process: the current
/// directory and [`clean_environment`] for a new run; for a resumed run those its header
/// recorded, wherever `run --resume` is started from. Otherwise a resume from another
/// directory would run the command against other (or missing) relative paths, and with
/// another `PWD`, i.e. another environment size and stack placement, than the executions
/// already stored.
fn working_directory(previous: Option<&Header>) -> Result<(PathBuf, Vec<(String, String)>)> {
    let here = std::env::current_dir().context("cannot read the current directory")?;
    let Some(recorded) = previous.and_then(|h| h.cwd.as_deref()) else {
        let env = clean_environment(&here);
        return Ok((here, env));
    };
    let cwd = PathBuf::from(recorded);
    if !cwd.is_dir() {
        bail!(
            "the run being resumed ran its command in {recorded}, which no longer exists: \
             recreate it (its executions must all see the same files)"
        );
    }
    if cwd != here {
        crate::diagnostic!("layoutrand: resuming in the run's working directory {recorded}");
    }
    let header = previous.expect("a recorded cwd comes from a header");
    let env = if header.environment.is_empty() {
        clean_environment(&cwd)
    } else {
        header.environment_pairs()
    };
    Ok((cwd, env))
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
        // Only the execution records matter here: stream past the measurements.
        let r = scan_results(out, |_, _| {})?;
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
    let prepared = prepare_run(
        req,
        previous.as_ref().and_then(|r| r.header.as_ref()),
        &manifest,
        out,
    )?;
    let added_binaries = match previous.as_ref().filter(|r| r.header.is_some()) {
        Some(r) => binaries_added_since(&r.planned_binaries(), &prepared.binary_labels)?,
        None => Vec::new(),
    };
    let PreparedRun {
        settings,
        metric,
        template,
        ..
    } = &prepared;
    let jobs = req
        .jobs
        .unwrap_or_else(|| super::parallel::default_jobs(metric));
    super::parallel::check_jobs(metric, &settings.metric, jobs, req.force_parallel)?;
    let worker_cpus = assign_cpus(req.cpus.as_deref(), jobs)?;
    let invocation_started = unix_now();
    let load_before = current_load();

    // Everything that can fail before the first execution fails here.
    let staging = out.join(STAGING_DIR);
    check_writable(out, &staging)?;
    for worker in 1..jobs {
        let dir = worker_staging_dir(out, worker);
        check_writable(out, &dir)?;
    }
    let aslr_disabled = match probe_aslr_off() {
        Ok(()) => true,
        Err(why) => {
            let w = format!(
                "ASLR stays ON for the benchmarks ({why}): stack and heap addresses change on every run and drown the environment padding's effect; recorded as aslr_disabled=false"
            );
            crate::diagnostic!("layoutrand: warning: {w}");
            warnings.push(w);
            false
        }
    };
    let (cwd, base_env) = working_directory(previous.as_ref().and_then(|r| r.header.as_ref()))?;

    let mut writer = StoreWriter::open(out)?;
    reaper::install()?;
    let header = match previous.as_ref().and_then(|r| r.header.clone()) {
        Some(h) => h,
        None => {
            let h = prepared.header(&manifest, aslr_disabled, &cwd, &base_env);
            writer.append(&[Record::Header(h.clone())])?;
            h
        }
    };
    if !added_binaries.is_empty() {
        crate::diagnostic!(
            "layoutrand: extending the run with {} new binaries from the manifest ({})",
            added_binaries.len(),
            added_binaries.join(", ")
        );
        writer.append(&[Record::Extension(Extension {
            binaries: added_binaries.clone(),
            added_unix: unix_now(),
        })])?;
    }
    if header.aslr_disabled != aslr_disabled {
        let w = format!(
            "the interrupted run had aslr_disabled={} but now it is {}: executions of the two parts are not comparable",
            header.aslr_disabled, aslr_disabled
        );
        crate::diagnostic!("layoutrand: warning: {w}");
        warnings.push(w);
    }

    let done: HashSet<crate::files::results::ExecutionKey> = previous
        .as_ref()
        .map(|r| r.executions.iter().map(|e| e.key()).collect())
        .unwrap_or_default();
    let mut any_metric_ok = previous
        .as_ref()
        .is_some_and(|r| r.executions.iter().any(|e| e.status == ExecutionStatus::Ok));

    let schedule = prepared.schedule();
    let target_of = |s: &Slot| prepared.target(s);
    let todo: Vec<&Slot> = schedule
        .iter()
        .filter(|s| {
            let t = target_of(s);
            !done.contains(&t.key(s.execution))
        })
        .collect();
    let skipped = schedule.len() - todo.len();

    let bar = crate::progress::Progress::new(
        req.progress,
        "executions",
        schedule.len() as u64,
        skipped as u64,
        "{bar:30} {pos}/{len} executions  {elapsed_precise} elapsed, ETA {eta}",
    );
    let started = Instant::now();
    let contexts: Vec<ExecutionContext> = (0..jobs)
        .map(|worker| {
            let staging = worker_staging_dir(out, worker);
            ExecutionContext {
                template,
                metric,
                settings,
                out_dir: out,
                cachegrind_dir: staging.join("cachegrind"),
                staging,
                cwd: &cwd,
                base_env: &base_env,
                aslr_disabled,
            }
        })
        .collect();
    let interrupted = |executed: usize, signal: i32| Interrupted {
        signal,
        kept: skipped + executed,
        run_now: executed,
        out: req.out_dir.clone(),
    };
    let may_start = || {
        reaper::interrupted().is_none()
            && req.budget.is_none_or(|budget| started.elapsed() < budget)
    };
    let mut committed = 0;
    let walked = super::parallel::run_slots(
        &contexts,
        &worker_cpus,
        &todo,
        &target_of,
        &may_start,
        |slot, records| {
            if let Some(signal) = records.interrupted {
                return Err(interrupted(committed, signal).into());
            }
            writer.append(&records.records)?;
            committed += 1;
            bar.inc();
            match records.status {
                ExecutionStatus::Ok => any_metric_ok = true,
                ExecutionStatus::Metric if !any_metric_ok => {
                    let target = target_of(slot);
                    bail!(
                        "{} (execution {} of {} {}); the output ends with:\n{}",
                        records.problem.unwrap_or_default(),
                        slot.execution,
                        target.program,
                        target.binary,
                        records.tail
                    );
                }
                _ => {}
            }
            Ok(())
        },
    );
    let executed = match walked {
        Ok(n) => n,
        Err(e) => {
            bar.abandon();
            return Err(e);
        }
    };
    if let Some(signal) = reaper::interrupted() {
        bar.abandon();
        return Err(interrupted(executed, signal).into());
    }
    // An invocation that ran nothing (a complete run resumed) leaves the store untouched.
    if executed > 0 {
        writer.append(&[Record::Finish(Finish {
            started_unix: invocation_started,
            ended_unix: unix_now(),
            load_before,
            load_after: current_load(),
            jobs: jobs as u32,
            cpus: req.cpus.clone(),
            executed: executed as u64,
        })])?;
    }
    bar.finish();
    let mut summary = Summarizer::new(super::metric::primary_name_of_spec(&header.metric));
    scan_results(out, |e, mine| summary.add(e, &mine))?;
    let summary = summary.finish();
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

/// The binaries of the manifest that a resumed run has not planned yet. The manifest may only
/// have grown by seeds appended at the end (`layoutrand build --extend`); anything else means
/// the binaries were rebuilt and the old measurements describe other files.
fn binaries_added_since(planned: &[String], manifest: &[String]) -> Result<Vec<String>> {
    if manifest.starts_with(planned) {
        return Ok(manifest[planned.len()..].to_vec());
    }
    bail!(
        "--resume: the manifest's binaries ({}) differ from the interrupted run's ({}): the binaries were rebuilt; start a new run in another --out",
        manifest.join(","),
        planned.join(",")
    )
}

#[cfg(test)]
mod extension_tests {
    use super::binaries_added_since;

    fn labels(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn appended_seeds_extend_a_run_and_anything_else_is_refused() {
        let planned = labels(&["baseline", "seed-1", "seed-2"]);
        assert!(binaries_added_since(&planned, &planned).unwrap().is_empty());
        let grown = labels(&["baseline", "seed-1", "seed-2", "seed-3", "seed-4"]);
        assert_eq!(
            binaries_added_since(&planned, &grown).unwrap(),
            labels(&["seed-3", "seed-4"])
        );
        let rebuilt = labels(&["baseline", "seed-1", "seed-7"]);
        let err = binaries_added_since(&planned, &rebuilt)
            .unwrap_err()
            .to_string();
        assert!(err.contains("rebuilt"), "{err}");
        let shrunk = labels(&["baseline", "seed-1"]);
        assert!(binaries_added_since(&planned, &shrunk).is_err());
    }
}
