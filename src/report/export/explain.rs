//! `layoutrand explain`'s renderings: the text a performance engineer acts on, and JSON.
//! Every number comes from [`crate::analysis::explain::Explanation`]; nothing is computed here but
//! the words.

use crate::analysis::explain::Explanation;
use crate::analysis::explain::{Confirmation, Finding, Suspect};
use crate::analysis::explain_variants::{AcrossVariants, VariantExplanations, VariantStatus};
use crate::analysis::vocabulary::Verdict;
use crate::layout::demangle::demangle;
use crate::layout::features::Feature;
use crate::report::numfmt::{level, p_value, percent, percent_bounds, sig};
pub(super) use crate::report::words::explain::rate;

/// The explanation as pretty JSON (schema [`crate::analysis::explain::EXPLAIN_SCHEMA`]).
pub fn json(e: &Explanation) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(e)? + "\n")
}

/// The explanations of an experiment's variants as pretty JSON (schema
/// [`crate::analysis::explain_variants::VARIANTS_SCHEMA`]).
pub fn variants_json(v: &VariantExplanations) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

/// The explanations of an experiment's variants as text: which variants, each variant's
/// explanation as [`text`] gives it, then their findings side by side.
pub fn variants_text(v: &VariantExplanations) -> String {
    let names: Vec<&str> = v
        .variants
        .iter()
        .filter_map(|e| e.variant.as_deref())
        .collect();
    let mut out = format!(
        "layoutrand explain: {}, metric {}, {} variant(s) ({}), each screened on its own \
         randomised binaries (and relinked by --confirm from its own recorded build)\n",
        v.program,
        v.metric,
        names.len(),
        names.join(", ")
    );
    for e in &v.variants {
        out += &format!("\n== variant {} ==\n", e.variant.as_deref().unwrap_or(""));
        out += &text(e);
    }
    out += "\n";
    out += &across_lines(v);
    out
}

/// The variants' findings side by side: each variant's verdict, then every function that
/// is a finding in some variant with what each variant says of it (those found in
/// several first).
pub(super) fn across_lines(v: &VariantExplanations) -> String {
    let verdicts: Vec<String> = v
        .variants
        .iter()
        .map(|e| {
            let s = &e.screening;
            let found = match s.verdict {
                Verdict::Detected => format!(" ({} finding(s))", s.findings.len()),
                _ => String::new(),
            };
            format!(
                "{}: {}{found}",
                e.variant.as_deref().unwrap_or(""),
                s.verdict.in_words()
            )
        })
        .collect();
    let mut out = format!("across the variants: {}\n", verdicts.join("; "));
    if v.across.is_empty() {
        out += "no function's placement is a finding in any variant\n";
        return out;
    }
    for row in &v.across {
        out += &across_row(row);
    }
    out += "a finding of one variant only: that variant's metric depends on the function's \
            placement and the other's was not seen to, so a comparison of the variants on \
            one layout depends on it through that variant; a finding of several: each \
            variant's metric depends on its placement in its own binaries (seed s places it \
            differently in each variant's build)\n";
    out
}

