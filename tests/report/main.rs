//! Integration tests of `layoutrand report`, `compare` and `analyze`: the analysis of stores
//! and CSV files, the gate, HTML.
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test report MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

#[path = "../support/csv.rs"]
mod csv_support;
#[path = "../support/report.rs"]
mod report_support;
#[path = "../support/run.rs"]
mod run_support;
#[path = "../support/schemas.rs"]
mod schemas_support;
#[path = "../support/snapshots.rs"]
mod snapshot_support;

mod analysis;
mod analysis_degenerate;
mod analysis_no_panic;
mod as_built;
mod burst;
mod cli;
mod cli_analyze;
mod compare;
mod compare_pair;
mod crossed_answers;
mod data_split;
mod gate;
mod glance;
mod host;
mod html;
mod html_variants;
mod incomplete;
mod json_vocabulary;
mod no_impossible_interval;
mod number_format;
mod overflow;
mod schemas;
mod sequential;
mod set_aside_padding;
mod snapshot;
mod snapshot_commands;
mod snapshot_more_commands;
mod store_only;
mod suite_rates;
