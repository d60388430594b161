//! The Machines section (Slurm runs) as lines of plain text, the body of the section the
//! text and Markdown reports give it: the sentences and rows of
//! [`crate::analysis::report::machines`].

use crate::analysis::report::machines::{MachineSeries, INTERVAL_TREATMENT};

/// Per series its sentence and a line per machine, then how the interval treats machines;
/// empty when the store records no machines.
pub fn lines(sections: &[MachineSeries]) -> Vec<String> {
    if sections.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for s in sections {
        out.push(s.sentence());
        for [machine, executions, mean, offset] in s.rows() {
            out.push(format!(
                "  {machine:<16} {executions:>5} executions  mean {mean:<14} offset {offset}"
            ));
        }
    }
    out.push(INTERVAL_TREATMENT.to_string());
    out
}
