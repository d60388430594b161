//! "Is this program layout-sensitive?" in words: the verdict of
//! [`crate::analysis::answers::sensitivity`] with the figures it rests on.

use super::OVERFLOW_REASON;
use crate::analysis::answers::host_conditions::STOLEN_SHARE;
use crate::analysis::answers::model::{
    Apart, RestsOn, Sensitivity, SensitivityGrounds, SensitivityOutcome, SensitivityTest,
    SetAsideExecution, SetAsidePadding, TestedGrounds,
};
use crate::analysis::answers::screening::CLEAN_STORES_SET_ASIDE;
use crate::analysis::vocabulary::Thresholds;
use crate::report::numfmt::{fixed, level, p_value, percent, sig, signed_percent, statistic};

/// The brief word of a sensitivity with no code-layout variation at all (under each data
/// seed every binary measured the same: a data-seed-only store, one code seed): "none",
/// in every brief rendering (the glance, `--format summary`), where "not detected" stays
/// for a test that found nothing. `None` for any other sensitivity.
pub(crate) fn no_variation_word(s: &Sensitivity) -> Option<&'static str> {
    (s.verdict == crate::analysis::vocabulary::Verdict::NotDetected
        && matches!(s.grounds, SensitivityGrounds::NoCodeVariation { .. }))
    .then_some("none")
}

super::on_the_wire!(Sensitivity {
    text: String = sentence
});

/// The sentence of `s`, at the thresholds its verdict was reached at.
pub(crate) fn sentence(s: &Sensitivity) -> String {
    let thresholds = &s.thresholds;
    match &s.grounds {
        SensitivityGrounds::Unanalysed => String::new(),
        SensitivityGrounds::TooFewBinaries { with_data } => format!(
            "cannot tell: {with_data} randomised binary with data; at least 2 (better 30) are needed."
        ),
        // Words carry magnitudes: how much the binaries differ, which the layout and the
        // process share (libdeflate 1.14 -O3's I1 misses: 14 % over 10 layouts).
        SensitivityGrounds::SingleObservation => format!(
            "cannot tell: each binary ran once with one live iteration, so there is no within-binary variation to compare the binaries against{}; run at least 2 executions per binary.{}",
            s.cv_across_binaries.map_or_else(String::new, |cv| format!(
                ": their values vary by {} (relative standard deviation), the layout's and the process's variation together, which only a second execution tells apart",
                percent(cv, 2)
            )),
            if s.far_off.is_empty() { String::new() } else { far_off_words(&s.far_off) }
        ),
        SensitivityGrounds::SingleObservationBounded { ci, binaries } => format!(
            "negligible: the {binaries} randomised binaries' values vary by at most {} ({} CI of their relative standard deviation: {} to {}), within the relevance threshold of {}, whatever the layout's own share of that (each binary ran once with one live iteration, so nothing tells the layout from the process; none lies far off the others); a single layout would misstate this metric by less than that.",
            percent(ci.upper, 2),
            level(thresholds.confidence),
            percent(ci.lower, 2),
            percent(ci.upper, 2),
            percent(thresholds.negligible, 2)
        ),
        SensitivityGrounds::NotComputable(e) => format!("cannot tell: {e}."),
        SensitivityGrounds::Overflow => format!(
            "cannot tell: {OVERFLOW_REASON}, so the variances are not computable; rescale the values (e.g. another unit)."
        ),
        SensitivityGrounds::Constant { by_execution } => format!(
            "no layout sensitivity: every {} of every binary gave the same value, so neither the layout nor anything else varied this metric.",
            if *by_execution { "execution" } else { "iteration" }
        ),
        SensitivityGrounds::NoCodeVariation { data_seeds } => format!(
            "no code-layout variation at all: under each of the {data_seeds} data layouts every binary measured the same, so where the code sits did not move this metric (the data layout's effect is answered under \"Where the variation comes from\")."
        ),
        SensitivityGrounds::Tested(t) => {
            let words = Words::of(s, t);
            let text = match (t.outcome, &s.rests_on) {
                (SensitivityOutcome::RestsOnOne, Some(r)) => rests_on_words(r, &words, t.binaries),
                (SensitivityOutcome::OneApart, Some(r)) => {
                    one_apart_words(r, t, &words, thresholds)
                }
                _ => verdict_words(s, t, &words, thresholds),
            };
            // A detection the binary it rests on does not already name: the layouts far off.
            let text = match (t.outcome, s.far_off.is_empty()) {
                (SensitivityOutcome::Detected, false) => format!("{text}{}", far_off_words(&s.far_off)),
                _ => text,
            };
            let suite = match (s.suite_fdr, t.outcome) {
                (Some(f), outcome) if outcome != SensitivityOutcome::ChanceAcrossSuite => {
                    format!(" Across the suite: {}.", suite_fdr_words(&f))
                }
                _ => String::new(),
            };
            format!(
                "{text}{suite}{}{}",
                set_aside_words(&s.set_aside, s.set_aside_cut),
                s.set_aside_padding
                    .map(|p| padding_words(&p, 1.0 - thresholds.confidence))
                    .unwrap_or_default()
            )
        }
    }
}

