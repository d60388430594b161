//! SIGINT and SIGTERM, for every stage: caught, forwarded, restored, and one error.
//!
//! No stage of layoutrand dies of SIGINT or SIGTERM in the middle of a write. While a
//! [`Caught`] lives, either signal only records itself ([`caught`]); the stage looks at that
//! flag at its safe points (between seeds, between executions, after its child exits), keeps
//! what it finished, and ends with [`Interrupted`], which the command line turns into the
//! shell's status 128 + signal ([`crate::exit::interrupted_by`]). What the signal must reach
//! at once is named by [`forward_to`]:
//!
//! - the build stage's recorded build command: its whole process group is SIGKILLed, so no
//!   `make` runs on as an orphan writing into the record ([`Forward::KillGroup`]);
//! - an experiment's running stage (a child process of the same executable): it gets the
//!   same signal and stops cleanly itself ([`Forward::Resend`], by
//!   [`status_until_interrupted`]);
//! - the run stage's benchmark: killed, with its whole tree, by `run::process` when it sees
//!   the flag; the run catches with [`Waits::Interrupt`] so that a blocked `wait4` or `poll`
//!   returns `EINTR` at once instead of restarting;
//! - a program run to its end with its output captured (`explain`'s profile under valgrind,
//!   an experiment's `prepare` or `check` step, `explain --confirm`'s run):
//!   [`output_until_interrupted`].
//!
//! One module, so that the three stages cannot drift apart in what a signal does, and one
//! error type, so that the command line has one place that recognises an interruption.

use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};

use nix::sys::signal::{kill, killpg, sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::unistd::Pid;

/// The signal caught since [`catch`], or 0.
static CAUGHT: AtomicI32 = AtomicI32::new(0);
/// Where a caught signal goes at once: a pid (positive), a process group (negative), or
/// nowhere (0).
static FORWARD: AtomicI32 = AtomicI32::new(0);

/// The signals a stage stops on.
const STOPPING: [Signal; 2] = [Signal::SIGINT, Signal::SIGTERM];

extern "C" fn on_signal(signal: libc::c_int) {
    // Only atomics and kill(2): async-signal-safe.
    CAUGHT.store(signal, Ordering::SeqCst);
    forward_now(FORWARD.load(Ordering::SeqCst), signal);
}

/// Sends `signal` where `target` says (see [`FORWARD`]); kill(2) is async-signal-safe.
fn forward_now(target: i32, signal: libc::c_int) {
    if target > 0 {
        if let Ok(signal) = Signal::try_from(signal) {
            let _ = kill(Pid::from_raw(target), signal);
        }
    } else if target < 0 {
        let _ = killpg(Pid::from_raw(-target), Signal::SIGKILL);
    }
}

/// What a blocking system call does when a caught signal arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waits {
    /// It is restarted (`SA_RESTART`): the stage looks at the flag when the call returns.
    Restart,
    /// It fails with `EINTR` at once: the run stage, whose waits must end when it is asked
    /// to stop.
    Interrupt,
}

/// While alive, SIGINT and SIGTERM are caught ([`caught`]) instead of ending the process; the
/// previous handlers come back on drop (or never, after [`Caught::for_the_process`]).
#[must_use = "the handlers are restored when this is dropped"]
pub(crate) struct Caught {
    previous: Vec<(Signal, SigAction)>,
}

/// Installs the handlers, forgetting any signal caught before.
pub(crate) fn catch(waits: Waits) -> nix::Result<Caught> {
    CAUGHT.store(0, Ordering::SeqCst);
    let flags = match waits {
        Waits::Restart => SaFlags::SA_RESTART,
        Waits::Interrupt => SaFlags::empty(),
    };
    let action = SigAction::new(SigHandler::Handler(on_signal), flags, SigSet::empty());
    let mut caught = Caught {
        previous: Vec::new(),
    };
    for signal in STOPPING {
        // SAFETY: the handler only stores to atomics and calls kill(2), both
        // async-signal-safe.
        let old = unsafe { sigaction(signal, &action) }?;
        caught.previous.push((signal, old));
    }
    Ok(caught)
}

impl Caught {
    /// Keeps the handlers for the rest of the process (the run stage: it is the process's
    /// whole life).
    pub(crate) fn for_the_process(self) {
        std::mem::forget(self);
    }
}

impl Drop for Caught {
    fn drop(&mut self) {
        for (signal, old) in &self.previous {
            // SAFETY: restores the handler that was installed before.
            let _ = unsafe { sigaction(*signal, old) };
        }
    }
}

/// The signal (SIGINT or SIGTERM) caught since [`catch`], if any.
pub(crate) fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Whether a signal was caught since [`catch`] (for callers that take a `fn() -> bool`).
pub(crate) fn is_caught() -> bool {
    caught().is_some()
}

/// Where a caught signal must go at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Forward {
    /// SIGKILL to this process group (the recorded build command, which leads it).
    KillGroup(u32),
    /// The same signal to this process (an experiment's running stage).
    Resend(u32),
}

