//! What a metric is: the `--metric` specification as the store's header records it, the
//! name of a run's primary metric, and the cycle estimate derived from cachegrind's events.
//! A notion of the stored data, shared by the runner (which collects the values,
//! [`crate::run::metric`]) and the analysis (which names and reads them).

use anyhow::{bail, Context, Result};
use regex::Regex;

/// The `--metric` choice.
#[derive(Debug, Clone)]
pub(crate) enum MetricSpec {
    /// Wall time of the process (monotonic clock), ns.
    Wall,
    /// User + system CPU time of the process (wait4's rusage), ns.
    Cpu,
    /// Simulated cache events under `valgrind --tool=cachegrind --cache-sim=yes`.
    Cachegrind,
    /// One value per iteration, captured from the program's stdout.
    Reported(Regex),
}

/// Metric name of program-reported values in the store.
pub(crate) const REPORTED: &str = "reported";

impl MetricSpec {
    /// Parses `wall`, `cpu`, `cachegrind` or `regex:PATTERN`.
    ///
    /// The pattern's value is its capture group named `value`, else its first group, else
    /// the whole match; an optional group named `unit` gives the unit.
    pub(crate) fn parse(text: &str) -> Result<MetricSpec> {
        Ok(match text {
            "wall" => MetricSpec::Wall,
            "cpu" => MetricSpec::Cpu,
            "cachegrind" => MetricSpec::Cachegrind,
            _ => match text.strip_prefix("regex:") {
                Some(pattern) => MetricSpec::Reported(Regex::new(pattern).with_context(|| {
                    format!("--metric {text}: {pattern:?} is not a valid regular expression")
                })?),
                None => bail!("--metric {text:?}: expected wall, cpu, cachegrind or regex:PATTERN"),
            },
        })
    }

    /// The store's metric name of the primary value: `wall`, `cpu`, `estimated_cycles` or
    /// `reported`.
    #[cfg(test)]
    pub(crate) fn primary_name(&self) -> &'static str {
        match self {
            MetricSpec::Wall => "wall",
            MetricSpec::Cpu => "cpu",
            MetricSpec::Cachegrind => ESTIMATED_CYCLES,
            MetricSpec::Reported(_) => REPORTED,
        }
    }

    /// True when the metric gives the same value however many executions share the
    /// machine (a simulation), so executions may run in parallel (`run --jobs`).
    pub(crate) fn is_deterministic(&self) -> bool {
        matches!(self, MetricSpec::Cachegrind)
    }

    /// True when the program reports one value per iteration.
    pub(crate) fn has_iterations(&self) -> bool {
        matches!(self, MetricSpec::Reported(_))
    }
}

/// Metric name of cachegrind's estimated cycles (see [`estimated_cycles`]).
pub(crate) const ESTIMATED_CYCLES: &str = "estimated_cycles";

/// The primary metric of cachegrind runs recorded before `estimated_cycles` existed.
const OLD_CACHEGRIND_PRIMARY: &str = "I1_misses";

/// The primary metric name for a stored `--metric` specification (`regex:…` → `reported`).
pub fn primary_name_of_spec(spec: &str) -> &'static str {
    match spec {
        "wall" => "wall",
        "cpu" => "cpu",
        "cachegrind" => ESTIMATED_CYCLES,
        _ => REPORTED,
    }
}

/// The primary metric of a store whose header says `spec` and which recorded the metrics
/// for which `recorded` is true: as [`primary_name_of_spec`], except that a cachegrind store
/// written before `estimated_cycles` existed keeps its primary of then, `I1_misses`.
pub(crate) fn primary_name_in_store(spec: &str, recorded: impl Fn(&str) -> bool) -> &'static str {
    let primary = primary_name_of_spec(spec);
    if primary == ESTIMATED_CYCLES && !recorded(ESTIMATED_CYCLES) {
        OLD_CACHEGRIND_PRIMARY
    } else {
        primary
    }
}

/// The metrics `run --metric cachegrind` derives from cachegrind's raw events, in the order
/// the store records them after the events: estimated cycles, and the first- and last-level
/// misses.
pub(crate) const CACHEGRIND_DERIVED: [&str; 4] =
    [ESTIMATED_CYCLES, "I1_misses", "D1_misses", "LL_misses"];

/// The value of cachegrind metric `name` from the counts `event` gives: a raw event
/// (`Ir`, `I1mr`, …) as it is, or one of [`CACHEGRIND_DERIVED`] (`I1_misses` = I1mr,
/// `D1_misses` = D1mr + D1mw, `LL_misses` = ILmr + DLmr + DLmw, [`estimated_cycles`]).
/// The one definition of each, for a whole run's totals and for one function's counts
/// alike. `None` when an event it needs is missing.
pub(crate) fn cachegrind_metric(name: &str, event: impl Fn(&str) -> Option<f64>) -> Option<f64> {
    let sum = |names: &[&str]| -> Option<f64> { names.iter().map(|n| event(n)).sum() };
    match name {
        ESTIMATED_CYCLES => estimated_cycles(event),
        "I1_misses" => sum(&["I1mr"]),
        "D1_misses" => sum(&["D1mr", "D1mw"]),
        "LL_misses" => sum(&["ILmr", "DLmr", "DLmw"]),
        raw => event(raw),
    }
}

/// Cycles estimated from cachegrind's counts with the cost model of iai-callgrind (now
/// Gungraun), itself taken from the `iai` crate: an L1 hit costs 1 cycle, a last-level hit 5,
/// a RAM access (last-level miss) 35.
///
/// With `Ir`, `Dr`, `Dw` the instruction and data references and `I1mr`, `D1mr`, `D1mw`,
/// `ILmr`, `DLmr`, `DLmw` the first- and last-level misses:
/// RAM = ILmr + DLmr + DLmw; L1 misses = I1mr + D1mr + D1mw; LL hits = L1 misses − RAM;
/// L1 hits = Ir + Dr + Dw − L1 misses; estimate = L1 hits + 5·LL hits + 35·RAM.
/// `None` when one of the events is missing. See docs/run.md.
pub(crate) fn estimated_cycles(event: impl Fn(&str) -> Option<f64>) -> Option<f64> {
    let sum = |names: &[&str]| -> Option<f64> { names.iter().map(|n| event(n)).sum() };
    let references = sum(&["Ir", "Dr", "Dw"])?;
    let l1_misses = sum(&["I1mr", "D1mr", "D1mw"])?;
    let ram = sum(&["ILmr", "DLmr", "DLmw"])?;
    let l1_hits = references - l1_misses;
    let ll_hits = l1_misses - ram;
    Some(l1_hits + 5.0 * ll_hits + 35.0 * ram)
}