/// One function across the variants: `f: a finding of a (finding 1: upper_half_line,
/// confirmed) and b (…)` or `f: a finding of a only (…); b: screened, not a culprit`.
fn across_row(row: &AcrossVariants) -> String {
    let found: Vec<(&str, String)> = row
        .found_in()
        .map(|x| {
            let features: Vec<&str> = x.features.iter().map(|f| f.name()).collect();
            let confirmed = match x.confirmed {
                Some(true) => "confirmed",
                Some(false) => "not confirmed by moving it alone",
                None => "no relink moved it",
            };
            let detail = format!(
                "finding {}: {}; {confirmed}",
                x.finding.unwrap_or(0),
                features.join(", ")
            );
            (x.variant.as_str(), detail)
        })
        .collect();
    let others: Vec<String> = row
        .variants
        .iter()
        .filter_map(|x| {
            let seen = match x.status {
                VariantStatus::Finding => return None,
                VariantStatus::Screened => "screened, not a culprit",
                VariantStatus::NotScreened => {
                    "not screened (not among its hot functions, or no unique symbol)"
                }
            };
            Some(format!("{}: {seen}", x.variant))
        })
        .collect();
    let name = demangle(&row.function);
    if let [(variant, detail)] = &found[..] {
        return format!(
            "{name}: a finding of {variant} only ({detail}); {}\n",
            others.join("; ")
        );
    }
    let found: Vec<String> = found
        .iter()
        .map(|(variant, detail)| format!("{variant} ({detail})"))
        .collect();
    match found.len() {
        _ if others.is_empty() => format!("{name}: a finding of {}\n", found.join(" and ")),
        _ => format!(
            "{name}: a finding of {}; {}\n",
            found.join(" and "),
            others.join("; ")
        ),
    }
}

/// The explanation as text: what was screened, the verdict, the culprits, what they
/// mean, and the warnings.
pub fn text(e: &Explanation) -> String {
    let mut out = screening_lines(e);
    for line in crate::report::words::explain::differential_answer(e) {
        out += &line;
        out += "\n";
    }
    out += &verdict_line(e);
    out += &culprits_lines(e);
    out += &reading_lines(e);
    for w in crate::report::words::explain::warnings(e) {
        out += &format!("warning: {w}\n");
    }
    out
}

/// The heading: the program and metric, the hot functions, the layout's share of the
/// variance, and what was screened (and what could not be).
fn screening_lines(e: &Explanation) -> String {
    let s = &e.screening;
    // In the unit `report` prints the metric in (`s`, not the store's `ns`).
    let unit = if e.shown_unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", e.shown_unit)
    };
    let mut out = format!(
        "layoutrand explain: {}, metric {}{unit}, {} randomised binaries\n",
        e.program, e.metric, s.binaries
    );
    let hot: Vec<String> = e
        .hot
        .iter()
        .take(5)
        .map(|h| {
            format!(
                "{} {}",
                crate::report::words::explain::function_named(e, &h.name),
                percent(h.ir_share, 2)
            )
        })
        .collect();
    let more = e.hot.len().saturating_sub(5);
    out += &format!(
        "hot functions: {} ({}{}); rule: {}\n",
        e.hot.len(),
        hot.join(", "),
        if more > 0 {
            format!(", {more} more")
        } else {
            String::new()
        },
        crate::report::words::explain::hot_rule(&e.hot_limits, &e.libraries)
    );
    if e.phases > 0 {
        out += &phases_line(e.phases, &e.libraries);
    } else if !e.shared_hot.is_empty() {
        out += &shared_line(&e.shared_hot);
    }
    if let Some(share) = e.layout_share {
        out += &format!(
            "between binaries (the layout): {} of the variance (the report's intraclass correlation)\n",
            percent(share, 2)
        );
    }
    out += &format!(
        "screened: {} (function, feature) pairs against the binaries' means ({} left out: \
         the feature took one value in every binary), {} permutations each, Benjamini–Hochberg \
         at a false discovery rate of {}\n",
        s.tests,
        s.constant,
        s.permutations,
        rate(s.fdr)
    );
    if !s.unmatched.is_empty() {
        out += &format!(
            "not screened (no unique symbol of that name in every binary): {}\n",
            s.unmatched.join(", ")
        );
    }
    out
}

