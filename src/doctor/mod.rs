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

pub mod calibration;
pub mod checks;
pub mod render;

use anyhow::Result;
use serde::Serialize;

use crate::files::results::{HostConditions, HostInfo};
use crate::run::host::{detect_conditions, detect_host};
use crate::stats::mde::{count_to_detect, minimum_detectable_effect, DEFAULT_POWER};
use crate::stats::planning::top_repetitions_for_precision;

use calibration::{calibrate, Calibration, CalibrationPlan};
use checks::{Check, Scope, Status};

/// Version of the JSON form of [`DoctorReport`] (docs/formats.md).
pub(crate) const DOCTOR_SCHEMA: u32 = crate::analysis::vocabulary::OUTPUT_SCHEMA;

/// A 1 % difference between two binaries should be detectable with at most this many
/// executions per binary for time measurements to count as fit: Kalibera & Jones (2013 §9.1)
/// suggest 20–30 repetitions per level for an initial experiment; beyond 30 executions of
/// every binary, layout effects of the size the demo shows are out of practical reach.
pub(crate) const MAX_FIT_EXECUTIONS: usize = 30;

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

/// The counts a target precision needs with the calibrated noise.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NoiseCounts {
    /// The precision asked (0.01 for ±1 %).
    pub(crate) target: f64,
    /// Confidence level.
    pub(crate) confidence: f64,
    /// Power of the difference test.
    pub(crate) power: f64,
    /// Executions (of the calibration's live iterations each) that put one binary's mean
    /// within ± target (Kalibera & Jones eq. 4 planning); `null` above 100 000.
    pub(crate) executions_for_interval: Option<usize>,
    /// Executions per binary that detect a difference of `target` between two binaries;
    /// `null` above 100 000.
    pub(crate) executions_to_detect: Option<usize>,
    /// `run`'s default executions per binary.
    pub(crate) default_executions: usize,
    /// The smallest difference between two binaries detectable with the default count.
    pub(crate) detectable_at_default: Option<f64>,
}

/// The doctor's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fitness {
    /// Fit for every layout experiment, time metrics included (exit 0).
    Fit,
    /// Time measurements here would be too noisy or uncontrolled, but the deterministic
    /// metric works (exit 1).
    DeterministicOnly,
    /// No layout experiment can be run here (exit 3).
    NotFit,
}

impl Fitness {
    /// The process exit code of `layoutrand doctor` for this verdict.
    pub(crate) fn exit_code(self) -> i32 {
        match self {
            Fitness::Fit => 0,
            Fitness::DeterministicOnly => 1,
            Fitness::NotFit => 3,
        }
    }
}

/// Everything the doctor found.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DoctorReport {
    /// [`DOCTOR_SCHEMA`].
    pub schema: u32,
    /// The layoutrand version that wrote the output.
    pub tool_version: &'static str,
    /// What the machine is.
    pub host: HostInfo,
    /// Its state now.
    pub conditions: HostConditions,
    /// The checks, in the order shown.
    pub checks: Vec<Check>,
    /// The calibration's figures, when it ran.
    pub calibration: Option<Calibration>,
    /// The counts the target needs with that noise.
    pub counts: Option<NoiseCounts>,
    /// The answer.
    pub verdict: Fitness,
    /// `layoutrand doctor`'s exit code.
    pub exit_code: i32,
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
                    all.push(Check {
                        name: "noise",
                        status: Status::Problem,
                        scope: Scope::Time,
                        detail: format!("the calibration failed: {e:#}"),
                    });
                    (None, None)
                }
            }
        }
        None => {
            all.push(Check {
                name: "noise",
                status: Status::Note,
                scope: Scope::Time,
                detail: "not measured (--no-calibration)".into(),
            });
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
    use crate::report::numfmt::percent;
    let figures = c.noise_figures();
    let fits = counts
        .executions_to_detect
        .is_some_and(|n| n <= MAX_FIT_EXECUTIONS);
    Check {
        name: "noise",
        status: if fits { Status::Ok } else { Status::Problem },
        scope: Scope::Time,
        detail: if fits {
            figures
        } else {
            format!(
                "{figures}: a {} difference between two binaries would need more than {MAX_FIT_EXECUTIONS} executions of each",
                percent(counts.target, 2)
            )
        },
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
        Check {
            name: "x",
            status,
            scope,
            detail: String::new(),
        }
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
        assert_eq!(noise_check(&c, &counts).status, Status::Problem);
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
