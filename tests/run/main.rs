//! Integration tests of `layoutrand run`: levels, parallel runs, resume after a kill, signals,
//! cache model, exit codes, input limits, the Slurm cluster (root, ignored by default).
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test run MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

#[path = "../support/build.rs"]
mod build_support;
#[path = "../support/run.rs"]
mod run_support;
#[path = "../support/slurm.rs"]
mod slurm_support;
#[path = "../support/snapshots.rs"]
mod snapshot_support;

// What differs per machine and per run, written as placeholders in this crate's snapshots.
pub(crate) use snapshot_support::{
    machine_free_in_dir as in_dir, machine_free_stderr_in as stderr_in,
    machine_free_stdout_in as stdout_in,
};

mod bad_input;
mod cache_model;
mod crossed_truth;
mod data_seeds;
mod exit_codes;
mod input_limits;
mod kill_resume;
mod layout_effects;
mod levels;
mod parallel;
mod quiet;
mod real_build;
mod signals;
mod slurm_cluster;
mod suite;
mod suite_counts;
mod variants;
