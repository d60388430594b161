//! `explain --format html` and the explain section of `report --format html`: the answer
//! first (the culprits' table: finding, confirmation and fix), then one part per finding:
//! its lines and the plots of its members (the binaries' means against the feature). Every number comes from the
//! [`Explanation`]; the sentences are the text rendering's.

use std::fmt::Write;

use super::explain::{signed_percent, verdict_line, SHOWN};
use super::html_parts::{capitalised, table, verdict_class};
use super::svg::escape;
use super::svg_explain::feature_scatter;
use crate::analysis::explain::{Explanation, Suspect};
use crate::analysis::explain_plot::FeaturePlot;
use crate::analysis::explain_variants::VariantExplanations;
use crate::layout::demangle::demangle;
use crate::report::numfmt::{percent, sig};
use crate::report::words::explain::x_label;

/// The explanation as one self-contained HTML page (no script, nothing fetched).
pub fn html(e: &Explanation) -> String {
    page(&e.program, |out| section(out, e))
}

/// A self-contained page of explain about `program`, its body written by `body`.
fn page(program: &str, body: impl FnOnce(&mut String)) -> String {
    let mut out = crate::report::document::html::head(&format!("layoutrand explain — {program}"));
    out.push_str("<h1>layoutrand explain</h1>\n");
    body(&mut out);
    out.push_str("</body></html>\n");
    out
}

/// The headers of the culprits' table.
const HEADERS: [&str; 8] = [
    "#",
    "function",
    "feature",
    "effect (lowest to highest feature value)",
    "share of the between-binary variance",
    "q",
    "confirmation",
    "fix",
];

/// `<section id="explain">`: the verdict, the culprits' table, their findings in words and
/// their plots. Well-formed XML on its own (the tests parse it).
pub(crate) fn section(out: &mut String, e: &Explanation) {
    let s = &e.screening;
    let of_variant = e
        .variant
        .as_ref()
        .map_or(String::new(), |v| format!(" (variant {})", escape(v)));
    let _ = writeln!(
        out,
        "<section id=\"{}\"><h2>Explain{of_variant}: which hot function's placement goes with the layout effect</h2>\n<p class=\"note\">{}, metric {}, {} randomised binaries; {} (function, feature) pairs screened, {} permutations each, Benjamini–Hochberg at a false discovery rate of {}.</p>",
        id_prefix(e),
        escape(&e.program),
        escape(&e.metric),
        s.binaries,
        s.tests,
        s.permutations,
        super::explain::rate(s.fdr)
    );
    for line in crate::report::words::explain::differential_answer(e) {
        let _ = writeln!(out, "<p>{}</p>", escape(&capitalised(&line)));
    }
    let _ = writeln!(
        out,
        "<div class=\"{}\">{}</div>",
        verdict_class(s.verdict),
        escape(&capitalised(verdict_line(e).trim_end()))
    );
    if !s.culprits.is_empty() {
        let rows: Vec<Vec<String>> = s
            .culprits
            .iter()
            .take(SHOWN)
            .enumerate()
            .map(|(i, c)| row(e, i + 1, c))
            .collect();
        let _ = table(out, &HEADERS, &rows);
        findings(out, e);
        if s.culprits.len() > SHOWN {
            let _ = writeln!(
                out,
                "<p class=\"note\">… and {} more culprits (all in explain --format json).</p>",
                s.culprits.len() - SHOWN
            );
        }
    }
    let in_findings = |p: &FeaturePlot| shown_members(e).any(|c| plotted(c, p));
    let rest: Vec<&FeaturePlot> = e.plots.iter().filter(|p| !in_findings(p)).collect();
    plots(out, e, &rest);
    for w in crate::report::words::explain::warnings(e) {
        let _ = writeln!(out, "<p class=\"warning\">{}</p>", escape(&w));
    }
    let _ = writeln!(out, "</section>");
}

/// The start of the ids of `e`'s section: `explain`, or `explain-NAME` for variant NAME
/// (a variant's name is letters, digits and `-_.+`, so the id needs no escaping), so that
/// the sections of several variants on one page keep their ids apart.
fn id_prefix(e: &Explanation) -> String {
    match &e.variant {
        Some(v) => format!("explain-{v}"),
        None => "explain".to_string(),
    }
}

/// The explanations of an experiment's variants as one self-contained HTML page: what the
/// variants' findings share, then each variant's section.
pub fn variants_html(v: &VariantExplanations) -> String {
    page(&v.program, |out| variants_sections(out, v))
}

