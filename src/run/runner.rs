//! The run as a whole: settings, pre-flight checks, header, then the schedule walked one
//! execution at a time, each committed to the store before the next starts; progress and
//! budget; the summary at the end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::cpus::assign_cpus;
use super::environment::{clean_environment, probe_aslr_off, worker_staging_dir, STAGING_DIR};
use super::execution::{unix_now, ExecutionContext, Executor, OneExecution, QuietHost};
use super::host::{current_load, Finish, Load};
use super::preflight::check_writable;
use super::prepare::{prepare_run, PreparedRun};
use super::reaper;
use super::schedule::Slot;
use super::settings::RunRequest;
use super::targets::Target;
use crate::files::manifest::Manifest;
use crate::files::results::Header;
use crate::files::store::keys::KeyTable;
use crate::files::store::{
    scan_commits, ExecutionStatus, Extension, Record, Results, StoreWriter, RESULTS_FILE,
};
use crate::files::trust::Verified;
use crate::signals::{self, Interrupted, Kept};

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
    /// The metric the end-of-run summary (`analysis::run_summary`) shows: the primary one
    /// (what `--metric` measured), or a suite's process wall time.
    pub primary_metric: String,
    /// Whether the run measured a suite (`--metric gbench`, …): the summary then shows the
    /// process's wall time, the cases being the report's.
    pub suite: bool,
    /// Whether the suite's cases were counted under cachegrind (`cachegrind:SUITE`): no
    /// time of the program's is then stored at all.
    pub counted: bool,
    /// Warnings for the user (ASLR, store repairs).
    pub warnings: Vec<String>,
}

/// The working directory and fixed environment of every benchmark process: the current
/// directory and [`clean_environment`] for a new run; for a resumed run those its header
/// recorded, wherever `run --resume` is started from. Otherwise a resume from another
/// directory would run the command against other (or missing) relative paths, and with
/// another `PWD`, i.e. another environment size and stack placement, than the executions
/// already stored.
fn working_directory(
    previous: Option<&Verified<Header>>,
) -> Result<(PathBuf, Vec<(String, String)>)> {
    let previous = previous.map(Verified::get);
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
        let pairs = header.environment_pairs();
        crate::run::environment::check_recorded_environment(&pairs)?;
        pairs
    };
    Ok((cwd, env))
}

/// Runs (or resumes) the experiment described by `req`: the run is opened (plan and the
/// store's previous executions), started (checks, header), resumed (only the executions the
/// store lacks), walked one execution at a time, and finished (summary).
pub fn run_experiment(req: &RunRequest) -> Result<RunReport> {
    let mut opened = open_run(req)?;
    let mut started = start_run(req, &mut opened)?;
    let prepared = &opened.prepared;
    let out = opened.out.as_path();
    let schedule = prepared.schedule();
    let target_of = |s: &Slot| prepared.target(s);
    let mut resume = resume_from(opened.previous.as_ref(), &schedule, &target_of);
    let bar = crate::progress::Progress::new(
        req.progress,
        "executions",
        schedule.len() as u64,
        resume.skipped as u64,
        "{bar:30} {pos}/{len} executions  {elapsed_precise} elapsed, ETA {eta}",
    );
    let clock = Instant::now();
    let contexts: Vec<ExecutionContext> = (0..started.jobs)
        .map(|worker| {
            let staging = worker_staging_dir(out, worker);
            ExecutionContext {
                template: &prepared.template,
                metric: &prepared.metric,
                settings: &prepared.settings,
                cachegrind_dir: staging.join("cachegrind"),
                profiles_in: Some(out),
                staging,
                cwd: &started.cwd,
                cases: prepared.cases.as_ref(),
                base_env: &started.base_env,
                aslr_disabled: started.aslr_disabled,
                heap: started.heap.as_ref(),
                quiet: req.wait_for_quiet.map(|longest| QuietHost {
                    longest,
                    jobs: started.jobs as u32,
                }),
            }
        })
        .collect();
    let may_start =
        || signals::caught().is_none() && req.budget.is_none_or(|budget| clock.elapsed() < budget);
    let walk = Walk {
        executors: &contexts,
        cpus: &started.worker_cpus,
        target_of: &target_of,
        may_start: &may_start,
        out: &req.out_dir,
    };
    let walked = walk_schedule(&walk, &mut started.writer, &mut resume, &bar);
    let executed = match walked.and_then(|n| interruption(&resume, n, &req.out_dir).map(|()| n)) {
        Ok(n) => n,
        Err(e) => {
            bar.abandon();
            return Err(e);
        }
    };
    bar.finish();
    finish_run(req, &mut started, executed)?;
    Ok(RunReport {
        executed,
        skipped: resume.skipped,
        remaining: resume.todo.len() - executed,
        aslr_disabled: started.aslr_disabled,
        schedule_seed: started.header.schedule_seed,
        primary_metric: super::metric::summary_name_of_spec(&started.header.metric).to_string(),
        suite: super::metric::is_suite_spec(&started.header.metric),
        counted: super::metric::is_cachegrind_spec(&started.header.metric),
        warnings: opened.warnings,
    })
}

