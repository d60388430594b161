//! What the store says about the machine: what it is (CPU model, kernel, cores, governor;
//! in the header) and in what state it was (load, other busy processes, frequency scaling,
//! boost, SMT; at the start of the run in the header and at its end in a `finish` record).
//!
//! Time measurements on a loaded or frequency-scaling host vary far more than on a quiet
//! one; the report uses these facts to say so, with the figures.

pub(crate) use crate::files::results::{ExecutionHost, Finish, HostConditions, Load, QuietWait};

use crate::files::store::HostInfo;

/// Reads what is readable about this machine; missing facts stay `None`.
pub(crate) fn detect_host() -> HostInfo {
    let cpu_model = read("/proc/cpuinfo").and_then(|text| {
        text.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    let cores = std::thread::available_parallelism()
        .ok()
        .map(|n| n.get() as u32);
    HostInfo {
        cpu_model,
        kernel: read("/proc/sys/kernel/osrelease"),
        cores,
        governor: read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        hostname: read("/proc/sys/kernel/hostname"),
        l1i: l1_instruction_cache(std::path::Path::new("/sys/devices/system/cpu/cpu0/cache")),
    }
}

/// The level-1 instruction cache among the `index*` folders of a CPU's sysfs cache
/// directory: its size (`32K`), ways and line size; `None` when absent or unreadable.
fn l1_instruction_cache(
    dir: &std::path::Path,
) -> Option<crate::layout::cache_geometry::CacheGeometry> {
    std::fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let field = |name: &str| {
            std::fs::read_to_string(entry.path().join(name))
                .ok()
                .map(|s| s.trim().to_string())
        };
        if field("type")? != "Instruction" || field("level")? != "1" {
            return None;
        }
        let size = field("size")?;
        let (digits, scale) = match size.strip_suffix('K') {
            Some(kib) => (kib, 1024),
            None => (size.as_str(), 1),
        };
        let geometry = crate::layout::cache_geometry::CacheGeometry {
            size: digits.parse::<u64>().ok()? * scale,
            assoc: field("ways_of_associativity")?.parse().ok()?,
            line: field("coherency_line_size")?.parse().ok()?,
        };
        // A shape valgrind would refuse (ways or lines of 0, sets not a power of two) is no
        // cache to place functions in.
        geometry.check("L1i").ok().map(|()| geometry)
    })
}

/// A file's trimmed text, `None` when unreadable.
fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// The load now, when /proc says.
pub(crate) fn current_load() -> Option<Load> {
    let avg = read("/proc/loadavg")?;
    let mut fields = avg.split_whitespace().map(|f| f.parse::<f64>());
    let average = [
        fields.next()?.ok()?,
        fields.next()?.ok()?,
        fields.next()?.ok()?,
    ];
    let running = settled_running()?;
    Some(Load {
        average,
        other_running: running.saturating_sub(1),
    })
}

/// The aggregate CPU times of /proc/stat's `cpu` line, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CpuTimes {
    /// Time stolen by the hypervisor (the eighth field).
    steal: u64,
    /// All eight fields (user, nice, system, idle, iowait, irq, softirq, steal); guest time
    /// is already counted in user and nice.
    total: u64,
}

