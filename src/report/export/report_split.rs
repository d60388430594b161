//! The report's part on where the variation comes from when the run varied the data layout
//! (issue 35): the split's answer in a box, a line per axis, and on the page its figure
//! ([`super::svg_split`]). Nothing when the series has no split (one data seed).

use super::report_sections::{boxed, list};
use crate::analysis::answers::model::SeriesReport;
use crate::report::document::{Block, Figure, Graphic, Tone};
use crate::report::words::data_sensitivity::TITLE as DATA_TITLE;
use crate::report::words::variance_split::{answer, axis_lines, TITLE};

/// The split's blocks for series `i`.
pub(crate) fn split_blocks(i: usize, s: &SeriesReport) -> Vec<Block> {
    let Some(split) = &s.variance_split else {
        return Vec::new();
    };
    let mut blocks: Vec<Block> = s
        .data_sensitivity
        .iter()
        .map(|d| {
            let text = crate::report::words::data_sensitivity::sentence(d);
            boxed(
                format!("data-sensitivity-{i}"),
                DATA_TITLE,
                &text,
                Tone::Neutral,
            )
        })
        .collect();
    blocks.push(boxed(
        format!("variance-split-{i}"),
        TITLE,
        &answer(split),
        // Where the variation comes from is a description, never an alarm.
        Tone::Neutral,
    ));
    let lines = axis_lines(split);
    if !lines.is_empty() {
        blocks.push(list(true, lines));
    }
    let title = format!(
        "{} {}: shares of the variance between executions",
        s.program, s.metric
    );
    blocks.extend(super::svg_split::split_figure(&title, split).map(|svg| {
        Block::Figure(Figure {
            id: Some(format!("variance-split-figure-{i}")),
            title: None,
            note: Some(
                "Bar: each component's share; dots and whiskers: the share and its interval."
                    .into(),
            ),
            graphics: vec![Graphic::Svg(svg)],
        })
    }));
    blocks
}
