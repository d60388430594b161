//! The doctor's calibration: a few executions of a fixed CPU-bound loop, run the way the
//! runner runs a benchmark (own process, ASLR off, the clean environment with a padding
//! drawn per execution), whose spread between executions is the machine's noise floor for
//! time measurements.
//!
//! The loop chases pointers through a random cycle of 1 MiB (more than most L1 and L2
//! caches hold) and mixes the values with multiplications and a data-dependent branch, so
//! its speed depends on the caches, the branch predictor and the clock, as a real
//! benchmark's does, and it suffers from the same neighbours.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use regex::Regex;

use crate::analysis::doctor::Calibration;
use crate::run::environment::{clean_environment, padding_value, PAD_VARIABLE};
use crate::run::metric::extract_reported;
use crate::run::process::{run_process, ProcessEnd, ProcessSpec};
use crate::run::schedule::PAD_STEP;
use crate::run::settings::DEFAULT_ENV_PAD;
use crate::seeded::SeededRng;
use crate::stats::hierarchy::Hierarchy;
use crate::stats::multilevel::{level_variances, LevelEstimate};

/// Entries of the loop's cycle: 256 Ki × 4 bytes = 1 MiB.
const CYCLE_ENTRIES: usize = 1 << 18;
/// Steps of the cycle per iteration: about 10–20 ms on a current x86-64 machine at rest.
const STEPS_PER_ITERATION: usize = 1 << 20;

/// How the calibration's child reports one iteration (the regex metric's usual form).
const ITERATION_PATTERN: &str = r"iter \d+: (?P<value>[0-9.]+) (?P<unit>ms)";

/// Runs `iterations` iterations of the fixed loop in this process and writes one line per
/// iteration, `iter I: T ms`, to `out` (what the calibration's child executions do).
pub fn run_fixed_loop(iterations: usize, out: &mut impl Write) -> std::io::Result<()> {
    let cycle = random_cycle(CYCLE_ENTRIES);
    let mut position = 0u32;
    let mut accumulator = 0u64;
    for i in 0..iterations {
        let start = Instant::now();
        for _ in 0..STEPS_PER_ITERATION {
            position = cycle[position as usize];
            accumulator = accumulator.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(position);
            if accumulator & 0x10 != 0 {
                accumulator = accumulator.rotate_left(7);
            }
        }
        let elapsed = start.elapsed();
        std::hint::black_box(accumulator);
        writeln!(out, "iter {i}: {:.4} ms", elapsed.as_secs_f64() * 1e3)?;
    }
    out.flush()
}

/// One random cycle through `n` entries (Sattolo's algorithm): following it from any entry
/// visits every entry before returning, so no part of it stays in a small cache.
fn random_cycle(n: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut rng = SeededRng::new(1, "doctor-calibration-cycle");
    for i in (1..n).rev() {
        let j = rng.below(i as u64) as usize;
        order.swap(i, j);
    }
    let mut next = vec![0u32; n];
    for k in 0..n {
        next[order[k] as usize] = order[(k + 1) % n];
    }
    next
}

/// What to run for the calibration.
#[derive(Debug, Clone)]
pub struct CalibrationPlan {
    /// The command that runs the fixed loop and prints `iter I: T ms` lines; `{iterations}`
    /// is replaced by the number of iterations per execution.
    pub command: Vec<OsString>,
    /// Executions (processes).
    pub executions: usize,
    /// Iterations per execution, the first `warmup` of which are dropped.
    pub iterations: usize,
    /// Warmup iterations dropped per execution.
    pub warmup: usize,
    /// Kill an execution after this long.
    pub timeout: Duration,
}

