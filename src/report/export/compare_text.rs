//! The text of `layoutrand compare` on two CSV files (the engine's [`Comparison`]), written
//! with the project's number formatter ([`crate::analysis::numfmt`]).

use std::fmt::Write as _;

use super::analyze_text::fmt_sig;
use crate::analysis::compare::Comparison;
use crate::analysis::effect::Interval;
use crate::analysis::numfmt::{level, p_value};
use crate::analysis::pair::Basis;
use crate::analysis::single::plural;

/// A ratio new/base to four decimals (a tenth of a basis point of change), the same for
/// every ratio and bound so that they line up and read against 1.
fn fmt_ratio(x: f64) -> String {
    format!("{x:.4}")
}

/// The ratio lines: the interval the verdict rests on first, then eq. 5 when it is not the
/// basis, then the bootstrap.
fn ratio_lines(out: &mut String, c: &Comparison, top_name: &str, pct: &str) {
    let p = &c.pair;
    let interval = |ci: Option<Interval>| {
        ci.map_or(format!("{pct} CI unbounded"), |ci| {
            format!("{pct} CI {} … {}", fmt_ratio(ci.lower), fmt_ratio(ci.upper))
        })
    };
    if p.basis == Basis::Paired {
        let _ = writeln!(
            out,
            "new/base    {}  ({}, paired by {top_name}: {} pairs; the verdict's interval)",
            fmt_ratio(p.effect.ratio),
            interval(p.effect.ci),
            p.binaries.len()
        );
    }
    let _ = writeln!(
        out,
        "new/base    {}  ({}, Fieller / Kalibera & Jones eq. 5, independent sides{})",
        fmt_ratio(p.ratio),
        interval(p.ci),
        if p.basis == Basis::Fieller {
            "; the verdict's interval"
        } else {
            ""
        }
    );
    if let Some(b) = &p.bootstrap {
        let _ = writeln!(
            out,
            "bootstrap   {} … {}  ({pct} percentile, {} hierarchical resamples{})",
            fmt_ratio(b.ci.lower),
            fmt_ratio(b.ci.upper),
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
        let ci = s.ci.as_ref().map_or("no interval".to_string(), |ci| {
            format!("{pct} CI {} … {}", fmt_sig(ci.low), fmt_sig(ci.high))
        });
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
    let _ = writeln!(out);
    ratio_lines(&mut out, c, top_name, &pct);
    if let Some(w) = &c.welch {
        let _ = writeln!(
            out,
            "Welch       on the {} means: new − base = {}, t = {:.3}, df = {:.1}, {}",
            top_name,
            fmt_sig(w.difference),
            w.t,
            w.df,
            p_value(w.p)
        );
    }
    if let Some(p) = &c.paired_difference {
        let _ = writeln!(
            out,
            "paired      by {top_name} ({} pairs): new − base = {} ({pct} CI {} … {}, Georges et al. §5.2)",
            p.n,
            fmt_sig(p.mean_difference),
            fmt_sig(p.low),
            fmt_sig(p.high)
        );
    }
    if let Some(words) = c.mann_whitney_words(top_name) {
        let _ = writeln!(out, "Mann–Whitney {words}");
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
