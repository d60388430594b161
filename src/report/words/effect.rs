//! The words of one ratio effect ([`Effect`]): "5.5 % faster (95 % CI: 3.0 % to 8.0 %
//! faster)", why it has no interval, and the qualifier saying why a detected or undetected
//! effect does or does not matter (the equivalence reasoning of Schuirmann 1987, see
//! [`crate::analysis::effect`]). Built from the effect's ratio, interval, verdict and
//! [`NoInterval`] grounds.

use serde::Serialize;

use crate::analysis::effect::{Effect, EffectVerdict, Interval, NoInterval};
use crate::analysis::positive::Withheld;
use crate::report::numfmt::{change, level, percent, ratio as ratio_text};

/// Why a ratio whose reference is zero has no effect.
const NOT_COMPUTABLE: &str = "not computable: the reference's mean is zero or not finite";

/// `("faster", "slower")` for a time, `("lower", "higher")` otherwise.
pub(crate) fn directions(is_time: bool) -> (&'static str, &'static str) {
    if is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    }
}

/// The effect in words at its confidence level, "faster"/"slower" for a ratio below/above 1
/// of a time, "lower"/"higher" otherwise.
pub fn words(effect: &Effect) -> String {
    let (better, worse) = directions(effect.is_time);
    let ratio = effect.ratio;
    match (effect.verdict, effect.ci, effect.no_interval) {
        (EffectVerdict::Tie, _, _) => {
            "equal (a tie: every value is the same on both sides)".to_string()
        }
        (_, Some(ci), _) => change(
            ratio,
            ci.lower,
            ci.upper,
            effect.thresholds.confidence,
            better,
            worse,
        ),
        (_, None, Some(NoInterval::BelowZero)) => {
            format!(
                "ratio {}, {}",
                ratio_text(ratio),
                super::withheld::reason(Withheld::BelowZero)
            )
        }
        (_, None, Some(NoInterval::NotComputable)) => NOT_COMPUTABLE.to_string(),
        (_, None, _) if !ratio.is_finite() => NOT_COMPUTABLE.to_string(),
        (_, None, _) => format!(
            "ratio {}, with no bounded {} interval",
            ratio_text(ratio),
            level(effect.thresholds.confidence)
        ),
    }
}

// An effect as every JSON output writes it: its numbers and verdict, and its [`words`]
// (docs/formats.md, "Effect"); the doc comment below is the schema's description.
/// A ratio effect with its interval, its verdict and its words.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "Effect")]
struct EffectOnTheWire {
    /// `new / reference`.
    ratio: f64,
    /// Its confidence interval; `None` when unbounded or not computable.
    ci: Option<Interval>,
    /// The classification at the thresholds used.
    verdict: EffectVerdict,
    /// The effect in words, e.g. "5.5 % faster (95 % CI: 3.0 % to 8.0 % faster)".
    words: String,
}

impl EffectOnTheWire {
    fn of(effect: &Effect) -> EffectOnTheWire {
        EffectOnTheWire {
            ratio: effect.ratio,
            ci: effect.ci,
            verdict: effect.verdict,
            words: words(effect),
        }
    }
}

// The model holds no words: its JSON gains them here, where every sentence is built.
impl Serialize for Effect {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        EffectOnTheWire::of(self).serialize(serializer)
    }
}

impl schemars::JsonSchema for Effect {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        EffectOnTheWire::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        EffectOnTheWire::json_schema(generator)
    }
}

/// A short qualifier after the words: why the effect does or does not matter at its
/// relevance margin (empty for a relevant change, a tie or no interval).
pub(crate) fn qualifier(effect: &Effect) -> String {
    let margin = percent(effect.thresholds.negligible, 2);
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
    use crate::analysis::vocabulary::Thresholds;

    /// The words of every verdict for both metric kinds at two confidence levels, against
    /// the sentences they must read (issue 10's Fieller example first).
    #[test]
    fn words_of_every_verdict() {
        let th = |confidence| Thresholds {
            confidence,
            ..Thresholds::default()
        };
        let w = |r, b, c, is_time| words(&Effect::classify(r, b, &th(c), is_time));
        assert_eq!(
            w(0.647, Some((0.53, 0.775)), 0.95, true),
            "35.3 % faster (95 % CI: 22.5 % to 47.0 % faster)"
        );
        assert_eq!(
            w(1.2, Some((1.1, 1.3)), 0.99, false),
            "20.0 % higher (99 % CI: 10.0 % to 30.0 % higher)"
        );
        assert_eq!(
            w(1.0, Some((1.0, 1.0)), 0.95, true),
            "equal (a tie: every value is the same on both sides)"
        );
        assert_eq!(
            w(1.1, None, 0.99, true),
            "ratio 1.1000, with no bounded 99 % interval"
        );
        assert_eq!(w(f64::INFINITY, None, 0.95, true), NOT_COMPUTABLE);
        assert_eq!(
            w(1.1, Some((0.9, f64::INFINITY)), 0.95, false),
            "ratio 1.1000, with no bounded 95 % interval"
        );
    }

    /// The JSON of an effect: the model's numbers and verdict with the words, in the order
    /// docs/formats.md gives; nothing else (the grounds of its words stay inside).
    #[test]
    fn the_json_carries_the_words() {
        let e = Effect::classify(0.647, Some((0.53, 0.775)), &Thresholds::default(), true);
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            "{\"ratio\":0.647,\"ci\":{\"lower\":0.53,\"upper\":0.775},\"verdict\":\"lower\",\
             \"words\":\"35.3 % faster (95 % CI: 22.5 % to 47.0 % faster)\"}"
        );
    }

    #[test]
    fn a_withheld_interval_says_why_and_not_its_ends() {
        let e = Effect::classify(1.1, Some((-1.765, 3.94)), &Thresholds::default(), true);
        let w = words(&e);
        assert_eq!(e.no_interval, Some(NoInterval::BelowZero));
        assert!(w.contains("below zero") && !w.contains("276"), "{w}");
    }

    #[test]
    fn qualifiers_name_the_margin_for_negligible_and_equivalent_only() {
        let th = Thresholds::default();
        let q = |l, h| qualifier(&Effect::classify(1.0, Some((l, h)), &th, true));
        let margin = percent(th.negligible, 2);
        assert!(q(1.001, 1.005).starts_with("detectable but negligible"));
        assert!(q(0.995, 1.005).ends_with(&format!("± {margin}")));
        assert!(q(0.9, 1.1).starts_with("no significant difference"));
        assert_eq!(q(1.1, 1.3), "");
    }
}
