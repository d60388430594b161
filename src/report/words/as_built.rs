//! "Is the binary your build made an ordinary layout?" in words: the as-built binary's
//! shift and placement ([`crate::analysis::answers::as_built`]) in one sentence, after their
//! own sentences are written ([`super::shift`], [`super::default_layout`]).

use crate::analysis::answers::model::{AsBuilt, PairedOn, PlacementGrounds, Verdict};
use crate::analysis::effect::EffectVerdict;
use crate::analysis::vocabulary::Thresholds;
use crate::report::numfmt::{change_parts, percent};

use super::effect::directions;

super::on_the_wire!(AsBuilt {
    text: String = words
});

/// The answer of `a` in one sentence, at the report's thresholds.
pub(crate) fn words(a: &AsBuilt) -> String {
    sentence(a, a.is_time, &a.thresholds)
}

/// The answer in one sentence: where its mean lies among the random layouts' means, how far
/// from their mean (with the Fieller interval), and the verdict of the placement; for a
/// binary with the baseline's layout, that it is the default layout measured again. Quotes
/// the sentences of its shift and its placement.
pub(crate) fn sentence(a: &AsBuilt, is_time: bool, thresholds: &Thresholds) -> String {
    let (better, worse) = directions(is_time);
    let p = &a.placement;
    let same_layout = a.same_layout_as_baseline == Some(true);
    // "below it" of the default layout measured again; "below its [mean]" of a layout of
    // its own, after its verdict.
    let it = if same_layout { "it" } else { "its" };
    let Some(below) = super::default_layout::rank_clause(p, it) else {
        return format!(
            "The binary your build made (as built): {}",
            super::default_layout::words(p)
        );
    };
    let shift = match (a.shift.ratio, a.shift.ci) {
        // A tie has no direction: "0.0 % lower (0.0 % to 0.0 % lower)" would invent one.
        _ if super::shift::is_tie(&a.shift) => {
            format!("it gives {}", super::shift::tie_values(&a.shift))
        }
        (Some(ratio), Some(ci)) => {
            let (how, interval) = change_parts(
                ratio,
                ci.lower,
                ci.upper,
                thresholds.confidence,
                better,
                worse,
            );
            format!("it is {how} than the mean over random layouts ({interval})")
        }
        // The shift's own sentences end with a full stop; this sentence adds its own.
        _ => format!(
            "its distance from the mean over random layouts: {}",
            super::shift::words(&a.shift).trim_end_matches('.')
        ),
    };
    let verdict = match p.verdict {
        Verdict::Detected => "unusual among random layouts, so results on it alone are biased",
        Verdict::Negligible => "unusual, but negligibly so",
        Verdict::NotDetected if super::default_layout::beyond_every_random_layout(p) => {
            "not shown unusual, but beyond every random layout measured"
        }
        Verdict::NotDetected => "an ordinary layout",
        Verdict::Undetermined => "cannot tell whether it is unusual",
    };
    if same_layout {
        let against = against_baseline(a).map_or_else(String::new, |w| {
            format!(" Against the baseline, the other measurement of that layout, it is {w}")
        });
        return format!(
            "The binary your build made (as built) has the default code layout (the same functions in the same order at the same addresses as the baseline): it is a second measurement of that layout, not a layout of its own (its data sections may still differ; the build's note says how); in this measurement {below}, and {shift}.{against}"
        );
    }
    if let PlacementGrounds::Ranked { .. } = p.grounds {
        // Placed by rank among lumpy layouts: its own sentence says why and where.
        return format!(
            "The binary your build made (as built): {}; {shift}.",
            super::default_layout::words(p).trim_end_matches('.')
        );
    }
    format!("The binary your build made (as built) is {verdict}: {below}; {shift}.")
}

