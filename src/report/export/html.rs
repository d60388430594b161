//! One self-contained HTML file: the text report's tables and sentences plus inline SVG
//! plots. No script, no external style sheet, no font or image fetched: it opens offline
//! and can be attached to an e-mail or a CI artefact as it is.

use std::fmt::Write;

use anyhow::Result;

use super::html_machines::machines_section;
use super::html_parts::{capitalised, table, verdict_class, STYLE};
use super::html_variants::variants_section;
use super::plots::draw;
use super::svg::escape;
use super::tables::{
    as_built_lines, baseline_line, confidence_line, diagnostic_lines, level_rows, mean_line,
    series_title, setup_line, stopping_line, LEVEL_HEADERS, VARIANTS_TITLE,
};
use super::Exporter;
use crate::analysis::report::model::{Report, SeriesReport, Verdict};
use crate::analysis::report::plot_data::SeriesPlots;

/// HTML with inline SVG.
#[derive(Debug, Clone, Copy)]
pub struct HtmlExporter;

/// The table of contents: the variants, each series with its sections, the machines and
/// the warnings, in the order the page shows them.
fn contents(out: &mut String, report: &Report) -> std::fmt::Result {
    writeln!(out, "<nav id=\"contents\"><strong>Contents</strong><ul>")?;
    if !report.comparisons.is_empty() || !report.multiple.is_empty() {
        writeln!(
            out,
            "<li><a href=\"#variants\">{}</a></li>",
            escape(VARIANTS_TITLE)
        )?;
    }
    for (i, s) in report.series.iter().enumerate() {
        write!(
            out,
            "<li><a href=\"#series-{i}\">{}</a>: ",
            escape(&series_title(s))
        )?;
        let links: Vec<String> = SERIES_SECTIONS
            .iter()
            .map(|(id, name)| format!("<a href=\"#{id}-{i}\">{name}</a>"))
            .collect();
        writeln!(out, "{}</li>", links.join(" · "))?;
    }
    if report.explanation.is_some() {
        writeln!(out, "<li><a href=\"#explain\">Explain</a></li>")?;
    }
    if !report.machines.is_empty() {
        writeln!(out, "<li><a href=\"#machines\">Machines</a></li>")?;
    }
    if !report.warnings.is_empty() {
        writeln!(out, "<li><a href=\"#warnings\">Warnings</a></li>")?;
    }
    writeln!(out, "</ul></nav>")
}

/// The sections every series has (its plots only when its data were found), as the
/// contents link them: anchor prefix and name, in page order.
const SERIES_SECTIONS: [(&str, &str); 5] = [
    ("levels", "levels"),
    ("sensitivity", "sensitivity"),
    ("shift", "shift"),
    ("default-layout", "default layout"),
    ("diagnostics", "diagnostics"),
];

impl Exporter for HtmlExporter {
    fn export(&self, report: &Report) -> Result<String> {
        let mut out = String::new();
        writeln!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>layoutrand report — {}</title><style>{STYLE}</style></head><body>",
            escape(&report.directory)
        )?;
        writeln!(
            out,
            "<h1>layoutrand report</h1><p class=\"note\">{}</p>",
            escape(&report.directory)
        )?;
        glance_section(&mut out, report)?;
        contents(&mut out, report)?;
        writeln!(
            out,
            "<section id=\"summary\"><p><strong>{}</strong></p><ul>",
            escape(&confidence_line(report))
        )?;
        for line in &report.across_metrics {
            writeln!(
                out,
                "<li><strong>Across metrics:</strong> {}</li>",
                escape(line)
            )?;
        }
        // The variant answers first: they are what a variants experiment asks.
        for c in &report.comparisons {
            writeln!(
                out,
                "<li><strong>{} {}, {} against {}:</strong> {}</li>",
                escape(&c.program),
                escape(&c.metric),
                escape(&c.new),
                escape(&c.base),
                escape(&capitalised(&c.text))
            )?;
        }
        for s in &report.series {
            writeln!(
                out,
                "<li><strong>{}:</strong> {}</li>",
                escape(&series_title(s)),
                escape(&s.summary)
            )?;
        }
        writeln!(out, "</ul></section>")?;
        writeln!(
            out,
            "<section id=\"setup\"><p><strong>Set-up.</strong> {}</p>{}</section>",
            escape(&setup_line(report)),
            stopping_line(report)
                .map(|l| format!("<p id=\"stopping\">{}</p>", escape(&l)))
                .unwrap_or_default()
        )?;

        variants_section(&mut out, report)?;
        for (i, s) in report.series.iter().enumerate() {
            series_section(&mut out, i, s, report.confidence)?;
        }
        super::sequential::sequential_section(&mut out, report)?;
        if let Some(e) = &report.explanation {
            super::explain_html::section(&mut out, e);
        }
        machines_section(&mut out, &report.machines)?;
        if !report.warnings.is_empty() {
            writeln!(out, "<section id=\"warnings\"><h2>Warnings</h2><ul>")?;
            for w in &report.warnings {
                writeln!(out, "<li>{}</li>", escape(w))?;
            }
            writeln!(out, "</ul></section>")?;
        }
        writeln!(out, "</body></html>")?;
        Ok(out)
    }
}

