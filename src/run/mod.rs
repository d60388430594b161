//! The three-level executor (binaries × executions × iterations) and its crash-safe store.
//!
//! [`runner::run_experiment`] reads the build's manifest and resolves the [`settings`]
//! (checking them against an interrupted run's header on `--resume`), picks the
//! [`targets`], makes the [`preflight`] checks, lays out an interleaved seeded [`schedule`],
//! and runs every [`execution`] in a fixed [`environment`] (clean variables, one padding
//! variable, one binary path, each seed's own shared [`libraries`], ASLR off) through [`process`] (with [`reaper`]: nothing a
//! benchmark starts outlives it, and SIGINT/SIGTERM stop the run cleanly), reading the
//! [`metric`] and
//! committing each execution to the store ([`crate::files::store`]) before the next starts
//! (the end-of-run table is the analysis engine's, [`crate::analysis::run_summary`]);
//! [`export`] turns a store into the CSV `layoutrand analyze` reads.

pub(crate) mod budget;
pub(crate) mod callgrind;
pub(crate) mod case_counts;
pub(crate) mod command;
pub mod cpus;
pub mod data_layout;
pub mod environment;
pub mod execution;
pub mod export;
pub(crate) mod heap_offset;
pub(crate) mod host;
pub(crate) mod libraries;
pub(crate) mod machine;
pub mod metric;
pub(crate) mod parallel;
pub(crate) mod preflight;
pub(crate) mod prepare;
pub(crate) mod process;
pub(crate) mod reaper;
pub mod runner;
pub mod schedule;
pub mod settings;
pub mod slurm;
pub(crate) mod spawn;
pub(crate) mod suite;
pub(crate) mod targets;
pub mod watchdog;
