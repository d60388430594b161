//! "Is the binary your build made an ordinary layout?" in words: the as-built binary's
//! shift and placement ([`crate::analysis::answers::as_built`]) in one sentence, after their
//! own sentences are written ([`super::shift`], [`super::default_layout`]).

use crate::analysis::answers::model::{AsBuilt, Verdict};
use crate::analysis::vocabulary::Thresholds;
use crate::report::numfmt::change_parts;

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
        return format!(
            "The binary your build made (as built) has the default code layout (the same functions in the same order at the same addresses as the baseline): it is a second measurement of that layout, not a layout of its own (its data sections may still differ; the build's note says how); in this measurement {below}, and {shift}."
        );
    }
    format!("The binary your build made (as built) is {verdict}: {below}; {shift}.")
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
        insta::assert_snapshot!(sentence(&a, true, &t));
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