/// `<section id="glance">`: the glance table (and the variants' rows) and figure that open
/// the report, before its contents and paragraphs.
fn glance_section(out: &mut String, report: &Report) -> std::fmt::Result {
    use super::glance::{
        glance_comparisons, glance_figure, glance_rows, COMPARISON_HEADERS, GLANCE_HEADERS,
        GLANCE_TITLE,
    };
    let rows = glance_rows(report);
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "<section id=\"glance\"><h2>{GLANCE_TITLE}</h2>")?;
    table(out, &GLANCE_HEADERS, &rows)?;
    let comparisons = glance_comparisons(report);
    if !comparisons.is_empty() {
        table(out, &COMPARISON_HEADERS, &comparisons)?;
    }
    if let Some(svg) = glance_figure(report) {
        writeln!(out, "<figure>{svg}</figure>")?;
    }
    writeln!(out, "</section>")
}

/// `<section id="series-I">`: one program and metric's numbers, verdicts, plots and
/// diagnostics.
fn series_section(
    out: &mut String,
    i: usize,
    s: &SeriesReport,
    confidence: f64,
) -> std::fmt::Result {
    writeln!(
        out,
        "<section id=\"series-{i}\" class=\"series\"><h2>{}</h2>",
        escape(&series_title(s))
    )?;
    writeln!(out, "<p>{}</p>", escape(&mean_line(s, confidence)))?;
    if let Some(b) = baseline_line(s, confidence) {
        writeln!(out, "<p>{}</p>", escape(&b))?;
    }
    writeln!(
        out,
        "<h3 id=\"levels-{i}\">Variation by level (Kalibera &amp; Jones eq. 1–2)</h3>"
    )?;
    table(out, &LEVEL_HEADERS, &level_rows(s))?;
    verdict_sections(out, i, s)?;
    as_built_section(out, i, s, confidence)?;
    if let Some(data) = &s.plots {
        plots_section(out, i, data)?;
    }
    writeln!(out, "<h3 id=\"diagnostics-{i}\">Diagnostics</h3><ul>")?;
    for line in diagnostic_lines(s, confidence) {
        writeln!(out, "<li>{}</li>", escape(&line))?;
    }
    writeln!(out, "</ul></section>")?;
    Ok(())
}

/// The series' three verdict boxes: layout sensitivity, layout shift and the default layout.
fn verdict_sections(out: &mut String, i: usize, s: &SeriesReport) -> std::fmt::Result {
    writeln!(
        out,
        "<h3 id=\"sensitivity-{i}\">Layout sensitivity</h3><div class=\"{}\">{}</div>",
        verdict_class(s.sensitivity.verdict),
        escape(&capitalised(&s.sensitivity.text))
    )?;
    writeln!(
        out,
        "<h3 id=\"shift-{i}\">Layout shift (default layout against the mean over random layouts)</h3><div class=\"{}\">{}</div>",
        // A shift from the mean over layouts is true of any single layout when
        // layouts matter: no alarm colour; the default layout's box below has it.
        verdict_class(match s.shift.verdict {
            Verdict::Detected => Verdict::Undetermined,
            v => v,
        }),
        escape(&capitalised(&s.shift.text))
    )?;
    writeln!(
        out,
        "<h3 id=\"default-layout-{i}\">Default layout (unusual among random layouts?)</h3><div class=\"{}\">{}</div>",
        verdict_class(s.default_layout.verdict),
        escape(&capitalised(&s.default_layout.text))
    )?;
    Ok(())
}

/// The series' plots: binaries, variance components, run sequences, and the lag and ACF
/// plots of its dependence check.
fn plots_section(out: &mut String, i: usize, data: &SeriesPlots) -> std::fmt::Result {
    let plots = draw(data);
    writeln!(
        out,
        "<h3 id=\"binaries-{i}\">Binaries</h3><div class=\"plots\">{}</div>",
        plots.binaries
    )?;
    writeln!(
        out,
        "<h3 id=\"variance-{i}\">Variance components</h3><div class=\"plots\">{}</div>",
        plots.variance
    )?;
    writeln!(
        out,
        "<h3 id=\"runseq-{i}\">Run sequences</h3><p class=\"note\">Grey band: discarded warmup; red dashed line: where changepoint detection suggests the warmup should end.</p><div class=\"plots\">{}",
        plots.schedule
    )?;
    for p in &plots.run_sequences {
        out.push_str(p);
    }
    writeln!(out, "</div>")?;
    writeln!(
        out,
        "<h3 id=\"dependence-{i}\">Dependence: lag and ACF plots</h3><p class=\"note\">Of {}, each beside the same values in random order (Kalibera &amp; Jones §6.1): a pattern that the reordered twin lacks means the values depend on their predecessors. Dashed ACF bands: ±1.96/√n.</p><div class=\"plots\" id=\"lags-{i}\">",
        escape(&plots.dependence_subject)
    )?;
    for (real, shuffled) in &plots.lags {
        write!(out, "<div class=\"pair\">{real}{shuffled}</div>")?;
    }
    writeln!(out, "</div><div class=\"plots\" id=\"acf-{i}\">")?;
    if let Some((real, shuffled)) = &plots.acf {
        write!(out, "<div class=\"pair\">{real}{shuffled}</div>")?;
    }
    writeln!(out, "</div>")?;
    Ok(())
}

/// The binary the user's build made, when it was run: its answer in a verdict box (the
/// colour of its place among the random layouts), then its lines as the text report has them.
fn as_built_section(
    out: &mut String,
    i: usize,
    s: &SeriesReport,
    confidence: f64,
) -> std::fmt::Result {
    let Some(a) = &s.as_built else {
        return Ok(());
    };
    writeln!(
        out,
        "<h3 id=\"as-built-{i}\">As built (the binary your build made, among random layouts)</h3><div class=\"{}\">{}</div>",
        verdict_class(a.placement.verdict),
        escape(&a.text)
    )?;
    for line in as_built_lines(s, confidence) {
        writeln!(out, "<p>{}</p>", escape(&line))?;
    }
    Ok(())
}
