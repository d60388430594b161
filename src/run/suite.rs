//! A benchmark suite's output read into cases: Google Benchmark's JSON, criterion's sample
//! files (or cargo-criterion's JSON messages), hyperfine's exported JSON, and plain
//! `name value [unit]` lines. Each case gets one value per iteration (a repetition of the
//! case within the execution) and one unit; times are stored in nanoseconds whatever unit the
//! suite printed, so that a suite switching units between executions stays one series.
//!
//! Bounded whatever the suite prints: a JSON output over [`MAX_SUITE_OUTPUT`] bytes is refused
//! before it is read, lines are read one at a time (at most [`MAX_REPORTED_LINE`] each), and a
//! suite of more than [`MAX_CASES`] cases is refused.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{bail, Context, Result};
use regex::Regex;
use serde::Deserialize;

use super::metric::{SuiteFormat, SuiteSpec, MAX_REPORTED_LINE, PROCESS_METRICS, SUITE_METRIC};

/// The largest JSON output (stdout or file) a suite format reads: 256 MiB.
pub(crate) const MAX_SUITE_OUTPUT: u64 = 256 << 20;

/// The most cases one execution may report.
pub(crate) const MAX_CASES: usize = 10_000;

/// The longest case name kept (bytes).
const MAX_CASE_NAME: usize = 512;

/// One case of a suite as one execution reported it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    /// The case's name (the store's metric name).
    pub(crate) name: String,
    /// Unit of the values (`ns` for every time).
    pub(crate) unit: String,
    /// One value per iteration, in the order the suite reported them.
    pub(crate) values: Vec<f64>,
}

/// What the suite's source (file, or criterion's directory) looked like before the
/// execution: the execution's values must come from files it wrote, not from an earlier one's.
#[derive(Debug, Clone, Default)]
pub(crate) struct SourceBefore {
    stamps: BTreeMap<PathBuf, Stamp>,
}

/// Modification time, size and inode of a file: any write (or replacement) changes one.
type Stamp = (Option<SystemTime>, u64, u64);

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    (meta.modified().ok(), meta.len(), meta.ino())
}

/// The source of `spec` as it is now, in the benchmark's working directory `cwd`.
pub(crate) fn source_before(spec: &SuiteSpec, cwd: &Path) -> SourceBefore {
    let Some(source) = &spec.source else {
        return SourceBefore::default();
    };
    let path = cwd.join(source);
    let files = match spec.format {
        SuiteFormat::Criterion => criterion_sample_files(&path).unwrap_or_default(),
        _ => vec![path],
    };
    SourceBefore {
        stamps: files
            .into_iter()
            .filter_map(|p| Some((p.clone(), stamp(&std::fs::metadata(&p).ok()?))))
            .collect(),
    }
}

/// The cases of one execution: from its captured `stdout`, or from the file `spec` names
/// (relative to `cwd`), which must have been written since `before`.
pub(crate) fn read_cases(
    spec: &SuiteSpec,
    stdout: &Path,
    cwd: &Path,
    before: &SourceBefore,
) -> Result<Vec<Case>> {
    let cases = match (&spec.source, spec.format) {
        (Some(dir), SuiteFormat::Criterion) => criterion_directory(&cwd.join(dir), before)?,
        (Some(file), format) => {
            let path = cwd.join(file);
            check_written(&path, before)?;
            parse_source(spec, format, &path)?
        }
        (None, format) => parse_source(spec, format, stdout)?,
    };
    check_cases(spec, cases)
}

fn parse_source(spec: &SuiteSpec, format: SuiteFormat, path: &Path) -> Result<Vec<Case>> {
    let where_ = || match &spec.source {
        Some(_) => path.display().to_string(),
        None => "the program's output".to_string(),
    };
    let bounded = format != SuiteFormat::Lines;
    let reader = || match spec.source {
        // The captured stdout, in the experiment directory's staging folder: through the
        // one opener.
        None => open_captured(path, bounded),
        Some(_) => open_bounded(path, bounded),
    };
    match format {
        SuiteFormat::Gbench => gbench(reader()?, spec.cpu_time),
        SuiteFormat::Hyperfine => hyperfine(reader()?),
        SuiteFormat::Criterion => criterion_messages(reader()?),
        SuiteFormat::Lines => lines(reader()?),
    }
    .with_context(|| format!("--metric {}: {}", spec.format.name(), where_()))
}

