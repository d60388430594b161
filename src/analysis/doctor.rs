//! The model of `layoutrand doctor`'s answer: what the checks found, the calibration's
//! figures, the counts a target precision needs and the verdict, as numbers and enums.
//! [`crate::doctor`] computes it; [`crate::report::doctor`] says it in words (the text
//! report, and each check's `detail` on the wire).

use serde::Serialize;

use crate::files::results::{HostConditions, HostInfo};
use crate::stats::multilevel::LevelEstimate;
use crate::wire::{words, Shape};

/// Version of the JSON form of [`DoctorReport`] (docs/formats.md).
pub(crate) const DOCTOR_SCHEMA: u32 = crate::analysis::vocabulary::OUTPUT_SCHEMA;

/// A 1 % difference between two binaries should be detectable with at most this many
/// executions per binary for time measurements to count as fit: Kalibera & Jones (2013 §9.1)
/// suggest 20–30 repetitions per level for an initial experiment; beyond 30 executions of
/// every binary, layout effects of the size the demo shows are out of practical reach.
pub(crate) const MAX_FIT_EXECUTIONS: usize = 30;

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    /// Fine.
    Ok,
    /// Worth knowing, but not disqualifying (e.g. an optional linker is missing).
    Note,
    /// Rules out the experiments of its [`Scope`].
    Problem,
}

/// Which experiments a failed check rules out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Scope {
    /// Every layout experiment (nothing can be built).
    Any,
    /// Experiments with a time metric (wall, cpu, regex:).
    Time,
    /// Experiments with the deterministic metric (cachegrind).
    Cachegrind,
}

/// One check.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = words("detail", Shape::Sentence, "What was found, with the figures."))]
pub struct Check {
    /// Short name (`ASLR control`, `linkers`, `load`, …).
    pub(crate) name: &'static str,
    /// Its outcome.
    pub(crate) status: Status,
    /// What it rules out when it is a problem.
    pub(crate) scope: Scope,
    /// What was found, with the figures. On the wire: `detail`, its sentence
    /// ([`crate::report::doctor::detail`]).
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) finding: Finding,
}

impl Check {
    /// A check named `name` that found `finding`.
    pub(crate) fn new(name: &'static str, status: Status, scope: Scope, finding: Finding) -> Check {
        Check {
            name,
            status,
            scope,
            finding,
        }
    }
}

/// The load now, against the cores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LoadFigures {
    /// Load averages over 1, 5 and 15 minutes.
    pub(crate) average: [f64; 3],
    /// The cores.
    pub(crate) cores: u32,
    /// Runnable tasks other than the reader.
    pub(crate) other_running: u32,
}

/// The relative standard deviations of a calibration's means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NoiseFigures {
    /// Between executions' means.
    pub(crate) between_executions: f64,
    /// Between iterations within an execution; `None` with one live iteration.
    pub(crate) within_executions: Option<f64>,
}

/// What the machine's /dev/null is when it is not the null device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotNull {
    /// A regular file (a removed /dev/null written again).
    RegularFile,
    /// No such path.
    Missing,
    /// Another kind of file (a folder, a link, a block device, ...).
    Other,
}

/// What a check found, with its figures and names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Finding {
    /// C compilers on PATH: the drivers found.
    Compilers { found: Vec<String> },
    /// No C compiler (cc, gcc, clang) on PATH; the other drivers found.
    NoCompiler { found: Vec<String> },
    /// ld.bfd is on PATH: the linkers found (ld.bfd first) and the optional ones missing.
    Linkers {
        found: Vec<String>,
        missing: Vec<String>,
    },
    /// ld.bfd is not on PATH.
    NoLdBfd,
    /// valgrind on PATH, with its version line.
    Valgrind { version: String },
    /// valgrind is not on PATH.
    NoValgrind,
    /// personality(ADDR_NO_RANDOMIZE) takes effect in a child.
    AslrOff,
    /// It does not, for the reason given (the OS's error).
    AslrNotControlled { why: String },
    /// /dev/null is the null device (a character device).
    NullDevice,
    /// It is something else.
    NoNullDevice(NotNull),
    /// /proc/loadavg or the number of cores unreadable.
    LoadUnknown,
    /// The load is at most half the cores.
    Load(LoadFigures),
    /// The load is above half the cores.
    Overloaded(LoadFigures),
    /// The 1-minute load is above half the cores but no other process runs now: the
    /// average carries work that has ended.
    LoadEnded(LoadFigures),
    /// No cpufreq governor exposed.
    NoGovernor,
    /// Every governor is `performance`.
    GovernorPerformance,
    /// The governors other than `performance` in use.
    GovernorScaling { governors: Vec<String> },
    /// Boost is on.
    BoostOn,
    /// SMT is on.
    SmtOn,
    /// The hardware feature is off.
    Off,
    /// The kernel does not expose the hardware feature.
    NotExposed,
    /// The calibration measured this noise, fit for time metrics.
    Noise(NoiseFigures),
    /// The calibration measured this noise: a difference of `target` between two binaries
    /// would need more than [`MAX_FIT_EXECUTIONS`] executions of each.
    TooNoisy { noise: NoiseFigures, target: f64 },
    /// The calibration failed (the error, with its causes).
    CalibrationFailed { why: String },
    /// The calibration was skipped (`--no-calibration`).
    NotCalibrated,
}

/// The measured noise.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Calibration {
    /// Executions measured.
    pub(crate) executions: usize,
    /// Live iterations per execution (after the warmup).
    pub(crate) live_iterations: usize,
    /// Mean live iteration, in ms.
    pub(crate) mean_ms: f64,
    /// Each execution's mean live iteration, in ms, in order.
    pub(crate) execution_means_ms: Vec<f64>,
    /// Relative standard deviation of the executions' means (`√S²/mean` at the execution
    /// level, the figure the report's *Noise* line uses).
    pub(crate) cv_between_executions: f64,
    /// Relative standard deviation of the iterations within an execution (`√S₁²/mean`);
    /// `None` with one live iteration per execution.
    pub(crate) cv_within_executions: Option<f64>,
    /// The variance estimators per level, iteration first (Kalibera & Jones eq. 1–2), in ms².
    pub(crate) levels: Vec<LevelEstimate>,
    /// Whether ASLR was off in the executions.
    pub(crate) aslr_off: bool,
    /// Wall time the calibration took, in seconds.
    pub(crate) seconds: f64,
}

impl Calibration {
    /// The relative standard deviations of its means.
    pub(crate) fn noise(&self) -> NoiseFigures {
        NoiseFigures {
            between_executions: self.cv_between_executions,
            within_executions: self.cv_within_executions,
        }
    }
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
        let exit = match self {
            Fitness::Fit => crate::exit::Exit::Complete,
            Fitness::DeterministicOnly => crate::exit::Exit::GateFailed,
            Fitness::NotFit => crate::exit::Exit::NotFit,
        };
        exit.code()
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
