//! The experiment model: an output directory's manifest and result store, grouped into one
//! balanced binaries × executions × iterations data set per program and metric.
//!
//! Kalibera & Jones' estimators (2013, §9.2, eq. 1–2) assume balanced data: every binary
//! has the same number of executions and every execution the same number of live
//! iterations. A run that was interrupted, or whose executions partly failed, is not
//! balanced. We *trim* rather than refuse: we keep the largest balanced part (see
//! [`crate::analysis::answers::balance`]) and say, in a warning, which binaries and executions were
//! short and what was left out. Refusing would throw away hours of measurements for one
//! missing execution; silently averaging unbalanced data would bias the estimators.
//!
//! The store describes itself (its header names the programs, binaries, variants, metric and
//! planned counts; its records carry every value), so a directory holding only
//! `results.jsonl` (copied off a cluster, or from a CI artefact) is still analysed. What only
//! the manifest knows (how the binaries were built, their link times) is then `None`, and a
//! warning says so: it is never guessed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::files::manifest::{BuildMode, Manifest, MANIFEST_FILE};
use crate::files::stopping::{GrowthLog, STOPPING_FILE};
use crate::files::store::{
    has_results, scan_results, Execution, ExecutionStatus, Header, Measurement, Results,
    RESULTS_FILE,
};

use super::balance::{balance, BalanceNote};
pub(crate) use crate::analysis::reading::Ending;
pub use crate::analysis::reading::{BalanceWarning, ExperimentWarning, NeverRan};

pub(crate) use super::series::{BinaryData, ExecutionData, Series};
pub(crate) use crate::files::manifest::{AS_BUILT_LABEL, BASELINE_LABEL};

/// One finished (or running) experiment, ready for analysis.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// The output directory.
    pub(crate) dir: PathBuf,
    /// Its manifest; `None` when the directory holds only the store (see [`load`]), so the
    /// build's description and the link times are unknown.
    pub(crate) manifest: Option<Manifest>,
    /// The store's header.
    pub(crate) header: Header,
    /// One data set per program, metric and variant, sorted by program, then metric (the
    /// run's primary first), then variant in build order (see [`variant_groups`]).
    pub series: Vec<Series>,
    /// How the executions ended, by program and variant (`None` without variants): each
    /// variant is a program of its own, whose failures must not be blamed on another.
    pub(crate) failures: BTreeMap<(String, Option<String>), FailureCounts>,
    /// Problems found while reading or balancing the data.
    pub(crate) warnings: Vec<ExperimentWarning>,
    /// The stopping rule, when `layoutrand experiment` grew the top level on-line
    /// (`stopping.json`).
    pub(crate) growth: Option<GrowthLog>,
    /// The machine of each execution, by its key, when the store records machines (Slurm
    /// runs); empty otherwise.
    pub(crate) machines: BTreeMap<crate::files::results::ExecutionKey, String>,
    /// The ends of the `run` invocations (load before and after, parallelism).
    pub(crate) finishes: Vec<crate::files::results::Finish>,
    /// The host around each execution that recorded it, by execution (its index is its
    /// round on a rounds schedule).
    pub(crate) hosts: Vec<(
        crate::files::results::ExecutionKey,
        crate::files::results::ExecutionHost,
    )>,
    /// The environment padding of each execution that ended well, by execution, when the
    /// run drew one per execution (one data seed, `--env-pad` above 0); empty otherwise.
    pub(crate) paddings: BTreeMap<crate::files::results::ExecutionKey, u32>,
    /// The metric the run was asked for (`wall`, `estimated_cycles`, `reported`, …), the
    /// one the CI gate judges unless metrics are named (see [`Experiment::gates`]).
    pub(crate) primary_metric: String,
    /// Whether [`Experiment::retain_metrics`] kept metrics named by the user.
    pub(crate) metrics_named: bool,
    /// Fewer executions stored than the run planned: the run was interrupted or is still
    /// going (`None` when every planned execution is stored).
    pub(crate) incomplete: Option<Incomplete>,
}

/// An unfinished store: how many of the planned executions it holds. Every answer drawn
/// from it is provisional, and the CI gate does not judge it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Incomplete {
    /// Executions stored (whatever their status).
    pub stored: u64,
    /// Executions the run planned (its extensions included).
    pub planned: u64,
}

impl Incomplete {
    /// The incompleteness of `results`, when it stores fewer executions than it planned.
    pub(crate) fn of(results: &Results) -> Option<Incomplete> {
        let planned = results.planned_total()?;
        let stored = results.stored_total();
        (stored < planned).then_some(Incomplete { stored, planned })
    }
}

