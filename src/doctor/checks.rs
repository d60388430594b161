//! The doctor's checks of the machine: what a layout experiment needs (compilers, linkers,
//! valgrind, ASLR control) and what makes its time measurements noisy (load, frequency
//! scaling, boost, SMT). Each check says what it rules out when it fails.

use serde::Serialize;

use crate::analysis::answers::host_conditions::LOADED_SHARE;
use crate::files::results::{HostConditions, Load};
use crate::relink::toolchain::version_line;
use crate::run::environment::probe_aslr_off;
use crate::run::preflight::which;

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
pub struct Check {
    /// Short name (`ASLR control`, `linkers`, `load`, …).
    pub(crate) name: &'static str,
    /// Its outcome.
    pub(crate) status: Status,
    /// What it rules out when it is a problem.
    pub(crate) scope: Scope,
    /// What was found, with the figures.
    pub(crate) detail: String,
}

impl Check {
    fn new(name: &'static str, status: Status, scope: Scope, detail: String) -> Check {
        Check {
            name,
            status,
            scope,
            detail,
        }
    }
}

/// The compiler drivers the shim handles.
const COMPILERS: [&str; 6] = ["cc", "gcc", "clang", "c++", "g++", "clang++"];
/// The linkers a relink can use besides ld.bfd.
const OPTIONAL_LINKERS: [&str; 3] = ["ld.gold", "ld.lld", "mold"];

/// Whether personality(ADDR_NO_RANDOMIZE) takes effect in a child process.
pub(crate) fn aslr_check() -> Check {
    match probe_aslr_off() {
        Ok(()) => Check::new(
            "ASLR control",
            Status::Ok,
            Scope::Time,
            "personality(ADDR_NO_RANDOMIZE) takes effect: executions run with ASLR off".into(),
        ),
        Err(why) => Check::new(
            "ASLR control",
            Status::Problem,
            Scope::Time,
            format!(
                "{why}: stack, heap and library addresses would change from one execution to the next and add their own noise to time measurements (allow the personality system call, e.g. a container's seccomp profile, or set kernel.randomize_va_space = 0)"
            ),
        ),
    }
}

/// The compiler drivers on PATH; a problem when there is no C compiler at all.
pub(crate) fn compiler_check() -> Check {
    let found: Vec<&str> = COMPILERS
        .iter()
        .copied()
        .filter(|c| which(c).is_some())
        .collect();
    if found.iter().any(|c| ["cc", "gcc", "clang"].contains(c)) {
        Check::new("compilers", Status::Ok, Scope::Any, found.join(", "))
    } else {
        Check::new(
            "compilers",
            Status::Problem,
            Scope::Any,
            format!(
                "no C compiler (cc, gcc or clang) on PATH{}: nothing can be built",
                if found.is_empty() {
                    String::new()
                } else {
                    format!("; found {}", found.join(", "))
                }
            ),
        )
    }
}

/// The linkers on PATH: ld.bfd is needed (every non-LTO relink merges the objects with
/// `ld.bfd -r`), the others only for `--linker gold|lld|mold`.
pub(crate) fn linker_check() -> Check {
    let optional: Vec<&str> = OPTIONAL_LINKERS
        .iter()
        .copied()
        .filter(|l| which(l).is_some())
        .collect();
    let missing: Vec<&str> = OPTIONAL_LINKERS
        .iter()
        .copied()
        .filter(|l| !optional.contains(l))
        .collect();
    if which("ld.bfd").is_none() {
        return Check::new(
            "linkers",
            Status::Problem,
            Scope::Any,
            "ld.bfd (GNU binutils) not on PATH: the relinks merge every program's objects with `ld.bfd -r`, so no seed can be built".into(),
        );
    }
    let mut found = vec!["ld.bfd"];
    found.extend(&optional);
    if missing.is_empty() {
        Check::new("linkers", Status::Ok, Scope::Any, found.join(", "))
    } else {
        Check::new(
            "linkers",
            Status::Note,
            Scope::Any,
            format!(
                "{}; not found: {} (needed only for builds that use them)",
                found.join(", "),
                missing.join(", ")
            ),
        )
    }
}

/// valgrind, for `--metric cachegrind`.
pub(crate) fn valgrind_check() -> Check {
    match which("valgrind") {
        Some(path) => Check::new(
            "valgrind",
            Status::Ok,
            Scope::Cachegrind,
            format!(
                "{} (--metric cachegrind, deterministic)",
                version_line(&path)
            ),
        ),
        None => Check::new(
            "valgrind",
            Status::Problem,
            Scope::Cachegrind,
            "not on PATH: --metric cachegrind (the deterministic metric) is unavailable".into(),
        ),
    }
}

