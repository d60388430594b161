//! What is measured: the `--metric` specification, values reported by the program on its
//! stdout (one per iteration), and cachegrind's simulated cache events.
//!
//! Wall time, CPU time and peak RSS come with every execution (see `process`); the metric
//! named by `--metric` is the *primary* one that `export` and the summary use by default.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use regex::Regex;

use crate::files::cache_model::CacheModel;

pub use crate::files::metric::*;

/// One value per match of `pattern` in the program's output, read line by line from
/// `stdout` (so a program printing gigabytes needs no more memory than its longest line), in
/// order, with the unit if the pattern has a `unit` group. A match lies within one line.
///
/// A capture that is not a number, or one that is not finite (`nan`, `inf`, `1e400`: JSON
/// cannot hold them and no statistic means anything with them), is an error naming it.
pub(crate) fn extract_reported(
    pattern: &Regex,
    stdout: impl BufRead,
) -> Result<Vec<(f64, String)>> {
    let mut values = Vec::new();
    let mut stdout = stdout;
    let mut line = Vec::new();
    let mut lineno = 0u64;
    loop {
        line.clear();
        // Bounded: a program printing one line of a gigabyte must not take a gigabyte here.
        if std::io::Read::take(&mut stdout, MAX_REPORTED_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .context("cannot read the program's output")?
            == 0
        {
            break;
        }
        lineno += 1;
        if line.len() > MAX_REPORTED_LINE {
            bail!(
                "line {lineno} of the program's output is longer than {} KiB: --metric \
                 regex reads lines up to that length (a match lies within one line)",
                MAX_REPORTED_LINE / 1024
            );
        }
        let text = String::from_utf8_lossy(&line);
        for caps in pattern.captures_iter(&text) {
            values.push(reported_value(pattern, &caps)?);
        }
    }
    Ok(values)
}

/// The longest line of a program's output `--metric regex:` reads (1 MiB): the memory a
/// reported metric takes stays bounded whatever the program prints.
pub(crate) const MAX_REPORTED_LINE: usize = 1 << 20;

/// The value and unit of one match of `pattern`.
fn reported_value(pattern: &Regex, caps: &regex::Captures) -> Result<(f64, String)> {
    let m = caps
        .name("value")
        .or_else(|| caps.get(1))
        .or_else(|| caps.get(0))
        .expect("group 0 always matches");
    let text = m.as_str().trim();
    let value: f64 = text.parse().with_context(|| {
        format!(
            "the capture {} of --metric regex:{} is not a number",
            crate::printable::quoted_start(text),
            pattern.as_str()
        )
    })?;
    if !value.is_finite() {
        bail!(
            "the capture {} of --metric regex:{} is not finite (it reads as {value}): only finite numbers can be measurements",
            crate::printable::quoted_start(text),
            pattern.as_str()
        );
    }
    let unit = caps
        .name("unit")
        .map(|u| u.as_str().to_string())
        .unwrap_or_default();
    Ok((value, unit))
}

/// The valgrind command line that wraps `argv` and writes one cachegrind file per process
/// into `out_dir` (children are traced so a wrapper script's work counts too), simulating
/// `model` (`None`: valgrind's own model of the host, only for resuming runs recorded
/// before models were pinned, see [`crate::files::cache_model`]).
pub(crate) fn cachegrind_argv(
    out_dir: &Path,
    model: Option<&CacheModel>,
    argv: &[std::ffi::OsString],
) -> Vec<std::ffi::OsString> {
    valgrind_argv("cachegrind", out_dir, model, argv)
}

/// As [`cachegrind_argv`], but with callgrind (the same cache simulation), whose files
/// (`callgrind.out.PID`) give each call's inclusive counts: what a function's calls cost,
/// read by [`super::callgrind::inclusive_totals`].
pub(crate) fn callgrind_argv(
    out_dir: &Path,
    model: &CacheModel,
    argv: &[std::ffi::OsString],
) -> Vec<std::ffi::OsString> {
    valgrind_argv("callgrind", out_dir, Some(model), argv)
}

/// valgrind's `tool` with cache simulation of `model`, children traced, quiet, one
/// `TOOL.out.PID` file per process in `out_dir`.
fn valgrind_argv(
    tool: &str,
    out_dir: &Path,
    model: Option<&CacheModel>,
    argv: &[std::ffi::OsString],
) -> Vec<std::ffi::OsString> {
    let mut v: Vec<std::ffi::OsString> = [
        "valgrind".to_string(),
        format!("--tool={tool}"),
        "--cache-sim=yes".to_string(),
        "--trace-children=yes".to_string(),
        "--quiet".to_string(),
        format!("--{tool}-out-file={}/{tool}.out.%p", out_dir.display()),
    ]
    .into_iter()
    .map(Into::into)
    .collect();
    if let Some(model) = model {
        v.extend(model.valgrind_args().map(Into::into));
    }
    v.extend(argv.iter().cloned());
    v
}

/// Empties (creating it if need be) the directory `cg_dir` valgrind writes an execution's
/// cachegrind files to, so that only the next process's files are read from it.
pub(crate) fn empty_cachegrind_dir(cg_dir: &Path) -> Result<()> {
    let (parent, name) = crate::files::confined::parent_of(cg_dir)?;
    parent.remove_dir_all(name)?;
    parent
        .create_dir_all(name)
        .with_context(|| format!("cannot create {}", cg_dir.display()))
}

/// Every event of a cachegrind output file per function: the `events:` names, and per
/// function (`fn=` blocks summed over files and lines) one sum per event. A cost line lists
/// the events in order after its line number; trailing zeros may be left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EventCounts {
    /// The events' names, in the files' order.
    pub(crate) events: Vec<String>,
    /// Per function, one sum per event.
    pub(crate) functions: BTreeMap<String, Vec<f64>>,
}

