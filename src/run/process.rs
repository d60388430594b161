//! Starting one benchmark process and waiting for it: own process group, optional timeout
//! that kills the whole group, resource usage from `wait4`.
//!
//! std's `kill` reaches only the direct child; a benchmark started through a shell
//! or a driver leaves its real work running. So the child leads a new process group and
//! the timeout (and the clean-up after a normal exit) signals the group. Output goes to
//! files, not pipes, so no reader threads are needed and a straggler holding the pipe can
//! never block the runner.

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::poll::{poll, PollFd, PollFlags};
use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use super::reaper;

/// What to start.
#[derive(Debug, Clone)]
pub(crate) struct ProcessSpec {
    /// Program and arguments, placeholders already expanded.
    pub(crate) argv: Vec<OsString>,
    /// The complete environment (nothing is inherited).
    pub(crate) env: Vec<(String, String)>,
    /// Working directory.
    pub(crate) cwd: PathBuf,
    /// File that receives stdout (truncated first).
    pub(crate) stdout: PathBuf,
    /// File that receives stderr (truncated first).
    pub(crate) stderr: PathBuf,
    /// Set `personality(ADDR_NO_RANDOMIZE)` in the child.
    pub(crate) disable_aslr: bool,
    /// Kill the process group after this long.
    pub(crate) timeout: Option<Duration>,
}

/// How the process ended, with its resource usage.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProcessEnd {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by us).
    Signaled(i32),
    /// Killed by us when the timeout expired.
    TimedOut,
    /// Could not be started; the reason.
    SpawnFailed(String),
    /// Killed by us, with its whole tree, because the run was interrupted by this signal, or
    /// killed by the same whole-job signal that interrupted the run (`scancel`).
    Interrupted(i32),
}

/// The outcome of one process.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProcessOutcome {
    /// How it ended.
    pub(crate) end: ProcessEnd,
    /// Monotonic time from just before `fork` to the return of `wait4`, in ns.
    pub(crate) wall_ns: u64,
    /// User + system CPU time of the process and its waited-for descendants, in ns.
    pub(crate) cpu_ns: u64,
    /// Peak resident set size, in KiB.
    pub(crate) max_rss_kib: u64,
    /// Processes it left outside its group that were killed after it (see `reaper`).
    pub(crate) abandoned: u32,
}

impl ProcessOutcome {
    /// An outcome that took no time: `end` without a process run (it could not start, or
    /// the sum of several processes before the first).
    pub(crate) fn not_run(end: ProcessEnd) -> ProcessOutcome {
        ProcessOutcome {
            end,
            wall_ns: 0,
            cpu_ns: 0,
            max_rss_kib: 0,
            abandoned: 0,
        }
    }
}

/// Starts `spec`, waits for it (killing its group on timeout), and returns the outcome.
///
/// Leftover processes of the group are killed after the leader exits, so nothing of one
/// execution runs on into the next.
pub(crate) fn run_process(spec: &ProcessSpec) -> ProcessOutcome {
    let failed = |msg: String| ProcessOutcome::not_run(ProcessEnd::SpawnFailed(msg));
    let Some(program) = spec.argv.first() else {
        return failed("empty command".into());
    };
    let (stdout, stderr) = match output_files(&spec.stdout, &spec.stderr) {
        Ok(files) => files,
        Err(e) => return failed(e),
    };
    let prepared = match super::spawn::Prepared::new(&spec.argv, &spec.env, &spec.cwd) {
        Ok(p) => p,
        Err(e) => return failed(format!("cannot start {}: {e}", program.to_string_lossy())),
    };
    let steps = super::spawn::Steps {
        stdio: [
            dev_null().as_raw_fd(),
            stdout.as_raw_fd(),
            stderr.as_raw_fd(),
        ],
        watchdog: super::watchdog::socket_fd(),
        disable_aslr: spec.disable_aslr,
    };
    let start = Instant::now();
    let spawning = reaper::spawn_guard();
    let pid = match super::spawn::spawn(&prepared, steps) {
        Ok(pid) => pid,
        Err(e) => return failed(format!("cannot start {}: {e}", program.to_string_lossy())),
    };
    reaper::started(pid);
    drop(spawning);
    let waited = wait_until_exit(pid, spec.timeout);
    if waited != Waited::Exited {
        // The whole tree: the group, and whatever left it with setsid().
        reaper::kill_descendants(pid);
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let (status, usage) = wait4_blocking(pid);
    let wall_ns = start.elapsed().as_nanos() as u64;
    reaper::finished(pid);
    // Stragglers of the group (a shell's background jobs, a driver's workers) die now, and
    // so does anything the execution abandoned (re-parented to us, the subreaper).
    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    let abandoned = reaper::kill_orphans();
    let end = process_end(waited, status);
    let tv_ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    ProcessOutcome {
        end,
        wall_ns,
        cpu_ns: tv_ns(usage.ru_utime) + tv_ns(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss.max(0) as u64,
        abandoned: u32::try_from(abandoned).unwrap_or(u32::MAX),
    }
}

/// The files that receive an execution's output, created afresh, never through a symbolic
/// link planted in the staging directory; their directory is opened once for both.
fn output_files(stdout: &Path, stderr: &Path) -> Result<(File, File), String> {
    let cannot = |p: &Path, e: anyhow::Error| format!("cannot create {}: {e}", p.display());
    let (dir, out_name) =
        crate::files::confined::parent_of(stdout).map_err(|e| cannot(stdout, e))?;
    let out = dir.create_fresh(out_name).map_err(|e| cannot(stdout, e))?;
    let err = match stderr.parent() == stdout.parent() {
        true => dir.create_fresh(stderr.file_name().unwrap_or_default()),
        false => crate::files::confined::create_fresh_file(stderr),
    }
    .map_err(|e| cannot(stderr, e))?;
    Ok((out, err))
}

/// `/dev/null`, opened once: every execution's standard input.
fn dev_null() -> &'static File {
    static NULL: std::sync::OnceLock<File> = std::sync::OnceLock::new();
    NULL.get_or_init(|| File::open("/dev/null").expect("/dev/null opens on Linux"))
}

/// How a process that was waited for (`waited`, with its wait status `status`) ended.
fn process_end(waited: Waited, status: libc::c_int) -> ProcessEnd {
    match waited {
        Waited::TimedOut => ProcessEnd::TimedOut,
        Waited::Interrupted(signal) => ProcessEnd::Interrupted(signal),
        Waited::Exited if libc::WIFEXITED(status) => ProcessEnd::Exited(libc::WEXITSTATUS(status)),
        Waited::Exited if libc::WIFSIGNALED(status) => {
            let signal = libc::WTERMSIG(status);
            match reaper::interrupt_alongside(signal, STOP_SIGNAL_GRACE) {
                Some(ours) => ProcessEnd::Interrupted(ours),
                None => ProcessEnd::Signaled(signal),
            }
        }
        Waited::Exited => ProcessEnd::Exited(-1),
    }
}

/// Blocks in `wait4` until `pid` ends; returns its status and resource usage.
fn wait4_blocking(pid: libc::pid_t) -> (libc::c_int, libc::rusage) {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid pointers to locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return (status, usage);
        }
        if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        // ECHILD: somebody else reaped it; report an odd exit rather than hang.
        return (0xff00, usage);
    }
}