/// For each (program, metric) measured under named variants, the indices into `series` of
/// its variants' series, in build order (the first is the base of the comparisons). The
/// seeds of the series of one group are matched by [`super::series::BinaryData::seed`]:
/// the same seed number is the same order of the functions the variants share. Empty
/// without variants.
pub(crate) fn variant_groups(series: &[Series]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        if s.variant.is_none() {
            continue;
        }
        match groups.last_mut() {
            Some(g) if series[g[0]].program == s.program && series[g[0]].metric == s.metric => {
                g.push(i)
            }
            _ => groups.push(vec![i]),
        }
    }
    groups
}

/// One warning per program some of whose binaries never ran (no execution succeeded): they
/// drop out of the analysis, which then covers only the layouts that ran. A failure on some
/// layouts only is itself a finding (a bug that depends on addresses), which a count of failed
/// executions hides; a failure on every binary is no layout effect but the command (a wrong
/// `{bin}`, a missing input), so its stored output is shown, once.
fn binaries_that_never_ran(executions: &[Execution]) -> Vec<ExperimentWarning> {
    outcomes_by_binary(executions)
        .into_iter()
        .filter_map(|((program, variant), binaries)| {
            let label = super::series::program_label(program, variant);
            never_ran(label, &binaries).map(ExperimentWarning::NeverRan)
        })
        .collect()
}

/// How the executions of one binary ended: how many succeeded, and those that failed.
struct BinaryOutcomes<'a> {
    binary: &'a str,
    succeeded: usize,
    failed: Vec<&'a Execution>,
}

impl BinaryOutcomes<'_> {
    /// Whether the binary was run and no execution of it succeeded.
    fn never_ran(&self) -> bool {
        self.succeeded == 0 && !self.failed.is_empty()
    }
}

/// The outcomes of `executions` per program (and variant), per binary in order of appearance.
fn outcomes_by_binary(
    executions: &[Execution],
) -> BTreeMap<(&str, Option<&str>), Vec<BinaryOutcomes<'_>>> {
    let mut per_program: BTreeMap<(&str, Option<&str>), Vec<BinaryOutcomes>> = BTreeMap::new();
    for e in executions {
        let binaries = per_program
            .entry((&e.program, e.variant.as_deref()))
            .or_default();
        let i = match binaries.iter().position(|b| b.binary == e.binary) {
            Some(i) => i,
            None => {
                binaries.push(BinaryOutcomes {
                    binary: &e.binary,
                    succeeded: 0,
                    failed: Vec::new(),
                });
                binaries.len() - 1
            }
        };
        match e.status {
            ExecutionStatus::Ok => binaries[i].succeeded += 1,
            _ => binaries[i].failed.push(e),
        }
    }
    per_program
}

/// The binaries of the program `label` that never ran, among its `binaries`; `None` when
/// every binary ran at least once.
fn never_ran(label: String, binaries: &[BinaryOutcomes]) -> Option<NeverRan> {
    let never: Vec<&BinaryOutcomes> = binaries.iter().filter(|b| b.never_ran()).collect();
    if never.is_empty() {
        return None;
    }
    let failed: Vec<&Execution> = never.iter().flat_map(|b| b.failed.clone()).collect();
    let mut endings = Vec::new();
    for e in &failed {
        let ending = ending(e);
        if !endings.contains(&ending) {
            endings.push(ending);
        }
    }
    Some(NeverRan {
        label,
        binaries: never.iter().map(|b| b.binary.to_string()).collect(),
        of: binaries.len(),
        executions: failed.len(),
        endings,
        output: failed.iter().find_map(|e| e.output_tail.clone()),
    })
}

/// How the failed execution `e` ended.
fn ending(e: &Execution) -> Ending {
    match (e.status, e.exit_code, e.signal) {
        (ExecutionStatus::Exit, Some(code), _) => Ending::Exit(code),
        (ExecutionStatus::Signal, _, Some(sig)) => Ending::Signal(sig),
        (status, _, _) => Ending::Other(status),
    }
}

/// How many executions of one program ended in each way other than `ok`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct FailureCounts {
    /// Executions that ended well.
    pub ok: usize,
    /// Non-zero exit code.
    pub exit: usize,
    /// Killed by a signal.
    pub(crate) signal: usize,
    /// Killed after the timeout.
    pub(crate) timeout: usize,
    /// Could not be started.
    pub(crate) spawn: usize,
    /// The metric could not be read from the output.
    pub(crate) metric: usize,
}

impl FailureCounts {
    /// Executions that did not end well.
    pub(crate) fn failed(&self) -> usize {
        self.exit + self.signal + self.timeout + self.spawn + self.metric
    }

    fn count(&mut self, status: ExecutionStatus) {
        match status {
            ExecutionStatus::Ok => self.ok += 1,
            ExecutionStatus::Exit => self.exit += 1,
            ExecutionStatus::Signal => self.signal += 1,
            ExecutionStatus::Timeout => self.timeout += 1,
            ExecutionStatus::Spawn => self.spawn += 1,
            ExecutionStatus::Metric => self.metric += 1,
        }
    }
}