/// Opens the file `path` the user's `--metric …@PATH` names in the benchmark's working
/// directory: a regular file (a FIFO would stall the reader), of at most
/// [`MAX_SUITE_OUTPUT`] bytes when `bounded` (a JSON document is parsed whole).
fn open_bounded(path: &Path, bounded: bool) -> Result<std::io::BufReader<std::fs::File>> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        bail!("{} is not a regular file", path.display());
    }
    if bounded && meta.len() > MAX_SUITE_OUTPUT {
        bail!("{}", too_large(&path.display().to_string(), meta.len()));
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(std::io::BufReader::new(file))
}

/// Opens the execution's captured stdout `path` (inside the experiment directory) through
/// the one opener, refused over [`MAX_SUITE_OUTPUT`] bytes when `bounded`.
fn open_captured(path: &Path, bounded: bool) -> Result<std::io::BufReader<std::fs::File>> {
    let file = crate::files::confined::open_regular(path)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if bounded && len > MAX_SUITE_OUTPUT {
        bail!(
            "{}: write the suite's results to a file of their own, e.g. --benchmark_out=FILE, \
             and name it with @FILE",
            too_large("the program's output", len)
        );
    }
    Ok(std::io::BufReader::new(file))
}

/// What a JSON output of `len` bytes beyond [`MAX_SUITE_OUTPUT`] is, `what` naming it.
fn too_large(what: &str, len: u64) -> String {
    format!(
        "{what} holds {len} bytes, more than the {} MiB a suite's JSON may have (it is read whole)",
        MAX_SUITE_OUTPUT >> 20
    )
}

/// Refuses a file the execution did not write: missing, or unchanged since `before`.
fn check_written(path: &Path, before: &SourceBefore) -> Result<()> {
    let meta = std::fs::metadata(path).with_context(|| {
        format!(
            "the benchmark did not write {} (the file the --metric names)",
            path.display()
        )
    })?;
    if before.stamps.get(path) == Some(&stamp(&meta)) {
        bail!(
            "{} was not written by this execution (it is as it was before the execution \
             started): the benchmark command must write it, e.g. --benchmark_out= or \
             --export-json",
            path.display()
        );
    }
    Ok(())
}

/// Nanoseconds in one `unit` of time, for the units suites print; `None` for another unit.
fn nanoseconds_per(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    })
}

/// Google Benchmark's JSON document: its `benchmarks` entries.
#[derive(Deserialize)]
struct GbenchDocument {
    benchmarks: Vec<GbenchEntry>,
}

#[derive(Deserialize)]
struct GbenchEntry {
    name: String,
    run_name: Option<String>,
    run_type: Option<String>,
    real_time: Option<f64>,
    cpu_time: Option<f64>,
    time_unit: Option<String>,
    iterations: Option<f64>,
    #[serde(default)]
    error_occurred: bool,
    error_message: Option<String>,
}

/// The cases of Google Benchmark's JSON: one value per `iteration` entry (each repetition of
/// a case), its `real_time` (or `cpu_time`) in nanoseconds; the aggregates (`_mean`,
/// `_median`, …, complexity) are left out, as the statistics are layoutrand's to make. Text
/// before the document (the program's own prints) is skipped.
fn gbench(input: impl BufRead, cpu_time: bool) -> Result<Vec<Case>> {
    let document = gbench_document(input)?;
    let mut cases = Cases::default();
    let mut aggregates = 0;
    for entry in document.benchmarks {
        if entry.run_type.as_deref() == Some("aggregate") {
            aggregates += 1;
            continue;
        }
        let name = entry.run_name.unwrap_or(entry.name);
        if entry.error_occurred {
            bail!(
                "case {name:?} failed: {}",
                entry.error_message.as_deref().unwrap_or("(no message)")
            );
        }
        let (field, time) = match cpu_time {
            true => ("cpu_time", entry.cpu_time),
            false => ("real_time", entry.real_time),
        };
        let time = time.with_context(|| format!("case {name:?} has no {field}"))?;
        let unit = entry.time_unit.as_deref().unwrap_or("ns");
        let scale = nanoseconds_per(unit)
            .with_context(|| format!("case {name:?} has an unknown time_unit {unit:?}"))?;
        cases.push(&name, time * scale, "ns")?;
    }
    if cases.is_empty() && aggregates > 0 {
        bail!(
            "holds only aggregates ({aggregates}): drop --benchmark_report_aggregates_only \
             (layoutrand needs every repetition)"
        );
    }
    Ok(cases.into_vec())
}

