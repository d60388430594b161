//! The builder of `layoutrand report`'s document: what the report says and in which order,
//! once for the text, Markdown and HTML backends ([`crate::report::document`]). The
//! sentences and rows are those of [`super::tables`], [`super::glance`] and
//! [`super::sequential`]; the variants, sequential, machines and explain parts are built in
//! [`super::report_sections`].

use super::glance::{
    self, glance_comparisons, glance_figure, glance_table, COMPARISON_HEADERS, GLANCE_TITLE,
};
use super::html_parts::tone;
use super::report_sections::{boxed, explain, list, machines, sequential, topic, variants};
use super::tables::{
    as_built_lines, baseline_line, confidence_line, diagnostic_lines, lead_variant_lines,
    level_rows, mean_line, series_title, setup_line, stopping_line, LEVEL_HEADERS,
    VARIANTS_LEAD_TITLE,
};
use crate::analysis::answers::model::{Report, SeriesReport, Verdict};
use crate::report::document::{
    Block, Document, Figure, Graphic, SectionKind, Span, Table, Text, Tone,
};
use crate::report::numfmt::capitalised;
use crate::report::words::{self, incomplete};

/// The heading of a series' table of levels.
pub(crate) const LEVELS_TITLE: &str = "Variation by level (Kalibera & Jones eq. 1–2)";

/// The report as a document: the glance (the page's contents after it), then the
/// confidence, set-up and answers, a part per series, the variants' intervals, the
/// sequential answers, the explanation, the machines and the warnings.
pub(crate) fn build(report: &Report) -> Document {
    let mut blocks: Vec<Block> = report
        .incomplete
        .map(|i| {
            Block::Paragraphs(vec![Text::plain(incomplete::sentence(
                &i,
                &report.directory,
            ))])
        })
        .into_iter()
        .collect();
    blocks.extend(glance(report));
    blocks.push(Block::Contents);
    blocks.push(summary(report));
    blocks.extend(
        report
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| series_part(i, s, report.confidence)),
    );
    blocks.extend(variants(report));
    blocks.extend(sequential(report));
    blocks.extend(explain(report));
    blocks.extend(machines(report));
    let warnings = crate::report::words::warnings(report);
    if !warnings.is_empty() {
        blocks.push(topic(
            "Warnings",
            Some("warnings".into()),
            vec![list(true, warnings)],
        ));
    }
    let mut title = Text::plain("layoutrand report of ").then(Span::Code(report.directory.clone()));
    if let Some(i) = report.incomplete {
        title = title.then(Span::Plain(format!(" ({})", incomplete::title_note(&i))));
    }
    Document {
        title,
        title_level: 1,
        blocks,
    }
}

/// The glance: the host's warnings (a loaded machine qualifies every time verdict), a row
/// per comparison of variants (the answer such a report is for) and on the page their
/// forest plot, then a row per series, those that answer nothing ([`glance::folded`])
/// folded under one line on the page (in text and Markdown after the others), and on the
/// page the figure of every binary of the unfolded series against the mean over layouts;
/// nothing without a series.
fn glance(report: &Report) -> Option<Block> {
    let (headers, rows) = glance_table(report);
    if rows.is_empty() {
        return None;
    }
    let folded = glance::folded(report);
    let comparisons_folded = glance::comparisons_folded(report, &folded);
    // Rows split by their flags: (shown, folded), each a table when it has a row.
    fn split<R>(rows: Vec<R>, flags: &[bool]) -> (Vec<R>, Vec<R>) {
        let (folded, shown): (Vec<_>, Vec<_>) = rows.into_iter().zip(flags).partition(|(_, f)| **f);
        let rows = |v: Vec<(R, &bool)>| v.into_iter().map(|(r, _)| r).collect();
        (rows(shown), rows(folded))
    }
    let (comparisons, quiet_comparisons) = split(glance_comparisons(report), &comparisons_folded);
    let (shown, quiet) = split(rows, &folded);
    let compared = |rows: &[[String; 3]]| {
        (!rows.is_empty()).then(|| Block::Table(Table::words(&COMPARISON_HEADERS, rows)))
    };
    // A loaded or throttled host first: it qualifies every time verdict below it.
    let host: Vec<Text> = (report.setup.host_conditions.iter())
        .map(|c| Text::labelled("Host", crate::report::words::host_conditions::warning(c)))
        .collect();
    let mut blocks: Vec<Block> = Vec::new();
    if !host.is_empty() {
        blocks.push(Block::Paragraphs(host));
    }
    blocks.extend(compared(&comparisons));
    blocks.extend(glance::comparisons_figure(report, &comparisons_folded).map(figure));
    blocks.extend(glance::split_bar(report, &folded).map(figure));
    blocks.push(Block::Table(Table::words(&headers, &shown)));
    if !quiet.is_empty() {
        let mut inside: Vec<Block> = compared(&quiet_comparisons).into_iter().collect();
        inside.push(Block::Table(Table::words(&headers, &quiet)));
        blocks.push(Block::Group {
            id: Some("glance-folded".into()),
            details: Some(glance::folded_summary(report, &folded, &comparisons_folded)),
            blocks: inside,
        });
    }
    blocks.extend(glance_figure(report).map(figure));
    Some(topic(GLANCE_TITLE, Some("glance".into()), blocks))
}

