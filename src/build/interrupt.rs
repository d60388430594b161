//! SIGINT and SIGTERM during the relinks: no new seed starts, the seeds finished so far are
//! kept in the manifest, and `build --extend` continues from there.

use std::sync::atomic::{AtomicBool, Ordering};

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// While alive, SIGINT and SIGTERM set [`interrupted`] instead of ending the process; the
/// previous handlers come back on drop.
pub struct Guard {
    previous: Vec<(Signal, SigAction)>,
}

/// Installs the handlers (see [`Guard`]).
pub fn catch() -> Guard {
    INTERRUPTED.store(false, Ordering::SeqCst);
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