/// While the returned value lives, a caught signal also goes where `target` says; a signal
/// caught before the target was known goes there now.
#[must_use = "forwarding stops when this is dropped"]
pub(crate) fn forward_to(target: Forward) -> Forwarding {
    let encoded = match target {
        Forward::KillGroup(group) => i32::try_from(group).map_or(0, |g| -g),
        Forward::Resend(pid) => i32::try_from(pid).unwrap_or(0),
    };
    FORWARD.store(encoded, Ordering::SeqCst);
    if let Some(signal) = caught() {
        forward_now(encoded, signal);
    }
    Forwarding
}

/// Stops [`forward_to`]'s forwarding on drop (the target has been reaped).
pub(crate) struct Forwarding;

impl Drop for Forwarding {
    fn drop(&mut self) {
        FORWARD.store(0, Ordering::SeqCst);
    }
}

/// Runs `cmd` to its end and returns its output, as [`std::process::Command::output`] does
/// (standard input from `/dev/null`, standard output and error captured), with SIGINT and
/// SIGTERM caught meanwhile: a caught signal
/// goes where `reach` says, and once the program has been reaped the result is
/// [`Interrupted`] with `kept`.
///
/// [`Reach::Group`]: the program leads a process group of its own, which the signal
/// SIGKILLs whole, and after a normal end whatever it left running in its group is killed
/// too. Why a group: the direct child dies with layoutrand (`child::command`), but a program
/// run under valgrind or through a shell starts processes of its own that neither that nor
/// a kill of the child reaches. [`Reach::Resend`]: the program (a layoutrand stage) gets the
/// same signal and stops cleanly itself.
pub(crate) fn output_until_interrupted(
    cmd: &mut std::process::Command,
    reach: Reach,
    kept: impl FnOnce() -> Kept,
) -> Result<std::io::Result<std::process::Output>, Interrupted> {
    use std::process::Stdio;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    until_interrupted(cmd, reach, kept, std::process::Child::wait_with_output)
}

/// [`output_until_interrupted`] for a program whose output goes where `cmd` says (an
/// experiment's stage, which shows its own progress): its exit status.
pub(crate) fn status_until_interrupted(
    cmd: &mut std::process::Command,
    reach: Reach,
    kept: impl FnOnce() -> Kept,
) -> Result<std::io::Result<std::process::ExitStatus>, Interrupted> {
    until_interrupted(cmd, reach, kept, |mut child| child.wait())
}

/// Starts `cmd` with SIGINT and SIGTERM caught, sends a caught signal where `reach` says,
/// waits with `wait`, and ends in [`Interrupted`] with `kept` when a signal came.
fn until_interrupted<T>(
    cmd: &mut std::process::Command,
    reach: Reach,
    kept: impl FnOnce() -> Kept,
    wait: impl FnOnce(std::process::Child) -> std::io::Result<T>,
) -> Result<std::io::Result<T>, Interrupted> {
    use std::os::unix::process::CommandExt;
    if reach == Reach::Group {
        cmd.process_group(0);
    }
    until_interrupted_spawned(
        reach,
        kept,
        || cmd.spawn().map(|child| (child, ())),
        |child, ()| wait(child),
    )
}

/// [`until_interrupted`] for a program `spawn` starts itself, with what the wait needs beside
/// it (the recorded build: the reading end of the pipe its output goes to, which the
/// `Command` that made it must not outlive, or the read would never end). With
/// [`Reach::Group`], `spawn` must start the program as the leader of a process group of its
/// own. SIGINT and SIGTERM are caught before the program starts.
pub(crate) fn until_interrupted_spawned<S, T>(
    reach: Reach,
    kept: impl FnOnce() -> Kept,
    spawn: impl FnOnce() -> std::io::Result<(std::process::Child, S)>,
    wait: impl FnOnce(std::process::Child, S) -> std::io::Result<T>,
) -> Result<std::io::Result<T>, Interrupted> {
    let handlers = match catch(Waits::Restart) {
        Ok(handlers) => handlers,
        Err(e) => return Ok(Err(e.into())),
    };
    let (child, beside) = match spawn() {
        Ok(started) => started,
        Err(e) => return Ok(Err(e)),
    };
    let pid = child.id();
    let forwarding = forward_to(match reach {
        Reach::Group => Forward::KillGroup(pid),
        Reach::Resend => Forward::Resend(pid),
    });
    let ended = wait(child, beside);
    drop(forwarding);
    if let (Reach::Group, Ok(group)) = (reach, i32::try_from(pid)) {
        // The leader is reaped, so the group id is reused only once the whole group is
        // gone: while a straggler keeps it, it is the one killed.
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
    drop(handlers);
    // The flag outlives the handlers.
    match caught() {
        Some(signal) => Err(Interrupted {
            signal,
            kept: kept(),
        }),
        None => Ok(ended),
    }
}

/// Where [`until_interrupted`] sends a caught signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// SIGKILL to the program's own process group: everything it started.
    Group,
    /// The same signal to the program, which stops cleanly (a layoutrand stage).
    Resend,
}

/// A stage stopped by SIGINT or SIGTERM after keeping what it had finished; the command line
/// exits with 128 + signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted {
    /// The signal.
    pub signal: i32,
    /// What was kept, and how to continue.
    pub kept: Kept,
}

