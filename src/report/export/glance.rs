//! The report at a glance (issue 37): one table — per program and metric, the layout
//! sensitivity with its magnitude, the default layout and the as-built binary among the
//! random layouts, and each variant against the base — and one figure, each randomised
//! binary's mean relative to the mean over layouts, per metric. Text, Markdown and HTML open
//! with them; the paragraphs follow for those who read.

use crate::analysis::answers::model::{
    DefaultLayout, PlacementGrounds, Report, Sensitivity, SeriesReport, Verdict,
};
use crate::analysis::answers::plot_data::StripGroup;
use crate::analysis::effect::{Effect, EffectVerdict};
use crate::report::numfmt::{percent, signed_percent};
use crate::report::words::sensitivity::no_variation_word;

/// The glance table's header.
pub(crate) const GLANCE_HEADERS: [&str; 4] = [
    "program and metric",
    "layout sensitivity",
    "default layout",
    "as built",
];

/// The heading of the glance (text, Markdown, HTML).
pub(crate) const GLANCE_TITLE: &str = "At a glance";

/// One row per series: its name, then the three answers, each a verdict with its magnitude.
pub(crate) fn glance_rows(report: &Report) -> Vec<[String; 4]> {
    report
        .series
        .iter()
        .map(|s| {
            [
                series_name(s),
                sensitivity_cell(&s.sensitivity),
                placement_cell(Some(&s.default_layout), &s.shift),
                s.as_built
                    .as_ref()
                    .map_or_else(|| "—".to_string(), as_built_cell),
            ]
        })
        .collect()
}

/// The as-built binary's cell: its place among the random layouts with its difference from
/// their mean; with the baseline's code layout, that it is the default layout measured again
/// and this measurement's difference, not a verdict of its own beside the default layout's
/// (the demo's glance read "ordinary (+1.8 %)" and "ordinary (−3.3 %)" for one layout).
fn as_built_cell(a: &crate::analysis::answers::model::AsBuilt) -> String {
    match (a.same_layout_as_baseline, a.shift.ratio) {
        (Some(true), Some(r)) => format!("the default again ({})", signed_percent(r - 1.0)),
        (Some(true), None) => "the default again".to_string(),
        _ => placement_cell(Some(&a.placement), &a.shift),
    }
}

/// The glance table's headers and rows: [`GLANCE_HEADERS`] and [`glance_rows`], with a
/// "data layout" column after the layout sensitivity when some series ran with several
/// data seeds (its answer, or "—" for a series without).
pub(crate) fn glance_table(report: &Report) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let with_data = report.series.iter().any(|s| s.data_sensitivity.is_some());
    let mut headers = GLANCE_HEADERS.to_vec();
    let mut rows: Vec<Vec<String>> = glance_rows(report).into_iter().map(Vec::from).collect();
    if with_data {
        headers.insert(2, crate::report::words::data_sensitivity::GLANCE_HEADER);
        for (row, s) in rows.iter_mut().zip(&report.series) {
            let cell = s.data_sensitivity.as_ref().map_or_else(
                || "—".to_string(),
                crate::report::words::data_sensitivity::glance_cell,
            );
            row.insert(2, cell);
        }
    }
    (headers, rows)
}

/// Which series the page's glance folds away (issue 55: with cachegrind's counters and two
/// variants it gave 24 rows and a figure of 23 rows of dots at 0 before the first answer that
/// mattered): those whose layout sensitivity was not detected or negligible (nothing varied
/// included) and whose data layout, when varied, was not found to matter either. None when
/// that would fold every series. One flag per series of `report`, in order.
pub(crate) fn folded(report: &Report) -> Vec<bool> {
    let quiet = |s: &SeriesReport| {
        matches!(
            s.sensitivity.verdict,
            Verdict::NotDetected | Verdict::Negligible
        ) && s
            .data_sensitivity
            .as_ref()
            .is_none_or(|d| matches!(d.verdict, Verdict::NotDetected | Verdict::Negligible))
    };
    // The metric the run measured (the series list it first) is never folded.
    let measured = report.series.first().map(|s| s.metric.as_str());
    let flags: Vec<bool> = report
        .series
        .iter()
        .map(|s| Some(s.metric.as_str()) != measured && quiet(s))
        .collect();
    if flags.iter().all(|f| *f) {
        return vec![false; flags.len()];
    }
    flags
}

