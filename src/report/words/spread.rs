//! The spread over layouts of a comparison's two sides, in words: each side's standard
//! deviation with its interval, what their ratio shows, and where the new mean lies against
//! the base's median layout (the proof of a pin, docs/pin.md).

use crate::analysis::answers::spread::{
    AgainstMedian, LayoutSpread, NoiseContrast, SpreadChange, SpreadComparison,
};
use crate::report::numfmt::{level, p_value, percent, Scale};

/// One side's deviation and its interval: `46,471 (95 % CI 30,120 to 88,310)`.
fn side_sd(s: &LayoutSpread, scale: &Scale, pct: &str) -> String {
    match s.sd_ci {
        Some(ci) => {
            let (lower, upper) = scale.bounds(ci.lower, ci.upper);
            format!("{} ({pct} CI {lower} to {upper})", scale.quantity(s.sd))
        }
        None if s.sd == 0.0 => "0 (every layout gave the same value)".into(),
        None => format!("{} (no interval)", scale.quantity(s.sd)),
    }
}

/// What the ratio of the deviations shows, with its magnitude.
fn change(s: &SpreadComparison, pct: &str) -> String {
    let Some(ci) = s.ratio_ci else {
        return if s.new.sd == 0.0 {
            "every new layout gave the same value: its spread is 0 in this sample, without an interval of the ratio".into()
        } else {
            "every base layout gave the same value: no ratio of the spreads".into()
        };
    };
    let ratio = format!(
        "new's spread is {} of base's ({pct} CI {} to {})",
        percent(s.ratio, 2),
        percent(ci.lower, 2),
        percent(ci.upper, 2)
    );
    let verdict = match s.change {
        SpreadChange::Narrower => format!(
            "{ratio}: narrower, by at least {}",
            percent(1.0 - ci.upper, 2)
        ),
        SpreadChange::Wider => format!("{ratio}: wider, at least {:.2} times base's", ci.lower),
        SpreadChange::CannotTell => format!("{ratio}: cannot tell narrower from wider"),
    };
    match &s.noise {
        Some(n) => format!("{verdict}{}", noise_words(n, s.change)),
        None => verdict,
    }
}

/// The sides' differing execution noise, as the end of the ratio's sentence: what each
/// leaves in a binary's mean, and whether that withheld the verdict `change`, works against
/// it, or favours it by too little to make it.
fn noise_words(n: &NoiseContrast, change: SpreadChange) -> String {
    let noises = format!(
        "the sides' executions vary differently (base {}, new {}; F test {}), and a binary's \
         mean carries that noise (base {}, new {} of the mean)",
        percent(n.base_cv, 2),
        percent(n.new_cv, 2),
        p_value(n.p),
        percent(n.base_in_mean, 2),
        percent(n.new_in_mean, 2)
    );
    if n.withheld {
        format!(
            ", because {noises}: the difference in noise alone could make the spreads differ \
             this way (run both sides interleaved, as variants of one experiment, or under \
             cachegrind)"
        )
    } else {
        let new_quieter = n.new_in_mean < n.base_in_mean;
        match (change, new_quieter) {
            (SpreadChange::Narrower, true) | (SpreadChange::Wider, false) => {
                format!("; {noises}, which favours this difference but is too small to make it")
            }
            (SpreadChange::Narrower | SpreadChange::Wider, _) => {
                format!("; {noises}, which works against this difference")
            }
            (SpreadChange::CannotTell, _) => format!("; {noises}"),
        }
    }
}

