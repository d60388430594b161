//! Integration tests of The statistics by seeded simulation and property tests (coverage, size,
//! power).
//!
//! One test crate per area (each crate links the library once, which keeps the test build
//! short); each module was its own test crate before, and its tests keep their names under
//! the module's (`cargo test --release --test stats MODULE::`).

// Tests start their programs directly: the rule that children start through
// `child::command` (clippy.toml) is the crate's, about layoutrand's own children.
#![allow(clippy::disallowed_methods)]

mod burst_simulation;
mod coverage;
mod properties;
mod sequential_calibration;
mod variance_split;
mod variants_interaction;
