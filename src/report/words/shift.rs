//! "Does the default layout differ from the mean over random layouts?" in words: the shift of
//! a fixed layout (the baseline, or the binary the build made) computed by
//! [`crate::analysis::answers::shift`], with the rank of its mean among the random layouts'.

use crate::analysis::answers::model::{FixedLayout, PairedOn, Rank, Shift, ShiftGrounds};
use crate::analysis::effect::EffectVerdict;
use crate::report::numfmt::{percent, ratio as fmt_ratio};

/// A fixed layout measured beside the random ones, with the words the answers name it by.
pub(crate) struct FixedWords {
    /// As the answers name it: "the default layout".
    pub(crate) name: &'static str,
    /// As a binary: "the baseline".
    pub(crate) binary: &'static str,
    /// Its mean, starting a sentence: "The default layout's mean".
    pub(crate) mean_words: &'static str,
    /// Short, in "whether the default is unusual".
    pub(crate) short: &'static str,
    /// The report's section that places it among the layouts.
    pub(crate) section: &'static str,
    /// The whole answer when it was not run.
    pub(crate) not_run: &'static str,
}

/// The default-layout baseline.
pub(crate) const BASELINE: FixedWords = FixedWords {
    name: "the default layout",
    binary: "the baseline",
    mean_words: "The default layout's mean",
    short: "the default",
    section: "Default layout",
    not_run: "cannot tell: the default-layout binary (baseline) was not run.",
};

/// The binary the user's build made (`as-built`).
pub(crate) const AS_BUILT: FixedWords = FixedWords {
    name: "the binary your build made",
    binary: "the as-built binary",
    mean_words: "The mean of the binary your build made",
    short: "it",
    section: "As built",
    not_run: "cannot tell: the binary your build made (as-built) was not run.",
};

/// The words `fixed` is named by.
pub(crate) fn fixed_words(fixed: FixedLayout) -> &'static FixedWords {
    match fixed {
        FixedLayout::Baseline => &BASELINE,
        FixedLayout::AsBuilt => &AS_BUILT,
    }
}

super::on_the_wire!(Shift {
    text: String = words
});

/// The sentence of the shift `s`, of the fixed layout it is of, in its series.
pub(crate) fn words(s: &Shift) -> String {
    sentence(s, fixed_words(s.fixed), s.is_time)
}

/// The sentence of the shift `s` of `fixed` in a series of a time (`is_time`) or not.
pub(crate) fn sentence(s: &Shift, fixed: &FixedWords, is_time: bool) -> String {
    match &s.grounds {
        ShiftGrounds::Unanalysed => String::new(),
        ShiftGrounds::NotRun => fixed.not_run.into(),
        ShiftGrounds::NoRandomInterval { note: Some(note) } => format!(
            "cannot tell: the random layouts' mean has no interval: {}.",
            super::single::interval_note(note)
        ),
        ShiftGrounds::NoRandomInterval { note: None } => "cannot tell: fewer than 2 randomised binaries, so the random layouts' mean has no interval.".into(),
        ShiftGrounds::TooFewExecutions { executions } => format!(
            "cannot tell: {} ran in {executions} execution(s), so its mean has no interval (its iterations are no replicates of its executions); run it at least twice.",
            fixed.binary,
        ),
        ShiftGrounds::Classified { rank } => {
            let rank = rank_words(fixed, rank);
            let paired = s.paired_on;
            match &s.effect {
                Some(effect) => {
                    classified_words(effect, fixed, (is_time, paired), &rank)
                }
                None => String::new(),
            }
        }
    }
}

/// Whether the shift `s` is a tie: every value of the fixed layout equals the random
/// layouts' (under each data seed, when paired on it).
pub(crate) fn is_tie(s: &Shift) -> bool {
    s.effect
        .as_ref()
        .is_some_and(|e| e.verdict == EffectVerdict::Tie)
}

/// What a tie `s` gives, after "gives": exactly the random layouts' values, under each data
/// seed (within each round) when the shift was paired on it (the data layout, or the host's
/// state, still moves them all).
pub(crate) fn tie_values(s: &Shift) -> &'static str {
    match s.paired_on {
        Some(PairedOn::DataSeed) => {
            "exactly the same values as the random layouts under each data seed"
        }
        Some(PairedOn::Round) => "exactly the same values as the random layouts within each round",
        None => "exactly the same values as the random layouts",
    }
}

/// Where the fixed layout's mean lies among the random layouts' means, in words; equal
/// means are counted as ties, not as "below".
fn rank_words(fixed: &FixedWords, rank: &Rank) -> String {
    let Rank { below, equal, n } = *rank;
    let above = n - below - equal;
    let who = fixed.mean_words;
    match (below, equal, above) {
        (0, e, 0) if e == n => {
            format!(" {who} equals those of all {n} random layouts (a tie).")
        }
        (0, 0, _) => format!(" {who} is below those of all {n} random layouts."),
        (_, 0, 0) => format!(" {who} is above those of all {n} random layouts."),
        (b, 0, _) => format!(" {who} is above that of {b} of the {n} random layouts."),
        (b, e, _) => format!(
            " {who} is above that of {b} and equal to that of {e} of the {n} random layouts."
        ),
    }
}

