//! Integration tests of `layoutrand layout`: reading binaries and archives, reordering
//! sections, layout distance.
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test layout MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

#[path = "../support/layout.rs"]
mod layout_support;
#[path = "../support/snapshots.rs"]
mod snapshot_support;

mod archive;
mod binary;
mod cli;
mod distance;
mod reorder;
