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
    /// One value per iteration, captured from the program's stdout, with the unit declared
    /// by `regex(UNIT):` for output that does not print it (else the pattern's `unit`
    /// group, or none).
    Reported(Regex, Option<String>),
    /// A benchmark suite's output: one value per case and iteration (repetition), each case
    /// a metric of its own in the store, named by the case.
    Suite(SuiteSpec),
    /// Cachegrind's counts of each case of a suite (`cachegrind:gbench`,
    /// `cachegrind:criterion`): every case run alone under valgrind, one value per case and
    /// execution (see [`crate::run::case_counts`]).
    SuiteCounts(SuiteSpec),
}

/// The prefix of `--metric cachegrind:SUITE`.
const COUNTS_PREFIX: &str = "cachegrind:";

/// A benchmark suite's output format (`--metric gbench|criterion|hyperfine|lines`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SuiteFormat {
    /// Google Benchmark's JSON (`--benchmark_format=json` or `--benchmark_out=FILE`).
    Gbench,
    /// criterion: its `new/sample.json` files under a directory (`target/criterion`), or
    /// cargo-criterion's `--message-format=json` messages on stdout.
    Criterion,
    /// hyperfine's `--export-json FILE`.
    Hyperfine,
    /// Plain `name value [unit]` lines.
    Lines,
}

impl SuiteFormat {
    /// The format's name in `--metric`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SuiteFormat::Gbench => "gbench",
            SuiteFormat::Criterion => "criterion",
            SuiteFormat::Hyperfine => "hyperfine",
            SuiteFormat::Lines => "lines",
        }
    }
}

/// `--metric FORMAT[:cpu_time][@PATH]`: which suite format, from where (the program's
/// stdout, or the file or directory `PATH` it writes, relative to the benchmark's working
/// directory), and for Google Benchmark which of its two times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SuiteSpec {
    /// The output format.
    pub(crate) format: SuiteFormat,
    /// Google Benchmark's `cpu_time` instead of its `real_time`.
    pub(crate) cpu_time: bool,
    /// The file (a directory for criterion) the program writes; `None`: its stdout.
    pub(crate) source: Option<std::path::PathBuf>,
}

impl SuiteSpec {
    /// Parses the suite forms of `--metric`; `None` when `text` names no suite format.
    fn parse(text: &str) -> Option<Result<SuiteSpec>> {
        let (head, source) = match text.split_once('@') {
            Some((head, path)) => (head, Some(path)),
            None => (text, None),
        };
        let (name, option) = match head.split_once(':') {
            Some((name, option)) => (name, Some(option)),
            None => (head, None),
        };
        let format = [
            SuiteFormat::Gbench,
            SuiteFormat::Criterion,
            SuiteFormat::Hyperfine,
            SuiteFormat::Lines,
        ]
        .into_iter()
        .find(|f| f.name() == name)?;
        Some(Self::checked(text, format, option, source))
    }

    fn checked(
        text: &str,
        format: SuiteFormat,
        option: Option<&str>,
        source: Option<&str>,
    ) -> Result<SuiteSpec> {
        let cpu_time = match (format, option) {
            (_, None) => false,
            (SuiteFormat::Gbench, Some("cpu_time")) => true,
            (SuiteFormat::Gbench, Some("real_time")) => false,
            (SuiteFormat::Gbench, Some(other)) => {
                bail!(
                    "--metric {text}: Google Benchmark gives real_time or cpu_time, not {other:?}"
                )
            }
            (f, Some(other)) => bail!(
                "--metric {text}: {} takes no option ({other:?}); the form is {}[@PATH]",
                f.name(),
                f.name()
            ),
        };
        if source.is_some_and(str::is_empty) {
            bail!("--metric {text}: no path after `@`");
        }
        if format == SuiteFormat::Hyperfine && source.is_none() {
            bail!(
                "--metric hyperfine reads hyperfine's --export-json file: name it, e.g. \
                 --metric hyperfine@times.json with `hyperfine --export-json times.json …`"
            );
        }
        Ok(SuiteSpec {
            format,
            cpu_time,
            source: source.map(std::path::PathBuf::from),
        })
    }
}

/// The metrics every execution records besides a suite's cases (the process's own): a case
/// may not take one of these names.
pub(crate) const PROCESS_METRICS: [&str; 3] = ["wall", "cpu", "max_rss"];

