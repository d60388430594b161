//! `layoutrand doctor`: is this machine fit for a layout experiment?
//!
//! It checks what an experiment needs (compilers, ld.bfd, valgrind, control of ASLR) and
//! what makes time measurements noisy (load, frequency scaling, boost, SMT), then runs a
//! short calibration (a few executions of a fixed loop, see [`calibration`]) and turns the
//! noise it measured into the counts a ±1 % answer would need, with the same formulas the
//! report and `dimension` use (Kalibera & Jones eq. 4 planning in
//! [`crate::stats::planning`], the minimum detectable effect in [`crate::stats::mde`]).
//!
//! The verdict is one of three, each with its exit code (docs/run.md): fit for every layout
//! experiment (0), fit for deterministic (cachegrind) experiments only (1), not fit (3).
//! Exit code 2 stays what it is for every command: the doctor itself failed.
//!
//! This module computes; what it finds is the model of [`crate::analysis::doctor`]
//! (figures, names and enums, no sentence), which [`crate::report::doctor`] says in words.

pub mod calibration;
pub mod checks;

use anyhow::Result;

use crate::analysis::doctor::{
    Calibration, Check, DoctorReport, Finding, Fitness, NoiseCounts, Scope, Status, DOCTOR_SCHEMA,
    MAX_FIT_EXECUTIONS,
};
use crate::run::host::{detect_conditions, detect_host};
use crate::stats::mde::{count_to_detect, minimum_detectable_effect, DEFAULT_POWER};
use crate::stats::planning::top_repetitions_for_precision;

use calibration::{calibrate, CalibrationPlan};

/// Largest count the planning searches; beyond it the answer is "more than this".
const MAX_COUNT: usize = 100_000;

/// What the doctor is asked.
#[derive(Debug, Clone)]
pub struct DoctorOptions {
    /// The calibration to run; `None` skips it (its check then says so).
    pub calibration: Option<CalibrationPlan>,
    /// The precision asked of the counts (0.01 for ±1 %).
    pub target: f64,
    /// Confidence level of the intervals and tests the counts are for.
    pub confidence: f64,
    /// Executions per binary of a default run (`run`'s default), for the detectable effect
    /// at that count.
    pub default_executions: usize,
}

/// Examines this machine.
pub fn examine(options: &DoctorOptions) -> Result<DoctorReport> {
    let host = detect_host();
    let conditions = detect_conditions();
    let mut all = vec![
        checks::compiler_check(),
        checks::linker_check(),
        checks::valgrind_check(),
    ];
    let aslr = checks::aslr_check();
    let aslr_off = aslr.status == Status::Ok;
    all.push(aslr);
    all.push(checks::null_device_check(std::path::Path::new("/dev/null")));
    all.push(checks::load_check(conditions.load.as_ref(), host.cores));
    all.extend(checks::frequency_checks(&conditions));
    let (calibration, counts) = match &options.calibration {
        Some(plan) => {
            let work = tempfile::tempdir()?;
            match calibrate(plan, work.path(), aslr_off) {
                Ok(c) => {
                    let counts = noise_counts(&c, options);
                    all.push(noise_check(&c, &counts));
                    (Some(c), Some(counts))
                }
                Err(e) => {
                    all.push(Check::new(
                        "noise",
                        Status::Problem,
                        Scope::Time,
                        Finding::CalibrationFailed {
                            why: format!("{e:#}"),
                        },
                    ));
                    (None, None)
                }
            }
        }
        None => {
            all.push(Check::new(
                "noise",
                Status::Note,
                Scope::Time,
                Finding::NotCalibrated,
            ));
            (None, None)
        }
    };
    let verdict = verdict(&all);
    Ok(DoctorReport {
        schema: DOCTOR_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        host,
        conditions,
        checks: all,
        calibration,
        counts,
        verdict,
        exit_code: verdict.exit_code(),
    })
}

/// The counts `options.target` needs when executions vary as in `c`: executions for one
/// binary's interval (KJ eq. 4 planning from the variance of an execution's mean) and
/// executions per binary to detect a difference of the target between two binaries (minimum
/// detectable effect).
pub(crate) fn noise_counts(c: &Calibration, options: &DoctorOptions) -> NoiseCounts {
    let alpha = 1.0 - options.confidence;
    // The variance of one execution's mean over the calibration's live iterations is the
    // execution level's S² itself (T₂² + T₁²/r₁ = S₂², eq. 2). Summing the levels' T² read
    // a missing T² as 0: with one live iteration there is no S₁², so no T₂², and every noise
    // gave "2 executions put one binary's mean within ±1 %".
    let top = c.levels.get(1).and_then(|l| l.s2).unwrap_or(f64::NAN);
    NoiseCounts {
        target: options.target,
        confidence: options.confidence,
        power: DEFAULT_POWER,
        executions_for_interval: top_repetitions_for_precision(
            top,
            c.mean_ms,
            options.target,
            options.confidence,
            2,
            MAX_COUNT,
        ),
        executions_to_detect: count_to_detect(
            c.cv_between_executions,
            options.target,
            alpha,
            DEFAULT_POWER,
            MAX_COUNT,
        ),
        default_executions: options.default_executions,
        detectable_at_default: minimum_detectable_effect(
            c.cv_between_executions,
            options.default_executions,
            alpha,
            DEFAULT_POWER,
        ),
    }
}

