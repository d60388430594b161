//! The Machines section (Slurm runs) as plain text, also used as a block by the Markdown
//! exporter: the sentences and rows of [`crate::analysis::report::machines`].

use crate::analysis::report::machines::{MachineSeries, INTERVAL_TREATMENT, TITLE};

/// The section as plain text (also used, as a block, by the Markdown exporter).
pub fn render_text(sections: &[MachineSeries]) -> String {
    if sections.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{TITLE}\n{}\n", "=".repeat(TITLE.chars().count()));
    for s in sections {
        out.push_str(&s.sentence());
        out.push('\n');
        for [machine, executions, mean, offset] in s.rows() {
            out.push_str(&format!(
                "  {machine:<16} {executions:>5} executions  mean {mean:<14} offset {offset}\n"
            ));
        }
    }
    out.push_str(INTERVAL_TREATMENT);
    out.push('\n');
    out
}
