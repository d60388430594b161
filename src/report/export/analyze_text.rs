//! The text of `layoutrand analyze` (the engine's [`Analysis`] of one CSV of measurements),
//! and the pieces `compare`'s text shares with it, written with the project's number
//! formatter ([`crate::report::numfmt`]).

use std::fmt::Write as _;

use crate::analysis::single::BootstrapCi;
use crate::analysis::single::{plural, units};
use crate::analysis::single::{Analysis, LevelJson};
use crate::report::numfmt::{counted, fixed, level, p_value, sig, statistic};
use crate::report::words;

/// `layoutrand analyze`'s text: the design, the table of levels (Kalibera & Jones eq. 1–3),
/// the mean with its interval (eq. 4), then the bootstrap, normality, ANOVA, what was left
/// out and the warnings. `file` names the measurements.
pub fn render_analysis(a: &Analysis, file: &str) -> String {
    let mut out = String::new();
    let Some(top) = a.levels.last() else {
        // The engine refuses data without levels; say so rather than panic if one comes.
        return format!("{file}: \"{}\", no levels to analyse\n", a.value);
    };
    let shape: Vec<String> = a
        .levels
        .iter()
        .rev()
        .map(|l| units(l.repetitions, &l.name))
        .collect();
    let _ = writeln!(
        out,
        "{file}: \"{}\", {}",
        a.value,
        counted(a.measurements, "measurement", "measurements")
    );
    let _ = writeln!(out, "design: {}", shape.join(" × "));
    let _ = writeln!(out);
    level_table(&mut out, a, top);
    let _ = writeln!(out);
    let pct = level(a.confidence);
    mean_lines(&mut out, a, top, &pct);
    test_lines(&mut out, a, top);
    for e in &a.excluded {
        let _ = writeln!(out, "left out    {}", words::single::excluded(e));
    }
    if !a.concerns.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "warnings:");
        for w in &a.concerns {
            let _ = writeln!(out, "  - {}", words::single::warning(w));
        }
    }
    out
}

/// The levels, top first: repetitions, S² (eq. 1), T² (eq. 2) and, given costs, the
/// optimal repetitions (eq. 3), with the engine's notes on them.
fn level_table(out: &mut String, a: &Analysis, top: &LevelJson) {
    let with_costs = a.levels.iter().any(|l| l.cost.is_some());
    let mut rows: Vec<Vec<String>> = vec![{
        let mut h = vec!["level".to_string(), "r".into(), "S²".into(), "T²".into()];
        if with_costs {
            h.push("cost".into());
            h.push("optimal r".into());
        }
        h
    }];
    for l in a.levels.iter().rev() {
        let mut row = vec![
            l.name.clone(),
            l.repetitions.to_string(),
            l.s2.map_or("–".into(), fmt_sig),
            l.t2.map_or("–".into(), fmt_sig),
        ];
        if with_costs {
            row.push(l.cost.map_or("–".into(), fmt_sig));
            row.push(match (l.optimal_repetitions, std::ptr::eq(l, top)) {
                (_, true) => "(top)".into(),
                (Some(r), false) => r.to_string(),
                (None, false) => "–".into(),
            });
        }
        rows.push(row);
    }
    out.push_str(&table(&rows));
    let _ = writeln!(
        out,
        "  (S²: Kalibera & Jones eq. 1; T²: each level's own variance, eq. 2{})",
        if with_costs { "; optimal r: eq. 3" } else { "" }
    );
    for l in &a.levels {
        if let Some(note) = l.optimal.as_ref().and_then(words::dimension::optimal_count) {
            let _ = writeln!(out, "  {}: {note}", l.name);
        }
    }
}

/// The mean, its t interval (eq. 4) and the bootstrap interval when one was asked for.
fn mean_lines(out: &mut String, a: &Analysis, top: &LevelJson, pct: &str) {
    let _ = writeln!(
        out,
        "mean        {}",
        a.mean
            .map_or("not computable (see warnings)".to_string(), fmt_sig)
    );
    match &a.ci {
        Some(ci) => {
            let _ = writeln!(
                out,
                "{:<12}{} … {}  (± {}, ± {} % of the mean)",
                format!("{pct} CI"),
                fmt_sig(ci.lower),
                fmt_sig(ci.upper),
                fmt_sig(ci.half_width),
                fmt_sig(100.0 * ci.relative_half_width)
            );
            let _ = writeln!(
                out,
                "            t interval over the {} {} means, {} df (Kalibera & Jones eq. 4)",
                top.repetitions, top.name, ci.df
            );
        }
        None => {
            let _ = writeln!(
                out,
                "{:<12}not available (see warnings)",
                format!("{pct} CI")
            );
        }
    }
    if let Some(b) = &a.bootstrap {
        let _ = writeln!(out, "{}", bootstrap_line(b, pct));
    }
}

/// Shapiro–Wilk on the top level's means and the ANOVA between top-level units.
fn test_lines(out: &mut String, a: &Analysis, top: &LevelJson) {
    if let Some(nw) = &a.normality {
        let _ = writeln!(
            out,
            "normality   Shapiro–Wilk on the {} {} means: W = {}, {}",
            nw.n,
            top.name,
            statistic(nw.w),
            p_value(nw.p_value)
        );
    }
    if let Some(an) = &a.anova {
        let _ = writeln!(
            out,
            "ANOVA       between {}: F({}, {}) = {}, {}; intraclass correlation {}",
            plural(&top.name),
            an.df_numerator,
            an.df_denominator,
            statistic(an.f),
            p_value(an.p_value),
            fixed(an.icc, 3)
        );
    }
}

/// Left-aligns the first column and right-aligns the others.
fn table(rows: &[Vec<String>]) -> String {
    crate::report::columns::aligned(rows, "  ", "   ")
}

/// The bootstrap line of `analyze`'s text.
fn bootstrap_line(b: &BootstrapCi, pct: &str) -> String {
    format!(
        "bootstrap   {} … {}  ({pct} studentized, {} resamples of the top-level units)",
        fmt_sig(b.lower),
        fmt_sig(b.upper),
        b.resamples
    )
}

/// A statistic with 4 significant digits, grouped and without exponent (variances in ns²).
pub(super) fn fmt_sig(x: f64) -> String {
    sig(x, 4)
}
