//! `layoutrand export`: a store's measurements as CSV or JSON, in the shape
//! `layoutrand analyze FILE.csv --levels binary,execution,iteration --value value` reads.
//! The `layout` column marks the default-layout baseline, which `analyze` leaves out as
//! `report` does.

use std::io::Write;

use anyhow::{bail, Result};
use serde::Serialize;

use super::metric::primary_name_in_store;
use super::store::Results;

/// Output format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Header line `program,binary,execution,iteration,value` (+ `warmup` with warmups).
    Csv,
    /// An array of objects with the CSV's columns plus `metric`, `unit`, `warmup`.
    Json,
}

/// One exported row.
#[derive(Debug, Clone, Serialize)]
pub struct ExportRow {
    /// Program name.
    pub program: String,
    /// Binary label (`baseline`, `seed-N`): the binary level.
    pub binary: String,
    /// `default` for the default-layout baseline, `random` for a randomised binary
    /// ([`crate::measurements::LAYOUT_COLUMN`]): `analyze` leaves the baseline out, as
    /// `report` does.
    pub layout: &'static str,
    /// Execution index.
    pub execution: u32,
    /// Iteration index.
    pub iteration: u32,
    /// The value.
    pub value: f64,
    /// Metric name.
    pub metric: String,
    /// Unit.
    pub unit: String,
    /// Warmup flag.
    pub warmup: bool,
}

/// The rows of `metric` (default: the run's primary metric), without warmup iterations
/// unless `include_warmup`. Only committed measurements of successful executions exist in
/// `results`, so failures never reach an export.
pub fn export_rows(
    results: &Results,
    metric: Option<&str>,
    include_warmup: bool,
) -> Result<Vec<ExportRow>> {
    let metric = match (metric, &results.header) {
        (Some(m), _) => m.to_string(),
        (None, Some(h)) => primary_name_in_store(&h.metric, |m| {
            results.measurements.iter().any(|x| x.metric == m)
        })
        .to_string(),
        (None, None) => bail!("the store has no header; name the metric with --metric"),
    };
    let rows: Vec<ExportRow> = results
        .measurements
        .iter()
        .filter(|m| m.metric == metric && (include_warmup || !m.warmup))
        .map(|m| ExportRow {
            program: m.program.clone(),
            binary: m.binary.clone(),
            layout: if m.binary == crate::files::manifest::BASELINE_LABEL {
                crate::measurements::DEFAULT_LAYOUT
            } else {
                "random"
            },
            execution: m.execution,
            iteration: m.iteration,
            value: m.value,
            metric: m.metric.clone(),
            unit: m.unit.clone(),
            warmup: m.warmup,
        })
        .collect();
    if rows.is_empty() {
        let mut names: Vec<&str> = results
            .measurements
            .iter()
            .map(|m| m.metric.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        bail!(
            "no measurements of metric {metric:?} (the store has: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        );
    }
    Ok(rows)
}

/// Writes `rows` in `format`; with `with_warmup` the CSV gets a `warmup` column.
pub fn write_rows(
    rows: &[ExportRow],
    format: ExportFormat,
    with_warmup: bool,
    out: &mut dyn Write,
) -> Result<()> {
    match format {
        ExportFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, rows)?;
            writeln!(out)?;
        }
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut head = vec![
                "program",
                "binary",
                crate::measurements::LAYOUT_COLUMN,
                "execution",
                "iteration",
                "value",
            ];
            if with_warmup {
                head.push("warmup");
            }
            w.write_record(&head)?;
            for r in rows {
                let mut rec = vec![
                    r.program.clone(),
                    r.binary.clone(),
                    r.layout.to_string(),
                    r.execution.to_string(),
                    r.iteration.to_string(),
                    r.value.to_string(),
                ];
                if with_warmup {
                    rec.push(r.warmup.to_string());
                }
                w.write_record(&rec)?;
            }
            w.flush()?;
        }
    }
    Ok(())
}