/// The parts of every tested verdict's sentence.
struct Words {
    within_unit: &'static str,
    f_text: String,
    variation: String,
    caveat: &'static str,
    share: String,
}

impl Words {
    fn of(s: &Sensitivity, t: &TestedGrounds) -> Words {
        Words {
            within_unit: if t.by_execution {
                "executions"
            } else {
                "iterations"
            },
            f_text: f_words(s, t),
            variation: variation_words(
                s.cv_across_binaries,
                s.cv_across_executions,
                s.layout_variation,
                s.test == Some(SensitivityTest::BlockedF),
            ),
            caveat: if t.by_execution {
                ""
            } else {
                " Caution: with one execution per binary, differences between processes are counted as layout effects; run at least 2 executions per binary to separate them."
            },
            share: format!(
                "the layout accounts for an estimated {} of the variance of one {}'s mean (intraclass correlation)",
                percent(s.icc.unwrap_or(f64::NAN).max(0.0), 2),
                if t.by_execution { "execution" } else { "iteration" }
            ),
        }
    }
}

/// The test in words: `F(df1, df2) = f, p = …` (with `∞` when executions of one binary gave
/// identical values while binaries differ), and for the blocked F test what it compares and
/// where its p-value comes from.
fn f_words(s: &Sensitivity, t: &TestedGrounds) -> String {
    let test_p = s.p_value.unwrap_or(f64::NAN);
    if let (Some(SensitivityTest::BlockedF), Some(n)) = (s.test, s.permutations) {
        let f = if t.test_f.is_finite() {
            statistic(t.test_f)
        } else {
            // A deterministic metric: every round repeats the binaries' values exactly.
            "∞ (the binaries' differences repeat exactly in every round: no residual)".to_string()
        };
        let (blocks, block) = if t.data_seeds > 1 {
            ("execution rounds and data seeds", "round and data seed")
        } else {
            ("execution rounds", "round")
        };
        return format!(
            "F test blocked on {blocks}: F({}, {}) = {f} of the binaries against the binary × {block} residual, {} from {} within-round permutations (the F of the table that decided among the low-fitted, the plain and two round-screened ones; the p-value is the four's together, min-p over the same permutations)",
            t.test_df.0,
            t.test_df.1,
            p_value(test_p),
            sig(n as f64, n.to_string().len())
        );
    }
    if t.anova_f.is_finite() {
        format!(
            "F({}, {}) = {}, {}",
            t.anova_df.0,
            t.anova_df.1,
            statistic(t.anova_f),
            p_value(t.anova_p)
        )
    } else {
        format!(
            "executions of one binary gave identical values while binaries differ, F({}, {}) = ∞, {}",
            t.anova_df.0,
            t.anova_df.1,
            p_value(t.anova_p)
        )
    }
}

/// "Cannot tell": the rejection rests on one binary `r` standing apart; names it, how far it
/// sits, and how to re-measure it interleaved with the others.
fn rests_on_words(r: &RestsOn, words: &Words, binaries: usize) -> String {
    format!(
        "cannot tell: the {binaries} randomised binaries differ more than their {} explain ({}), but that rests on one binary, {}, whose mean sits {} from the median of the others ({} robust standard deviations of their means); without it they do not differ ({}). One slow or fast episode of the machine can do that as well as a layout: re-measure it interleaved with the others (`layoutrand run --resume --extend-executions K --out DIR` adds K rounds in which every binary runs once) before trusting a verdict.{}",
        words.within_unit,
        words.f_text,
        r.apart.binary,
        signed_percent(r.apart.deviation),
        distance_words(r.apart.robust_distance),
        p_value(r.p_value_without),
        words.variation
    )
}

