//! `layoutrand compare BASE_DIR NEW_DIR` rendered: the comparison of
//! [`crate::analysis::answers::compare`] as plain text or JSON.

use std::fmt::Write;

use anyhow::Result;

use crate::analysis::answers::compare::{ExperimentComparison, ProgramComparison};
use crate::analysis::compare::CompareOptions;
use crate::analysis::effect::EffectVerdict;
use crate::analysis::pair::Basis;
use crate::analysis::single::BootstrapOptions;
use crate::analysis::vocabulary::{program_label, Thresholds};
use crate::report::checks::{basis_sentence, disagreement};
use crate::report::numfmt::{level, p_value, ratio_bounds, sig, signed_percent, Scale};
use crate::report::title::section_title;
use crate::report::words;

/// What the CI gate judges of `c`: each gated comparison named with its effect ("program
/// \[variant\] metric: effect") and whether it failed, so that the gate says what it judged
/// and what is slower; or, for an incomplete store on either side, why it may not judge.
pub fn gate(c: &ExperimentComparison) -> crate::report::gate::Gate {
    let refused = [("base", &c.base_incomplete), ("new", &c.new_incomplete)]
        .iter()
        .filter_map(|(side, i)| {
            i.as_ref()
                .map(|i| format!("{side}: {}", words::incomplete::gate_refusal(i)))
        })
        .reduce(|a, b| format!("{a}; {b}"));
    crate::report::gate::Gate {
        judged: gate_judgements(c),
        refused,
    }
}

fn gate_judgements(c: &ExperimentComparison) -> Vec<crate::report::gate::GateJudgement> {
    let suites = c.suites.iter().filter(|s| s.gated).map(|s| {
        let label = program_label(&s.program, s.variant.as_deref());
        words::suite::gate_judgement(s, &label, c.confidence)
    });
    c.programs
        .iter()
        .filter(|p| p.comparison.pair.gated)
        .map(|p| {
            crate::report::gate::GateJudgement::of(
                &p.comparison.pair,
                format!(
                    "{} {}: {}",
                    program_label(&p.program, p.variant.as_deref()),
                    p.metric,
                    words::effect::words(&p.comparison.pair.effect)
                ),
                c.confidence,
            )
        })
        .chain(suites)
        .collect()
}

/// `layoutrand compare BASE_DIR NEW_DIR`: the rendered comparison (text, or JSON when
/// `json`) and what the gate judges of it ([`gate`]). `fail_if_slower` is a share (0.02
/// for 2 %).
pub fn run_directories(
    base: &std::path::Path,
    new: &std::path::Path,
    metrics: &[String],
    thresholds: &Thresholds,
    bootstrap: Option<BootstrapOptions>,
    fail_if_slower: Option<f64>,
    json: bool,
) -> Result<(String, crate::report::gate::Gate)> {
    let c = crate::analysis::answers::compare::compare_directories(
        base,
        new,
        metrics,
        &CompareOptions {
            thresholds: *thresholds,
            is_time: true,
            is_rate: false,
            bootstrap,
            fail_if_slower,
        },
    )?;
    let text = if json {
        serde_json::to_string_pretty(&c)? + "\n"
    } else {
        crate::printable::for_terminal(&render_text(&c)).into_owned()
    };
    Ok((text, gate(&c)))
}

/// The checks of one comparison's verdict, indented under it: eq. 5 when the verdict is
/// paired (it shows how much the pairing gained), the matched difference, Welch's test, the
/// bootstrap and Mann–Whitney (the warnings may advise these two), then what a disagreement
/// means.
fn checks(out: &mut String, p: &ProgramComparison, confidence: f64) {
    let c = &p.comparison;
    let mut lines = Vec::new();
    if let (Basis::Paired, Some(ci)) = (c.pair.basis, c.pair.ci) {
        let (lower, upper) = ratio_bounds(ci.lower, ci.upper);
        lines.push(format!(
            "eq. 5 (Fieller, independent sides): new/base {lower} … {upper}"
        ));
    }
    if let (Some(d), Some(rel)) = (&c.paired_difference, p.paired_relative_ci) {
        lines.push(format!(
            "matched by seed ({} pairs): the difference is {} to {} of the base mean ({} CI)",
            d.pairs,
            signed_percent(rel.lower),
            signed_percent(rel.upper),
            level(confidence)
        ));
    }
    if let Some(w) = &c.welch {
        lines.push(format!(
            "Welch's test on the binaries' means: {} ({} df)",
            p_value(w.p_value),
            sig(w.df, 3)
        ));
    }
    if let Some(words) = words::comparison::bootstrap(c) {
        lines.push(format!("bootstrap: {words}"));
    }
    if let Some(words) = words::comparison::mann_whitney(c, "binary") {
        lines.push(format!("Mann–Whitney {words}"));
    }
    lines.extend(disagreement(&c.pair));
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "  checks (they do not decide the verdict):");
    for l in lines {
        let _ = writeln!(out, "    {l}");
    }
}

