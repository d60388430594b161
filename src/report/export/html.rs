//! One self-contained HTML file: the text report's tables and sentences plus inline SVG
//! plots. No script, no external style sheet, no font or image fetched: it opens offline
//! and can be attached to an e-mail or a CI artefact as it is.

use std::fmt::Write;

use anyhow::Result;

use super::html_machines::machines_section;
use super::html_parts::{capitalised, table, verdict_class};
use super::html_variants::variants_section;
use super::plots::draw;
use super::svg::escape;
use super::tables::{
    as_built_lines, baseline_line, confidence_line, diagnostic_lines, level_rows, mean_line,
    series_title, setup_line, stopping_line, LEVEL_HEADERS, VARIANTS_TITLE,
};
use super::Exporter;
use crate::analysis::report::experiment::Experiment;
use crate::analysis::report::model::{Report, SeriesReport, Verdict};

/// HTML with inline SVG.
#[derive(Debug, Clone, Copy)]
pub struct HtmlExporter;

const STYLE: &str = r#"
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;max-width:1150px;margin:1.5em auto;padding:0 1em;background:#fff}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:2px solid #d5dbe5;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin:1.4em 0 .4em}
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.25em .8em;border-bottom:1px solid #e2e6ee}
td{text-align:right;font-variant-numeric:tabular-nums}td:first-child,th:first-child{text-align:left}
.verdict{padding:.6em .9em;border-left:5px solid #9aa5b4;background:#f5f7fa;margin:.6em 0}
.detected{border-color:#d9822b;background:#fdf4ea}.not_detected{border-color:#3f8f5a;background:#eef7f1}
.plots{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.pair{display:flex;gap:4px;border:1px solid #e2e6ee;padding:4px;border-radius:4px}
svg{background:#fff}svg .ttl{font-size:11px;font-weight:600;fill:#1d2430}
svg .tick{font-size:9px;fill:#5b6676}svg .lbl{font-size:10px;fill:#3a4452}
svg .axis{stroke:#5b6676;fill:none}svg .grid{stroke:#eef0f4}
svg .pt{fill:#2f6db5;stroke:#2f6db5}svg .base{fill:#e07b00;stroke:#e07b00}svg .basetick{fill:#e07b00;font-weight:700}
svg .box{fill-opacity:.12}svg .whisker{fill:none;stroke-width:1}svg .median{stroke:#1d2430;stroke-width:1.5}
svg .baseline-line{stroke:#e07b00;stroke-dasharray:5 3}
svg .line{fill:none;stroke:#2f6db5;stroke-width:1;stroke-opacity:.6}
svg .cp{stroke:#c0392b;stroke-dasharray:4 3}svg .band{fill:#9aa5b4;fill-opacity:.18}
svg .acf{stroke:#2f6db5;stroke-width:3}svg .bar{fill:#2f6db5}
.note{color:#5b6676;font-size:.92em}ul{padding-left:1.3em}
.warning{color:#8a3b00;font-weight:600}
nav#contents{background:#f5f7fa;padding:.5em 1em;border-radius:4px;font-size:.92em}nav#contents ul{margin:.3em 0}
figure{margin:0}figcaption{max-width:520px}
svg .seedline{fill:none;stroke:#9aa5b4;stroke-width:1.2}svg .seedline.lower{stroke:#3f8f5a}svg .seedline.higher{stroke:#c0392b}
svg .vline{fill:none;stroke-width:1.5}svg .legend{font-weight:600;stroke:none}
svg .ci{stroke:#2f6db5;stroke-width:2;fill:none}svg .ci.strong{stroke:#1d2430;stroke-width:3}svg .strong{font-weight:700}
svg .nochange{stroke:#1d2430;stroke-dasharray:3 3}
"#;

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
    fn export(&self, report: &Report, _experiment: &Experiment) -> Result<String> {
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
        contents(&mut out, report)?;
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
    as_built_section(out, i, s, confidence)?;
    if let Some(data) = &s.plots {
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
    }
    writeln!(out, "<h3 id=\"diagnostics-{i}\">Diagnostics</h3><ul>")?;
    for line in diagnostic_lines(s, confidence) {
        writeln!(out, "<li>{}</li>", escape(&line))?;
    }
    writeln!(out, "</ul></section>")?;
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