/// Google Benchmark's JSON document in `input`, after whatever the program printed before it.
fn gbench_document(mut input: impl BufRead) -> Result<GbenchDocument> {
    skip_to_document(&mut input)?;
    serde_json::Deserializer::from_reader(input)
        .into_iter()
        .next()
        .context("found no JSON document (run the suite with --benchmark_format=json)")?
        .context("is not Google Benchmark's JSON (--benchmark_format=json)")
}

/// The runs of one Google Benchmark execution, each case's name with the iterations it ran
/// (aggregates left out), read from where `spec` says (its `stdout`, or the file it names
/// relative to `cwd`, written since `before`): `cachegrind:gbench` checks with them that a
/// process ran its one case as often as asked.
pub(crate) fn gbench_runs(
    spec: &SuiteSpec,
    stdout: &Path,
    cwd: &Path,
    before: &SourceBefore,
) -> Result<Vec<(String, Option<f64>)>> {
    let input = match &spec.source {
        Some(file) => {
            let path = cwd.join(file);
            check_written(&path, before)?;
            open_bounded(&path, true)?
        }
        None => open_captured(stdout, true)?,
    };
    let document = gbench_document(input).context("--metric cachegrind:gbench")?;
    Ok(document
        .benchmarks
        .into_iter()
        .filter(|e| e.run_type.as_deref() != Some("aggregate"))
        .map(|e| (e.run_name.unwrap_or(e.name), e.iterations))
        .collect())
}

