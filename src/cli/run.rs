//! `layoutrand run`: run the built binaries in the three-level design and store the results.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use layoutrand::run::metric::primary_name_of_spec;
use layoutrand::run::reaper::Interrupted;
use layoutrand::run::runner::run_experiment;
use layoutrand::run::settings::RunRequest;
use layoutrand::run::slurm::status::{render_status, wait_until_ended};
use layoutrand::run::slurm::submit::{submit, SlurmOptions};
use layoutrand::run::store::read_results;
use layoutrand::run::summary::{summarize, BinarySummary};

/// Arguments of `layoutrand run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment directory: holds manifest.json from `layoutrand build`, receives
    /// results.jsonl.
    #[arg(long, default_value = layoutrand::analysis::vocabulary::DEFAULT_DIR)]
    pub out: PathBuf,
    /// Programs (binary names in the manifest) that `{bin}` stands for, comma-separated
    /// [default: all].
    #[arg(long, value_delimiter = ',')]
    pub programs: Option<Vec<String>>,
    #[command(flatten)]
    pub design: super::common::DesignArgs,
    /// Exclusive upper bound in bytes of the environment padding (a multiple of 16 is
    /// drawn per execution) [default: 4096].
    #[arg(long = "env-pad")]
    pub env_pad: Option<u32>,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// Seed of the interleaved schedule and of the paddings [default: from the clock,
    /// recorded].
    #[arg(long = "schedule-seed")]
    pub schedule_seed: Option<u64>,
    /// Continue the interrupted run in --out, skipping committed executions (with --slurm:
    /// resubmit only the shards that are incomplete).
    #[arg(long)]
    pub resume: bool,
    /// Run the executions on a Slurm cluster: shards of the schedule as one `sbatch` array
    /// job, one exclusive node per task (see docs/slurm.md). --out must be on storage every
    /// node sees.
    #[arg(long)]
    pub slurm: bool,
    /// With --slurm: the Slurm partition.
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// With --slurm: at most this many tasks (nodes) at once.
    #[arg(long = "max-nodes", requires = "slurm")]
    pub max_nodes: Option<u32>,
    /// With --slurm: one more `sbatch` option (e.g. --slurm-arg=--time=02:00:00);
    /// repeatable.
    #[arg(long = "slurm-arg", requires = "slurm", allow_hyphen_values = true)]
    pub slurm_arg: Vec<String>,
    /// With --slurm: number of shards (array tasks), each a block of rounds of the schedule
    /// [default: --executions, one round each].
    #[arg(long, requires = "slurm")]
    pub shards: Option<u32>,
    /// With --slurm: node-local folder for the fixed binary path [default: /tmp/layoutrand].
    #[arg(long = "node-dir", requires = "slurm")]
    pub node_dir: Option<PathBuf>,
    /// With --slurm: block until every task ended; exit 1 when some shard is incomplete.
    #[arg(long, requires = "slurm")]
    pub wait: bool,
    /// With --slurm: write the plan and the job script, submit nothing.
    #[arg(long = "dry-run", requires = "slurm")]
    pub dry_run: bool,
    /// Executions at once. Only for deterministic metrics (cachegrind), whose values do not
    /// depend on what else runs; the store is the one a serial run writes [default: the
    /// number of cores with --metric cachegrind, else 1].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Allow --jobs above 1 with a time metric (wall, cpu, regex), whose values then include
    /// the parallel executions' contention.
    #[arg(long = "force-parallel")]
    pub force_parallel: bool,
    /// Pin executions to these CPUs (e.g. 1 or 0,2-3; sched_setaffinity): with --jobs 1 to
    /// all of them, with --jobs N one CPU per parallel execution.
    #[arg(long)]
    pub cpus: Option<String>,
    /// The benchmark command, with {bin} (or {bin:NAME}) where the binary goes.
    #[arg(last = true)]
    pub command: Vec<String>,
}

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
        progress: std::io::stderr().is_terminal(),
        jobs: args.jobs,
        force_parallel: args.force_parallel,
        cpus,
    };
    if args.slurm {
        let opts = SlurmOptions {
            partition: args.partition,
            max_nodes: args.max_nodes,
            slurm_args: args.slurm_arg,
            shards: args.shards,
            node_dir: args.node_dir,
            dry_run: args.dry_run,
        };
        return run_slurm(&req, &opts, args.wait);
    }
    let report = match run_experiment(&req) {
        Ok(report) => report,
        Err(err) => match err.downcast_ref::<Interrupted>() {
            Some(stop) => {
                eprintln!("layoutrand: {stop}");
                return Ok(128 + stop.signal);
            }
            None => return Err(err),
        },
    };
    eprintln!(
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
        eprintln!("layoutrand: warning: {w}");
    }
    print_summary(&report.summary);
    if report.remaining > 0 {
        eprintln!(
            "layoutrand: the budget ran out with {} execution(s) left; continue with `layoutrand run --resume --out {}`",
            report.remaining,
            args.out.display()
        );
    }
    let ok: usize = report.summary.iter().map(|s| s.executions_ok).sum();
    let failed: usize = report.summary.iter().map(|s| s.failures).sum();
    if ok == 0 && failed > 0 {
        eprintln!(
            "layoutrand: error: all {failed} executions failed: there is nothing to analyse (see the failures above and `output_tail` in {})",
            args.out.join(layoutrand::files::results::RESULTS_FILE).display()
        );
        return Ok(1);
    }
    Ok(0)
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
            eprintln!(
                "layoutrand: every shard of the run in {} is complete: nothing to submit",
                dir.display()
            );
            return Ok(0);
        }
        None => {
            eprintln!(
                "layoutrand: dry run: wrote {} for shard(s) {shards} of {}; submit it with `layoutrand run --slurm --out {}`",
                sub.script.display(),
                sub.total_shards,
                dir.display()
            );
            return Ok(0);
        }
        Some(job) => {
            println!("{job}");
            eprintln!(
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
    let outcome = wait_until_ended(dir, Duration::from_secs(1))?;
    eprint!("{}", render_status(&outcome.statuses));
    let results = read_results(dir)?;
    if let Some(h) = &results.header {
        print_summary(&summarize(&results, primary_name_of_spec(&h.metric)));
    }
    if !outcome.incomplete.is_empty() {
        eprintln!(
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
        return Ok(1);
    }
    Ok(0)
}

/// The end-of-run table: one line per binary.
fn print_summary(summary: &[BinarySummary]) {
    for s in summary {
        let cv = if s.cv.is_nan() {
            "-".to_string()
        } else {
            format!("{:.2}%", 100.0 * s.cv)
        };
        let binary = match &s.variant {
            Some(v) => format!("{v} {}", s.binary),
            None => s.binary.clone(),
        };
        println!(
            "{:<16} {:<12} n={:<4} mean={:<14} {:<6} CV={:<8} failures={}",
            s.program,
            binary,
            s.executions_ok,
            significant(s.mean),
            s.unit,
            cv,
            s.failures
        );
    }
}

/// `x` with six significant digits, without exponent for everyday magnitudes.
fn significant(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_string();
    }
    let digits = if x == 0.0 {
        0
    } else {
        x.abs().log10().floor() as i32
    };
    let decimals = (5 - digits).clamp(0, 9) as usize;
    format!("{x:.decimals$}")
}
