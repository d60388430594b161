//! "Is the default layout unusual among random layouts?" in words: the placement of a fixed
//! layout (the baseline, or the binary the build made) by the prediction interval of one
//! random layout's mean ([`crate::analysis::answers::shift::placement_of`]).

use super::OVERFLOW_REASON;
use crate::analysis::answers::model::{DefaultLayout, LeftOut, PlacementGrounds, Rank, Verdict};
use crate::analysis::vocabulary::Thresholds;
use crate::report::numfmt::{level, p_value, percent, signed_percent, Scale};

use super::effect::directions;
use super::shift::FixedWords;

super::on_the_wire!(DefaultLayout {
    text: String = words
});

/// The sentence of the placement `d`, of the fixed layout it is of, in its series, at the
/// thresholds its verdict was reached at.
pub(crate) fn words(d: &DefaultLayout) -> String {
    let fixed = super::shift::fixed_words(d.fixed);
    sentence(d, fixed, (&d.unit, d.is_time), &d.thresholds)
}

/// The sentence of the placement `d` of `fixed` in a series of `unit`, a time or not.
pub(crate) fn sentence(
    d: &DefaultLayout,
    fixed: &FixedWords,
    (unit, is_time): (&str, bool),
    thresholds: &Thresholds,
) -> String {
    match d.grounds {
        PlacementGrounds::Unanalysed => String::new(),
        PlacementGrounds::NotRun => fixed.not_run.into(),
        PlacementGrounds::TooFewBinaries { n } => format!(
            "cannot tell: {n} randomised binary with data; the spread of layouts needs at least 2 (better 20–30)."
        ),
        PlacementGrounds::Overflow => format!(
            "cannot tell: {OVERFLOW_REASON}, so the random layouts' spread is not computable; rescale the values (e.g. another unit)."
        ),
        PlacementGrounds::NoFiniteInterval => {
            "cannot tell: the random layouts' means give no finite prediction interval.".into()
        }
        PlacementGrounds::Placed {
            n,
            log_scale,
            scale_mean,
            ..
        } => {
            let placed =
                placed_words(d, fixed, (unit, is_time), (n, log_scale, scale_mean), thresholds);
            with_left_out(placed, d, fixed)
        }
        PlacementGrounds::Ranked {
            n,
            ref far_off,
            needed,
            ..
        } => with_left_out(
            ranked_words(d, fixed, is_time, (n, far_off, needed), thresholds),
            d,
            fixed,
        ),
    }
}

/// `placed`, then what the placement left out when the outlier screen set executions aside.
fn with_left_out(placed: String, d: &DefaultLayout, fixed: &FixedWords) -> String {
    match d.left_out.as_ref() {
        Some(left_out) => format!("{placed} {}", left_out_words(left_out, fixed)),
        None => placed,
    }
}

