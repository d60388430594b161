//! Integration tests of `layoutrand experiment` end to end (demo, recipes, resume, variants),
//! the wrapper shims and `doctor`.
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test experiment MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

#[path = "../support/build.rs"]
mod build_support;
#[path = "../support/experiment.rs"]
mod experiment_support;
#[path = "../support/processes.rs"]
mod processes_support;
#[path = "../support/schemas.rs"]
mod schemas_support;
#[path = "../support/snapshots.rs"]
mod snapshot_support;

mod demo;
mod doctor;
mod interrupt;
mod recipes;
mod resume;
mod sequential_variants;
mod variants;
mod watch;
mod wrap_launcher_script;
mod wrap_shim;