/// What is known before anything runs: the output directory (absolute, so the fixed binary
/// path means the same wherever the command `cd`s to), the store's previous contents (a run
/// being resumed, always with a header), the plan, and the binaries a resume adds.
struct OpenedRun {
    out: PathBuf,
    manifest: Manifest,
    previous: Option<PreviousRun>,
    /// The header of the run being resumed, from the store's verified first line: the
    /// command, working directory and environment it records are run only through it.
    verified: Option<Verified<Header>>,
    prepared: PreparedRun,
    added_binaries: Vec<String>,
    warnings: Vec<String>,
}

/// Opens the run of `req`: loads the manifest and the previous store and prepares the plan.
fn open_run(req: &RunRequest) -> Result<OpenedRun> {
    let manifest = Manifest::load(&req.out_dir)?;
    let out = req
        .out_dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", req.out_dir.display()))?;
    let mut warnings = Vec::new();
    let previous = previous_store(&out, req.resume, &mut warnings)?;
    let verified = match &previous {
        Some(p) => Some(verified_header(&out, &p.results)?),
        None => None,
    };
    let planned = match (&verified, &previous) {
        (Some(h), Some(p)) => Some(planned_header(h.clone(), &p.results)?),
        _ => None,
    };
    let prepared = prepare_run(req, planned.as_ref(), &manifest, &out)?;
    let added_binaries = match &previous {
        Some(p) => binaries_added_since(&p.results.planned_binaries(), &prepared.binary_labels)?,
        None => Vec::new(),
    };
    Ok(OpenedRun {
        out,
        manifest,
        previous,
        verified,
        prepared,
        added_binaries,
        warnings,
    })
}

/// The header of the store of `out`, read back verified (its MAC checked over the first line
/// it is parsed from), and the same as the header the store's reader took from `r`: a store
/// changed between the two reads is refused rather than run from either.
fn verified_header(out: &Path, r: &Results) -> Result<Verified<Header>> {
    let path = out.join(RESULTS_FILE);
    let verified = crate::files::store::file::verified_header(out)?
        .with_context(|| format!("{} disappeared while it was read", path.display()))?;
    if r.header.as_ref() != Some(verified.get()) {
        bail!(
            "{} changed while it was read (its header is not the one just checked): nothing \
             was run; try again once nothing else writes to it",
            path.display()
        );
    }
    Ok(verified)
}

/// The verified header `h` of the stored run `r` with its planned executions per binary: its
/// own plus the rounds its extensions added (`--extend-executions`), which a resume must plan
/// again.
fn planned_header(h: Verified<Header>, r: &Results) -> Result<Verified<Header>> {
    let Some(executions) = r.planned_executions() else {
        bail!("the store's header and extensions plan more than 2^32 executions per binary");
    };
    Ok(h.map(|h| Header { executions, ..h }))
}

/// What a resumed run needs of its store: the header and extensions (in `results`, which
/// holds neither measurements nor execution records), the executions done, and whether one
/// of them read its metric.
struct PreviousRun {
    results: Results,
    done: KeyTable<()>,
    any_metric_ok: bool,
}

impl PreviousRun {
    /// Reads the store of `dir` one execution at a time, keeping only their keys: memory
    /// stays bounded by a few tens of bytes per stored execution (issue 34, attack 11).
    fn read(dir: &Path) -> Result<PreviousRun> {
        let mut done = KeyTable::default();
        let mut any_metric_ok = false;
        let results = scan_commits(dir, |e, _| {
            done.insert(e.key_ref(), ());
            any_metric_ok |= e.status == ExecutionStatus::Ok;
        })?;
        Ok(PreviousRun {
            results,
            done,
            any_metric_ok,
        })
    }
}

