//! The files an experiment directory holds, as formats: what each one contains, its schema
//! number and its file name, plus the atomic whole-file write they share.
//!
//! Every stage reads or writes these files, so they live below all of them: `build` writes the
//! [`manifest`] that `run` reads, `run` appends the [`results`] records that `report` reads,
//! and none of those stages needs to import another to know a file's layout. The [`store`]
//! (`results.jsonl` or a Slurm run's shard stores) is read here with its crash-safe writer,
//! so that `analysis` reads measurements without importing `run`; so is the
//! [`cache_model`] a cachegrind store's header records. The logic around a file
//! (building, running, the statistics) stays in its stage.

pub mod atomic;
pub mod cache_model;
pub mod confined;
pub(crate) mod disk_full;
pub mod hash_cache;
pub(crate) mod line;
pub mod manifest;
pub mod metric;
pub mod output;
pub mod pin;
pub mod results;
pub mod stopping;
pub mod store;
pub mod trust;
pub mod watch;

pub use atomic::{write_atomically, write_atomically_with};

pub(crate) use crate::schema::OUTPUT_SCHEMA;

/// The experiment directory every subcommand uses when none is given, so that
/// `layoutrand build …; layoutrand run …; layoutrand report` works from one place.
pub const DEFAULT_DIR: &str = "layoutrand-out";
