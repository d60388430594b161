//! The parts of `layoutrand report`'s document after the series
//! ([`super::report_document`]): the variants' intervals and plots, the sequential answers,
//! the explanation (a fragment of the page only) and the machines of a Slurm run.

use super::html_parts::tone;
use super::sequential::{sequence_plot, sequential_lines, sequential_note, SEQUENTIAL_TITLE};
use super::tables::{
    comparison_lines, interaction_line, tukey_rows, tukey_title, TUKEY_HEADERS, VARIANTS_TITLE,
};
use super::variant_plots::comparison_plots;
use crate::analysis::answers::machines::MachineSeries;
use crate::analysis::answers::model::{Report, Verdict};
use crate::analysis::variants::PairComparison;
use crate::report::document::{Block, Figure, Graphic, SectionKind, Table, Text, Tone};
use crate::report::numfmt::capitalised;
use crate::report::words::machines::{
    label, rows, sentence, HEADERS as MACHINE_HEADERS, INTERVAL_TREATMENT, TITLE as MACHINES_TITLE,
};

/// A topic section.
pub(super) fn topic(title: &str, id: Option<String>, blocks: Vec<Block>) -> Block {
    Block::Section {
        title: title.to_string(),
        kind: SectionKind::Topic,
        id,
        blocks,
    }
}

/// A list of plain items.
pub(super) fn list(bullets: bool, items: Vec<String>) -> Block {
    Block::List {
        bullets,
        items: items.into_iter().map(Text::plain).collect(),
    }
}

/// An answer with a heading and a box: `label: words` in text, `words` capitalised in the box.
pub(super) fn boxed(id: String, label: &str, words: &str, verdict: Tone) -> Block {
    Block::Verdict(crate::report::document::Verdict {
        id: Some(id),
        heading: Some(label.to_string()),
        line: Text::labelled(label, words),
        boxed: capitalised(words),
        tone: Some(verdict),
    })
}

/// The variants' comparisons (`build --variant`): per comparison its answer, the intervals
/// behind it and on the page its paired plot, ratio intervals and interaction plot; Tukey's
/// family when there are more than two variants. Nothing without comparisons.
pub(crate) fn variants(report: &Report) -> Option<Block> {
    if report.comparisons.is_empty() && report.multiple.is_empty() {
        return None;
    }
    let mut blocks: Vec<Block> = report
        .comparisons
        .iter()
        .enumerate()
        .flat_map(|(k, c)| comparison(report, k, c))
        .collect();
    for (k, m) in report.multiple.iter().enumerate() {
        let title = tukey_title(m);
        blocks.push(topic(
            title.trim_end_matches(':'),
            Some(format!("tukey-{k}")),
            vec![Block::Table(Table::words(
                &TUKEY_HEADERS,
                &tukey_rows(m, report.confidence),
            ))],
        ));
    }
    Some(topic(VARIANTS_TITLE, Some("variants".into()), blocks))
}

/// One comparison (the `k`th): its answer, the lines of its intervals (indented under it),
/// and its plots with the interaction test under the interaction plot.
fn comparison(report: &Report, k: usize, c: &PairComparison) -> Vec<Block> {
    let mut lines = comparison_lines(c, report.confidence).into_iter();
    let answer = lines.next().unwrap_or_default();
    let plots = comparison_plots(report, c);
    let interaction = interaction_line(c, report.confidence).map_or_else(
        || "Variant × binary interaction: not computable (it needs at least two seeds in common, each with at least two rounds).".to_string(),
        |l| capitalised(&l),
    );
    vec![
        Block::Verdict(crate::report::document::Verdict {
            id: Some(format!("comparison-{k}")),
            heading: Some(format!(
                "{} {}: {} against {}",
                c.program, c.metric, c.new, c.base
            )),
            line: Text::plain(answer),
            boxed: capitalised(&crate::report::words::variants::sentence(c)),
            tone: Some(tone(c.pair.effect.verdict.detection())),
        }),
        Block::Preformatted(lines.collect()),
        Block::Figure(Figure {
            id: Some(format!("comparison-plots-{k}")),
            title: None,
            note: None,
            graphics: vec![
                Graphic::Svg(plots.paired),
                Graphic::Svg(plots.intervals),
                Graphic::Captioned {
                    svg: plots.interaction,
                    id: format!("interaction-{k}"),
                    caption: format!("{interaction}. The test is on the ratio: a change of the same ratio on every layout draws lines whose gap grows with the layout's mean, not parallel ones."),
                },
            ],
        }),
    ]
}

