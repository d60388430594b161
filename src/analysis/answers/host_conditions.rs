//! The host's state a report can act on: whether the machine was loaded, busy around the
//! executions or scaled its frequency while a time metric was measured (the facts come from
//! the store's header, its `finish` records and each execution's `host`,
//! [`crate::files::results`]).

pub(crate) use crate::files::results::STOLEN_SHARE;
use crate::files::results::{ExecutionHost, ExecutionKey, HostConditions, Load};

/// Above this share of the cores, the 1-minute load says the host was busy enough to
/// disturb time measurements (other tasks then wait for, and share, the benchmark's core).
pub(crate) const LOADED_SHARE: f64 = 0.5;

/// Below this share of busy executions the run is not called busy: a runnable kernel thread
/// caught at one execution's start in a hundred is the life of any machine.
pub(crate) const BUSY_SHARE: f64 = 0.05;

/// A state of the host that disturbs time measurements, with the figures its warning
/// gives; the words are `crate::report::words::host_conditions`'.
#[derive(Debug, Clone, PartialEq)]
pub enum HostCondition {
    /// The 1-minute load average went above [`LOADED_SHARE`] of the cores at some recorded
    /// moment.
    Loaded {
        /// The highest 1-minute load average recorded.
        worst: f64,
        /// Online CPUs.
        cores: u32,
        /// Every recorded sample, labelled ("before", "after").
        samples: Vec<(String, Load)>,
    },
    /// A cpufreq governor other than `performance` (these governors, as recorded).
    FrequencyScaling {
        /// The governors that scale the frequency.
        governors: Vec<String>,
    },
    /// Boost/turbo was on.
    Boost,
    /// Executions that started beside other runnable tasks (beyond the run's own) or ran
    /// with more than [`STOLEN_SHARE`] of the CPU time stolen, at least [`BUSY_SHARE`] of
    /// those sampled (each execution's host record).
    Busy(BusyExecutions),
}

/// The executions a busy host disturbed, with the figures their warning gives.
#[derive(Debug, Clone, PartialEq)]
pub struct BusyExecutions {
    /// Busy executions.
    pub busy: usize,
    /// Executions with a host sample.
    pub sampled: usize,
    /// The most other runnable tasks at an execution's start.
    pub most_others: u32,
    /// The largest share of the CPU time stolen while one execution ran.
    pub most_stolen: f64,
    /// On a rounds schedule, the rounds that hold busy executions: (round, busy ones, the
    /// round's sampled ones), in round order; empty otherwise.
    pub rounds: Vec<(u32, usize, usize)>,
}

/// The busy executions among `hosts` (each execution's key and sample; its index is its
/// round when `rounds`), the run's own `jobs` executions at once not counted as other tasks;
/// `None` below [`BUSY_SHARE`] of them.
pub(crate) fn busy_executions(
    hosts: &[(ExecutionKey, ExecutionHost)],
    jobs: u32,
    rounds: bool,
) -> Option<HostCondition> {
    let stolen = |h: &ExecutionHost| h.steal.unwrap_or(0.0);
    let is_busy = |h: &ExecutionHost| h.busy(jobs);
    let busy = hosts.iter().filter(|(_, h)| is_busy(h)).count();
    if hosts.is_empty() || (busy as f64) < BUSY_SHARE * hosts.len() as f64 {
        return None;
    }
    let mut by_round: std::collections::BTreeMap<u32, (usize, usize)> = Default::default();
    if rounds {
        for (key, h) in hosts {
            let entry = by_round.entry(key.3).or_default();
            entry.0 += usize::from(is_busy(h));
            entry.1 += 1;
        }
    }
    Some(HostCondition::Busy(BusyExecutions {
        busy,
        sampled: hosts.len(),
        most_others: hosts
            .iter()
            .map(|(_, h)| h.other_tasks(jobs))
            .max()
            .unwrap_or(0),
        most_stolen: hosts.iter().map(|(_, h)| stolen(h)).fold(0.0, f64::max),
        rounds: by_round
            .into_iter()
            .filter(|(_, (b, _))| *b > 0)
            .map(|(round, (b, n))| (round, b, n))
            .collect(),
    }))
}