/// One SVG plot as an untitled figure of the page.
fn figure(svg: String) -> Block {
    Block::Figure(Figure {
        id: None,
        title: None,
        note: None,
        graphics: vec![Graphic::Svg(svg)],
    })
}

/// What the report rests on and what it answers first: the confidence and set-up, the
/// answers across metrics and the variants' answers.
fn summary(report: &Report) -> Block {
    let mut head = vec![
        Text::plain(confidence_line(report)),
        Text::plain(format!("Set-up: {}", setup_line(report))),
    ];
    head.extend(stopping_line(report).map(Text::plain));
    let mut blocks = vec![Block::Paragraphs(head)];
    blocks.extend(suites(report));
    // A suite's cases are answered together in its section, and the process's metrics
    // beside them are no answer across metrics: the line takes the programs without a suite.
    let not_cases: Vec<SeriesReport> = report
        .series
        .iter()
        .filter(|s| !report.suites.iter().any(|suite| suite.program == s.program))
        .cloned()
        .collect();
    let across_metrics = words::answers::across_metrics(&not_cases);
    if !across_metrics.is_empty() {
        blocks.push(Block::Paragraphs(
            across_metrics
                .iter()
                .map(|l| Text::labelled("Across metrics", l.as_str()))
                .collect(),
        ));
    }
    let lead = lead_variant_lines(report);
    if !lead.is_empty() {
        blocks.push(topic(
            VARIANTS_LEAD_TITLE,
            Some("variants-lead".into()),
            vec![list(false, lead)],
        ));
    }
    Block::Group {
        id: Some("summary".into()),
        details: None,
        blocks,
    }
}

/// A suite's line and table, and on the page the table in other orders and a dot per case.
fn suite_blocks(s: &crate::analysis::answers::model::Suite, report: &Report) -> Vec<Block> {
    use words::suite::{case_rows_in, CaseOrder, CASE_HEADERS};
    let mut blocks = vec![
        Block::Paragraphs(vec![Text::plain(words::suite::line(s, report.confidence))]),
        Block::Table(Table::words(
            &CASE_HEADERS,
            &case_rows_in(s, CaseOrder::Ranked),
        )),
    ];
    blocks.extend(
        CaseOrder::OTHERS
            .iter()
            .map(|(order, summary)| Block::PageOnly {
                summary: summary.to_string(),
                blocks: vec![Block::Table(Table::words(
                    &CASE_HEADERS,
                    &case_rows_in(s, *order),
                ))],
            }),
    );
    blocks.extend(glance::suite_figure(s, report.negligible).map(figure));
    blocks
}

/// Each suite's section: its line, its table of cases ranked by the layout's variation, and
/// each variant's suite against the base's.
fn suites(report: &Report) -> Vec<Block> {
    let mut blocks: Vec<Block> = report
        .suites
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let name = crate::analysis::vocabulary::program_label(&s.program, s.variant.as_deref());
            topic(
                &format!("Suite of {name} ({} cases)", s.cases.len()),
                Some(format!("suite-{i}")),
                suite_blocks(s, report),
            )
        })
        .collect();
    let compared: Vec<String> = report
        .suite_comparisons
        .iter()
        .map(|c| words::suite::comparison_line(c, report.confidence))
        .collect();
    if !compared.is_empty() {
        blocks.push(topic(
            "Suites compared",
            Some("suites-compared".into()),
            vec![list(true, compared)],
        ));
    }
    blocks
}

/// The table of levels, and under it, when its execution level and the sentences' noise
/// differ for a reason not in sight (executions set aside, shifts between rounds), what the
/// table counts that the sentences do not ([`words::sensitivity::levels_note`]).
fn levels_blocks(s: &SeriesReport) -> Vec<Block> {
    let mut blocks = vec![Block::Table(Table::numbers(&LEVEL_HEADERS, &level_rows(s)))];
    blocks.extend(
        words::sensitivity::levels_note(&s.sensitivity, execution_t(s))
            .map(|note| Block::Paragraphs(vec![Text::plain(note)])),
    );
    blocks
}

/// How much the table says one execution's mean varies about its binary's, as a share of
/// the mean: √S² of the execution level (eq. 1), the figure the sentence's noise estimates
/// (T² would take the iterations' share out).
fn execution_t(s: &SeriesReport) -> Option<f64> {
    s.levels
        .iter()
        .find(|l| l.name == "execution")
        .map(|l| l.s2.max(0.0).sqrt() / s.mean.abs())
        .filter(|t| t.is_finite())
}

