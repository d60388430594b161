//! Starting an execution's leader without copying the runner: `clone(CLONE_VM | CLONE_VFORK)`,
//! the way posix_spawn(3) starts a program, with the few steps an execution needs between
//! the clone and the `execve` (its own process group, death with the runner, the watchdog's
//! announcement, ASLR off).
//!
//! Why not `std::process::Command` with `pre_exec`: a `pre_exec` closure makes std `fork`
//! the runner, which copies its page tables and then pays a copy-on-write fault for every
//! page the runner touches afterwards. Measured by benches/run_overhead.sh on a 2-core host:
//! about 150 µs more inside the recorded spawn-to-wait time (the benchmark's own wall time
//! includes it) and 140 µs more of bookkeeping per execution than a vfork-style start. The
//! child here shares the runner's memory and the runner's thread is suspended until the
//! child has called `execve` (or exited), so between the two it may only make system calls:
//! everything it needs (C strings, pointer arrays, descriptors) is prepared beforehand.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

use super::environment::disable_aslr_in_this_process;

/// An execution's process, prepared for [`spawn`]: every C string and pointer array the
/// child needs, built in the runner before the clone.
pub(crate) struct Prepared {
    path: CString,
    // The pointer arrays point into these; kept alive with them.
    _argv: Vec<CString>,
    _env: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    env_ptrs: Vec<*const libc::c_char>,
    cwd: CString,
}

/// What the child does besides running the program.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Steps {
    /// Descriptors that become the child's standard input, output and error.
    pub(crate) stdio: [RawFd; 3],
    /// The watchdog's socket, to which the child announces itself before it execs.
    pub(crate) watchdog: Option<RawFd>,
    /// `personality(ADDR_NO_RANDOMIZE)` in the child.
    pub(crate) disable_aslr: bool,
}

impl Prepared {
    /// `argv` (not empty) run in `cwd` with exactly `env`; a program named without a slash
    /// is looked for on the `PATH` of `env` (else of the runner), as `Command` does.
    pub(crate) fn new(
        argv: &[OsString],
        env: &[(String, String)],
        cwd: &Path,
    ) -> io::Result<Prepared> {
        let program = argv
            .first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        let path =
            resolve(program, env).ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
        let argv: Vec<CString> = argv
            .iter()
            .map(|a| c_string(a.as_bytes()))
            .collect::<io::Result<_>>()?;
        let env: Vec<CString> = env
            .iter()
            .map(|(k, v)| c_string(format!("{k}={v}").as_bytes()))
            .collect::<io::Result<_>>()?;
        let pointers = |strings: &[CString]| {
            let mut p: Vec<*const libc::c_char> = strings.iter().map(|s| s.as_ptr()).collect();
            p.push(std::ptr::null());
            p
        };
        Ok(Prepared {
            path: c_string(path.as_os_str().as_bytes())?,
            argv_ptrs: pointers(&argv),
            env_ptrs: pointers(&env),
            _argv: argv,
            _env: env,
            cwd: c_string(cwd.as_os_str().as_bytes())?,
        })
    }
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a NUL byte in the command or environment",
        )
    })
}

/// Where `program` is: itself when it holds a slash, else the first executable file of
/// that name on the `PATH` of `env` (the runner's own `PATH` when `env` has none).
fn resolve(program: &OsStr, env: &[(String, String)]) -> Option<PathBuf> {
    if program.as_bytes().contains(&b'/') {
        return Some(PathBuf::from(program));
    }
    let path = match env.iter().find(|(k, _)| k == "PATH") {
        Some((_, v)) => OsString::from(v),
        None => std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
    };
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
}

fn executable(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path; access(2) reads it only.
    path.is_file() && unsafe { libc::access(c.as_ptr(), libc::X_OK) } == 0
}

/// What the child reads (through the shared memory) and the error it leaves behind.
struct ChildPlan<'a> {
    prepared: &'a Prepared,
    steps: Steps,
    runner: libc::pid_t,
    /// The `errno` of the step that failed, 0 while none did.
    failed: AtomicI32,
}

/// The child's stack. It runs a handful of system calls and libc's thin wrappers.
const CHILD_STACK_BYTES: usize = 64 * 1024;

/// Starts `prepared` with `steps` in a new process group (its pid is the group's id);
/// returns its pid once it has called `execve`. An error of any step before the program
/// runs (a missing program, a bad working directory) is returned as that step's error and
/// the child is reaped.
pub(crate) fn spawn(prepared: &Prepared, steps: Steps) -> io::Result<libc::pid_t> {
    let plan = ChildPlan {
        prepared,
        steps,
        runner: std::process::id() as libc::pid_t,
        failed: AtomicI32::new(0),
    };
    // One stack per runner thread, reused: a fresh one would be zeroed and faulted in
    // before every execution. The stack grows down: the child starts at its aligned top.
    thread_local! {
        static STACK: std::cell::RefCell<Box<[std::mem::MaybeUninit<u8>]>> =
            std::cell::RefCell::new(Box::new_uninit_slice(CHILD_STACK_BYTES));
    }
    let pid = STACK.with(|stack| clone_child(&plan, &mut stack.borrow_mut()))?;
    match plan.failed.load(Ordering::SeqCst) {
        0 => Ok(pid),
        errno => {
            let mut status = 0;
            // SAFETY: reaps the child that failed before running anything.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            Err(io::Error::from_raw_os_error(errno))
        }
    }
}

