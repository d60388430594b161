//! Child processes: the programs they run, found on PATH ([`which`]), and lives that do not
//! outlast layoutrand's. A build command, a benchmark or a pipeline stage gets SIGKILL from
//! the kernel when layoutrand is killed outright (kill -9, a closed terminal) instead of
//! running on unobserved under init.
//!
//! Below every stage (build, run and experiment all start children), so that none imports
//! another for it.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use nix::sys::prctl::set_pdeathsig;
use nix::sys::signal::Signal;

/// Asks the kernel to SIGKILL the calling process when its parent dies
/// (`prctl(PR_SET_PDEATHSIG)`). Meant for `pre_exec`: one system call, no allocation.
pub(crate) fn die_with_parent() -> std::io::Result<()> {
    set_pdeathsig(Signal::SIGKILL)?;
    Ok(())
}

/// Makes the child that `cmd` starts receive SIGKILL when this process dies, however it dies.
pub(crate) fn kill_with_parent(cmd: &mut Command) {
    // SAFETY: the closure makes one prctl(2) system call, which is async-signal-safe, and
    // allocates nothing, as code between fork and exec must.
    unsafe {
        cmd.pre_exec(die_with_parent);
    }
}

/// The first `program` on `PATH`.
pub(crate) fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
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