/// The words of a classified shift `effect` in a series of a time (`is_time`) or not,
/// `paired` on the data seed or the round, or not; `rank` ends every text.
fn classified_words(
    effect: &crate::analysis::effect::Effect,
    fixed: &FixedWords,
    (is_time, paired): (bool, Option<PairedOn>),
    rank: &str,
) -> String {
    let what = if is_time { "" } else { " in this metric" };
    let (name, words, ratio) = (
        fixed.name,
        &super::effect::words(effect),
        fmt_ratio(effect.ratio),
    );
    match effect.verdict {
        EffectVerdict::Unbounded => format!("cannot tell: {words} (Fieller).{rank}"),
        // Paired on the data seed, the values are equal under each data seed, not one
        // value everywhere: the data layout still moves them all.
        EffectVerdict::Tie => format!(
            "no shift: every measurement of {name} and of the random layouts has the same value{}.{rank}",
            match paired {
                Some(PairedOn::DataSeed) => " under each data seed",
                Some(PairedOn::Round) => " within each round",
                None => "",
            }
        ),
        EffectVerdict::Lower | EffectVerdict::Higher => format!(
            "{name} differs from the mean over random layouts: it is {words}{what} than the average random layout (ratio {ratio}, Fieller interval). This is true of any single layout when layouts matter; whether {} is unusual among layouts is answered under {}.{rank}",
            fixed.short, fixed.section
        ),
        EffectVerdict::Negligible => format!(
            "a negligible shift: {name} is {words}{what} than the average random layout (ratio {ratio}, Fieller interval); {}.{rank}",
            super::effect::qualifier(effect)
        ),
        EffectVerdict::Equivalent => format!(
            "no relevant shift: {name} is {words}{what} than the average random layout (ratio {ratio}, Fieller interval); {}.{rank}",
            super::effect::qualifier(effect)
        ),
        // The interval includes no difference and relevant ones alike: the data cannot
        // answer, which "no shift" would hide (cmark 0.30: next to "unusual", it read as a
        // contradiction).
        EffectVerdict::Inconclusive => format!(
            "cannot tell: {name} is {words}{what} than the average random layout (ratio {ratio}, Fieller interval), an interval that includes no difference but also differences beyond ± {} (--negligible); whether {} is unusual among layouts is answered under {}.{rank}",
            percent(effect.thresholds.negligible, 2),
            fixed.short,
            fixed.section
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::vocabulary::Thresholds;

    #[test]
    fn ranks_count_ties_apart_from_the_means_below() {
        let r = |below, equal, n| rank_words(&BASELINE, &Rank { below, equal, n });
        assert_eq!(
            r(0, 4, 4),
            " The default layout's mean equals those of all 4 random layouts (a tie)."
        );
        assert_eq!(
            r(0, 0, 4),
            " The default layout's mean is below those of all 4 random layouts."
        );
        assert_eq!(
            r(3, 1, 10),
            " The default layout's mean is above that of 3 and equal to that of 1 of the 10 random layouts."
        );
    }

    /// Paired on the data seed, a tie is one of equal values under each data seed (the data
    /// layout still moves them all); unpaired, of one value everywhere.
    #[test]
    fn a_paired_tie_is_said_under_each_data_seed() {
        let t = Thresholds::default();
        let effect = crate::analysis::effect::Effect::classify(1.0, Some((1.0, 1.0)), &t, false);
        assert_eq!(effect.verdict, EffectVerdict::Tie);
        let mut s = Shift {
            verdict: crate::analysis::vocabulary::Verdict::NotDetected,
            ratio: Some(1.0),
            ci: effect.ci,
            baseline_rank: Some(0.0),
            effect: Some(effect),
            grounds: ShiftGrounds::Classified {
                rank: Rank {
                    below: 0,
                    equal: 6,
                    n: 6,
                },
            },
            paired_on: Some(PairedOn::DataSeed),
            fixed: Default::default(),
            is_time: false,
        };
        assert_eq!(
            sentence(&s, &BASELINE, false),
            "no shift: every measurement of the default layout and of the random layouts has \
             the same value under each data seed. The default layout's mean equals those of \
             all 6 random layouts (a tie)."
        );
        s.paired_on = None;
        assert_eq!(
            sentence(&s, &AS_BUILT, false),
            "no shift: every measurement of the binary your build made and of the random \
             layouts has the same value. The mean of the binary your build made equals those \
             of all 6 random layouts (a tie)."
        );
    }

    #[test]
    fn a_fixed_layout_with_one_execution_is_named_and_counted() {
        let s = Shift {
            verdict: crate::analysis::vocabulary::Verdict::Undetermined,
            ratio: None,
            ci: None,
            baseline_rank: None,
            effect: None,
            grounds: ShiftGrounds::TooFewExecutions { executions: 1 },
            paired_on: None,
            fixed: Default::default(),
            is_time: false,
        };
        assert_eq!(
            sentence(&s, &AS_BUILT, true),
            "cannot tell: the as-built binary ran in 1 execution(s), so its mean has no interval (its iterations are no replicates of its executions); run it at least twice."
        );
    }
}