/// The run stored in `out` (`None` when there is none), refused unless `resume`; its read
/// warnings go to `warnings`.
fn previous_store(
    out: &Path,
    resume: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<PreviousRun>> {
    let store_path = out.join(RESULTS_FILE);
    if !store_path.exists() {
        return Ok(None);
    }
    // Only which executions are done matters here: stream past the measurements.
    let previous = PreviousRun::read(out)?;
    match (&previous.results.header, resume) {
        (Some(_), false) => bail!(
            "{} already holds results: pass --resume to continue that run, or choose another --out",
            store_path.display()
        ),
        (None, _) if !previous.done.is_empty() => {
            bail!("{} has records but no header", store_path.display())
        }
        _ => {}
    }
    warnings.extend(previous.results.warnings.iter().map(ToString::to_string));
    Ok(previous.results.header.is_some().then_some(previous))
}

/// The conditions of this invocation, settled before its first execution.
struct StartedRun {
    jobs: usize,
    worker_cpus: Vec<Option<Vec<usize>>>,
    aslr_disabled: bool,
    cwd: PathBuf,
    base_env: Vec<(String, String)>,
    writer: StoreWriter,
    /// The store's header: the one written now, or the resumed run's.
    header: Header,
    invocation_started: f64,
    load_before: Option<Load>,
    /// The heap-offset library, with data seeds.
    heap: Option<super::heap_offset::HeapOffsetLibrary>,
}

/// Starts the opened run: everything that can fail before the first execution fails here
/// (parallelism, CPUs, writable staging, working directory); then the store is opened, its
/// header (new run) or extension (a resume adding binaries) written. Warnings (ASLR on, or
/// changed since the interrupted part) go to `opened.warnings`.
fn start_run(req: &RunRequest, opened: &mut OpenedRun) -> Result<StartedRun> {
    let PreparedRun {
        settings, metric, ..
    } = &opened.prepared;
    let out = opened.out.as_path();
    let jobs = req
        .jobs
        .unwrap_or_else(|| super::parallel::default_jobs(metric));
    super::parallel::check_jobs(metric, &settings.metric, jobs, req.force_parallel)?;
    let worker_cpus = assign_cpus(req.cpus.as_deref(), jobs)?;
    let invocation_started = unix_now();
    let load_before = current_load();
    check_writable(out, &out.join(STAGING_DIR))?;
    for worker in 1..jobs {
        check_writable(out, &worker_staging_dir(out, worker))?;
    }
    let aslr_disabled = aslr_off(&mut opened.warnings);
    let previous_header = opened.verified.clone();
    let (cwd, base_env) = working_directory(previous_header.as_ref())?;
    let heap = super::heap_offset::for_run(settings.data_seeds, &opened.prepared.targets, out)?;
    let mut writer = StoreWriter::open(out)?;
    reaper::install()?;
    let header = match previous_header {
        Some(h) => h.into_inner(),
        None => {
            let prepared = &opened.prepared;
            if prepared.template.uses_bin
                && settings.programs.is_none()
                && prepared.programs.len() > 1
            {
                crate::diagnostic!(
                    "layoutrand: note: {}",
                    bin_stands_for_every(&prepared.programs)
                );
            }
            // The per-binary profiles kept are this run's own: an earlier run's in the same
            // directory (its store since removed) measured another command or cache, and
            // explain would read them as this one's.
            crate::files::confined::ExperimentDir::open(out)?
                .remove_dir_all(crate::run::metric::PROFILES_DIR)
                .with_context(|| {
                    format!(
                        "cannot clear {}",
                        out.join(crate::run::metric::PROFILES_DIR).display()
                    )
                })?;
            let h = opened
                .prepared
                .header(&opened.manifest, aslr_disabled, &cwd, &base_env);
            writer.append_header(h.clone())?;
            h
        }
    };
    extend_store(&mut writer, &opened.added_binaries, req.extend_executions)?;
    if header.aslr_disabled != aslr_disabled {
        let w = format!(
            "the interrupted run had aslr_disabled={} but now it is {}: executions of the two parts are not comparable",
            header.aslr_disabled, aslr_disabled
        );
        crate::diagnostic!("layoutrand: warning: {w}");
        opened.warnings.push(w);
    }
    Ok(StartedRun {
        jobs,
        worker_cpus,
        aslr_disabled,
        cwd,
        base_env,
        writer,
        header,
        invocation_started,
        load_before,
        heap,
    })
}

/// Before a run whose `{bin}` was left to stand for every program of a build that linked
/// several: each runs the same command, and each gets its own answers (mujs's build links
/// `mujs` and `mujs-pp`, and `{bin} bench.js` timed the pretty-printer too).
fn bin_stands_for_every(programs: &[String]) -> String {
    format!(
        "{{bin}} stands for each of the build's {} relinked programs ({}): every one runs the \
         command and is answered on its own; `--programs NAME` (in an experiment's file, \
         `[run] programs`) measures only the ones named",
        programs.len(),
        programs.join(", ")
    )
}

/// Whether ASLR is off for the benchmark processes; if not, says why in `warnings`.
fn aslr_off(warnings: &mut Vec<String>) -> bool {
    match probe_aslr_off() {
        Ok(()) => true,
        Err(why) => {
            let w = format!(
                "ASLR stays ON for the benchmarks ({why}): stack and heap addresses change on every run and drown the environment padding's effect; recorded as aslr_disabled=false"
            );
            crate::diagnostic!("layoutrand: warning: {w}");
            warnings.push(w);
            false
        }
    }
}

/// Records that a resumed run grew by `added` binaries and by `rounds` execution rounds
/// (neither: nothing is written).
fn extend_store(writer: &mut StoreWriter, added: &[String], rounds: Option<u32>) -> Result<()> {
    if added.is_empty() && rounds.is_none() {
        return Ok(());
    }
    if !added.is_empty() {
        crate::diagnostic!(
            "layoutrand: extending the run with {} new binaries from the manifest ({})",
            added.len(),
            added.join(", ")
        );
    }
    if let Some(k) = rounds {
        crate::diagnostic!(
            "layoutrand: extending the run by {k} execution round(s), every binary once in each"
        );
    }
    writer.append(&[Record::Extension(Extension {
        binaries: added.to_vec(),
        executions: rounds,
        added_unix: unix_now(),
    })])
}

/// What is left of a schedule after what the store already holds.
struct Resume<'s> {
    /// The slots to run, in schedule order.
    todo: Vec<&'s Slot>,
    /// Slots of the schedule whose execution the store holds.
    skipped: usize,
    /// Whether some stored execution read its metric: from then on a metric failure is an
    /// execution's, not the run's (see [`record_execution`]).
    any_metric_ok: bool,
}

