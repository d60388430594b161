//! The three-level executor (binaries × executions × iterations) and its crash-safe store.

pub mod store;