/// "Layout-sensitive", resting on one layout `r` that is off alike in every round: names it,
/// how far it sits, and that the others do not differ without it.
fn one_apart_words(
    r: &RestsOn,
    t: &TestedGrounds,
    words: &Words,
    thresholds: &Thresholds,
) -> String {
    format!(
        "layout-sensitive, because of one layout far off: the {} randomised binaries differ more than their {} explain ({}, tested at {}), and that rests on one binary, {}, whose mean sits {} from the median of the others ({} robust standard deviations of their means) and which is off alike in each of the {} rounds, so no episode of the machine explains it; without it the other {} do not differ detectably ({}). A single layout misstates this program by that much when it happens to be such a layout.{}",
        t.binaries,
        words.within_unit,
        words.f_text,
        level(thresholds.confidence),
        r.apart.binary,
        signed_percent(r.apart.deviation),
        distance_words(r.apart.robust_distance),
        t.per_binary,
        t.binaries.saturating_sub(1),
        p_value(r.p_value_without),
        words.variation
    )
}

/// A binary's robust distance from the others, unsigned: "∞" when infinitely far (the
/// others' means all equal).
fn distance_words(distance: Option<f64>) -> String {
    distance.map_or_else(|| "∞".to_string(), |d| statistic(d.abs()))
}

/// " Far off the other layouts: seed-7, 3.0 % above the median of the other binaries' means
/// (…)": the layouts a spread or a ± per layout understates.
fn far_off_words(far: &[Apart]) -> String {
    let named: Vec<String> = far
        .iter()
        .take(3)
        .map(|f| {
            let side = if f.deviation > 0.0 { "above" } else { "below" };
            format!(
                "{}, {} {side} the median of the other binaries' means ({} robust standard \
                 deviations of theirs)",
                f.binary,
                percent(f.deviation.abs(), 2),
                distance_words(f.robust_distance)
            )
        })
        .collect();
    let more = match far.len().saturating_sub(3) {
        0 => String::new(),
        n => format!(", and {n} more"),
    };
    format!(
        " Far off the other layouts: {}{more}; the spread of the binaries' means understates \
         what such a layout misstates.",
        named.join("; ")
    )
}

/// Under the table of levels, when its execution level and the sentences' noise differ for
/// a reason the reader cannot see: the outlier screen set executions aside (the table
/// counts them), or the verdict's test compared executions within rounds, in the table
/// that decided it (the table of levels keeps the shifts between rounds, which a drifting
/// host makes large: lame at -O1 read "t = 8.7 %" in the table beside "2.8 % between
/// executions" in the sentence). The rounds are named only when the two figures, as
/// printed, differ.
pub(crate) fn levels_note(s: &Sensitivity, table_execution_t: Option<f64>) -> Option<String> {
    let set_aside = s.executions_set_aside();
    let rounds = s.test == Some(SensitivityTest::BlockedF)
        && match (table_execution_t, s.cv_across_executions) {
            (Some(t), Some(e)) => percent(t, 2) != percent(e, 2),
            _ => false,
        };
    let outlying = format!("the {set_aside} set aside as outlying under layout sensitivity");
    Some(match (set_aside > 0, rounds) {
        (false, false) => return None,
        (true, false) => format!(
            "The table counts every execution, {outlying} included (`dimension` plans from \
             it); the sentences below rest on the others."
        ),
        (with_outlying, true) => format!(
            "The table counts every execution as it ran, the shifts between rounds{} included \
             (`dimension` plans from it); the sentences below rest on the table that decided \
             the verdict, which compares the executions within rounds{}.",
            if with_outlying {
                format!(" and {outlying}")
            } else {
                String::new()
            },
            if with_outlying {
                " and leaves those out"
            } else {
                ""
            },
        ),
    })
}

/// The executions set aside at `cut` robust standard deviations, as a sentence (empty when
/// none).
fn set_aside_words(set_aside: &[SetAsideExecution], cut: Option<f64>) -> String {
    if set_aside.is_empty() {
        return String::new();
    }
    let listed: Vec<String> = set_aside
        .iter()
        .map(|s| {
            format!(
                "{} execution {} ({})",
                s.binary,
                s.execution,
                signed_percent(s.deviation)
            )
        })
        .collect();
    // Without its cut (not recorded), the sentence states no cut and no rate of it.
    let cut = cut.map_or_else(
        || "far from the binaries' and rounds' robust fit, at a cut not recorded".to_string(),
        |c| {
            format!(
                "{} robust standard deviations or more from the binaries' and rounds' robust fit, a cut at which clean stores of this shape lose an execution in {} of cases",
                statistic(c),
                percent(CLEAN_STORES_SET_ASIDE, 1)
            )
        },
    );
    format!(
        " Set aside as outlying ({cut}; the variation figures rest on the other executions): {}.{}",
        listed.join(", "),
        busy_set_aside_words(set_aside)
    )
}

