//! The executions' watchdog: what a runner killed by SIGKILL (kill -9, the OOM killer) leaves
//! running is killed anyway.
//!
//! A SIGKILLed runner runs no code of its own: the benchmark it started dies of its
//! parent-death signal (`process`), but not the processes the benchmark started (a `sh -c`
//! script's programs, a driver's workers), which would run on under init, loading the machine
//! for the next run. So the runner starts one small helper process, the watchdog (this same
//! executable, `layoutrand execution-watchdog`, in a process group of its own so that a
//! terminal's Ctrl-C does not reach it), and tells it over a socket which process groups its
//! executions lead: `+PGID` when one starts (said by the new leader itself, before it execs
//! the benchmark, and again by the runner), `-PGID` when it was reaped. When the socket
//! closes — the runner exited, however it died: the kernel closes a dead process's sockets —
//! the watchdog SIGKILLs every group still announced, then exits. A runner that ends normally
//! has announced every group's end, so the watchdog kills nothing.
//!
//! What it cannot reach: a process that left its execution's group with `setsid()`. While
//! the runner lives, `reaper` kills those (they are re-parented to the runner); after a
//! kill -9 they are re-parented to init and no longer known as the execution's.

use std::io::{BufRead, BufReader, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use anyhow::{Context, Result};
use nix::sys::signal::{killpg, signal, SigHandler, Signal};
use nix::sys::socket::{send, MsgFlags};
use nix::unistd::Pid;

/// The hidden subcommand that runs [`serve`].
pub(crate) const SUBCOMMAND: &str = "execution-watchdog";

/// The runner's end of the socket, and the watchdog's pid (so that `reaper` does not take
/// it for an orphan).
struct Connection {
    socket: UnixStream,
    pid: i32,
}

static CONNECTION: Mutex<Option<Connection>> = Mutex::new(None);

/// Starts the watchdog (once per process; later calls do nothing). `executable` is this
/// program (`std::env::current_exe()`).
pub fn start(executable: &std::path::Path) -> Result<()> {
    let mut connection = CONNECTION.lock().unwrap_or_else(|e| e.into_inner());
    if connection.is_some() {
        return Ok(());
    }
    let (ours, theirs) = UnixStream::pair().context("socketpair for the executions' watchdog")?;
    // The watchdog must outlive this process (it kills the executions' groups when we die),
    // so no parent-death signal: it has its own group and exits when the socket closes.
    #[allow(clippy::disallowed_methods)]
    let child = Command::new(executable)
        .arg(SUBCOMMAND)
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .with_context(|| {
            format!(
                "cannot start the executions' watchdog {}",
                executable.display()
            )
        })?;
    *connection = Some(Connection {
        socket: ours,
        pid: child.id() as i32,
    });
    // Never waited on: it exits when this process does (the socket closes), and is reaped
    // by whoever inherits it.
    std::mem::forget(child);
    Ok(())
}

/// The watchdog's pid, once started.
pub(crate) fn pid() -> Option<i32> {
    CONNECTION
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|c| c.pid)
}

/// The runner's end of the watchdog's socket, once started: an execution's leader announces
/// itself on it before it execs ([`announce_this_process`]).
pub(crate) fn socket_fd() -> Option<RawFd> {
    CONNECTION
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|c| c.socket.as_raw_fd())
}

/// Announces the calling process as the leader of a running execution (`+PID`) on the
/// watchdog's socket `fd`: meant for `pre_exec`, in the new leader after its `setpgid`, so
/// that the watchdog knows the group before the benchmark's first instruction. The runner's
/// own announcement comes after `spawn` returns; a runner killed in between (a loaded
/// machine can hold it there while the benchmark already starts children) would otherwise
/// leave the group unknown and its children running. Async-signal-safe: a getpid(2) and a
/// send(2) of a line formatted on the stack; best effort, as [`announce`].
pub(crate) fn announce_this_process(fd: RawFd) {
    let mut line = [0u8; 16];
    let n = running_line(nix::unistd::getpid().as_raw(), &mut line);
    let _ = send(fd, &line[..n], MsgFlags::MSG_NOSIGNAL);
}

/// Writes `+PID\n` into `buf` without allocating; returns its length.
fn running_line(pid: i32, buf: &mut [u8; 16]) -> usize {
    let mut digits = [0u8; 10];
    let (mut value, mut count) = (pid.unsigned_abs(), 0);
    loop {
        digits[count] = b'0' + (value % 10) as u8;
        value /= 10;
        count += 1;
        if value == 0 {
            break;
        }
    }
    buf[0] = b'+';
    for i in 0..count {
        buf[1 + i] = digits[count - 1 - i];
    }
    buf[1 + count] = b'\n';
    count + 2
}

/// Tells the watchdog that the execution leading process group `pgid` started (`true`) or
/// was reaped (`false`). Best effort: a watchdog that is gone costs the guarantee, never the
/// run (MSG_NOSIGNAL: no SIGPIPE).
pub(crate) fn announce(pgid: i32, running: bool) {
    let connection = CONNECTION.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = connection.as_ref() {
        let line = format!("{}{pgid}\n", if running { '+' } else { '-' });
        let _ = send(
            c.socket.as_raw_fd(),
            line.as_bytes(),
            MsgFlags::MSG_NOSIGNAL,
        );
    }
}

/// The watchdog itself: reads `+PGID` / `-PGID` lines until end of input, then SIGKILLs the
/// groups still announced as running. Returns them.
pub fn serve(input: impl Read) -> Vec<i32> {
    // It must outlive the runner's own end: the signals that stop a run (a terminal's, or a
    // whole-job SIGTERM) are for the runner; the watchdog ends when its input does.
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: SIG_IGN installs no handler code.
        let _ = unsafe { signal(s, SigHandler::SigIgn) };
    }
    let running = running_groups(input);
    for &pgid in &running {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
    running
}

/// The groups announced as started and not as reaped, in order of announcement. Lines that
/// are not `+N` / `-N` with N > 1 are ignored.
fn running_groups(input: impl Read) -> Vec<i32> {
    let mut running: Vec<i32> = Vec::new();
    for line in BufReader::new(input).lines() {
        let Ok(line) = line else { break };
        let (sign, number) = line.split_at(line.len().min(1));
        let Some(pgid) = number.trim().parse::<i32>().ok().filter(|&p| p > 1) else {
            continue;
        };
        match sign {
            "+" if !running.contains(&pgid) => running.push(pgid),
            "-" => running.retain(|&p| p != pgid),
            _ => {}
        }
    }
    running
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_groups_still_running_at_the_end_are_those_never_reaped() {
        let input = "+100\n+200\n-100\n+300\ngarbage\n+1\n+-5\n-\n+200\n";
        assert_eq!(running_groups(input.as_bytes()), [200, 300]);
        assert!(running_groups("+7\n-7\n".as_bytes()).is_empty());
    }

    #[test]
    fn a_leader_announces_itself_as_the_runner_would() {
        for pid in [2, 10, 4_194_304, i32::MAX] {
            let mut buf = [0u8; 16];
            let n = running_line(pid, &mut buf);
            assert_eq!(&buf[..n], format!("+{pid}\n").as_bytes());
        }
        // On a socket, what the watchdog reads: this process as a running group.
        let (ours, theirs) = UnixStream::pair().unwrap();
        announce_this_process(ours.as_raw_fd());
        drop(ours);
        assert_eq!(running_groups(theirs), [std::process::id() as i32]);
    }
}