impl EventCounts {
    /// The counts of one cachegrind output file. Names are as valgrind prints them with
    /// `--demangle=no`.
    pub(crate) fn parse(text: &str) -> Result<EventCounts> {
        let mut counts = EventCounts::default();
        let mut current: Option<String> = None;
        let mut seen_events = false;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("events:") {
                counts.events = rest.split_whitespace().map(String::from).collect();
                seen_events = true;
            } else if let Some(name) = line.strip_prefix("fn=") {
                current = Some(name.to_string());
            } else if line.starts_with(|c: char| c.is_ascii_digit()) {
                let Some(name) = current.as_ref().filter(|_| seen_events) else {
                    continue;
                };
                let values: Vec<f64> = line
                    .split_whitespace()
                    .skip(1)
                    .map(|t| t.parse::<f64>())
                    .collect::<std::result::Result<_, _>>()
                    .with_context(|| format!("a cost line is not numeric: {line:?}"))?;
                let width = counts.events.len();
                let slot = counts
                    .functions
                    .entry(name.clone())
                    .or_insert_with(|| vec![0.0; width]);
                for (s, v) in slot.iter_mut().zip(values) {
                    *s += v;
                }
            }
        }
        if !seen_events {
            bail!("not a cachegrind output file (no events: line)");
        }
        Ok(counts)
    }

    /// `other`'s counts added to these (the files of several processes of one run).
    pub(crate) fn add(&mut self, other: EventCounts) -> Result<()> {
        if self.events.is_empty() {
            *self = other;
            return Ok(());
        }
        if other.events != self.events {
            bail!("the cachegrind files of one run count different events");
        }
        for (name, values) in other.functions {
            let slot = self
                .functions
                .entry(name)
                .or_insert_with(|| vec![0.0; values.len()]);
            for (s, v) in slot.iter_mut().zip(values) {
                *s += v;
            }
        }
        Ok(())
    }

    /// Function `name`'s count of event `event` (0 when it ran none), `None` when the files
    /// do not count that event.
    pub(crate) fn event(&self, name: &str, event: &str) -> Option<f64> {
        let at = self.events.iter().position(|e| e == event)?;
        Some(
            self.functions
                .get(name)
                .and_then(|v| v.get(at).copied())
                .unwrap_or(0.0),
        )
    }

    /// Per function, the value of cachegrind metric `metric` (a raw event or a derived one,
    /// [`crate::files::metric::cachegrind_metric`]); `None` when the files lack an event it
    /// needs.
    pub(crate) fn metric(&self, metric: &str) -> Option<BTreeMap<String, f64>> {
        self.functions
            .keys()
            .map(|name| {
                crate::files::metric::cachegrind_metric(metric, |e| self.event(name, e))
                    .map(|v| (name.clone(), v))
            })
            .collect()
    }
}

