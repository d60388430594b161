//! "What would fix it?" in words: the fix `explain` advises for each culprit, from the
//! screening's grounds ([`crate::analysis::explain::Fix`]) and the culprit's feature, effect
//! and range — alignment for a placement within a line, window or page, an order file for
//! set pressure, none for a function the relinks moved alone without a relevant change.

use crate::analysis::explain::{Explanation, Fix, FixOutcome, HotRule, Problem, Suspect};
use crate::analysis::explain_differential::{Differential, Lead, Leads, Relevance};
use crate::analysis::explain_plot::FeaturePlot;
use crate::analysis::vocabulary::Verdict;
use crate::layout::demangle::demangle;
use crate::layout::features::{Feature, ICache};

super::on_the_wire!(Explanation {
    hot_rule: String = |e: &Explanation| hot_rule(&e.hot_limits, &e.libraries),
    warnings: Vec<String> = warnings,
});
super::on_the_wire!(Suspect {
    suggestion: Option<String> = suggestion
});
super::on_the_wire!(FeaturePlot {
    x_label: String = |p: &FeaturePlot| plot_labels(p).0,
    y_label: String = |p: &FeaturePlot| plot_labels(p).1,
});

/// How the hot functions were chosen, in words: among the program's own functions and
/// those of the build's `libraries` it loads (relinked with it in every seed).
pub(crate) fn hot_rule(rule: &HotRule, libraries: &[String]) -> String {
    let with = match libraries {
        [] => String::new(),
        [one] => format!(" and of {one}, the build's library it loads (relinked with it),"),
        many => format!(
            " and of {}, the build's libraries it loads (relinked with it),",
            many.join(", ")
        ),
    };
    format!(
        "the hottest of the program's own functions{with} by instructions executed in one run \
         of the default layout under cachegrind, until they cover {:.0} % of those \
         instructions, at most {}",
        rule.cover * 100.0,
        rule.most
    )
}

/// A hot function by name, with the build's library it is in ("culprit (libpair.so)"), if
/// it is one's.
pub(crate) fn function_named(e: &Explanation, function: &str) -> String {
    let library = (e.hot.iter())
        .find(|h| h.name == function)
        .and_then(|h| h.library.as_deref());
    match library {
        Some(l) => format!("{} ({l})", demangle(function)),
        None => demangle(function),
    }
}

/// The answer's warnings: reading the experiment's, then explain's own problems (an
/// answer stored by an earlier version: the words it kept).
pub(crate) fn warnings(e: &Explanation) -> Vec<String> {
    let reading = e.reading.iter().map(super::experiment::warning);
    let problems = e.problems.iter().map(problem);
    (reading.chain(problems))
        .chain(e.recorded_warnings.iter().cloned())
        .collect()
}

/// One problem explain met, in words.
fn problem(p: &Problem) -> String {
    use crate::report::numfmt::percent;
    match p {
        Problem::CacheMismatch { asked, simulated } => format!(
            "--icache {},{},{} is not the I1 the run simulated ({},{},{}): the set features \
             describe another cache than the one behind the metric",
            asked.size, asked.assoc, asked.line, simulated.size, simulated.assoc, simulated.line
        ),
        Problem::NoWiderScreen {
            program,
            libraries,
            layout_share,
            hot,
            functions,
            ir_share,
            tests,
        } => {
            let layout_holds = match layout_share {
                Some(share) => format!(
                    "the layout holds {} of the variance (the report's intraclass correlation)",
                    percent(*share, 2)
                ),
                None => "the binaries' means differ".to_string(),
            };
            let (of, its) = match libraries.as_slice() {
                [] => (program.clone(), "its"),
                many => (format!("{program} and {}", many.join(", ")), "their"),
            };
            format!(
                "{layout_holds}, yet no placement feature of the {hot} hot functions goes with \
                 it; not screened wider: the {functions} other functions of {of} that ran \
                 execute {} of {its} instructions, and their {tests} more tests would raise the \
                 bar of every pair; the cause may lie where explain does not look (data \
                 layout, branch predictor aliasing, a combination of placements: \
                 docs/explain.md); `layoutrand pin` fixes every hot function's lines and sets \
                 at once, a combination of them included (build with it and measure: \
                 docs/pin.md)",
                percent(*ir_share, 2)
            )
        }
        Problem::SharedPeriod { period } => format!(
            "the cache's set period ({period} bytes) exceeds a page: the shared libraries' hot \
             code is counted in the sets its addresses within the library give, which its \
             load address may shift"
        ),
        Problem::ExportedOnly { object } => format!(
            "{object}: no symbol table (stripped): its code is placed by its dynamic symbol \
             table, so of its functions only those it exports count in the set pressure"
        ),
        Problem::NoSymbols { object, error } => format!(
            "{object}: no symbol table to place its code by ({error}); its code is not \
             counted in the set pressure"
        ),
    }
}

/// The fix that follows from a culprit, in words (a suggestion read from an answer stored
/// by an earlier version, which kept only the words, as it was); `None` without one.
pub(crate) fn suggestion(s: &Suspect) -> Option<String> {
    match &s.fix {
        Some(fix) => Some(fix_words(s, fix)),
        None => s.recorded_suggestion.clone(),
    }
}

