//! "Did the machines of a Slurm run differ?" in words: each series' finding, its table and
//! warning, and how the top-level interval treats machines, from the numbers of a
//! [`MachineSeries`] ([`crate::analysis::answers::machines`]).

use crate::analysis::answers::machines::MachineSeries;
use crate::report::numfmt::{p_value, percent, statistic, Scale};

/// How the top-level interval treats machines, in words (the same for every series).
pub const INTERVAL_TREATMENT: &str = "Machines are treated as part of the execution level: \
every binary's executions are spread over the machines in equal shares, so a machine \
difference adds execution-level variance (and widens the interval through the binaries' \
means) instead of biasing one layout against another; the interval covers the mean over \
these machines, not over machines in general.";

/// Title of the section in every format.
pub(crate) const TITLE: &str = "Machines (executions spread over Slurm nodes)";

/// Column headers of a series' machine table.
pub(crate) const HEADERS: [&str; 4] = ["machine", "executions", "mean", "offset"];

super::on_the_wire!(MachineSeries {
    text: String = finding
});

/// The finding in words: the machines' share of the execution-level variance and whether
/// they differ, or why it could not be estimated.
pub(crate) fn finding(s: &MachineSeries) -> String {
    match &s.component {
        None if s.machines.len() < 2 => {
            "one machine ran every execution: no machine effect to estimate".to_string()
        }
        None => "too few executions per machine to estimate a machine effect".to_string(),
        Some(c) => format!(
            "machines account for {} of the execution-level variance (random effect, F = {} on {} and {} df, {}): they {}",
            percent(c.share, 2),
            statistic(c.f),
            c.df.df_numerator,
            c.df.df_denominator,
            p_value(c.p_value),
            if s.differ {
                "differ detectably"
            } else {
                "do not differ detectably"
            }
        ),
    }
}

/// `program metric`, or `program [variant] metric` with variants.
pub(crate) fn label(s: &MachineSeries) -> String {
    match &s.variant {
        Some(v) => format!("{} [{v}] {}", s.program, s.metric),
        None => format!("{} {}", s.program, s.metric),
    }
}

/// The finding as a sentence, e.g. `demo wall: machines account for …`.
pub(crate) fn sentence(s: &MachineSeries) -> String {
    format!("{}: {}.", label(s), finding(s))
}

/// The table rows under [`HEADERS`]: machine, executions, mean, offset (`-` when not
/// estimated).
pub(crate) fn rows(s: &MachineSeries) -> Vec<[String; 4]> {
    // One unit for the whole table, chosen for the largest mean.
    let typical = s.machines.iter().map(|m| m.mean.abs()).fold(0.0, f64::max);
    let scale = Scale::for_values(&s.unit, typical);
    s.machines
        .iter()
        .map(|m| {
            [
                m.machine.clone(),
                m.executions.to_string(),
                scale.quantity(m.mean),
                if m.offset.is_finite() {
                    scale.quantity(m.offset)
                } else {
                    "-".to_string()
                },
            ]
        })
        .collect()
}

/// The warning when the machines differ detectably (it quotes the finding).
pub(crate) fn warning(s: &MachineSeries) -> Option<String> {
    s.differ.then(|| {
        format!(
            "{}: the machines differ detectably ({}); compare layouts on one machine type, or keep the spread of executions over machines as the schedule made it",
            label(s),
            finding(s)
        )
    })
}

/// The warnings the machine analysis adds to the report's.
pub(crate) fn warnings(sections: &[MachineSeries]) -> Vec<String> {
    sections.iter().filter_map(warning).collect()
}