/// The per-function profile of one execution, as `run --metric cachegrind` keeps it for
/// each binary (`DIR/profiles/`, see [`profile_path`]): every event per function, written
/// in cachegrind's own file format (an `events:` line, then per function an `fn=` line and
/// one cost line), so that [`EventCounts::parse`] reads it back.
impl EventCounts {
    /// The counts as a minimal cachegrind file.
    pub(crate) fn to_text(&self) -> String {
        let mut out = format!("events: {}\n", self.events.join(" "));
        for (name, values) in &self.functions {
            out.push_str("fn=");
            out.push_str(name);
            out.push_str("\n0");
            for v in values {
                out.push_str(&format!(" {v}"));
            }
            out.push('\n');
        }
        out
    }

    /// The counts of every cachegrind file of one execution in `dir`.
    pub(crate) fn of_dir(dir: &Path) -> Result<EventCounts> {
        let mut totals = EventCounts::default();
        for (path, text) in crate::files::confined::read_outputs_named(dir, "cachegrind.out.")? {
            let one = EventCounts::parse(&text).with_context(|| path.display().to_string())?;
            totals
                .add(one)
                .with_context(|| path.display().to_string())?;
        }
        Ok(totals)
    }
}

/// Where `run --metric cachegrind` keeps the per-function profile of a binary's first
/// execution, relative to the experiment directory: `profiles/PROGRAM/BINARY.cg`, under
/// `profiles/PROGRAM/VARIANT/` with variants. Names are the manifest's (checked components).
pub(crate) fn profile_path(program: &str, variant: Option<&str>, binary: &str) -> PathBuf {
    let mut p = PathBuf::from(PROFILES_DIR).join(program);
    if let Some(v) = variant {
        p.push(v);
    }
    p.join(format!("{binary}.cg"))
}

/// The folder of the kept profiles.
pub(crate) const PROFILES_DIR: &str = "profiles";

/// Totals of the cachegrind files in `dir`: the raw events (`Ir`, `I1mr`, `D1mr`, …) and
/// the derived metrics of [`crate::files::metric::cachegrind_metric`] (`estimated_cycles`,
/// `I1_misses`, `D1_misses`, `LL_misses`), in a fixed order.
pub fn read_cachegrind_totals(dir: &Path) -> Result<Vec<(String, f64)>> {
    with_derived(summed_outputs(dir, "cachegrind", parse_cachegrind)?)
}

/// The events of valgrind's `tool` files in `dir` (`TOOL.out.PID`, one per process), each
/// read by `parse` into its event names and one count per event, summed over the files.
pub(crate) fn summed_outputs(
    dir: &Path,
    tool: &str,
    mut parse: impl FnMut(&str) -> Result<(Vec<String>, Vec<f64>)>,
) -> Result<Vec<(String, f64)>> {
    let mut totals: Vec<(String, f64)> = Vec::new();
    let mut files = 0;
    for (path, text) in crate::files::confined::read_outputs_named(dir, &format!("{tool}.out."))? {
        let (events, counts) = parse(&text)
            .with_context(|| format!("{} is not a {tool} output file", path.display()))?;
        files += 1;
        for (name, value) in events.into_iter().zip(counts) {
            match totals.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 += value,
                None => totals.push((name, value)),
            }
        }
    }
    if files == 0 {
        bail!("valgrind wrote no {tool} output in {}", dir.display());
    }
    Ok(totals)
}