/// Clones the child of `plan` on `stack`; returns its pid once it has exec'd or exited.
fn clone_child(
    plan: &ChildPlan,
    stack: &mut [std::mem::MaybeUninit<u8>],
) -> io::Result<libc::pid_t> {
    let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
    // SAFETY: all signals are blocked around the clone, so no handler of the runner ever
    // runs on the child's stack or with its shared memory (the child resets the handlers
    // before it unblocks them). CLONE_VFORK suspends this thread until the child execs or
    // exits, so `plan` and `stack` outlive every use the child makes of them. The child
    // only makes system calls (see `child_main`).
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut before: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before);
        let pid = libc::clone(
            child_main,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            plan as *const ChildPlan as *mut libc::c_void,
        );
        let cloned = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
        if pid < 0 {
            return Err(cloned);
        }
        Ok(pid)
    }
}

/// The child between clone and execve. Only system calls (through libc's thin wrappers):
/// it shares the runner's memory, and the runner's thread that cloned it is suspended.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `ChildPlan` that `spawn` keeps alive until this child has
    // exec'd or exited.
    let plan = unsafe { &*(arg as *const ChildPlan) };
    let fail = || child_failed(plan);
    // SAFETY: each call is a system call on values prepared before the clone.
    unsafe {
        reset_signals();
        for (target, &fd) in plan.steps.stdio.iter().enumerate() {
            if libc::dup2(fd, target as libc::c_int) < 0 {
                fail();
            }
        }
        if libc::chdir(plan.prepared.cwd.as_ptr()) != 0 || libc::setpgid(0, 0) != 0 {
            fail();
        }
        // If the runner is killed (kill -9, power button), the benchmark dies with it
        // instead of running on unobserved; `--resume` reruns that execution. A runner
        // already gone before the request took effect is seen by the parent's pid.
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 || libc::getppid() != plan.runner
        {
            fail();
        }
        // ... and so does what it starts: the watchdog knows the group before it runs.
        if let Some(fd) = plan.steps.watchdog {
            super::watchdog::announce_this_process(fd);
        }
        if plan.steps.disable_aslr && disable_aslr_in_this_process().is_err() {
            fail();
        }
        libc::execve(
            plan.prepared.path.as_ptr(),
            plan.prepared.argv_ptrs.as_ptr(),
            plan.prepared.env_ptrs.as_ptr(),
        );
    }
    fail()
}

/// Leaves the failed step's `errno` for the runner and ends the child.
fn child_failed(plan: &ChildPlan) -> ! {
    let errno = io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO);
    plan.failed.store(errno, Ordering::SeqCst);
    // SAFETY: _exit(2) ends this child without running the runner's exit handlers.
    unsafe { libc::_exit(127) }
}

/// Every signal the runner handles back to its default action, SIGPIPE (which Rust's
/// runtime ignores) included, then none blocked: what the program would get from a shell.
///
/// # Safety
/// Only in the child of [`spawn`], where the handler table is the child's own copy (no
/// CLONE_SIGHAND) and all signals are still blocked.
unsafe fn reset_signals() {
    for signal in 1..=libc::SIGRTMAX() {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        let mut current: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut current) != 0 {
            continue; // one of libc's own signals
        }
        let handled =
            current.sa_sigaction != libc::SIG_DFL && current.sa_sigaction != libc::SIG_IGN;
        let ignored_pipe = signal == libc::SIGPIPE && current.sa_sigaction == libc::SIG_IGN;
        if handled || ignored_pipe {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default, std::ptr::null_mut());
        }
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn_and_wait(argv: &[&str], env: &[(String, String)]) -> io::Result<i32> {
        let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
        let prepared = Prepared::new(&argv, env, Path::new("/"))?;
        let null = std::fs::File::open("/dev/null").unwrap();
        use std::os::fd::AsRawFd;
        let fd = null.as_raw_fd();
        let pid = spawn(
            &prepared,
            Steps {
                stdio: [fd, fd, fd],
                watchdog: None,
                disable_aslr: false,
            },
        )?;
        let mut status = 0;
        // SAFETY: our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        Ok(libc::WEXITSTATUS(status))
    }

    /// The program runs with its arguments, found on the given PATH, and its exit code
    /// comes back; a missing program is the error of execve, not a child that exits 127.
    #[test]
    fn runs_programs_and_reports_missing_ones() {
        let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
        assert_eq!(spawn_and_wait(&["sh", "-c", "exit 7"], &env).unwrap(), 7);
        assert_eq!(spawn_and_wait(&["true"], &env).unwrap(), 0);
        let missing = spawn_and_wait(&["no-such-program-here"], &env).unwrap_err();
        assert_eq!(missing.raw_os_error(), Some(libc::ENOENT));
        let not_a_program = spawn_and_wait(&["/etc/passwd"], &env).unwrap_err();
        assert_eq!(not_a_program.raw_os_error(), Some(libc::EACCES));
    }

    /// A NUL byte cannot reach execve: refused before the clone.
    #[test]
    fn refuses_nul_bytes() {
        let argv = [OsString::from("true"), OsString::from("a\0b")];
        assert!(Prepared::new(&argv, &[], Path::new("/")).is_err());
    }
}