/// A plot's x and y axes in words (a plot stored by an earlier version, which did not keep
/// the cache: the labels it kept).
pub(crate) fn plot_labels(p: &FeaturePlot) -> (String, String) {
    match p.cache {
        Some(cache) => (
            x_label(p.feature, &cache),
            y_label(&p.metric, &p.shown_unit),
        ),
        None => (
            p.recorded_x_label.clone().unwrap_or_default(),
            p.recorded_y_label.clone().unwrap_or_default(),
        ),
    }
}

/// The x axis of a plot of `feature` in words (also how the explain tables name the
/// feature).
pub(crate) fn x_label(feature: Feature, cache: &ICache) -> String {
    match feature {
        Feature::UpperHalfLine => format!(
            "starts in the upper half of a {}-byte line (0 no, 1 yes)",
            cache.line
        ),
        Feature::OffsetMod16 => "start offset mod 16 (bytes)".into(),
        Feature::OffsetMod32 => "start offset mod 32 (bytes)".into(),
        Feature::OffsetModLine => format!("start offset mod {} (bytes)", cache.line),
        Feature::Windows32 => "32-byte windows spanned".into(),
        Feature::Lines => format!("{}-byte lines spanned", cache.line),
        Feature::CrossesPage => "crosses a 4 KiB page (0 no, 1 yes)".into(),
        Feature::OverfullSet => format!(
            "a line in a set of more than {} hot lines (0 no, 1 yes)",
            cache.ways
        ),
    }
}

/// The y axis of the culprits' plots in words: the metric and the unit its means are shown
/// in (none for a count).
fn y_label(metric: &str, shown_unit: &str) -> String {
    if shown_unit.is_empty() {
        format!("{metric}, mean per binary")
    } else {
        format!("{metric} ({shown_unit}), mean per binary")
    }
}

/// The fix of the culprit `s` in words.
fn fix_words(s: &Suspect, fix: &Fix) -> String {
    match fix {
        Fix::Placement {
            aligned,
            fast,
            partners,
            cache,
        } => placement(&FixFacts {
            function: &s.function,
            feature: s.feature,
            effect: s.effect,
            range: s.feature_range,
            aligned: *aligned,
            fast: *fast,
            partners,
            cache,
        }),
        Fix::Unconfirmed { metric, verdict } => unconfirmed(&s.function, metric, *verdict),
    }
}

/// What the screening knows of a culprit that the fix depends on.
#[derive(Debug, Clone)]
struct FixFacts<'a> {
    /// The function (mangled).
    function: &'a str,
    /// Its feature.
    feature: Feature,
    /// The effect from the feature's lowest to its highest value (sign: which end is
    /// higher).
    effect: f64,
    /// The feature's lowest and highest values among the binaries.
    range: (f64, f64),
    /// The feature's value were the function aligned to a cache line.
    aligned: f64,
    /// The feature's value of the binaries with the lowest means, when shared by enough.
    fast: Option<f64>,
    /// For a set-pressure culprit, the hot functions most often sharing its overfull set.
    partners: &'a [String],
    /// The cache.
    cache: &'a ICache,
}

/// The fix that follows from a culprit's feature: alignment for a placement within a line,
/// window or page, an order file for set pressure.
fn placement(f: &FixFacts) -> String {
    let name = demangle(f.function);
    let line = f.cache.line;
    let align = format!(
        "align {name} to {line} bytes (__attribute__((aligned({line}))) on it, or \
         -falign-functions={line} for every function)"
    );
    match f.feature {
        Feature::OverfullSet if !f.partners.is_empty() => {
            let others: Vec<String> = f.partners.iter().map(|p| demangle(p)).collect();
            format!(
                "place {name} and {} apart (an order file: lld/gold --symbol-ordering-file), \
                 so that their lines fall in different sets of the {}-set cache",
                others.join(", "),
                f.cache.sets
            )
        }
        Feature::OverfullSet => format!(
            "place the hot functions next to each other (an order file: lld/gold \
             --symbol-ordering-file), so that {name}'s lines share no set with more hot lines \
             than the cache has ways"
        ),
        Feature::CrossesPage => format!(
            "keep {name} within one page: {align}, or an order file (lld/gold \
             --symbol-ordering-file) placing it with the other hot functions"
        ),
        _ if alignment_is_slow(f) => slow_alignment(f, &name),
        _ => format!("{align}: {}", aligned_outcome(f)),
    }
}

/// Whether aligning the function to a line gives it a placement other than the fast one:
/// another value than the fast binaries' when they share one, else the slow end of the
/// range (issue 49: a fix must never copy the slow binaries).
fn alignment_is_slow(f: &FixFacts) -> bool {
    match f.fast {
        Some(fast) => f.aligned != fast,
        None => {
            let (lo, hi) = f.range;
            (f.aligned <= lo && f.effect < 0.0) || (f.aligned >= hi && f.effect > 0.0)
        }
    }
}

/// The fix when aligning to a line would copy the slow binaries: the placement the fast
/// binaries have, when they share one, and never the alignment.
fn slow_alignment(f: &FixFacts, name: &str) -> String {
    let line = f.cache.line;
    let not_aligned = format!(
        "not an alignment to {line} bytes, which gives it the placement of the binaries with \
         the higher means"
    );
    let offset_in = |modulus: u64, v: f64| {
        format!(
            "start {name} at {v} mod {modulus} bytes, as the binaries with the lowest means do \
             (aligned to {modulus} bytes with {v} bytes in front of it, e.g. an order file \
             putting {v} bytes of other code before it); {not_aligned}"
        )
    };
    match (f.feature, f.fast) {
        (Feature::OffsetModLine, Some(v)) => offset_in(line, v),
        (Feature::OffsetMod16, Some(v)) => offset_in(16, v),
        (Feature::OffsetMod32, Some(v)) => offset_in(32, v),
        (Feature::UpperHalfLine, Some(1.0)) => format!(
            "start {name} in the upper half of a {line}-byte line, as the binaries with the \
             lower means do; {not_aligned}"
        ),
        _ => format!(
            "none that alignment gives: {not_aligned}, and the binaries share no placement \
             of {name} that is fast"
        ),
    }
}