/// Which comparisons of variants the page's glance folds: those of a metric every series of
/// which is `folded` (one flag per series of `report`), in the order of
/// `report.comparisons`.
pub(crate) fn comparisons_folded(report: &Report, folded: &[bool]) -> Vec<bool> {
    report
        .comparisons
        .iter()
        .map(|c| {
            let mut of_it = report
                .series
                .iter()
                .zip(folded)
                .filter(|(s, _)| s.program == c.program && s.metric == c.metric)
                .peekable();
            of_it.peek().is_some() && of_it.all(|(_, f)| *f)
        })
        .collect()
}

/// The line that stands for the folded rows: how many, and the metrics they are of.
pub(crate) fn folded_summary(report: &Report, folded: &[bool], comparisons: &[bool]) -> String {
    let mut metrics: Vec<&str> = Vec::new();
    for (s, _) in report.series.iter().zip(folded).filter(|(_, f)| **f) {
        if !metrics.contains(&s.metric.as_str()) {
            metrics.push(&s.metric);
        }
    }
    let count = |flags: &[bool]| flags.iter().filter(|f| **f).count();
    let compared = match count(comparisons) {
        0 => String::new(),
        n => format!(" (and their {n} comparison(s) of variants)"),
    };
    format!(
        "{} more row(s) whose layout sensitivity was not detected or negligible{compared}: {}",
        count(folded),
        metrics.join(", ")
    )
}

/// One row per comparison of variants: `B vs A`, the metric, the verdict with the change and
/// its interval.
pub(crate) fn glance_comparisons(report: &Report) -> Vec<[String; 3]> {
    report
        .comparisons
        .iter()
        .map(|c| {
            let time = report
                .series
                .iter()
                .find(|s| s.program == c.program && s.metric == c.metric)
                .is_some_and(|s| s.is_time);
            [
                format!("{} vs {}", c.new, c.base),
                format!("{} {}", c.program, c.metric),
                effect_cell(&c.pair.effect, time),
            ]
        })
        .collect()
}

/// `demo wall`, `demo [O3] wall`.
fn series_name(s: &SeriesReport) -> String {
    match &s.variant {
        Some(v) => format!("{} [{v}] {}", s.program, s.metric),
        None => format!("{} {}", s.program, s.metric),
    }
}

/// The layout sensitivity as a verdict with its magnitude: how much a layout moves the mean
/// (the layout's own share), the bound within which it is negligible, or what would have been
/// detected; "none" when under each data seed every binary measured the same (no
/// code-layout variation at all, as the paragraph says).
pub(crate) fn sensitivity_cell(sens: &Sensitivity) -> String {
    if let Some(word) = no_variation_word(sens) {
        return word.to_string();
    }
    match sens.verdict {
        Verdict::Detected => {
            // A layout far off close ones is what the ± understates: named beside it.
            let far = match sens.far_off.first() {
                Some(f) => format!(", {} {}", f.binary, signed_percent(f.deviation)),
                None => String::new(),
            };
            match sens.layout_variation.or(sens.cv_across_binaries) {
                Some(v) => format!("sensitive: ± {} per layout{far}", percent(v, 2)),
                None => format!("sensitive{far}"),
            }
        }
        Verdict::Negligible => match sens.cv_across_binaries_ci {
            Some(ci) => format!("negligible: at most {}", percent(ci.upper, 2)),
            None => "negligible".to_string(),
        },
        Verdict::NotDetected => match sens.detectable_variation {
            Some(d) => format!("not detected ({} would show)", at_least(d)),
            None => "not detected".to_string(),
        },
        // Underpowered: what the test could have found lies above the threshold, and the
        // cell says how far (grep 3.8 by wall time: "cannot tell", where the text said
        // nothing below 2.4 % was detectable).
        Verdict::Undetermined => match sens.detectable_variation {
            Some(d) => format!("cannot tell (only {} would show)", at_least(d)),
            None => "cannot tell".to_string(),
        },
    }
}