/// What an interrupted stage kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// The recorded build: nothing (its partial record is discarded by the next build).
    NoRecord {
        /// The build command, as typed.
        command: String,
        /// The record directory.
        record: PathBuf,
    },
    /// The relinks: the finished seeds, in the manifest.
    Seeds {
        /// Seeds finished.
        built: usize,
        /// Seeds asked for.
        wanted: usize,
        /// The output directory.
        out: PathBuf,
    },
    /// The runs: the committed executions, in the store.
    Executions {
        /// Executions committed in the store (by this invocation and before).
        kept: usize,
        /// Of those, the ones this invocation ran.
        run_now: usize,
        /// The output directory.
        out: PathBuf,
    },
    /// Nothing: a program run to its end, killed with everything it started (an
    /// explanation's profile run, an experiment's prepare or check step).
    Nothing {
        /// The program's command, as run.
        command: String,
    },
    /// An experiment's stages: what each finished (its stage said what).
    Stages {
        /// The stage that was running.
        stage: String,
    },
}

/// Set by `experiment` in the environment of its stages (child processes of the same
/// executable): an interrupted stage then says what it kept but not how to continue, which
/// the experiment says for all its stages ([`Interrupted::in_a_stage`]).
pub const ENV_EXPERIMENT_STAGE: &str = "LAYOUTRAND_EXPERIMENT_STAGE";

impl Interrupted {
    /// The message of a stage that an experiment runs: what was kept, without the advice
    /// of [`Interrupted`]'s `Display` (the experiment gives its own).
    pub fn in_a_stage(&self) -> String {
        self.said(false)
    }

    /// `interrupted by SIGNAL: what was kept[: how to continue]`.
    fn said(&self, advice: bool) -> String {
        let name = Signal::try_from(self.signal).map_or("a signal", |s| s.as_str());
        let separator = match self.kept {
            Kept::Stages { .. } => " ",
            _ => ": ",
        };
        format!("interrupted by {name}{separator}{}", self.kept.said(advice))
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said(true))
    }
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said(true))
    }
}

impl Kept {
    /// What was kept, then (with `advice`) how to continue.
    fn said(&self, advice: bool) -> String {
        let (kept, continuing) = match self {
            Kept::NoRecord { command, record } => (
                format!(
                    "the build command `{command}` and its whole process group were killed; \
                     nothing was kept (its partial record in {} is discarded by the next build)",
                    record.display()
                ),
                "run the same `layoutrand build` again (after `make clean` if its tree may be \
                 half-built)"
                    .to_string(),
            ),
            Kept::Seeds { built, wanted, out } => (
                format!(
                    "interrupted after {built} of {wanted} seeds; {} keeps the finished ones",
                    out.join(crate::files::manifest::MANIFEST_FILE).display(),
                ),
                format!(
                    "continue with `layoutrand build --extend --seeds {wanted} --out {}`",
                    out.display()
                ),
            ),
            Kept::Executions { kept, run_now, out } => (
                format!(
                    "the running benchmark and every process it started were killed, its \
                     execution discarded; {} kept in {} (this run added {run_now})",
                    crate::units::counted(*kept, "execution", "executions"),
                    out.join(crate::files::results::RESULTS_FILE).display(),
                ),
                format!(
                    "continue with `layoutrand run --resume --out {}`",
                    out.display()
                ),
            ),
            Kept::Nothing { command } => (
                format!(
                    "`{command}` was stopped with every process it started, and nothing of it \
                     is kept"
                ),
                "run the same layoutrand command again".to_string(),
            ),
            Kept::Stages { stage } => (
                format!("during the {stage} stage; what the stages finished is kept"),
                "run the same command again to continue".to_string(),
            ),
        };
        let separator = match self {
            Kept::Executions { .. } => "; ",
            _ => ": ",
        };
        match (advice, self) {
            (true, _) => format!("{kept}{separator}{continuing}"),
            // What the experiment's "run the same command again" needs first.
            (false, Kept::NoRecord { .. }) => {
                format!("{kept}; its tree may be half-built (`make clean` before continuing)")
            }
            (false, _) => kept,
        }
    }
}

impl std::error::Error for Interrupted {}

#[cfg(test)]
mod tests {
    use super::*;

    // What a caught signal does is tested where it happens, in processes of their own
    // (tests/build/signals.rs, tests/run and tests/experiment's interruption tests): raising
    // one here would set the process-wide flag under the other unit tests' feet.

    #[test]
    fn the_message_says_what_was_kept_and_how_to_continue() {
        let stop = Interrupted {
            signal: libc::SIGINT,
            kept: Kept::Executions {
                kept: 5,
                run_now: 2,
                out: PathBuf::from("out"),
            },
        };
        insta::assert_snapshot!(stop.to_string());
        assert_eq!(
            stop.in_a_stage(),
            "interrupted by SIGINT: the running benchmark and every process it started were \
             killed, its execution discarded; 5 executions kept in out/results.jsonl (this run \
             added 2)"
        );
    }
}