/// Why [`wait_until_exit`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waited {
    Exited,
    TimedOut,
    /// SIGINT or SIGTERM reached the runner (see `reaper`).
    Interrupted(i32),
}

/// Longest sleep between two looks at the interrupt flag (a signal that lands just before a
/// blocking call is seen at the latest this much later).
const INTERRUPT_CHECK: Duration = Duration::from_millis(100);

/// How long a benchmark killed by SIGINT or SIGTERM waits for the same signal to reach the
/// runner. `scancel` and a job's time limit signal every process of a Slurm job, the
/// benchmark's group included, in no set order; if the benchmark dies first, its end is the
/// run's interruption, not a benchmark failure to store (a `--resume` reruns it).
const STOP_SIGNAL_GRACE: Duration = Duration::from_secs(1);

/// Waits until `pid` has exited, `limit` (if any) has passed, or the run is interrupted,
/// without reaping it.
///
/// Uses a pidfd and `poll` (Linux ≥ 5.3): no thread, no busy loop. Where pidfds are missing,
/// falls back to polling `waitid(WNOWAIT)` every millisecond.
fn wait_until_exit(pid: libc::pid_t, limit: Option<Duration>) -> Waited {
    let deadline = limit.map(|l| Instant::now() + l);
    let check = || {
        if let Some(signal) = crate::signals::caught() {
            return Some(Waited::Interrupted(signal));
        }
        match deadline {
            Some(d) if Instant::now() >= d => Some(Waited::TimedOut),
            _ => None,
        }
    };
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; nix has
    // no wrapper for it.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as libc::c_int;
    if fd >= 0 {
        // SAFETY: a descriptor just opened, owned by nothing else; closed when `fd` drops.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        return loop {
            if let Some(w) = check() {
                break w;
            }
            let left = deadline.map_or(INTERRUPT_CHECK, |d| {
                d.saturating_duration_since(Instant::now())
                    .min(INTERRUPT_CHECK)
            });
            let ms = u16::try_from(left.as_millis().max(1)).unwrap_or(u16::MAX);
            let mut pfd = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
            if poll(&mut pfd, ms).is_ok_and(|ready| ready > 0) {
                break Waited::Exited;
            }
        };
    }
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    loop {
        match waitid(Id::Pid(Pid::from_raw(pid)), flags) {
            Ok(WaitStatus::StillAlive) | Err(nix::errno::Errno::EINTR) => {}
            // Exited, killed, or gone (ECHILD: reaped elsewhere): nothing to wait for.
            _ => return Waited::Exited,
        }
        if let Some(w) = check() {
            return w;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The last `max_lines` lines of a file (at most 4 KiB of them), for error messages. Reads
/// only the file's last 4 KiB, however large the benchmark's output.
pub(crate) fn file_tail(path: &Path, max_lines: usize) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut bytes = Vec::new();
    let mut len = 0;
    if let Ok(mut file) = crate::files::confined::open_regular(path) {
        len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if file.seek(SeekFrom::Start(len.saturating_sub(4096))).is_ok() {
            let _ = file.take(4096).read_to_end(&mut bytes);
        }
    }
    let text = printable(&bytes, len);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(max_lines)..].join("\n")
}