/// The sequential answers (`report --sequential`): what the intervals hold, a line per
/// series and comparison, and on the page each one's interval narrowing with the binaries.
pub(crate) fn sequential(report: &Report) -> Option<Block> {
    let lines = sequential_lines(report);
    if lines.is_empty() {
        return None;
    }
    let mut graphics = Vec::new();
    for s in &report.series {
        if let Some(q) = &s.sequential {
            let name =
                crate::analysis::answers::series::program_label(&s.program, s.variant.as_deref());
            let title = format!("{name} {}: mean as binaries are added", s.metric);
            graphics.push(Graphic::Svg(sequence_plot(&title, &s.unit, q, None)));
        }
    }
    for c in &report.comparisons {
        if let Some(q) = &c.sequential {
            let title = format!("{} {}: {} / {}", c.program, c.metric, c.new, c.base);
            graphics.push(Graphic::Svg(sequence_plot(&title, "ratio", q, Some(1.0))));
        }
    }
    Some(topic(
        SEQUENTIAL_TITLE,
        Some("sequential".into()),
        vec![
            Block::Paragraphs(vec![Text::plain(sequential_note(report))]),
            list(true, lines),
            Block::Figure(Figure {
                id: None,
                title: None,
                note: None,
                graphics,
            }),
        ],
    ))
}

/// The explanation of an explained experiment: on the page only, as `explain --format html`
/// draws it (the text report leaves it to `layoutrand explain`).
pub(crate) fn explain(report: &Report) -> Option<Block> {
    let mut html = String::new();
    match (&report.explanation, &report.variant_explanations) {
        (Some(e), _) => super::explain_html::section(&mut html, e),
        (None, Some(v)) => super::explain_html::variants_sections(&mut html, v),
        (None, None) => return None,
    }
    Some(Block::Markup {
        contents: Some(("explain".into(), "Explain".into())),
        html,
    })
}

/// The machines of a Slurm run: per series its finding (share of the execution-level
/// variance due to machines, F test) and a table of each machine's executions, mean and
/// offset; then how the top-level interval treats machines. Nothing without machines.
pub(crate) fn machines(report: &Report) -> Option<Block> {
    if report.machines.is_empty() {
        return None;
    }
    let mut blocks = Vec::new();
    for (i, s) in report.machines.iter().enumerate() {
        blocks.push(Block::Verdict(crate::report::document::Verdict {
            id: Some(format!("machines-{i}")),
            heading: Some(label(s)),
            line: Text::plain(sentence(s)),
            boxed: format!(
                "{}.",
                capitalised(&crate::report::words::machines::finding(s))
            ),
            tone: Some(tone(finding(s))),
        }));
        blocks.push(Block::Table(Table::numbers(&MACHINE_HEADERS, &rows(s))));
    }
    blocks.push(Block::Paragraphs(vec![Text::plain(INTERVAL_TREATMENT)]));
    Some(Block::Section {
        title: MACHINES_TITLE.to_string(),
        kind: SectionKind::Part,
        id: Some("machines".into()),
        blocks,
    })
}

/// A series' finding: detected (machines differ), not detected, or undetermined (one
/// machine, too few executions).
fn finding(s: &MachineSeries) -> Verdict {
    match (&s.component, s.differ) {
        (_, true) => Verdict::Detected,
        (Some(_), false) => Verdict::NotDetected,
        (None, _) => Verdict::Undetermined,
    }
}