/// The CPU times now, when /proc/stat says.
pub(crate) fn cpu_times() -> Option<CpuTimes> {
    cpu_times_of(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// The CPU times of a /proc/stat text (its `cpu ` line); kernels before 2.6.11 have no
/// steal field: 0.
fn cpu_times_of(stat: &str) -> Option<CpuTimes> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if fields.len() < 4 {
        return None;
    }
    Some(CpuTimes {
        steal: fields.get(7).copied().unwrap_or(0),
        total: fields.iter().sum(),
    })
}

/// How many times, and how far apart, [`settled_running`] reads `procs_running`: 5 reads over
/// 2 ms.
const SETTLE_READS: usize = 5;
const SETTLE_GAP: std::time::Duration = std::time::Duration::from_micros(500);

/// Runnable tasks just before an execution starts, the reader included: the median of
/// [`SETTLE_READS`] reads of `procs_running` [`SETTLE_GAP`] apart. One read taken as the
/// execution is about to start counts what is still finishing the last one's commit for a
/// fraction of a millisecond (the committing thread going back to sleep, the kernel's journal
/// threads after the store's fsync): on a quiet 2-core VM a single read found another task
/// at 55 of 60 starts, and of 16 starts read again every 0.5 ms, none at the second read
/// and two at one later read each. A task that competes for a core is runnable at most
/// reads; such a blip at one.
pub(crate) fn settled_running() -> Option<u32> {
    let mut reads = Vec::with_capacity(SETTLE_READS);
    for k in 0..SETTLE_READS {
        if k > 0 {
            std::thread::sleep(SETTLE_GAP);
        }
        reads.push(procs_running());
    }
    median_read(&reads)
}

/// The median of the reads that succeeded (the upper one of an even count); `None` when none
/// did.
fn median_read(reads: &[Option<u32>]) -> Option<u32> {
    let mut known: Vec<u32> = reads.iter().flatten().copied().collect();
    known.sort_unstable();
    known.get(known.len() / 2).copied()
}

/// Runnable tasks now (/proc/stat `procs_running`), the reader included.
pub(crate) fn procs_running() -> Option<u32> {
    read("/proc/stat")?
        .lines()
        .find_map(|l| l.strip_prefix("procs_running"))
        .and_then(|v| v.trim().parse::<u32>().ok())
}

/// The host around one execution: `running` sampled when it started, the CPU times then
/// (`before`) and when it ended (`after`).
pub(crate) fn around_execution(
    running: Option<u32>,
    before: Option<CpuTimes>,
    after: Option<CpuTimes>,
) -> ExecutionHost {
    let steal = before.zip(after).and_then(|(b, a)| {
        let total = a.total.checked_sub(b.total).filter(|t| *t > 0)?;
        Some(a.steal.saturating_sub(b.steal) as f64 / total as f64)
    });
    ExecutionHost {
        running,
        steal,
        quiet_wait: None,
    }
}

/// How long one look at the host lasts while waiting for quiet: stolen time over it,
/// runnable tasks at its end. Short enough to cost little before each
/// execution of a quiet host, long enough for /proc/stat's ticks (10 ms) to show steal.
pub(crate) const QUIET_LOOK: std::time::Duration = std::time::Duration::from_millis(100);

/// Waits, at most `longest`, until one [`QUIET_LOOK`] at the host finds it quiet (not
/// [`ExecutionHost::busy`] with the run's `jobs` executions at once) or `stop` says to stop (a caught signal): how long it waited and whether the host
/// was quiet. A busy host is not an error: the execution then starts anyway and its
/// record says so.
pub(crate) fn wait_for_quiet(
    longest: std::time::Duration,
    jobs: u32,
    stop: &dyn Fn() -> bool,
) -> QuietWait {
    let start = std::time::Instant::now();
    // When the first look ended: the wait is the time since, exactly 0 when that look
    // already ends it (its own 0.1 s is no wait, and the report counts the executions that
    // waited by a wait above 0).
    let mut first_look_ended: Option<std::time::Instant> = None;
    loop {
        // Runnable tasks at the look's end only: at its start the store's fsync of the
        // execution before still has the kernel's journal threads runnable, which made
        // nearly every first look busy on a quiet host.
        let before = cpu_times();
        std::thread::sleep(QUIET_LOOK);
        let look = around_execution(settled_running(), before, cpu_times());
        let quiet = !look.busy(jobs);
        if quiet || start.elapsed() >= longest || stop() {
            return QuietWait {
                seconds: first_look_ended.map_or(0.0, |t| t.elapsed().as_secs_f64()),
                quiet,
            };
        }
        first_look_ended.get_or_insert_with(std::time::Instant::now);
    }
}

/// The host's state now.
pub(crate) fn detect_conditions() -> HostConditions {
    let mut governors: Vec<String> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu") {
        let mut paths: Vec<_> = dir.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            let g = std::fs::read_to_string(p.join("cpufreq/scaling_governor"));
            if let Ok(g) = g {
                let g = g.trim().to_string();
                if !governors.contains(&g) {
                    governors.push(g);
                }
            }
        }
    }
    let boost = read("/sys/devices/system/cpu/cpufreq/boost")
        .map(|v| v == "1")
        .or_else(|| read("/sys/devices/system/cpu/intel_pstate/no_turbo").map(|v| v == "0"));
    HostConditions {
        load: current_load(),
        governors,
        boost,
        smt: read("/sys/devices/system/cpu/smt/active").map(|v| v == "1"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The L1 instruction cache is the `index*` folder whose type is Instruction at level 1
    /// (this machine's sysfs layout: data, instruction, unified L2, L3); another level or
    /// type, a shape whose sets are no power of two (48 KiB in 8 ways of 64 bytes: 96), or no
    /// such folder gives none.
    #[test]
    fn the_l1_instruction_cache_is_read_from_sysfs() {
        use crate::layout::cache_geometry::CacheGeometry;
        let tmp = tempfile::tempdir().unwrap();
        let index = |i: u32, fields: [&str; 5]| {
            let dir = tmp.path().join(format!("index{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            let names = [
                "type",
                "level",
                "size",
                "ways_of_associativity",
                "coherency_line_size",
            ];
            for (name, value) in names.iter().zip(fields) {
                std::fs::write(dir.join(name), format!("{value}\n")).unwrap();
            }
        };
        index(0, ["Data", "1", "48K", "12", "64"]);
        index(2, ["Unified", "2", "1024K", "8", "64"]);
        assert_eq!(l1_instruction_cache(tmp.path()), None);
        index(1, ["Instruction", "1", "32K", "8", "64"]);
        let expected = CacheGeometry {
            size: 32768,
            assoc: 8,
            line: 64,
        };
        assert_eq!(l1_instruction_cache(tmp.path()), Some(expected));
        index(1, ["Instruction", "1", "48K", "8", "64"]);
        assert_eq!(l1_instruction_cache(tmp.path()), None);
        index(1, ["Instruction", "1", "32K", "0", "64"]);
        assert_eq!(l1_instruction_cache(tmp.path()), None);
        assert_eq!(l1_instruction_cache(&tmp.path().join("absent")), None);
    }

    /// A wait that its first look ends (here: told to stop) waited 0 s, exactly, whatever
    /// the host: the look's own 0.1 s is not counted as a wait.
    #[test]
    fn a_wait_ended_by_its_first_look_is_no_wait() {
        let start = std::time::Instant::now();
        let w = wait_for_quiet(std::time::Duration::from_secs(60), 1, &|| true);
        assert_eq!(w.seconds, 0.0, "{w:?}");
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    /// A task runnable at one read of five is a blip, not a competitor; one runnable at
    /// most reads counts.
    #[test]
    fn runnable_tasks_are_the_median_of_the_reads() {
        assert_eq!(
            median_read(&[Some(2), Some(1), Some(1), Some(1), Some(1)]),
            Some(1)
        );
        assert_eq!(
            median_read(&[Some(2), Some(3), Some(1), Some(2), Some(1)]),
            Some(2)
        );
        assert_eq!(median_read(&[None, Some(3), None, Some(1), None]), Some(3));
        assert_eq!(median_read(&[None, None]), None);
        let now = settled_running().unwrap();
        assert!(now >= 1, "the reader itself runs: {now}");
    }

    /// Closed form: between the two texts 200 ticks passed (user +100, idle +80, steal +20):
    /// 10 % stolen. The guest fields after steal are not counted twice.
    #[test]
    fn the_steal_share_is_read_between_two_samples_of_proc_stat() {
        let before = "cpu  1000 0 500 8000 10 0 5 100 300 0\ncpu0 1 2 3 4 5 6 7 8 9 0\n";
        let after = "cpu  1100 0 500 8080 10 0 5 120 350 0\n";
        let (b, a) = (cpu_times_of(before), cpu_times_of(after));
        assert_eq!(
            b,
            Some(CpuTimes {
                steal: 100,
                total: 9615
            })
        );
        let host = around_execution(Some(3), b, a);
        assert_eq!(host.running, Some(3));
        assert!((host.steal.unwrap() - 0.1).abs() < 1e-12, "{host:?}");
        // No time passed, or no sample: no share.
        assert_eq!(around_execution(None, b, b).steal, None);
        assert_eq!(around_execution(None, None, a).steal, None);
        // An old kernel without the steal field steals nothing; a line too short is none.
        assert_eq!(cpu_times_of("cpu  1 2 3 4\n").unwrap().steal, 0);
        assert_eq!(cpu_times_of("cpu  1 2\n"), None);
        // This machine's /proc/stat reads, and the runner counts itself among the running.
        assert!(cpu_times().is_some());
        assert!(procs_running().unwrap() >= 1);
    }

    #[test]
    fn kernel_and_cores_are_found_on_linux() {
        let h = detect_host();
        let uname = crate::child::command("uname").arg("-r").output().unwrap();
        assert_eq!(
            h.kernel.as_deref(),
            Some(String::from_utf8_lossy(&uname.stdout).trim())
        );
        assert!(h.cores.unwrap() >= 1);
    }

    #[test]
    fn the_load_is_read_from_proc() {
        let load = current_load().expect("/proc/loadavg and /proc/stat on Linux");
        let text = std::fs::read_to_string("/proc/loadavg").unwrap();
        let first: f64 = text.split_whitespace().next().unwrap().parse().unwrap();
        // The two reads are a moment apart; the 1-minute average moves slowly.
        assert!((load.average[0] - first).abs() < 1.0, "{load:?} vs {text}");
    }
}
