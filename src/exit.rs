//! The exit statuses of every command, in one place (the table in docs/run.md, *Exit codes*,
//! is this one). A script or CI job can tell "done" from "stopped, continue it" from "the
//! program under test never ran" without reading the messages.

/// Why a command ended, as its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command did all it was asked.
    Complete,
    /// 1: a CI gate tripped (`report`/`compare --fail-if-slower`, `watch`), or `build` finished with
    /// some seed that failed to build; `doctor`: fit for deterministic metrics only.
    GateFailed,
    /// 2: a usage or input error, or any other error (clap's own status for bad flags);
    /// nothing was done that needs undoing.
    InputError,
    /// 3: `doctor` only: the machine is not fit for layout experiments.
    NotFit,
    /// 4: stopped early but resumable: `--budget` ran out, or (`run --slurm --wait`) a shard
    /// did not finish. The same command (`run`: with `--resume`) continues.
    StoppedEarly,
    /// 5: a program under test failed on every execution of every binary (all of the run's
    /// programs, or some of them): nothing of it can be analysed; its output is shown.
    ProgramFailed,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> i32 {
        match self {
            Exit::Complete => 0,
            Exit::GateFailed => 1,
            Exit::InputError => 2,
            Exit::NotFit => 3,
            Exit::StoppedEarly => 4,
            Exit::ProgramFailed => 5,
        }
    }
}

/// The status of a command stopped by `signal` (SIGINT, SIGTERM) after keeping what it had
/// done: 128 + the signal's number (130, 143), the shell's convention. Resumable like
/// [`Exit::StoppedEarly`].
pub fn interrupted_by(signal: i32) -> i32 {
    128 + signal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_is_distinct_and_none_looks_like_a_signal() {
        let all = [
            Exit::Complete,
            Exit::GateFailed,
            Exit::InputError,
            Exit::NotFit,
            Exit::StoppedEarly,
            Exit::ProgramFailed,
        ];
        let codes: std::collections::BTreeSet<i32> = all.iter().map(|e| e.code()).collect();
        assert_eq!(codes.len(), all.len());
        assert!(codes.iter().all(|&c| c < 128));
        assert_eq!(interrupted_by(libc::SIGINT), 130);
        assert_eq!(interrupted_by(libc::SIGTERM), 143);
    }
}
