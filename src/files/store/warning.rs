//! What reading a store dropped without refusing it: the reader's warnings as figures (the
//! file, the line, the counts), said by their [`std::fmt::Display`] — in one place, as
//! `report`, `compare` and `run --resume` all print them.

use std::fmt;
use std::path::PathBuf;

/// A record or measurements a store reader dropped, with where and how many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreWarning {
    /// The last line was cut by an interrupted write.
    TornLine {
        /// The store file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
        /// Why it did not parse (the JSON parser's message).
        error: String,
    },
    /// Measurements of an execution that never finished (no execution record followed them
    /// before the end of the file).
    Unfinished {
        /// The store file.
        path: PathBuf,
        /// How many were dropped.
        measurements: usize,
    },
    /// Measurements of an execution interrupted and run again (they were never committed).
    Uncommitted {
        /// The store file.
        path: PathBuf,
        /// The line of the measurement that showed it.
        line: usize,
        /// How many were dropped.
        measurements: usize,
    },
    /// Measurements pending when another execution's record committed.
    WithoutExecution {
        /// The store file.
        path: PathBuf,
        /// The line of that execution record.
        line: usize,
        /// How many were dropped.
        measurements: usize,
    },
    /// An execution whose values an older layoutrand stored as null (from `nan` or `inf`):
    /// counted as a metric failure.
    NullValue {
        /// The store file.
        path: PathBuf,
        /// The line of its execution record.
        line: usize,
        /// The execution's index.
        execution: u32,
        /// Its program.
        program: String,
        /// Its binary.
        binary: String,
    },
    /// An execution stored in an earlier shard too; this shard's copy is left out.
    InEarlierShard {
        /// This shard's store file.
        path: PathBuf,
        /// The execution's index.
        execution: u32,
        /// Its program.
        program: String,
        /// Its binary.
        binary: String,
    },
}

impl fmt::Display for StoreWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreWarning::TornLine { path, line, error } => write!(
                f,
                "{}:{line}: dropped a torn last line (an interrupted write): {error}",
                path.display()
            ),
            StoreWarning::Unfinished { path, measurements } => write!(
                f,
                "{}: {measurements} measurement(s) of an execution that never finished were dropped",
                path.display()
            ),
            StoreWarning::Uncommitted {
                path,
                line,
                measurements,
            } => write!(
                f,
                "{}:{line}: {measurements} uncommitted measurement(s) of an interrupted execution were dropped",
                path.display()
            ),
            StoreWarning::WithoutExecution {
                path,
                line,
                measurements,
            } => write!(
                f,
                "{}:{line}: {measurements} measurement(s) without their execution record were dropped",
                path.display()
            ),
            StoreWarning::NullValue {
                path,
                line,
                execution,
                program,
                binary,
            } => write!(
                f,
                "{}:{line}: execution {execution} of {program} {binary} holds a null value (how layoutrand 0.1 stored `nan` or `inf` output): counted as a metric failure, its values left out",
                path.display()
            ),
            StoreWarning::InEarlierShard {
                path,
                execution,
                program,
                binary,
            } => write!(
                f,
                "{}: execution {execution} of {program} {binary} is stored in an earlier shard too; this copy is left out",
                path.display()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words the reader wrote when its warnings were strings.
    #[test]
    fn the_warnings_read_as_before() {
        let path = PathBuf::from("d/results.jsonl");
        let null = StoreWarning::NullValue {
            path: path.clone(),
            line: 7,
            execution: 1,
            program: "p".into(),
            binary: "seed-2".into(),
        };
        assert_eq!(
            null.to_string(),
            "d/results.jsonl:7: execution 1 of p seed-2 holds a null value (how layoutrand 0.1 \
             stored `nan` or `inf` output): counted as a metric failure, its values left out"
        );
        let shard = StoreWarning::InEarlierShard {
            path: path.clone(),
            execution: 0,
            program: "p".into(),
            binary: "baseline".into(),
        };
        assert_eq!(
            shard.to_string(),
            "d/results.jsonl: execution 0 of p baseline is stored in an earlier shard too; this \
             copy is left out"
        );
        let orphans = StoreWarning::WithoutExecution {
            path,
            line: 9,
            measurements: 3,
        };
        assert_eq!(
            orphans.to_string(),
            "d/results.jsonl:9: 3 measurement(s) without their execution record were dropped"
        );
    }
}
