//! What the store says about the machine: what it is (CPU model, kernel, cores, governor;
//! in the header) and in what state it was (load, other busy processes, frequency scaling,
//! boost, SMT; at the start of the run in the header and at its end in a `finish` record).
//!
//! Time measurements on a loaded or frequency-scaling host vary far more than on a quiet
//! one; the report uses these facts to say so, with the figures.

pub(crate) use crate::files::results::{Finish, HostConditions, Load};

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
    }
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
    let running = read("/proc/stat")?
        .lines()
        .find_map(|l| l.strip_prefix("procs_running"))
        .and_then(|v| v.trim().parse::<u32>().ok())?;
    Some(Load {
        average,
        other_running: running.saturating_sub(1),
    })
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