/// `<section id="explain-variants">` (the variants' findings side by side), then each
/// variant's section ([`section`]).
pub(crate) fn variants_sections(out: &mut String, v: &VariantExplanations) {
    let _ = writeln!(
        out,
        "<section id=\"explain-variants\"><h2>Explain: the variants' findings side by side</h2>"
    );
    for line in super::explain::across_lines(v).lines() {
        let _ = writeln!(out, "<p>{}</p>", escape(line.trim()));
    }
    let _ = writeln!(out, "</section>");
    for e in &v.variants {
        section(out, e);
    }
}

/// One culprit's row of the table.
fn row(e: &Explanation, rank: usize, c: &Suspect) -> Vec<String> {
    let confirmed = match &c.confirmation {
        Some(k) => {
            let ci = match &k.ci {
                Some(ci) => format!("{} to {}", sig(ci.lower, 4), sig(ci.upper, 4)),
                None => "unbounded".to_string(),
            };
            format!(
                "ratio {} ({} CI {ci}), {}: {}",
                sig(k.ratio, 4),
                crate::report::numfmt::level(k.confidence),
                k.verdict.word(),
                if k.confirmed {
                    "confirmed"
                } else if k.verdict == crate::analysis::vocabulary::Verdict::Undetermined {
                    "neither confirmed nor refuted"
                } else {
                    "not confirmed"
                }
            )
        }
        None => "not run".to_string(),
    };
    vec![
        rank.to_string(),
        crate::report::words::explain::function_named(e, &c.function),
        x_label(c.feature, &e.cache),
        signed_percent(c.effect),
        percent(c.share, 2),
        sig(c.q, 2),
        confirmed,
        crate::report::words::explain::fix_said(e, c).unwrap_or_default(),
    ]
}

/// How to read a plot.
const PLOT_NOTE: &str = "One circle per binary (its mean, with the 95 % interval over its executions when it has several); squares: the confirmation's pairs, the seed as built (blue) and its relink with only the function moved (orange), joined by a line.";

/// The members of the findings shown.
fn shown_members(e: &Explanation) -> impl Iterator<Item = &Suspect> {
    let s = &e.screening;
    s.findings
        .iter()
        .take(SHOWN)
        .flat_map(|f| f.members.iter().filter_map(|&i| s.culprits.get(i)))
}

/// Whether `p` is the plot of culprit `c`.
fn plotted(c: &Suspect, p: &FeaturePlot) -> bool {
    c.function == p.function && c.feature == p.feature
}

/// One part per finding shown (`<div class="finding">`): its lines as the text gives them
/// (the leader's association, the pairs it stands for, each confirmation, the fix) and
/// the plots of its members.
fn findings(out: &mut String, e: &Explanation) {
    let s = &e.screening;
    for (i, f) in s.findings.iter().take(SHOWN).enumerate() {
        let Some(leader) = f.members.first().and_then(|&m| s.culprits.get(m)) else {
            continue;
        };
        let _ = writeln!(
            out,
            "<div class=\"finding\" id=\"{}-finding-{}\"><h3>Finding {}: {}, {}</h3>",
            id_prefix(e),
            i + 1,
            i + 1,
            escape(&demangle(&leader.function)),
            escape(&x_label(leader.feature, &e.cache))
        );
        for line in super::explain::finding_lines(e, i + 1, f).lines() {
            let _ = writeln!(out, "<p>{}</p>", escape(line.trim()));
        }
        let members: Vec<&Suspect> = f
            .members
            .iter()
            .filter_map(|&m| s.culprits.get(m))
            .collect();
        let own: Vec<&FeaturePlot> = e
            .plots
            .iter()
            .filter(|p| members.iter().any(|c| plotted(c, p)))
            .collect();
        if !own.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"note\">{PLOT_NOTE}</p><div class=\"plots\">"
            );
            figures(out, e, &own);
            let _ = writeln!(out, "</div>");
        }
        let _ = writeln!(out, "</div>");
    }
}

/// The plots of culprits outside the findings shown.
fn plots(out: &mut String, e: &Explanation, shown: &[&FeaturePlot]) {
    if shown.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h3 id=\"{}-plots\">The binaries' means against each culprit's feature</h3><p class=\"note\">{PLOT_NOTE}</p><div class=\"plots\">",
        id_prefix(e)
    );
    figures(out, e, shown);
    let _ = writeln!(out, "</div>");
}

/// One figure per plot.
fn figures(out: &mut String, e: &Explanation, shown: &[&FeaturePlot]) {
    for p in shown {
        let title = format!(
            "{}: {}",
            demangle(&p.function),
            x_label(p.feature, &e.cache)
        );
        let _ = writeln!(
            out,
            "<figure data-function=\"{}\">{}<figcaption class=\"note\">{} binaries{}</figcaption></figure>",
            escape(&p.function),
            feature_scatter(&title, p),
            p.points.len(),
            if p.pairs.is_empty() {
                String::new()
            } else {
                format!("; {} confirmation pairs", p.pairs.len())
            }
        );
    }
}
