//! The text of `layoutrand compare` on two CSV files (the engine's [`Comparison`]), written
//! with the project's number formatter ([`crate::analysis::numfmt`]).

use std::fmt::Write as _;

use super::analyze_text::fmt_sig;
use crate::analysis::compare::Comparison;
use crate::analysis::effect::EffectVerdict;
use crate::analysis::effect::Interval;
use crate::analysis::numfmt::{level, p_value, ratio as fmt_ratio, ratio_bounds, sig, statistic};
use crate::analysis::pair::Basis;
use crate::analysis::single::plural;
use crate::report::checks::{basis_sentence, disagreement};

/// The verdict's ratio line, then the checks: eq. 5 when it is not the basis, the
/// bootstrap.
fn ratio_lines(out: &mut String, c: &Comparison, top_name: &str, pct: &str) {
    let p = &c.pair;
    let interval = |ci: Option<Interval>| {
        ci.map_or(format!("{pct} CI unbounded"), |ci| {
            let (lower, upper) = ratio_bounds(ci.lower, ci.upper);
            format!("{pct} CI {lower} … {upper}")
        })
    };
    let fieller = format!(
        "new/base    {}  ({}, Fieller / Kalibera & Jones eq. 5, independent sides",
        fmt_ratio(p.ratio),
        interval(p.ci)
    );
    if p.basis == Basis::Paired {
        let _ = writeln!(
            out,
            "new/base    {}  ({}, paired by {top_name}: {} pairs; the verdict's interval)",
            fmt_ratio(p.effect.ratio),
            interval(p.effect.ci),
            p.binaries.len()
        );
    } else {
        let _ = writeln!(out, "{fieller}; the verdict's interval)");
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "checks (they do not decide the verdict):");
    if p.basis == Basis::Paired {
        let _ = writeln!(out, "  {fieller})");
    }
    if let Some(b) = &p.bootstrap {
        let (lower, upper) = ratio_bounds(b.ci.lower, b.ci.upper);
        let _ = writeln!(
            out,
            "  bootstrap   {lower} … {upper}  ({pct} studentized, {} hierarchical resamples{})",
            b.resamples,
            if b.paired {
                ", pairs drawn jointly"
            } else {
                ""
            }
        );
    }
}

/// `layoutrand compare`'s text in CSV mode: each side's mean and interval, the verdict, the
/// ratio's intervals, then Welch, the paired difference, Mann–Whitney and the warnings.
/// `top_name` is the top level's column (e.g. `binary`).
pub fn render_comparison(c: &Comparison, top_name: &str) -> String {
    let mut out = String::new();
    let pct = level(c.confidence);
    for (label, s) in [("base", &c.base), ("new", &c.new)] {
        let ci = match (&s.ci, &s.ci_note) {
            (Some(ci), _) => format!("{pct} CI {} … {}", fmt_sig(ci.low), fmt_sig(ci.high)),
            (None, Some(note)) => format!("no {pct} CI: {note}"),
            (None, None) => "no interval".to_string(),
        };
        let _ = writeln!(
            out,
            "{label:<5}{}: mean {} ({ci}), {} {}, {} measurements",
            s.source,
            fmt_sig(s.mean),
            s.top_units,
            plural(top_name),
            s.n
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", c.summary);
    if c.pair.effect.verdict != EffectVerdict::Tie {
        let _ = writeln!(out, "{}.", basis_sentence(&c.pair, top_name));
    }
    let _ = writeln!(out);
    ratio_lines(&mut out, c, top_name, &pct);
    if let Some(w) = &c.welch {
        let _ = writeln!(
            out,
            "  Welch       on the {} means: new − base = {}, t = {}, df = {}, {}",
            top_name,
            fmt_sig(w.difference),
            statistic(w.t),
            sig(w.df, 3),
            p_value(w.p)
        );
    }
    if let Some(p) = &c.paired_difference {
        let _ = writeln!(
            out,
            "  paired      by {top_name} ({} pairs): new − base = {} ({pct} CI {} … {}, Georges et al. §5.2)",
            p.n,
            fmt_sig(p.mean_difference),
            fmt_sig(p.low),
            fmt_sig(p.high)
        );
    }
    if let Some(words) = c.mann_whitney_words(top_name) {
        let _ = writeln!(out, "  Mann–Whitney {words}");
    }
    if let Some(sentence) = disagreement(&c.pair) {
        let _ = writeln!(out, "  {sentence}");
    }
    if !c.warnings.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "warnings:");
        for w in &c.warnings {
            let _ = writeln!(out, "  - {w}");
        }
    }
    out
}