/// The first [`SHOWN`] findings, then how many more (and on how many functions).
fn culprits_lines(e: &Explanation) -> String {
    let s = &e.screening;
    let mut out = String::new();
    for (i, f) in s.findings.iter().take(SHOWN).enumerate() {
        out += &finding_lines(e, i + 1, f);
    }
    if s.findings.len() > SHOWN {
        let functions: std::collections::BTreeSet<&str> =
            s.culprits.iter().map(|c| c.function.as_str()).collect();
        let shown: usize = s.findings.iter().take(SHOWN).map(|f| f.members.len()).sum();
        let many = if functions.len() > 5 {
            ": many functions at once point to an effect of the layout as a whole (the number \
             of lines the hot code spans, its set pressure) more than of one function"
        } else {
            ""
        };
        out += &format!(
            "… and {} more findings ({} pairs; {} culprit pairs in all, on {} functions; all in \
             --format json){many}\n",
            s.findings.len() - SHOWN,
            s.culprits.len() - shown,
            s.culprits.len(),
            functions.len()
        );
    }
    out
}

/// One finding: its leader's association, the pairs it stands for, each member's
/// confirmation, and the fix of the member confirmed (else the leader's).
pub(super) fn finding_lines(e: &Explanation, rank: usize, f: &Finding) -> String {
    let culprits = &e.screening.culprits;
    let members: Vec<&Suspect> = f.members.iter().filter_map(|&i| culprits.get(i)).collect();
    let Some(leader) = members.first() else {
        return String::new();
    };
    let mut out = format!("{rank}. {}\n", finding(e, leader));
    if members.len() > 1 {
        out += &format!(
            "   stands for {} pairs on {} function(s) that say what the first says (their \
             placements move with its, |r| ≥ {}, or their association with the means is no \
             longer significant at {} once its placement is held fixed), which the screening \
             cannot tell apart: {}\n",
            members.len(),
            f.functions.len(),
            crate::analysis::explain::TOGETHER,
            percent(crate::analysis::explain::EXPLAINED_ALPHA, 2),
            member_list(&members)
        );
    }
    for c in &members {
        if let Some(k) = &c.confirmation {
            out += &format!("   {}\n", confirmation(e, k));
        }
    }
    let fixed = members
        .iter()
        .find(|c| c.confirmation.as_ref().is_some_and(|k| k.confirmed))
        .unwrap_or(leader);
    let confirmed_any = culprits.iter().any(|c| c.confirmation.is_some());
    match crate::report::words::explain::fix_said(e, fixed) {
        Some(fix) => out += &format!("   fix: {fix}\n"),
        None if confirmed_any => {
            out += &format!(
                "   fix: none before a confirmation (an association; --confirm moved only the \
                 {} functions named first)\n",
                culprits.iter().filter(|c| c.confirmation.is_some()).count()
            )
        }
        None => {
            out += "   fix: none before a confirmation (an association: `--confirm` moves each \
                    member alone to tell whether its placement matters)\n"
        }
    }
    out
}

