//! "Was the host quiet while times were measured?" in words: the warnings about the host's
//! recorded state ([`crate::analysis::answers::host_conditions`]), from each
//! [`HostCondition`]'s figures.

use crate::analysis::answers::host_conditions::{
    BusyExecutions, HostCondition, QuietWaits, LOADED_SHARE, STOLEN_SHARE,
};
use crate::report::numfmt::{percent, quantity};

// The setup's `host_warnings` on the wire.
super::said_as!(HostCondition = warning);

/// The warning about one state of the host, with its figures and what to do.
pub(crate) fn warning(condition: &HostCondition) -> String {
    match condition {
        HostCondition::Loaded {
            worst,
            cores,
            samples,
        } => {
            let shown: Vec<String> = samples
                .iter()
                .map(|(label, l)| {
                    format!(
                        "{label} {:.2} with {} other running process(es)",
                        l.average[0], l.other_running
                    )
                })
                .collect();
            // The 1-minute average lags: high with nothing else running at any sample, it
            // may be earlier work fading, so the sentence says what is known, not more.
            let none_seen = samples.iter().all(|(_, l)| l.other_running == 0);
            let consequence = if none_seen {
                "No other process was running at those moments, so the average may still carry \
                 earlier work; if other tasks ran in between, they shared the cores and time \
                 measurements carry their noise"
            } else {
                "Other tasks shared the cores, so time measurements carry their noise"
            };
            format!(
                "The host was loaded: 1-minute load average up to {worst:.2} on {cores} core(s) (above {:.0} %, half the cores; {}). {consequence}; prefer a quiet machine, `--cpus` on an idle core, or a deterministic metric (--metric cachegrind).",
                100.0 * LOADED_SHARE,
                shown.join(", ")
            )
        }
        HostCondition::FrequencyScaling { governors } => format!(
            "Frequency scaling was on (cpufreq governor {}): the clock speed followed the load, which adds time noise; set the `performance` governor for timing runs.",
            governors.join(", ")
        ),
        HostCondition::Boost => "Boost/turbo was on: the clock speed depended on temperature and on the other cores' activity, which adds time noise; disable it for timing runs.".to_string(),
        HostCondition::Busy(b) => busy(b),
    }
}

/// The warning about executions a busy host disturbed.
fn busy(b: &BusyExecutions) -> String {
    let mut causes = Vec::new();
    if b.most_others > 0 {
        causes.push(format!(
            "started beside other runnable tasks (up to {} besides the run's own)",
            b.most_others
        ));
    }
    if b.most_stolen > STOLEN_SHARE {
        causes.push(format!(
            "ran with more than {} of the CPU time stolen by the hypervisor (up to {})",
            percent(STOLEN_SHARE, 0),
            percent(b.most_stolen, 1)
        ));
    }
    let rounds = if b.rounds.is_empty() {
        String::new()
    } else {
        let listed: Vec<String> = b
            .rounds
            .iter()
            .map(|(round, busy, of)| format!("{round} ({busy} of {of})"))
            .collect();
        format!(", in execution round(s) {}", listed.join(", "))
    };
    format!(
        "The host was busy during the run: {} of {} executions ({}) {}{rounds}. Their times carry that noise, and a verdict that rests on them is the first to doubt; prefer a quiet machine (`run --wait-for-quiet 1m` holds each execution back until the host is quiet), `--cpus` on an idle core, or a deterministic metric (--metric cachegrind).",
        b.busy,
        b.sampled,
        percent(b.busy as f64 / b.sampled as f64, 0),
        causes.join(" or ")
    )
}

/// How the runner waited for a quiet host: `waited for a quiet host before 12 of 150
/// executions (longest 4.2 s, 31 s in all); 2 started on a busy host after the longest wait
/// allowed`.
pub(crate) fn quiet_waits(w: &QuietWaits) -> String {
    let mut text = format!(
        "waited for a quiet host before {} of {} executions",
        w.waited, w.executions
    );
    if w.waited > 0 {
        text.push_str(&format!(
            " (longest {}, {} in all)",
            quantity(w.longest_seconds, "s"),
            quantity(w.total_seconds, "s")
        ));
    }
    if w.started_busy > 0 {
        text.push_str(&format!(
            "; {} started on a busy host after the longest wait allowed",
            w.started_busy
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::results::Load;

    fn load(one: f64, other_running: u32) -> Load {
        Load {
            average: [one, one, one],
            other_running,
        }
    }

    fn loaded(samples: &[(&str, Load)]) -> HostCondition {
        HostCondition::Loaded {
            worst: 3.5,
            cores: 2,
            samples: samples.iter().map(|(l, s)| (l.to_string(), *s)).collect(),
        }
    }

    #[test]
    fn busy_executions_are_warned_about_with_their_figures() {
        let w = warning(&HostCondition::Busy(BusyExecutions {
            busy: 4,
            sampled: 40,
            most_others: 2,
            most_stolen: 0.05,
            rounds: vec![(1, 3, 10), (3, 1, 10)],
        }));
        insta::assert_snapshot!(w);
        // Only stolen time: the other cause is not named.
        let w = warning(&HostCondition::Busy(BusyExecutions {
            busy: 4,
            sampled: 40,
            most_others: 0,
            most_stolen: 0.05,
            rounds: Vec::new(),
        }));
        insta::assert_snapshot!(w);
    }

    #[test]
    fn a_loaded_host_is_warned_about_with_its_figures() {
        let w = warning(&loaded(&[
            ("before", load(0.4, 3)),
            ("after", load(3.5, 3)),
        ]));
        insta::assert_snapshot!(w);
        // A lagging average with nothing else running at either sample: not stated as fact.
        let w = warning(&loaded(&[
            ("before", load(1.2, 0)),
            ("after", load(3.5, 0)),
        ]));
        insta::assert_snapshot!(w);
        let w = warning(&HostCondition::FrequencyScaling {
            governors: vec!["powersave".into(), "schedutil".into()],
        });
        insta::assert_snapshot!(w);
        insta::assert_snapshot!(warning(&HostCondition::Boost));
    }
}
