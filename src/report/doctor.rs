//! `layoutrand doctor`'s answer in words: the text report for people, and each check's
//! `detail` sentence, which the JSON carries beside the check's status and scope. The model
//! ([`crate::analysis::doctor`]) holds what the checks found as figures and names.

use std::fmt::Write;

use crate::analysis::doctor::{
    Check, DoctorReport, Finding, Fitness, LoadFigures, NoiseFigures, NotNull, Scope, Status,
    MAX_FIT_EXECUTIONS,
};
use crate::report::numfmt::{level, percent, sig};

crate::report::words::on_the_wire!(Check {
    detail: String = |c: &Check| detail(&c.finding)
});

/// The report: host, one line per check, the calibration and the counts, the verdict.
pub fn render_text(r: &DoctorReport) -> String {
    let mut out = String::new();
    let unknown = || "unknown".to_string();
    let _ = writeln!(
        out,
        "layoutrand doctor: is this machine fit for a layout experiment?\nHost: {}, {} core(s), kernel {}.",
        r.host.cpu_model.clone().unwrap_or_else(unknown),
        r.host.cores.map_or_else(unknown, |c| c.to_string()),
        r.host.kernel.clone().unwrap_or_else(unknown)
    );
    let width = r.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in &r.checks {
        let status = match c.status {
            Status::Ok => "ok",
            Status::Note => "note",
            Status::Problem => "PROBLEM",
        };
        let _ = writeln!(
            out,
            "  {status:<8} {:<width$}  {}",
            c.name,
            detail(&c.finding)
        );
    }
    if let Some(c) = &r.calibration {
        let _ = writeln!(
            out,
            "Calibration: {} executions × {} live iteration(s) of a fixed loop (1 MiB pointer chase, {} ms per iteration), ASLR {}, {} s: {} (relative standard deviations of the means).",
            c.executions,
            c.live_iterations,
            sig(c.mean_ms, 3),
            if c.aslr_off { "off" } else { "on" },
            sig(c.seconds, 2),
            noise_figures(&c.noise())
        );
    }
    if let Some(n) = &r.counts {
        let count =
            |x: Option<usize>| x.map_or_else(|| "more than 100 000".to_string(), |x| x.to_string());
        let _ = writeln!(
            out,
            "For a ±{t} answer with this noise: {} execution(s) put one binary's mean within ±{t} ({} CI, Kalibera & Jones eq. 4); {} execution(s) of each binary detect a {t} difference between two binaries (two-sided test at {}, {} power); with run's default {} executions the smallest detectable difference is ≈ {}. Layout variation adds binaries on top: `layoutrand experiment --initial` measures it.",
            count(n.executions_for_interval),
            level(n.confidence),
            count(n.executions_to_detect),
            percent(1.0 - n.confidence, 0),
            percent(n.power, 0),
            n.default_executions,
            n.detectable_at_default.map_or_else(|| "-".to_string(), |d| percent(d, 2)),
            t = percent(n.target, 2),
        );
    }
    let _ = writeln!(out, "Verdict: {} (exit code {}).", verdict(r), r.exit_code);
    out
}

