//! `layoutrand export`: a store's measurements as CSV or JSON, in the shape
//! `layoutrand analyze FILE.csv --levels binary,execution,iteration --value value` reads.
//! The `layout` column marks the default-layout baseline and the build's own binary, which
//! `analyze` leaves out as `report` does.

use std::io::Write;

use anyhow::{bail, Result};
use serde::Serialize;

use super::metric::primary_name_in_store;
use crate::files::results::Machine;
use crate::files::store::scan_results;

/// Output format of an export, named on the command line `csv` or `json` (read with
/// [`FromStr`](std::str::FromStr), written with [`Display`](std::fmt::Display)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Header line `program,binary,layout,execution,iteration,value` (`program,variant,…`
    /// with variants; + `warmup` with warmups; + `machine` when executions record one; +
    /// `data_seed,env_pad,heap_offset` when they record a data seed; + `mmap_threshold` when
    /// the run varied it).
    Csv,
    /// One object (`schema`, `tool_version`, `measurements`): the rows as objects with the
    /// CSV's columns plus `metric`, `unit`, `warmup`.
    Json,
}

impl std::fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        })
    }
}

impl std::str::FromStr for ExportFormat {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Self> {
        match text {
            "csv" => Ok(ExportFormat::Csv),
            "json" => Ok(ExportFormat::Json),
            _ => bail!("unknown export format {text:?}: csv or json"),
        }
    }
}

/// One exported row.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ExportRow {
    /// Program name.
    pub(crate) program: String,
    /// The variant (`build --variant NAME`); absent without variants (and then the CSV has no
    /// `variant` column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) variant: Option<String>,
    /// Binary label (`baseline`, `as-built`, `seed-N`): the binary level.
    pub(crate) binary: String,
    /// `default` for the default-layout baseline, `as_built` for the build's own binary,
    /// `random` for a randomised binary ([`crate::measurements::LAYOUT_COLUMN`]): `analyze`
    /// leaves the first two out, as `report` does.
    pub(crate) layout: &'static str,
    /// Execution index.
    pub(crate) execution: u32,
    /// Iteration index.
    pub(crate) iteration: u32,
    /// The value.
    pub(crate) value: f64,
    /// Metric name.
    pub(crate) metric: String,
    /// Unit.
    pub(crate) unit: String,
    /// Warmup flag.
    pub(crate) warmup: bool,
    /// The machine that ran the execution ([`Machine::label`]: the Slurm node, else the host
    /// name), when the store records one per execution (Slurm runs); absent otherwise (and
    /// then the CSV has no `machine` column, so `analyze` inputs keep their columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) machine: Option<String>,
    /// The execution's data seed (`run --data-seeds` above 1); absent when the data layout
    /// was not a factor (an empty CSV cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) data_seed: Option<u64>,
    /// Bytes of the execution's environment padding (moves the initial stack).
    pub(crate) env_pad: u32,
    /// Bytes the heap-offset library allocated before `main`; absent when the heap was not
    /// moved (one data seed, a static binary; an empty CSV cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) heap_offset: Option<u32>,
    /// Malloc's mmap threshold in bytes the library set (`run --vary-mmap-threshold`);
    /// absent when it was malloc's own (and then the CSV has no `mmap_threshold` column
    /// unless another execution has one: an empty cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mmap_threshold: Option<u32>,
}

/// What an execution record adds to each of its rows.
#[derive(Debug, Clone, Default)]
struct ExecutionColumns {
    machine: Option<String>,
    data_seed: Option<u64>,
    env_pad: u32,
    heap_offset: Option<u32>,
    mmap_threshold: Option<u32>,
}

