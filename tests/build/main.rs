//! Integration tests of `layoutrand build`: relinking real and fixture programs with every
//! linker and mechanism, LTO, shared libraries, isolation, signals, and the Debian programs
//! (network, ignored by default).
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test build MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

#[path = "../support/build.rs"]
mod build_support;
#[path = "../support/experiment.rs"]
mod experiment_support;
#[path = "../support/processes.rs"]
mod processes_support;
#[path = "../support/snapshots.rs"]
mod snapshot_support;

mod as_built;
mod data_order;
mod debug_info;
mod direct_link;
mod errors;
mod explain;
mod extend;
mod fixtures;
mod granularity;
mod harmless;
mod isolation;
mod languages;
mod lto;
mod mechanism;
mod order_kept;
mod pad;
mod pin;
mod probes;
mod real_bzip2;
mod real_gzip;
mod real_libjpeg_turbo;
mod real_ninja;
mod real_shared_bzip2;
mod rebuild;
mod shared;
mod signals;
mod spec_cpu;
mod summary;
mod tools;
