//! `layoutrand doctor`: is this machine fit for a layout experiment? (logic in
//! `layoutrand::doctor`). Exit code: 0 fit, 1 fit for deterministic (cachegrind) experiments
//! only, 3 not fit, 2 the doctor itself failed.

use std::time::Duration;

use layoutrand::doctor::calibration::{run_fixed_loop, CalibrationPlan};
use layoutrand::doctor::{examine, DoctorOptions};
use layoutrand::report::doctor::render_text;
use layoutrand::run::settings::DEFAULT_EXECUTIONS;

/// Arguments of `layoutrand doctor`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Executions (processes) of the calibration loop.
    #[arg(long, default_value_t = 8)]
    pub executions: usize,
    /// Iterations per calibration execution, the first of which is dropped as warmup.
    #[arg(long, default_value_t = 6)]
    pub iterations: usize,
    /// The precision the counts are for (`1%` or `0.01`).
    #[arg(long, value_name = "PCT", default_value = "1%", value_parser = layoutrand::flags::target_arg)]
    pub target: f64,
    /// Skip the calibration (the checks only; the noise stays unknown).
    #[arg(long = "no-calibration")]
    pub no_calibration: bool,
    #[command(flatten)]
    pub confidence: super::common::ConfidenceArgs,
    #[command(flatten)]
    pub format: super::common::FormatArgs,
}

/// Arguments of the hidden `calibration-loop`: the doctor's calibration executions.
#[derive(Debug, clap::Args)]
pub struct LoopArgs {
    /// Iterations to run and report.
    pub iterations: usize,
}

/// Runs `layoutrand doctor`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    if args.iterations < 2 {
        anyhow::bail!(
            "--iterations {}: at least 2 (the first is warmup)",
            args.iterations
        );
    }
    if args.executions < 2 {
        anyhow::bail!(
            "--executions {}: at least 2 (the noise is the spread between executions)",
            args.executions
        );
    }
    let calibration = (!args.no_calibration)
        .then(|| -> anyhow::Result<CalibrationPlan> {
            Ok(CalibrationPlan {
                command: vec![
                    std::env::current_exe()?.into_os_string(),
                    "calibration-loop".into(),
                    "{iterations}".into(),
                ],
                executions: args.executions,
                iterations: args.iterations,
                warmup: 1,
                timeout: Duration::from_secs(60),
            })
        })
        .transpose()?;
    let report = examine(&DoctorOptions {
        calibration,
        target: args.target,
        confidence: args.confidence.confidence,
        default_executions: DEFAULT_EXECUTIONS as usize,
    })?;
    let text = match args.format.format {
        super::common::OutputFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        super::common::OutputFormat::Text => render_text(&report),
    };
    super::common::write_stdout(&text)?;
    Ok(report.exit_code)
}

/// Runs the hidden `calibration-loop`.
pub fn run_loop(args: LoopArgs) -> anyhow::Result<i32> {
    run_fixed_loop(args.iterations, &mut std::io::stdout().lock())?;
    Ok(0)
}
