//! Sharded stores: a Slurm run keeps one store per shard, `DIR/shards/NNNN/results.jsonl`,
//! each written by one array task under its own lock, so no two tasks ever write one file.
//! This module is the reading side that makes them one store again: [`read_sharded`] merges
//! the shards into the [`Results`] every command reads, so `report`, `export`, `dimension`
//! and `compare` need not know a run was sharded.
//!
//! A shard is a block of rounds of the interleaved schedule: shard `k` of `S` holds the
//! executions `e` of every binary with `e·S/E = k` (`E` executions per binary), in schedule
//! order. Every shard is therefore an equal mix of all binaries, and each binary's
//! executions are spread over all shards — and so over the machines that run them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use super::file::{read_file, Results};
use super::warning::StoreWarning;
use crate::files::confined::{is_missing, Entry, ExperimentDir};
use crate::files::results::{Execution, Header, Measurement, RESULTS_FILE};

/// Folder of the shard stores inside an experiment directory.
pub(crate) const SHARDS_DIR: &str = "shards";

/// The folder of shard `k`'s store.
pub fn shard_dir(dir: &Path, k: u32) -> PathBuf {
    dir.join(SHARDS_DIR).join(format!("{k:04}"))
}

/// The shard that execution `execution` (of any binary) belongs to, with `executions` per
/// binary cut into `shards` blocks of rounds.
pub(crate) fn shard_of(execution: u32, executions: u32, shards: u32) -> u32 {
    (u64::from(execution) * u64::from(shards) / u64::from(executions.max(1))) as u32
}

/// True when `dir` holds no single store but shard stores.
pub(crate) fn is_sharded(dir: &Path) -> bool {
    !dir.join(RESULTS_FILE).exists() && dir.join(SHARDS_DIR).is_dir()
}

/// The shard stores present, by shard index.
pub fn shard_stores(dir: &Path) -> Result<Vec<(u32, PathBuf)>> {
    let mut found = Vec::new();
    if !dir.is_dir() {
        return Ok(found);
    }
    let root = ExperimentDir::open(dir)?;
    let entries = match root.list(SHARDS_DIR) {
        Ok(e) => e,
        Err(e) if is_missing(&e) => return Ok(found),
        Err(e) => return Err(e),
    };
    for (name, _) in entries {
        let Some(k) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let shard = Path::new(SHARDS_DIR).join(&name);
        if root.entry(shard.join(RESULTS_FILE))? != Entry::Missing {
            found.push((k, dir.join(shard)));
        }
    }
    found.sort();
    Ok(found)
}

/// The header fields that define the experiment: shards written by different tasks differ
/// only in when and where they started (and the machine's state then).
fn same_experiment(a: &Header, b: &Header) -> bool {
    let mut b = b.clone();
    b.started_unix = a.started_unix;
    b.host = a.host.clone();
    b.conditions = a.conditions.clone();
    *a == b
}

/// Reads every shard store of `dir` as one store: the first header (the others must
/// describe the same experiment), every committed execution once — a (binary, execution)
/// found in two shards is kept from the first and the duplicate reported — in schedule
/// order, and the warnings of every shard.
pub(crate) fn read_sharded(dir: &Path) -> Result<Results> {
    let mut merged = Results::default();
    let mut seen: HashSet<crate::files::results::ExecutionKey> = HashSet::new();
    let mut dropped: HashSet<crate::files::results::ExecutionKey> = HashSet::new();
    for (k, shard) in shard_stores(dir)? {
        let r = read_file(&shard)?;
        merged.warnings.extend(r.warnings);
        match (&merged.header, r.header) {
            (None, h) => merged.header = h,
            (Some(first), Some(h)) if !same_experiment(first, &h) => bail!(
                "{}: shard {k} was written for another experiment than the shards before it (other settings in its header)",
                shard.join(RESULTS_FILE).display()
            ),
            _ => {}
        }
        for e in r.executions {
            let key = e.key();
            if seen.insert(key.clone()) {
                merged.executions.push(e);
            } else {
                merged.warnings.push(StoreWarning::InEarlierShard {
                    path: shard.join(RESULTS_FILE),
                    execution: e.execution,
                    program: e.program.clone(),
                    binary: e.binary.clone(),
                });
                dropped.insert(key);
            }
        }
        // Measurements of a duplicate belong to the copy that was left out.
        merged.measurements.extend(
            r.measurements
                .into_iter()
                .filter(|m| !dropped.contains(&m.key())),
        );
        dropped.clear();
        merged.extensions.extend(r.extensions);
        merged.finishes.extend(r.finishes);
    }
    merged.executions.sort_by_key(|e| e.schedule_index);
    let order: HashMap<crate::files::results::ExecutionKeyRef<'_>, u64> = merged
        .executions
        .iter()
        .map(|e| (e.key_ref(), e.schedule_index))
        .collect();
    let mut measurements = std::mem::take(&mut merged.measurements);
    measurements.sort_by_key(|m| order.get(&m.key_ref()).copied().unwrap_or(u64::MAX));
    merged.measurements = measurements;
    Ok(merged)
}