/// The cases a suite lists on its captured `stdout` when asked (Google Benchmark's
/// `--benchmark_list_tests=true`: a name a line; criterion's `--list`: `NAME: benchmark`
/// lines, other lines its own), each name checked as a reported case's is.
pub(crate) fn listed_cases(spec: &SuiteSpec, stdout: &Path) -> Result<Vec<String>> {
    let mut input = open_captured(stdout, false)?;
    let mut names: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input
            .by_ref()
            .take(MAX_REPORTED_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .context("cannot read the suite's list of cases")?
            == 0
        {
            break;
        }
        if line.len() > MAX_REPORTED_LINE {
            bail!("the suite's list of cases has a line longer than 1 MiB");
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        let name = match spec.format {
            // `: bench` up to criterion 0.4 (libtest's word), `: benchmark` from 0.5.
            SuiteFormat::Criterion => text
                .strip_suffix(": benchmark")
                .or_else(|| text.strip_suffix(": bench")),
            _ => Some(text).filter(|t| !t.trim().is_empty()),
        };
        if let Some(name) = name.filter(|n| seen.insert(n.to_string())) {
            if names.len() == MAX_CASES {
                bail!("the suite lists more than {MAX_CASES} cases: select fewer (the suite's filter)");
            }
            names.push(name.to_string());
        }
    }
    if names.is_empty() {
        return Ok(names);
    }
    let cases = names
        .into_iter()
        .map(|name| Case {
            name,
            unit: String::new(),
            values: Vec::new(),
        })
        .collect();
    Ok(check_cases(spec, cases)?
        .into_iter()
        .map(|c| c.name)
        .collect())
}

/// The cases (or names) of `all` whose names `kept` matches (`run --cases`; all without
/// it); refused when it leaves none.
pub(crate) fn kept_cases<T>(
    all: Vec<T>,
    kept: Option<&Regex>,
    name: impl Fn(&T) -> &String,
) -> Result<Vec<T>> {
    let Some(pattern) = kept else {
        return Ok(all);
    };
    let total = all.len();
    let left: Vec<T> = all
        .into_iter()
        .filter(|c| pattern.is_match(name(c)))
        .collect();
    if left.is_empty() {
        bail!(
            "--cases {:?} matches none of the suite's {total} case(s)",
            pattern.as_str()
        );
    }
    Ok(left)
}

/// Reads `input` up to the first line that starts with `{` (the JSON document).
fn skip_to_document(input: &mut impl BufRead) -> Result<()> {
    loop {
        let buffer = input.fill_buf().context("cannot read")?;
        let Some(&first) = buffer.first() else {
            return Ok(());
        };
        if first == b'{' {
            return Ok(());
        }
        let mut line = Vec::new();
        input
            .by_ref()
            .take(MAX_REPORTED_LINE as u64)
            .read_until(b'\n', &mut line)?;
    }
}

#[derive(Deserialize)]
struct HyperfineDocument {
    results: Vec<HyperfineResult>,
}

#[derive(Deserialize)]
struct HyperfineResult {
    command: String,
    times: Option<Vec<f64>>,
}

/// The cases of hyperfine's `--export-json`: one per command (its `--command-name` if given),
/// one value per timed run, in nanoseconds.
fn hyperfine(input: impl BufRead) -> Result<Vec<Case>> {
    let document: HyperfineDocument =
        serde_json::from_reader(input).context("is not hyperfine's --export-json document")?;
    let mut cases = Cases::default();
    for result in document.results {
        let times = result.times.with_context(|| {
            format!(
                "command {:?} has no `times` (hyperfine 1.6 or later exports them)",
                result.command
            )
        })?;
        for t in times {
            cases.push(&result.command, t * 1e9, "ns")?;
        }
    }
    Ok(cases.into_vec())
}

#[derive(Deserialize)]
struct CriterionBenchmark {
    full_id: String,
}

#[derive(Deserialize)]
struct CriterionSample {
    iters: Vec<f64>,
    times: Vec<f64>,
}

/// The `sample.json` files of criterion's directory `dir` (`target/criterion`): those under a
/// `new` directory, each beside its `benchmark.json`; criterion's `report` directories and
/// links are not followed.
fn criterion_sample_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = pending.pop() {
        let entries =
            std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))?;
        for entry in entries {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() && depth < 8 && entry.file_name() != "report" {
                pending.push((path, depth + 1));
            } else if kind.is_file()
                && entry.file_name() == "sample.json"
                && d.file_name().is_some_and(|n| n == "new")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The cases of criterion's directory: every benchmark whose `new/sample.json` the execution
/// wrote, named by its `full_id`, one value per sample (the sample's time over its
/// iterations, ns).
fn criterion_directory(dir: &Path, before: &SourceBefore) -> Result<Vec<Case>> {
    let files = criterion_sample_files(dir).with_context(|| {
        format!(
            "--metric criterion: {} (criterion's directory)",
            dir.display()
        )
    })?;
    let mut cases = Cases::default();
    for sample_path in files {
        let meta = std::fs::metadata(&sample_path)?;
        if before.stamps.get(&sample_path) == Some(&stamp(&meta)) {
            continue;
        }
        let read =
            |path: &Path| -> Result<std::io::BufReader<std::fs::File>> { open_bounded(path, true) };
        let benchmark_path = sample_path.with_file_name("benchmark.json");
        let benchmark: CriterionBenchmark = serde_json::from_reader(read(&benchmark_path)?)
            .with_context(|| format!("{} is not criterion's", benchmark_path.display()))?;
        let sample: CriterionSample = serde_json::from_reader(read(&sample_path)?)
            .with_context(|| format!("{} is not criterion's", sample_path.display()))?;
        push_samples(
            &mut cases,
            &benchmark.full_id,
            &sample.iters,
            &sample.times,
            "ns",
        )?;
    }
    if cases.is_empty() {
        bail!(
            "--metric criterion: the execution wrote no benchmark's new/sample.json under {} \
             (criterion writes them in bench mode, `--bench`, under target/criterion of the \
             working directory, or $CRITERION_HOME, or $CARGO_TARGET_DIR/criterion)",
            dir.display()
        );
    }
    Ok(cases.into_vec())
}

/// One criterion benchmark's samples: each sample's time per iteration.
fn push_samples(
    cases: &mut Cases,
    name: &str,
    iters: &[f64],
    times: &[f64],
    unit: &str,
) -> Result<()> {
    if iters.len() != times.len() || iters.iter().any(|&n| n <= 0.0) {
        bail!("benchmark {name:?}: its samples' iteration counts and times do not match");
    }
    let scale = nanoseconds_per(unit).map_or((1.0, unit), |s| (s, "ns"));
    for (n, t) in iters.iter().zip(times) {
        cases.push(name, t / n * scale.0, scale.1)?;
    }
    Ok(())
}

#[derive(Deserialize)]
struct CriterionMessage {
    reason: String,
    id: Option<String>,
    iteration_count: Option<Vec<f64>>,
    measured_values: Option<Vec<f64>>,
    unit: Option<String>,
}

/// The cases of cargo-criterion's `--message-format=json` messages: each
/// `benchmark-complete` message's measured values over its iteration counts.
fn criterion_messages(input: impl BufRead) -> Result<Vec<Case>> {
    let mut cases = Cases::default();
    for (n, line) in bounded_lines(input) {
        let line = line?;
        if !line.trim_start().starts_with('{') {
            continue;
        }
        let Ok(message) = serde_json::from_str::<CriterionMessage>(&line) else {
            continue;
        };
        if message.reason != "benchmark-complete" {
            continue;
        }
        let (Some(id), Some(iters), Some(times)) =
            (message.id, message.iteration_count, message.measured_values)
        else {
            bail!("line {n}: a benchmark-complete message without id, iteration_count or measured_values");
        };
        push_samples(
            &mut cases,
            &id,
            &iters,
            &times,
            message.unit.as_deref().unwrap_or("ns"),
        )?;
    }
    if cases.is_empty() {
        bail!(
            "found no benchmark-complete message (run cargo-criterion with \
             --message-format=json, or name criterion's directory: criterion@target/criterion)"
        );
    }
    Ok(cases.into_vec())
}

/// `name value [unit]`, nothing else on the line.
fn line_pattern() -> &'static Regex {
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"^\s*(\S+)\s+([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(?:\s+(\S+))?\s*$")
            .expect("a valid pattern")
    })
}

