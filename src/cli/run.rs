//! `layoutrand run`: run the built binaries in the three-level design and store the results.

use std::path::Path;
use std::time::Duration;

use layoutrand::analysis::run_summary::{
    programs_that_never_ran, summarize, summarize_store, BinarySummary,
};
use layoutrand::exit::Exit;
use layoutrand::files::store::read_results;
use layoutrand::report::slurm_status::render_status;
use layoutrand::run::metric::summary_name_of_spec;
use layoutrand::run::runner::run_experiment;
use layoutrand::run::settings::RunRequest;
use layoutrand::run::slurm::status::{wait_until_ended, WAIT_REPORT_EVERY};
use layoutrand::run::slurm::submit::{submit, SlurmOptions};

pub use layoutrand::flags::run::RunArgs as Args;

/// Runs `layoutrand run`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    if args.resume {
        require_own_run(&args)?;
    }
    let req = request(&args)?;
    if args.slurm.slurm && args.limits.wait_for_quiet.is_some() {
        anyhow::bail!(
            "--wait-for-quiet is for a local run: Slurm gives each task an exclusive node, \
             and its executions are not held back (leave out --wait-for-quiet)"
        );
    }
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
    let report = run_experiment(&req)?;
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
    match (report.suite, report.counted) {
        (true, false) => layoutrand::diagnostic!(
            "layoutrand: each binary's whole-process wall time below; the suite's cases are \
             answered by `layoutrand report {}`",
            args.out.display()
        ),
        (true, true) => layoutrand::diagnostic!(
            "layoutrand: each binary's executions below (under valgrind no time is the \
             program's: no mean); the suite's cases are answered by `layoutrand report {}`",
            args.out.display()
        ),
        _ => {}
    }
    print_summary(&summary)?;
    if let Some(exit) = failed_programs(&args.out, &summary)? {
        return Ok(exit.code());
    }
    if report.remaining > 0 {
        // Within an experiment or a watch, the same command of theirs continues: they say so.
        let how = if std::env::var_os(layoutrand::signals::ENV_EXPERIMENT_STAGE).is_some() {
            String::new()
        } else {
            format!(
                "; continue with `layoutrand run --resume --out {}`",
                args.out.display()
            )
        };
        layoutrand::diagnostic!(
            "layoutrand: the budget ran out with {} execution(s) left (exit status {}){how}",
            report.remaining,
            Exit::StoppedEarly.code(),
        );
        return Ok(Exit::StoppedEarly.code());
    }
    Ok(Exit::Complete.code())
}

/// The run the flags ask for.
fn request(args: &Args) -> anyhow::Result<RunRequest> {
    let cpus = args
        .cpus
        .as_deref()
        .map(layoutrand::run::cpus::parse_cpu_list)
        .transpose()?;
    Ok(RunRequest {
        out_dir: args.out.clone(),
        programs: args.programs.clone(),
        executions: args.design.executions,
        iterations: args.design.iterations,
        warmup: args.design.warmup,
        metric: args.design.metric.clone(),
        env_pad_max: args.env_pad,
        data_seeds: args.data_seeds,
        vary_mmap_threshold: args.vary_mmap_threshold,
        timeout: args.limits.timeout,
        budget: args.limits.budget,
        wait_for_quiet: args.limits.wait_for_quiet,
        schedule_seed: args.schedule_seed,
        resume: args.resume,
        extend_executions: args.extend_executions,
        command: args.command.clone(),
        progress: layoutrand::progress::ProgressDisplay::for_stderr(),
        jobs: args.jobs,
        force_parallel: args.force_parallel,
        cpus,
        cache_sim: args.cache_sim,
        cases: args.cases.clone(),
        ok_exit_codes: args.design.ok_exit_codes.clone(),
    })
}

/// A resume reruns what the store header (or the Slurm plan) holds: only from a directory of
/// the user's own (see `layoutrand trust`). The manifest's binaries are what any run of the
/// directory runs, resumed or not.
fn require_own_run(args: &Args) -> anyhow::Result<()> {
    let uses = super::trust::Uses {
        manifest: false,
        header: !args.slurm.slurm,
        plan: args.slurm.slurm,
        links: false,
    };
    let what = if args.slurm.slurm {
        "run --slurm --resume"
    } else {
        "run --resume"
    };
    super::trust::require_own(&args.out, what, uses, args.trust)
}

/// Says on stderr which programs never ran ([`programs_that_never_ran`]), each with the
/// output of one of its failed executions: the run then exits [`Exit::ProgramFailed`].
fn failed_programs(dir: &Path, summary: &[BinarySummary]) -> anyhow::Result<Option<Exit>> {
    let failures = programs_that_never_ran(dir, summary)?;
    for never in &failures {
        let message = layoutrand::report::words::run_summary::never_ran(never);
        layoutrand::diagnostic!("layoutrand: error: {message}");
    }
    Ok((!failures.is_empty()).then_some(Exit::ProgramFailed))
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
            layoutrand::outln!("{job}");
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
        let summary = summarize(&results, summary_name_of_spec(&h.metric));
        print_summary(&summary)?;
        if let Some(exit) = failed_programs(dir, &summary)? {
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
fn print_summary(summary: &[BinarySummary]) -> anyhow::Result<()> {
    let text = layoutrand::report::export::run_summary::render_run_summary(summary);
    layoutrand::out!("{}", layoutrand::printable::for_terminal(&text));
    Ok(())
}

/// Starts the executions' watchdog (`layoutrand::run::watchdog`): after a kill -9 of this
/// runner, what its executions started dies too.
pub fn start_watchdog() -> anyhow::Result<()> {
    let executable =
        std::env::current_exe().map_err(|e| anyhow::anyhow!("the path of this executable: {e}"))?;
    layoutrand::run::watchdog::start(&executable)
}