/// The two sides of one program's comparison: each mean with its interval over its binaries.
fn side_lines(out: &mut String, p: &ProgramComparison, scale: &Scale, confidence: f64) {
    for (label, s, pinned) in [
        ("base: ", &p.comparison.base, p.base_pinned),
        ("new:  ", &p.comparison.new, p.new_pinned),
    ] {
        let note = (s.ci_grounds.as_ref()).map(words::single::interval_note);
        let shown = match (&s.ci, note) {
            (Some(ci), _) => scale.estimate(s.mean, ci.lower, ci.upper, confidence),
            (None, Some(note)) => format!("{} (no interval: {note})", scale.quantity(s.mean)),
            (None, None) => format!("{} (no interval)", scale.quantity(s.mean)),
        };
        let kind = if pinned {
            " (pinned by `build --pin`: the executed functions placed, the rest random)"
        } else {
            ""
        };
        let _ = writeln!(out, "  {label}{shown} over {} binaries{kind}", s.top_units);
    }
}

/// The comparison as plain text.
pub fn render_text(c: &ExperimentComparison) -> String {
    let mut out = String::new();
    for (side, dir, i) in [
        ("base", &c.base, &c.base_incomplete),
        ("new", &c.new, &c.new_incomplete),
    ] {
        if let Some(i) = i {
            let _ = writeln!(out, "{side} {}", words::incomplete::sentence(i, dir));
        }
    }
    let _ = writeln!(
        out,
        "Comparison over random code layouts: base {} against new {}.\nEvery interval is a two-sided {} confidence interval.",
        c.base,
        c.new,
        level(c.confidence)
    );
    for p in &c.programs {
        // Both sides in one unit, the title's, chosen for the base's mean.
        let scale = Scale::for_values(&p.unit, p.comparison.base.mean);
        let _ = writeln!(
            out,
            "\n{}",
            section_title(&p.program, p.variant.as_deref(), &p.metric, &p.unit, &scale)
        );
        side_lines(&mut out, p, &scale, c.confidence);
        let _ = writeln!(out, "  {}", words::comparison::summary(&p.comparison));
        if let Some(cases) = p.suite_cases {
            let _ = writeln!(
                out,
                "  Bonferroni over the suite's {cases} cases: each compared at {}, so that together they hold at {}.",
                crate::report::numfmt::level(p.comparison.confidence),
                crate::report::numfmt::level(c.confidence)
            );
        }
        if p.comparison.pair.effect.verdict != EffectVerdict::Tie {
            let _ = writeln!(out, "  {}.", basis_sentence(&p.comparison.pair, "binary"));
        }
        checks(&mut out, p, c.confidence);
        if let Some(s) = &p.spread {
            let pin_proof = p.new_pinned && !p.base_pinned;
            let mean = p.comparison.new.mean;
            for line in words::spread::lines(s, mean, &scale, c.confidence, pin_proof) {
                let _ = writeln!(out, "  {line}");
            }
        }
        for w in &words::comparison::warnings(&p.comparison) {
            let _ = writeln!(out, "  warning: {w}");
        }
    }
    if !c.suites.is_empty() {
        let _ = writeln!(out, "\nSuites compared:");
    }
    for s in &c.suites {
        let label = program_label(&s.program, s.variant.as_deref());
        let line = words::suite::comparison_line(s, c.confidence);
        let _ = writeln!(out, "  - {label}: {line}");
    }
    for o in &c.overall {
        let text = words::across_programs::overall(o, o.confidence);
        let _ = writeln!(out, "\nAcross programs ({}): {text}", o.metric);
    }
    for u in &words::across_programs::unmatched(c) {
        let _ = writeln!(out, "\nnot compared: {u}");
    }
    let warnings = words::experiment::compared_warnings(c);
    if !warnings.is_empty() {
        let _ = writeln!(out, "\nWarnings:");
        for w in &warnings {
            let _ = writeln!(out, "  - {w}");
        }
    }
    out
}