/// The slots of `schedule` whose execution `previous` (the store of the run being resumed)
/// does not hold; the schedule is recomputed from the same seed, so a slot is identified by
/// its target's key and execution number.
fn resume_from<'s, 't>(
    previous: Option<&PreviousRun>,
    schedule: &'s [Slot],
    target_of: &dyn Fn(&Slot) -> &'t Target,
) -> Resume<'s> {
    let todo: Vec<&Slot> = schedule
        .iter()
        .filter(|s| {
            let t = target_of(s);
            let key = (
                t.program.as_str(),
                t.variant.as_deref(),
                t.binary.as_str(),
                s.execution,
            );
            !previous.is_some_and(|p| p.done.contains(key))
        })
        .collect();
    Resume {
        skipped: schedule.len() - todo.len(),
        todo,
        any_metric_ok: previous.is_some_and(|p| p.any_metric_ok),
    }
}

/// How the schedule is walked: one executor per worker (pinned to `cpus`), the target of
/// each slot, and whether another execution may start (no signal, budget left).
struct Walk<'w, 't, E: Executor> {
    executors: &'w [E],
    cpus: &'w [Option<Vec<usize>>],
    target_of: &'w (dyn Fn(&Slot) -> &'t Target + Sync),
    may_start: &'w (dyn Fn() -> bool + Sync),
    /// The output directory as the user named it, for the interruption's message.
    out: &'w Path,
}

/// Runs the slots of `resume.todo` with `walk`, committing each execution to `writer` in
/// schedule order before the next is committed; returns how many were committed. Stops with
/// [`Interrupted`] when a signal interrupted an execution (which is not committed).
fn walk_schedule<E: Executor>(
    walk: &Walk<E>,
    writer: &mut StoreWriter,
    resume: &mut Resume,
    bar: &crate::progress::Progress,
) -> Result<usize> {
    let skipped = resume.skipped;
    let mut committed = 0;
    let mut any_metric_ok = resume.any_metric_ok;
    let started = Instant::now();
    let (planned, at_once) = (resume.todo.len(), walk.executors.len());
    let walked = super::parallel::run_slots(
        walk.executors,
        walk.cpus,
        &resume.todo,
        walk.target_of,
        walk.may_start,
        |slot, one| {
            if let Some(signal) = one.interrupted {
                return Err(interrupted(skipped, committed, signal, walk.out).into());
            }
            record_execution(writer, one, &mut any_metric_ok, || {
                let target = (walk.target_of)(slot);
                format!(
                    "execution {} of {} {}",
                    slot.execution, target.program, target.binary
                )
            })?;
            committed += 1;
            bar.inc();
            if committed == 1 {
                if let Some(text) = pace_note(started.elapsed(), planned, at_once) {
                    bar.note(&text);
                }
            }
            Ok(())
        },
    );
    resume.any_metric_ok = any_metric_ok;
    walked
}

/// Below this, the time a run's executions take is not worth a line before they are done.
const PACE_NOTE_FROM: Duration = Duration::from_secs(60);

