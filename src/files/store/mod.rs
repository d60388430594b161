//! An experiment's store of measurements, as every command reads it: one `results.jsonl`
//! ([`mod@file`]: reader, crash-safe writer, repair) or, after a Slurm run, one store per shard
//! ([`shards`]) merged into the same [`Results`]. `report`, `export`, `dimension`, `compare`
//! and `run --resume` call [`read_results`] or [`scan_results`] and need not know which.
//!
//! The record types are those of [`crate::files::results`], re-exported here so that a reader
//! imports one module.

pub mod file;
pub(crate) mod keys;
pub mod shards;
pub mod warning;

use std::path::Path;

use anyhow::Result;

pub use crate::files::results::{
    Execution, ExecutionHost, ExecutionStatus, Extension, Finish, Header, HostInfo, Measurement,
    Record, MAX_STORED_EXECUTIONS, RESULTS_FILE, RESULTS_SCHEMA,
};
pub use file::{parse_results, repair_store, Repair, Results, StoreWriter};
pub use warning::StoreWarning;

/// Reads the store of `dir`, keeping every committed measurement in memory.
///
/// A malformed line in the middle of the file is an error naming file and line. A malformed
/// *last* line is the trace of an interrupted write: it is dropped with a warning. So are
/// measurements not followed by their execution record. A `null` value (how layoutrand 0.1
/// stored `nan` or `inf` output) turns its execution into a metric failure, with a warning.
///
/// A directory without `results.jsonl` but with shard stores (a Slurm run) reads as one
/// store: see [`shards::read_sharded`].
pub fn read_results(dir: &Path) -> Result<Results> {
    let mut measurements = Vec::new();
    let mut results = scan_results(dir, |_, mine| measurements.extend(mine))?;
    results.measurements = measurements;
    Ok(results)
}

/// Reads the store of `dir` in one streaming pass, as [`read_results`] does, but hands each
/// committed execution with its measurements to `on_commit` instead of keeping the
/// measurements: memory stays bounded by one execution's measurements whatever the store's
/// size (a resumed run needs only the execution records). The returned [`Results`] has no
/// measurements. Shard stores (a Slurm run) are merged first, then handed over the same way.
pub(crate) fn scan_results(
    dir: &Path,
    on_commit: impl FnMut(&Execution, Vec<Measurement>),
) -> Result<Results> {
    if shards::is_sharded(dir) {
        return shards::scan_sharded(dir, on_commit);
    }
    file::scan_file(dir, on_commit)
}

/// [`scan_results`], but the returned [`Results`] holds no execution records either: each is
/// only handed to `on_commit`, so memory is bounded by the keys of the store's executions
/// (a few tens of bytes each; a store holds at most [`MAX_STORED_EXECUTIONS`]) and one
/// line (at most [`file::MAX_LINE_BYTES`]): what `run --resume` and the run's closing
/// summary need. Shard stores (a Slurm run) are merged in memory first, as
/// [`scan_results`] does.
pub(crate) fn scan_commits(
    dir: &Path,
    on_commit: impl FnMut(&Execution, Vec<Measurement>),
) -> Result<Results> {
    if shards::is_sharded(dir) {
        let mut merged = shards::scan_sharded(dir, on_commit)?;
        merged.executions = Vec::new();
        return Ok(merged);
    }
    file::scan_file_commits(dir, on_commit)
}

/// True when `dir` holds measurements: a store, or the shard stores of a Slurm run.
pub(crate) fn has_results(dir: &Path) -> bool {
    dir.join(RESULTS_FILE).exists() || shards::is_sharded(dir)
}