/// `≥ 2.4 %`, or `< 0.0001 %` as it stands.
fn at_least(d: f64) -> String {
    let d = percent(d, 2);
    if d.starts_with('<') {
        d
    } else {
        format!("≥ {d}")
    }
}

/// A binary's place among the random layouts: unusual or ordinary, with its shift from their
/// mean — the same number as the text's "Layout shift" (issue 55: the glance gave the
/// difference from the log scale's centre, +15.2 %, where the text said 14.3 % slower).
fn placement_cell(
    d: Option<&DefaultLayout>,
    shift: &crate::analysis::answers::model::Shift,
) -> String {
    let Some(d) = d else {
        return "—".to_string();
    };
    let difference = shift.ratio.map(|r| signed_percent(r - 1.0));
    let with = |word: &str| match &difference {
        Some(x) => format!("{word} ({x})"),
        None => word.to_string(),
    };
    match d.verdict {
        Verdict::Detected => with("unusual"),
        Verdict::Negligible => with("unusual but negligible"),
        Verdict::NotDetected
            if crate::report::words::default_layout::beyond_every_random_layout(d) =>
        {
            with(crate::report::words::default_layout::NOT_SHOWN_UNUSUAL)
        }
        Verdict::NotDetected => match d.grounds {
            // Placed by rank among lumpy layouts: where it lies, not the shift from a mean
            // that a layout far off drags.
            PlacementGrounds::Ranked { rank, .. } => {
                format!("ordinary by rank ({})", rank_words(rank))
            }
            _ => with("ordinary"),
        },
        Verdict::Undetermined => match d.grounds {
            // Lumpy layouts too few for a rank test: where it lies is still known.
            PlacementGrounds::Ranked { rank, .. } => {
                format!("cannot tell (lumpy; {})", rank_words(rank))
            }
            _ => "cannot tell".to_string(),
        },
    }
}

/// Where a fixed layout lies among the random layouts' means, briefly: "11 of 12 below it",
/// "0 of 14 below it, 5 equal".
fn rank_words(rank: crate::analysis::answers::model::Rank) -> String {
    let below = format!("{} of {} below it", rank.below, rank.n);
    match rank.equal {
        0 => below,
        e => format!("{below}, {e} equal"),
    }
}

/// A comparison's verdict with its change and interval: `slower: +3.1 % (+1.2 % to +5.0 %)`.
fn effect_cell(e: &Effect, time: bool) -> String {
    let (better, worse) = if time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let word = match e.verdict {
        EffectVerdict::Inconclusive => "cannot tell",
        v => v.word(better, worse),
    };
    match e.ci {
        Some(ci) if ci.lower.is_finite() && ci.upper.is_finite() => {
            let [change, lower, upper] = crate::report::numfmt::signed_percents([
                e.ratio - 1.0,
                ci.lower - 1.0,
                ci.upper - 1.0,
            ]);
            format!("{word}: {change} ({lower} to {upper})")
        }
        _ => format!("{word}: {} (no interval)", signed_percent(e.ratio - 1.0)),
    }
}

/// The glance's forest plot (the page's): each comparison of variants not `folded` (one flag
/// per comparison of `report`) as its ratio new / base with its interval, on one axis with
/// the no-change line and the negligible band; `None` without one.
pub(crate) fn comparisons_figure(report: &Report, folded: &[bool]) -> Option<String> {
    use super::svg_variants::{ratio_intervals, IntervalRow};
    let shown: Vec<_> = report
        .comparisons
        .iter()
        .zip(folded)
        .filter(|(_, f)| !**f)
        .map(|(c, _)| c)
        .collect();
    let first = shown.first()?;
    // One pair of variants: named once in the title, each row its metric.
    let one_pair = shown
        .iter()
        .all(|c| (&c.new, &c.base) == (&first.new, &first.base));
    let rows: Vec<IntervalRow> = shown
        .iter()
        .map(|c| {
            let e = &c.pair.effect;
            let ci =
                e.ci.filter(|ci| ci.lower.is_finite() && ci.upper.is_finite())
                    .map(|ci| (ci.lower, ci.upper));
            let ci_text = match ci {
                Some((lower, upper)) => {
                    let [_, lower, upper] = crate::report::numfmt::signed_percents([
                        e.ratio - 1.0,
                        lower - 1.0,
                        upper - 1.0,
                    ]);
                    format!("{lower} to {upper}")
                }
                None => "no interval".to_string(),
            };
            IntervalRow {
                label: if one_pair {
                    c.metric.clone()
                } else {
                    format!("{}/{} {}", c.new, c.base, c.metric)
                },
                estimate: e.ratio,
                ci,
                ci_text,
                basis: true,
            }
        })
        .collect();
    let title = if one_pair {
        format!(
            "{} against {}: each change and its interval",
            first.new, first.base
        )
    } else {
        "Each comparison of variants: the change and its interval".to_string()
    };
    Some(ratio_intervals(
        &title,
        "new / base (dashed line: no change; band: within ± the negligible threshold)",
        &rows,
        report.negligible,
    ))
}

