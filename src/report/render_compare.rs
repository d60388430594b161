//! `layoutrand compare BASE_DIR NEW_DIR` rendered: the comparison of
//! [`crate::analysis::report::compare`] as plain text or JSON.

use std::fmt::Write;

use anyhow::Result;

use crate::analysis::compare::CompareOptions;
use crate::analysis::numfmt::{level, ratio_bounds, Scale};
use crate::analysis::pair::Basis;
use crate::analysis::report::compare::{compare_directories, gate_trips, Comparison};
use crate::analysis::single::BootstrapOptions;
use crate::analysis::vocabulary::Thresholds;
use crate::report::title::section_title;

/// `layoutrand compare BASE_DIR NEW_DIR`: the rendered comparison (text, or JSON when
/// `json`) and the comparisons that fail the gate ([`gate_trips`]). `fail_if_slower` is a share (0.02
/// for 2 %).
pub fn run_directories(
    base: &std::path::Path,
    new: &std::path::Path,
    metrics: &[String],
    thresholds: &Thresholds,
    bootstrap: Option<BootstrapOptions>,
    fail_if_slower: Option<f64>,
    json: bool,
) -> Result<(String, Vec<String>)> {
    let c = compare_directories(
        base,
        new,
        metrics,
        &CompareOptions {
            thresholds: *thresholds,
            is_time: true,
            bootstrap,
            fail_if_slower,
        },
    )?;
    let text = if json {
        serde_json::to_string_pretty(&c)? + "\n"
    } else {
        render_text(&c)
    };
    Ok((text, gate_trips(&c)))
}

/// The comparison as plain text.
pub fn render_text(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Comparison over random code layouts: base {} against new {}.\nEvery interval is a two-sided {} confidence interval.",
        c.base,
        c.new,
        level(c.confidence)
    );
    for p in &c.programs {
        // Both sides in one unit, the title's, chosen for the base's mean.
        let scale = Scale::for_values(&p.unit, p.comparison.base.mean);
        let _ = writeln!(
            out,
            "\n{}",
            section_title(&p.program, p.variant.as_deref(), &p.metric, &p.unit, &scale)
        );
        for (label, s) in [
            ("base: ", &p.comparison.base),
            ("new:  ", &p.comparison.new),
        ] {
            let shown = match &s.ci {
                Some(ci) => scale.estimate(s.mean, ci.low, ci.high, c.confidence),
                None => format!("{} (no interval)", scale.quantity(s.mean)),
            };
            let _ = writeln!(out, "  {label}{shown} over {} binaries", s.top_units);
        }
        let _ = writeln!(out, "  {}", p.text);
        // Paired, the verdict's interval is in the sentence; eq. 5 is shown beside it, as in
        // the CSV mode, to show how much the pairing gained.
        if let (Basis::Paired, Some(ci)) = (p.comparison.pair.basis, p.comparison.pair.ci) {
            let (lower, upper) = ratio_bounds(ci.lower, ci.upper);
            let _ = writeln!(
                out,
                "  eq. 5 (Fieller, independent sides): new/base {lower} … {upper}"
            );
        }
        // The warnings below may advise these two: show them (JSON has them too).
        if let Some(words) = p.comparison.bootstrap_words() {
            let _ = writeln!(out, "  bootstrap: {words}");
        }
        if let Some(words) = p.comparison.mann_whitney_words("binary") {
            let _ = writeln!(out, "  Mann–Whitney {words}");
        }
        for w in &p.comparison.warnings {
            let _ = writeln!(out, "  warning: {w}");
        }
    }
    for o in &c.overall {
        let _ = writeln!(out, "\nAcross programs ({}): {}", o.metric, o.text);
    }
    for u in &c.unmatched {
        let _ = writeln!(out, "\nnot compared: {u}");
    }
    if !c.warnings.is_empty() {
        let _ = writeln!(out, "\nWarnings:");
        for w in &c.warnings {
            let _ = writeln!(out, "  - {w}");
        }
    }
    out
}