/// Loads `dir/manifest.json` and `dir/results.jsonl` into an [`Experiment`], or the store
/// alone when `dir` has no manifest (with a warning naming what is therefore unknown).
///
/// The store is read in one streaming pass ([`scan_results`]): each committed execution's
/// measurements go straight into the per-series tables, so memory holds the values (about
/// 50 bytes each) and never the store's records.
///
/// Errors, each naming the file: neither manifest nor store, no store, a store without
/// header, a store written by another schema (the reader refuses newer ones) or another tool
/// version whose schema is not ours, a store with no committed execution, a store in which
/// every execution failed, a store for programs the manifest (or, without one, the store's
/// header) does not name.
pub(crate) fn load(dir: &Path) -> Result<Experiment> {
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    let has_manifest = dir.join(MANIFEST_FILE).exists();
    if !has_manifest && !has_results(dir) {
        bail!(
            "{} has no {MANIFEST_FILE}: it is not a layoutrand experiment directory (run `layoutrand build` there first, or pass the directory it wrote)",
            dir.display()
        );
    }
    let manifest = if has_manifest {
        Some(Manifest::load(dir)?)
    } else {
        None
    };
    if !has_results(dir) {
        bail!(
            "{} has no {RESULTS_FILE}: nothing has been measured yet (run `layoutrand run` first)",
            dir.display()
        );
    }
    let mut tables = Tables::new(dir, manifest.as_ref());
    let results = scan_results(dir, |execution, measurements| {
        tables.add_execution(execution, measurements)
    })?;
    tables.finish(dir, manifest, results)
}

/// Builds an [`Experiment`] from an already-read manifest and store (the part of [`load`]
/// that does no I/O; `dir` is used in messages only).
pub fn from_parts(dir: &Path, manifest: Manifest, results: Results) -> Result<Experiment> {
    from_store_parts(dir, Some(manifest), results)
}

/// [`from_parts`] with the manifest optional: `None` builds the experiment from the store
/// alone, as [`load`] does for a directory without `manifest.json`.
pub(crate) fn from_store_parts(
    dir: &Path,
    manifest: Option<Manifest>,
    mut results: Results,
) -> Result<Experiment> {
    let mut tables = Tables::new(dir, manifest.as_ref());
    let status_of: BTreeMap<crate::files::results::ExecutionKey, &Execution> =
        results.executions.iter().map(|e| (e.key(), e)).collect();
    let mut per_execution: BTreeMap<crate::files::results::ExecutionKey, Vec<Measurement>> =
        BTreeMap::new();
    for m in std::mem::take(&mut results.measurements) {
        per_execution.entry(m.key()).or_default().push(m);
    }
    for (key, measurements) in per_execution {
        if let Some(e) = status_of.get(&key) {
            tables.add_execution(e, measurements);
        }
    }
    drop(status_of);
    tables.finish(dir, manifest, results)
}

/// Identifies one series while the store is read: program, metric, variant.
type SeriesKey = (String, String, Option<String>);

/// The store's committed values, grouped per series → binary → execution → iteration, as
/// they are read; the first problem found stops the grouping and is reported by
/// [`Tables::finish`].
struct Tables {
    store: PathBuf,
    manifest_file: PathBuf,
    /// The programs of the manifest; `None` without one (then the store's header is the
    /// reference, checked in [`Tables::finish`] once the header has been read).
    known_programs: Option<std::collections::BTreeSet<String>>,
    raw: BTreeMap<SeriesKey, BTreeMap<String, RawBinary>>,
    units: BTreeMap<(String, String), String>,
    error: Option<anyhow::Error>,
}

impl Tables {
    fn new(dir: &Path, manifest: Option<&Manifest>) -> Tables {
        Tables {
            store: dir.join(RESULTS_FILE),
            manifest_file: dir.join(MANIFEST_FILE),
            known_programs: manifest.map(|m| {
                m.binary_sets()
                    .flat_map(|v| v.binaries.iter().map(|b| b.name.clone()))
                    .collect()
            }),
            raw: BTreeMap::new(),
            units: BTreeMap::new(),
            error: None,
        }
    }

    /// Files the measurements of one committed execution (only a successful one's count).
    fn add_execution(&mut self, exec: &Execution, measurements: Vec<Measurement>) {
        if self.error.is_some() || exec.status != ExecutionStatus::Ok {
            return;
        }
        for m in measurements {
            if let Err(e) = self.add(exec, m) {
                self.error = Some(e);
                return;
            }
        }
    }

    /// Checks measurement `m` of execution `exec` and files it under its series, binary,
    /// execution and iteration.
    fn add(&mut self, exec: &Execution, m: Measurement) -> Result<()> {
        self.check(&m)?;
        self.insert(exec, m)
    }

