//! `--format summary`: the answers in a few lines of Markdown, for a CI job's page
//! (`>> $GITHUB_STEP_SUMMARY`) or a pull-request comment. It leads with a table of answers —
//! one row per comparison of variants, then one per program and metric — each with its
//! verdict, effect and interval, and points to the full report for the rest. Every word and
//! number is the report's (the one engine); nothing is computed here. The summary is a
//! document of its own, rendered by the Markdown backend ([`crate::report::document`]).

use anyhow::Result;

use super::Exporter;
use crate::analysis::answers::model::{Report, Sensitivity, SeriesReport, Verdict};
use crate::analysis::answers::series::program_label;
use crate::report::document::{Block, CellKind, Document, Span, Table, Text};
use crate::report::numfmt::{estimate, percent};
use crate::report::words::sensitivity::no_variation_word;
use crate::report::words::{self, incomplete};

/// The short Markdown summary.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SummaryExporter;

/// Rows of a table at most; the rest is counted and left to the full report.
const MAX_ROWS: usize = 15;

/// The layout-sensitivity answer in a few words, with its magnitude.
fn sensitivity_words(s: &Sensitivity) -> String {
    if let Some(word) = no_variation_word(s) {
        return word.to_string();
    }
    let by = |v: Option<f64>| v.map(|v| format!(": varies {} by layout", percent(v, 2)));
    match s.verdict {
        Verdict::Detected => format!(
            "layout-sensitive{}",
            by(s.layout_variation).unwrap_or_default()
        ),
        Verdict::Negligible => match s.cv_across_binaries_ci {
            Some(ci) => format!("negligible: at most {}", percent(ci.upper, 2)),
            None => "negligible".to_string(),
        },
        Verdict::NotDetected => "not detected".to_string(),
        Verdict::Undetermined => match (&s.rests_on, s.detectable_variation) {
            (Some(r), _) => format!(
                "cannot tell: rests on one binary, {} ({}{} from the others; re-measure it with `run --resume --extend-executions K`)",
                r.apart.binary,
                if r.apart.deviation >= 0.0 { "+" } else { "" },
                percent(r.apart.deviation, 2)
            ),
            (None, Some(d)) => format!("cannot tell (nothing below {} detectable)", percent(d, 2)),
            (None, None) => "cannot tell".to_string(),
        },
    }
}

/// The mean over random layouts with its interval, or why there is none.
fn mean_words(s: &SeriesReport, confidence: f64) -> String {
    match s.ci {
        Some(ci) => estimate(s.mean, ci.lower, ci.upper, &s.unit, confidence),
        None => format!(
            "{} (no interval: {})",
            crate::report::numfmt::quantity(s.mean, &s.unit),
            (s.interval_grounds.as_ref())
                .map_or("too few binaries".to_string(), words::single::interval_note)
        ),
    }
}

/// A table of `rows` at most [`MAX_ROWS`] long, and how many rows were left out.
fn table(headers: &[&str], rows: Vec<Vec<Text>>) -> Vec<Block> {
    let left = rows.len().saturating_sub(MAX_ROWS);
    let mut blocks = vec![Block::Table(Table {
        headers: headers.iter().map(|h| h.to_string()).collect(),
        kinds: vec![CellKind::Words; headers.len()],
        rows: rows.into_iter().take(MAX_ROWS).collect(),
    })];
    if left > 0 {
        blocks.push(Block::Paragraphs(vec![Text::plain(format!(
            "… and {left} more rows in the full report."
        ))]));
    }
    blocks
}

/// The summary as a document: a row per comparison of variants, a row per program and
/// metric, the host's warning, and how to read it.
pub(crate) fn build(report: &Report) -> Document {
    let mut blocks = comparisons_table(report);
    let rows = report
        .series
        .iter()
        .map(|s| {
            vec![
                Text::plain(program_label(&s.program, s.variant.as_deref())),
                Text::plain(s.metric.clone()),
                Text::plain(mean_words(s, report.confidence)),
                Text::plain(sensitivity_words(&s.sensitivity)),
                Text::plain(words::default_layout::verdict_words(&s.default_layout)),
            ]
        })
        .collect();
    blocks.extend(table(
        &[
            "program",
            "metric",
            "mean over random layouts",
            "layout sensitivity",
            "default layout",
        ],
        rows,
    ));
    let mut closing = Vec::new();
    if !report.setup.host_conditions.is_empty() {
        closing.push(Text::plain(
            "⚠ Measured on a loaded or unsteady host: time verdicts may reflect the host.",
        ));
    }
    closing.push(
        Text::plain(format!(
            "{} intervals; effects within ±{} count as negligible. The full report: ",
            crate::report::numfmt::level(report.confidence),
            percent(report.negligible, 2),
        ))
        .then(Span::Code(format!(
            "layoutrand report {}",
            report.directory
        )))
        .then(Span::Plain(".".to_string())),
    );
    blocks.push(Block::Paragraphs(closing));
    let mut title = Text::plain("layoutrand: ").then(Span::Code(report.directory.clone()));
    if let Some(i) = report.incomplete {
        title = title.then(Span::Plain(format!(" ({})", incomplete::title_note(&i))));
        blocks.insert(
            0,
            Block::Paragraphs(vec![Text::plain(incomplete::sentence(
                &i,
                &report.directory,
            ))]),
        );
    }
    Document {
        title,
        title_level: 3,
        blocks,
    }
}

/// The table of the variants' comparisons (none without comparisons).
fn comparisons_table(report: &Report) -> Vec<Block> {
    if report.comparisons.is_empty() {
        return Vec::new();
    }
    let rows = report
        .comparisons
        .iter()
        .map(|c| {
            vec![
                Text::plain(format!(
                    "{} vs {}",
                    program_label(&c.program, Some(&c.new)),
                    c.base
                )),
                Text::plain(c.metric.clone()),
                Text(vec![Span::Strong(c.pair.direction.word().to_string())]),
                Text::plain(crate::report::words::effect::words(&c.pair.effect)),
            ]
        })
        .collect();
    table(&["variant", "metric", "answer", "effect (interval)"], rows)
        .into_iter()
        .collect()
}

impl Exporter for SummaryExporter {
    fn export(&self, report: &Report) -> Result<String> {
        Ok(crate::report::document::markdown::render(&build(report)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::model::SensitivityGrounds;
    use crate::report::words::sensitivity::tests::with;

    /// No code-layout variation at all (a data-seed-only store, one code seed) reads as the
    /// glance reads it ("none"); a test that found nothing stays "not detected".
    #[test]
    fn no_code_variation_reads_as_at_a_glance() {
        let mut none = with(SensitivityGrounds::NoCodeVariation { data_seeds: 6 });
        none.verdict = Verdict::NotDetected;
        assert_eq!(sensitivity_words(&none), "none");
        assert_eq!(
            sensitivity_words(&none),
            crate::report::export::glance::sensitivity_cell(&none)
        );
        let mut untested = with(SensitivityGrounds::Unanalysed);
        untested.verdict = Verdict::NotDetected;
        assert_eq!(sensitivity_words(&untested), "not detected");
    }
}