/// Exports the store in `dir` to `out` in two streaming passes ([`scan_results`]): the first
/// finds the metrics and whether variants exist, the second writes each committed
/// execution's rows as it is read. Memory stays bounded by one execution's measurements
/// whatever the store's size. Returns the store's warnings (torn last line, …).
// Long on purpose: the two passes share the survey's findings (metrics, columns present)
// through local state, which the closures of `scan_results` borrow; split apart they
// would need a struct built only to carry them.
pub fn export_store(
    dir: &std::path::Path,
    metric: Option<&str>,
    include_warmup: bool,
    format: ExportFormat,
    out: &mut dyn Write,
) -> Result<Vec<crate::files::store::StoreWarning>> {
    let mut metrics = std::collections::BTreeSet::new();
    let mut with_variant = false;
    let mut with_machine = false;
    let mut with_data = false;
    let mut with_mmap_threshold = false;
    let survey = scan_results(dir, |execution, measurements| {
        with_machine |= execution.machine.is_some();
        with_data |= execution.data_seed.is_some();
        with_mmap_threshold |= execution.mmap_threshold.is_some();
        for m in measurements {
            with_variant |= m.variant.is_some();
            if !metrics.contains(&m.metric) {
                metrics.insert(m.metric);
            }
        }
    })?;
    let metric = match (metric, &survey.header) {
        (Some(m), _) => m.to_string(),
        (None, Some(h)) => primary_name_in_store(&h.metric, |m| metrics.contains(m)).to_string(),
        (None, None) if survey.executions.is_empty() => bail!(
            "{} is empty: no execution has been recorded yet (run `layoutrand run`)",
            dir.join(crate::files::store::RESULTS_FILE).display()
        ),
        (None, None) => bail!(
            "{} has executions but no header record: it was not written by layoutrand run",
            dir.join(crate::files::store::RESULTS_FILE).display()
        ),
    };
    require_metric(&metric, &metrics)?;
    let columns = Columns {
        variant: with_variant,
        warmup: include_warmup,
        machine: with_machine,
        data: with_data,
        mmap_threshold: with_mmap_threshold,
    };
    let mut writer = RowWriter::new(format, columns, out)?;
    let mut failed = None;
    scan_results(dir, |execution, measurements| {
        if failed.is_some() {
            return;
        }
        let of_execution = ExecutionColumns {
            machine: execution.machine.as_ref().map(Machine::label),
            data_seed: execution.data_seed,
            env_pad: execution.env_pad,
            heap_offset: execution.heap_offset,
            mmap_threshold: execution.mmap_threshold,
        };
        for m in measurements {
            if m.metric != metric || (m.warmup && !include_warmup) {
                continue;
            }
            if let Err(e) = writer.write(&row(m, of_execution.clone())) {
                failed = Some(e);
                return;
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    writer.finish()?;
    Ok(survey.warnings)
}

/// Refuses to export `metric` when the store (which has `metrics`) has no measurement of it.
fn require_metric(metric: &str, metrics: &std::collections::BTreeSet<String>) -> Result<()> {
    if metrics.contains(metric) {
        return Ok(());
    }
    if metric == crate::files::metric::SUITE_CASES {
        // A suite's store has no one primary metric: every case is one.
        bail!(
            "a suite's store holds one metric per case: name the case to export with --metric \
             NAME (the store has: {})",
            metrics.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    bail!(
        "no measurements of metric {metric:?} (the store has: {})",
        if metrics.is_empty() {
            "none".to_string()
        } else {
            metrics.iter().cloned().collect::<Vec<_>>().join(", ")
        }
    )
}

fn row(m: crate::files::store::Measurement, execution: ExecutionColumns) -> ExportRow {
    ExportRow {
        layout: match m.binary.as_str() {
            crate::files::manifest::BASELINE_LABEL => crate::measurements::DEFAULT_LAYOUT,
            crate::files::manifest::AS_BUILT_LABEL => crate::measurements::AS_BUILT_LAYOUT,
            _ => "random",
        },
        program: m.program,
        variant: m.variant,
        binary: m.binary,
        execution: m.execution,
        iteration: m.iteration,
        value: m.value,
        metric: m.metric,
        unit: m.unit,
        warmup: m.warmup,
        machine: execution.machine,
        data_seed: execution.data_seed,
        env_pad: execution.env_pad,
        heap_offset: execution.heap_offset,
        mmap_threshold: execution.mmap_threshold,
    }
}

/// The data layout's columns, last in the CSV of a store with data seeds (`run
/// --data-seeds`; other stores keep the columns `analyze` has always read): `heap_offset`
/// empty when the execution records none (a static binary).
const DATA_COLUMNS: [&str; 3] = ["data_seed", "env_pad", "heap_offset"];

/// The optional CSV columns, each present only when the store needs it.
#[derive(Debug, Clone, Copy)]
struct Columns {
    /// `variant`, after `program`: the store has variants.
    variant: bool,
    /// `warmup`, after `value`: warmup iterations are exported.
    warmup: bool,
    /// `machine`: some execution records its machine.
    machine: bool,
    /// [`DATA_COLUMNS`], last: some execution records a data seed.
    data: bool,
    /// `mmap_threshold`, after them: some execution records one (`run
    /// --vary-mmap-threshold`).
    mmap_threshold: bool,
}

/// Writes rows one at a time in either format.
enum RowWriter<'a> {
    Csv {
        // Boxed: the writer's buffer would make every `Json` row writer as large.
        csv: Box<csv::Writer<&'a mut dyn Write>>,
        columns: Columns,
    },
    Json {
        out: &'a mut dyn Write,
        first: bool,
    },
}

impl<'a> RowWriter<'a> {
    fn new(format: ExportFormat, columns: Columns, out: &'a mut dyn Write) -> Result<Self> {
        Ok(match format {
            ExportFormat::Csv => {
                let mut csv = csv::Writer::from_writer(out);
                let mut head = vec![
                    "program",
                    "binary",
                    crate::measurements::LAYOUT_COLUMN,
                    "execution",
                    "iteration",
                    "value",
                ];
                if columns.variant {
                    head.insert(1, "variant");
                }
                if columns.warmup {
                    head.push("warmup");
                }
                if columns.machine {
                    head.push("machine");
                }
                if columns.data {
                    head.extend(DATA_COLUMNS);
                }
                if columns.mmap_threshold {
                    head.push("mmap_threshold");
                }
                csv.write_record(&head)?;
                RowWriter::Csv {
                    csv: Box::new(csv),
                    columns,
                }
            }
            ExportFormat::Json => {
                // One object with the output's schema and version, like every JSON output
                // (docs/formats.md), the rows streamed into its `measurements` array.
                write!(
                    out,
                    "{{\"schema\": {}, \"tool_version\": \"{}\", \"measurements\": [",
                    crate::files::OUTPUT_SCHEMA,
                    env!("CARGO_PKG_VERSION")
                )?;
                RowWriter::Json { out, first: true }
            }
        })
    }

    fn write(&mut self, r: &ExportRow) -> Result<()> {
        match self {
            RowWriter::Csv { csv, columns } => {
                let mut rec = vec![
                    r.program.clone(),
                    r.binary.clone(),
                    r.layout.to_string(),
                    r.execution.to_string(),
                    r.iteration.to_string(),
                    r.value.to_string(),
                ];
                if columns.variant {
                    rec.insert(1, r.variant.clone().unwrap_or_default());
                }
                if columns.warmup {
                    rec.push(r.warmup.to_string());
                }
                if columns.machine {
                    // An execution without one in a store where others have one (a local
                    // run resumed by Slurm): an empty cell, not a guessed name.
                    rec.push(r.machine.clone().unwrap_or_default());
                }
                if columns.data {
                    let cell = |v: Option<String>| v.unwrap_or_default();
                    rec.push(cell(r.data_seed.map(|s| s.to_string())));
                    rec.push(r.env_pad.to_string());
                    rec.push(cell(r.heap_offset.map(|h| h.to_string())));
                }
                if columns.mmap_threshold {
                    rec.push(r.mmap_threshold.map(|t| t.to_string()).unwrap_or_default());
                }
                csv.write_record(&rec)?;
            }
            RowWriter::Json { out, first } => {
                out.write_all(if *first { b"\n  " } else { b",\n  " })?;
                *first = false;
                serde_json::to_writer(&mut **out, r)?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        match self {
            RowWriter::Csv { mut csv, .. } => csv.flush()?,
            RowWriter::Json { out, first } => {
                out.write_all(if first { b"]}\n" } else { b"\n]}\n" })?;
                out.flush()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{require_metric, ExportFormat};

    #[test]
    fn a_suite_store_asks_for_the_case_to_export() {
        let metrics: std::collections::BTreeSet<String> =
            ["BM_a".to_string(), "BM_b".to_string()].into();
        require_metric("BM_a", &metrics).unwrap();
        let e = require_metric(crate::files::metric::SUITE_CASES, &metrics).unwrap_err();
        insta::assert_snapshot!(format!("{e:#}"));
    }

    #[test]
    fn format_names_read_back_as_written_and_others_are_refused() {
        for format in [ExportFormat::Csv, ExportFormat::Json] {
            assert_eq!(format.to_string().parse::<ExportFormat>().unwrap(), format);
        }
        assert_eq!(ExportFormat::Csv.to_string(), "csv");
        let err = "xml".parse::<ExportFormat>().unwrap_err().to_string();
        assert!(
            err.contains("\"xml\"") && err.contains("csv or json"),
            "{err}"
        );
    }
}