/// The load now against the cores: above [`LOADED_SHARE`] of them, other tasks share the
/// benchmark's core (the threshold the report's warning uses).
pub(crate) fn load_check(load: Option<&Load>, cores: Option<u32>) -> Check {
    let (Some(load), Some(cores)) = (load, cores.filter(|c| *c > 0)) else {
        return Check::new(
            "load",
            Status::Note,
            Scope::Time,
            "unknown (/proc/loadavg or the number of cores unreadable)".into(),
        );
    };
    let [one, five, fifteen] = load.average;
    let figures = format!(
        "1-minute load {one:.2} on {cores} core(s) (5 and 15 minutes: {five:.2}, {fifteen:.2}), {} other running process(es)",
        load.other_running
    );
    if one > LOADED_SHARE * f64::from(cores) {
        Check::new(
            "load",
            Status::Problem,
            Scope::Time,
            format!(
                "{figures}: above half the cores, so other tasks share the benchmark's core and time measurements carry their noise"
            ),
        )
    } else {
        Check::new("load", Status::Ok, Scope::Time, figures)
    }
}

/// Frequency scaling, boost and SMT: each adds time noise, none rules timing out by itself
/// (the calibration measures what they cost).
pub(crate) fn frequency_checks(c: &HostConditions) -> Vec<Check> {
    let mut checks = Vec::new();
    let scaling: Vec<&str> = c
        .governors
        .iter()
        .map(String::as_str)
        .filter(|g| *g != "performance")
        .collect();
    checks.push(if c.governors.is_empty() {
        Check::new(
            "frequency scaling",
            Status::Ok,
            Scope::Time,
            "no cpufreq governor exposed (typical of virtual machines: the host controls the clock)".into(),
        )
    } else if scaling.is_empty() {
        Check::new(
            "frequency scaling",
            Status::Ok,
            Scope::Time,
            "governor performance".into(),
        )
    } else {
        Check::new(
            "frequency scaling",
            Status::Note,
            Scope::Time,
            format!(
                "governor {}: the clock follows the load, which adds time noise; set `performance` for timing runs",
                scaling.join(", ")
            ),
        )
    });
    checks.push(switch(
        "boost",
        c.boost,
        "on: the clock depends on temperature and on the other cores' activity; disable it for timing runs",
    ));
    checks.push(switch(
        "SMT",
        c.smt,
        "on: sibling hardware threads share a core's caches and pipeline; with other work on the machine, pin executions with --cpus to one thread per core",
    ));
    checks
}

/// The timing check of a hardware feature that is on (`Some(true)`: a note saying `when_on`),
/// off, or not exposed by the kernel.
fn switch(name: &'static str, on: Option<bool>, when_on: &str) -> Check {
    match on {
        Some(true) => Check::new(name, Status::Note, Scope::Time, when_on.into()),
        Some(false) => Check::new(name, Status::Ok, Scope::Time, "off".into()),
        None => Check::new(name, Status::Ok, Scope::Time, "not exposed".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(one: f64) -> Load {
        Load {
            average: [one, 1.0, 1.0],
            other_running: 2,
        }
    }

    #[test]
    fn load_above_half_the_cores_is_a_problem_for_timing() {
        let busy = load_check(Some(&load(1.2)), Some(2));
        assert_eq!((busy.status, busy.scope), (Status::Problem, Scope::Time));
        assert!(busy.detail.contains("1.20 on 2 core(s)"), "{busy:?}");
        assert_eq!(load_check(Some(&load(0.9)), Some(2)).status, Status::Ok);
        assert_eq!(load_check(None, Some(2)).status, Status::Note);
    }

    #[test]
    fn scaling_boost_and_smt_are_notes() {
        let c = HostConditions {
            load: None,
            governors: vec!["schedutil".into()],
            boost: Some(true),
            smt: Some(true),
        };
        let checks = frequency_checks(&c);
        assert!(
            checks.iter().all(|c| c.status == Status::Note),
            "{checks:?}"
        );
        assert!(checks[0].detail.contains("schedutil"));
        let quiet = frequency_checks(&HostConditions {
            governors: vec!["performance".into()],
            ..HostConditions::default()
        });
        assert!(quiet.iter().all(|c| c.status == Status::Ok), "{quiet:?}");
    }

    #[test]
    fn the_tools_of_this_machine_are_found() {
        // scripts/setup.sh installs gcc, clang, binutils, gold, lld, mold and valgrind.
        assert_eq!(compiler_check().status, Status::Ok);
        assert_eq!(linker_check().status, Status::Ok, "{:?}", linker_check());
        let v = valgrind_check();
        assert!(
            v.status == Status::Ok && v.detail.contains("valgrind"),
            "{v:?}"
        );
    }
}
