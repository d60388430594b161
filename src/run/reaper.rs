//! Nothing a benchmark starts outlives its execution, and an interrupted run stops cleanly.
//!
//! The runner becomes a *child subreaper* (`prctl(PR_SET_CHILD_SUBREAPER)`): a process the
//! benchmark started and abandoned is re-parented to the runner instead of to init, even one
//! that left the benchmark's process group and session with `setsid()` (which a group kill
//! never reaches). After each execution, [`kill_orphans`] kills and reaps those. SIGINT and
//! SIGTERM only set a flag ([`crate::signals::caught`]); the process module then kills the running
//! benchmark's whole tree and the runner stops between executions, saying what it kept.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::signals::Waits;

/// Whether [`install`] ran: only then are orphans ours to kill (a test harness's other
/// children are not).
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Leaders of the executions running now: never orphans, whatever their parent.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Makes this process the reaper of its descendants' orphans and catches SIGINT and SIGTERM
/// for the rest of the process ([`crate::signals`]), without `SA_RESTART`: a blocked `wait4`
/// or `poll` returns `EINTR` at once.
pub(crate) fn install() -> Result<()> {
    nix::sys::prctl::set_child_subreaper(true).context("prctl(PR_SET_CHILD_SUBREAPER)")?;
    crate::signals::catch(Waits::Interrupt)
        .context("catching SIGINT and SIGTERM")?
        .for_the_process();
    INSTALLED.store(true, Ordering::SeqCst);
    Ok(())
}

/// When a benchmark died of `signal` and that is SIGINT or SIGTERM, waits up to `grace` for
/// the runner to be interrupted too (a whole-job kill, see `process`), and returns the
/// runner's signal if it was. Any other signal, or none reaching the runner in time, is the
/// benchmark's own end: `None`.
pub(crate) fn interrupt_alongside(signal: i32, grace: std::time::Duration) -> Option<i32> {
    if !INSTALLED.load(Ordering::SeqCst) || (signal != libc::SIGINT && signal != libc::SIGTERM) {
        return None;
    }
    let deadline = std::time::Instant::now() + grace;
    loop {
        if let Some(ours) = crate::signals::caught() {
            return Some(ours);
        }
        if std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Held from a spawn until [`started`] has noted the new leader, and by [`kill_orphans`]
/// while it picks its victims: with parallel executions (`run --jobs`), a leader another
/// worker has just forked is a child not yet in [`RUNNING`], and must not look like an
/// orphan.
static SPAWNING: Mutex<()> = Mutex::new(());

/// The guard to hold from spawning an execution's leader until [`started`] noted it.
pub(crate) fn spawn_guard() -> std::sync::MutexGuard<'static, ()> {
    SPAWNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Notes that `pid` leads a running execution (so [`kill_orphans`] leaves it alone).
pub(crate) fn started(pid: i32) {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
    super::watchdog::announce(pid, true);
}

/// Notes that the execution led by `pid` was reaped.
pub(crate) fn finished(pid: i32) {
    RUNNING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&p| p != pid);
    super::watchdog::announce(pid, false);
}

/// Parent of every process, from /proc.
fn parents() -> Vec<(i32, i32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        Some((pid, ppid))
    })
    .collect()
}

/// SIGKILLs every descendant of `root` (not `root` itself), wherever its session or group.
pub(crate) fn kill_descendants(root: i32) {
    let parents = parents();
    let mut tree: HashSet<i32> = HashSet::from([root]);
    // Parents may be listed after their children: grow the tree until it stops growing.
    loop {
        let before = tree.len();
        for &(pid, ppid) in &parents {
            if tree.contains(&ppid) {
                tree.insert(pid);
            }
        }
        if tree.len() == before {
            break;
        }
    }
    for pid in tree.into_iter().filter(|&p| p != root) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// The children of this process's main thread, from `/proc/self/task/PID/children`, which is
/// opened once and read again from its start (a `/proc` seq file is regenerated on each read
/// from offset 0): one system call per look.
///
/// The orphans are there: the kernel re-parents an orphan to the first live thread of its
/// subreaper, which is the main thread while the process runs (`find_new_reaper`,
/// kernel/exit.c). A worker thread's own children are the executions it leads, which are
/// never orphans.
fn own_children() -> Vec<i32> {
    use std::os::unix::fs::FileExt;
    static MAIN_THREAD_CHILDREN: std::sync::OnceLock<Option<std::fs::File>> =
        std::sync::OnceLock::new();
    let Some(file) = MAIN_THREAD_CHILDREN
        .get_or_init(|| {
            std::fs::File::open(format!("/proc/self/task/{}/children", std::process::id())).ok()
        })
        .as_ref()
    else {
        return Vec::new();
    };
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match file.read_at(&mut chunk, text.len() as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => text.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8_lossy(&text)
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Kills and reaps the orphans re-parented to this process (everything a finished execution
/// left behind), round after round, since killing one orphan orphans its own children.
/// Returns how many were killed. Does nothing unless [`install`] made this process their
/// reaper.
pub(crate) fn kill_orphans() -> usize {
    if !INSTALLED.load(Ordering::SeqCst) {
        return 0;
    }
    let mut killed = 0;
    for _ in 0..1000 {
        let spawning = spawn_guard();
        let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let watchdog = super::watchdog::pid();
        let orphans: Vec<i32> = own_children()
            .into_iter()
            .filter(|pid| !running.contains(pid) && Some(*pid) != watchdog)
            .collect();
        drop(spawning);
        if orphans.is_empty() {
            break;
        }
        for &pid in &orphans {
            kill_descendants(pid);
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            // Reap exactly this one: another execution's leader is not ours to reap.
            let _ = nix::sys::wait::waitpid(Pid::from_raw(pid), None);
            killed += 1;
        }
    }
    killed
}
