//! The host's state in words a report can act on: whether the machine was loaded or scaled
//! its frequency while a time metric was measured (the facts come from the store's header
//! and `finish` records, [`crate::files::results`]).

use crate::files::results::{HostConditions, Load};

/// Above this share of the cores, the 1-minute load says the host was busy enough to
/// disturb time measurements (other tasks then wait for, and share, the benchmark's core).
pub const LOADED_SHARE: f64 = 0.5;

/// Warnings about the host's state for a run of a time metric: load above half the cores
/// at any recorded moment, frequency scaling by a governor other than `performance`, boost
/// on. `loads` are the recorded samples (label, load); `cores` the online CPUs.
pub fn condition_warnings(
    conditions: &HostConditions,
    loads: &[(&str, Load)],
    cores: Option<u32>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(cores) = cores.filter(|c| *c > 0) {
        let limit = LOADED_SHARE * f64::from(cores);
        let worst = loads
            .iter()
            .max_by(|a, b| a.1.average[0].total_cmp(&b.1.average[0]));
        if let Some((_, worst)) = worst.filter(|(_, l)| l.average[0] > limit) {
            let samples: Vec<String> = loads
                .iter()
                .map(|(label, l)| {
                    format!(
                        "{label} {:.2} with {} other running process(es)",
                        l.average[0], l.other_running
                    )
                })
                .collect();
            // The 1-minute average lags: high with nothing else running at any sample, it may
            // be earlier work fading, so the sentence says what is known, not more.
            let none_seen = loads.iter().all(|(_, l)| l.other_running == 0);
            let consequence = if none_seen {
                "No other process was running at those moments, so the average may still carry \
                 earlier work; if other tasks ran in between, they shared the cores and time \
                 measurements carry their noise"
            } else {
                "Other tasks shared the cores, so time measurements carry their noise"
            };
            warnings.push(format!(
                "The host was loaded: 1-minute load average up to {:.2} on {cores} core(s) (above {:.0} %, half the cores; {}). {consequence}; prefer a quiet machine, `--cpus` on an idle core, or a deterministic metric (--metric cachegrind).",
                worst.average[0],
                100.0 * LOADED_SHARE,
                samples.join(", ")
            ));
        }
    }
    let scaling: Vec<&String> = conditions
        .governors
        .iter()
        .filter(|g| g.as_str() != "performance")
        .collect();
    if !scaling.is_empty() {
        warnings.push(format!(
            "Frequency scaling was on (cpufreq governor {}): the clock speed followed the load, which adds time noise; set the `performance` governor for timing runs.",
            scaling
                .iter()
                .map(|g| g.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if conditions.boost == Some(true) {
        warnings.push(
            "Boost/turbo was on: the clock speed depended on temperature and on the other cores' activity, which adds time noise; disable it for timing runs."
                .to_string(),
        );
    }
    warnings
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
    fn a_loaded_or_scaling_host_is_warned_about_with_its_figures() {
        let quiet = HostConditions::default();
        assert!(condition_warnings(&quiet, &[("before", load(0.4))], Some(2)).is_empty());
        let w = condition_warnings(
            &quiet,
            &[("before", load(0.4)), ("after", load(3.5))],
            Some(2),
        );
        assert_eq!(w.len(), 1);
        assert!(
            w[0].contains("3.50 on 2 core(s)")
                && w[0].contains("after 3.50")
                && w[0].contains("Other tasks shared the cores"),
            "{w:?}"
        );
        // A lagging average with nothing else running at either sample: not stated as fact.
        let idle = |one: f64| Load {
            other_running: 0,
            ..load(one)
        };
        let w = condition_warnings(
            &quiet,
            &[("before", idle(1.2)), ("after", idle(1.1))],
            Some(2),
        );
        assert!(
            w[0].contains("No other process was running at those moments")
                && !w[0].contains("Other tasks shared the cores"),
            "{w:?}"
        );
        let scaling = HostConditions {
            governors: vec!["powersave".into()],
            boost: Some(true),
            ..HostConditions::default()
        };
        let w = condition_warnings(&scaling, &[], None);
        assert!(
            w[0].contains("powersave") && w[1].contains("Boost"),
            "{w:?}"
        );
        let fixed = HostConditions {
            governors: vec!["performance".into()],
            ..HostConditions::default()
        };
        assert!(condition_warnings(&fixed, &[], Some(2)).is_empty());
    }
}
