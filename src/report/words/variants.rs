//! "Is variant B faster than variant A, whatever the layout?" in words: the sentence of a
//! variant comparison ([`crate::analysis::variants`]) from its effect, its share of layouts
//! and its interaction, with the Bonferroni adjustment it was made at, and its warnings
//! from its [`VariantWarning`]s.

use crate::analysis::effect::EffectVerdict;
use crate::analysis::pair::ShareBelow;
use crate::analysis::variants::{
    Adjustment, NoTukey, PairComparison, TukeyPairJson, VariantWarning,
};
use crate::report::numfmt::{change_parts, level, percent};

super::on_the_wire!(PairComparison {
    text: String = sentence
});
super::on_the_wire!(TukeyPairJson {
    ratio_ci_note: Option<String> = |p: &TukeyPairJson| p
        .ratio_ci_withheld
        .map(|w| super::withheld::reason(w).to_string()),
});

/// "O3 is 4.1 % faster than O2 (95 % CI: 2.9 % to 5.3 % faster), faster on 28 of 30
/// layouts; the ratio varies with the layout by 2.1 % (standard deviation across layouts,
/// 95 % CI: 1.2 % to 3.5 %; interaction p = 0.003)", at the comparison's own (adjusted)
/// confidence, then the adjustment.
pub(crate) fn sentence(c: &PairComparison) -> String {
    let (base, new, effect) = (&c.base, &c.new, &c.pair.effect);
    let (better, worse) = super::effect::directions(effect.is_time);
    let th = &effect.thresholds;
    let parts = effect.ci.map(|ci| {
        change_parts(
            effect.ratio,
            ci.lower,
            ci.upper,
            th.confidence,
            better,
            worse,
        )
    });
    let margin = percent(th.negligible, 2);
    let mut text = match (effect.verdict, &parts) {
        (EffectVerdict::Lower | EffectVerdict::Higher, Some((head, ci))) => {
            format!("{new} is {head} than {base} ({ci})")
        }
        (EffectVerdict::Negligible, Some((head, ci))) => format!(
            "{new} is {head} than {base}: detectable but negligible ({ci}, within ± {margin})"
        ),
        (EffectVerdict::Equivalent, Some((head, ci))) => format!(
            "no relevant difference between {new} and {base}: {head} ({ci}, within ± {margin})"
        ),
        (EffectVerdict::Inconclusive, Some((head, ci))) => format!(
            "no significant difference between {new} and {base}: {head} ({ci}), more \
             binaries would tell"
        ),
        (EffectVerdict::Tie, _) => {
            format!("{new} and {base} tie: every measurement has the same value")
        }
        // The effect's own words say why there is no interval (unbounded, or reaching
        // below zero), without blaming a side it may not be true of.
        _ => format!(
            "{new} against {base}: cannot tell: {}; measure more binaries",
            super::effect::words(effect)
        ),
    };
    if let Some(s) = &c.pair.share_below {
        text.push_str(&layouts(s, effect.verdict, better, worse));
    }
    if let Some(i) = &c.pair.interaction {
        text.push_str("; ");
        text.push_str(&super::interaction::clause(i));
    }
    if let Some(a) = &c.adjustment {
        text.push_str(&adjusted(a, base));
    }
    text
}

/// The layouts on which new is faster or slower, e.g. ", faster on 28 of 30 layouts". A
/// slower variant, or one faster on none, is described by the layouts on which it is
/// slower, never as "faster on 0 of 6 layouts"; equal values on every layout (a tie) are
/// said as such.
fn layouts(s: &ShareBelow, verdict: EffectVerdict, better: &str, worse: &str) -> String {
    if s.below == 0 && s.above == 0 {
        return match s.compared {
            1 => ", equal on the 1 layout".to_string(),
            n => format!(", equal on all {n} layouts"),
        };
    }
    if verdict == EffectVerdict::Higher || (s.below == 0 && verdict != EffectVerdict::Lower) {
        format!(", {worse} on {} of {} layouts", s.above, s.compared)
    } else {
        format!(", {better} on {} of {} layouts", s.below, s.compared)
    }
}

/// The sentence's last clause for an adjusted comparison.
fn adjusted(a: &Adjustment, base: &str) -> String {
    if a.suite_cases > 1 {
        return format!(
            " (Bonferroni over the suite's {} cases: each of the {} comparisons with {base} at \
             {}, so that together they hold at {})",
            a.suite_cases,
            a.comparisons,
            level(a.confidence),
            level(a.family_confidence)
        );
    }
    format!(
        " (Bonferroni: each of the {} comparisons with {base} at {}, so that together they \
         hold at {})",
        a.comparisons,
        level(a.confidence),
        level(a.family_confidence)
    )
}

/// One warning in words, e.g. "O3 vs O2: no interaction test: …".
pub(crate) fn warning(w: &VariantWarning) -> String {
    match w {
        VariantWarning::Pair { new, base, warning } => {
            format!(
                "{new} vs {base}: {}",
                super::pair::warning(warning, "binaries")
            )
        }
        VariantWarning::NoTukey(NoTukey::UnequalBinaries) => "no Tukey HSD: the variants share \
             fewer than two seeds and have different numbers of binaries"
            .to_string(),
        VariantWarning::NoTukey(NoTukey::Stats(why)) => format!("no Tukey HSD: {why}"),
    }
}
