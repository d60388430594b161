//! The doctor's checks of the machine: what a layout experiment needs (compilers, linkers,
//! valgrind, ASLR control) and what makes its time measurements noisy (load, frequency
//! scaling, boost, SMT). Each check says what it rules out when it fails, and what it found
//! as a [`Finding`] (its figures and names; [`crate::report::doctor::detail`] words it).

use crate::analysis::answers::host_conditions::LOADED_SHARE;
use crate::analysis::doctor::{Check, Finding, LoadFigures, NotNull, Scope, Status};
use crate::files::results::{HostConditions, Load};
use crate::relink::toolchain::version_line;
use crate::run::environment::probe_aslr_off;
use crate::run::preflight::which;

/// The compiler drivers the shim handles.
const COMPILERS: [&str; 6] = ["cc", "gcc", "clang", "c++", "g++", "clang++"];
/// The linkers a relink can use besides ld.bfd.
const OPTIONAL_LINKERS: [&str; 3] = ["ld.gold", "ld.lld", "mold"];

/// Whether personality(ADDR_NO_RANDOMIZE) takes effect in a child process.
pub(crate) fn aslr_check() -> Check {
    match probe_aslr_off() {
        Ok(()) => Check::new("ASLR control", Status::Ok, Scope::Time, Finding::AslrOff),
        Err(why) => Check::new(
            "ASLR control",
            Status::Problem,
            Scope::Time,
            Finding::AslrNotControlled { why },
        ),
    }
}

/// Whether `path` (the machine's /dev/null) is a character device. A program run as root
/// that removes its output when it fails removes /dev/null if told to write there (nasm
/// 2.16 does), and the next command that writes to it creates a regular file: output a
/// benchmark sends there then goes to disk and is timed with it.
pub(crate) fn null_device_check(path: &std::path::Path) -> Check {
    use std::os::unix::fs::FileTypeExt;
    let finding = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_char_device() => Finding::NullDevice,
        Ok(m) if m.is_file() => Finding::NoNullDevice(NotNull::RegularFile),
        Ok(_) => Finding::NoNullDevice(NotNull::Other),
        Err(_) => Finding::NoNullDevice(NotNull::Missing),
    };
    let status = if finding == Finding::NullDevice {
        Status::Ok
    } else {
        Status::Problem
    };
    Check::new("/dev/null", status, Scope::Time, finding)
}

/// The compiler drivers on PATH; a problem when there is no C compiler at all.
pub(crate) fn compiler_check() -> Check {
    let found: Vec<String> = COMPILERS
        .iter()
        .filter(|c| which(c).is_some())
        .map(|c| c.to_string())
        .collect();
    if found
        .iter()
        .any(|c| ["cc", "gcc", "clang"].contains(&c.as_str()))
    {
        Check::new(
            "compilers",
            Status::Ok,
            Scope::Any,
            Finding::Compilers { found },
        )
    } else {
        Check::new(
            "compilers",
            Status::Problem,
            Scope::Any,
            Finding::NoCompiler { found },
        )
    }
}

/// The linkers on PATH: ld.bfd is needed (every non-LTO relink merges the objects with
/// `ld.bfd -r`), the others only for `--linker gold|lld|mold`.
pub(crate) fn linker_check() -> Check {
    if which("ld.bfd").is_none() {
        return Check::new("linkers", Status::Problem, Scope::Any, Finding::NoLdBfd);
    }
    let (optional, missing): (Vec<&str>, Vec<&str>) = OPTIONAL_LINKERS
        .iter()
        .copied()
        .partition(|l| which(l).is_some());
    let found = std::iter::once("ld.bfd").chain(optional).map(String::from);
    let missing: Vec<String> = missing.into_iter().map(String::from).collect();
    let status = if missing.is_empty() {
        Status::Ok
    } else {
        Status::Note
    };
    Check::new(
        "linkers",
        status,
        Scope::Any,
        Finding::Linkers {
            found: found.collect(),
            missing,
        },
    )
}

/// valgrind, for `--metric cachegrind`.
pub(crate) fn valgrind_check() -> Check {
    match which("valgrind") {
        Some(path) => Check::new(
            "valgrind",
            Status::Ok,
            Scope::Cachegrind,
            Finding::Valgrind {
                version: version_line(&path),
            },
        ),
        None => Check::new(
            "valgrind",
            Status::Problem,
            Scope::Cachegrind,
            Finding::NoValgrind,
        ),
    }
}

