//! "Does the default layout differ from the mean over random layouts?" in words: the shift of
//! a fixed layout (the baseline, or the binary the build made) computed by
//! [`crate::analysis::report::shift`], with the rank of its mean among the random layouts'.

use crate::analysis::effect::EffectVerdict;
use crate::analysis::numfmt::ratio as fmt_ratio;
use crate::analysis::report::model::{Rank, Shift, ShiftGrounds};
use crate::analysis::vocabulary::Thresholds;

/// A fixed layout measured beside the random ones, with the words the answers name it by.
pub struct FixedWords {
    /// As the answers name it: "the default layout".
    pub name: &'static str,
    /// As a binary: "the baseline".
    pub binary: &'static str,
    /// Its mean, starting a sentence: "The default layout's mean".
    pub mean_words: &'static str,
    /// Short, in "whether the default is unusual".
    pub short: &'static str,
    /// The report's section that places it among the layouts.
    pub section: &'static str,
    /// The whole answer when it was not run.
    pub not_run: &'static str,
}

/// The default-layout baseline.
pub const BASELINE: FixedWords = FixedWords {
    name: "the default layout",
    binary: "the baseline",
    mean_words: "The default layout's mean",
    short: "the default",
    section: "Default layout",
    not_run: "cannot tell: the default-layout binary (baseline) was not run.",
};

/// The binary the user's build made (`as-built`).
pub const AS_BUILT: FixedWords = FixedWords {
    name: "the binary your build made",
    binary: "the as-built binary",
    mean_words: "The mean of the binary your build made",
    short: "it",
    section: "As built",
    not_run: "cannot tell: the binary your build made (as-built) was not run.",
};

/// `("faster", "slower")` for a time, `("lower", "higher")` otherwise.
pub fn directions(is_time: bool) -> (&'static str, &'static str) {
    if is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    }
}

/// The sentence of the shift `s` of `fixed` in a series of a time (`is_time`) or not.
pub fn sentence(s: &Shift, fixed: &FixedWords, is_time: bool, thresholds: &Thresholds) -> String {
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
            match &s.effect {
                Some(effect) => {
                    classified_words(effect, fixed, is_time, thresholds, &rank)
                }
                None => String::new(),
            }
        }
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

/// The words of a classified shift `effect`; `rank` ends every text.
fn classified_words(
    effect: &crate::analysis::effect::Effect,
    fixed: &FixedWords,
    is_time: bool,
    thresholds: &Thresholds,
    rank: &str,
) -> String {
    let what = if is_time { "" } else { " in this metric" };
    let (name, words, ratio) = (fixed.name, &effect.words, fmt_ratio(effect.ratio));
    match effect.verdict {
        EffectVerdict::Unbounded => format!("cannot tell: {words} (Fieller).{rank}"),
        EffectVerdict::Tie => format!("no shift: every measurement of {name} and of the random layouts has the same value.{rank}"),
        EffectVerdict::Lower | EffectVerdict::Higher => format!(
            "{name} differs from the mean over random layouts: it is {words}{what} than the average random layout (ratio {ratio}, Fieller interval). This is true of any single layout when layouts matter; whether {} is unusual among layouts is answered under {}.{rank}",
            fixed.short, fixed.section
        ),
        EffectVerdict::Negligible => format!(
            "a negligible shift: {name} is {words}{what} than the average random layout (ratio {ratio}, Fieller interval); {}.{rank}",
            effect.qualifier(thresholds)
        ),
        EffectVerdict::Equivalent | EffectVerdict::Inconclusive => format!(
            "no consistent shift: {name} is {words}{what} than the average random layout (ratio {ratio}, Fieller interval), an interval that includes no difference.{rank}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_fixed_layout_with_one_execution_is_named_and_counted() {
        let s = Shift {
            verdict: crate::analysis::vocabulary::Verdict::Undetermined,
            ratio: None,
            ci: None,
            baseline_rank: None,
            effect: None,
            grounds: ShiftGrounds::TooFewExecutions { executions: 1 },
            text: String::new(),
        };
        assert_eq!(
            sentence(&s, &AS_BUILT, true, &Thresholds::default()),
            "cannot tell: the as-built binary ran in 1 execution(s), so its mean has no interval (its iterations are no replicates of its executions); run it at least twice."
        );
    }
}
