//! What reading an experiment warned of, as figures and names (`crate::report::words::experiment`
//! and `crate::report::words::balance` word it): apart from the reading itself
//! (`crate::analysis::answers::experiment`) so that an answer built on an experiment, such as
//! `explain`'s, can carry them without depending on the whole engine.

use std::path::PathBuf;

use crate::files::results::ExecutionStatus;
use crate::files::store::StoreWarning;

/// A problem found while reading or balancing an experiment's data, with the figures its
/// sentence needs (`crate::report::words::experiment` words it).
#[derive(Debug, Clone, PartialEq)]
pub enum ExperimentWarning {
    /// The store's own warning (a torn or uncommitted record, …).
    Store(StoreWarning),
    /// What balancing a series left out or cut short.
    Balance(BalanceWarning),
    /// The manifest and the store were written by different layoutrand versions.
    VersionsDiffer {
        /// The version that wrote the manifest.
        manifest: String,
        /// The version that wrote the store.
        store: String,
    },
    /// The directory has no manifest: what only the manifest records is unknown.
    NoManifest {
        /// The experiment directory.
        dir: PathBuf,
    },
    /// Binaries of one program none of whose executions succeeded.
    NeverRan(NeverRan),
}

/// What balancing one series (or one of its fixed layouts, balanced on its own) changed.
#[derive(Debug, Clone, PartialEq)]
pub struct BalanceWarning {
    /// The program.
    pub(crate) program: String,
    /// Its variant, `None` in an experiment without variants.
    pub(crate) variant: Option<String>,
    /// The metric.
    pub(crate) metric: String,
    /// The fixed layout balanced (its binary, e.g. `baseline`), `None` for the randomised
    /// binaries.
    pub(crate) fixed: Option<String>,
    /// What was changed, with the binaries and their counts.
    pub(crate) note: BalanceNote,
}

/// The binaries of one program (and variant) that never ran: every execution of them
/// failed. One among several, some, or every binary (then the command as run is at fault,
/// not the layout).
#[derive(Debug, Clone, PartialEq)]
pub struct NeverRan {
    /// The program, with its variant (`NAME [VARIANT]`).
    pub(crate) label: String,
    /// The binaries that never ran, in order of appearance in the store.
    pub(crate) binaries: Vec<String>,
    /// The binaries of the program that the store records.
    pub(crate) of: usize,
    /// The failed executions of the binaries that never ran.
    pub(crate) executions: usize,
    /// How those executions ended, each distinct way once.
    pub(crate) endings: Vec<Ending>,
    /// The stored output of the first of them that kept one.
    pub(crate) output: Option<String>,
}

/// How a failed execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// It exited with this status.
    Exit(i32),
    /// A signal of this number ended it.
    Signal(i32),
    /// Another status (a timeout, …), or one whose code the store lacks.
    Other(ExecutionStatus),
}

/// What balancing changed in one series, with the binaries concerned and their counts
/// (`crate::report::words::balance` words it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BalanceNote {
    /// Executions of `binary` had no live (non-warmup) iteration and were left out.
    NoLiveIteration {
        /// The binary.
        binary: String,
        /// How many of its executions were left out.
        executions: usize,
    },
    /// Binaries with fewer than `executions` usable executions were left out (rule 1).
    FewerExecutions {
        /// The count kept per binary.
        executions: usize,
        /// Each binary left out, with its usable executions.
        binaries: Vec<(String, usize)>,
    },
    /// Binaries with more than `executions` usable executions kept their first ones (rule 1).
    MoreExecutions {
        /// The count kept per binary.
        executions: usize,
        /// Each binary cut short, with its usable executions.
        binaries: Vec<(String, usize)>,
    },
    /// Executions with more than `iterations` live iterations (the shortest execution's
    /// count) kept their first ones (rule 2).
    MoreIterations {
        /// The live iterations kept per execution.
        iterations: usize,
        /// Each execution cut short, in order of binary and execution.
        executions: Vec<TrimmedExecution>,
    },
}

/// An execution cut short to the shortest execution's live iterations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TrimmedExecution {
    /// Its binary.
    pub(crate) binary: String,
    /// Its index.
    pub(crate) execution: u32,
    /// Its live iterations before the cut.
    pub(crate) iterations: usize,
}