/// Runs the calibration: `plan.executions` processes of the fixed loop in `work_dir`
/// (outputs are written there), ASLR off when `disable_aslr`.
pub(crate) fn calibrate(
    plan: &CalibrationPlan,
    work_dir: &Path,
    disable_aslr: bool,
) -> Result<Calibration> {
    if plan.executions < 2 || plan.iterations <= plan.warmup {
        bail!(
            "the calibration needs at least 2 executions and a live iteration (got {} executions of {} iterations with {} warmup)",
            plan.executions,
            plan.iterations,
            plan.warmup
        );
    }
    let started = Instant::now();
    let pattern = Regex::new(ITERATION_PATTERN).expect("a valid pattern");
    let argv: Vec<OsString> = plan
        .command
        .iter()
        .map(|a| {
            a.to_string_lossy()
                .replace("{iterations}", &plan.iterations.to_string())
                .into()
        })
        .collect();
    let mut pads = SeededRng::new(1, "doctor-env-pad");
    let live = plan.iterations - plan.warmup;
    let mut values = Vec::with_capacity(plan.executions * live);
    for e in 0..plan.executions {
        let pad = PAD_STEP * pads.below(u64::from(DEFAULT_ENV_PAD / PAD_STEP)) as u32;
        let mut env = clean_environment(work_dir);
        env.push((PAD_VARIABLE.to_string(), padding_value(pad)));
        let spec = ProcessSpec {
            argv: argv.clone(),
            env,
            cwd: work_dir.to_path_buf(),
            stdout: work_dir.join("calibration.out"),
            stderr: work_dir.join("calibration.err"),
            disable_aslr,
            timeout: Some(plan.timeout),
        };
        let outcome = run_process(&spec);
        if outcome.end != ProcessEnd::Exited(0) {
            bail!(
                "calibration execution {e} of {:?} ended with {:?}: {}",
                argv,
                outcome.end,
                crate::run::process::file_tail(&spec.stderr, 5)
            );
        }
        let file = std::fs::File::open(&spec.stdout)
            .with_context(|| format!("cannot read {}", spec.stdout.display()))?;
        let reported = extract_reported(&pattern, std::io::BufReader::new(file))?;
        if reported.len() != plan.iterations {
            bail!(
                "calibration execution {e} reported {} iterations, {} expected",
                reported.len(),
                plan.iterations
            );
        }
        values.extend(reported[plan.warmup..].iter().map(|(v, _)| *v));
    }
    let hierarchy = Hierarchy::from_nested(values, vec![live, plan.executions])
        .context("the calibration's measurements")?;
    Ok(summarize(
        &hierarchy,
        disable_aslr,
        started.elapsed().as_secs_f64(),
    ))
}

/// The noise figures of a calibration's executions × iterations.
pub(crate) fn summarize(h: &Hierarchy, aslr_off: bool, seconds: f64) -> Calibration {
    let mean = h.mean();
    let levels = level_variances(h);
    let cv = |l: &LevelEstimate| l.s2.map(|s2| s2.max(0.0).sqrt() / mean.abs());
    Calibration {
        executions: h.repetitions()[1],
        live_iterations: h.repetitions()[0],
        mean_ms: mean,
        execution_means_ms: h.top_means(),
        cv_between_executions: cv(&levels[1]).unwrap_or(f64::NAN),
        cv_within_executions: cv(&levels[0]),
        levels,
        aslr_off,
        seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_visits_every_entry_once() {
        let cycle = random_cycle(1000);
        let mut seen = vec![false; 1000];
        let mut p = 0u32;
        for _ in 0..1000 {
            assert!(!seen[p as usize], "entry {p} visited twice");
            seen[p as usize] = true;
            p = cycle[p as usize];
        }
        assert_eq!(p, 0, "back at the start after n steps");
    }

    #[test]
    fn the_loop_prints_one_parsable_line_per_iteration() {
        let mut out = Vec::new();
        run_fixed_loop(2, &mut out).unwrap();
        let pattern = Regex::new(ITERATION_PATTERN).unwrap();
        let values = extract_reported(&pattern, &out[..]).unwrap();
        assert_eq!(values.len(), 2, "{}", String::from_utf8_lossy(&out));
        assert!(values.iter().all(|(v, u)| *v > 0.0 && u == "ms"));
    }

    #[test]
    fn noise_figures_follow_kalibera_jones_eq_1() {
        // Executions' means 10 and 12 (iterations 9, 11 and 11, 13): S²_exec = 2,
        // mean 11, CV = √2/11; within: S²_1 = mean of the two sample variances = 2.
        let h = Hierarchy::from_nested(vec![9.0, 11.0, 11.0, 13.0], vec![2, 2]).unwrap();
        let c = summarize(&h, true, 0.0);
        assert!((c.cv_between_executions - 2f64.sqrt() / 11.0).abs() < 1e-12);
        assert!((c.cv_within_executions.unwrap() - 2f64.sqrt() / 11.0).abs() < 1e-12);
        assert_eq!(c.execution_means_ms, vec![10.0, 12.0]);
        assert_eq!((c.executions, c.live_iterations), (2, 2));
    }
}
