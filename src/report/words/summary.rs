//! The "In short" paragraph of each series: how fast, how sure, whether the layout
//! matters, whether the default layout (and the build's own binary) is unusual, from the
//! series' numbers and the sentences of its answers.

use crate::analysis::answers::model::{
    PlacementGrounds, SensitivityGrounds, SensitivityOutcome, SeriesReport, Verdict,
};
use crate::analysis::vocabulary::Thresholds;
use crate::report::numfmt::{change_parts, level, p_value, percent, signed_percent};

/// A metric's name as the subject of a sentence: `wall` and `cpu` are times, `max_rss` the
/// peak resident memory, `reported` the value the program printed; cachegrind's counts keep
/// their own names (`I1_misses`).
fn metric_words(metric: &str) -> String {
    match metric {
        "wall" => "wall time".into(),
        "cpu" => "CPU time".into(),
        "max_rss" => "peak resident memory (max_rss)".into(),
        crate::files::metric::REPORTED => "reported value".into(),
        other => match cachegrind_words(other) {
            Some(words) => format!("{words} ({other})"),
            None => other.into(),
        },
    }
}

/// Cachegrind's counters in words (valgrind's event names, and the sums layoutrand derives
/// from them: docs/run.md).
fn cachegrind_words(event: &str) -> Option<&'static str> {
    Some(match event {
        "estimated_cycles" => "estimated cycles",
        "Ir" => "instructions executed",
        "Dr" => "data reads",
        "Dw" => "data writes",
        "I1mr" | "I1_misses" => "L1 instruction-cache misses",
        "D1mr" => "L1 data-cache read misses",
        "D1mw" => "L1 data-cache write misses",
        "D1_misses" => "L1 data-cache misses",
        "ILmr" => "last-level cache misses on instruction fetches",
        "DLmr" => "last-level cache misses on data reads",
        "DLmw" => "last-level cache misses on data writes",
        "LL_misses" => "last-level cache misses",
        _ => return None,
    })
}

super::on_the_wire!(SeriesReport {
    summary: String = summary,
    bootstrap_note: Option<String> = super::single::series_bootstrap_note,
});

/// One paragraph answering "how fast, how sure, does the layout matter, is the default
/// layout unusual", at the report's thresholds. A loaded or unsteady host (time metrics
/// only) qualifies the verdicts: they are not stated as fact.
pub(crate) fn summary(r: &SeriesReport) -> String {
    let thresholds = &r.thresholds;
    let confidence = thresholds.confidence;
    let mut parts = Vec::new();
    let what = format!("the {} of {}", metric_words(&r.metric), r.program);
    // Every number of the section in the unit its title names (chosen for the mean).
    let scale = r.scale();
    let over = super::crossed_mean::summary_over(r);
    let interval_note = (r.interval_grounds.as_ref()).map(super::single::interval_note);
    match (r.ci, r.relative_half_width, &interval_note) {
        (_, _, Some(note)) => parts.push(format!(
            "Over {over}, {what} averages {}, but {note}.",
            scale.quantity(r.mean)
        )),
        (Some(ci), Some(rel), None) => {
            let (lo, hi) = scale.bounds(ci.lower, ci.upper);
            parts.push(format!(
                "Over {over}, {what} is {} ± {} ({} CI: {lo} to {hi}).",
                scale.quantity(r.mean),
                percent(rel, 2),
                level(confidence),
            ))
        }
        _ => parts.push(format!(
            "Over {over}, {what} averages {}, with too few binaries for an interval.",
            scale.quantity(r.mean)
        )),
    }
    if r.is_time && r.on_unsteady_host {
        parts.push(
            "These times were measured on a loaded or unsteady host (see Diagnostics): the verdicts that follow may reflect the host rather than the layout."
                .into(),
        );
    }
    parts.push(sensitivity_sentence(&r.sensitivity, thresholds));
    parts.extend(default_layout_sentence(r, thresholds));
    parts.extend(r.as_built.as_ref().map(super::as_built::words));
    parts.join(" ")
}

/// The summary's sentence on the layout sensitivity, naming the test the verdict rests on;
/// a verdict that one binary or a contradiction carries is said as such
/// ([`qualified_sensitivity_sentence`]), the others by their verdict.
fn sensitivity_sentence(
    sens: &crate::analysis::answers::model::Sensitivity,
    thresholds: &Thresholds,
) -> String {
    // The test the verdict rests on, by the name the sentence gives it.
    let test = match sens.test {
        Some(crate::analysis::answers::model::SensitivityTest::BlockedF) => {
            "F-test blocked on rounds"
        }
        _ => "F-test",
    };
    qualified_sensitivity_sentence(sens, test)
        .unwrap_or_else(|| verdict_sentence(sens, test, thresholds))
}