/// `totals` (raw events) followed by the derived metrics of
/// [`crate::files::metric::cachegrind_metric`], in a fixed order.
pub(crate) fn with_derived(mut totals: Vec<(String, f64)>) -> Result<Vec<(String, f64)>> {
    let get = |n: &str| totals.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
    let derived: Vec<(String, Option<f64>)> = crate::files::metric::CACHEGRIND_DERIVED
        .iter()
        .map(|name| {
            (
                name.to_string(),
                crate::files::metric::cachegrind_metric(name, get),
            )
        })
        .collect();
    for (name, value) in derived {
        match value {
            Some(v) => totals.push((name, v)),
            None => bail!(
                "cachegrind output lacks the events for {name} (was --cache-sim=yes honoured?)"
            ),
        }
    }
    Ok(totals)
}

/// The `events:` names and `summary:` totals of one cachegrind output file.
fn parse_cachegrind(text: &str) -> Result<(Vec<String>, Vec<f64>)> {
    let mut events = None;
    let mut summary = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            events = Some(
                rest.split_whitespace()
                    .map(String::from)
                    .collect::<Vec<_>>(),
            );
        } else if let Some(rest) = line.strip_prefix("summary:") {
            summary = Some(
                rest.split_whitespace()
                    .map(|t| t.parse::<f64>())
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .context("non-numeric summary")?,
            );
        }
    }
    match (events, summary) {
        (Some(e), Some(s)) if e.len() == s.len() => Ok((e, s)),
        (Some(_), Some(_)) => bail!("events and summary lines differ in length"),
        _ => bail!("no events/summary lines"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_values_come_in_order_with_units() {
        let re = Regex::new(r"iter \d+: (?P<value>[0-9.]+) (?P<unit>\w+)").unwrap();
        let text = "start\niter 0: 12.5 ms\nnoise\niter 1: 3 ms\n";
        let v = extract_reported(&re, text.as_bytes()).unwrap();
        assert_eq!(v, vec![(12.5, "ms".to_string()), (3.0, "ms".to_string())]);
        let plain = Regex::new(r"t=(\S+)").unwrap();
        assert_eq!(
            extract_reported(&plain, &b"t=1e3"[..]).unwrap()[0].0,
            1000.0
        );
        let bad = extract_reported(&plain, &b"t=abc"[..]).unwrap_err();
        insta::assert_snapshot!(format!("{bad:#}"));
    }

    #[test]
    fn non_finite_captures_are_errors_naming_the_text() {
        let plain = Regex::new(r"t=(\S+)").unwrap();
        let mut messages = String::new();
        for text in ["nan", "NaN", "inf", "-inf", "infinity", "1e400", "-1e999"] {
            let out = format!("t=1\nt={text}\n");
            let err = extract_reported(&plain, out.as_bytes()).unwrap_err();
            messages.push_str(&format!("{err:#}\n"));
        }
        insta::assert_snapshot!(messages);
        // The largest finite double still is a value.
        let max = extract_reported(&plain, &b"t=1.7976931348623157e308"[..]).unwrap();
        assert_eq!(max[0].0, f64::MAX);
    }

    #[test]
    fn metric_specs_parse_and_reject() {
        assert_eq!(
            MetricSpec::parse("cachegrind").unwrap().primary_name(),
            "estimated_cycles"
        );
        assert!(MetricSpec::parse("cachegrind").unwrap().is_deterministic());
        assert!(!MetricSpec::parse("wall").unwrap().is_deterministic());
        assert!(MetricSpec::parse("regex:a(b").is_err());
        let e = MetricSpec::parse("cycles").unwrap_err();
        insta::assert_snapshot!(format!("{e:#}"));
    }

    /// `regex(UNIT):PATTERN` declares the unit of output that does not print it; a missing
    /// or spaced unit, a missing `):`, or a pattern with its own unit group is refused.
    #[test]
    fn a_reported_metric_declares_its_unit() {
        let spec = r"regex(Mbyte/s):(?m)^ +sm3 +update +([0-9.]+)$";
        let MetricSpec::Reported(re, unit) = MetricSpec::parse(spec).unwrap() else {
            panic!("{spec} is a reported metric");
        };
        assert_eq!(unit.as_deref(), Some("Mbyte/s"));
        assert_eq!(
            extract_reported(&re, &b"     sm3      update   366.11\n"[..]).unwrap(),
            [(366.11, String::new())]
        );
        assert!(crate::files::metric::is_reported_spec(spec));
        assert!(crate::units::is_rate_unit("Mbyte/s"));
        let refused = |text: &str| format!("{:#}", MetricSpec::parse(text).unwrap_err());
        assert!(refused("regex():x").contains("empty or has spaces"));
        assert!(refused("regex(MB /s):x").contains("empty or has spaces"));
        assert!(refused("regex(MB/s)x").contains("the form is regex(UNIT):PATTERN"));
        assert!(refused(r"regex(MB/s):(?P<value>\d+) (?P<unit>\w+)").contains("keep one of them"));
    }

    #[test]
    fn counted_suites_parse_and_the_others_are_refused_with_the_reason() {
        for text in [
            "cachegrind:gbench",
            "cachegrind:gbench@gb.json",
            "cachegrind:criterion",
        ] {
            let spec = MetricSpec::parse(text).unwrap();
            assert!(matches!(spec, MetricSpec::SuiteCounts(_)), "{text}");
            assert!(spec.is_deterministic() && spec.uses_cachegrind(), "{text}");
            assert!(!spec.has_iterations(), "{text}");
            assert!(is_suite_spec(text) && is_cachegrind_spec(text), "{text}");
            assert_eq!(primary_name_of_spec(text), SUITE_CASES, "{text}");
        }
        assert!(!is_cachegrind_spec("gbench") && is_cachegrind_spec("cachegrind"));
        let mut refusals = String::new();
        for text in [
            "cachegrind:gbench:cpu_time",
            "cachegrind:criterion@target/criterion",
            "cachegrind:hyperfine@h.json",
            "cachegrind:lines",
            "cachegrind:wall",
        ] {
            let e = MetricSpec::parse(text).unwrap_err();
            refusals.push_str(&format!("{e:#}\n"));
        }
        insta::assert_snapshot!(refusals);
    }

    #[test]
    fn cachegrind_files_are_summed_and_derived() {
        let d = tempfile::tempdir().unwrap();
        let file = "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: x\nevents: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nfl=a.c\n1 1 1 1 1 1 1 1 1 1\nsummary: 100 10 1 50 5 2 40 4 3\n";
        std::fs::write(d.path().join("cachegrind.out.1"), file).unwrap();
        std::fs::write(d.path().join("cachegrind.out.2"), file).unwrap();
        let t = read_cachegrind_totals(d.path()).unwrap();
        let get = |n: &str| t.iter().find(|(k, _)| k == n).unwrap().1;
        assert_eq!(get("Ir"), 200.0);
        assert_eq!(get("I1_misses"), 20.0);
        assert_eq!(get("D1_misses"), 18.0);
        assert_eq!(get("LL_misses"), 12.0);
        // refs 2·(100+50+40) = 380, L1 misses 2·(10+5+4) = 38, RAM 2·(1+2+3) = 12:
        // 342 L1 hits + 5·26 LL hits + 35·12 = 342 + 130 + 420.
        assert_eq!(get("estimated_cycles"), 892.0);
    }

    #[test]
    fn old_cachegrind_stores_keep_their_primary() {
        assert_eq!(
            primary_name_in_store("cachegrind", |_| true),
            "estimated_cycles"
        );
        assert_eq!(
            primary_name_in_store("cachegrind", |m| m != "estimated_cycles"),
            "I1_misses"
        );
        assert_eq!(primary_name_in_store("wall", |_| false), "wall");
    }
}