/// The load now against the cores: above [`LOADED_SHARE`] of them, other tasks share the
/// benchmark's core (the threshold the report's warning uses). A 1-minute average above it
/// while no other process runs now is a note, not a problem: it carries work that has ended
/// (the build just before, say), and the noise calibration measures the host as it is.
pub(crate) fn load_check(load: Option<&Load>, cores: Option<u32>) -> Check {
    let (Some(load), Some(cores)) = (load, cores.filter(|c| *c > 0)) else {
        return Check::new("load", Status::Note, Scope::Time, Finding::LoadUnknown);
    };
    let figures = LoadFigures {
        average: load.average,
        cores,
        other_running: load.other_running,
    };
    let loaded = load.average[0] > LOADED_SHARE * f64::from(cores);
    if loaded && load.other_running == 0 {
        Check::new(
            "load",
            Status::Note,
            Scope::Time,
            Finding::LoadEnded(figures),
        )
    } else if loaded {
        Check::new(
            "load",
            Status::Problem,
            Scope::Time,
            Finding::Overloaded(figures),
        )
    } else {
        Check::new("load", Status::Ok, Scope::Time, Finding::Load(figures))
    }
}

/// Frequency scaling, boost and SMT: each adds time noise, none rules timing out by itself
/// (the calibration measures what they cost).
pub(crate) fn frequency_checks(c: &HostConditions) -> Vec<Check> {
    let mut checks = Vec::new();
    let scaling: Vec<String> = (c.governors.iter())
        .filter(|g| *g != "performance")
        .cloned()
        .collect();
    checks.push(if c.governors.is_empty() {
        Check::new(
            "frequency scaling",
            Status::Ok,
            Scope::Time,
            Finding::NoGovernor,
        )
    } else if scaling.is_empty() {
        Check::new(
            "frequency scaling",
            Status::Ok,
            Scope::Time,
            Finding::GovernorPerformance,
        )
    } else {
        Check::new(
            "frequency scaling",
            Status::Note,
            Scope::Time,
            Finding::GovernorScaling { governors: scaling },
        )
    });
    checks.push(switch("boost", c.boost, Finding::BoostOn));
    checks.push(switch("SMT", c.smt, Finding::SmtOn));
    checks
}

/// The timing check of a hardware feature that is on (`Some(true)`: a note that found
/// `when_on`), off, or not exposed by the kernel.
fn switch(name: &'static str, on: Option<bool>, when_on: Finding) -> Check {
    match on {
        Some(true) => Check::new(name, Status::Note, Scope::Time, when_on),
        Some(false) => Check::new(name, Status::Ok, Scope::Time, Finding::Off),
        None => Check::new(name, Status::Ok, Scope::Time, Finding::NotExposed),
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
    fn a_null_device_that_is_a_file_is_a_problem_for_timing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("null");
        std::fs::write(&file, b"").unwrap();
        let check = null_device_check(&file);
        assert_eq!((check.status, check.scope), (Status::Problem, Scope::Time));
        assert_eq!(check.finding, Finding::NoNullDevice(NotNull::RegularFile));
        let gone = null_device_check(&dir.path().join("gone"));
        assert_eq!(gone.finding, Finding::NoNullDevice(NotNull::Missing));
        let folder = null_device_check(dir.path());
        assert_eq!(folder.finding, Finding::NoNullDevice(NotNull::Other));
        // The machine's own: every test of the build suite relies on it (tests/build/harmless.rs).
        let real = null_device_check(std::path::Path::new("/dev/null"));
        assert_eq!(
            (real.status, real.finding),
            (Status::Ok, Finding::NullDevice)
        );
    }

    #[test]
    fn load_above_half_the_cores_is_a_problem_for_timing() {
        let busy = load_check(Some(&load(1.2)), Some(2));
        assert_eq!((busy.status, busy.scope), (Status::Problem, Scope::Time));
        let figures = LoadFigures {
            average: [1.2, 1.0, 1.0],
            cores: 2,
            other_running: 2,
        };
        assert_eq!(busy.finding, Finding::Overloaded(figures));
        assert_eq!(load_check(Some(&load(0.9)), Some(2)).status, Status::Ok);
        assert_eq!(load_check(None, Some(2)).status, Status::Note);
        // The same average with nothing else running now: work that has ended, a note.
        let ended = Load {
            other_running: 0,
            ..load(1.2)
        };
        let after_a_build = load_check(Some(&ended), Some(2));
        assert_eq!(after_a_build.status, Status::Note);
        assert_eq!(
            after_a_build.finding,
            Finding::LoadEnded(LoadFigures {
                other_running: 0,
                ..figures
            })
        );
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
        assert_eq!(
            checks.iter().map(|c| c.finding.clone()).collect::<Vec<_>>(),
            [
                Finding::GovernorScaling {
                    governors: vec!["schedutil".into()]
                },
                Finding::BoostOn,
                Finding::SmtOn
            ]
        );
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
            matches!(&v.finding, Finding::Valgrind { version } if version.contains("valgrind")),
            "{v:?}"
        );
    }
}