/// Which binaries' placement an alignment to a line gives: the feature takes the value
/// `aligned` in every layout, at the low end, the high end or inside the range seen.
fn aligned_outcome(f: &FixFacts) -> String {
    if f.fast == Some(f.aligned) {
        return "its placement is then that of the binaries with the lowest means in every \
                layout"
            .to_string();
    }
    let (lo, hi) = f.range;
    let side = |higher: bool| if higher { "higher" } else { "lower" };
    let at = if f.aligned <= lo {
        Some(side(f.effect < 0.0))
    } else if f.aligned >= hi {
        Some(side(f.effect > 0.0))
    } else {
        None
    };
    match at {
        Some(which) => format!(
            "its placement is then that of the binaries with the {which} means in every layout"
        ),
        None => "its placement is then the same in every layout, between the binaries' \
                 extremes"
            .to_string(),
    }
}

/// Where a mover's code is, between `open` and `close`: nothing for the program's own,
/// the library's name for one of the build's libraries, else "a shared library's" (one the
/// layout does not move).
fn mover_origin(
    m: &crate::analysis::explain_differential::Mover,
    open: &str,
    close: &str,
) -> String {
    match (&m.library, m.own) {
        (Some(library), _) => format!("{open}{library}{close}"),
        (None, true) => String::new(),
        (None, false) => format!("{open}a shared library's{close}"),
    }
}

/// The fix for a function the confirmation moved alone without a relevant change.
fn unconfirmed(function: &str, metric: &str, verdict: Verdict) -> String {
    if verdict == Verdict::Undetermined {
        return format!(
            "none yet for {}: moving it alone changed {metric} in some seeds and not in \
             others, too unevenly for the relinks to tell (more, `--confirm-seeds`, may)",
            demangle(function)
        );
    }
    if verdict == Verdict::Negligible {
        // The move did change the metric, detectably: the association is the function's
        // own, only too small to be worth a fix (nettle's sm3_compress: +0.60 % I1 misses
        // both in the screening and when moved alone, below the 1 % that counts).
        return format!(
            "none needed for {}: moving it alone changed {metric} detectably but by less \
             than the amount that counts as relevant (--negligible): its placement matters, \
             negligibly",
            demangle(function)
        );
    }
    format!(
        "none for {} itself: moving it alone did not change {metric} by a relevant amount, \
         so its association came with another placement",
        demangle(function)
    )
}

/// A culprit's fix as the answer gives it, with what the relinks showed of it: proven (the
/// seeds given the fast placement landed nearer the fast binaries' level than the slow
/// ones'), not the fix (nearer the slow ones': then it is no fix, and says so), cannot tell
/// yet, or unproven (no relink gave it the placement, or no confirmation ran). `None`
/// without a fix.
pub(crate) fn fix_said(e: &Explanation, c: &Suspect) -> Option<String> {
    let fix = suggestion(c)?;
    let Some(p) = c.confirmation.as_ref().and_then(|k| k.fix_proof.as_ref()) else {
        return Some(if c.confirmation.as_ref().is_some_and(|k| k.confirmed) {
            format!("{fix} (unproven: no relink gave it that placement)")
        } else {
            fix
        });
    };
    let proof = ProofWords {
        e,
        c,
        p,
        // In the unit `report` prints the metric in (`151 ms`, a count as it is).
        scale: crate::report::numfmt::Scale::for_values(&e.unit, p.fast_level),
    };
    let unconfirmed = matches!(c.fix, Some(Fix::Unconfirmed { .. }));
    Some(match p.outcome {
        // No fix to prove: what the seeds at the fast placement measured, as a fact.
        FixOutcome::Holds if unconfirmed => format!(
            "{fix}; the fast binaries' placement of it, measured on {}: {}; {}",
            proof.seeds(),
            proof.measured(),
            proof.against_midpoint()
        ),
        FixOutcome::Holds => format!(
            "{fix} — proven on {}: {}; {}",
            proof.seeds(),
            proof.measured(),
            proof.against_midpoint()
        ),
        FixOutcome::NotTheFix => format!(
            "none proven: {}; {}: that placement alone is not the fix",
            proof.placement(),
            proof.against_midpoint()
        ),
        FixOutcome::CannotTell => format!(
            "cannot tell yet whether it is the fix: {}; {}: more seeds (`--confirm-seeds`) \
             would tell",
            proof.placement(),
            proof.against_midpoint()
        ),
    })
}

/// The parts of a fix's proof in words.
struct ProofWords<'a> {
    e: &'a Explanation,
    c: &'a Suspect,
    p: &'a crate::analysis::explain::FixProof,
    scale: crate::report::numfmt::Scale,
}