/// The verdict in words, naming the checks that failed (those of time metrics apart when the
/// machine is still fit for deterministic ones).
fn verdict(r: &DoctorReport) -> String {
    let why = |scope| {
        r.checks
            .iter()
            .filter(|c| c.status == Status::Problem && c.scope == scope)
            .map(|c| c.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match r.verdict {
        Fitness::Fit => "fit for layout experiments, time metrics included".to_string(),
        Fitness::DeterministicOnly => format!(
            "fit for deterministic experiments only (--metric cachegrind): time measurements here would be unreliable ({}); layout effects of a few per cent need a quiet machine (a {} difference detectable with at most {MAX_FIT_EXECUTIONS} executions per binary)",
            why(Scope::Time),
            r.counts.as_ref().map_or_else(|| "1 %".to_string(), |n| percent(n.target, 2))
        ),
        Fitness::NotFit => {
            let mut problems = why(Scope::Any);
            for extra in [why(Scope::Time), why(Scope::Cachegrind)] {
                if !extra.is_empty() {
                    if !problems.is_empty() {
                        problems.push_str(", ");
                    }
                    problems.push_str(&extra);
                }
            }
            format!("not fit for a layout experiment ({problems})")
        }
    }
}

/// What a check found, in words with its figures (a check's `detail`).
pub(crate) fn detail(finding: &Finding) -> String {
    match finding {
        Finding::Compilers { found } => found.join(", "),
        Finding::NoCompiler { found } => format!(
            "no C compiler (cc, gcc or clang) on PATH{}: nothing can be built",
            if found.is_empty() {
                String::new()
            } else {
                format!("; found {}", found.join(", "))
            }
        ),
        Finding::Linkers { found, missing } if missing.is_empty() => found.join(", "),
        Finding::Linkers { found, missing } => format!(
            "{}; not found: {} (needed only for builds that use them)",
            found.join(", "),
            missing.join(", ")
        ),
        Finding::NoLdBfd => "ld.bfd (GNU binutils) not on PATH: the relinks merge every program's objects with `ld.bfd -r`, so no seed can be built".into(),
        Finding::Valgrind { version } => {
            format!("{version} (--metric cachegrind, deterministic)")
        }
        Finding::NoValgrind => {
            "not on PATH: --metric cachegrind (the deterministic metric) is unavailable".into()
        }
        Finding::AslrOff => {
            "personality(ADDR_NO_RANDOMIZE) takes effect: executions run with ASLR off".into()
        }
        Finding::AslrNotControlled { why } => format!(
            "{why}: stack, heap and library addresses would change from one execution to the next and add their own noise to time measurements (allow the personality system call, e.g. a container's seccomp profile, or set kernel.randomize_va_space = 0)"
        ),
        Finding::NullDevice => "the null device: output sent there is discarded".into(),
        Finding::NoNullDevice(what) => format!(
            "{}, not the null device: output a benchmark sends to /dev/null is written to disk and timed with it (a program run as root that removes its output file when it fails removes /dev/null if told to write there); restore it as root: rm -f /dev/null && mknod -m 666 /dev/null c 1 3",
            match what {
                NotNull::RegularFile => "a regular file",
                NotNull::Missing => "missing",
                NotNull::Other => "neither the null device nor a regular file",
            }
        ),
        Finding::LoadUnknown => {
            "unknown (/proc/loadavg or the number of cores unreadable)".into()
        }
        Finding::Load(figures) => load(figures),
        Finding::Overloaded(figures) => format!(
            "{}: above half the cores, so other tasks share the benchmark's core and time measurements carry their noise",
            load(figures)
        ),
        Finding::LoadEnded(figures) => format!(
            "{}: above half the cores over the last minute, but no other process runs now: the average still carries work that has ended; the noise calibration below measures the host as it is",
            load(figures)
        ),
        Finding::NoGovernor => "no cpufreq governor exposed (typical of virtual machines: the host controls the clock)".into(),
        Finding::GovernorPerformance => "governor performance".into(),
        Finding::GovernorScaling { governors } => format!(
            "governor {}: the clock follows the load, which adds time noise; set `performance` for timing runs",
            governors.join(", ")
        ),
        Finding::BoostOn => "on: the clock depends on temperature and on the other cores' activity; disable it for timing runs".into(),
        Finding::SmtOn => "on: sibling hardware threads share a core's caches and pipeline; with other work on the machine, pin executions with --cpus to one thread per core".into(),
        Finding::Off => "off".into(),
        Finding::NotExposed => "not exposed".into(),
        Finding::Noise(noise) => noise_figures(noise),
        Finding::TooNoisy { noise, target } => format!(
            "{}: a {} difference between two binaries would need more than {MAX_FIT_EXECUTIONS} executions of each",
            noise_figures(noise),
            percent(*target, 2)
        ),
        Finding::CalibrationFailed { why } => format!("the calibration failed: {why}"),
        Finding::NotCalibrated => "not measured (--no-calibration)".into(),
    }
}

/// `1-minute load L on N core(s) (…), K other running process(es)`.
fn load(f: &LoadFigures) -> String {
    let [one, five, fifteen] = f.average;
    format!(
        "1-minute load {one:.2} on {} core(s) (5 and 15 minutes: {five:.2}, {fifteen:.2}), {} other running process(es)",
        f.cores, f.other_running
    )
}

/// `executions vary by X % (iterations within one by Y %)`: the noise in words.
fn noise_figures(noise: &NoiseFigures) -> String {
    let within = noise
        .within_executions
        .map(|cv| format!(" (iterations within one by {})", percent(cv, 2)))
        .unwrap_or_default();
    format!(
        "executions vary by {}{within}",
        percent(noise.between_executions, 2)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_tools_findings_in_words() {
        let found = names(&["cc", "gcc"]);
        assert_eq!(detail(&Finding::Compilers { found }), "cc, gcc");
        assert_eq!(
            detail(&Finding::NoCompiler {
                found: names(&["c++"])
            }),
            "no C compiler (cc, gcc or clang) on PATH; found c++: nothing can be built"
        );
        assert_eq!(
            detail(&Finding::Linkers {
                found: names(&["ld.bfd", "mold"]),
                missing: names(&["ld.gold", "ld.lld"])
            }),
            "ld.bfd, mold; not found: ld.gold, ld.lld (needed only for builds that use them)"
        );
        assert_eq!(
            detail(&Finding::Valgrind {
                version: "valgrind-3.22.0".into()
            }),
            "valgrind-3.22.0 (--metric cachegrind, deterministic)"
        );
    }

    #[test]
    fn the_aslr_finding_in_words() {
        assert_eq!(
            detail(&Finding::AslrNotControlled {
                why: "personality failed: EPERM".into()
            }),
            "personality failed: EPERM: stack, heap and library addresses would change from one execution to the next and add their own noise to time measurements (allow the personality system call, e.g. a container's seccomp profile, or set kernel.randomize_va_space = 0)"
        );
    }

    #[test]
    fn a_missing_null_device_in_words() {
        assert_eq!(
            detail(&Finding::NoNullDevice(NotNull::RegularFile)),
            "a regular file, not the null device: output a benchmark sends to /dev/null is written to disk and timed with it (a program run as root that removes its output file when it fails removes /dev/null if told to write there); restore it as root: rm -f /dev/null && mknod -m 666 /dev/null c 1 3"
        );
    }

    #[test]
    fn the_load_in_words() {
        let figures = LoadFigures {
            average: [1.2, 1.0, 0.5],
            cores: 2,
            other_running: 3,
        };
        assert_eq!(
            detail(&Finding::Overloaded(figures)),
            "1-minute load 1.20 on 2 core(s) (5 and 15 minutes: 1.00, 0.50), 3 other running process(es): above half the cores, so other tasks share the benchmark's core and time measurements carry their noise"
        );
        let ended = LoadFigures {
            other_running: 0,
            ..figures
        };
        assert_eq!(
            detail(&Finding::LoadEnded(ended)),
            "1-minute load 1.20 on 2 core(s) (5 and 15 minutes: 1.00, 0.50), 0 other running process(es): above half the cores over the last minute, but no other process runs now: the average still carries work that has ended; the noise calibration below measures the host as it is"
        );
    }

    #[test]
    fn the_clock_in_words() {
        assert_eq!(
            detail(&Finding::GovernorScaling {
                governors: names(&["schedutil", "powersave"])
            }),
            "governor schedutil, powersave: the clock follows the load, which adds time noise; set `performance` for timing runs"
        );
    }

    #[test]
    fn the_noise_in_words() {
        let noise = NoiseFigures {
            between_executions: 0.0123,
            within_executions: Some(0.0045),
        };
        assert_eq!(
            detail(&Finding::TooNoisy {
                noise,
                target: 0.01
            }),
            "executions vary by 1.2 % (iterations within one by 0.45 %): a 1.0 % difference between two binaries would need more than 30 executions of each"
        );
    }

    #[test]
    fn a_check_carries_its_detail_on_the_wire() {
        let check = Check::new("boost", Status::Note, Scope::Time, Finding::Off);
        assert_eq!(
            serde_json::to_string(&check).unwrap(),
            r#"{"name":"boost","status":"note","scope":"time","detail":"off"}"#
        );
    }
}
