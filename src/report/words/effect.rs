//! The words of one ratio effect ([`Effect`]): "5.5 % faster (95 % CI: 3.0 % to 8.0 %
//! faster)", why it has no interval, and the qualifier saying why a detected or undetected
//! effect does or does not matter (the equivalence reasoning of Schuirmann 1987, see
//! [`crate::analysis::effect`]). Built from the effect's ratio, interval, verdict and
//! [`NoInterval`] grounds.

use crate::analysis::effect::{Effect, EffectVerdict, NoInterval};
use crate::analysis::numfmt::{change, level, percent, ratio as ratio_text};
use crate::analysis::positive::Withheld;
use crate::analysis::vocabulary::Thresholds;

/// Why a ratio whose reference is zero has no effect.
const NOT_COMPUTABLE: &str = "not computable: the reference's mean is zero or not finite";

/// The effect in words at `confidence`; `better`/`worse` name a ratio below/above 1
/// ("faster"/"slower" for times, "lower"/"higher" otherwise).
pub fn words(effect: &Effect, confidence: f64, better: &str, worse: &str) -> String {
    let ratio = effect.ratio;
    match (effect.verdict, effect.ci, effect.no_interval) {
        (EffectVerdict::Tie, _, _) => {
            "equal (a tie: every value is the same on both sides)".to_string()
        }
        (_, Some(ci), _) => change(ratio, ci.lower, ci.upper, confidence, better, worse),
        (_, None, Some(NoInterval::BelowZero)) => {
            format!(
                "ratio {}, {}",
                ratio_text(ratio),
                Withheld::BelowZero.reason()
            )
        }
        (_, None, Some(NoInterval::NotComputable)) => NOT_COMPUTABLE.to_string(),
        (_, None, _) if !ratio.is_finite() => NOT_COMPUTABLE.to_string(),
        (_, None, _) => format!(
            "ratio {}, with no bounded {} interval",
            ratio_text(ratio),
            level(confidence)
        ),
    }
}

/// A short qualifier after the words: why the effect does or does not matter at
/// `thresholds` (empty for a relevant change, a tie or no interval).
pub fn qualifier(effect: &Effect, thresholds: &Thresholds) -> String {
    let margin = percent(thresholds.negligible, 2);
    match effect.verdict {
        EffectVerdict::Negligible => {
            format!("detectable but negligible: the whole interval lies within ± {margin}")
        }
        EffectVerdict::Equivalent => {
            format!("no relevant difference: the whole interval lies within ± {margin}")
        }
        EffectVerdict::Inconclusive => {
            "no significant difference, but the interval reaches beyond the relevance threshold"
                .to_string()
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words built here are the engine's own (`Effect.words`, still filled by
    /// `classify` until every reader moves here) for every verdict and both metric kinds,
    /// at two confidence levels.
    #[test]
    fn words_match_the_classified_effect() {
        let cases: [(f64, Option<(f64, f64)>); 10] = [
            (0.647, Some((0.53, 0.775))),
            (1.2, Some((1.1, 1.3))),
            (1.003, Some((1.001, 1.005))),
            (1.0, Some((0.995, 1.005))),
            (1.0, Some((0.9, 1.1))),
            (1.0, Some((1.0, 1.0))),
            (1.1, Some((-1.765, 3.94))),
            (1.1, None),
            (1.1, Some((0.9, f64::INFINITY))),
            (f64::INFINITY, None),
        ];
        for confidence in [0.95, 0.99] {
            let th = Thresholds {
                confidence,
                ..Thresholds::default()
            };
            for (better, worse) in [("faster", "slower"), ("lower", "higher")] {
                for (r, b) in cases {
                    let e = Effect::classify(r, b, &th, better, worse);
                    assert_eq!(words(&e, confidence, better, worse), e.words, "{r} {b:?}");
                }
            }
        }
    }

    #[test]
    fn a_withheld_interval_says_why_and_not_its_ends() {
        let e = Effect::classify(1.1, Some((-1.765, 3.94)), &Thresholds::default(), "a", "b");
        let w = words(&e, 0.95, "faster", "slower");
        assert_eq!(e.no_interval, Some(NoInterval::BelowZero));
        assert!(w.contains("below zero") && !w.contains("276"), "{w}");
    }

    #[test]
    fn qualifiers_name_the_margin_for_negligible_and_equivalent_only() {
        let th = Thresholds::default();
        let q = |l, h| qualifier(&Effect::classify(1.0, Some((l, h)), &th, "a", "b"), &th);
        let margin = percent(th.negligible, 2);
        assert!(q(1.001, 1.005).starts_with("detectable but negligible"));
        assert!(q(0.995, 1.005).ends_with(&format!("± {margin}")));
        assert!(q(0.9, 1.1).starts_with("no significant difference"));
        assert_eq!(q(1.1, 1.3), "");
    }
}