    /// Refuses a measurement of a program the manifest does not know, a non-finite value,
    /// or a metric recorded in a second unit (the first unit seen is the series').
    fn check(&mut self, m: &Measurement) -> Result<()> {
        let store = self.store.display();
        if self
            .known_programs
            .as_ref()
            .is_some_and(|known| !known.contains(&m.program))
        {
            bail!(
                "{store}: program `{}` (binary {}, execution {}) is not in {}",
                m.program,
                m.binary,
                m.execution,
                self.manifest_file.display()
            );
        }
        if !m.value.is_finite() {
            bail!(
                "{store}: iteration {} of execution {} of {} {} has a non-finite `{}` value",
                m.iteration,
                m.execution,
                m.program,
                m.binary,
                m.metric
            );
        }
        match self.units.get(&(m.program.clone(), m.metric.clone())) {
            Some(u) if *u != m.unit => bail!(
                "{store}: metric `{}` of program `{}` is recorded in both `{}` and `{}`",
                m.metric,
                m.program,
                u,
                m.unit
            ),
            Some(_) => {}
            None => {
                self.units
                    .insert((m.program.clone(), m.metric.clone()), m.unit.clone());
            }
        }
        Ok(())
    }

    /// Files `m` in the tables, refusing a second value of the same iteration.
    fn insert(&mut self, exec: &Execution, m: Measurement) -> Result<()> {
        let store = self.store.display();
        // Looked up by reference and cloned only when new, so that the keys stay at hand
        // for the duplicate's error message without building it for every measurement.
        let key: SeriesKey = (m.program, m.metric, m.variant);
        if !self.raw.contains_key(&key) {
            self.raw.insert(key.clone(), BTreeMap::new());
        }
        let binaries = self.raw.get_mut(&key).expect("inserted above");
        if !binaries.contains_key(&m.binary) {
            binaries.insert(
                m.binary.clone(),
                RawBinary {
                    seed: m.seed,
                    executions: BTreeMap::new(),
                },
            );
        }
        let binary = binaries.get_mut(&m.binary).expect("inserted above");
        let execution = binary
            .executions
            .entry(m.execution)
            .or_insert_with(|| RawExecution {
                schedule_index: exec.schedule_index,
                wall_ns: exec.wall_ns,
                data_seed: exec.data_seed,
                values: BTreeMap::new(),
            });
        if execution
            .values
            .insert(m.iteration, (m.value, m.warmup))
            .is_some()
        {
            let (program, metric, _) = &key;
            bail!(
                "{store}: iteration {} of execution {} of {program} {} has two `{metric}` values",
                m.iteration,
                m.execution,
                m.binary
            );
        }
        Ok(())
    }

    /// Checks the store as a whole and turns the tables into balanced series.
    fn finish(
        self,
        dir: &Path,
        manifest: Option<Manifest>,
        results: Results,
    ) -> Result<Experiment> {
        let store = self.store;
        let (header, rounds) = planned(checked_header(&store, &results)?, &results);
        let mut warnings = reading_warnings(dir, &header, manifest.as_ref(), &results);
        if results.executions.is_empty() {
            bail!(
                "{} has no completed execution yet: nothing to report",
                store.display()
            );
        }
        let failures = failure_counts(&store, &results.executions)?;
        let incomplete = Incomplete::of(&results);
        if let Some(e) = self.error {
            return Err(e);
        }
        if manifest.is_none() {
            programs_in_header(&store, &header, self.raw.keys().map(|(p, _, _)| p))?;
        }
        if self.raw.is_empty() {
            bail!(
                "{}: the successful executions recorded no measurements",
                store.display()
            );
        }
        let units = self.units;
        let later_phases = later_phases(&results, &header.metric);
        let mut series = Vec::new();
        for ((program, metric, variant), binaries) in in_variant_order(self.raw, &header) {
            let unit = units[&(program.clone(), metric.clone())].clone();
            let (seeds, [baseline, as_built]) =
                balanced_binaries(&program, &metric, &variant, binaries, &mut warnings);
            let binary_cost_seconds = manifest.as_ref().and_then(|m| binary_cost(m, &program));
            series.push(Series {
                program,
                variant,
                metric,
                unit,
                seeds,
                baseline,
                as_built,
                warmup_discarded: header.warmup,
                rounds,
                later_phases: later_phases.clone(),
                binary_cost_seconds,
            });
        }
        let primary = primary_first(&mut series, &header.metric);
        Ok(Experiment {
            dir: dir.to_path_buf(),
            manifest,
            series,
            failures,
            warnings,
            growth: read_growth_log(dir)?,
            machines: results
                .executions
                .iter()
                .filter_map(|e| Some((e.key(), e.machine.as_ref()?.label())))
                .collect(),
            hosts: results
                .executions
                .iter()
                .filter_map(|e| Some((e.key(), e.host?)))
                .collect(),
            paddings: paddings_per_execution(&header, &results.executions),
            finishes: results.finishes,
            primary_metric: primary,
            metrics_named: false,
            incomplete,
            header,
        })
    }
}