/// The name a suite's ratio of geometric means over its cases carries where judgements are
/// listed by metric (`watch`); a case may not take it.
pub(crate) const SUITE_METRIC: &str = "suite (geometric mean over cases)";

/// Whether the stored `--metric` specification is a suite's (each case a metric of its own),
/// timed or counted by cachegrind.
pub fn is_suite_spec(spec: &str) -> bool {
    SuiteSpec::parse(spec.strip_prefix(COUNTS_PREFIX).unwrap_or(spec)).is_some_and(|s| s.is_ok())
}

/// Whether the stored `--metric` specification runs the benchmark under cachegrind
/// (`cachegrind`, or a suite's cases counted by it): the metrics that have a cache model.
pub fn is_cachegrind_spec(spec: &str) -> bool {
    spec == "cachegrind" || (spec.starts_with(COUNTS_PREFIX) && is_suite_spec(spec))
}

/// The start of a reported metric that declares its unit: `regex(UNIT):PATTERN`.
const DECLARED_PREFIX: &str = "regex(";

/// The regular expression `pattern` of the `--metric` specification `text`.
fn pattern_of(text: &str, pattern: &str) -> Result<Regex> {
    Regex::new(pattern)
        .with_context(|| format!("--metric {text}: {pattern:?} is not a valid regular expression"))
}

/// Whether the stored `--metric` specification is a pattern over the program's output
/// (`regex:PATTERN`, `regex(UNIT):PATTERN`): values the program reports, one per iteration.
pub fn is_reported_spec(spec: &str) -> bool {
    spec.starts_with("regex:") || spec.starts_with(DECLARED_PREFIX)
}

/// Metric name of program-reported values in the store.
pub(crate) const REPORTED: &str = "reported";

impl MetricSpec {
    /// Parses `wall`, `cpu`, `cachegrind`, `regex:PATTERN` or a suite format
    /// (`gbench[:cpu_time][@FILE]`, `criterion[@DIR]`, `hyperfine@FILE`, `lines[@FILE]`).
    ///
    /// The pattern's value is its capture group named `value`, else its first group, else
    /// the whole match; an optional group named `unit` gives the unit, or `regex(UNIT):`
    /// declares it.
    pub(crate) fn parse(text: &str) -> Result<MetricSpec> {
        Ok(match text {
            "wall" => MetricSpec::Wall,
            "cpu" => MetricSpec::Cpu,
            "cachegrind" => MetricSpec::Cachegrind,
            _ if text.starts_with(COUNTS_PREFIX) => Self::parse_counts(text)?,
            _ if text.starts_with(DECLARED_PREFIX) => Self::parse_declared(text)?,
            _ => match (text.strip_prefix("regex:"), SuiteSpec::parse(text)) {
                (None, Some(suite)) => MetricSpec::Suite(suite?),
                (Some(pattern), _) => MetricSpec::Reported(pattern_of(text, pattern)?, None),
                (None, None) => bail!(
                    "--metric {text:?}: expected wall, cpu, cachegrind, regex:PATTERN (or \
                     regex(UNIT):PATTERN), a \
                     suite's output (gbench, criterion, hyperfine@FILE, lines), or its cases \
                     counted by cachegrind (cachegrind:gbench, cachegrind:criterion)"
                ),
            },
        })
    }

    /// `regex(UNIT):PATTERN`: a pattern whose captures are in UNIT, for output that prints
    /// its numbers without their unit (nettle-benchmark's `sm3 update 366.11` under a
    /// `Mbyte/s` header). A pattern with its own `unit` group declares it twice: refused.
    fn parse_declared(text: &str) -> Result<MetricSpec> {
        let (unit, pattern) = text[DECLARED_PREFIX.len()..].split_once("):").with_context(|| {
            format!("--metric {text:?}: the form is regex(UNIT):PATTERN, e.g. regex(MB/s):([0-9.]+)")
        })?;
        let unit = unit.trim();
        if unit.is_empty() || unit.contains(char::is_whitespace) {
            bail!("--metric {text:?}: the unit between the parentheses is empty or has spaces");
        }
        let re = pattern_of(text, pattern)?;
        if re.capture_names().flatten().any(|n| n == "unit") {
            bail!(
                "--metric {text:?}: the pattern has a group named unit and the metric declares \
                 one ({unit}): keep one of them"
            );
        }
        Ok(MetricSpec::Reported(re, Some(unit.to_string())))
    }