/// [`read_sharded`], handing each execution with its measurements to `on_commit` as
/// `crate::files::store::scan_results` does; the result keeps no measurements.
pub(crate) fn scan_sharded(
    dir: &Path,
    mut on_commit: impl FnMut(&Execution, Vec<Measurement>),
) -> Result<Results> {
    let mut merged = read_sharded(dir)?;
    let mut by_execution: HashMap<crate::files::results::ExecutionKey, Vec<Measurement>> =
        HashMap::new();
    for m in std::mem::take(&mut merged.measurements) {
        by_execution.entry(m.key()).or_default().push(m);
    }
    for e in &merged.executions {
        let key = e.key();
        on_commit(e, by_execution.remove(&key).unwrap_or_default());
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::super::file::StoreWriter;
    use super::*;
    use crate::files::results::fixtures;
    use crate::files::results::Record;

    fn header() -> Header {
        serde_json::from_str(r#"{"schema":2,"tool_version":"0","command":["{bin}"],"programs":["p"],"binaries":["baseline","seed-1"],"metric":"wall","executions":4,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null},"started_unix":0.0}"#).unwrap()
    }

    /// A header written before cache models were recorded still loads, without one.
    #[test]
    fn a_header_without_a_cache_model_loads() {
        let h = header();
        assert_eq!((h.cache_model, h.valgrind_version.as_deref()), (None, None));
        let written = serde_json::to_value(&h).unwrap();
        assert_eq!(
            (written.get("cache_model"), written.get("valgrind_version")),
            (None, None),
            "{written}"
        );
    }

    fn execution(binary: &str, execution: u32, index: u64, value: f64) -> Vec<Record> {
        vec![
            Record::Measurement(fixtures::measurement(binary, execution, 0, value)),
            Record::Execution(fixtures::execution(binary, execution, index)),
        ]
    }

    #[test]
    fn rounds_are_cut_into_equal_blocks() {
        let of: Vec<u32> = (0..6).map(|e| shard_of(e, 6, 3)).collect();
        assert_eq!(of, [0, 0, 1, 1, 2, 2]);
        let of: Vec<u32> = (0..5).map(|e| shard_of(e, 5, 5)).collect();
        assert_eq!(of, [0, 1, 2, 3, 4]);
        // More shards than executions: some shards stay empty, none is out of range.
        assert!((0..3).all(|e| shard_of(e, 3, 8) < 8));
    }

    #[test]
    fn shards_read_as_one_store_in_schedule_order_with_duplicates_left_out() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join(SHARDS_DIR)).unwrap();
        assert!(is_sharded(d.path()));
        for (k, recs) in [
            (
                0,
                vec![
                    execution("seed-1", 0, 1, 10.0),
                    execution("baseline", 0, 0, 1.0),
                ],
            ),
            (
                1,
                vec![
                    execution("baseline", 1, 2, 2.0),
                    execution("seed-1", 0, 3, 99.0),
                ],
            ),
        ] {
            let sd = shard_dir(d.path(), k);
            std::fs::create_dir_all(&sd).unwrap();
            let mut w = StoreWriter::open(&sd).unwrap();
            let mut h = header();
            h.started_unix = f64::from(k);
            w.append(&[Record::Header(h)]).unwrap();
            for r in recs {
                w.append(&r).unwrap();
            }
        }
        let r = read_sharded(d.path()).unwrap();
        assert_eq!(r.header.unwrap().schedule_seed, 7);
        let order: Vec<(String, u32)> = r
            .executions
            .iter()
            .map(|e| (e.binary.clone(), e.execution))
            .collect();
        assert_eq!(
            order,
            [
                ("baseline".to_string(), 0),
                ("seed-1".to_string(), 0),
                ("baseline".to_string(), 1)
            ]
        );
        let values: Vec<f64> = r.measurements.iter().map(|m| m.value).collect();
        assert_eq!(values, [1.0, 10.0, 2.0]);
        assert!(
            r.warnings
                .iter()
                .any(|w| matches!(w, StoreWarning::InEarlierShard { .. })),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn a_shard_of_another_experiment_is_refused() {
        let d = tempfile::tempdir().unwrap();
        for k in 0..2u32 {
            let sd = shard_dir(d.path(), k);
            std::fs::create_dir_all(&sd).unwrap();
            let mut h = header();
            h.schedule_seed += u64::from(k);
            StoreWriter::open(&sd)
                .unwrap()
                .append(&[Record::Header(h)])
                .unwrap();
        }
        let err = read_sharded(d.path()).unwrap_err().to_string();
        insta::assert_snapshot!(err.replace(d.path().to_str().unwrap(), "[dir]"));
    }
}