/// The padding of each execution that ended well, when the run drew one per execution.
fn paddings_per_execution(
    header: &Header,
    executions: &[crate::files::results::Execution],
) -> BTreeMap<crate::files::results::ExecutionKey, u32> {
    if header.data_seeds > 1 || header.env_pad_max == 0 {
        return BTreeMap::new();
    }
    executions
        .iter()
        .filter(|e| e.status == crate::files::results::ExecutionStatus::Ok)
        .map(|e| (e.key(), e.env_pad))
        .collect()
}

/// Drops the duplicate metrics of `series` and orders them by program, the metric the run
/// was asked for (`asked`) first, then the others it recorded on the way; returns the name
/// of that primary metric.
///
/// A suite's cases are all primary: they come first, in name order, and the first of them is
/// the one named primary (what a command asking for one metric takes by default).
fn primary_first(series: &mut Vec<Series>, asked: &str) -> String {
    drop_duplicate_metrics(series);
    let primary = crate::files::metric::primary_name_in_store(asked, |m| {
        series.iter().any(|s| s.metric == m)
    });
    let suite = crate::files::metric::is_suite_spec(asked);
    let is_primary = |metric: &str| match suite {
        true => !crate::files::metric::PROCESS_METRICS.contains(&metric),
        false => metric == primary,
    };
    // Cases in natural order (`BM/2` before `BM/10`), as the suite's table lists them by name.
    series.sort_by(|a, b| {
        (&a.program, !is_primary(&a.metric))
            .cmp(&(&b.program, !is_primary(&b.metric)))
            .then_with(|| match suite {
                true => crate::analysis::vocabulary::natural_order(&a.metric, &b.metric),
                false => a.metric.cmp(&b.metric),
            })
    });
    match series.first().filter(|s| suite && is_primary(&s.metric)) {
        Some(first_case) => first_case.metric.clone(),
        None => primary.to_string(),
    }
}

/// The store's header, refused when missing (an empty store, or one not written by
/// `layoutrand run`) or of a schema newer than this layoutrand reads.
fn checked_header(store: &Path, results: &Results) -> Result<Header> {
    let Some(header) = results.header.clone() else {
        if results.executions.is_empty() {
            bail!(
                "{} is empty: no execution has been recorded yet (run `layoutrand run`)",
                store.display()
            );
        }
        bail!(
            "{} has no header record: it was not written by layoutrand run",
            store.display()
        );
    };
    if !(1..=crate::files::store::RESULTS_SCHEMA).contains(&header.schema) {
        bail!(
            "{} was written with results schema {} by layoutrand {}; this layoutrand ({}) reads schemas 1 to {}",
            store.display(),
            header.schema,
            header.tool_version,
            env!("CARGO_PKG_VERSION"),
            crate::files::store::RESULTS_SCHEMA
        );
    }
    Ok(header)
}

/// What reading the directory found, before balancing: the store's own warnings, the
/// manifest's, and the binaries that never ran.
fn reading_warnings(
    dir: &Path,
    header: &Header,
    manifest: Option<&Manifest>,
    results: &Results,
) -> Vec<ExperimentWarning> {
    let store = results
        .warnings
        .iter()
        .cloned()
        .map(ExperimentWarning::Store);
    store
        .chain(manifest_warning(dir, header, manifest))
        .chain(binaries_that_never_ran(&results.executions))
        .collect()
}

/// The warning about the manifest: written by another layoutrand than the store, or absent
/// (then what only it records is unknown).
fn manifest_warning(
    dir: &Path,
    header: &Header,
    manifest: Option<&Manifest>,
) -> Option<ExperimentWarning> {
    match manifest {
        Some(m) if header.tool_version != m.tool_version => {
            Some(ExperimentWarning::VersionsDiffer {
                manifest: m.tool_version.clone(),
                store: header.tool_version.clone(),
            })
        }
        Some(_) => None,
        None => Some(ExperimentWarning::NoManifest {
            dir: dir.to_path_buf(),
        }),
    }
}

/// The executions' statuses per program and variant; an error when every execution failed
/// (with the last output of one of them).
fn failure_counts(
    store: &Path,
    executions: &[Execution],
) -> Result<BTreeMap<(String, Option<String>), FailureCounts>> {
    let mut failures: BTreeMap<(String, Option<String>), FailureCounts> = BTreeMap::new();
    for e in executions {
        failures
            .entry((e.program.clone(), e.variant.clone()))
            .or_default()
            .count(e.status);
    }
    if failures.values().all(|f| f.ok == 0) {
        let total: usize = failures.values().map(FailureCounts::failed).sum();
        let example = executions
            .iter()
            .find_map(|e| e.output_tail.as_deref())
            .map(|t| format!("; the last output of one of them:\n{}", t.trim_end()))
            .unwrap_or_default();
        bail!(
            "{}: all {total} execution(s) failed, so there is nothing to analyse{example}",
            store.display()
        );
    }
    Ok(failures)
}

