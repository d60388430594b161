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

/// A command for `program` whose child receives SIGKILL when this process dies, however it
/// dies: the one way layoutrand starts a child with `std::process::Command` (clippy's
/// `disallowed-methods` keeps `Command::new` out of every other place, clippy.toml; the
/// exceptions say why at their `allow`). The thread that spawns is the child's parent for
/// the kernel, so spawn from a thread that waits for it (`output`, `status`, `wait`).
pub(crate) fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    #[allow(clippy::disallowed_methods)] // the one constructor
    let mut cmd = Command::new(program);
    kill_with_parent(&mut cmd);
    cmd
}

/// Makes the child that `cmd` starts receive SIGKILL when this process dies, however it dies.
fn kill_with_parent(cmd: &mut Command) {
    // SAFETY: the closure makes one prctl(2) system call, which is async-signal-safe, and
    // allocates nothing, as code between fork and exec must.
    unsafe {
        cmd.pre_exec(die_with_parent);
    }
}

/// A command line as one line of text that a POSIX shell reads back as the same arguments
/// (for messages): each argument that needs it in single quotes, an embedded `'` as `'\''`.
/// The one way a message shows a command.
pub(crate) fn display_args<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    args.iter()
        .map(|a| shell_quote(&a.as_ref().to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `arg` as a POSIX shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes. Braces without a comma (the `{bin}` placeholder) are
/// literal to a shell; a lone `{` or `}` is a reserved word, and a comma makes a brace list.
fn shell_quote(arg: &str) -> String {
    let braces = arg.len() > 1 && !arg.contains(',');
    let plain = |c: char| {
        c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c) || (braces && "{}".contains(c))
    };
    if !arg.is_empty() && arg.chars().all(plain) {
        return arg.to_string();
    }
    format!("'{}'", arg.replace('\'', r"'\''"))
}

/// The first `program` on `PATH`.
pub(crate) fn which(program: &str) -> Option<PathBuf> {
    which_on(program, &std::env::var_os("PATH")?)
}

/// The first `program` in the directories of the search path `paths` (as `PATH` spells it).
pub(crate) fn which_on(program: &str, paths: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(paths)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
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
    fn a_command_is_shown_as_a_shell_reads_it() {
        assert_eq!(display_args(&["make", "-j2", "CC=cc"]), "make -j2 CC=cc");
        assert_eq!(
            display_args(&["x", "{bin}", "{a,b}", "}"]),
            "x {bin} '{a,b}' '}'"
        );
        assert_eq!(
            display_args(&["sh", "-c", "echo 'hi' >&2; exit 3", ""]),
            r"sh -c 'echo '\''hi'\'' >&2; exit 3' ''"
        );
    }

    #[test]
    fn a_command_with_the_hook_starts() {
        assert!(command("true").status().unwrap().success());
    }

    /// The child itself reads its parent-death signal back (prctl(PR_GET_PDEATHSIG) from
    /// Python's ctypes): 9, SIGKILL. Without the hook it reads 0.
    #[test]
    fn a_child_of_command_has_sigkill_as_its_parent_death_signal() {
        let script = "import ctypes; l = ctypes.CDLL(None); s = ctypes.c_int(-1); \
                      l.prctl(2, ctypes.byref(s), 0, 0, 0); print(s.value)";
        let out = command("python3").args(["-c", script]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "9");
        #[allow(clippy::disallowed_methods)] // the contrast: a command without the hook
        let bare = Command::new("python3")
            .args(["-c", script])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&bare.stdout).trim(), "0");
    }
}