/// The random layouts far off the others, briefly: the first three with their deviation
/// ("seed-1 +148 %"), then how many more.
fn far_off_brief(far: &[crate::analysis::answers::model::Apart]) -> String {
    let named: Vec<String> = far
        .iter()
        .take(3)
        .map(|f| format!("{} {}", f.binary, signed_percent(f.deviation)))
        .collect();
    match far.len().saturating_sub(3) {
        0 => super::and_list(&named),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// The words of a layout placed by rank among lumpy random layouts
/// ([`PlacementGrounds::Ranked`]): why by rank, where it lies, the rank test's p-value and,
/// when the layouts are too few for any rank to be unusual, that it cannot tell.
fn ranked_words(
    d: &DefaultLayout,
    fixed: &FixedWords,
    is_time: bool,
    (n, far_off, needed): (usize, &[crate::analysis::answers::model::Apart], usize),
    thresholds: &Thresholds,
) -> String {
    let (Some(p), Some(below)) = (d.p_value, rank_clause(d, "it")) else {
        return String::new();
    };
    let (better, worse) = directions(is_time);
    let from_median = d.difference.map_or_else(String::new, |x| {
        let direction = if x < 0.0 { better } else { worse };
        format!(
            ", and it is {} {direction} than their median",
            percent(x.abs(), 2)
        )
    });
    let why = format!(
        "the random layouts' means are lumpy ({} from the others' median), so a prediction interval, which takes them for a normal sample, would mislead; placed by its rank among the {n} instead: {below}{from_median}",
        far_off_brief(far_off)
    );
    let level = level(thresholds.confidence);
    match d.verdict {
        Verdict::Undetermined => format!(
            "cannot tell: {why}. It lies beyond every random layout measured, yet with {n} random layouts no rank is unusual at {level} (that takes at least {needed}); more random layouts would tell."
        ),
        Verdict::NotDetected => format!(
            "an ordinary layout by its rank: {why}; a rank as far out is common among random layouts (rank test, {}).",
            p_value(p)
        ),
        Verdict::Negligible => format!(
            "unusual but negligibly so: {why}; a rank as far out is rare among random layouts (rank test, {}), but it is within ± {} of their median.",
            p_value(p),
            percent(thresholds.negligible, 2)
        ),
        _ => format!(
            "unusual among random layouts: {why}; a rank as far out is rare among random layouts (rank test, {}), so results on {} alone are biased.",
            p_value(p),
            fixed.name
        ),
    }
}

/// What a placement and the shift beside it left out, as a sentence: the executions the
/// outlier screen set aside, of the random layouts and of the fixed layout (each listed
/// with its deviation from the fit).
fn left_out_words(left_out: &LeftOut, fixed: &FixedWords) -> String {
    let random = match left_out.random {
        0 => "none of the random layouts'".to_string(),
        1 => "1 execution of the random layouts' (listed under layout sensitivity)".to_string(),
        k => format!("{k} executions of the random layouts' (listed under layout sensitivity)"),
    };
    let own = if left_out.fixed.is_empty() {
        format!("none of {}'s", fixed.binary)
    } else {
        let listed: Vec<String> = left_out
            .fixed
            .iter()
            .map(|x| {
                format!(
                    "execution {} ({})",
                    x.execution,
                    signed_percent(x.deviation)
                )
            })
            .collect();
        format!("{}'s {}", fixed.binary, super::and_list(&listed))
    };
    format!(
        "This place and the shift rest on the executions the outlier screen kept, a load burst weighing on neither side: it set aside {random} and {own}."
    )
}

/// What a layout the test does not call unusual is called when it lies beyond every random
/// layout measured ([`beyond_every_random_layout`]): "ordinary" would claim more than the data
/// say.
pub(crate) const NOT_SHOWN_UNUSUAL: &str = "not shown unusual";

/// Whether the layout's mean lies below (or above) every random layout's mean measured
/// (percentile 0 or 1): within the prediction interval when the random layouts are few, but
/// then not "an ordinary layout" either.
pub(crate) fn beyond_every_random_layout(d: &DefaultLayout) -> bool {
    d.percentile.is_some_and(|p| p <= 0.0 || p >= 1.0)
}

/// Where the placement `d` lies among the random layouts' means, as a clause naming the
/// fixed layout `it` ("it", "its"): the share of means below it, and how many equal it when
/// some do (the mid-rank `percentile` counts a tie half below, which would say "50.0 % are
/// below it" of a layout every random layout equals). `None` when `d` was not placed.
pub(crate) fn rank_clause(d: &DefaultLayout, it: &str) -> Option<String> {
    let rank = match d.grounds {
        PlacementGrounds::Placed { rank, .. } | PlacementGrounds::Ranked { rank, .. } => rank,
        _ => return None,
    };
    let Rank { below, equal, n } = rank;
    let share_below = || percent(below as f64 / n as f64, 2);
    Some(match equal {
        0 => format!(
            "{} of the random layouts' means are below {it}",
            share_below()
        ),
        e if e == n => format!("all {n} random layouts' means equal {it}"),
        e => format!(
            "{} of the random layouts' means are below {it} and {e} of the {n} equal {it}",
            share_below()
        ),
    })
}

/// The few words of a placement's verdict ("an ordinary layout", "not shown unusual", …)
/// for the brief renderings.
pub(crate) fn verdict_words(d: &DefaultLayout) -> &'static str {
    match d.verdict {
        Verdict::Detected => "unusual: results on it alone are biased",
        Verdict::Negligible => "unusual, by a negligible amount",
        Verdict::NotDetected if beyond_every_random_layout(d) => {
            "not shown unusual, but beyond every random layout measured"
        }
        Verdict::NotDetected => "an ordinary layout",
        Verdict::Undetermined => "cannot tell",
    }
}

/// The words of a placed layout: outside the prediction interval is "unusual" (or
/// negligibly so within `± --negligible` of the centre), inside "an ordinary layout".
fn placed_words(
    d: &DefaultLayout,
    fixed: &FixedWords,
    (unit, is_time): (&str, bool),
    (n, log_scale, scale_mean): (usize, bool, f64),
    thresholds: &Thresholds,
) -> String {
    let (Some(interval), Some(p), Some(difference), Some(below)) = (
        d.prediction_interval,
        d.p_value,
        d.difference,
        rank_clause(d, "it"),
    ) else {
        return String::new();
    };
    // In the unit of the series' title, chosen for its mean (the mean of the binaries' means).
    let (lo, hi) = Scale::for_values(unit, scale_mean).bounds(interval.lower, interval.upper);
    let scale = if log_scale { ", on the log scale" } else { "" };
    let outside = d.verdict != Verdict::NotDetected;
    let place = format!(
        "its mean lies {} the {} prediction interval of one random layout's mean ({lo} to {hi}, from {n} random layouts{scale}; {p}); {below}",
        if outside { "outside" } else { "within" },
        level(interval.confidence),
        p = p_value(p),
    );
    let (better, worse) = directions(is_time);
    let direction = if difference < 0.0 { better } else { worse };
    match d.verdict {
        Verdict::NotDetected if beyond_every_random_layout(d) => format!(
            "{NOT_SHOWN_UNUSUAL}: {place}; it is {direction} than every random layout measured, yet within the prediction interval that {n} random layouts leave; more random layouts would tell whether it is ordinary."
        ),
        Verdict::NotDetected => format!("an ordinary layout: {place}. Results on it are as representative as those of any one random layout."),
        Verdict::Negligible => format!(
            "unusual but negligibly so: {place}, but it is within ± {} of the layouts' centre ({} {direction}).",
            percent(thresholds.negligible, 2),
            percent(difference.abs(), 2)
        ),
        _ => format!(
            "unusual among random layouts: {place}; it is {} {direction} than their centre, so results on {} alone are biased.",
            percent(difference.abs(), 2),
            fixed.name
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::model::PredictionIntervalJson;
    use crate::report::words::shift::{AS_BUILT, BASELINE};

    fn placed(verdict: Verdict, difference: f64) -> DefaultLayout {
        DefaultLayout {
            verdict,
            percentile: Some(0.0),
            prediction_interval: Some(PredictionIntervalJson {
                lower: 950.0,
                upper: 1050.0,
                confidence: 0.95,
            }),
            p_value: Some(0.001),
            difference: Some(difference),
            grounds: PlacementGrounds::Placed {
                n: 10,
                log_scale: true,
                scale_mean: 1000.0,
                rank: Rank {
                    below: 0,
                    equal: 0,
                    n: 10,
                },
            },
            fixed: Default::default(),
            unit: "ns".into(),
            is_time: true,
            thresholds: Default::default(),
            left_out: None,
        }
    }

    /// The executions the screen set aside are named on both sides, with the fixed
    /// layout's deviations; none set aside is said of the side that lost none.
    #[test]
    fn the_executions_left_out_are_said_on_both_sides() {
        use crate::analysis::answers::model::{FixedSetAside, LeftOut};
        let mut d = placed(Verdict::NotDetected, 0.01);
        d.left_out = Some(LeftOut {
            random: 6,
            fixed: vec![FixedSetAside {
                execution: 2,
                deviation: 0.18,
            }],
        });
        let text = sentence(&d, &BASELINE, ("ns", true), &Thresholds::default());
        assert!(
            text.ends_with(" it set aside 6 executions of the random layouts' (listed under layout sensitivity) and the baseline's execution 2 (+18.0 %)."),
            "{text}"
        );
        d.left_out = Some(LeftOut {
            random: 0,
            fixed: vec![FixedSetAside {
                execution: 0,
                deviation: 0.2,
            }],
        });
        let text = sentence(&d, &AS_BUILT, ("ns", true), &Thresholds::default());
        assert!(
            text.ends_with(" it set aside none of the random layouts' and the as-built binary's execution 0 (+20.0 %)."),
            "{text}"
        );
        d.left_out = None;
        let text = sentence(&d, &BASELINE, ("ns", true), &Thresholds::default());
        assert!(!text.contains("set aside"), "{text}");
    }

    #[test]
    fn an_unusual_layout_says_how_far_and_which_way_and_names_the_layout() {
        let text = sentence(
            &placed(Verdict::Detected, -0.12),
            &AS_BUILT,
            ("ns", true),
            &Thresholds::default(),
        );
        assert!(
            text.starts_with("unusual among random layouts: its mean lies outside the 95 % prediction interval of one random layout's mean ("),
            "{text}"
        );
        assert!(
            text.ends_with("from 10 random layouts, on the log scale; p = 0.0010); 0.0 % of the random layouts' means are below it; it is 12.0 % faster than their centre, so results on the binary your build made alone are biased."),
            "{text}"
        );
    }

    /// Below every random layout but within the wide prediction interval of a few: "not
    /// shown unusual", never "an ordinary layout"; inside the random layouts: ordinary.
    #[test]
    fn a_layout_beyond_every_random_one_is_not_called_ordinary() {
        let edge = placed(Verdict::NotDetected, -0.03);
        insta::assert_snapshot!(sentence(
            &edge,
            &BASELINE,
            ("ns", true),
            &Thresholds::default()
        ));
        assert_eq!(
            verdict_words(&edge),
            "not shown unusual, but beyond every random layout measured"
        );
        let inside = DefaultLayout {
            percentile: Some(0.4),
            ..placed(Verdict::NotDetected, -0.01)
        };
        let text = sentence(&inside, &BASELINE, ("ns", true), &Thresholds::default());
        assert!(text.starts_with("an ordinary layout: "), "{text}");
        assert_eq!(verdict_words(&inside), "an ordinary layout");
    }

    #[test]
    fn a_negligibly_unusual_count_is_higher_not_slower() {
        let text = sentence(
            &placed(Verdict::Negligible, 0.004),
            &BASELINE,
            ("count", false),
            &Thresholds::default(),
        );
        assert!(
            text.ends_with("but it is within ± 1.0 % of the layouts' centre (0.40 % higher)."),
            "{text}"
        );
    }

    /// The default layout's placement in `s`, analysed, with its sentence.
    fn placement(s: &crate::analysis::answers::experiment::Series) -> (DefaultLayout, String) {
        let t = Thresholds::default();
        let r = crate::analysis::answers::builder::analyse_series(
            s,
            Default::default(),
            &Default::default(),
            &t,
            None,
        );
        let text = sentence(&r.default_layout, &BASELINE, ("ns", true), &t);
        (r.default_layout, text)
    }

    /// A deterministic metric the layout does not move: every random layout's mean equals
    /// the default's. The mid-rank percentile counts the tie half below (0.5); the words say
    /// that all of them equal it, never "50.0 % are below it".
    #[test]
    fn a_full_tie_is_said_as_all_equal_not_as_half_below() {
        let mut rng = crate::seeded::SeededRng::new(5, "placement-full-tie");
        let mut s = crate::analysis::answers::as_built::tests::series(&mut rng, None);
        for b in s.seeds.iter_mut().chain(s.baseline.iter_mut()) {
            for e in &mut b.executions {
                e.live = vec![1000.0];
            }
        }
        let (d, text) = placement(&s);
        assert_eq!(d.percentile, Some(0.5));
        assert!(
            matches!(d.grounds, PlacementGrounds::Placed { rank, .. }
                if rank == Rank { below: 0, equal: 10, n: 10 }),
            "{:?}",
            d.grounds
        );
        insta::assert_snapshot!(text);
    }

    /// Three random layouts measured exactly as the default: the share below counts only
    /// the means below it, and the three that equal it are named apart.
    #[test]
    fn some_ties_are_counted_apart_from_the_means_below() {
        let mut rng = crate::seeded::SeededRng::new(5, "placement-some-ties");
        let mut s = crate::analysis::answers::as_built::tests::series(&mut rng, None);
        let baseline = s.baseline.clone().unwrap();
        for b in s.seeds.iter_mut().take(3) {
            b.executions = baseline.executions.clone();
        }
        let (d, text) = placement(&s);
        let PlacementGrounds::Placed { rank, .. } = d.grounds else {
            panic!("{:?}", d.grounds)
        };
        assert_eq!(rank.equal, 3);
        let below = format!(
            "; {} of the random layouts' means are below it and 3 of the 10 equal it",
            percent(rank.below as f64 / 10.0, 2)
        );
        assert!(text.contains(&below), "{text} lacks {below}");
        assert_eq!(
            d.percentile,
            Some((rank.below as f64 + 1.5) / 10.0),
            "the JSON's percentile still counts a tie half"
        );
    }

    /// Without ties the clause is the share below, as before.
    #[test]
    fn without_ties_the_share_below_is_said_alone() {
        let d = DefaultLayout {
            grounds: PlacementGrounds::Placed {
                n: 10,
                log_scale: true,
                scale_mean: 1000.0,
                rank: Rank {
                    below: 4,
                    equal: 0,
                    n: 10,
                },
            },
            ..placed(Verdict::NotDetected, 0.0)
        };
        assert_eq!(
            rank_clause(&d, "its").as_deref(),
            Some("40.0 % of the random layouts' means are below its")
        );
    }
}