impl ProofWords<'_> {
    fn quantity(&self, v: f64) -> String {
        self.scale.quantity_digits(v, 3)
    }

    /// "10 seeds with F at that placement (7 relinked to it by a padding in front of it, 3
    /// with it as built)": the seeds as built at it are measured beside the relinks.
    fn seeds(&self) -> String {
        let p = self.p;
        let relinked = p.pads.iter().filter(|pad| **pad > 0).count();
        let how = match p.pads.len() - relinked {
            0 => "each relinked to it by a padding in front of it".to_string(),
            built => format!(
                "{relinked} relinked to it by a padding in front of it, {built} with it as built"
            ),
        };
        format!(
            "{} seeds with {} at that placement ({how})",
            p.pads.len(),
            demangle(&self.c.function)
        )
    }

    /// "wall 206 ms to 212 ms, where the screened binaries at that placement average 208 ms
    /// and the others 212 ms", with the machine's drift between the run and the
    /// confirmation when the levels were scaled by more than half a percent.
    fn measured(&self) -> String {
        use crate::report::numfmt::sig;
        let p = self.p;
        let low = p.means.iter().copied().fold(f64::INFINITY, f64::min);
        let high = p.means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let range = if low == high {
            self.quantity(low)
        } else {
            format!("{} to {}", self.quantity(low), self.quantity(high))
        };
        let drift = if (p.drift - 1.0).abs() < 0.005 {
            String::new()
        } else {
            format!(
                " (the run's averages times {}: the seeds as built measured {} % {} in the \
                 confirmation than in the run)",
                sig(p.drift, 3),
                sig((p.drift - 1.0).abs() * 100.0, 2),
                if p.drift > 1.0 { "higher" } else { "lower" }
            )
        };
        format!(
            "{} {range}, where the screened binaries at that placement average {} and the \
             others {}{drift}",
            self.e.metric,
            self.quantity(p.fast_level),
            self.quantity(p.slow_level),
        )
    }

    /// "the fast binaries' placement (offset_mod_line = 0) on 10 seeds … gave …".
    fn placement(&self) -> String {
        format!(
            "the fast binaries' placement ({} = {}) on {} gave {}",
            self.c.feature.name(),
            crate::report::numfmt::sig(self.p.value, 3),
            self.seeds(),
            self.measured()
        )
    }

    /// "their mean 209 ms, from 3.1 ms below to 1.5 ms above the midpoint 210 ms of those
    /// averages (95 % CI)": where the seeds' mean lies against the midpoint, with its
    /// interval (or, for values without noise, how many seeds lie at most at it).
    fn against_midpoint(&self) -> String {
        let p = self.p;
        let midpoint = (p.fast_level + p.slow_level) / 2.0;
        let (mean, mid) = (self.quantity(p.seeds_mean()), self.quantity(midpoint));
        match p.margin {
            Some(m) => {
                let (lo, hi) = (self.quantity(m.lower.abs()), self.quantity(m.upper.abs()));
                let span = if m.upper < 0.0 {
                    format!("{hi} to {lo} below")
                } else if m.lower > 0.0 {
                    format!("{lo} to {hi} above")
                } else {
                    format!("from {lo} below to {hi} above")
                };
                format!(
                    "their mean {mean}, {span} the midpoint {mid} of those averages ({} CI)",
                    crate::report::numfmt::level(p.confidence)
                )
            }
            None if p.outcome == FixOutcome::CannotTell => format!(
                "their mean {mean}, against the midpoint {mid} of those averages with too few \
                 binaries on a side for an interval"
            ),
            None => format!(
                "{} of {} seeds at most at the midpoint {mid} of those averages (values without \
                 noise)",
                p.means.iter().filter(|m| **m <= midpoint).count(),
                p.means.len()
            ),
        }
    }
}

/// The differential profile's part of explain's answer in words, one line each: the
/// findings (where the layout's cost lands, and why) when the spread is relevant and a
/// function carries enough of it, else where the variation goes and why nothing is a
/// finding; then a caution when the profile and the run disagree. Empty without a profile.
pub(crate) fn differential_answer(e: &Explanation) -> Vec<String> {
    let Some(d) = &e.differential else {
        return Vec::new();
    };
    let mut lines = match &e.leads {
        Some(l) if l.relevance == Relevance::Relevant && !l.leads.is_empty() => {
            leads_lines(e, d, l)
        }
        Some(l) if d.variance > 0.0 => {
            let mut lines = movers_lines(d, &e.metric);
            lines.push(no_finding(d, l, &e.metric));
            lines
        }
        _ => movers_lines(d, &e.metric),
    };
    if let Some(r) = d.agreement.filter(|r| *r < 0.9) {
        lines.push(format!(
            "caution: the profile's totals agree with the run's means only at r = {} (a deterministic metric gives 1): the profile and the run did not measure the same",
            crate::report::numfmt::sig(r, 2)
        ));
    }
    lines
}

