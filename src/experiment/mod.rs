//! `layoutrand experiment`: source → build → check → run → report (→ dimension) in one
//! resumable command, following Kalibera & Jones §9: an *initial* experiment measures the
//! variance at each level and the costs, from which the *real* experiment's repetition
//! counts are derived.

pub mod config;
pub(crate) mod growth;
mod pipeline;
pub(crate) mod subprocess;
mod variants;
pub mod watch;
pub(crate) mod worktree;

pub use config::{parse_percent, ExperimentConfig};
pub use pipeline::{run_experiment, Mode};
pub use watch::{run_watch, WatchRequest};
