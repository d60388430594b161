//! The three-level executor (binaries × executions × iterations) and its crash-safe store.
//!
//! [`runner::run_experiment`] reads the build's manifest, lays out an interleaved seeded
//! [`schedule`], runs every execution in a fixed [`environment`] (clean variables, one
//! padding variable, one binary path, ASLR off) through [`process`], reads the [`metric`],
//! and commits each execution to the [`store`] before the next starts. [`export`] turns a
//! store into the CSV `layoutrand analyze` reads.

pub mod budget;
pub mod command;
pub mod environment;
pub mod export;
pub mod host;
pub mod metric;
pub mod process;
pub mod runner;
pub mod schedule;
pub mod settings;
pub mod store;
pub mod summary;
