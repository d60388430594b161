//! `layoutrand dimension` rendered: the dimensioning of [`crate::analysis::answers::dimension`]
//! as plain text (Kalibera & Jones 2013 Tables 6 and 7).

use std::fmt::Write;

use crate::analysis::answers::dimension::{
    DimensionReport, SeriesDimension, CROSSED_REPLICATES, MAX_TOP_REPETITIONS, MIN_TOP_REPETITIONS,
};
use crate::report::numfmt::{duration, level, percent, Scale};
use crate::report::title::section_title;
use crate::report::words;

/// The dimensioning as plain text (Table 6/7 style).
pub fn render_text(d: &DimensionReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Dimensioning (Kalibera & Jones 2013 §9): repetitions for a {} confidence interval of the given relative half-width.",
        level(d.confidence)
    );
    for s in &d.series {
        let scale = Scale::for_values(&s.unit, s.mean);
        let _ = writeln!(
            out,
            "\n{}, initial mean {}",
            section_title(&s.program, s.variant.as_deref(), &s.metric, &s.unit, &scale),
            scale.quantity(s.mean)
        );
        write_levels(&mut out, s);
        write_targets(&mut out, s);
        for n in &words::dimension::notes(s) {
            let _ = writeln!(out, "  note: {n}");
        }
    }
    let _ = writeln!(
        out,
        "\nNever fewer than {MIN_TOP_REPETITIONS} top-level repetitions: fewer cannot estimate the interval's own width (KJ §11)."
    );
    out
}

/// The table of levels of `s`: initial repetitions, relative variation, cost and the
/// optimal repetitions (KJ Table 6), with each level's advice.
fn write_levels(out: &mut String, s: &SeriesDimension) {
    let _ = writeln!(
        out,
        "  {:<10} {:>9} {:>12} {:>11}  {:>9}  cost source",
        "level", "initial r", "t = √T²/Ȳ", "cost", "optimal r"
    );
    for l in &s.levels {
        let _ = writeln!(
            out,
            "  {:<10} {:>9} {:>12} {:>11}  {:>9}  {}",
            l.name,
            l.initial_repetitions,
            l.relative_variation
                .map_or_else(|| "≤ 0".to_string(), |t| percent(t, 2)),
            duration(l.cost_seconds),
            l.optimal
                .map_or_else(|| "(top)".to_string(), |r| r.to_string()),
            words::dimension::cost_source(l)
        );
        if let Some(a) = &words::dimension::advice(l) {
            let _ = writeln!(out, "  {:<10} note: {a}", "");
        }
    }
}

/// The tables of targets of `s`: top-level repetitions and expected time per half-width
/// (KJ Table 7), then the crossed design's binaries and data seeds when there are data seeds.
fn write_targets(out: &mut String, s: &SeriesDimension) {
    let top = match s.levels.last().map_or("binary", |l| l.name.as_str()) {
        "binary" => "binaries",
        "execution" => "executions",
        _ => "iterations",
    };
    let _ = writeln!(
        out,
        "\n  {:<12} {:>10}  expected experiment time",
        "half-width", top
    );
    for r in &s.rows {
        let _ = writeln!(
            out,
            "  {:<12} {:>10}  {}",
            percent(r.target, 2),
            r.top_repetitions
                .map_or_else(|| "∞".to_string(), |n| n.to_string()),
            r.expected_seconds.map_or_else(
                || format!("more than {MAX_TOP_REPETITIONS} {top} needed"),
                duration
            )
        );
    }
    if !s.crossed.is_empty() {
        let _ = writeln!(
            out,
            "\n  With data seeds (crossed design, {CROSSED_REPLICATES} executions of every binary with every data seed; the table above counts the data layout's effect as execution noise, which more binaries would average, so plan by this one):\n  {:<12} {:>10} {:>10}  expected experiment time",
            "half-width", "binaries", "data seeds"
        );
    }
    for r in &s.crossed {
        let (a, b, time) = match r.plan {
            Some(p) => (
                p.code_seeds.to_string(),
                p.data_seeds.to_string(),
                duration(p.cost_seconds),
            ),
            None => (
                "∞".to_string(),
                "∞".to_string(),
                format!("more than {MAX_TOP_REPETITIONS} binaries or data seeds needed"),
            ),
        };
        let _ = writeln!(
            out,
            "  {:<12} {a:>10} {b:>10}  {time}",
            percent(r.target, 2)
        );
    }
}