/// What the run will take at the pace of its first execution, which took `first` (from the
/// walk's start to its commit, staging included), for the `planned` executions of this
/// invocation, `at_once` at a time: a line when that is [`PACE_NOTE_FROM`] or more, so that
/// a user learns within one execution that a cachegrind run (20–50 times slower than the
/// program alone) takes hours, and can stop it.
fn pace_note(first: Duration, planned: usize, at_once: usize) -> Option<String> {
    let waves = planned.div_ceil(at_once.max(1)) as u32;
    let total = first.checked_mul(waves)?;
    if total < PACE_NOTE_FROM {
        return None;
    }
    // Whole seconds, or milliseconds under 10 s ("850ms", "2s 400ms").
    let whole = |d: Duration| {
        humantime::format_duration(if d < Duration::from_secs(10) {
            Duration::from_millis(d.as_millis() as u64)
        } else {
            Duration::from_secs(d.as_secs())
        })
    };
    let parallel = if at_once > 1 {
        format!(", {at_once} at once")
    } else {
        String::new()
    };
    Some(format!(
        "layoutrand: the first execution took {}: at that pace the {planned} execution(s) of \
         this run take about {}{parallel} (the progress shows the pace as it goes)",
        whole(first),
        whole(total)
    ))
}

/// Commits one execution's records. A metric failure before any execution of the run read
/// its metric stops the run (the metric is most likely wrong for this program: running on
/// would only record failures), naming the execution (`which`) and its output's tail;
/// every other failure (exit, signal, timeout, spawn) is recorded and the run goes on.
fn record_execution(
    writer: &mut StoreWriter,
    one: OneExecution,
    any_metric_ok: &mut bool,
    which: impl FnOnce() -> String,
) -> Result<()> {
    writer.append(&one.records)?;
    match one.status {
        ExecutionStatus::Ok => *any_metric_ok = true,
        ExecutionStatus::Metric if !*any_metric_ok => bail!(
            "{} ({}); the output ends with:\n{}",
            one.problem.unwrap_or_default(),
            which(),
            one.tail
        ),
        _ => {}
    }
    Ok(())
}

/// The error of a run stopped by a signal: `skipped` executions were already stored,
/// `executed` run by this invocation.
fn interrupted(skipped: usize, executed: usize, signal: i32, out: &Path) -> Interrupted {
    Interrupted {
        signal,
        kept: Kept::Executions {
            kept: skipped + executed,
            run_now: executed,
            out: out.to_path_buf(),
        },
    }
}

/// A signal that arrived while no execution ran (between two, or after the last) stops the
/// run too, with the same error as one that interrupted an execution.
fn interruption(resume: &Resume, executed: usize, out: &Path) -> Result<()> {
    match signals::caught() {
        Some(signal) => Err(interrupted(resume.skipped, executed, signal, out).into()),
        None => Ok(()),
    }
}

/// Ends the invocation: its finish record (none when it ran nothing: a complete run resumed
/// leaves the store untouched).
fn finish_run(req: &RunRequest, started: &mut StartedRun, executed: usize) -> Result<()> {
    if executed > 0 {
        started.writer.append(&[Record::Finish(Finish {
            started_unix: started.invocation_started,
            ended_unix: unix_now(),
            load_before: started.load_before,
            load_after: current_load(),
            jobs: started.jobs as u32,
            cpus: req.cpus.clone(),
            executed: executed as u64,
        })])?;
    }
    Ok(())
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
        insta::assert_snapshot!(err);
        let shrunk = labels(&["baseline", "seed-1"]);
        assert!(binaries_added_since(&planned, &shrunk).is_err());
    }
}

#[cfg(test)]
mod pace_tests {
    use super::*;

    /// Closed forms: 150 executions of 12.4 s, 2 at once, are 75 waves (15 min 30 s); a
    /// run under a minute gets no line; sub-10-second executions are said in milliseconds.
    #[test]
    fn the_first_executions_pace_gives_the_runs_length() {
        let note = pace_note(Duration::from_millis(12_400), 150, 2).expect("a long run");
        assert_eq!(
            note,
            "layoutrand: the first execution took 12s: at that pace the 150 execution(s) of \
             this run take about 15m 30s, 2 at once (the progress shows the pace as it goes)"
        );
        assert_eq!(pace_note(Duration::from_millis(500), 100, 1), None);
        let short = pace_note(Duration::from_millis(850), 100, 1).expect("85 s");
        assert_eq!(
            short,
            "layoutrand: the first execution took 850ms: at that pace the 100 execution(s) of \
             this run take about 1m 25s (the progress shows the pace as it goes)"
        );
    }
}