    /// `cachegrind:gbench[@FILE]` or `cachegrind:criterion`: the suites whose cases
    /// layoutrand can list and run one at a time, a fixed number of iterations each.
    fn parse_counts(text: &str) -> Result<MetricSpec> {
        let rest = &text[COUNTS_PREFIX.len()..];
        let suite = SuiteSpec::parse(rest).with_context(|| {
            format!(
                "--metric {text:?}: after cachegrind: comes a suite format whose cases \
                 layoutrand runs one by one: gbench or criterion"
            )
        })??;
        match (suite.format, suite.cpu_time, &suite.source) {
            (SuiteFormat::Gbench, false, _) | (SuiteFormat::Criterion, false, None) => {
                Ok(MetricSpec::SuiteCounts(suite))
            }
            (SuiteFormat::Gbench, true, _) => bail!(
                "--metric {text}: counts have no cpu_time; the form is cachegrind:gbench[@FILE]"
            ),
            (SuiteFormat::Criterion, _, _) => bail!(
                "--metric {text}: under cachegrind criterion runs each case once in its test \
                 mode, which writes no sample files: the form is cachegrind:criterion"
            ),
            (SuiteFormat::Hyperfine, _, _) => bail!(
                "--metric {text}: hyperfine's cases are commands: measure each as a program \
                 of its own with --metric cachegrind"
            ),
            (SuiteFormat::Lines, _, _) => bail!(
                "--metric {text}: layoutrand cannot run one case of a `lines` suite alone: \
                 use --metric cachegrind for the whole process's counts"
            ),
        }
    }

    /// The store's metric name of the primary value: `wall`, `cpu`, `estimated_cycles` or
    /// `reported`.
    #[cfg(test)]
    pub(crate) fn primary_name(&self) -> &'static str {
        match self {
            MetricSpec::Wall => "wall",
            MetricSpec::Cpu => "cpu",
            MetricSpec::Cachegrind => ESTIMATED_CYCLES,
            MetricSpec::Reported(..) => REPORTED,
            MetricSpec::Suite(_) | MetricSpec::SuiteCounts(_) => SUITE_CASES,
        }
    }

    /// True when the metric gives the same value however many executions share the
    /// machine (a simulation), so executions may run in parallel (`run --jobs`).
    pub(crate) fn is_deterministic(&self) -> bool {
        self.uses_cachegrind()
    }

    /// True when the benchmark runs under cachegrind (its cache model applies).
    pub(crate) fn uses_cachegrind(&self) -> bool {
        matches!(self, MetricSpec::Cachegrind | MetricSpec::SuiteCounts(_))
    }

    /// True when the program reports one value per iteration (a suite: per case).
    pub(crate) fn has_iterations(&self) -> bool {
        matches!(self, MetricSpec::Reported(..) | MetricSpec::Suite(_))
    }
}

/// Metric name of cachegrind's estimated cycles (see [`estimated_cycles`]).
pub(crate) const ESTIMATED_CYCLES: &str = "estimated_cycles";

/// The primary metric of cachegrind runs recorded before `estimated_cycles` existed.
const OLD_CACHEGRIND_PRIMARY: &str = "I1_misses";

/// What [`primary_name_of_spec`] gives for a suite, whose every case is primary: no metric
/// has this name (it has a space), so a reader asking for it finds the cases by
/// [`is_suite_spec`] instead.
pub const SUITE_CASES: &str = "suite cases";

/// The primary metric name for a stored `--metric` specification (`regex:…` → `reported`,
/// a suite's → [`SUITE_CASES`]).
pub fn primary_name_of_spec(spec: &str) -> &'static str {
    match spec {
        "wall" => "wall",
        "cpu" => "cpu",
        "cachegrind" => ESTIMATED_CYCLES,
        _ if is_suite_spec(spec) => SUITE_CASES,
        _ => REPORTED,
    }
}

/// The metric `run`'s closing summary shows for a store whose header says `spec`: the
/// primary one, or for a suite (many cases, each primary) the process's wall time.
pub fn summary_name_of_spec(spec: &str) -> &'static str {
    match primary_name_of_spec(spec) {
        SUITE_CASES => "wall",
        primary => primary,
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