/// The tables of each program, metric and variant, the variants in build order.
fn in_variant_order(
    raw: BTreeMap<SeriesKey, BTreeMap<String, RawBinary>>,
    header: &Header,
) -> Vec<(SeriesKey, BTreeMap<String, RawBinary>)> {
    let variant_rank = |v: &Option<String>| {
        v.as_ref()
            .and_then(|v| header.variants.iter().position(|n| n == v))
            .unwrap_or(0)
    };
    let mut raw: Vec<(SeriesKey, BTreeMap<String, RawBinary>)> = raw.into_iter().collect();
    raw.sort_by(|((pa, ma, va), _), ((pb, mb, vb), _)| {
        (pa, ma, variant_rank(va)).cmp(&(pb, mb, variant_rank(vb)))
    });
    raw
}

/// One binary's executions, warmup and live iterations apart.
fn binary_data(binary: String, rb: RawBinary) -> BinaryData {
    BinaryData {
        seed: rb.seed,
        executions: rb
            .executions
            .into_iter()
            .map(|(index, re)| {
                let (warmup, live): (Vec<_>, Vec<_>) =
                    re.values.into_values().partition(|(_, w)| *w);
                ExecutionData {
                    execution: index,
                    schedule_index: re.schedule_index,
                    wall_ns: re.wall_ns,
                    data_seed: re.data_seed,
                    warmup: warmup.into_iter().map(|(v, _)| v).collect(),
                    live: live.into_iter().map(|(v, _)| v).collect(),
                }
            })
            .collect(),
        binary,
    }
}

/// The randomised binaries by seed and the two fixed layouts (baseline, as built) of one
/// series, each balanced ([`balance`]), what balancing left out added to `warnings`. The
/// fixed layouts are balanced on their own: they are never part of the random layouts'
/// sample.
fn balanced_binaries(
    program: &str,
    metric: &str,
    variant: &Option<String>,
    binaries: BTreeMap<String, RawBinary>,
    warnings: &mut Vec<ExperimentWarning>,
) -> (Vec<BinaryData>, [Option<BinaryData>; 2]) {
    let mut seeds = Vec::new();
    let mut fixed = [None, None];
    for (binary, rb) in binaries {
        let data = binary_data(binary, rb);
        match data.binary.as_str() {
            BASELINE_LABEL => fixed[0] = Some(data),
            AS_BUILT_LABEL => fixed[1] = Some(data),
            _ => seeds.push(data),
        }
    }
    seeds.sort_by_key(|b| b.seed);
    let mut noted = |fixed: Option<&str>, notes: Vec<BalanceNote>| {
        warnings.extend(notes.into_iter().map(|note| {
            ExperimentWarning::Balance(BalanceWarning {
                program: program.to_string(),
                variant: variant.clone(),
                metric: metric.to_string(),
                fixed: fixed.map(str::to_string),
                note,
            })
        }))
    };
    let (seeds, notes) = balance(seeds);
    noted(None, notes);
    let fixed = fixed.map(|one| {
        one.and_then(|b| {
            let label = b.binary.clone();
            let (mut bal, notes) = balance(vec![b]);
            noted(Some(&label), notes);
            bal.pop()
        })
    });
    (seeds, fixed)
}

/// Without a manifest the store's header is the list of programs: a measurement of a program
/// it does not name is a store that contradicts itself, refused as the manifest check would.
fn programs_in_header<'a>(
    store: &Path,
    header: &Header,
    mut programs: impl Iterator<Item = &'a String>,
) -> Result<()> {
    match programs.find(|p| !header.programs.contains(p)) {
        Some(p) => bail!(
            "{}: program `{p}` is measured but not among the header's programs ({})",
            store.display(),
            header.programs.join(", ")
        ),
        None => Ok(()),
    }
}

/// Reads `dir/stopping.json` when present; a malformed one is an error naming the file.
fn read_growth_log(dir: &Path) -> Result<Option<GrowthLog>> {
    let path = dir.join(STOPPING_FILE);
    // Bounded, and never a FIFO, a device or a link (issue 54, attack 6).
    match crate::files::confined::read_side_file(dir, STOPPING_FILE)? {
        Some(text) => {
            let log: GrowthLog = serde_json::from_str(&text).with_context(|| {
                format!("{} is not a layoutrand stopping record", path.display())
            })?;
            log.check()
                .with_context(|| format!("{} is refused", path.display()))?;
            Ok(Some(log))
        }
        None => Ok(None),
    }
}

/// Metrics a store records twice under two names, as (raw, derived): cachegrind's `I1mr`
/// is `I1_misses` by definition (`run::metric::read_cachegrind_totals`), so the report
/// shows it once, by its derived name.
const DUPLICATE_METRICS: [(&str, &str); 1] = [("I1mr", "I1_misses")];