/// The header of the variants' rows of the glance.
pub(crate) const COMPARISON_HEADERS: [&str; 3] =
    ["variants", "program and metric", "new against base"];

/// The variance split's bar of the first series not [`folded`] that has one (a run with
/// data seeds): where its variation comes from (code, data, run noise, machines), one bar
/// at the top of the page (issue 55); `None` without a split or when it cannot tell.
pub(crate) fn split_bar(report: &Report, folded: &[bool]) -> Option<String> {
    let (s, split) = report
        .series
        .iter()
        .zip(folded)
        .filter(|(_, f)| !**f)
        .find_map(|(s, _)| Some((s, s.variance_split.as_ref()?)))?;
    let title = format!(
        "Where the variation of {} {} comes from: shares of the variance between executions",
        s.program, s.metric
    );
    super::svg_split::split_figure(&title, split)
}

/// The glance figure's data: per series not [`folded`], each randomised binary's mean
/// relative to the mean over layouts, in per cent (the default layout is drawn apart in each
/// series' own plot).
pub(crate) fn glance_groups(report: &Report) -> Vec<StripGroup> {
    report
        .series
        .iter()
        .zip(folded(report))
        .filter(|(_, folded)| !folded)
        .map(|(s, _)| s)
        .filter(|s| s.mean.is_finite() && s.mean != 0.0)
        .map(|s| StripGroup {
            label: series_name(s),
            points: s
                .binaries
                .iter()
                .filter(|b| b.seed.is_some())
                .map(|b| 100.0 * (b.mean / s.mean - 1.0))
                .filter(|p| p.is_finite())
                .collect(),
            box_summary: None,
            highlight: false,
        })
        .collect()
}