/// How the runner waited for a quiet host before the executions that recorded a wait (`run
/// --wait-for-quiet`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct QuietWaits {
    /// Executions that recorded a wait.
    pub executions: usize,
    /// Those that found the host busy at first and waited.
    pub waited: usize,
    /// The longest wait, in seconds.
    pub longest_seconds: f64,
    /// All the waits together, in seconds.
    pub total_seconds: f64,
    /// Executions that started on a host still busy (the wait's limit reached).
    pub started_busy: usize,
}

/// The waits among `hosts`; `None` when no execution recorded one.
pub(crate) fn quiet_waits(hosts: &[(ExecutionKey, ExecutionHost)]) -> Option<QuietWaits> {
    let waits: Vec<_> = hosts.iter().filter_map(|(_, h)| h.quiet_wait).collect();
    if waits.is_empty() {
        return None;
    }
    Some(QuietWaits {
        executions: waits.len(),
        waited: waits.iter().filter(|w| w.seconds > 0.0).count(),
        longest_seconds: waits.iter().map(|w| w.seconds).fold(0.0, f64::max),
        total_seconds: waits.iter().map(|w| w.seconds).sum(),
        started_busy: waits.iter().filter(|w| !w.quiet).count(),
    })
}

/// The host's states that disturb a run of a time metric: load above half the cores at
/// any recorded moment, frequency scaling by a governor other than `performance`, boost
/// on. `loads` are the recorded samples (label, load); `cores` the online CPUs.
///
/// With `executions_sampled` (each execution recorded the runnable tasks at its start,
/// [`busy_executions`]), a load average alone is no finding: a minute's average carries
/// what ran before the run (an `experiment`'s own build) and the run's own executions, and
/// the executions' samples say whether other tasks competed with them. The load then
/// counts only when a sample of it also found another process running.
pub(crate) fn host_conditions(
    conditions: &HostConditions,
    loads: &[(&str, Load)],
    cores: Option<u32>,
    executions_sampled: bool,
) -> Vec<HostCondition> {
    let mut found = Vec::new();
    let others_seen = loads.iter().any(|(_, l)| l.other_running > 0);
    if let Some(cores) = cores.filter(|c| *c > 0 && (others_seen || !executions_sampled)) {
        let limit = LOADED_SHARE * f64::from(cores);
        let worst = loads
            .iter()
            .map(|(_, l)| l.average[0])
            .max_by(f64::total_cmp);
        if let Some(worst) = worst.filter(|w| *w > limit) {
            found.push(HostCondition::Loaded {
                worst,
                cores,
                samples: loads
                    .iter()
                    .map(|(label, l)| (label.to_string(), *l))
                    .collect(),
            });
        }
    }
    let governors: Vec<String> = conditions
        .governors
        .iter()
        .filter(|g| g.as_str() != "performance")
        .cloned()
        .collect();
    if !governors.is_empty() {
        found.push(HostCondition::FrequencyScaling { governors });
    }
    if conditions.boost == Some(true) {
        found.push(HostCondition::Boost);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The load an `experiment`'s build leaves (1.37 on 2 cores, nothing else running
    /// before or after the run) is no finding when every execution sampled the host; a
    /// sample that saw another process running still is, and without the executions'
    /// samples the load is judged alone, as before.
    #[test]
    fn a_load_average_alone_is_no_finding_when_the_executions_sampled_the_host() {
        let quiet = HostConditions::default();
        let after_build = |others| Load {
            average: [1.37, 1.5, 1.6],
            other_running: others,
        };
        let loads = [("before", after_build(0)), ("after", after_build(0))];
        assert!(host_conditions(&quiet, &loads, Some(2), true).is_empty());
        assert_eq!(host_conditions(&quiet, &loads, Some(2), false).len(), 1);
        let loads = [("before", after_build(0)), ("after", after_build(1))];
        assert!(matches!(
            host_conditions(&quiet, &loads, Some(2), true)[..],
            [HostCondition::Loaded { worst, cores: 2, .. }] if worst == 1.37
        ));
    }

    /// Execution `execution` of one binary of program `p`.
    fn key(execution: u32) -> ExecutionKey {
        ("p".into(), None, "seed-1".into(), execution)
    }

    fn host(running: u32, steal: f64) -> ExecutionHost {
        ExecutionHost {
            running: Some(running),
            steal: Some(steal),
            quiet_wait: None,
        }
    }

    /// Closed form: three executions waited 0, 2.5 and 30 s, the last on a host still
    /// busy; one (an older store's, or a run without the flag) recorded no wait.
    #[test]
    fn quiet_waits_are_summed_over_the_executions_that_recorded_one() {
        use crate::files::results::QuietWait;
        let mut hosts: Vec<(ExecutionKey, ExecutionHost)> =
            (0..4).map(|i| (key(i), host(1, 0.0))).collect();
        for (h, (seconds, quiet)) in hosts
            .iter_mut()
            .zip([(0.0, true), (2.5, true), (30.0, false)])
        {
            h.1.quiet_wait = Some(QuietWait { seconds, quiet });
        }
        let w = quiet_waits(&hosts).expect("waits");
        assert_eq!((w.executions, w.waited, w.started_busy), (3, 2, 1));
        assert_eq!((w.longest_seconds, w.total_seconds), (30.0, 32.5));
        assert_eq!(quiet_waits(&hosts[3..]), None);
        assert_eq!(
            crate::report::words::host_conditions::quiet_waits(&w),
            "waited for a quiet host before 2 of 3 executions (longest 30.00 s, 32.50 s in all); \
             1 started on a busy host after the longest wait allowed"
        );
    }

    /// 40 executions in 4 rounds of 10, one job: round 1 has 3 started beside another
    /// task, round 3 one with 5 % stolen. 4 of 40 is 10 %, above the 5 % floor.
    #[test]
    fn busy_executions_are_counted_by_round_with_their_figures() {
        let mut hosts: Vec<(ExecutionKey, ExecutionHost)> =
            (0..40).map(|i| (key(i / 10), host(1, 0.001))).collect();
        for h in &mut hosts[10..13] {
            h.1 = host(3, 0.0);
        }
        hosts[35].1 = host(1, 0.05);
        let Some(HostCondition::Busy(b)) = busy_executions(&hosts, 1, true) else {
            panic!("not busy");
        };
        assert_eq!((b.busy, b.sampled, b.most_others), (4, 40, 2));
        assert!((b.most_stolen - 0.05).abs() < 1e-12);
        assert_eq!(b.rounds, vec![(1, 3, 10), (3, 1, 10)]);
        // With two jobs, two running are the run's own: only the stolen one is busy, 1 of
        // 40 is below the floor.
        assert_eq!(busy_executions(&hosts, 3, true), None);
        // Without rounds, no rounds are named.
        let Some(HostCondition::Busy(b)) = busy_executions(&hosts, 1, false) else {
            panic!("not busy");
        };
        assert!(b.rounds.is_empty());
        // A quiet run, or no samples (older stores): nothing.
        assert_eq!(busy_executions(&hosts[20..30], 1, true), None);
        assert_eq!(busy_executions(&[], 1, true), None);
    }

    fn load(one: f64) -> Load {
        Load {
            average: [one, one, one],
            other_running: 3,
        }
    }

    #[test]
    fn a_loaded_or_scaling_host_is_found_with_its_figures() {
        let quiet = HostConditions::default();
        assert!(host_conditions(&quiet, &[("before", load(0.4))], Some(2), false).is_empty());
        // Exactly half the cores is not above it.
        assert!(host_conditions(&quiet, &[("before", load(1.0))], Some(2), false).is_empty());
        let found = host_conditions(
            &quiet,
            &[("before", load(0.4)), ("after", load(3.5))],
            Some(2),
            false,
        );
        assert_eq!(
            found,
            vec![HostCondition::Loaded {
                worst: 3.5,
                cores: 2,
                samples: vec![("before".into(), load(0.4)), ("after".into(), load(3.5))],
            }]
        );
        // Without the number of cores, no load is judged.
        assert!(host_conditions(&quiet, &[("after", load(3.5))], None, false).is_empty());
        let scaling = HostConditions {
            governors: vec!["powersave".into(), "performance".into()],
            boost: Some(true),
            ..HostConditions::default()
        };
        assert_eq!(
            host_conditions(&scaling, &[], None, false),
            vec![
                HostCondition::FrequencyScaling {
                    governors: vec!["powersave".into()]
                },
                HostCondition::Boost
            ]
        );
        let fixed = HostConditions {
            governors: vec!["performance".into()],
            ..HostConditions::default()
        };
        assert!(host_conditions(&fixed, &[], Some(2), false).is_empty());
    }
}