/// Why the movers are no finding: the layout moves the metric by too little, or by an
/// amount the binaries cannot place on either side of the threshold, or by a relevant
/// amount that no function's own count carries enough of to be named (a collective
/// effect: [`leads`](crate::analysis::explain_differential::leads) groups only movers).
fn no_finding(d: &Differential, l: &Leads, metric: &str) -> String {
    use crate::analysis::explain_differential::{MOST, MOVER_SHARE};
    use crate::report::numfmt::{percent, percent_bounds, sig};
    let per_layout = l.per_layout.map_or("an unknown share".to_string(), |s| {
        format!("± {}", percent(s, 2))
    });
    let interval = l.interval.map_or(String::new(), |(low, high)| {
        let (low, high) = percent_bounds(low, high, 2);
        format!(
            ", {} CI {low} to {high}",
            crate::report::numfmt::level(l.confidence)
        )
    });
    let measured = format!(
        "the layout moves {metric} by {per_layout} per layout (the standard deviation of the {} \
         binaries' totals over their mean{interval}; {} to {})",
        d.binaries,
        sig(d.lowest_total, 3),
        sig(d.highest_total, 3)
    );
    let threshold = percent(l.negligible, 2);
    match l.relevance {
        Relevance::CannotTell => format!(
            "no finding, cannot tell: {measured}, an interval on both sides of the {threshold} \
             that counts as relevant (--negligible): more binaries would tell whether it matters"
        ),
        Relevance::Negligible => format!(
            "no finding: {measured}, below the {threshold} that counts as relevant \
             (--negligible): too little to explain"
        ),
        Relevance::Relevant => format!(
            "no single finding: {measured}, at or above the {threshold} that counts as \
             relevant (--negligible): a relevant cost, but no function's own {metric} \
             carries {} or more of the variation between the {} binaries: the cost is spread \
             over many functions{}, a collective effect no one function explains",
            percent(MOVER_SHARE, 2),
            d.binaries,
            d.functions_for_most.map_or(String::new(), |n| format!(
                " ({n} of them together carry {} of it)",
                percent(MOST, 2)
            ))
        ),
    }
}

/// How far the highest total lies above the lowest: "43.7 % above the lowest", "56.0
/// times the lowest" from twice on, "above a lowest of 0".
fn spread_words(d: &Differential) -> String {
    match d.spread() {
        Some(s) if s >= 1.0 => format!(
            "{} times the lowest",
            crate::report::numfmt::sig(s + 1.0, 3)
        ),
        Some(s) => format!("{} above the lowest", crate::report::numfmt::percent(s, 3)),
        None => "above a lowest of 0".to_string(),
    }
}

/// The findings of the differential profile: a heading with the totals' range, then one
/// lettered finding per lead (A, B, …) with what was found of why, and one line for the
/// leads no screen found a cause of.
fn leads_lines(e: &Explanation, d: &Differential, l: &Leads) -> Vec<String> {
    use crate::report::numfmt::{percent, sig};
    let metric = &e.metric;
    let mut lines = vec![format!(
        "findings (each binary profiled once under cachegrind): {metric} ranges from {} to {} \
         over the {} binaries ({}); where that cost lands, the largest share of the variance \
         between the binaries first, and why",
        sig(d.lowest_total, 3),
        sig(d.highest_total, 3),
        d.binaries,
        spread_words(d)
    )];
    let mut unexplained: Vec<(char, bool)> = Vec::new();
    for (i, lead) in l.leads.iter().enumerate() {
        let label = lead_label(i);
        let own: Vec<String> = lead
            .functions
            .iter()
            .filter_map(|f| d.movers.iter().find(|m| &m.function == f))
            .map(|m| {
                format!(
                    "{} {} to {}{}",
                    demangle(&m.function),
                    sig(m.range.0, 3),
                    sig(m.range.1, 3),
                    mover_origin(m, " (", ")")
                )
            })
            .collect();
        let names: Vec<String> = lead.functions.iter().map(|f| demangle(f)).collect();
        lines.push(format!(
            "{label}. {} ({} of the variance; own {metric} over the binaries: {})",
            super::and_list(&names),
            percent(lead.share, 2),
            own.join(", ")
        ));
        let why = why_lines(e, d, lead);
        if why.is_empty() {
            unexplained.push((label, lead.shared_library));
        }
        lines.extend(why);
    }
    if !unexplained.is_empty() {
        lines.push(unexplained_line(e, d, &unexplained));
    }
    if let Some(n) = d.functions_for_most.filter(|n| *n > d.movers.len()) {
        lines.push(format!(
            "a collective effect besides: {n} functions together carry {} of the variance; the \
             findings name the {} that carry {} or more each",
            percent(crate::analysis::explain_differential::MOST, 2),
            d.movers.len(),
            percent(crate::analysis::explain_differential::MOVER_SHARE, 2)
        ));
    }
    lines
}

/// The line for the differential's leads (`unexplained`: each one's label, and whether all
/// its functions are a system library's) that no screen found a cause of.
fn unexplained_line(e: &Explanation, d: &Differential, unexplained: &[(char, bool)]) -> String {
    let metric = &e.metric;
    let labels: Vec<String> = unexplained.iter().map(|(l, _)| l.to_string()).collect();
    // The movers the relinks place: the program's, and its build libraries' when they
    // were screened with it.
    let (own, code) = match e.libraries.as_slice() {
        [] => ("the program's own movers".to_string(), "the program's code"),
        many => (
            format!("the movers of the program and {}", many.join(", ")),
            "the relinked code",
        ),
    };
    let shared = if unexplained.iter().any(|(_, shared)| *shared) {
        format!(
            "; a shared library's function stays where it is, crowded by {code}, and only \
             pairs of {own} are tested"
        )
    } else {
        String::new()
    };
    format!(
        "why {}: not found — no placement of {}, and no sharing of cache sets between two \
         of {own}, went with the {metric} of the {} binaries at a false \
         discovery rate of {}{shared}; more binaries may tell",
        super::and_list(&labels),
        if labels.len() == 1 { "it" } else { "theirs" },
        d.binaries,
        rate(e.screening.fdr)
    )
}

