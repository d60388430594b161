//! The HTML report's Variants section (experiments built with `build --variant`): per
//! comparison its verdict and the intervals behind it in the text report's words
//! ([`super::tables::comparison_lines`]), then the paired plot, the ratio intervals and the
//! interaction plot ([`super::variant_plots`]) with the interaction test; Tukey's family
//! as a table when there are more than two variants.

use std::fmt::Write;

use super::html_parts::{capitalised, table, verdict_class};
use super::svg::escape;
use super::tables::{
    comparison_lines, interaction_line, tukey_rows, tukey_title, TUKEY_HEADERS, VARIANTS_TITLE,
};
use super::variant_plots::comparison_plots;
use crate::analysis::effect::EffectVerdict;
use crate::analysis::report::model::Report;

/// The box class of a comparison's verdict, as for the single-series verdicts: orange for
/// a relevant change, grey for negligible, green for no relevant change.
fn effect_class(v: EffectVerdict) -> &'static str {
    verdict_class(v.detection())
}

/// `<section id="variants">`, or nothing without comparisons.
pub fn variants_section(out: &mut String, report: &Report) -> std::fmt::Result {
    if report.comparisons.is_empty() && report.multiple.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<section id=\"variants\"><h2>{}</h2>",
        escape(VARIANTS_TITLE)
    )?;
    for (k, c) in report.comparisons.iter().enumerate() {
        writeln!(
            out,
            "<h3 id=\"comparison-{k}\">{} {}: {} against {}</h3><div class=\"{}\">{}</div>",
            escape(&c.program),
            escape(&c.metric),
            escape(&c.new),
            escape(&c.base),
            effect_class(c.pair.effect.verdict),
            escape(&capitalised(&c.text))
        )?;
        // The first line repeats the verdict above; the others give the intervals.
        writeln!(out, "<ul id=\"comparison-lines-{k}\">")?;
        for line in comparison_lines(c, report.confidence).iter().skip(1) {
            writeln!(out, "<li>{}</li>", escape(line.trim()))?;
        }
        writeln!(out, "</ul>")?;
        let plots = comparison_plots(report, c);
        let interaction = interaction_line(c, report.confidence).map_or_else(
            || "Variant × binary interaction: not computable (it needs at least two seeds in common, each with at least two rounds).".to_string(),
            |l| capitalised(&l),
        );
        writeln!(
            out,
            "<div class=\"plots\" id=\"comparison-plots-{k}\">{}{}<figure>{}<figcaption id=\"interaction-{k}\" class=\"note\">{}. The test is on the ratio: a change of the same ratio on every layout draws lines whose gap grows with the layout's mean, not parallel ones.</figcaption></figure></div>",
            plots.paired,
            plots.intervals,
            plots.interaction,
            escape(&interaction)
        )?;
    }
    for (k, m) in report.multiple.iter().enumerate() {
        writeln!(
            out,
            "<div id=\"tukey-{k}\"><h3>{}</h3>",
            escape(&tukey_title(m))
        )?;
        table(out, &TUKEY_HEADERS, &tukey_rows(m, report.confidence))?;
        writeln!(out, "</div>")?;
    }
    writeln!(out, "</section>")
}