/// The noise check: a problem for time metrics when detecting a difference of the target
/// between two binaries needs more than [`MAX_FIT_EXECUTIONS`] executions each.
fn noise_check(c: &Calibration, counts: &NoiseCounts) -> Check {
    let noise = c.noise();
    if counts
        .executions_to_detect
        .is_some_and(|n| n <= MAX_FIT_EXECUTIONS)
    {
        Check::new("noise", Status::Ok, Scope::Time, Finding::Noise(noise))
    } else {
        let target = counts.target;
        Check::new(
            "noise",
            Status::Problem,
            Scope::Time,
            Finding::TooNoisy { noise, target },
        )
    }
}

/// The verdict from the checks: any problem of scope `Any` rules everything out; a problem
/// for time metrics leaves the deterministic metric when valgrind works.
pub(crate) fn verdict(checks: &[Check]) -> Fitness {
    let problem = |scope: Scope| {
        checks
            .iter()
            .any(|c| c.status == Status::Problem && c.scope == scope)
    };
    if problem(Scope::Any) {
        Fitness::NotFit
    } else if !problem(Scope::Time) {
        Fitness::Fit
    } else if problem(Scope::Cachegrind) {
        Fitness::NotFit
    } else {
        Fitness::DeterministicOnly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(status: Status, scope: Scope) -> Check {
        Check::new("x", status, scope, Finding::NotCalibrated)
    }

    #[test]
    fn the_verdict_follows_the_problems_scopes() {
        use Scope::*;
        use Status::*;
        assert_eq!(verdict(&[check(Ok, Any), check(Note, Time)]), Fitness::Fit);
        assert_eq!(verdict(&[check(Problem, Time)]), Fitness::DeterministicOnly);
        assert_eq!(
            verdict(&[check(Problem, Time), check(Problem, Cachegrind)]),
            Fitness::NotFit
        );
        // Without valgrind a quiet machine is still fit for time metrics.
        assert_eq!(verdict(&[check(Problem, Cachegrind)]), Fitness::Fit);
        assert_eq!(verdict(&[check(Problem, Any)]), Fitness::NotFit);
        assert_eq!(
            [Fitness::Fit, Fitness::DeterministicOnly, Fitness::NotFit].map(Fitness::exit_code),
            [0, 1, 3]
        );
    }

    #[test]
    fn counts_come_from_the_planning_and_mde_formulas() {
        use crate::stats::hierarchy::Hierarchy;
        // Two executions whose means are 99 and 101 (iterations equal within each): the
        // execution level's S² = 2, CV = √2/100 = 1.41 %. One binary's mean within ±1 %
        // needs r with t(0.975; r−1)·√(2/r) ≤ 1:
        // python3 -c "from scipy.stats import t; print(next(r for r in range(2,99) if t.ppf(.975,r-1)*(2/r)**.5<=1))"
        // prints 11. A 1 % difference between two binaries: count_to_detect's scipy search
        // with cv = 0.0141421 gives 33.
        let h = Hierarchy::from_nested(vec![99.0, 99.0, 101.0, 101.0], vec![2, 2]).unwrap();
        let c = calibration::summarize(&h, true, 0.0);
        let options = DoctorOptions {
            calibration: None,
            target: 0.01,
            confidence: 0.95,
            default_executions: 10,
        };
        let counts = noise_counts(&c, &options);
        assert_eq!(counts.executions_for_interval, Some(11));
        assert_eq!(counts.executions_to_detect, Some(33));
        let noise = noise_check(&c, &counts);
        assert_eq!(noise.status, Status::Problem);
        assert_eq!(
            noise.finding,
            Finding::TooNoisy {
                noise: c.noise(),
                target: 0.01
            }
        );
        let d = counts.detectable_at_default.unwrap();
        assert!(d > 0.01 && d < 0.02, "{d}");
    }

    /// One live iteration per execution: no variance within an execution, so no T² of the
    /// execution level; the executions' own variance still plans the count. Executions of
    /// 90, 110 and 100: S² = 100 on a mean of 100, and ±1 % needs r with
    /// t(0.975; r−1)·√(100/r) ≤ 1:
    /// python3 -c "from scipy.stats import t; print(next(r for r in range(2,100000) if t.ppf(.975,r-1)*(100/r)**.5<=1))"
    /// prints 387 (it was 2: the missing T² read as 0).
    #[test]
    fn one_live_iteration_still_plans_from_the_executions_noise() {
        use crate::stats::hierarchy::Hierarchy;
        let h = Hierarchy::from_nested(vec![90.0, 110.0, 100.0], vec![1, 3]).unwrap();
        let c = calibration::summarize(&h, true, 0.0);
        let options = DoctorOptions {
            calibration: None,
            target: 0.01,
            confidence: 0.95,
            default_executions: 10,
        };
        assert_eq!(
            noise_counts(&c, &options).executions_for_interval,
            Some(387)
        );
    }
}