/// The environment paddings of the executions set aside, as a sentence: where the stack
/// starts named as their likely cause when the paddings bunch at level `alpha`, or, under a
/// deterministic metric, as what alone set them apart from their binaries' other
/// executions; empty otherwise (a time metric's outliers with paddings spread as chance
/// spreads them: nothing to say of the padding).
fn padding_words(p: &SetAsidePadding, alpha: f64) -> String {
    let bunched = p.p_value.is_some_and(|q| q < alpha);
    if !bunched && !p.deterministic {
        return String::new();
    }
    let bytes = |b: u32| fixed(f64::from(b), 0);
    let mut text = String::new();
    if p.deterministic {
        text.push_str(
            " Under a deterministic metric, executions of one binary differ only in their environment padding (where the stack starts) and in what the program itself varies from run to run.",
        );
    }
    let (they, paddings) = match p.p_value {
        None => ("It", format!("a padding of {} bytes", bytes(p.lowest))),
        Some(_) if p.lowest == p.highest => (
            "They",
            format!("a padding of {} bytes each", bytes(p.lowest)),
        ),
        Some(_) => (
            "They",
            format!(
                "paddings from {} to {} bytes",
                bytes(p.lowest),
                bytes(p.highest)
            ),
        ),
    };
    text.push_str(&format!(
        " {they} ran with {paddings}, drawn per execution below {}",
        bytes(p.drawn_below)
    ));
    if let Some(q) = p.p_value {
        let verdict = if bunched {
            "where the stack starts, not the code, likely set them apart"
        } else {
            "too often to rule out chance"
        };
        text.push_str(&format!(
            "; as many of the {} executions drawn at random lie that close in {} of draws ({}): {verdict}",
            fixed(p.executions as f64, 0),
            percent(q, 2),
            p_value(q)
        ));
    }
    text.push_str(
        ". `run --data-seeds K` measures where the stack starts (the data layout) as a level of its own.",
    );
    text
}

/// How many of the set-aside executions the host samples show busy, as a sentence (empty
/// without samples): the machine's noise named as their likely cause, or ruled out as one.
fn busy_set_aside_words(set_aside: &[SetAsideExecution]) -> String {
    let sampled = set_aside.iter().filter(|s| s.busy.is_some()).count();
    if sampled == 0 {
        return String::new();
    }
    let busy = set_aside.iter().filter(|s| s.busy == Some(true)).count();
    let (they, their) = if sampled == 1 {
        ("it", "its")
    } else {
        ("they", "their")
    };
    let cause = if busy == 0 {
        format!(
            ", so no other task or hypervisor was there when {they} started (the program's \
             own variation, or a task that came mid-execution, is what remains)"
        )
    } else if busy == sampled {
        format!(": another task or the hypervisor is {their} likely cause")
    } else {
        ": another task or the hypervisor is the likely cause of those".to_string()
    };
    let with_sample = if sampled == set_aside.len() {
        ""
    } else {
        " with a host sample"
    };
    format!(
        " {busy} of {sampled}{with_sample} started on a busy host (beside other runnable tasks, or with more than {} of the CPU time stolen){cause}.",
        percent(STOLEN_SHARE, 0)
    )
}

/// How much the binaries' means vary against the executions of one binary, and the
/// layout's own share, as a sentence (empty when unknown).
fn variation_words(
    cv_across_binaries: Option<f64>,
    cv_across_executions: Option<f64>,
    layout_variation: Option<f64>,
    within_rounds: bool,
) -> String {
    let component = if within_rounds {
        "the binaries' variance component within rounds"
    } else {
        "T² of the binary level"
    };
    let layout_only = layout_variation
        .map(|v| {
            format!(
                "; the layout's own share ({component}) is {}",
                percent(v, 2)
            )
        })
        .unwrap_or_default();
    match (cv_across_binaries, cv_across_executions) {
        (Some(b), Some(e)) => format!(
            " The binaries' means vary by {} (relative standard deviation, execution noise included) against {} between executions of one binary{} (Kalibera & Jones Fig. 2){layout_only}.",
            percent(b, 2),
            percent(e, 2),
            if within_rounds { " within a round" } else { "" }
        ),
        (Some(b), None) => format!(
            " The binaries' means vary by {} (relative standard deviation).",
            percent(b, 2)
        ),
        _ => String::new(),
    }
}