/// Where the new mean lies against the base's median layout.
fn against_median(s: &SpreadComparison, new_mean: f64, scale: &Scale, pct: &str) -> String {
    let median = match s.base.median_ci {
        Some(ci) => {
            let (lower, upper) = scale.bounds(ci.lower, ci.upper);
            format!(
                "{} ({pct} CI {lower} to {upper}, distribution-free)",
                scale.quantity(s.base.median)
            )
        }
        None => format!(
            "{} (too few binaries for an interval)",
            scale.quantity(s.base.median)
        ),
    };
    let shift = new_mean / s.base.median - 1.0;
    let by = match shift {
        0.0 => "equal".to_string(),
        d if d < 0.0 => format!("{} lower", percent(-d, 2)),
        d => format!("{} higher", percent(d, 2)),
    };
    let verdict = match s.new_mean_against_base_median {
        AgainstMedian::Below => format!("{by}: below the typical base layout"),
        AgainstMedian::Above => format!("{by}: above the typical base layout"),
        AgainstMedian::CannotTell => {
            let why = match (s.new_mean_ci, s.base.median_ci) {
                (Some(_), Some(_)) => "the intervals overlap",
                (None, _) => "new's mean has no interval",
                (_, None) => "the median has no interval",
            };
            format!("{by}, but {why}: cannot tell apart from the typical base layout")
        }
    };
    format!(
        "new's mean {} against base's median layout {median}: {verdict}",
        scale.quantity(new_mean)
    )
}

/// The spread's lines, for a comparison whose values print in `scale`; with `pin_proof` (the
/// new side pinned, the base random) also the new mean against the base's median layout,
/// which a pin promises not to exceed.
pub(crate) fn lines(
    s: &SpreadComparison,
    new_mean: f64,
    scale: &Scale,
    confidence: f64,
    pin_proof: bool,
) -> Vec<String> {
    let pct = level(confidence);
    let mut lines = vec![
        format!(
            "spread over layouts (sd of the binaries' means; Bonett's intervals, which allow a few far-off layouts): base {}, new {}",
            side_sd(&s.base, scale, &pct),
            side_sd(&s.new, scale, &pct)
        ),
        change(s, &pct),
    ];
    if pin_proof {
        lines.push(against_median(s, new_mean, scale, &pct));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::spread::{pinned_example, spread_comparison};

    /// A pin's proof in words: a lumpy random side, a tight pinned one, every line pinned;
    /// then the same layouts on both sides (without and with the median's line: no interval
    /// of the new mean, so no verdict), and a constant new side.
    #[test]
    fn the_spread_lines_say_the_ratio_and_the_median() {
        let (base, new, mean_ci) = pinned_example();
        let scale = Scale::for_values("count", 5_000.0);
        let proof = spread_comparison(&base, &new, Some(mean_ci), None, 0.95).unwrap();
        let same = spread_comparison(&base, &base, None, None, 0.95).unwrap();
        let constant = spread_comparison(&base, &[4_000.0; 20], None, None, 0.95).unwrap();
        let text = [
            lines(&proof, 4_810.0, &scale, 0.95, true),
            lines(&same, 15_000.0, &scale, 0.95, false),
            lines(&same, 15_000.0, &scale, 0.95, true),
            lines(&constant, 4_000.0, &scale, 0.95, true),
        ]
        .map(|l| l.join("\n"))
        .join("\n\n");
        insta::assert_snapshot!(text);
    }

    /// The differing noise in words: withheld, working against the verdict, or favouring it
    /// by too little to make it.
    #[test]
    fn the_noise_difference_is_said_with_both_noises() {
        let mut n = NoiseContrast {
            base_cv: 0.01,
            new_cv: 0.067,
            base_in_mean: 0.0045,
            new_in_mean: 0.03,
            p: 1e-6,
            withheld: true,
        };
        let withheld = noise_words(&n, SpreadChange::CannotTell);
        assert!(
            withheld.contains("base 1.0 %, new 6.7 %")
                && withheld.contains("base 0.45 %, new 3.0 % of the mean")
                && withheld.contains("the difference in noise alone could make the spreads differ"),
            "{withheld}"
        );
        n.withheld = false;
        // New is noisier: against narrower, for wider.
        let narrower = noise_words(&n, SpreadChange::Narrower);
        assert!(
            narrower.ends_with("which works against this difference"),
            "{narrower}"
        );
        let wider = noise_words(&n, SpreadChange::Wider);
        assert!(
            wider.ends_with("which favours this difference but is too small to make it"),
            "{wider}"
        );
    }
}