/// The per-cent axis of the glance figure: its ticks, their step and the range shown, which
/// holds every point and zero with a 5 % margin; `None` without a point.
fn per_cent_axis(points: &[f64]) -> Option<(Vec<f64>, f64, (f64, f64))> {
    if points.is_empty() {
        return None;
    }
    let (lo, hi) = points
        .iter()
        .fold((0.0f64, 0.0f64), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let pad = ((hi - lo) * 0.05).max(0.01);
    let (ticks, step) = super::svg::nice_ticks(lo - pad, hi + pad);
    let range = (
        ticks.first().copied().unwrap_or(lo).min(lo - pad),
        ticks.last().copied().unwrap_or(hi).max(hi + pad),
    );
    Some((ticks, step, range))
}

/// The glance figure as SVG: one row per series (its name on the left), a dot per
/// randomised binary at its mean's distance from the mean over layouts, in per cent, and a
/// line at zero; rows rather than columns, so that long series names stay readable however
/// many metrics there are. `None` without a series or a finite point.
pub(crate) fn glance_figure(report: &Report) -> Option<String> {
    use super::svg::{escape, tick_label};
    use std::fmt::Write;
    let groups = glance_groups(report);
    let all: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.points.iter().copied())
        .collect();
    let (ticks, step, (x0, x1)) = per_cent_axis(&all)?;
    const ROW: f64 = 16.0;
    const TOP: f64 = 30.0;
    const BOTTOM: f64 = 34.0;
    const PLOT: f64 = 440.0;
    let longest = groups
        .iter()
        .map(|g| g.label.chars().count())
        .max()
        .unwrap_or(1);
    let left = (12.0 + 6.2 * longest as f64).min(340.0);
    let width = left + PLOT + 16.0;
    let height = TOP + ROW * groups.len() as f64 + BOTTOM;
    let px = |x: f64| left + (x - x0) / (x1 - x0) * PLOT;
    let title = "Each randomised binary's mean against the mean over layouts";
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img"><title>{t}</title><text x="4" y="14" class="ttl">{t}</text>"#,
        t = escape(title)
    );
    let bottom = height - BOTTOM;
    for v in &ticks {
        let x = px(*v);
        let _ = write!(
            out,
            r#"<path class="grid" d="M{x:.1},{TOP:.1}V{bottom:.1}"/><text x="{x:.1}" y="{:.1}" class="tick" text-anchor="middle">{}</text>"#,
            bottom + 11.0,
            tick_label(*v, step)
        );
    }
    let zero = px(0.0);
    let _ = write!(
        out,
        r#"<path class="baseline-line" d="M{zero:.1},{TOP:.1}V{bottom:.1}"/>"#
    );
    for (i, g) in groups.iter().enumerate() {
        let y = TOP + ROW * (i as f64 + 0.5);
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + 3.0,
            escape(&g.label)
        );
        for p in &g.points {
            let _ = write!(
                out,
                r#"<circle class="pt" cx="{:.1}" cy="{y:.1}" r="2.5"/>"#,
                px(*p)
            );
        }
    }
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" class="lbl" text-anchor="middle">% from the mean over random layouts (0: the mean)</text></svg>"#,
        left + PLOT / 2.0,
        height - 6.0
    );
    Some(out)
}

/// A suite's cases as one dot each (the page only): how far one layout moves each case, as
/// an interval of ± the layout's own standard deviation around the mean over layouts (1),
/// in the table's order; `None` without a case whose variation was estimated.
pub(crate) fn suite_figure(
    suite: &crate::analysis::answers::model::Suite,
    negligible: f64,
) -> Option<String> {
    use super::svg_variants::{ratio_intervals, IntervalRow};
    let rows: Vec<IntervalRow> = suite
        .cases
        .iter()
        .filter_map(|c| {
            let v = c.layout_variation?;
            Some(IntervalRow {
                label: c.case.clone(),
                estimate: 1.0,
                ci: Some((1.0 - v, 1.0 + v)).filter(|_| v > 0.0),
                ci_text: match v > 0.0 {
                    true => format!("± {}", crate::report::numfmt::percent(v, 2)),
                    false => "none estimated".to_string(),
                },
                basis: c.verdict == crate::analysis::vocabulary::Verdict::Detected,
            })
        })
        .collect();
    (!rows.is_empty()).then(|| {
        ratio_intervals(
            "How far one layout moves each case (bold: layout-sensitive)",
            "one layout's mean / the mean over layouts (± the layout's standard deviation)",
            &rows,
            negligible,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::model::SensitivityGrounds;
    use crate::report::words::sensitivity::tests::with;

    /// No code-layout variation at all (every binary measured the same under each data
    /// seed) is "none", not "not detected", which stays for a test that found nothing.
    #[test]
    fn no_code_variation_is_none_at_a_glance() {
        let mut none = with(SensitivityGrounds::NoCodeVariation { data_seeds: 6 });
        none.verdict = Verdict::NotDetected;
        assert_eq!(sensitivity_cell(&none), "none");
        let mut untested = with(SensitivityGrounds::Unanalysed);
        untested.verdict = Verdict::NotDetected;
        assert_eq!(sensitivity_cell(&untested), "not detected");
        untested.detectable_variation = Some(0.02);
        assert_eq!(
            sensitivity_cell(&untested),
            "not detected (≥ 2.0 % would show)"
        );
        untested.verdict = Verdict::Undetermined;
        untested.detectable_variation = Some(0.024);
        assert_eq!(
            sensitivity_cell(&untested),
            "cannot tell (only ≥ 2.4 % would show)"
        );
    }
}