/// A, B, … (at most [`crate::analysis::explain_differential::MAX_MOVERS`] leads, so one
/// letter each).
fn lead_label(i: usize) -> char {
    char::from(b'A' + (i % 26) as u8)
}

/// Why one lead's cost moves: its crowding pairs and its placement findings (empty when no
/// screen found a cause).
fn why_lines(e: &Explanation, d: &Differential, lead: &Lead) -> Vec<String> {
    let metric = &e.metric;
    let mut lines = Vec::new();
    for c in lead.crowding.iter().filter_map(|&i| d.crowding.get(i)) {
        lines.push(format!("   why: {}", crowding_words(c, metric)));
    }
    for &k in &lead.placement {
        let Some(f) = e.screening.findings.get(k) else {
            continue;
        };
        let named: Vec<String> = f
            .members
            .iter()
            .filter_map(|&m| e.screening.culprits.get(m))
            .filter(|c| lead.functions.contains(&c.function))
            .map(|c| format!("{}'s {}", demangle(&c.function), c.feature.name()))
            .collect();
        lines.push(format!(
            "   why: their placement: {} (the placement screen's finding {} below)",
            super::and_list(&named),
            k + 1
        ));
    }
    lines
}

/// The screening's false discovery rate as the text gives it: `5 %` (a whole percentage
/// without decimals), else about two significant digits (`2.5 %`).
pub(crate) fn rate(fdr: f64) -> String {
    let whole = fdr * 100.0;
    if (whole - whole.round()).abs() < 1e-9 {
        format!("{whole:.0} %")
    } else {
        crate::report::numfmt::percent(fdr, 2)
    }
}

/// A detected crowding pair in words: the two functions, the cache sets their lines share
/// against the metric, and its means apart and together.
fn crowding_words(c: &crate::analysis::explain_differential::Crowding, metric: &str) -> String {
    use crate::report::numfmt::{p_value, sig};
    let means = match (c.apart_mean, c.together_mean) {
        (Some(a), Some(t)) => format!(
            "; {metric} averages {} where they share no set and {} where they share some",
            sig(a, 3),
            sig(t, 3)
        ),
        _ => String::new(),
    };
    format!(
        "{} and {} crowd each other out of the cache: the more of the {} cache sets their \
         lines share ({} to {} over the binaries), the higher the {metric} (r = {}, {}, q = \
         {}){means}",
        demangle(&c.first),
        demangle(&c.second),
        c.sets,
        c.shared_sets.0,
        c.shared_sets.1,
        sig(c.r, 2),
        p_value(c.p),
        sig(c.q, 2)
    )
}