/// One program and metric (the `i`th): its mean, the levels, the three verdicts, the
/// as-built binary, the plots, the diagnostics and the answer in short.
fn series_part(i: usize, s: &SeriesReport, confidence: f64) -> Block {
    let mut means = vec![Text::plain(mean_line(s, confidence))];
    means.extend(baseline_line(s, confidence).map(Text::plain));
    let mut blocks = vec![
        Block::Paragraphs(means),
        topic(LEVELS_TITLE, Some(format!("levels-{i}")), levels_blocks(s)),
        boxed(
            format!("sensitivity-{i}"),
            "Layout sensitivity",
            &words::sensitivity::sentence(&s.sensitivity),
            tone(s.sensitivity.verdict),
        ),
        // A shift from the mean over layouts is true of any single layout when layouts
        // matter: no alarm colour; the default layout's box below has it.
        boxed(
            format!("shift-{i}"),
            "Layout shift",
            &words::shift::words(&s.shift),
            match s.shift.verdict {
                Verdict::Detected => Tone::Neutral,
                v => tone(v),
            },
        ),
        boxed(
            format!("default-layout-{i}"),
            "Default layout among random layouts",
            &words::default_layout::words(&s.default_layout),
            tone(s.default_layout.verdict),
        ),
    ];
    blocks.extend(as_built(i, s, confidence));
    blocks.extend(super::report_split::split_blocks(i, s));
    blocks.extend(s.plots.as_ref().map(|data| plots(i, data)));
    blocks.push(topic(
        "Diagnostics",
        Some(format!("diagnostics-{i}")),
        vec![list(true, diagnostic_lines(s, confidence))],
    ));
    blocks.push(Block::Paragraphs(vec![Text::labelled(
        "In short",
        words::summary::summary(s),
    )]));
    Block::Section {
        title: series_title(s),
        kind: SectionKind::Part,
        id: Some(format!("series-{i}")),
        blocks,
    }
}

/// The binary the user's build made, when it was run: its lines, the one of its place
/// among the random layouts as an answer whose box holds the as-built sentence.
fn as_built(i: usize, s: &SeriesReport, confidence: f64) -> Vec<Block> {
    let Some(a) = &s.as_built else {
        return Vec::new();
    };
    // The placement line ends with the placement's sentence as `as_built_lines` says it.
    let placement = words::default_layout::words(&a.placement);
    let mut blocks = Vec::new();
    let mut lines = Vec::new();
    for line in as_built_lines(s, confidence) {
        if !line.ends_with(&placement) {
            lines.push(Text::plain(line));
            continue;
        }
        if !lines.is_empty() {
            blocks.push(Block::Paragraphs(std::mem::take(&mut lines)));
        }
        blocks.push(Block::Verdict(crate::report::document::Verdict {
            id: Some(format!("as-built-{i}")),
            heading: Some("As built (the binary your build made, among random layouts)".into()),
            line: Text::plain(line),
            boxed: capitalised(&words::as_built::words(a)),
            tone: Some(tone(a.placement.verdict)),
        }));
    }
    if !lines.is_empty() {
        blocks.push(Block::Paragraphs(lines));
    }
    blocks
}

/// The series' plots (the page only): binaries and variance components, then folded the
/// run sequences and the lag and ACF plots of its dependence check.
fn plots(i: usize, data: &crate::analysis::answers::plot_data::SeriesPlots) -> Block {
    let drawn = super::plots::draw(data);
    let figure = |id: String, title: &str, note: Option<String>, graphics| {
        Block::Figure(Figure {
            id: Some(id),
            title: (!title.is_empty()).then(|| title.to_string()),
            note,
            graphics,
        })
    };
    let mut sequences = vec![Graphic::Svg(drawn.schedule)];
    sequences.extend(drawn.run_sequences.into_iter().map(Graphic::Svg));
    let pair = |(a, b)| Graphic::Pair(a, b);
    Block::Group {
        id: None,
        details: None,
        blocks: vec![
            figure(format!("binaries-{i}"), "Binaries", None, vec![Graphic::Svg(drawn.binaries)]),
            figure(
                format!("variance-{i}"),
                "Variance components",
                None,
                vec![Graphic::Svg(drawn.variance)],
            ),
            Block::Group {
                id: None,
                details: Some("Run sequences and dependence (lag and ACF plots)".into()),
                blocks: vec![
                    figure(
                        format!("runseq-{i}"),
                        "Run sequences",
                        Some("Grey band: discarded warmup; red dashed line: where changepoint detection suggests the warmup should end.".into()),
                        sequences,
                    ),
                    figure(
                        format!("lags-{i}"),
                        "Dependence: lag and ACF plots",
                        Some(format!("Of {}, each beside the same values in random order (Kalibera & Jones §6.1): a pattern that the reordered twin lacks means the values depend on their predecessors. Dashed ACF bands: ±1.96/√n.", drawn.dependence_subject)),
                        drawn.lags.into_iter().map(pair).collect(),
                    ),
                    figure(format!("acf-{i}"), "", None, drawn.acf.into_iter().map(pair).collect()),
                ],
            },
        ],
    }
}
