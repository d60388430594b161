//! What the store's header says about the machine: CPU model, kernel, cores, governor.

use super::store::HostInfo;

/// Reads what is readable about this machine; missing facts stay `None`.
pub fn detect_host() -> HostInfo {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
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

#[cfg(test)]
mod tests {
    #[test]
    fn kernel_and_cores_are_found_on_linux() {
        let h = super::detect_host();
        let uname = std::process::Command::new("uname")
            .arg("-r")
            .output()
            .unwrap();
        assert_eq!(
            h.kernel.as_deref(),
            Some(String::from_utf8_lossy(&uname.stdout).trim())
        );
        assert!(h.cores.unwrap() >= 1);
    }
}