/// The name `metric` is reported under.
fn same_metric_as(metric: &str) -> &str {
    DUPLICATE_METRICS
        .iter()
        .find(|(raw, _)| *raw == metric)
        .map_or(metric, |(_, derived)| derived)
}

/// Drops a raw counter's series when its program also has the derived one.
fn drop_duplicate_metrics(series: &mut Vec<Series>) {
    let has = |series: &[Series], s: &Series, metric: &str| {
        series
            .iter()
            .any(|o| o.program == s.program && o.variant == s.variant && o.metric == metric)
    };
    let keep: Vec<bool> = series
        .iter()
        .map(|s| {
            same_metric_as(&s.metric) == s.metric || !has(series, s, same_metric_as(&s.metric))
        })
        .collect();
    let mut flags = keep.into_iter();
    series.retain(|_| flags.next().unwrap_or(true));
}

impl Experiment {
    /// Keeps only the data sets of the named metrics; an error lists the metrics available
    /// when one of `metrics` was not recorded.
    pub(crate) fn retain_metrics(&mut self, metrics: &[String]) -> Result<()> {
        if metrics.is_empty() {
            return Ok(());
        }
        // A raw counter reported under its derived name is asked for by that name.
        let metrics: Vec<String> = metrics
            .iter()
            .map(|m| same_metric_as(m).to_string())
            .collect();
        let available: std::collections::BTreeSet<&str> =
            self.series.iter().map(|s| s.metric.as_str()).collect();
        if let Some(missing) = metrics.iter().find(|m| !available.contains(m.as_str())) {
            bail!(
                "--metric {missing}: not recorded in {}; recorded metrics: {}",
                self.dir.join(RESULTS_FILE).display(),
                available.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        self.series.retain(|s| metrics.contains(&s.metric));
        self.metrics_named = true;
        Ok(())
    }

    /// Whether the CI gate (`--fail-if-slower`) judges `metric`: the run's primary metric,
    /// or every metric the user named with `--metric`. The other metrics a run records on
    /// the way (cachegrind's counts, `max_rss` beside the times) are reported but not gated:
    /// more data written or more memory is not "slower", and a gate that failed on them
    /// would fail builds whose time fell.
    pub(crate) fn gates(&self, metric: &str) -> bool {
        self.metrics_named || metric == self.primary_metric || self.is_case(metric)
    }

    /// The suite's cases measured for `program` (any variant), in name order: empty when the
    /// run measured no suite.
    pub(crate) fn cases_of(&self, program: &str) -> Vec<&str> {
        let mut cases: Vec<&str> = self
            .series
            .iter()
            .filter(|s| s.program == program && self.is_case(&s.metric))
            .map(|s| s.metric.as_str())
            .collect();
        cases.sort_unstable();
        cases.dedup();
        cases
    }

    /// Whether `metric` is a case of a suite (`--metric gbench`, …): every one is primary.
    pub(crate) fn is_case(&self, metric: &str) -> bool {
        crate::files::metric::is_suite_spec(&self.header.metric)
            && !crate::files::metric::PROCESS_METRICS.contains(&metric)
    }
}

/// The cost of one more binary of `program` (KJ §9.1, c₃): the mean link time of its seeds
/// in relink mode, the recorded full build in rebuild mode.
fn binary_cost(manifest: &Manifest, program: &str) -> Option<f64> {
    match manifest.mode {
        BuildMode::Rebuild => Some(manifest.recorded_build_seconds).filter(|s| *s > 0.0),
        BuildMode::Relink => {
            let times: Vec<f64> = manifest
                .seeds
                .iter()
                .flat_map(|v| v.binaries.iter())
                .filter(|b| b.name == program)
                .map(|b| b.link_seconds)
                .collect();
            (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64)
        }
    }
}

#[derive(Debug)]
struct RawBinary {
    seed: Option<u64>,
    executions: BTreeMap<u32, RawExecution>,
}

#[derive(Debug)]
struct RawExecution {
    schedule_index: u64,
    wall_ns: u64,
    data_seed: Option<u64>,
    values: BTreeMap<u32, (f64, bool)>,
}

/// Context for errors about a directory given on the command line.
pub fn load_with_context(dir: &Path) -> Result<Experiment> {
    load(dir).with_context(|| format!("cannot analyse the experiment in {}", dir.display()))
}

/// The binaries each extension of the run added, by phase: 1 for the first extension that
/// added binaries, 2 for the next, … ([`Series::later_phases`]); none for a metric measured
/// by cachegrind (`metric`, the run's), a simulation in which a later phase has no host
/// state to take out, only its layouts.
fn later_phases(results: &Results, metric: &str) -> BTreeMap<String, u32> {
    let simulated =
        crate::files::metric::MetricSpec::parse(metric).is_ok_and(|m| m.is_deterministic());
    if simulated {
        return BTreeMap::new();
    }
    (1u32..)
        .zip(results.extensions.iter().filter(|e| !e.binaries.is_empty()))
        .flat_map(|(phase, e)| e.binaries.iter().map(move |b| (b.clone(), phase)))
        .collect()
}

/// `header` with the run's planned executions (rounds added by `run --resume
/// --extend-executions` count too), and whether round `k` = execution `k` is a randomised
/// complete block: only if the rounds schedule planned every binary from the start (binaries
/// added later ran their rounds apart).
fn planned(header: Header, results: &Results) -> (Header, bool) {
    let rounds = header.schedule_design == crate::files::results::ScheduleDesign::Rounds
        && results.extensions.iter().all(|e| e.binaries.is_empty());
    let header = Header {
        executions: results.planned_executions().unwrap_or(header.executions),
        ..header
    };
    (header, rounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn execution(
        binary: &str,
        status: ExecutionStatus,
        code: Option<i32>,
        tail: &str,
    ) -> Execution {
        Execution {
            program: "demo".into(),
            binary: binary.into(),
            variant: None,
            seed: None,
            execution: 0,
            schedule_index: 0,
            env_pad: 0,
            data_seed: None,
            heap_offset: None,
            mmap_threshold: None,
            start_unix: 0.0,
            wall_ns: 1,
            status,
            exit_code: code,
            signal: (status == ExecutionStatus::Signal).then_some(11),
            output_tail: (!tail.is_empty()).then(|| tail.to_string()),
            machine: None,
            abandoned: 0,
            host: None,
        }
    }

    /// The grounds name the binaries that never ran with their counts, each way they ended
    /// once, and the first stored output; a binary with one success is not among them.
    #[test]
    fn binaries_that_never_ran_are_named_with_their_counts_and_endings() {
        use ExecutionStatus::{Exit, Ok as Fine, Signal, Timeout};
        let executions = [
            execution("seed-1", Fine, Some(0), ""),
            execution("seed-2", Exit, Some(3), ""),
            execution("seed-2", Signal, None, "segfault here"),
            execution("seed-2", Exit, Some(3), "later"),
            execution("seed-3", Timeout, None, ""),
            execution("seed-4", Exit, Some(1), ""),
            execution("seed-4", Fine, Some(0), ""),
        ];
        let warnings = binaries_that_never_ran(&executions);
        let [ExperimentWarning::NeverRan(n)] = warnings.as_slice() else {
            panic!("one warning for the one program: {warnings:?}");
        };
        assert_eq!(n.label, "demo");
        assert_eq!(n.binaries, ["seed-2", "seed-3"]);
        assert_eq!((n.of, n.executions), (4, 4));
        assert_eq!(
            n.endings,
            [Ending::Exit(3), Ending::Signal(11), Ending::Other(Timeout)]
        );
        assert_eq!(n.output.as_deref(), Some("segfault here"));
        assert!(binaries_that_never_ran(&executions[..1]).is_empty());
    }
}

/// Issue 54: `stopping.json` is a file of a received directory, and the report replays the
/// stopping rule from it. Any one of its values changed is refused by the reader or loads
/// a log whose checks hold; never a panic.
#[cfg(test)]
mod fuzz {
    use super::*;
    use crate::fuzz_support::{mutation, seeded, with_value_mutated};
    use proptest::prelude::*;

    /// A log as `experiment` writes it when it grows the design.
    fn valid() -> serde_json::Value {
        serde_json::json!({
            "rule": {"target": 0.01, "confidence": 0.95, "max_binaries": 40, "metric": "wall"},
            "start_binaries": 5,
            "rounds": [
                {"binaries": 5, "relative_half_width": 0.03},
                {"binaries": 10, "relative_half_width": null}
            ],
            "outcome": "max_reached",
            "caveat": "The number of randomised binaries was not fixed in advance.",
            "method": "lai-calibrated",
            "looks": [],
            "watched": [],
            "stopped_by": null
        })
    }

    fn load_json(doc: &serde_json::Value) -> Result<Option<GrowthLog>> {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join(STOPPING_FILE),
            serde_json::to_vec(doc).unwrap(),
        )
        .unwrap();
        read_growth_log(d.path())
    }

    #[test]
    fn the_valid_log_loads() {
        assert!(load_json(&valid()).unwrap().is_some());
    }

    proptest! {
        #![proptest_config(seeded(1000))]

        #[test]
        fn a_log_with_any_value_changed_is_refused_or_holds_its_checks(
            index in 0usize..100_000,
            change in mutation(),
        ) {
            let doc = with_value_mutated(&valid(), index, &change);
            if let Ok(Some(log)) = load_json(&doc) {
                prop_assert!(log.check().is_ok());
            }
        }
    }
}