/// The sentence of a spread bounded within the threshold while the test does not reject
/// ([`SensitivityOutcome::Bounded`]), up to its variation and caveat.
fn bounded(
    binaries: usize,
    ci: crate::analysis::answers::model::Interval,
    f_text: &str,
    thresholds: &Thresholds,
) -> String {
    let confidence = thresholds.confidence;
    format!(
        "negligible: the {binaries} randomised binaries' means vary by at most {} ({} CI of \
         their relative standard deviation: {} to {}), within the relevance threshold of {}, \
         whatever the layout's own share of that (the F-test does not settle it: {f_text}, \
         tested at {}); a single layout would misstate this metric by less than that.",
        percent(ci.upper, 2),
        level(confidence),
        percent(ci.lower, 2),
        percent(ci.upper, 2),
        percent(thresholds.negligible, 2),
        level(confidence)
    )
}

/// By how much a single layout would misstate the metric when the test detects the layout,
/// and whether that is worth finding: the layout's own variation against `--negligible`,
/// and below it, how much the binaries' spread does not rule out (its interval's upper end,
/// execution noise included: a bound on the layout's, never an estimate), unless a layout
/// lies far off the others (its own words follow). libdeflate 1.14
/// by wall time: detected at p = 0.044 with the layout's own variation 0.41 %, the sentence
/// said only that a single layout "would misstate this program's performance". It says "this
/// metric", as the negligible verdict does: a count of D1 write misses is no performance.
fn misstated_by(s: &Sensitivity, thresholds: &Thresholds) -> String {
    let Some(own) = s.layout_variation.filter(|v| v.is_finite()) else {
        return String::new();
    };
    let negligible = thresholds.negligible;
    let by = format!(
        " by about {} (the layout's own variation, a standard deviation relative to the mean)",
        percent(own, 2)
    );
    match s.cv_across_binaries_ci {
        // A lump: the typical layout's variation is no measure of the one far off (named
        // after this sentence, with its distance).
        _ if !s.far_off.is_empty() => format!("{by} for most layouts, and by more for the one far off the others"),
        _ if own > negligible => format!(
            "{by}, above the {} worth finding (--negligible)",
            percent(negligible, 2)
        ),
        Some(ci) if ci.upper > negligible => format!(
            "{by}, below the {} worth finding (--negligible), though the data do not rule out up to {} (the upper end of the {} CI of the binaries' relative standard deviation, execution noise included)",
            percent(negligible, 2),
            percent(ci.upper, 2),
            level(thresholds.confidence)
        ),
        _ => format!("{by}, below the {} worth finding (--negligible)", percent(negligible, 2)),
    }
}