/// A program's output made safe to print on a terminal and to store as text: the tail is
/// shown to the user in error messages and kept in the store, and a benchmark may write
/// binary data (a compressor's `-c` output) or escape sequences, which would garble the
/// terminal or act on it. Mostly non-text (more than 10 % invalid UTF-8 or control
/// characters) becomes a one-line note; otherwise each control character but newline and tab
/// becomes `?` (carriage returns, as progress lines use them, become newlines).
fn printable(bytes: &[u8], total_len: u64) -> String {
    let text = String::from_utf8_lossy(bytes);
    let odd =
        |c: char| c == char::REPLACEMENT_CHARACTER || (c.is_control() && !"\n\t\r".contains(c));
    let chars = text.chars().count();
    let odd_chars = text.chars().filter(|&c| odd(c)).count();
    if odd_chars * 10 > chars {
        return format!("(binary output, {total_len} bytes: not shown)");
    }
    text.chars()
        .map(|c| match c {
            '\r' => '\n',
            c if odd(c) => '?',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A benchmark's binary output (here what `lz4 -c` writes) is never shown raw: a note
    /// replaces it; escape sequences in text lose their ESC; progress lines split at `\r`.
    #[test]
    fn tails_are_printable() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let bytes: Vec<u8> = (0..3000u32).map(|i| (i * 7919 % 256) as u8).collect();
        std::fs::write(&bin, &bytes).unwrap();
        assert_eq!(
            file_tail(&bin, 10),
            "(binary output, 3000 bytes: not shown)"
        );
        let text = dir.path().join("text");
        std::fs::write(&text, "10 %\r50 %\r100 %\n\x1b[31mred\x1b[0m value 3\n").unwrap();
        let tail = file_tail(&text, 10);
        assert_eq!(tail, "10 %\n50 %\n100 %\n?[31mred?[0m value 3");
        assert!(
            !tail.chars().any(|c| c.is_control() && c != '\n'),
            "{tail:?}"
        );
    }

    fn spec(dir: &Path, argv: &[&str], timeout: Option<Duration>) -> ProcessSpec {
        ProcessSpec {
            argv: argv.iter().map(OsString::from).collect(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            cwd: dir.to_path_buf(),
            stdout: dir.join("out"),
            stderr: dir.join("err"),
            disable_aslr: false,
            timeout,
        }
    }

    #[test]
    fn exit_codes_and_signals_are_told_apart() {
        let d = tempfile::tempdir().unwrap();
        let ok = run_process(&spec(d.path(), &["sh", "-c", "echo hi; exit 3"], None));
        assert_eq!(ok.end, ProcessEnd::Exited(3));
        assert_eq!(
            std::fs::read_to_string(d.path().join("out")).unwrap(),
            "hi\n"
        );
        let sig = run_process(&spec(d.path(), &["sh", "-c", "kill -SEGV $$"], None));
        assert_eq!(sig.end, ProcessEnd::Signaled(libc::SIGSEGV));
        let missing = run_process(&spec(d.path(), &["/nonexistent/prog"], None));
        assert!(
            matches!(missing.end, ProcessEnd::SpawnFailed(ref m) if m.contains("/nonexistent/prog"))
        );
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let d = tempfile::tempdir().unwrap();
        let marker = d.path().join("grandchild-pid");
        // The shell starts a grandchild, records its pid, and waits: killing only the shell
        // would leave the grandchild sleeping.
        let script = format!("sleep 30 & echo $! > {}; wait", marker.display());
        let t = Instant::now();
        let out = run_process(&spec(
            d.path(),
            &["sh", "-c", &script],
            Some(Duration::from_millis(300)),
        ));
        assert_eq!(out.end, ProcessEnd::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(10));
        let gpid: i32 = std::fs::read_to_string(&marker)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The grandchild must be gone (no /proc entry) or a zombie awaiting its reaper, once
        // the kernel has delivered SIGKILL: on a loaded host that can take a while.
        let state = || std::fs::read_to_string(format!("/proc/{gpid}/stat")).unwrap_or_default();
        let alive = |state: &str| {
            state
                .rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        };
        let waited = Instant::now();
        while alive(&state()) && waited.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let last = state();
        assert!(!alive(&last), "grandchild {gpid} survived: {last}");
    }

    #[test]
    fn cpu_time_and_rss_are_measured() {
        let d = tempfile::tempdir().unwrap();
        let out = run_process(&spec(
            d.path(),
            &[
                "sh",
                "-c",
                "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done",
            ],
            None,
        ));
        assert_eq!(out.end, ProcessEnd::Exited(0));
        assert!(out.cpu_ns > 10_000_000, "cpu {} ns", out.cpu_ns);
        assert!(out.wall_ns >= out.cpu_ns / 2);
        assert!(out.max_rss_kib > 100);
    }
}