/// The cases of plain `name value [unit]` lines: every line of that shape (others are the
/// program's own prints), each repetition of a name its next iteration; a time unit is
/// converted to nanoseconds.
fn lines(input: impl BufRead) -> Result<Vec<Case>> {
    let mut cases = Cases::default();
    for (n, line) in bounded_lines(input) {
        let line = line?;
        let Some(caps) = line_pattern().captures(&line) else {
            continue;
        };
        let value: f64 = caps[2]
            .parse()
            .with_context(|| format!("line {n}: not a number"))?;
        let unit = caps.get(3).map_or("", |u| u.as_str());
        let (value, unit) = match nanoseconds_per(unit) {
            Some(scale) => (value * scale, "ns"),
            None => (value, unit),
        };
        cases
            .push(&caps[1], value, unit)
            .with_context(|| format!("line {n}"))?;
    }
    if cases.is_empty() {
        bail!("found no `name value [unit]` line");
    }
    Ok(cases.into_vec())
}

/// The lines of `input` with their numbers from 1, each at most [`MAX_REPORTED_LINE`] bytes
/// (a longer one is an error), read one at a time.
fn bounded_lines(mut input: impl BufRead) -> impl Iterator<Item = (u64, Result<String>)> {
    let mut n = 0u64;
    std::iter::from_fn(move || {
        let mut line = Vec::new();
        match input
            .by_ref()
            .take(MAX_REPORTED_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) => None,
            Err(e) => Some((n + 1, Err(anyhow::Error::new(e).context("cannot read")))),
            Ok(_) => {
                n += 1;
                if line.len() > MAX_REPORTED_LINE {
                    return Some((
                        n,
                        Err(anyhow::anyhow!(
                            "line {n} is longer than {} KiB",
                            MAX_REPORTED_LINE / 1024
                        )),
                    ));
                }
                Some((n, Ok(String::from_utf8_lossy(&line).into_owned())))
            }
        }
    })
}

/// Cases in the order first reported, each with its unit and values.
#[derive(Default)]
struct Cases {
    order: Vec<Case>,
    index: std::collections::HashMap<String, usize>,
}

