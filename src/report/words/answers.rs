//! One answer per program across its metrics: which metric says what about the layout.
//!
//! A report of several metrics (a time metric beside memory, or cachegrind's thirteen
//! counters) gives one "In short" paragraph per metric, and they can disagree without
//! contradicting each other: the layout moves instruction-cache misses by 8 % while the
//! estimated cycles move by at most 0.6 % and the time by less than could be detected. This
//! sentence puts them side by side, the metric the run asked for first, each with the
//! magnitude its verdict rests on, so that a reader sees which metric answers what.

use crate::analysis::answers::model::{SeriesReport, Verdict};
use crate::report::numfmt::percent;

/// The answer across metrics of each program (and variant) that has more than one metric,
/// in the report's order; empty when every program has one metric (its "In short" is then
/// the answer).
pub(crate) fn across_metrics(series: &[SeriesReport]) -> Vec<String> {
    let mut groups: Vec<(&str, Option<&str>, Vec<&SeriesReport>)> = Vec::new();
    for s in series {
        match groups
            .iter_mut()
            .find(|(p, v, _)| *p == s.program && *v == s.variant.as_deref())
        {
            Some((_, _, members)) => members.push(s),
            None => groups.push((&s.program, s.variant.as_deref(), vec![s])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, _, members)| members.len() > 1)
        .map(|(program, variant, members)| sentence(program, variant, &members))
        .collect()
}

/// The labels of the other metrics' groups, by verdict, in the order they are listed.
const GROUPS: [(Verdict, &str); 4] = [
    (
        Verdict::Detected,
        "layout-sensitive (by how much a layout moves it)",
    ),
    (Verdict::Negligible, "negligible (at most)"),
    (Verdict::NotDetected, "no layout sensitivity detected"),
    (Verdict::Undetermined, "cannot tell"),
];

/// `demo: by estimated_cycles (the metric asked for), negligible (…);
/// likewise: D1mr 0.4 %; layout-sensitive: I1_misses (8.3 %); …`: the other metrics with
/// the measured metric's verdict follow it as "likewise" (the verdict said once), then
/// the other verdicts' groups.
fn sentence(program: &str, variant: Option<&str>, members: &[&SeriesReport]) -> String {
    let name = match variant {
        Some(v) => format!("{program} [{v}]"),
        None => program.to_string(),
    };
    let (first, others) = members.split_first().expect("a group has a member");
    let mut text = format!(
        "{name}, layout sensitivity by metric: by {} (the metric the run measured), {}",
        first.metric,
        verdict_words(first)
    );
    let own = first.sensitivity.verdict;
    let likewise = GROUPS
        .iter()
        .filter(|(v, _)| *v == own)
        .map(|(v, _)| (*v, "likewise"));
    let rest = GROUPS.iter().filter(|(v, _)| *v != own).copied();
    for (verdict, label) in likewise.chain(rest) {
        let named: Vec<String> = others
            .iter()
            .filter(|s| s.sensitivity.verdict == verdict)
            .map(|s| match short_magnitude(s) {
                Some(m) => format!("{} {m}", s.metric),
                None => s.metric.clone(),
            })
            .collect();
        if !named.is_empty() {
            text.push_str(&format!("; {label}: {}", named.join(", ")));
        }
    }
    text.push('.');
    text
}

/// The verdict with its magnitude, for the metric the run measured.
fn verdict_words(s: &SeriesReport) -> String {
    let word = sensitivity_word(s.sensitivity.verdict);
    match magnitude(s) {
        Some(m) => format!("{word} ({m})"),
        None => word.to_string(),
    }
}

/// A layout-sensitivity verdict in a few words, as every summary of many series says it.
pub(crate) fn sensitivity_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Detected => "layout-sensitive",
        Verdict::Negligible => "negligible",
        Verdict::NotDetected => "no layout sensitivity detected",
        Verdict::Undetermined => "cannot tell",
    }
}

/// The number behind a detected or negligible verdict, alone (the label says what it is).
fn short_magnitude(s: &SeriesReport) -> Option<String> {
    let sens = &s.sensitivity;
    match sens.verdict {
        Verdict::Detected => sens.layout_variation.map(|v| percent(v, 2)),
        Verdict::Negligible => sens.cv_across_binaries_ci.map(|ci| percent(ci.upper, 2)),
        Verdict::NotDetected | Verdict::Undetermined => None,
    }
}

/// What the verdict rests on, in a few words: the layout's own variation when detected, the
/// upper end of its interval when negligible, the detectable variation otherwise.
fn magnitude(s: &SeriesReport) -> Option<String> {
    let sens = &s.sensitivity;
    match sens.verdict {
        Verdict::Detected => sens
            .layout_variation
            .map(|v| format!("varies by {} from layout to layout", percent(v, 2))),
        Verdict::Negligible => sens
            .cv_across_binaries_ci
            .map(|ci| format!("at most {}", percent(ci.upper, 2))),
        Verdict::NotDetected => sens
            .detectable_variation
            .map(|v| format!("{} would have been found", percent(v, 2))),
        Verdict::Undetermined => sens
            .detectable_variation
            .map(|v| format!("nothing below {} was detectable", percent(v, 2))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::as_built::tests::series;
    use crate::analysis::answers::builder::analyse_series;
    use crate::analysis::vocabulary::Thresholds;
    use crate::seeded::SeededRng;

    /// A series of `metric` whose sensitivity verdict is `verdict` with no magnitude.
    fn metric(metric: &str, verdict: Verdict) -> SeriesReport {
        let mut rng = SeededRng::new(5, "answers");
        let mut s = analyse_series(
            &series(&mut rng, None),
            Default::default(),
            &Default::default(),
            &Thresholds::default(),
            None,
        );
        s.metric = metric.into();
        s.sensitivity.verdict = verdict;
        s.sensitivity.layout_variation = None;
        s.sensitivity.cv_across_binaries_ci = None;
        s.sensitivity.detectable_variation = None;
        s
    }

    /// The measured metric's verdict is said once: the other metrics that share it follow
    /// as "likewise", before the groups of the other verdicts.
    #[test]
    fn the_measured_metrics_verdict_is_said_once() {
        let group = [
            metric("estimated_cycles", Verdict::NotDetected),
            metric("I1_misses", Verdict::Detected),
            metric("D1mr", Verdict::NotDetected),
            metric("Dw", Verdict::NotDetected),
        ];
        assert_eq!(
            across_metrics(&group),
            [
                "p, layout sensitivity by metric: by estimated_cycles (the metric the run \
              measured), no layout sensitivity detected; likewise: D1mr, Dw; layout-sensitive \
              (by how much a layout moves it): I1_misses."
            ]
        );
    }
}
