//! SIGINT and SIGTERM during the relinks: no new seed starts, the seeds finished so far are
//! kept in the manifest, and `build --extend` continues from there. During the recorded build
//! the same signals kill the build command's whole process group at once (see [`guard_group`]),
//! so that no `make` runs on as an orphan writing into the record.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use nix::sys::signal::{killpg, sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::unistd::Pid;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The signal that arrived, or 0.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The process group of the running build command, or 0.
static GROUP: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    // Only atomics and kill(2): async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
    SIGNAL.store(signal, Ordering::SeqCst);
    let group = GROUP.load(Ordering::SeqCst);
    if group > 0 {
        // killpg(2) is kill(2) on the negated group id: async-signal-safe.
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
}

/// While the returned value lives, SIGINT and SIGTERM (with [`catch`]'s handlers installed)
/// also SIGKILL the process group `group` (the recorded build command, which leads it). A
/// signal that came before the group was known kills it now.
pub fn guard_group(group: i32) -> GroupGuard {
    GROUP.store(group, Ordering::SeqCst);
    if interrupted() && group > 0 {
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
    GroupGuard
}

/// Stops [`guard_group`]'s killing on drop (the group has been reaped).
pub struct GroupGuard;

impl Drop for GroupGuard {
    fn drop(&mut self) {
        GROUP.store(0, Ordering::SeqCst);
    }
}

/// The signal that arrived since [`catch`], if any.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// A build stopped by SIGINT or SIGTERM, with what it kept; the command line exits with
/// 128 + signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildInterrupted {
    /// The signal.
    pub signal: i32,
    /// What was kept and how to continue, in words.
    pub message: String,
}

impl std::fmt::Display for BuildInterrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = Signal::try_from(self.signal).map_or("a signal", |s| s.as_str());
        write!(f, "interrupted by {name}: {}", self.message)
    }
}

impl std::error::Error for BuildInterrupted {}

/// While alive, SIGINT and SIGTERM set [`interrupted`] instead of ending the process; the
/// previous handlers come back on drop.
pub struct Guard {
    previous: Vec<(Signal, SigAction)>,
}

/// Installs the handlers (see [`Guard`]).
pub fn catch() -> Guard {
    INTERRUPTED.store(false, Ordering::SeqCst);
    SIGNAL.store(0, Ordering::SeqCst);
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    let mut previous = Vec::new();
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        if let Ok(old) = unsafe { sigaction(signal, &action) } {
            previous.push((signal, old));
        }
    }
    Guard { previous }
}

/// Whether SIGINT or SIGTERM arrived since [`catch`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

impl Drop for Guard {
    fn drop(&mut self) {
        for (signal, old) in &self.previous {
            // SAFETY: restores the handler that was installed before.
            let _ = unsafe { sigaction(*signal, old) };
        }
    }
}