/// The sentence of a verdict that rests on one binary (a rejection it carries is "cannot
/// tell", so "no layout effect was detected" would be false; one far off in every round is
/// a detection because of it) or that the test's own estimate contradicts; `None` for the
/// others.
fn qualified_sensitivity_sentence(
    sens: &crate::analysis::answers::model::Sensitivity,
    test: &str,
) -> Option<String> {
    if let (SensitivityGrounds::Tested(g), Some(p)) = (&sens.grounds, sens.p_value) {
        match (g.outcome, sens.suite_fdr) {
            (SensitivityOutcome::OneProcessPerBinary, _) => return Some(format!(
                "Cannot tell whether it is layout-sensitive: the binaries differ ({test}, {}), but each ran in one process, and two processes of one binary differ too on this metric; run at least 2 executions per binary.",
                p_value(p)
            )),
            (SensitivityOutcome::ChanceAcrossSuite, Some(fdr)) => return Some(format!(
                "Cannot tell whether it is layout-sensitive: on its own it would be ({test}, {}), but not across the suite: {}.",
                p_value(p),
                super::sensitivity::suite_fdr_words(&fdr)
            )),
            _ => {}
        }
    }
    if let (Verdict::Undetermined, Some(r)) = (sens.verdict, &sens.rests_on) {
        return Some(format!(
            "Cannot tell whether it is layout-sensitive: the binaries differ ({}), but only because of {}, whose mean sits {} from the others' and without which they do not ({}); re-measure it interleaved with the others (`layoutrand run --resume --extend-executions K`).",
            sens.p_value.map_or_else(|| "p unknown".to_string(), p_value),
            r.apart.binary,
            crate::report::numfmt::signed_percent(r.apart.deviation),
            p_value(r.p_value_without)
        ));
    }
    if let (Verdict::Detected, Some(r), Some(p)) = (sens.verdict, &sens.rests_on, sens.p_value) {
        return Some(format!(
            "It is layout-sensitive ({test}, {}) because of one layout far off: {} sits {} from the others' median in every round, and without it they do not differ ({}).",
            p_value(p),
            r.apart.binary,
            crate::report::numfmt::signed_percent(r.apart.deviation),
            p_value(r.p_value_without)
        ));
    }
    let (SensitivityGrounds::Tested(g), Some(p)) = (&sens.grounds, sens.p_value) else {
        return None;
    };
    if let SensitivityOutcome::Bounded { ci } = g.outcome {
        return Some(format!(
            "Its layout sensitivity is negligible: its mean varies by at most {} from one layout to another, whatever the layout's own share of that, which the test does not settle ({test}, {}).",
            percent(ci.upper, 2),
            p_value(p)
        ));
    }
    let SensitivityOutcome::LargeButNotRejected {
        estimated,
        detectable,
    } = g.outcome
    else {
        return None;
    };
    Some(format!(
        "Cannot tell whether it is layout-sensitive: its mean is estimated to vary by {} from one layout to another, at least the {} the test finds with 80 % power, yet it does not reject ({test}, {}): {}.",
        percent(estimated, 2),
        percent(detectable, 2),
        p_value(p),
        super::sensitivity::unsettled_hint(sens.test)
    ))
}

/// Whether a detected layout's own variation `v` is worth finding: above or below
/// `--negligible`; for most layouts only when one lies far off the others (a lump the
/// variation understates: it is named with its deviation).
fn relevance(
    v: f64,
    sens: &crate::analysis::answers::model::Sensitivity,
    thresholds: &Thresholds,
) -> String {
    match sens.far_off.first() {
        Some(far) => format!(
            " for most layouts, with {} far off the others ({} from their median)",
            far.binary,
            signed_percent(far.deviation)
        ),
        None => format!(
            ", {} the {} worth finding (--negligible)",
            if v > thresholds.negligible {
                "above"
            } else {
                "below"
            },
            percent(thresholds.negligible, 2)
        ),
    }
}

/// The summary's sentence of the layout verdict itself.
fn verdict_sentence(
    sens: &crate::analysis::answers::model::Sensitivity,
    test: &str,
    thresholds: &Thresholds,
) -> String {
    match (sens.verdict, sens.p_value) {
        (Verdict::Detected, Some(p)) => format!(
            "It is layout-sensitive ({test}, {}){}.",
            p_value(p),
            sens.layout_variation
                .map(|v| format!(
                    ": its mean varies by {} from one layout to another (the layout's own share, execution noise removed){}",
                    percent(v, 2),
                    relevance(v, sens, thresholds)
                ))
                .unwrap_or_default()
        ),
        (Verdict::NotDetected, Some(p)) => format!(
            "No layout sensitivity was detected ({test}, {}){}.",
            p_value(p),
            sens.detectable_variation
                .map(|d| format!(
                    "; a layout effect of {} or more would have been found with 80 % power",
                    percent(d, 2)
                ))
                .unwrap_or_default()
        ),
        (Verdict::Undetermined, Some(p)) if sens.detectable_variation.is_some() => {
            format!(
                "Cannot tell whether it is layout-sensitive (nothing below {} was detectable with these counts): no layout effect was detected ({test}, {}), but one worth finding is {} or more (--negligible).",
                percent(sens.detectable_variation.unwrap_or(f64::NAN), 2),
                p_value(p),
                percent(thresholds.negligible, 2)
            )
        }
        (Verdict::Negligible, Some(p)) => format!(
            "Its layout sensitivity is detectable but negligible ({test}, {}){}.",
            p_value(p),
            sens.cv_across_binaries_ci
                .map(|ci| format!(
                    ": its mean varies by at most {} from one layout to another",
                    percent(ci.upper, 2)
                ))
                .unwrap_or_default()
        ),
        (Verdict::NotDetected, None)
            if matches!(sens.grounds, SensitivityGrounds::NoCodeVariation { .. }) =>
        {
            "Where the code sits did not move it at all: under each data layout every binary measured the same.".into()
        }
        (Verdict::NotDetected, None) => "Its values did not vary at all.".into(),
        (Verdict::Negligible, None) => match sens.grounds {
            SensitivityGrounds::SingleObservationBounded { ci, .. } => format!(
                "Its layout sensitivity is negligible: its value varies by at most {} from one layout to another, whatever the layout's own share of that, which one execution per binary cannot test.",
                percent(ci.upper, 2)
            ),
            _ => "Layout sensitivity cannot be tested with these data.".into(),
        },
        (Verdict::Undetermined, None)
            if sens.grounds == SensitivityGrounds::SingleObservation =>
        {
            format!(
                "Layout sensitivity cannot be tested with one execution per binary{}.",
                sens.cv_across_binaries.map_or_else(String::new, |cv| format!(
                    ": its values vary by {} from one binary to another, the layout's and the process's variation together",
                    percent(cv, 2)
                ))
            )
        }
        _ => "Layout sensitivity cannot be tested with these data.".into(),
    }
}