/// "spin (upper_half_line, offset_mod_line), fold (lines)": the members by function, in
/// order.
fn member_list(members: &[&Suspect]) -> String {
    let mut by_function: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in members {
        match by_function.iter_mut().find(|(f, _)| *f == c.function) {
            Some((_, features)) => features.push(c.feature.name()),
            None => by_function.push((&c.function, vec![c.feature.name()])),
        }
    }
    let shown: Vec<String> = by_function
        .iter()
        .take(8)
        .map(|(f, features)| format!("{} ({})", demangle(f), features.join(", ")))
        .collect();
    let more = by_function.len().saturating_sub(8);
    if more > 0 {
        format!("{}, and {more} more functions", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// How to read the culprits: none confirmed, the strongest pair when nothing was
/// discovered, or that unconfirmed culprits are associations.
fn reading_lines(e: &Explanation) -> String {
    let s = &e.screening;
    let mut out = String::new();
    let confirmations: Vec<&Confirmation> = s
        .culprits
        .iter()
        .filter_map(|c| c.confirmation.as_ref())
        .collect();
    if !confirmations.is_empty() && confirmations.iter().all(|k| !k.confirmed) {
        let open = confirmations
            .iter()
            .filter(|k| k.verdict == Verdict::Undetermined)
            .count();
        out += &if open == 0 {
            format!(
                "no suspect confirmed: moving each of the {} strongest alone did not change {} \
                 by a relevant amount\n",
                confirmations.len(),
                e.metric
            )
        } else {
            format!(
                "no suspect confirmed: of the {} strongest moved alone, {open} gave no clear \
                 answer (undetermined) and {} did not change {} by a relevant amount\n",
                confirmations.len(),
                confirmations.len() - open,
                e.metric
            )
        };
    }
    if s.culprits.is_empty() {
        if let Some(c) = s.closest.first() {
            out += &format!("strongest pair, not a discovery: {}\n", finding(e, c));
        }
    } else if s.culprits.iter().all(|c| c.confirmation.is_none()) {
        out += "these are associations in the randomised layouts: a function that moves with \
                the suspect would show the same; `--confirm` relinks with only the suspect \
                moved to tell them apart\n";
    }
    out
}

/// The culprits the text lists (the JSON lists all).
pub(super) const SHOWN: usize = crate::analysis::explain::PLOTTED;

/// The verdict in one line (`verdict: detected — …`), its word as a sentence says it
/// (`not detected`).
pub(super) fn verdict_line(e: &Explanation) -> String {
    let s = &e.screening;
    match s.verdict {
        Verdict::Detected => format!(
            "verdict: {} — {} finding(s) named at a false discovery rate of {} ({} culprit \
             (function, feature) pairs)\n",
            Verdict::Detected.in_words(),
            s.findings.len(),
            rate(s.fdr),
            s.culprits.len()
        ),
        Verdict::NotDetected if !s.means_vary => {
            format!(
                "verdict: {} — the binaries' means do not vary with the layout: nothing to explain\n",
                Verdict::NotDetected.in_words()
            )
        }
        Verdict::Negligible | Verdict::NotDetected if e.report_settled.is_some() => settled_line(e),
        Verdict::NotDetected => format!(
            "verdict: {} — no placement feature of a hot function goes with the means at a \
             false discovery rate of {} ({} binaries; an effect confined to data layout, \
             branch predictor aliasing or cold code is not looked at)\n",
            Verdict::NotDetected.in_words(),
            rate(s.fdr),
            s.binaries
        ),
        _ => match (&s.split, s.binaries_needed) {
            (Some(split), _) if split.binaries_needed > s.binaries => format!(
                "verdict: {} (cannot tell) — the strongest 0/1 pair ({}, {}) splits the \
                 binaries {} to {}; at that split even a perfect association needs at least \
                 {} binaries to be discovered among {} tests; this experiment has {}: build \
                 and run more seeds\n",
                Verdict::Undetermined.in_words(),
                demangle(&split.function),
                split.feature.name(),
                split.smaller_side,
                s.binaries - split.smaller_side,
                split.binaries_needed,
                s.tests,
                s.binaries
            ),
            _ => match s.binaries_needed {
                Some(n) if n > s.binaries => format!(
                "verdict: {} (cannot tell) — with {} tests even a perfect association needs at \
                 least {n} binaries to be discovered; this experiment has {}: build and run \
                 more seeds\n",
                Verdict::Undetermined.in_words(),
                s.tests,
                s.binaries
            ),
                _ => format!(
                    "verdict: {} (cannot tell) — no feature varied across the binaries\n",
                    Verdict::Undetermined.in_words()
                ),
            },
        },
    }
}

/// The verdict the report's layout sensitivity settled ([`Explanation::report_settled`]):
/// nothing worth explaining, with the bound that says so.
fn settled_line(e: &Explanation) -> String {
    let Some(r) = e.report_settled else {
        return String::new();
    };
    match r.verdict {
        Verdict::Negligible => format!(
            "verdict: {} — the binaries' means vary by at most {} from one layout to another \
             (the report's layout sensitivity), within the relevance threshold of {} \
             (--negligible): no placement is worth a fix, and more seeds would not change that\n",
            Verdict::Negligible.in_words(),
            percent(r.bound, 2),
            percent(r.negligible, 2)
        ),
        _ => format!(
            "verdict: {} — the binaries' means do not differ detectably (the report's layout \
             sensitivity: a variation of {} or more would show): nothing to explain\n",
            Verdict::NotDetected.in_words(),
            percent(r.bound, 2)
        ),
    }
}

/// "`f`: binaries where it starts in the upper half of a 64-byte line have 9.8 % higher
/// wall (q = …)".
pub(super) fn finding(e: &Explanation, c: &Suspect) -> String {
    let direction = if c.effect >= 0.0 { "higher" } else { "lower" };
    let (lo, hi) = c.feature_range;
    let what = match c.feature {
        Feature::UpperHalfLine => format!(
            "binaries where it starts in the upper half of a {}-byte line have",
            e.cache.line
        ),
        Feature::CrossesPage => "binaries where it crosses a 4 KiB page boundary have".into(),
        Feature::OverfullSet => format!(
            "binaries where one of its lines falls in an L1i set holding more than {} hot \
             lines have",
            e.cache.ways
        ),
        Feature::OffsetMod16 | Feature::OffsetMod32 | Feature::OffsetModLine => format!(
            "its start offset {} (from {} to {} among the binaries) goes with, from the lowest to \
             the highest on the least-squares line,",
            offset_name(c.feature, e.cache.line),
            whole(lo),
            whole(hi)
        ),
        Feature::Windows32 | Feature::Lines => format!(
            "the number of {} it spans (from {} to {}) goes with, from the fewest to the most on \
             the least-squares line,",
            if c.feature == Feature::Lines {
                format!("{}-byte lines", e.cache.line)
            } else {
                "32-byte windows".to_string()
            },
            whole(lo),
            whole(hi)
        ),
    };
    // Detectable is not relevant: the effect against the threshold, both ways.
    let relevance = e.negligible.map_or_else(String::new, |n| {
        let side = if c.effect.abs() > n { "above" } else { "below" };
        format!("{side} the {} worth finding, --negligible; ", percent(n, 2))
    });
    format!(
        "{}: {what} {} {direction} {} ({relevance}q = {}, {}; explains {} of the variance \
         between the binaries' means; {} of the instructions)",
        crate::report::words::explain::function_named(e, &c.function),
        percent(c.effect.abs(), 2),
        e.metric,
        sig(c.q, 2),
        p_value(c.p),
        percent(c.share, 2),
        percent(c.ir_share, 2)
    )
}

/// A feature value: offsets and counts are whole numbers.
fn whole(x: f64) -> String {
    format!("{x:.0}")
}

fn offset_name(f: Feature, line: u64) -> String {
    match f {
        Feature::OffsetMod16 => "mod 16".into(),
        Feature::OffsetMod32 => "mod 32".into(),
        _ => format!("mod {line}"),
    }
}

/// "confirmed by 10 targeted relinks: 50.0 % higher with the feature (95 % CI …)", at the
/// level the confirmation was computed at.
pub(super) fn confirmation(e: &Explanation, k: &Confirmation) -> String {
    let words = if k.confirmed {
        "confirmed"
    } else if k.verdict == Verdict::Undetermined {
        "neither confirmed nor refuted"
    } else {
        "not confirmed"
    };
    let interval = match &k.ci {
        Some(ci) => {
            let (lo, hi) = percent_bounds(ci.lower - 1.0, ci.upper - 1.0, 2);
            format!("{} CI of the change {lo} to {hi}", level(k.confidence))
        }
        None => "no bounded interval".to_string(),
    };
    let interval = if k.verdict == Verdict::Undetermined && !k.pairs.is_empty() {
        format!("{interval}; {}", pairs_higher(k))
    } else {
        interval
    };
    let interval = match (&k.sign_test, k.verdict) {
        (Some(d), Verdict::Undetermined) => format!(
            "{interval}; {} of {} pairs changed beyond the relevance threshold in the screening's direction, {} against it, {} within it (sign test {}{})",
            d.agree,
            k.pairs.len(),
            d.against,
            d.ties,
            p_value(d.p),
            if k.confirmed { ": the direction is confirmed" } else { "" }
        ),
        _ => interval,
    };
    let moved = if k.moved_with.is_empty() {
        demangle(&k.function)
    } else {
        let with: Vec<String> = k.moved_with.iter().map(|f| demangle(f)).collect();
        format!(
            "{} (with {}, in its section: theirs too)",
            demangle(&k.function),
            with.join(", ")
        )
    };
    let after = if k.code_after_moved > 0 {
        format!(
            "; the code after it by {} bytes, which keeps its placement",
            k.code_after_moved
        )
    } else {
        String::new()
    };
    // "by 16 bytes" when every seed took the same padding, not "by 16 to 16 bytes".
    let (least, most) = (
        k.bytes.iter().min().copied().unwrap_or(0),
        k.bytes.iter().max().copied().unwrap_or(0),
    );
    let bytes = if least == most {
        format!("{least}")
    } else {
        format!("{least} to {most}")
    };
    format!(
        "{words} by {} targeted relinks of {} (moved alone by {bytes} bytes{after}; paired \
         with the seeds as built): with the feature higher, {} changes by {} ({interval}; \
         verdict {}; in {})",
        k.relinks,
        moved,
        e.metric,
        signed_percent(k.ratio - 1.0),
        k.verdict.word(),
        k.dir
    )
}

/// "the side with the feature higher had the higher mean in 8 of 10 pairs, at least twice
/// the other's in 5": what the pairs of an undetermined confirmation show.
fn pairs_higher(k: &Confirmation) -> String {
    let sides = |p: &crate::analysis::explain_plot::ConfirmPair| {
        if p.control.value > p.moved.value {
            (p.control.mean, p.moved.mean)
        } else {
            (p.moved.mean, p.control.mean)
        }
    };
    let higher = k.pairs.iter().filter(|p| sides(p).0 > sides(p).1).count();
    let twice = k
        .pairs
        .iter()
        .filter(|p| {
            let (high, low) = sides(p);
            high > 2.0 * low || low > 2.0 * high
        })
        .count();
    format!(
        "the side with the feature higher had the higher mean in {higher} of {} pairs; one \
         side at least twice the other in {twice}",
        k.pairs.len()
    )
}

pub(super) fn signed_percent(x: f64) -> String {
    let sign = if x > 0.0 { "+" } else { "" };
    format!("{sign}{}", percent(x, 2))
}

/// What the set pressure counts when the profile gave the lines that run together: "set
/// pressure: the lines of instructions executed at least 300 times within one stretch of
/// 500000 basic blocks …".
fn phases_line(phases: usize, libraries: &[String]) -> String {
    let (relinked, others) = match libraries {
        [] => (String::new(), ""),
        many => (format!(" and {}'s", many.join("'s, ")), " other"),
    };
    format!(
        "set pressure: the lines holding an instruction executed at least {} times within one \
         stretch of {} basic blocks of a callgrind run of the default layout ({phases} \
         distinct stretch(es)), counted per stretch; the program's{relinked} follow their \
         functions in each layout, the{others} shared libraries' stay where they are\n",
        crate::layout::features::HOT_IN_PHASE,
        crate::layout::features::PHASE_BLOCKS,
    )
}

/// The shared libraries' hot code the set pressure counts: "set pressure also counts 12 hot
/// functions of 2 shared libraries (at the same place in every layout): __vfprintf_internal
/// (libc.so.6), …".
fn shared_line(shared: &[crate::layout::features::SharedHot]) -> String {
    let objects: std::collections::BTreeSet<&str> =
        shared.iter().map(|f| f.object.as_str()).collect();
    let named: Vec<String> = shared
        .iter()
        .take(5)
        .map(|f| {
            let file = std::path::Path::new(&f.object)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| f.object.clone());
            format!("{} ({file})", demangle(&f.name))
        })
        .collect();
    let more = shared.len().saturating_sub(5);
    format!(
        "set pressure also counts {} hot function(s) of {} shared librar{} (at the same place \
         in every layout): {}{}\n",
        shared.len(),
        objects.len(),
        if objects.len() == 1 { "y" } else { "ies" },
        named.join(", "),
        if more > 0 {
            format!(", {more} more")
        } else {
            String::new()
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored explanation of the report's fixture.
    fn stored() -> Explanation {
        let json =
            include_str!("../../../tests/report/fixtures/explained/explain/explanation.json");
        serde_json::from_str(json).unwrap()
    }

    /// Detectable is not relevant: a finding says its effect against `--negligible`, above
    /// or below (libdeflate 1.14: "0.80 % higher wall" beside a report that found the
    /// layout's effect negligible); an answer stored before the threshold was kept says
    /// neither.
    #[test]
    fn a_finding_says_its_effect_against_the_threshold() {
        let mut e = stored();
        let culprit = e.screening.culprits[0].clone();
        insta::assert_snapshot!("finding_unjudged", finding(&e, &culprit));
        e.negligible = Some(0.01);
        insta::assert_snapshot!("finding_above", finding(&e, &culprit));
        e.negligible = Some(culprit.effect.abs() * 2.0);
        insta::assert_snapshot!("finding_below", finding(&e, &culprit));
    }

    /// The text and the HTML give the rate the screening was held at (`--fdr`), not a
    /// fixed 5 %; an answer stored before the rate was kept reads as the default.
    #[test]
    fn the_false_discovery_rate_said_is_the_one_used() {
        let mut e = stored();
        assert_eq!(e.screening.fdr, 0.05);
        insta::assert_snapshot!(verdict_line(&e));
        e.screening.fdr = 0.1;
        let said = text(&e);
        assert_eq!(
            said.matches("false discovery rate of 10 %").count(),
            2,
            "{said}"
        );
        insta::assert_snapshot!(said);
        // The HTML's note under the heading.
        let mut html = String::new();
        super::super::explain_html::section(&mut html, &e);
        let doc = roxmltree::Document::parse(&html).unwrap_or_else(|err| panic!("{err}: {html}"));
        let note: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("p") && n.attribute("class") == Some("note"))
            .map(|n| {
                n.descendants()
                    .filter(|t| t.is_text())
                    .filter_map(|t| t.text())
                    .collect()
            })
            .collect();
        insta::assert_snapshot!(note.join("\n"));
        assert_eq!(rate(0.025), "2.5 %");
    }

    /// A confirmation of spin's upper-half feature, confirmed (+50 %), one relink per entry
    /// of `bytes`, with no interval and no fix tested.
    fn confirmed_spin(bytes: Vec<u64>) -> Confirmation {
        Confirmation {
            function: "spin".into(),
            feature: Feature::UpperHalfLine,
            relinks: bytes.len(),
            bytes,
            code_after_moved: 4096,
            moved_with: Vec::new(),
            ratio: 1.5,
            ci: None,
            confidence: 0.95,
            verdict: Verdict::Detected,
            confirmed: true,
            sign_test: None,
            dir: "explain/confirm".into(),
            variant: "moved-1".into(),
            pairs: Vec::new(),
            fix_proof: None,
        }
    }

    /// Every seed padded alike: "by 16 bytes", not "by 16 to 16 bytes".
    /// With no culprit, the report's layout sensitivity is the answer: negligible with its
    /// bound, or not detected with what would have shown; nothing to explain, no call for
    /// more seeds.
    #[test]
    fn a_negligible_or_undetected_layout_is_the_verdict_without_a_culprit() {
        use crate::analysis::explain::{settle_by_report, ReportSettled};
        for (verdict, bound) in [
            (Verdict::Negligible, 0.0065),
            (Verdict::NotDetected, 0.0046),
        ] {
            let mut e = stored();
            e.screening.culprits.clear();
            e.screening.findings.clear();
            e.screening.verdict = Verdict::Undetermined;
            e.report_settled = Some(ReportSettled {
                verdict,
                bound,
                negligible: 0.01,
            });
            settle_by_report(&mut e.screening, e.report_settled.as_ref());
            insta::assert_snapshot!(verdict_line(&e));
        }
    }

    #[test]
    fn one_padding_for_every_seed_is_said_once() {
        let e = stored();
        let mut k = confirmed_spin(vec![16, 16, 16]);
        insta::assert_snapshot!(confirmation(&e, &k));
        // The interval is said at the level it was computed at (`--confidence 99%`).
        k.ci = Some(crate::analysis::effect::Interval {
            lower: 1.2,
            upper: 1.8,
        });
        k.confidence = 0.99;
        insta::assert_snapshot!(confirmation(&e, &k));
        k.ci = None;
        k.bytes = vec![16, 48, 32];
        insta::assert_snapshot!(confirmation(&e, &k));
    }

    /// A fix whose placement, given to every relinked seed, did not bring the metric to the
    /// fast level is not printed as a fix, nor one whose seeds cannot tell; one that did says
    /// so with its numbers.
    #[test]
    fn a_fix_is_printed_only_when_it_holds() {
        use crate::analysis::explain::{FixProof, Levels};
        let mut e = stored();
        let i = 0;
        let fix = "align spin to 64 bytes".to_string();
        e.screening.culprits[i].fix = None;
        e.screening.culprits[i].recorded_suggestion = Some(fix.clone());
        let levels = Levels {
            fast: vec![20.0, 20.0],
            slow: vec![30.0, 30.0],
        };
        let k = confirmed_spin(vec![16, 16]);
        // Not the fix (its seeds' mean above the midpoint, interval and all), the fix
        // proven, and seeds on both sides of the midpoint: cannot tell.
        for (name, means) in [
            ("not_the_fix", vec![29.0, 29.5]),
            ("holds", vec![20.0, 20.5]),
            ("cannot_tell", vec![20.0, 29.0]),
        ] {
            let mut proven = k.clone();
            proven.fix_proof = Some(FixProof::of(0.0, vec![0, 16], means, &levels, 1.0, 0.95));
            e.screening.culprits[i].confirmation = Some(proven);
            let said = crate::report::words::explain::fix_said(&e, &e.screening.culprits[i]);
            insta::assert_snapshot!(name, said.unwrap());
        }
    }
}

/// Issue 54: the stored explanation is a file of a received directory, and `report`,
/// `explain --format` and the HTML render what it says. Any one of its values replaced by a
/// hostile one is refused by the reader or rendered; never a panic.
#[cfg(test)]
mod fuzz {
    use super::*;
    use crate::fuzz_support::{mutation, seeded, with_value_mutated};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(seeded(1000))]

        #[test]
        fn a_stored_explanation_with_any_value_replaced_is_refused_or_rendered(
            index in 0usize..100_000,
            change in mutation(),
        ) {
            let valid: serde_json::Value = serde_json::from_str(include_str!(
                "../../../tests/report/fixtures/explained/explain/explanation.json"
            ))
            .unwrap();
            let doc = with_value_mutated(&valid, index, &change);
            let d = tempfile::tempdir().unwrap();
            std::fs::write(
                d.path().join(crate::analysis::explain::STORED),
                serde_json::to_vec(&doc).unwrap(),
            )
            .unwrap();
            if let Ok(Some(e)) = crate::analysis::explain::stored_in(d.path()) {
                let _ = text(&e);
                let _ = json(&e);
                let _ = super::super::explain_html::html(&e);
            }
        }
    }
}
