//! The host's state a report can act on: whether the machine was loaded or scaled
//! its frequency while a time metric was measured (the facts come from the store's header
//! and `finish` records, [`crate::files::results`]).

use crate::files::results::{HostConditions, Load};

/// Above this share of the cores, the 1-minute load says the host was busy enough to
/// disturb time measurements (other tasks then wait for, and share, the benchmark's core).
pub(crate) const LOADED_SHARE: f64 = 0.5;

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
}

/// The host's states that disturb a run of a time metric: load above half the cores at
/// any recorded moment, frequency scaling by a governor other than `performance`, boost
/// on. `loads` are the recorded samples (label, load); `cores` the online CPUs.
pub(crate) fn host_conditions(
    conditions: &HostConditions,
    loads: &[(&str, Load)],
    cores: Option<u32>,
) -> Vec<HostCondition> {
    let mut found = Vec::new();
    if let Some(cores) = cores.filter(|c| *c > 0) {
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

    fn load(one: f64) -> Load {
        Load {
            average: [one, one, one],
            other_running: 3,
        }
    }

    #[test]
    fn a_loaded_or_scaling_host_is_found_with_its_figures() {
        let quiet = HostConditions::default();
        assert!(host_conditions(&quiet, &[("before", load(0.4))], Some(2)).is_empty());
        // Exactly half the cores is not above it.
        assert!(host_conditions(&quiet, &[("before", load(1.0))], Some(2)).is_empty());
        let found = host_conditions(
            &quiet,
            &[("before", load(0.4)), ("after", load(3.5))],
            Some(2),
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
        assert!(host_conditions(&quiet, &[("after", load(3.5))], None).is_empty());
        let scaling = HostConditions {
            governors: vec!["powersave".into(), "performance".into()],
            boost: Some(true),
            ..HostConditions::default()
        };
        assert_eq!(
            host_conditions(&scaling, &[], None),
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
        assert!(host_conditions(&fixed, &[], Some(2)).is_empty());
    }
}