/// The summary's sentence on the default layout: unusual (outside the prediction interval
/// of one random layout's mean) or ordinary, and, beside it, the shift from the mean over
/// layouts when one was detected, worded as what it is.
fn default_layout_sentence(r: &SeriesReport, thresholds: &Thresholds) -> Option<String> {
    let confidence = thresholds.confidence;
    let (better, worse) = if r.is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    if super::shift::is_tie(&r.shift) {
        return Some(format!(
            "The default layout gives {}.",
            super::shift::tie_values(&r.shift)
        ));
    }
    let shift = match (r.shift.verdict, r.shift.ratio, r.shift.ci) {
        (Verdict::Detected | Verdict::Negligible, Some(ratio), Some(ci)) => Some(change_parts(
            ratio, ci.lower, ci.upper, confidence, better, worse,
        )),
        _ => None,
    };
    let d = &r.default_layout;
    if let PlacementGrounds::Ranked { .. } = d.grounds {
        // Placed by rank among lumpy layouts: its own sentence says why, with no interval.
        let words = super::default_layout::words(d);
        return Some(match d.verdict {
            Verdict::Undetermined => {
                format!("Whether the default layout is unusual among random layouts: {words}")
            }
            _ => format!("The default layout is {words}"),
        });
    }
    let percentile = super::default_layout::rank_clause(d, "it")
        .map(|below| format!("; {below}"))
        .unwrap_or_default();
    let interval = d
        .prediction_interval
        .map(|pi| {
            let (lo, hi) = r.scale().bounds(pi.lower, pi.upper);
            format!(
                "the {} prediction interval of one random layout's mean ({lo} to {hi}{percentile})",
                level(pi.confidence)
            )
        })
        .unwrap_or_default();
    Some(match d.verdict {
        Verdict::Detected => format!(
            "The default layout is unusual among random layouts: its mean lies outside {interval}{}, so results on it alone are biased.",
            shift
                .map(|(h, i)| format!("; it is {h} than the average random layout ({i})"))
                .unwrap_or_default()
        ),
        Verdict::Negligible => format!(
            "The default layout lies outside {interval} but within ± {} of the layouts' centre: unusual, but negligibly so.",
            percent(thresholds.negligible, 2)
        ),
        Verdict::NotDetected if super::default_layout::beyond_every_random_layout(d) => format!(
            "The default layout is not shown unusual, but not shown ordinary either: its mean lies within {interval}, yet beyond every random layout measured; more random layouts would tell.{}",
            shift
                .map(|(h, i)| format!(" It is {h} than the mean over random layouts ({i})."))
                .unwrap_or_default()
        ),
        Verdict::NotDetected => format!(
            "The default layout is an ordinary layout: its mean lies within {interval}.{}",
            shift
                .map(|(h, i)| format!(
                    " It is {h} than the mean over random layouts ({i}), as any single layout differs from it when layouts matter."
                ))
                .unwrap_or_default()
        ),
        Verdict::Undetermined => format!(
            "Whether the default layout is unusual among random layouts: {}",
            super::default_layout::words(d)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::metric_words;

    #[test]
    fn metrics_are_named_in_words() {
        assert_eq!(metric_words("wall"), "wall time");
        assert_eq!(metric_words("cpu"), "CPU time");
        assert_eq!(metric_words("max_rss"), "peak resident memory (max_rss)");
        assert_eq!(
            metric_words(crate::files::metric::REPORTED),
            "reported value"
        );
        assert_eq!(
            metric_words("I1_misses"),
            "L1 instruction-cache misses (I1_misses)"
        );
        assert_eq!(metric_words("my_counter"), "my_counter");
    }
}