/// The runner's steps with a scripted executor: no compiler, no process, a real store.
#[cfg(test)]
mod walk_tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::Mutex;

    use super::*;
    use crate::files::results::fixtures;
    use crate::files::store::{scan_results, Measurement};
    use crate::run::environment::PAD_VARIABLE;
    use crate::run::execution::execution_environment;
    use crate::run::schedule::{build_schedule, ScheduleDesign};

    /// How a scripted execution ends.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Script {
        Ok,
        /// Killed by SIGSEGV.
        Crash,
        /// Ran past its timeout and was killed.
        Hang,
        /// Exited 1.
        Fail,
        /// Exited 0 but its metric could not be read.
        NoMetric,
        /// SIGINT arrived while it ran.
        Interrupt,
    }

    const BASE_ENV: [(&str, &str); 2] = [("PATH", "/usr/bin:/bin"), ("LANG", "C")];

    /// Answers each (binary, execution) as `script` says (`Ok` when unlisted; every call from
    /// the `interrupt_from`-th on is interrupted) and logs each call's slot with the size in
    /// bytes of the environment the execution would get (`NAME=value\0` per variable).
    struct Scripted {
        script: BTreeMap<(usize, u32), Script>,
        interrupt_from: usize,
        calls: Mutex<Vec<(Slot, usize)>>,
    }

    impl Scripted {
        fn new(script: &[((usize, u32), Script)]) -> Scripted {
            Scripted {
                script: script.iter().cloned().collect(),
                interrupt_from: usize::MAX,
                calls: Mutex::new(Vec::new()),
            }
        }

        fn slots(&self) -> Vec<Slot> {
            self.calls
                .lock()
                .unwrap()
                .iter()
                .map(|c| c.0.clone())
                .collect()
        }
    }

    impl Executor for Scripted {
        fn execute(&self, slot: &Slot, target: &Target) -> Result<OneExecution> {
            let base: Vec<(String, String)> = BASE_ENV
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let env = execution_environment(&base, None, None, slot.env_pad);
            let bytes = env.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
            let mut calls = self.calls.lock().unwrap();
            let script = if calls.len() >= self.interrupt_from {
                Script::Interrupt
            } else {
                let listed = self.script.get(&(slot.binary, slot.execution));
                listed.copied().unwrap_or(Script::Ok)
            };
            calls.push((slot.clone(), bytes));
            Ok(scripted(slot, target, script))
        }
    }

    /// The records an execution ending as `script` says produces; an ok one measures
    /// 1000 + its schedule index.
    fn scripted(slot: &Slot, target: &Target, script: Script) -> OneExecution {
        let mut e = fixtures::execution(&target.binary, slot.execution, slot.schedule_index);
        e.env_pad = slot.env_pad;
        let (status, exit_code, signal) = match script {
            Script::Ok | Script::Interrupt => (ExecutionStatus::Ok, Some(0), None),
            Script::Crash => (ExecutionStatus::Signal, None, Some(libc::SIGSEGV)),
            Script::Hang => (ExecutionStatus::Timeout, None, Some(libc::SIGKILL)),
            Script::Fail => (ExecutionStatus::Exit, Some(1), None),
            Script::NoMetric => (ExecutionStatus::Metric, Some(0), None),
        };
        (e.status, e.exit_code, e.signal) = (status, exit_code, signal);
        let value = 1000.0 + slot.schedule_index as f64;
        let m: Measurement = fixtures::measurement(&target.binary, slot.execution, 0, value);
        let mut records = Vec::new();
        if status == ExecutionStatus::Ok {
            records.push(Record::Measurement(m));
        }
        records.push(Record::Execution(e));
        OneExecution {
            records,
            status,
            problem: (status == ExecutionStatus::Metric).then(|| "no number".to_string()),
            tail: "the output".into(),
            interrupted: (script == Script::Interrupt).then_some(libc::SIGINT),
        }
    }

    fn targets(binaries: usize) -> Vec<Target> {
        (0..binaries)
            .map(|b| Target {
                program: "p".into(),
                variant: None,
                binary: if b == 0 {
                    "baseline".into()
                } else {
                    format!("seed-{b}")
                },
                seed: (b > 0).then_some(b as u64),
                binaries: BTreeMap::new(),
                sha256: BTreeMap::new(),
                libraries: BTreeMap::new(),
            })
            .collect()
    }

    /// A store in `dir` holding only a header.
    fn new_store(dir: &Path, targets: &[Target]) -> StoreWriter {
        let mut h: Header = serde_json::from_str(r#"{"schema":2,"tool_version":"0","command":["{bin}"],"programs":["p"],"binaries":[],"metric":"wall","executions":4,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null},"started_unix":0.0}"#).unwrap();
        h.binaries = targets.iter().map(|t| t.binary.clone()).collect();
        let mut w = StoreWriter::open(dir).unwrap();
        w.append(&[Record::Header(h)]).unwrap();
        w
    }

    /// Resumes the store of `dir` (its previous executions read back) and walks what is left
    /// of `schedule` with `executors`; returns the walk's result and how many were skipped.
    fn resume_and_walk(
        dir: &Path,
        targets: &[Target],
        schedule: &[Slot],
        executors: &[Scripted],
    ) -> (Result<usize>, usize) {
        let previous = PreviousRun::read(dir).unwrap();
        let target_of = |s: &Slot| &targets[s.binary];
        let mut resume = resume_from(Some(&previous), schedule, &target_of);
        let mut writer = StoreWriter::open(dir).unwrap();
        let cpus = vec![None; executors.len()];
        let walk = Walk {
            executors,
            cpus: &cpus,
            target_of: &target_of,
            may_start: &|| true,
            out: dir,
        };
        let bar = crate::progress::Progress::new(Default::default(), "executions", 0, 0, "");
        let walked = walk_schedule(&walk, &mut writer, &mut resume, &bar);
        (walked, resume.skipped)
    }

    /// (binary, execution, status) of every stored execution, in file order.
    fn stored(dir: &Path) -> Vec<(String, u32, ExecutionStatus)> {
        let r = scan_results(dir, |_, _| {}).unwrap();
        let e = r.executions.iter();
        e.map(|e| (e.binary.clone(), e.execution, e.status))
            .collect()
    }

    fn walked_schedule(seed: u64, jobs: usize) -> (Vec<Slot>, Vec<Slot>, Vec<u64>) {
        let d = tempfile::tempdir().unwrap();
        let t = targets(3);
        new_store(d.path(), &t);
        let schedule = build_schedule(ScheduleDesign::Rounds, 1, 1, 3, 4, seed, 4096);
        let executors: Vec<Scripted> = (0..jobs).map(|_| Scripted::new(&[])).collect();
        let (walked, skipped) = resume_and_walk(d.path(), &t, &schedule, &executors);
        assert_eq!((walked.unwrap(), skipped), (12, 0));
        let mut calls: Vec<Slot> = executors.iter().flat_map(|e| e.slots()).collect();
        calls.sort_by_key(|s| s.schedule_index);
        let r = scan_results(d.path(), |_, _| {}).unwrap();
        let order = r.executions.iter().map(|e| e.schedule_index).collect();
        (schedule, calls, order)
    }

    #[test]
    fn the_seeded_interleaved_schedule_is_run_whole_and_stored_in_order() {
        let (schedule, calls, order) = walked_schedule(11, 1);
        // One worker runs the schedule as planned: every (binary, execution) once, each
        // binary's executions numbered in order, binaries interleaved.
        assert_eq!(calls, schedule);
        let pairs: BTreeSet<(usize, u32)> = calls.iter().map(|s| (s.binary, s.execution)).collect();
        assert_eq!(pairs.len(), 12);
        assert!(
            calls
                .windows(2)
                .filter(|w| w[0].binary != w[1].binary)
                .count()
                >= 4
        );
        assert_eq!(order, (0..12).collect::<Vec<u64>>());
        // The same seed walks the same order; another seed another one.
        assert_eq!(walked_schedule(11, 1).1, calls);
        assert_ne!(walked_schedule(12, 1).1, calls);
        // Two workers run every slot once and the store is still in schedule order.
        let (schedule, calls, order) = walked_schedule(11, 2);
        assert_eq!(calls, schedule);
        assert_eq!(order, (0..12).collect::<Vec<u64>>());
    }

    #[test]
    fn a_resumed_run_runs_only_the_missing_executions_and_none_twice() {
        let d = tempfile::tempdir().unwrap();
        let t = targets(3);
        new_store(d.path(), &t);
        let schedule = build_schedule(ScheduleDesign::Rounds, 1, 1, 3, 4, 5, 4096);
        let mut first = Scripted::new(&[]);
        first.interrupt_from = 5;
        let (walked, _) = resume_and_walk(d.path(), &t, &schedule, std::slice::from_ref(&first));
        let err = walked.unwrap_err();
        let stop = err.downcast_ref::<Interrupted>().expect("an interruption");
        let Kept::Executions { kept, run_now, .. } = stop.kept else {
            panic!("the run's interruption keeps executions: {stop:?}")
        };
        assert_eq!((stop.signal, kept, run_now), (libc::SIGINT, 5, 5));
        assert_eq!(stored(d.path()).len(), 5);
        // The resume runs exactly the 7 slots the store lacks, in schedule order.
        let second = Scripted::new(&[]);
        let (walked, skipped) =
            resume_and_walk(d.path(), &t, &schedule, std::slice::from_ref(&second));
        assert_eq!((walked.unwrap(), skipped), (7, 5));
        assert_eq!(second.slots(), schedule[5..]);
        let all = stored(d.path());
        let keys: BTreeSet<(String, u32)> = all.iter().map(|s| (s.0.clone(), s.1)).collect();
        assert_eq!((all.len(), keys.len()), (12, 12));
        // A complete run resumed runs nothing.
        let third = Scripted::new(&[]);
        let (walked, skipped) =
            resume_and_walk(d.path(), &t, &schedule, std::slice::from_ref(&third));
        assert_eq!((walked.unwrap(), skipped), (0, 12));
        assert!(third.slots().is_empty());
    }

    #[test]
    fn crashing_hanging_and_failing_executions_are_recorded_and_the_rest_run() {
        let d = tempfile::tempdir().unwrap();
        let t = targets(3);
        new_store(d.path(), &t);
        let schedule = build_schedule(ScheduleDesign::Rounds, 1, 1, 3, 4, 3, 4096);
        let script = [
            ((1, 0), Script::Crash),
            ((2, 1), Script::Hang),
            ((0, 2), Script::Fail),
            ((0, 3), Script::NoMetric),
        ];
        // The first slot reads its metric, so the later metric failure is the execution's.
        assert!(!script.iter().any(|(k, _)| *k == (schedule[0].binary, 0)));
        let ex = Scripted::new(&script);
        let (walked, _) = resume_and_walk(d.path(), &t, &schedule, std::slice::from_ref(&ex));
        assert_eq!(walked.unwrap(), 12);
        let all = stored(d.path());
        assert_eq!(all.len(), 12);
        let label = |b: usize| t[b].binary.clone();
        for ((b, e), s) in script {
            let want = match s {
                Script::Crash => ExecutionStatus::Signal,
                Script::Hang => ExecutionStatus::Timeout,
                Script::Fail => ExecutionStatus::Exit,
                _ => ExecutionStatus::Metric,
            };
            assert!(all.contains(&(label(b), e, want)), "{b} {e} {s:?}");
        }
        let ok = all.iter().filter(|s| s.2 == ExecutionStatus::Ok).count();
        assert_eq!(ok, 8);
        let measured = read_values(d.path());
        assert_eq!(measured.len(), 8);
    }

    #[test]
    fn a_metric_failure_before_any_metric_was_read_stops_the_run() {
        let d = tempfile::tempdir().unwrap();
        let t = targets(2);
        new_store(d.path(), &t);
        let schedule = build_schedule(ScheduleDesign::Rounds, 1, 1, 2, 3, 3, 4096);
        let first = (schedule[0].binary, 0);
        let ex = Scripted::new(&[(first, Script::NoMetric)]);
        let (walked, _) = resume_and_walk(d.path(), &t, &schedule, std::slice::from_ref(&ex));
        let err = walked.unwrap_err().to_string();
        let named = format!("no number (execution 0 of p {})", t[first.0].binary);
        assert!(err.contains(&named) && err.ends_with("the output"), "{err}");
        // The failure itself is stored, nothing after it (a worker may have started the
        // next slots already: their outcomes are dropped).
        assert_eq!(stored(d.path()).len(), 1);
    }

    #[test]
    fn each_execution_gets_its_scheduled_padding_and_a_resume_the_same_one() {
        let d = tempfile::tempdir().unwrap();
        let t = targets(2);
        new_store(d.path(), &t);
        let schedule = build_schedule(ScheduleDesign::Rounds, 1, 1, 2, 40, 9, 4096);
        let mut first = Scripted::new(&[]);
        first.interrupt_from = 30;
        let (walked, _) = resume_and_walk(d.path(), &t, &schedule, std::slice::from_ref(&first));
        assert!(walked.is_err());
        let second = Scripted::new(&[]);
        let (walked, _) = resume_and_walk(d.path(), &t, &schedule, std::slice::from_ref(&second));
        assert_eq!(walked.unwrap(), 50);
        let fixed: usize = BASE_ENV
            .iter()
            .map(|(k, v)| k.len() + v.len() + 2)
            .sum::<usize>()
            + PAD_VARIABLE.len()
            + 2;
        let calls: Vec<(Slot, usize)> = [&first, &second]
            .iter()
            .flat_map(|e| e.calls.lock().unwrap().clone())
            .collect();
        // Only the padding changes the environment's size, by the slot's scheduled bytes.
        for (slot, bytes) in &calls {
            assert_eq!(*bytes - fixed, slot.env_pad as usize, "{slot:?}");
            assert!(slot.env_pad % 16 == 0 && slot.env_pad < 4096);
        }
        let sizes: BTreeSet<usize> = calls.iter().map(|c| c.1).collect();
        // 80 draws from 256 sizes: about 68 distinct ones expected.
        assert!(sizes.len() > 40, "{} sizes", sizes.len());
        // The interrupted execution is run again by the resume, with the same padding, and
        // the store records each execution's scheduled padding.
        assert_eq!(first.slots()[30], schedule[30]);
        assert_eq!(second.slots()[0], schedule[30]);
        let r = scan_results(d.path(), |_, _| {}).unwrap();
        let pads: Vec<u32> = r.executions.iter().map(|e| e.env_pad).collect();
        let planned: Vec<u32> = schedule.iter().map(|s| s.env_pad).collect();
        assert_eq!(pads, planned);
    }

    fn read_values(dir: &Path) -> Vec<f64> {
        let r = crate::files::store::read_results(dir).unwrap();
        r.measurements.iter().map(|m| m.value).collect()
    }
}
