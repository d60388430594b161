//! `run --cpus LIST`: pinning benchmark processes to chosen CPUs.
//!
//! A process the scheduler moves between cores loses its caches and branch predictor state
//! and, on SMT machines, may land next to a busy sibling; pinning removes that source of
//! execution-level noise for time metrics. The runner pins the thread that starts the
//! benchmark with `sched_setaffinity`, and the benchmark inherits the mask across fork and
//! exec.

use anyhow::{bail, Context, Result};
use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// Parses a CPU list as the kernel writes it (`0`, `0,2`, `1-3`, `0-1,4`), in the order
/// given, without duplicates.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim) {
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .with_context(|| format!("--cpus {text}: {s:?} is not a CPU number"))
        };
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if last < first {
            bail!("--cpus {text}: the range {part} runs backwards");
        }
        for cpu in first..=last {
            if cpu >= CpuSet::count() {
                bail!("--cpus {text}: CPU {cpu} is beyond what this system can address");
            }
            if !cpus.contains(&cpu) {
                cpus.push(cpu);
            }
        }
    }
    Ok(cpus)
}

/// The CPUs each of `jobs` workers is pinned to: all of `cpus` for a single worker, one CPU
/// of its own for each of several (refused when there are fewer CPUs than workers, or when
/// one is not online and allowed to this process: found now, before the store is touched,
/// rather than by the first execution's `sched_setaffinity`).
pub(crate) fn assign_cpus(cpus: Option<&[usize]>, jobs: usize) -> Result<Vec<Option<Vec<usize>>>> {
    let Some(cpus) = cpus else {
        return Ok(vec![None; jobs]);
    };
    check_allowed(cpus)?;
    if jobs == 1 {
        return Ok(vec![Some(cpus.to_vec())]);
    }
    if cpus.len() < jobs {
        bail!(
            "--cpus lists {} CPU(s) for --jobs {jobs}: each parallel execution needs a CPU of its own",
            cpus.len()
        );
    }
    Ok(cpus[..jobs].iter().map(|&c| Some(vec![c])).collect())
}

/// Refuses CPUs that are not in this process's affinity mask (offline, absent, or withheld
/// by a cgroup or `taskset`).
fn check_allowed(cpus: &[usize]) -> Result<()> {
    let allowed = sched_getaffinity(Pid::from_raw(0)).context("sched_getaffinity")?;
    let usable: Vec<usize> = (0..CpuSet::count())
        .filter(|&c| allowed.is_set(c).unwrap_or(false))
        .collect();
    let refused: Vec<String> = cpus
        .iter()
        .filter(|c| !usable.contains(c))
        .map(usize::to_string)
        .collect();
    if !refused.is_empty() {
        bail!(
            "--cpus: CPU {} is not online or not allowed to this process (usable: {})",
            refused.join(", "),
            describe_list(&usable)
        );
    }
    Ok(())
}

/// `0-3,6` for [0, 1, 2, 3, 6] (sorted input), the kernel's notation.
fn describe_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Restricts the calling thread (and so every process it starts) to `cpus`.
pub(crate) fn pin_this_thread(cpus: &[usize]) -> Result<()> {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        set.set(cpu)
            .with_context(|| format!("CPU {cpu} cannot be put in an affinity mask"))?;
    }
    // Pid 0 is the calling thread.
    sched_setaffinity(Pid::from_raw(0), &set).with_context(|| {
        format!(
            "sched_setaffinity to CPUs {cpus:?} failed (are they online and allowed to this process?)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_like_the_kernels() {
        assert_eq!(parse_cpu_list("0").unwrap(), [0]);
        assert_eq!(parse_cpu_list("0-2,5,1").unwrap(), [0, 1, 2, 5]);
        assert!(parse_cpu_list("2-1").is_err());
        insta::assert_snapshot!(parse_cpu_list("a").unwrap_err().to_string());
        assert!(parse_cpu_list("").is_err());
    }

    #[test]
    fn workers_get_cpus_of_their_own() {
        // The CPUs this test may use, whatever machine (and `taskset`) it runs on.
        let allowed = sched_getaffinity(Pid::from_raw(0)).unwrap();
        let usable: Vec<usize> = (0..CpuSet::count())
            .filter(|&c| allowed.is_set(c).unwrap())
            .collect();
        assert_eq!(assign_cpus(None, 2).unwrap(), [None, None]);
        assert_eq!(
            assign_cpus(Some(&usable), 1).unwrap(),
            [Some(usable.clone())]
        );
        if let [a, b, ..] = usable[..] {
            assert_eq!(
                assign_cpus(Some(&[b, a]), 2).unwrap(),
                [Some(vec![b]), Some(vec![a])]
            );
        }
        assert!(assign_cpus(Some(&usable[..1]), 2).is_err());
    }

    /// Issue 22: `--cpus 99` failed only at the first execution, after the store's header
    /// was written (so the next plain `run` was refused).
    #[test]
    fn cpus_outside_the_affinity_mask_are_refused_up_front() {
        let err = assign_cpus(Some(&[CpuSet::count() - 1]), 1).unwrap_err();
        assert!(err.to_string().contains("not online"), "{err}");
        assert!(err.to_string().contains("usable: "), "{err}");
        assert_eq!(describe_list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
    }

    #[test]
    fn a_pinned_thread_starts_pinned_children() {
        let out = std::thread::spawn(|| {
            pin_this_thread(&[0]).unwrap();
            crate::child::command("sh")
                .args(["-c", "grep Cpus_allowed_list /proc/self/status"])
                .output()
                .unwrap()
        })
        .join()
        .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.trim().ends_with("\t0"), "{text}");
    }
}
