//! `layoutrand run`: run the built binaries in the three-level design and store the results.

use std::path::Path;
use std::time::Duration;

use layoutrand::exit::{interrupted_by, Exit};
use layoutrand::files::store::{read_results, scan_results};
use layoutrand::run::metric::primary_name_of_spec;
use layoutrand::run::reaper::Interrupted;
use layoutrand::run::runner::run_experiment;
use layoutrand::run::settings::RunRequest;
use layoutrand::run::slurm::status::{render_status, wait_until_ended, WAIT_REPORT_EVERY};
use layoutrand::run::slurm::submit::{submit, SlurmOptions};
use layoutrand::analysis::run_summary::{summarize, summarize_store, BinarySummary};

pub use layoutrand::flags::run::RunArgs as Args;

/// Runs `layoutrand run`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let cpus = args
        .cpus
        .as_deref()
        .map(layoutrand::run::cpus::parse_cpu_list)
        .transpose()?;
    let req = RunRequest {
        out_dir: args.out.clone(),
        programs: args.programs,
        executions: args.design.executions,
        iterations: args.design.iterations,
        warmup: args.design.warmup,
        metric: args.design.metric,
        env_pad_max: args.env_pad,
        timeout: args.limits.timeout,
        budget: args.limits.budget,
        schedule_seed: args.schedule_seed,
        resume: args.resume,
        command: args.command,
        progress: layoutrand::progress::ProgressDisplay::for_stderr(),
        jobs: args.jobs,
        force_parallel: args.force_parallel,
        cpus,
        cache_sim: args.cache_sim,
    };
    if args.slurm.slurm {
        let opts = SlurmOptions {
            partition: args.slurm.partition,
            max_nodes: args.slurm.max_nodes,
            slurm_args: args.slurm.slurm_arg,
            shards: args.slurm.shards,
            node_dir: args.slurm.node_dir,
            dry_run: args.slurm.dry_run,
        };
        return run_slurm(&req, &opts, args.slurm.wait);
    }
    start_watchdog()?;
    let report = match run_experiment(&req) {
        Ok(report) => report,
        Err(err) => match err.downcast_ref::<Interrupted>() {
            Some(stop) => {
                layoutrand::diagnostic!("layoutrand: {stop}");
                return Ok(interrupted_by(stop.signal));
            }
            None => return Err(err),
        },
    };
    layoutrand::diagnostic!(
        "layoutrand: {} execution(s) run, {} already done, schedule seed {}{}",
        report.executed,
        report.skipped,
        report.schedule_seed,
        if report.aslr_disabled {
            ""
        } else {
            ", ASLR ON"
        }
    );
    for w in &report.warnings {
        layoutrand::diagnostic!("layoutrand: warning: {w}");
    }
    let summary = summarize_store(&args.out, &report.primary_metric)?;
    print_summary(&summary);
    if let Some(exit) = programs_that_never_ran(&args.out, &summary)? {
        return Ok(exit.code());
    }
    if report.remaining > 0 {
        layoutrand::diagnostic!(
            "layoutrand: the budget ran out with {} execution(s) left (exit status {}); continue with `layoutrand run --resume --out {}`",
            report.remaining,
            Exit::StoppedEarly.code(),
            args.out.display()
        );
        return Ok(Exit::StoppedEarly.code());
    }
    Ok(Exit::Complete.code())
}

