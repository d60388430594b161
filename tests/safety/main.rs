//! Integration tests of Hostile input: parsers, paths and stores that must be refused or
//! handled without harm.
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test safety MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

#[path = "../support/build.rs"]
mod build_support;
#[path = "../support/run.rs"]
mod run_support;
#[path = "../support/snapshots.rs"]
mod snapshot_support;

// What differs per machine and per run, written as placeholders in this crate's snapshots.
pub(crate) use snapshot_support::{
    machine_free_in_dir as in_dir, machine_free_stderr_in as stderr_in,
    machine_free_stdout_in as stdout_in,
};

mod attacks;
mod boundary;
mod heap_library;
mod output;
mod parsers;
mod paths;
mod planted;
mod reader;
mod store;
mod trust;
mod writer;
