//! The one analysis engine: every subcommand that answers a question about measurements
//! (`analyze`, `report`, `compare`, `dimension`, `experiment`) goes through it.
//!
//! Input: [`single::Dataset`] — a balanced hierarchy of measurements with named levels,
//! read from a CSV ([`crate::measurements`]) or from an experiment's store
//! ([`answers::experiment`]) — and [`vocabulary::Thresholds`] derived from
//! `--confidence` and `--negligible`. Output: typed results ([`single::Analysis`],
//! [`pair::PairAnalysis`], [`compare::Comparison`], [`effect::Effect`]) whose JSON schemas are
//! versioned and documented in docs/formats.md. The CLI only parses arguments and renders these.
//!
//! [`answers`] holds the answers about a whole experiment directory (`report`, `dimension`,
//! `compare`): loading the store, every number and enum of the report model, and the data
//! of its plots. [`doctor`] holds the model of `layoutrand doctor`'s answer (what the checks
//! found, the calibration, the counts, the verdict), which [`crate::doctor`] fills.
//!
//! Data flow: [`crate::files`] (the store) and [`crate::stats`] (pure statistics) →
//! `analysis` (what to compute and the thresholds: numbers and enums) → [`crate::report`]
//! (the sentences, made by [`crate::report::words`] from those numbers and enums, and the
//! renderings). No sentence is made or stored here: where the JSON carries words beside the
//! numbers (a verdict's `text`, a series' `summary`, …), they are built as the wire is
//! written ([`crate::wire`]).

pub mod answers;
pub mod compare;
pub mod doctor;
pub mod effect;
pub mod explain;
pub mod explain_differential;
pub mod explain_plot;
pub mod explain_variants;
pub mod interaction;
pub mod pair;
pub mod pin;
pub mod positive;
pub mod reading;
pub mod run_summary;
pub mod sequential;
pub mod single;
pub mod variants;
pub mod vocabulary;