/// The as-built binary measured against the baseline, after a colon ("6.3 % faster (95 % CI:
/// …), paired by round; …"): for a binary with
/// the baseline's code layout whether the default layout's two measurements agree (two
/// measurements of one layout differing beyond the run's noise say that something besides
/// the code layout differs); for a layout of its own, its difference from the default
/// layout. `None` without that comparison.
pub(crate) fn against_baseline(a: &AsBuilt) -> Option<String> {
    let e = a.against_baseline.as_ref()?;
    let paired = match a.against_baseline_paired_on {
        Some(PairedOn::Round) => ", paired by round",
        Some(PairedOn::DataSeed) => ", paired by data seed",
        None => "",
    };
    let measured = format!("{}{paired}", super::effect::words(e));
    if a.same_layout_as_baseline != Some(true) {
        return Some(format!("{measured}."));
    }
    let negligible = percent(a.thresholds.negligible, 2);
    let how = match e.verdict {
        EffectVerdict::Lower | EffectVerdict::Higher => "the default layout's two measurements differ more than the run's noise explains, so something besides the code layout differs between the two binaries or their executions (their data sections, if the build's note says so, or the host while each ran), and neither alone measures the default layout".to_string(),
        EffectVerdict::Negligible => format!("the default layout's two measurements differ detectably, but by less than the {negligible} worth finding (--negligible)"),
        EffectVerdict::Unbounded => "the run's noise leaves their difference unbounded".to_string(),
        EffectVerdict::Tie | EffectVerdict::Equivalent | EffectVerdict::Inconclusive => "the default layout's two measurements agree within the run's noise; a difference this large is what measuring one code layout twice can give here".to_string(),
    };
    Some(format!("{measured}; {how}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::as_built::tests::series;
    use crate::analysis::answers::builder::analyse_series;
    use crate::seeded::SeededRng;

    /// The as-built answer of a binary 12 % faster than the layouts' centre (seeded by `tag`).
    fn fast_as_built(tag: &str) -> AsBuilt {
        let mut rng = SeededRng::new(11, tag);
        let s = series(&mut rng, Some(0.88));
        analyse_series(
            &s,
            Default::default(),
            &Default::default(),
            &Thresholds::default(),
            None,
        )
        .as_built
        .unwrap()
    }

    /// 12 % faster than the layouts' centre (4 of their standard deviations): unusual and
    /// below every layout, said with the interval of its distance on the faster side.
    #[test]
    fn far_below_the_layouts_it_is_called_unusual_and_faster() {
        let t = Thresholds::default();
        let a = fast_as_built("as-built-fast");
        insta::assert_snapshot!(sentence(&a, true, &t));
    }

    /// A tie has no direction: the default layout measured again, equal to the random
    /// layouts under each data seed, is said to give their values, not to be "0.0 % lower
    /// (0.0 % to 0.0 % lower)".
    #[test]
    fn a_paired_tie_is_said_as_a_tie_not_a_direction() {
        let t = Thresholds::default();
        let mut a = fast_as_built("as-built-tie");
        let tie = crate::analysis::effect::Effect::classify(1.0, Some((1.0, 1.0)), &t, true);
        a.shift.ratio = Some(1.0);
        a.shift.ci = tie.ci;
        a.shift.effect = Some(tie);
        a.shift.paired_on = Some(crate::analysis::answers::model::PairedOn::DataSeed);
        a.same_layout_as_baseline = Some(true);
        a.against_baseline = None;
        insta::assert_snapshot!(sentence(&a, true, &t));
    }

    /// The default layout measured twice: within the run's noise the two agree; beyond it,
    /// the words say that something besides the code layout differs; negligibly apart, by
    /// how little. A layout of its own gets its difference alone.
    #[test]
    fn the_default_layout_measured_twice_agrees_or_not() {
        let t = Thresholds::default();
        let mut a = fast_as_built("as-built-twice");
        let mut with = |ratio: f64, ci: (f64, f64), same: bool| {
            let e = crate::analysis::effect::Effect::classify(ratio, Some(ci), &t, true);
            a.against_baseline = Some(e);
            a.against_baseline_paired_on = Some(PairedOn::Round);
            a.same_layout_as_baseline = Some(same);
            against_baseline(&a).unwrap()
        };
        let words = [
            with(0.937, (0.867, 1.022), true),
            with(0.937, (0.90, 0.97), true),
            with(1.0016, (1.0015, 1.0017), true),
            with(0.937, (0.90, 0.97), false),
        ];
        insta::assert_snapshot!(words.join("\n"));
    }

    /// Without a bounded shift interval the sentence quotes the shift's words, whose own
    /// full stop is not doubled by the sentence's.
    #[test]
    fn an_unbounded_shift_is_quoted_with_one_full_stop() {
        let t = Thresholds::default();
        let mut a = fast_as_built("as-built-unbounded");
        a.shift.ci = None;
        a.shift.grounds =
            crate::analysis::answers::model::ShiftGrounds::NoRandomInterval { note: None };
        let text = sentence(&a, true, &t);
        assert!(
            text.ends_with(
                "its distance from the mean over random layouts: cannot tell: fewer than 2 \
                 randomised binaries, so the random layouts' mean has no interval."
            ),
            "{text}"
        );
    }
}
