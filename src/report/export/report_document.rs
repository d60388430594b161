//! The builder of `layoutrand report`'s document: what the report says and in which order,
//! once for the text and Markdown backends ([`crate::report::document`]). The sentences and
//! rows are those of [`super::tables`], [`super::glance`] and [`super::sequential`].

use super::glance::{
    glance_comparisons, glance_rows, COMPARISON_HEADERS, GLANCE_HEADERS, GLANCE_TITLE,
};
use super::tables::{
    as_built_lines, baseline_line, confidence_line, diagnostic_lines, lead_variant_lines,
    level_rows, mean_line, series_title, setup_line, stopping_line, variant_lines, LEVEL_HEADERS,
    VARIANTS_LEAD_TITLE, VARIANTS_TITLE,
};
use crate::analysis::report::model::{Report, SeriesReport};
use crate::report::document::{Block, Document, SectionKind, Span, Table, Text};

/// The heading of a series' table of levels.
pub const LEVELS_TITLE: &str = "Variation by level (Kalibera & Jones eq. 1–2)";

/// The report as a document: the confidence and set-up, the glance, the variants' answers,
/// a part per series, the variants' intervals, the sequential answers, the machines and the
/// warnings.
pub fn build(report: &Report) -> Document {
    let mut head = vec![
        Text::plain(confidence_line(report)),
        Text::plain(format!("Set-up: {}", setup_line(report))),
    ];
    head.extend(stopping_line(report).map(Text::plain));
    let mut blocks = vec![Block::Paragraphs(head)];
    blocks.extend(glance(report));
    if !report.across_metrics.is_empty() {
        blocks.push(Block::Paragraphs(
            report
                .across_metrics
                .iter()
                .map(|l| Text::labelled("Across metrics", l.as_str()))
                .collect(),
        ));
    }
    let lead = lead_variant_lines(report);
    if !lead.is_empty() {
        blocks.push(topic(VARIANTS_LEAD_TITLE, vec![list(false, lead)]));
    }
    blocks.extend(
        report
            .series
            .iter()
            .map(|s| series_part(s, report.confidence)),
    );
    let variants = variant_lines(report);
    if !variants.is_empty() {
        blocks.push(topic(VARIANTS_TITLE, vec![Block::Preformatted(variants)]));
    }
    blocks.extend(sequential(report));
    blocks.extend(machines(report));
    if !report.warnings.is_empty() {
        blocks.push(topic("Warnings", vec![list(true, report.warnings.clone())]));
    }
    Document {
        title: Text::plain("layoutrand report of ").then(Span::Code(report.directory.clone())),
        title_level: 1,
        blocks,
    }
}

fn topic(title: &str, blocks: Vec<Block>) -> Block {
    Block::Section {
        title: title.to_string(),
        kind: SectionKind::Topic,
        blocks,
    }
}

fn list(bullets: bool, items: Vec<String>) -> Block {
    Block::List {
        bullets,
        items: items.into_iter().map(Text::plain).collect(),
    }
}

/// The glance: a row per series, then a row per comparison of variants; nothing without a
/// series.
fn glance(report: &Report) -> Option<Block> {
    let rows = glance_rows(report);
    if rows.is_empty() {
        return None;
    }
    let mut tables = vec![Block::Table(Table::words(&GLANCE_HEADERS, &rows))];
    let comparisons = glance_comparisons(report);
    if !comparisons.is_empty() {
        tables.push(Block::Table(Table::words(
            &COMPARISON_HEADERS,
            &comparisons,
        )));
    }
    Some(topic(GLANCE_TITLE, tables))
}

/// One program and metric: its mean, the levels, the three verdicts, the as-built binary,
/// the diagnostics and the answer in short.
fn series_part(s: &SeriesReport, confidence: f64) -> Block {
    let mut means = vec![Text::plain(mean_line(s, confidence))];
    means.extend(baseline_line(s, confidence).map(Text::plain));
    let mut verdicts = vec![
        Text::labelled("Layout sensitivity", s.sensitivity.text.as_str()),
        Text::labelled("Layout shift", s.shift.text.as_str()),
        Text::labelled(
            "Default layout among random layouts",
            s.default_layout.text.as_str(),
        ),
    ];
    verdicts.extend(as_built_lines(s, confidence).into_iter().map(Text::plain));
    Block::Section {
        title: series_title(s),
        kind: SectionKind::Part,
        blocks: vec![
            Block::Paragraphs(means),
            topic(
                LEVELS_TITLE,
                vec![Block::Table(Table::numbers(&LEVEL_HEADERS, &level_rows(s)))],
            ),
            Block::Paragraphs(verdicts),
            topic(
                "Diagnostics",
                vec![list(true, diagnostic_lines(s, confidence))],
            ),
            Block::Paragraphs(vec![Text::labelled("In short", s.summary.as_str())]),
        ],
    }
}

/// The sequential answers (`report --sequential`): what the intervals hold, then a line per
/// series and comparison.
fn sequential(report: &Report) -> Option<Block> {
    use super::sequential::{sequential_lines, sequential_note, SEQUENTIAL_TITLE};
    let lines = sequential_lines(report);
    if lines.is_empty() {
        return None;
    }
    Some(topic(
        SEQUENTIAL_TITLE,
        vec![
            Block::Paragraphs(vec![Text::plain(sequential_note(report))]),
            list(true, lines),
        ],
    ))
}

/// The machines of a Slurm run, as the text report has always shown them.
fn machines(report: &Report) -> Option<Block> {
    let lines = crate::report::render_machines::lines(&report.machines);
    if lines.is_empty() {
        return None;
    }
    Some(Block::Section {
        title: crate::analysis::report::machines::TITLE.to_string(),
        kind: SectionKind::Part,
        blocks: vec![Block::Preformatted(lines)],
    })
}
