//! The doctor's answer as text for people.

use std::fmt::Write;

use super::checks::Status;
use super::{DoctorReport, Fitness, MAX_FIT_EXECUTIONS};
use crate::report::numfmt::{level, percent, sig};

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
        let _ = writeln!(out, "  {status:<8} {:<width$}  {}", c.name, c.detail);
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
            c.noise_figures()
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
    use super::checks::Scope;
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
