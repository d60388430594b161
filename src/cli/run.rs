//! `layoutrand run`: run the built binaries in the three-level design and store the results.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use layoutrand::run::budget::parse_duration;
use layoutrand::run::reaper::Interrupted;
use layoutrand::run::runner::run_experiment;
use layoutrand::run::settings::RunRequest;

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
    /// Executions (processes) per binary [default: 10].
    #[arg(long)]
    pub executions: Option<u32>,
    /// Iterations each execution must report (with --metric regex:...); `{iterations}` in
    /// the command is replaced by it.
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Iterations at the start of each execution kept in the store but marked as warmup.
    #[arg(long)]
    pub warmup: Option<u32>,
    /// wall | cpu | cachegrind | regex:PATTERN (one capture per iteration from stdout)
    /// [default: wall].
    #[arg(long)]
    pub metric: Option<String>,
    /// Exclusive upper bound in bytes of the environment padding (a multiple of 16 is
    /// drawn per execution) [default: 4096].
    #[arg(long = "env-pad")]
    pub env_pad: Option<u32>,
    /// Kill an execution's whole process group after this many seconds.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Stop cleanly between executions after this long (e.g. 90s, 10m, 1h30m).
    #[arg(long)]
    pub budget: Option<String>,
    /// Seed of the interleaved schedule and of the paddings [default: from the clock,
    /// recorded].
    #[arg(long = "schedule-seed")]
    pub schedule_seed: Option<u64>,
    /// Continue the interrupted run in --out, skipping committed executions.
    #[arg(long)]
    pub resume: bool,
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
    let timeout = match args.timeout {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            anyhow::bail!("--timeout {t}: must be a positive number of seconds")
        }
        Some(t) => Some(Duration::from_secs_f64(t)),
        None => None,
    };
    let budget = args
        .budget
        .as_deref()
        .map(|b| parse_duration(b).map_err(|e| anyhow::anyhow!("--budget: {e}")))
        .transpose()?;
    let cpus = args
        .cpus
        .as_deref()
        .map(layoutrand::run::cpus::parse_cpu_list)
        .transpose()?;
    let req = RunRequest {
        out_dir: args.out.clone(),
        programs: args.programs,
        executions: args.executions,
        iterations: args.iterations,
        warmup: args.warmup,
        metric: args.metric,
        env_pad_max: args.env_pad,
        timeout,
        budget,
        schedule_seed: args.schedule_seed,
        resume: args.resume,
        command: args.command,
        progress: std::io::stderr().is_terminal(),
        jobs: args.jobs,
        force_parallel: args.force_parallel,
        cpus,
    };
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
    for s in &report.summary {
        let cv = if s.cv.is_nan() {
            "-".to_string()
        } else {
            format!("{:.2}%", 100.0 * s.cv)
        };
        println!(
            "{:<16} {:<12} n={:<4} mean={:<14} {:<6} CV={:<8} failures={}",
            s.program,
            s.variant,
            s.executions_ok,
            significant(s.mean),
            s.unit,
            cv,
            s.failures
        );
    }
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