/// Where the variation between the binaries went (the movers, largest share first), then
/// the pairs of movers that crowd each other out of the cache.
fn movers_lines(d: &Differential, metric: &str) -> Vec<String> {
    use crate::report::numfmt::{percent, sig};
    let mut lines = Vec::new();
    if d.variance <= 0.0 {
        lines.push(format!(
            "where the variation goes: every one of the {} binaries profiled gave the same {metric}: nothing moved",
            d.binaries
        ));
        return lines;
    }
    if d.movers.is_empty() {
        lines.push(format!(
            "where the variation goes: no function's own {metric} carries {} or more of the variation between the {} binaries: it is spread thin",
            percent(crate::analysis::explain_differential::MOVER_SHARE, 2),
            d.binaries
        ));
    } else {
        let listed: Vec<String> = d
            .movers
            .iter()
            .map(|m| {
                format!(
                    "{} {} ({} to {}{})",
                    demangle(&m.function),
                    percent(m.share, 2),
                    sig(m.in_lowest, 3),
                    sig(m.in_highest, 3),
                    mover_origin(m, ", ", "")
                )
            })
            .collect();
        let spread = match d.functions_for_most {
            Some(n) if n > d.movers.len() => format!(
                "; a collective effect: {} functions together carry {} of it",
                n,
                percent(crate::analysis::explain_differential::MOST, 2)
            ),
            Some(n) => format!(
                "; {n} function(s) carry {} of it",
                percent(crate::analysis::explain_differential::MOST, 2)
            ),
            None => String::new(),
        };
        lines.push(format!(
            "where the variation goes (each binary profiled once under cachegrind; a function's share of the variance of the {} binaries' {metric}, and its own {metric} in the lowest and the highest binary): {}; together {}{spread}",
            d.binaries,
            listed.join(", "),
            percent(d.movers_share, 2)
        ));
    }
    for c in d.crowding.iter().filter(|c| c.detected) {
        lines.push(crowding_words(c, metric));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const CACHE: ICache = ICache {
        line: 64,
        sets: 64,
        ways: 8,
    };

    fn facts<'a>(
        feature: Feature,
        effect: f64,
        aligned: f64,
        partners: &'a [String],
    ) -> FixFacts<'a> {
        FixFacts {
            function: "spin",
            feature,
            effect,
            range: (0.0, 1.0),
            aligned,
            fast: None,
            partners,
            cache: &CACHE,
        }
    }

    #[test]
    fn alignment_says_which_binaries_it_copies() {
        // Upper half costs more (effect > 0): aligned, it starts at 0, the lower means.
        let s = placement(&facts(Feature::UpperHalfLine, 0.5, 0.0, &[]));
        assert!(
            s.starts_with("align spin to 64 bytes (__attribute__((aligned(64)))"),
            "{s}"
        );
        assert!(
            s.ends_with("the binaries with the lower means in every layout"),
            "{s}"
        );
        // Upper half faster: the alignment would copy the slower binaries: not advised.
        let s = placement(&facts(Feature::UpperHalfLine, -0.5, 0.0, &[]));
        assert!(
            s.starts_with("none that alignment gives: not an alignment"),
            "{s}"
        );
        let upper = FixFacts {
            fast: Some(1.0),
            ..facts(Feature::UpperHalfLine, -0.5, 0.0, &[])
        };
        assert!(
            placement(&upper).starts_with("start spin in the upper half of a 64-byte line"),
            "{}",
            placement(&upper)
        );
        // Issue 49's brotli: fast at 48 mod 64; aligned it would start at the slow 0.
        let brotli = FixFacts {
            range: (0.0, 63.0),
            fast: Some(48.0),
            ..facts(Feature::OffsetModLine, -0.4, 0.0, &[])
        };
        let s = placement(&brotli);
        assert!(
            s.starts_with("start spin at 48 mod 64 bytes, as the binaries with the lowest"),
            "{s}"
        );
        assert!(!s.starts_with("align"), "{s}");
        // One space between words: a string continued without its `\` keeps the next
        // line's indentation.
        for said in [&s, &placement(&upper)] {
            assert!(!said.contains("  "), "{said}");
        }
        // The fast binaries start it at 0: the alignment is their placement.
        let at_zero = FixFacts {
            fast: Some(0.0),
            ..brotli
        };
        let s = placement(&at_zero);
        assert!(s.starts_with("align spin to 64 bytes"), "{s}");
        assert!(
            s.ends_with("the binaries with the lowest means in every layout"),
            "{s}"
        );
        let s = placement(&facts(Feature::Lines, 0.1, 0.5, &[]));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn set_pressure_names_the_partners() {
        let partners = vec!["fold".to_string(), "mix".to_string()];
        let s = placement(&facts(Feature::OverfullSet, 0.1, 0.0, &partners));
        assert!(
            s.starts_with("place spin and fold, mix apart (an order file"),
            "{s}"
        );
        let s = placement(&facts(Feature::OverfullSet, 0.1, 0.0, &[]));
        assert!(
            s.starts_with("place the hot functions next to each other"),
            "{s}"
        );
    }

    fn culprit(fix: Fix) -> Suspect {
        Suspect {
            function: "spin".into(),
            feature: Feature::UpperHalfLine,
            ir_share: 0.5,
            effect: 0.5,
            feature_range: (0.0, 1.0),
            r: 0.9,
            share: 0.81,
            p: 0.001,
            q: 0.002,
            verdict: Verdict::Detected,
            confirmation: None,
            fix: Some(fix),
            recorded_suggestion: None,
        }
    }

    /// The axes name the feature with the cache's own line and ways, and the metric with
    /// the unit its means are shown in (none for a count).
    #[test]
    fn the_axes_are_worded_from_the_feature_and_the_shown_unit() {
        assert_eq!(
            x_label(Feature::OffsetModLine, &CACHE),
            "start offset mod 64 (bytes)"
        );
        assert_eq!(
            x_label(Feature::OverfullSet, &CACHE),
            "a line in a set of more than 8 hot lines (0 no, 1 yes)"
        );
        assert_eq!(y_label("wall", "µs"), "wall (µs), mean per binary");
        assert_eq!(y_label("Ir", ""), "Ir, mean per binary");
    }

    /// The fix's grounds choose the words: the placement's from the culprit's own feature,
    /// effect and range; none for a function the relinks moved alone, saying whether the
    /// metric did not move or moved too unevenly to tell.
    #[test]
    fn the_fix_is_worded_from_its_grounds() {
        let words = |fix: Fix| {
            let c = culprit(fix);
            fix_words(&c, c.fix.as_ref().unwrap())
        };
        let placed = words(Fix::Placement {
            aligned: 0.0,
            fast: None,
            partners: Vec::new(),
            cache: CACHE,
        });
        assert_eq!(
            placed,
            placement(&facts(Feature::UpperHalfLine, 0.5, 0.0, &[]))
        );
        let unconfirmed = |verdict| Fix::Unconfirmed {
            metric: "I1_misses".into(),
            verdict,
        };
        let none = words(unconfirmed(Verdict::NotDetected));
        assert!(
            none.starts_with("none for spin itself: moving it alone did not change I1_misses"),
            "{none}"
        );
        let unsure = words(unconfirmed(Verdict::Undetermined));
        assert!(unsure.starts_with("none yet for spin:"), "{unsure}");
        // A change detected but negligible is the function's own, too small to fix: not
        // "another placement".
        let small = words(unconfirmed(Verdict::Negligible));
        assert!(
            small.starts_with("none needed for spin: moving it alone changed I1_misses detectably")
                && !small.contains("another placement"),
            "{small}"
        );
    }

    /// The stored answer keeps the data and no word; read back, it says what the answer it
    /// was written from says. An answer stored by an earlier version, which kept the words
    /// and not the data, says the same words as this version makes.
    #[test]
    fn the_stored_answer_holds_no_words_and_reads_back_the_same() {
        let earlier: Explanation = serde_json::from_str(include_str!(
            "../../../tests/report/fixtures/explained/explain/explanation.json"
        ))
        .unwrap();
        let mut e = earlier.clone();
        e.problems = vec![Problem::SharedPeriod { period: 8192 }];
        e.screening.culprits[0].fix = Some(Fix::Placement {
            aligned: 0.0,
            fast: None,
            partners: Vec::new(),
            cache: CACHE,
        });
        for p in &mut e.plots {
            p.cache = Some(CACHE);
            (p.metric, p.shown_unit) = (e.metric.clone(), e.shown_unit.clone());
            (p.recorded_x_label, p.recorded_y_label) = (None, None);
        }
        let stored = crate::wire::data_only(|| serde_json::to_value(&e)).unwrap();
        let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect();
        let top: Vec<String> = keys(&stored);
        assert!(!top
            .iter()
            .any(|k| ["hot_rule", "warnings"].contains(&k.as_str())));
        assert!(!keys(&stored["culprits"][0]).contains(&"suggestion".to_string()));
        assert!(!keys(&stored["plots"][0]).contains(&"x_label".to_string()));
        let read: Explanation = serde_json::from_value(stored).unwrap();
        let wire = serde_json::to_value(&e).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), wire);
        let said_before = serde_json::to_value(&earlier).unwrap();
        assert_eq!(said_before["hot_rule"], wire["hot_rule"]);
        for (before, now) in said_before["plots"]
            .as_array()
            .unwrap()
            .iter()
            .zip(wire["plots"].as_array().unwrap())
        {
            assert_eq!(
                (&before["x_label"], &before["y_label"]),
                (&now["x_label"], &now["y_label"])
            );
        }
        assert_eq!(
            wire["warnings"],
            serde_json::json!(["the cache's set period (8192 bytes) exceeds a page: the \
                shared libraries' hot code is counted in the sets its addresses within the \
                library give, which its load address may shift"])
        );
        assert_eq!(
            wire["culprits"][0]["suggestion"].as_str(),
            suggestion(&e.screening.culprits[0]).as_deref()
        );
    }

    /// A relevant spread that no function carries 2 % of (every function's own count
    /// moves a little: a collective effect) is no finding, and the answer says it is
    /// relevant, not below the threshold.
    #[test]
    fn a_relevant_spread_without_a_mover_is_a_collective_effect() {
        let mut e: Explanation = serde_json::from_str(include_str!(
            "../../../tests/report/fixtures/differential/zstd-d/explain/explanation.json"
        ))
        .unwrap();
        let d = e.differential.as_mut().unwrap();
        (d.movers, d.movers_share, d.crowding) = (Vec::new(), 0.0, Vec::new());
        d.functions_for_most = Some(143);
        (d.lowest_total, d.highest_total) = (874_160.0, 1_076_122.0);
        let l = e.leads.as_mut().unwrap();
        l.per_layout = Some(0.070);
        l.interval = Some((0.059, 0.093));
        l.relevance = Relevance::Relevant;
        l.leads = Vec::new();
        insta::assert_snapshot!(differential_answer(&e).join("\n"));
    }

    /// The note instead of a wider screen gives the layout's share, the hot functions, the
    /// functions left out with their share, and the tests they would add.
    #[test]
    fn the_note_instead_of_a_wider_screen_gives_its_figures() {
        let note = |layout_share| {
            problem(&Problem::NoWiderScreen {
                program: "placed".into(),
                libraries: Vec::new(),
                layout_share,
                hot: 3,
                functions: 7,
                ir_share: 0.004,
                tests: 56,
            })
        };
        assert_eq!(
            note(Some(0.9)),
            "the layout holds 90.0 % of the variance (the report's intraclass correlation), \
             yet no placement feature of the 3 hot functions goes with it; not screened wider: \
             the 7 other functions of placed that ran execute 0.40 % of its instructions, and \
             their 56 more tests would raise the bar of every pair; the cause may lie where \
             explain does not look (data layout, branch predictor aliasing, a combination of \
             placements: docs/explain.md); `layoutrand pin` fixes every hot function's lines \
             and sets at once, a combination of them included (build with it and measure: \
             docs/pin.md)"
        );
        assert!(note(None).starts_with("the binaries' means differ, yet no placement"));
        // With the build's libraries screened beside the program, both are named.
        let with_library = problem(&Problem::NoWiderScreen {
            program: "nettle-hash".into(),
            libraries: vec!["libnettle.so".into()],
            layout_share: None,
            hot: 1,
            functions: 15,
            ir_share: 0.0031,
            tests: 60,
        });
        assert!(
            with_library.contains(
                "the 15 other functions of nettle-hash and libnettle.so that ran execute 0.31 % \
                 of their instructions"
            ),
            "{with_library}"
        );
    }

    /// A mover is said with where its code is: the build's library by name, a system
    /// library as "a shared library's", the program's own with nothing.
    #[test]
    fn a_mover_names_the_build_library_it_is_in() {
        let mover = |own, library: Option<&str>| crate::analysis::explain_differential::Mover {
            function: "f".into(),
            share: 0.5,
            in_lowest: 1.0,
            in_highest: 2.0,
            range: (1.0, 2.0),
            own,
            library: library.map(String::from),
        };
        assert_eq!(mover_origin(&mover(true, None), " (", ")"), "");
        assert_eq!(
            mover_origin(&mover(true, Some("libjpeg.so.62")), " (", ")"),
            " (libjpeg.so.62)"
        );
        assert_eq!(
            mover_origin(&mover(false, None), ", ", ""),
            ", a shared library's"
        );
    }
}