/// The sentence of a test's outcome: negligible, detected, cannot tell (nothing below the
/// threshold was detectable), or not detected.
fn verdict_words(
    s: &Sensitivity,
    t: &TestedGrounds,
    words: &Words,
    thresholds: &Thresholds,
) -> String {
    let Words {
        within_unit,
        f_text,
        variation,
        caveat,
        share,
    } = words;
    let confidence = thresholds.confidence;
    let binaries = t.binaries;
    match t.outcome {
        SensitivityOutcome::Negligible { ci } => format!(
            "detectable but negligible: the {binaries} randomised binaries differ more than their {within_unit} explain ({f_text}, tested at {}), but their means vary by at most {} ({} CI of the relative standard deviation: {} to {}), within the relevance threshold of {}; a single layout would misstate this metric by less than that.{variation}{caveat}",
            level(confidence),
            percent(ci.upper, 2),
            level(confidence),
            percent(ci.lower, 2),
            percent(ci.upper, 2),
            percent(thresholds.negligible, 2)
        ),
        // A rejection resting on one binary is worded by `rests_on_words`; without the
        // binary (never so from the analysis) it reads as a detection.
        SensitivityOutcome::Detected
        | SensitivityOutcome::RestsOnOne
        | SensitivityOutcome::OneApart => format!(
            "layout-sensitive: the {binaries} randomised binaries differ more than their {within_unit} explain ({f_text}, tested at {}); {share}. Results from a single layout would misstate this metric{}.{variation}{caveat}",
            level(confidence),
            misstated_by(s, thresholds)
        ),
        SensitivityOutcome::Underpowered { detectable } => format!(
            "cannot tell (nothing below {} was detectable with these counts): the {binaries} randomised binaries differ no more than their {within_unit} explain ({f_text}, tested at {}), but with {} {within_unit} per binary the F-test finds, with 80 % power, only a layout effect whose standard deviation is at least {} of the mean, above the {} worth finding (--negligible); {share}.{variation}{caveat}",
            percent(detectable, 2),
            level(confidence),
            t.per_binary,
            percent(detectable, 2),
            percent(thresholds.negligible, 2)
        ),
        SensitivityOutcome::LargeButNotRejected {
            estimated,
            detectable,
        } => format!(
            "cannot tell: the {binaries} randomised binaries' layout share is estimated at {} of the mean, at least the {} the F-test finds with 80 % power, yet the test does not reject ({f_text}, tested at {}): {}; {share}.{variation}{caveat}",
            percent(estimated, 2),
            percent(detectable, 2),
            level(confidence),
            unsettled_hint(s.test)
        ),
        SensitivityOutcome::Bounded { ci } => {
            format!("{}{variation}{caveat}", bounded(binaries, ci, f_text, thresholds))
        }
        SensitivityOutcome::OneProcessPerBinary => format!(
            "cannot tell: the {binaries} randomised binaries differ more than their iterations explain ({f_text}, tested at {}), but each binary ran in one process, and on this metric two processes of one binary differ too (their memory pages, the clock, the machine's load); run at least 2 executions per binary to tell the layout from the process.{variation}",
            level(confidence)
        ),
        SensitivityOutcome::ChanceAcrossSuite => format!(
            "cannot tell: on its own the {binaries} randomised binaries differ more than their {within_unit} explain ({f_text}, tested at {}), but not across the suite ({}); {share}.{variation}{caveat}",
            level(confidence),
            s.suite_fdr.map_or_else(String::new, |f| suite_fdr_words(&f))
        ),
        SensitivityOutcome::NotDetected => format!(
            "no layout sensitivity detected: the {binaries} randomised binaries differ no more than their {within_unit} explain ({f_text}, tested at {}), and the F-test would have found, with 80 % power, a layout effect of {} (standard deviation relative to the mean), within the {} worth finding (--negligible); {share}.{variation}{caveat}",
            level(confidence),
            s.detectable_variation.map_or("an unknown size".into(), |d| percent(d, 2)),
            percent(thresholds.negligible, 2)
        ),
    }
}

/// A suite case's q-value in words: "q = 0.21 among the suite's 24 cases (Benjamini–Hochberg,
/// false discovery rate 5.0 %)".
pub(crate) fn suite_fdr_words(f: &crate::analysis::answers::model::SuiteFdr) -> String {
    format!(
        "{} among the suite's {} tested cases (Benjamini–Hochberg, false discovery rate {})",
        crate::report::numfmt::q_value(f.q_value),
        f.cases,
        percent(f.rate, 2)
    )
}