/// The programs (with variants: program and variant) of which no execution of any binary
/// succeeded although some failed: each is named once, with the stored output of one of its
/// failed executions, and the run's status is [`Exit::ProgramFailed`]. `None` when every
/// program ran somewhere.
fn programs_that_never_ran(dir: &Path, summary: &[BinarySummary]) -> anyhow::Result<Option<Exit>> {
    type Program = (String, Option<String>);
    let mut per_program: Vec<(Program, usize, usize, usize)> = Vec::new();
    for s in summary {
        let key = (s.program.clone(), s.variant.clone());
        match per_program.iter_mut().find(|(k, ..)| *k == key) {
            Some((_, ok, failed, binaries)) => {
                *ok += s.executions_ok;
                *failed += s.failures;
                *binaries += 1;
            }
            None => per_program.push((key, s.executions_ok, s.failures, 1)),
        }
    }
    let never: Vec<&(Program, usize, usize, usize)> = per_program
        .iter()
        .filter(|(_, ok, failed, _)| *ok == 0 && *failed > 0)
        .collect();
    if never.is_empty() {
        return Ok(None);
    }
    // One stored output per failed program: the first failed execution that kept one.
    let mut outputs: Vec<(Program, String)> = Vec::new();
    scan_results(dir, |e, _| {
        let key = (e.program.clone(), e.variant.clone());
        if let Some(tail) = e.output_tail.as_deref().filter(|t| !t.trim().is_empty()) {
            if never.iter().any(|(k, ..)| *k == key) && !outputs.iter().any(|(k, _)| *k == key) {
                outputs.push((key, tail.trim_end().to_string()));
            }
        }
    })?;
    let store = dir.join(layoutrand::files::results::RESULTS_FILE);
    for ((program, variant), _, failed, binaries) in &never {
        let label = match variant {
            Some(v) => format!("{program} [{v}]"),
            None => program.clone(),
        };
        let output = outputs
            .iter()
            .find(|(k, _)| k.0 == *program && k.1 == *variant)
            .map(|(_, t)| {
                let quoted: Vec<String> = t.lines().map(|l| format!("  | {l}")).collect();
                format!("; the output of one of them:\n{}", quoted.join("\n"))
            })
            .unwrap_or_default();
        layoutrand::diagnostic!(
            "layoutrand: error: {label}: all {failed} execution(s) of its {binaries} binaries failed, so there is nothing of it to analyse (a wrong {{bin}} or input? see `output_tail` in {}){output}",
            store.display()
        );
    }
    Ok(Some(Exit::ProgramFailed))
}

/// `layoutrand run --slurm`: submit, and with `--wait` block until every task ended.
fn run_slurm(req: &RunRequest, opts: &SlurmOptions, wait: bool) -> anyhow::Result<i32> {
    let sub = submit(req, opts)?;
    let dir = &sub.dir;
    let shards = sub
        .shards
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    match &sub.job {
        None if sub.shards.is_empty() => {
            layoutrand::diagnostic!(
                "layoutrand: every shard of the run in {} is complete: nothing to submit",
                dir.display()
            );
            return Ok(0);
        }
        None => {
            layoutrand::diagnostic!(
                "layoutrand: dry run: wrote {} for shard(s) {shards} of {}; submit it with `layoutrand run --slurm --resume --out {}` (the plan keeps the command and settings)",
                sub.script.display(),
                sub.total_shards,
                dir.display()
            );
            return Ok(0);
        }
        Some(job) => {
            println!("{job}");
            layoutrand::diagnostic!(
                "layoutrand: submitted job {job}: shard(s) {shards} of {} ({}); follow it with `layoutrand status {}`",
                sub.total_shards,
                sub.script.display(),
                dir.display()
            );
        }
    }
    if !wait {
        return Ok(0);
    }
    let outcome = wait_until_ended(dir, Duration::from_secs(1), WAIT_REPORT_EVERY)?;
    layoutrand::diagnostic!(
        "{}",
        render_status(&outcome.statuses).trim_end_matches('\n')
    );
    let results = read_results(dir)?;
    if let Some(h) = &results.header {
        let summary = summarize(&results, primary_name_of_spec(&h.metric));
        print_summary(&summary);
        if let Some(exit) = programs_that_never_ran(dir, &summary)? {
            return Ok(exit.code());
        }
    }
    if !outcome.incomplete.is_empty() {
        layoutrand::diagnostic!(
            "layoutrand: shard(s) {} did not finish (see {}/slurm/logs); submit what is missing with `layoutrand run --slurm --resume --out {}`",
            outcome
                .incomplete
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
            dir.display(),
            dir.display()
        );
        return Ok(Exit::StoppedEarly.code());
    }
    Ok(Exit::Complete.code())
}

/// The end-of-run table, as the library renders it.
fn print_summary(summary: &[BinarySummary]) {
    print!(
        "{}",
        layoutrand::report::export::run_summary::render_run_summary(summary)
    );
}

/// Starts the executions' watchdog (`layoutrand::run::watchdog`): after a kill -9 of this
/// runner, what its executions started dies too.
pub fn start_watchdog() -> anyhow::Result<()> {
    let executable =
        std::env::current_exe().map_err(|e| anyhow::anyhow!("the path of this executable: {e}"))?;
    layoutrand::run::watchdog::start(&executable)
}
