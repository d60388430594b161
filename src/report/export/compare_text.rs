//! The text of `layoutrand compare` on two CSV files (the engine's [`Comparison`]), written
//! with the project's number formatter ([`crate::report::numfmt`]): one document
//! ([`crate::report::document`]) through the text backend.

use super::analyze_text::fmt_sig;
use crate::analysis::compare::Comparison;
use crate::analysis::effect::EffectVerdict;
use crate::analysis::effect::Interval;
use crate::analysis::pair::Basis;
use crate::analysis::single::units;
use crate::report::checks::{basis_sentence, disagreement};
use crate::report::document::{Block, Document, SectionKind, Text};
use crate::report::numfmt::{
    counted, level, p_value, ratio as fmt_ratio, ratio_bounds, sig, statistic,
};

/// The verdict's ratio line.
fn ratio_line(c: &Comparison, top_name: &str, pct: &str) -> String {
    let p = &c.pair;
    if p.basis == Basis::Paired {
        format!(
            "new/base    {}  ({}, paired by {top_name}: {} pairs; the verdict's interval)",
            fmt_ratio(p.effect.ratio),
            interval(p.effect.ci, pct),
            p.binaries.len()
        )
    } else {
        format!("{}; the verdict's interval)", fieller(c, pct))
    }
}

/// A ratio's interval: `95 % CI 0.95 … 0.97`, or unbounded.
fn interval(ci: Option<Interval>, pct: &str) -> String {
    ci.map_or(format!("{pct} CI unbounded"), |ci| {
        let (lower, upper) = ratio_bounds(ci.lower, ci.upper);
        format!("{pct} CI {lower} … {upper}")
    })
}

/// Fieller's ratio and interval (eq. 5), its parenthesis left open.
fn fieller(c: &Comparison, pct: &str) -> String {
    format!(
        "new/base    {}  ({}, Fieller / Kalibera & Jones eq. 5, independent sides",
        fmt_ratio(c.pair.ratio),
        interval(c.pair.ci, pct)
    )
}

/// The checks that do not decide: eq. 5 when it is not the basis, the bootstrap, Welch, the
/// paired difference, Mann–Whitney and where they disagree.
fn check_lines(c: &Comparison, top_name: &str, pct: &str) -> Vec<String> {
    let p = &c.pair;
    let mut lines = Vec::new();
    if p.basis == Basis::Paired {
        lines.push(format!("{})", fieller(c, pct)));
    }
    if let Some(b) = &p.bootstrap {
        let (lower, upper) = ratio_bounds(b.ci.lower, b.ci.upper);
        lines.push(format!(
            "bootstrap   {lower} … {upper}  ({pct} studentized, {} hierarchical resamples{})",
            b.resamples,
            if b.paired {
                ", pairs drawn jointly"
            } else {
                ""
            }
        ));
    }
    if let Some(w) = &c.welch {
        lines.push(format!(
            "Welch       on the {} means: new − base = {}, t = {}, df = {}, {}",
            top_name,
            fmt_sig(w.difference),
            statistic(w.t),
            sig(w.df, 3),
            p_value(w.p_value)
        ));
    }
    if let Some(d) = &c.paired_difference {
        lines.push(format!(
            "paired      by {top_name} ({} pairs): new − base = {} ({pct} CI {} … {}, Georges et al. §5.2)",
            d.pairs,
            fmt_sig(d.mean_difference),
            fmt_sig(d.lower),
            fmt_sig(d.upper)
        ));
    }
    lines.extend(
        crate::report::words::comparison::mann_whitney(c, top_name)
            .map(|words| format!("Mann–Whitney {words}")),
    );
    lines.extend(disagreement(p));
    lines
}

/// Each side's mean and interval, one line per side.
fn side_lines(c: &Comparison, top_name: &str, pct: &str) -> Vec<Text> {
    [("base", &c.base), ("new", &c.new)]
        .into_iter()
        .map(|(label, s)| {
            let note = (s.ci_grounds.as_ref()).map(crate::report::words::single::interval_note);
            let ci = match (&s.ci, note) {
                (Some(ci), _) => format!("{pct} CI {} … {}", fmt_sig(ci.lower), fmt_sig(ci.upper)),
                (None, Some(note)) => format!("no {pct} CI: {note}"),
                (None, None) => "no interval".to_string(),
            };
            Text::plain(format!(
                "{label:<5}{}: mean {} ({ci}), {}, {}",
                s.source,
                fmt_sig(s.mean),
                units(s.top_units, top_name),
                counted(s.measurements, "measurement", "measurements")
            ))
        })
        .collect()
}

/// `layoutrand compare`'s answer in CSV mode as a document (no title: it is a command's
/// answer): each side's mean and interval, the verdict, the ratio's interval, then the
/// checks (eq. 5, bootstrap, Welch, the paired difference, Mann–Whitney) and the warnings.
/// `top_name` is the top level's column (e.g. `binary`).
pub(crate) fn comparison_document(c: &Comparison, top_name: &str) -> Document {
    let pct = level(c.confidence);
    let mut verdict = vec![Text::plain(crate::report::words::comparison::summary(c))];
    if c.pair.effect.verdict != EffectVerdict::Tie {
        verdict.push(Text::plain(format!(
            "{}.",
            basis_sentence(&c.pair, top_name)
        )));
    }
    let mut blocks = vec![
        Block::Paragraphs(side_lines(c, top_name, &pct)),
        Block::Paragraphs(verdict),
        Block::Paragraphs(vec![Text::plain(ratio_line(c, top_name, &pct))]),
        Block::Section {
            title: "checks (they do not decide the verdict)".into(),
            kind: SectionKind::Topic,
            id: None,
            blocks: vec![Block::Preformatted(check_lines(c, top_name, &pct))],
        },
    ];
    let warnings = crate::report::words::comparison::warnings(c);
    if !warnings.is_empty() {
        blocks.push(Block::Section {
            title: "warnings".into(),
            kind: SectionKind::Topic,
            id: None,
            blocks: vec![Block::List {
                bullets: true,
                items: warnings.iter().map(|w| Text::plain(w.as_str())).collect(),
            }],
        });
    }
    Document {
        title: Text::default(),
        title_level: 1,
        blocks,
    }
}

/// `layoutrand compare`'s text in CSV mode: [`comparison_document`] through the text backend.
pub fn render_comparison(c: &Comparison, top_name: &str) -> String {
    crate::report::document::text::render(&comparison_document(c, top_name))
}