/// Why a test may not reject a variation as large as it finds, and what settles it: on a
/// rounds schedule the randomisation test weighs how the round's values could have fallen
/// (load bursts meeting one binary by chance), which more rounds tell apart.
pub(crate) fn unsettled_hint(test: Option<SensitivityTest>) -> &'static str {
    match test {
        Some(SensitivityTest::BlockedF) => "the rounds' values placed at random often look so (load bursts meeting one binary), and more rounds tell the two apart (`layoutrand run --resume --extend-executions K`)",
        _ => "a few far-off executions can look so, and more executions per binary tell the two apart",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::answers::model::{Interval, Verdict};

    /// A sensitivity with only `grounds` and the figures every tested sentence quotes.
    pub(crate) fn with(grounds: SensitivityGrounds) -> Sensitivity {
        Sensitivity {
            verdict: Verdict::Undetermined,
            f: None,
            df: None,
            p_value: Some(0.00001),
            suite_fdr: None,
            icc: Some(0.9),
            variance_components: None,
            cv_across_binaries: None,
            cv_across_binaries_ci: None,
            cv_across_executions: None,
            layout_variation: None,
            detectable_variation: None,
            test: Some(SensitivityTest::OneWayF),
            permutations: None,
            deciding_table: None,
            cells_replaced: None,
            set_aside: Vec::new(),
            set_aside_cut: None,
            set_aside_padding: None,
            rests_on: None,
            far_off: Vec::new(),
            grounds,
            thresholds: Thresholds::default(),
        }
    }

    fn tested(outcome: SensitivityOutcome, by_execution: bool, anova_f: f64) -> TestedGrounds {
        TestedGrounds {
            outcome,
            by_execution,
            binaries: 20,
            per_binary: 3,
            anova_f,
            anova_df: (19, 40),
            anova_p: 0.00001,
            test_f: anova_f,
            test_df: (19, 40),
            data_seeds: 1,
        }
    }

    #[test]
    fn untested_grounds_are_worded_with_their_numbers() {
        let sentence_of = |g| sentence(&with(g));
        assert_eq!(sentence_of(SensitivityGrounds::Unanalysed), "");
        assert_eq!(
            sentence_of(SensitivityGrounds::TooFewBinaries { with_data: 1 }),
            "cannot tell: 1 randomised binary with data; at least 2 (better 30) are needed."
        );
        assert_eq!(
            sentence_of(SensitivityGrounds::Constant { by_execution: false }),
            "no layout sensitivity: every iteration of every binary gave the same value, so neither the layout nor anything else varied this metric."
        );
        insta::assert_snapshot!(sentence_of(SensitivityGrounds::Overflow));
    }

    #[test]
    fn a_detection_names_the_test_and_its_level() {
        let g = SensitivityGrounds::Tested(tested(SensitivityOutcome::Detected, true, 9.234));
        insta::assert_snapshot!(sentence(&with(g)));
    }

    /// Detectable is not relevant: say both. A layout detected (libdeflate 1.14 by wall time,
    /// p = 0.044) whose own variation, 0.41 %, is below the 1.0 % worth finding while the
    /// binaries' spread does not rule out 1.1 %; and one whose 2.6 % is above it.
    #[test]
    fn a_detection_says_by_how_much_and_whether_that_is_worth_finding() {
        let g = || SensitivityGrounds::Tested(tested(SensitivityOutcome::Detected, true, 2.16));
        let below = Sensitivity {
            layout_variation: Some(0.0041),
            cv_across_binaries_ci: Some(Interval {
                lower: 0.0045,
                upper: 0.0107,
            }),
            ..with(g())
        };
        // Pinned whole: "by about 0.41 % …, below the 1.0 % worth finding (--negligible),
        // though the data do not rule out up to 1.1 %"; then "by about 2.6 %, above".
        insta::assert_snapshot!("detected_below_the_threshold", sentence(&below));
        let above = Sensitivity {
            layout_variation: Some(0.026),
            ..below
        };
        insta::assert_snapshot!("detected_above_the_threshold", sentence(&above));
    }

    #[test]
    fn identical_executions_read_as_an_infinite_f_and_iterations_carry_the_caveat() {
        let g =
            SensitivityGrounds::Tested(tested(SensitivityOutcome::Detected, false, f64::INFINITY));
        insta::assert_snapshot!(sentence(&with(g)));
    }

    #[test]
    fn a_negligible_detection_does_not_say_a_layout_misstates_the_program() {
        let ci = Interval {
            lower: 0.001,
            upper: 0.004,
        };
        let g =
            SensitivityGrounds::Tested(tested(SensitivityOutcome::Negligible { ci }, true, 9.234));
        insta::assert_snapshot!(sentence(&with(g)));
    }

    /// zlib's `Ir` under cachegrind: the test does not settle it (ties, p = 0.85), yet the
    /// binaries' means vary by at most 0.0009 %: negligible, without saying "detectable"
    /// or that the binaries differ (before: "cannot tell").
    #[test]
    fn a_spread_bounded_within_the_threshold_is_negligible_without_a_rejection() {
        let ci = Interval {
            lower: 0.000004,
            upper: 0.000009,
        };
        let mut s = with(SensitivityGrounds::Tested(tested(
            SensitivityOutcome::Bounded { ci },
            true,
            611_000.0,
        )));
        s.p_value = Some(0.85);
        let text = sentence(&s);
        assert!(
            text.starts_with("negligible: the ")
                && text.contains("means vary by at most 0.0009 %")
                && !text.contains("detectable")
                && !text.contains("differ more"),
            "{text}"
        );
    }

    #[test]
    fn a_variation_as_large_as_the_test_finds_but_not_rejected_cannot_tell_and_says_both() {
        let mut s = with(SensitivityGrounds::Tested(tested(
            SensitivityOutcome::LargeButNotRejected {
                estimated: 0.031,
                detectable: 0.0084,
            },
            true,
            9.234,
        )));
        s.p_value = Some(0.09);
        s.test = Some(SensitivityTest::BlockedF);
        insta::assert_snapshot!(sentence(&s));
    }

    #[test]
    fn a_rejection_resting_on_one_binary_names_it_and_the_p_without_it() {
        let mut s = with(SensitivityGrounds::Tested(tested(
            SensitivityOutcome::RestsOnOne,
            true,
            9.234,
        )));
        s.rests_on = Some(RestsOn {
            apart: Apart {
                binary: "seed-4".into(),
                seed: Some(4),
                deviation: 0.12,
                robust_distance: Some(40.0),
            },
            p_value_without: 0.43,
            steady: false,
        });
        s.set_aside = vec![SetAsideExecution {
            binary: "seed-3".into(),
            seed: Some(3),
            execution: 2,
            deviation: 0.25,
            busy: None,
            env_pad: None,
        }];
        insta::assert_snapshot!(sentence(&s));
    }

    /// The set-aside executions' host samples name the machine as their likely cause, or
    /// rule it out, with the count.
    #[test]
    fn the_note_under_the_table_is_there_only_when_its_figure_and_the_sentences_differ() {
        let mut s = with(SensitivityGrounds::default());
        s.test = Some(SensitivityTest::BlockedF);
        s.cv_across_executions = Some(0.0101);
        // The same as printed (1.0 %), nothing set aside: no note.
        assert_eq!(levels_note(&s, Some(0.0104)), None);
        // Another figure: the rounds are named.
        let note = levels_note(&s, Some(0.031)).unwrap();
        assert!(
            note.contains("the shifts between rounds included"),
            "{note}"
        );
        // Not blocked on rounds: only executions set aside make a note.
        s.test = Some(SensitivityTest::OneWayF);
        assert_eq!(levels_note(&s, Some(0.031)), None);
    }

    #[test]
    fn set_aside_executions_say_how_many_started_on_a_busy_host() {
        let set_aside = |busy: &[Option<bool>]| -> Vec<SetAsideExecution> {
            busy.iter()
                .enumerate()
                .map(|(i, b)| SetAsideExecution {
                    binary: format!("seed-{i}"),
                    seed: Some(i as u64),
                    execution: 1,
                    deviation: 0.2,
                    busy: *b,
                    env_pad: None,
                })
                .collect()
        };
        let all = busy_set_aside_words(&set_aside(&[Some(true), Some(true)]));
        assert_eq!(
            all,
            " 2 of 2 started on a busy host (beside other runnable tasks, or with more than \
             2.0 % of the CPU time stolen): another task or the hypervisor is their likely cause."
        );
        insta::assert_snapshot!(busy_set_aside_words(&set_aside(&[Some(false)])));
        insta::assert_snapshot!(busy_set_aside_words(&set_aside(&[
            Some(true),
            Some(false),
            None
        ])));
        assert_eq!(busy_set_aside_words(&set_aside(&[None, None])), "");
    }

    /// The paddings' sentence for what the report's tests do not reach: a deterministic
    /// metric's outliers whose paddings chance spreads so (dash after 3 executions a binary:
    /// 2 set aside at 3,936 and 4,064 bytes, p = 0.065), and one set aside alone.
    #[test]
    fn set_aside_paddings_chance_spreads_so_or_of_one_execution_say_what_cannot_be_told() {
        let padding = |lowest, highest, p_value| SetAsidePadding {
            lowest,
            highest,
            drawn_below: 4096,
            executions: 60,
            p_value,
            deterministic: true,
        };
        insta::assert_snapshot!(padding_words(&padding(3936, 4064, Some(0.065)), 0.05));
        insta::assert_snapshot!(padding_words(&padding(3936, 3936, None), 0.05));
        insta::assert_snapshot!(padding_words(&padding(16, 16, Some(1.0)), 0.05));
        // A time metric's: nothing unless they bunch.
        let timed = SetAsidePadding {
            deterministic: false,
            ..padding(3936, 4064, Some(0.065))
        };
        assert_eq!(padding_words(&timed, 0.05), "");
    }
}
