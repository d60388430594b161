//! The HTML report's Machines section (Slurm runs): the same model
//! ([`crate::analysis::report::machines::MachineSeries`]) and the same sentences, headers and rows as
//! the text and Markdown section, as a verdict box and a table per series.

use std::fmt::Write;

use super::html_parts::{capitalised, table, verdict_class};
use super::svg::escape;
use crate::analysis::report::machines::{MachineSeries, HEADERS, INTERVAL_TREATMENT, TITLE};
use crate::analysis::report::model::Verdict;

/// The box class of a series' finding: detected (machines differ), not detected, or
/// undetermined (one machine, too few executions).
fn finding_class(s: &MachineSeries) -> &'static str {
    verdict_class(match (&s.component, s.differ) {
        (_, true) => Verdict::Detected,
        (Some(_), false) => Verdict::NotDetected,
        (None, _) => Verdict::Undetermined,
    })
}

/// `<section id="machines">`: per series its finding (share of the execution-level
/// variance due to machines, F test), its warning when the machines differ detectably, and
/// a table of each machine's executions, mean and offset; then how the top-level interval
/// treats machines. Nothing when the store records no machines.
pub fn machines_section(out: &mut String, sections: &[MachineSeries]) -> std::fmt::Result {
    if sections.is_empty() {
        return Ok(());
    }
    writeln!(out, "<section id=\"machines\"><h2>{}</h2>", escape(TITLE))?;
    for (i, s) in sections.iter().enumerate() {
        writeln!(
            out,
            "<h3 id=\"machines-{i}\">{}</h3><div class=\"{}\">{}.</div>",
            escape(&s.label()),
            finding_class(s),
            escape(&capitalised(&s.text))
        )?;
        if let Some(w) = s.warning() {
            writeln!(
                out,
                "<p class=\"warning\" id=\"machines-warning-{i}\">Warning: {}</p>",
                escape(&w)
            )?;
        }
        table(out, &HEADERS, &s.rows())?;
    }
    writeln!(
        out,
        "<p id=\"machines-interval\">{}</p></section>",
        escape(INTERVAL_TREATMENT)
    )
}
