//! Child processes that do not outlive layoutrand: a build command, a benchmark, a pipeline
//! stage. If layoutrand is killed outright (kill -9, the power button of a terminal), the
//! kernel sends each of them SIGKILL instead of leaving it to run on unobserved under init.
//!
//! Below every stage (build, run and experiment all start children), so that none imports
//! another for it.

use std::os::unix::process::CommandExt;
use std::process::Command;

use nix::sys::prctl::set_pdeathsig;
use nix::sys::signal::Signal;

/// Asks the kernel to SIGKILL the calling process when its parent dies
/// (`prctl(PR_SET_PDEATHSIG)`). Meant for `pre_exec`: one system call, no allocation.
pub fn die_with_parent() -> std::io::Result<()> {
    set_pdeathsig(Signal::SIGKILL)?;
    Ok(())
}

/// Makes the child that `cmd` starts receive SIGKILL when this process dies, however it dies.
pub fn kill_with_parent(cmd: &mut Command) {
    // SAFETY: the closure makes one prctl(2) system call, which is async-signal-safe, and
    // allocates nothing, as code between fork and exec must.
    unsafe {
        cmd.pre_exec(die_with_parent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_sets_sigkill_as_the_parent_death_signal() {
        // Read back in this process, then cleared: the test runner must not keep it.
        die_with_parent().unwrap();
        let set = nix::sys::prctl::get_pdeathsig().unwrap();
        set_pdeathsig(None).unwrap();
        assert_eq!(set, Some(Signal::SIGKILL));
        assert_eq!(nix::sys::prctl::get_pdeathsig().unwrap(), None);
    }

    #[test]
    fn a_command_with_the_hook_starts() {
        let mut cmd = Command::new("true");
        kill_with_parent(&mut cmd);
        assert!(cmd.status().unwrap().success());
    }
}