impl Cases {
    /// Adds a value of case `name`, refusing a second unit, a value that is not finite, and
    /// a case beyond [`MAX_CASES`].
    fn push(&mut self, name: &str, value: f64, unit: &str) -> Result<()> {
        if !value.is_finite() {
            bail!("case {name:?} has a value that is not finite ({value})");
        }
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                if self.order.len() == MAX_CASES {
                    bail!("more than {MAX_CASES} cases: select fewer (the suite's filter)");
                }
                self.index.insert(name.to_string(), self.order.len());
                self.order.push(Case {
                    name: name.to_string(),
                    unit: unit.to_string(),
                    values: Vec::new(),
                });
                self.order.len() - 1
            }
        };
        let case = &mut self.order[i];
        if case.unit != unit {
            bail!(
                "case {name:?} is reported in both {:?} and {unit:?}: one unit per case",
                case.unit
            );
        }
        case.values.push(value);
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    fn into_vec(self) -> Vec<Case> {
        self.order
    }
}

/// Refuses names the store cannot take as a case's: empty, too long, with control
/// characters, or a process metric's (`wall`, `cpu`, `max_rss`, recorded beside the cases) or
/// [`SUITE_METRIC`] (the suite's own judgement in `watch`).
fn check_cases(spec: &SuiteSpec, cases: Vec<Case>) -> Result<Vec<Case>> {
    let format = spec.format.name();
    if cases.is_empty() {
        bail!("--metric {format}: the suite reported no case");
    }
    for case in &cases {
        let name = &case.name;
        if name.trim().is_empty() || name.len() > MAX_CASE_NAME {
            bail!(
                "--metric {format}: a case's name is empty or longer than {MAX_CASE_NAME} bytes: {}",
                crate::printable::quoted_start(name)
            );
        }
        if name.chars().any(char::is_control) {
            bail!(
                "--metric {format}: case {} has a control character in its name",
                crate::printable::quoted_start(name)
            );
        }
        if PROCESS_METRICS.contains(&name.as_str()) || name == SUITE_METRIC {
            bail!(
                "--metric {format}: a case is named {name:?}, as a metric layoutrand records \
                 or judges beside the cases: rename the case"
            );
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two listings `cachegrind:SUITE` reads: Google Benchmark's names a line, criterion's
    /// `NAME: benchmark` lines among its own, each name once.
    #[test]
    fn listed_cases_are_read_as_each_suite_prints_them() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("stdout");
        std::fs::write(&out, "BM_a/1\nBM_a/2\n\nBM_b<int>\n").unwrap();
        assert_eq!(
            listed_cases(&spec("gbench"), &out).unwrap(),
            ["BM_a/1", "BM_a/2", "BM_b<int>"]
        );
        let listing = "Gnuplot not found, using plotters backend\nfib/5: benchmark\n\n\
                       fib/5: benchmark\nempty: benchmark\nsome_test: test\n";
        std::fs::write(&out, listing).unwrap();
        assert_eq!(
            listed_cases(&spec("criterion"), &out).unwrap(),
            ["fib/5", "empty"]
        );
        // criterion 0.4 (itertools 0.13's benchmarks), blank lines between.
        let listing = "all equal: bench\n\npermutations slice: bench\n\n";
        std::fs::write(&out, listing).unwrap();
        assert_eq!(
            listed_cases(&spec("criterion"), &out).unwrap(),
            ["all equal", "permutations slice"]
        );
        std::fs::write(&out, "wall\n").unwrap();
        assert!(listed_cases(&spec("gbench"), &out).is_err());
        std::fs::write(&out, "").unwrap();
        assert!(listed_cases(&spec("gbench"), &out).unwrap().is_empty());
    }

    fn spec(text: &str) -> SuiteSpec {
        match super::super::metric::MetricSpec::parse(text).unwrap() {
            super::super::metric::MetricSpec::Suite(s) => s,
            other => panic!("{text} parsed as {other:?}"),
        }
    }

    /// Google Benchmark 1.7's shape: two repetitions of two cases, their aggregates, one
    /// case in microseconds, and the program's own print before the document.
    const GBENCH: &str = r#"starting
{
  "context": {"date": "2026-12-04T19:40:00+00:00", "num_cpus": 2, "caches": []},
  "benchmarks": [
    {"name": "BM_A/8", "run_name": "BM_A/8", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 0, "iterations": 100, "real_time": 12.5, "cpu_time": 12.0, "time_unit": "ns"},
    {"name": "BM_A/8", "run_name": "BM_A/8", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 1, "iterations": 100, "real_time": 13.5, "cpu_time": 13.0, "time_unit": "ns"},
    {"name": "BM_A/8_mean", "run_name": "BM_A/8", "run_type": "aggregate", "aggregate_name": "mean",
     "real_time": 13.0, "cpu_time": 12.5, "time_unit": "ns"},
    {"name": "BM_B", "run_name": "BM_B", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 0, "iterations": 10, "real_time": 1.5, "cpu_time": 1.25, "time_unit": "us"},
    {"name": "BM_B", "run_name": "BM_B", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 1, "iterations": 10, "real_time": 2.0, "cpu_time": 1.75, "time_unit": "us"}
  ]
}
"#;

    fn case(name: &str, unit: &str, values: &[f64]) -> Case {
        Case {
            name: name.into(),
            unit: unit.into(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn google_benchmark_gives_each_repetition_in_nanoseconds_without_aggregates() {
        assert_eq!(
            gbench(GBENCH.as_bytes(), false).unwrap(),
            vec![
                case("BM_A/8", "ns", &[12.5, 13.5]),
                case("BM_B", "ns", &[1500.0, 2000.0])
            ]
        );
        assert_eq!(
            gbench(GBENCH.as_bytes(), true).unwrap()[1],
            case("BM_B", "ns", &[1250.0, 1750.0])
        );
    }

    #[test]
    fn google_benchmark_refusals_say_what_to_change() {
        let aggregates_only = r#"{"benchmarks": [{"name": "BM_A_mean", "run_type": "aggregate",
            "real_time": 1, "time_unit": "ns"}]}"#;
        let failed = r#"{"benchmarks": [{"name": "BM_A", "run_type": "iteration",
            "error_occurred": true, "error_message": "out of memory"}]}"#;
        let unit = r#"{"benchmarks": [{"name": "BM_A", "real_time": 1, "time_unit": "ks"}]}"#;
        let messages: Vec<String> = [
            aggregates_only,
            failed,
            unit,
            "no json here\n",
            "{\"x\": 1}",
        ]
        .iter()
        .map(|text| format!("{:#}", gbench(text.as_bytes(), false).unwrap_err()))
        .collect();
        insta::assert_snapshot!(messages.join("\n"));
    }

    #[test]
    fn hyperfine_gives_each_timed_run_of_each_command() {
        let doc = r#"{"results": [
            {"command": "fast", "mean": 0.0015, "times": [0.001, 0.002], "exit_codes": [0, 0]},
            {"command": "slow x", "mean": 0.5, "times": [0.5], "exit_codes": [0]}]}"#;
        assert_eq!(
            hyperfine(doc.as_bytes()).unwrap(),
            vec![
                case("fast", "ns", &[1e6, 2e6]),
                case("slow x", "ns", &[5e8])
            ]
        );
    }

    #[test]
    fn cargo_criterion_messages_give_each_sample_per_iteration() {
        let out = concat!(
            "{\"reason\":\"group-complete\",\"group_name\":\"g\"}\n",
            "Benchmarking fib/20\n",
            "{\"reason\":\"benchmark-complete\",\"id\":\"fib/20\",\"iteration_count\":[10,20],",
            "\"measured_values\":[1000.0,2200.0],\"unit\":\"ns\"}\n",
        );
        assert_eq!(
            criterion_messages(out.as_bytes()).unwrap(),
            vec![case("fib/20", "ns", &[100.0, 110.0])]
        );
    }

    #[test]
    fn lines_repeat_names_as_iterations_and_convert_time_units() {
        let out = "hello world\nsort 1.5 ms\nhash 20\nsort 2e3 us\n  hash  30  \ncount 7 items\n";
        assert_eq!(
            lines(out.as_bytes()).unwrap(),
            vec![
                case("sort", "ns", &[1.5e6, 2e6]),
                case("hash", "", &[20.0, 30.0]),
                case("count", "items", &[7.0])
            ]
        );
        let mixed = format!("{:#}", lines("a 1 ms\na 2 items\n".as_bytes()).unwrap_err());
        let none = format!("{:#}", lines("hello\n".as_bytes()).unwrap_err());
        insta::assert_snapshot!(format!("{mixed}\n{none}"));
    }

    #[test]
    fn the_number_of_cases_is_bounded() {
        let mut out = String::new();
        for i in 0..MAX_CASES {
            out.push_str(&format!("case{i} 1\n"));
        }
        assert_eq!(lines(out.as_bytes()).unwrap().len(), MAX_CASES);
        out.push_str("one_more 1\n");
        let e = lines(out.as_bytes()).unwrap_err();
        assert_eq!(
            format!("{e:#}"),
            format!(
                "line {}: more than {MAX_CASES} cases: select fewer (the suite's filter)",
                MAX_CASES + 1
            )
        );
    }

    #[test]
    fn a_case_named_as_a_process_metric_is_refused() {
        let e = check_cases(&spec("lines"), vec![case("wall", "", &[1.0])]).unwrap_err();
        insta::assert_snapshot!(format!("{e:#}"));
    }

    #[test]
    fn a_file_the_execution_did_not_write_is_refused_and_a_written_one_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.json");
        std::fs::write(&file, r#"{"results": [{"command": "c", "times": [1.0]}]}"#).unwrap();
        let spec = spec("hyperfine@out.json");
        let before = source_before(&spec, dir.path());
        let stdout = dir.path().join("stdout");
        let e = read_cases(&spec, &stdout, dir.path(), &before).unwrap_err();
        assert!(format!("{e:#}").ends_with("was not written by this execution (it is as it was before the execution started): the benchmark command must write it, e.g. --benchmark_out= or --export-json"));
        std::fs::write(
            &file,
            r#"{"results": [{"command": "c", "times": [2.0, 3.0]}]}"#,
        )
        .unwrap();
        assert_eq!(
            read_cases(&spec, &stdout, dir.path(), &before).unwrap(),
            vec![case("c", "ns", &[2e9, 3e9])]
        );
    }

    #[test]
    fn a_json_output_beyond_the_cap_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let spec = spec("hyperfine@big.json");
        let before = source_before(&spec, dir.path());
        // A sparse file: its size is the cap plus one byte, with no byte on the disk.
        let big = std::fs::File::create(dir.path().join("big.json")).unwrap();
        big.set_len(MAX_SUITE_OUTPUT + 1).unwrap();
        let e = read_cases(&spec, &dir.path().join("stdout"), dir.path(), &before).unwrap_err();
        let message = format!("{e:#}").replace(&dir.path().display().to_string(), "DIR");
        insta::assert_snapshot!(message);
    }

    #[test]
    fn criterion_directory_reads_the_benchmarks_this_execution_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let write_bench = |id: &str, dir_name: &str, times: &str| {
            let new = dir.path().join(dir_name).join("new");
            std::fs::create_dir_all(&new).unwrap();
            std::fs::write(
                new.join("benchmark.json"),
                format!(r#"{{"group_id":"g","full_id":"{id}","title":"{id}"}}"#),
            )
            .unwrap();
            std::fs::write(
                new.join("sample.json"),
                format!(r#"{{"sampling_mode":"Linear","iters":[1.0,2.0],"times":{times}}}"#),
            )
            .unwrap();
        };
        write_bench("g/old", "g/old", "[5.0,10.0]");
        std::fs::create_dir_all(dir.path().join("report")).unwrap();
        let spec = spec("criterion@.");
        let before = source_before(&spec, dir.path());
        write_bench("g/a", "g/a", "[3.0,8.0]");
        let stdout = dir.path().join("stdout");
        assert_eq!(
            read_cases(&spec, &stdout, dir.path(), &before).unwrap(),
            vec![case("g/a", "ns", &[3.0, 4.0])]
        );
    }

    #[test]
    fn metric_forms_parse_and_bad_ones_are_refused() {
        assert_eq!(
            spec("gbench:cpu_time@out/b.json"),
            SuiteSpec {
                format: SuiteFormat::Gbench,
                cpu_time: true,
                source: Some("out/b.json".into())
            }
        );
        assert_eq!(spec("lines").source, None);
        let refusals: Vec<String> = ["gbench:wall", "lines:x", "hyperfine", "gbench@"]
            .iter()
            .map(|t| {
                format!(
                    "{:#}",
                    super::super::metric::MetricSpec::parse(t).unwrap_err()
                )
            })
            .collect();
        insta::assert_snapshot!(refusals.join("\n"));
    }
}
