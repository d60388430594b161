//! "What must the reader of a pair's comparison know?" in words: the warnings of the one
//! pair analysis ([`crate::analysis::pair`]) that `compare` and the variants section of
//! `report` share, from its [`PairWarning`]s.

use crate::analysis::pair::{PairInterval, PairWarning};

use super::single::bootstrap_shortfall;

/// One warning in words; `units` names the top-level units ("binaries").
pub(crate) fn warning(w: &PairWarning, units: &str) -> String {
    match w {
        PairWarning::NoFieller => {
            format!("no Fieller interval (eq. 5): each side needs at least two {units}")
        }
        PairWarning::Withheld { interval, why } => format!(
            "no {}: {}",
            match interval {
                PairInterval::Fieller => "Fieller interval (eq. 5)",
                PairInterval::Bootstrap => "bootstrap interval",
            },
            super::withheld::reason_with_units(*why, units)
        ),
        PairWarning::FewInCommon { common, base, new } => format!(
            "fewer than two {units} in common ({common} of {base} and {new}), so the verdict \
             rests on Fieller's interval for independent sides (eq. 5), and there is no paired \
             interval, share of faster {units} or interaction test"
        ),
        PairWarning::PartlyPaired {
            common,
            base,
            new,
            all_change,
            paired_change,
        } => {
            let left_out = format!(
                "paired on the {common} {units} both sides hold: {} of base's {base} and {} of \
                 new's {new} are left out of the paired interval (they count in the ratio and \
                 in eq. 5)",
                base - common,
                new - common
            );
            // The sides' means, shown over every unit, then point another way than the pairs.
            if all_change * paired_change < 0.0 {
                format!(
                    "{left_out}; over the {units} paired new's mean is {}, over all of each \
                     side's {units} {}: the {units} left out differ from those paired",
                    change_words(*paired_change),
                    change_words(*all_change),
                )
            } else {
                left_out
            }
        }
        PairWarning::NoInteraction(why) => format!("no interaction test: {why}"),
        PairWarning::Bootstrap(s) => bootstrap_shortfall(s, units),
    }
}

/// A relative change of new against base in words: "0.44 % below base's".
fn change_words(change: f64) -> String {
    if change < 0.0 {
        format!(
            "{} below base's",
            crate::report::numfmt::percent(-change, 2)
        )
    } else {
        format!("{} above base's", crate::report::numfmt::percent(change, 2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::positive::Withheld;
    use crate::analysis::single::BootstrapShortfall;

    #[test]
    fn a_partial_pairing_counts_what_each_side_leaves_out() {
        let mut w = PairWarning::PartlyPaired {
            common: 7,
            base: 10,
            new: 8,
            all_change: -0.02,
            paired_change: -0.01,
        };
        assert_eq!(
            warning(&w, "binaries"),
            "paired on the 7 binaries both sides hold: 3 of base's 10 and 1 of new's 8 are \
             left out of the paired interval (they count in the ratio and in eq. 5)"
        );
        // mujs's 20 seeds against 10: the means over all and over the pairs disagree.
        if let PairWarning::PartlyPaired { all_change, .. } = &mut w {
            *all_change = 0.0036;
        }
        assert_eq!(
            warning(&w, "binaries"),
            "paired on the 7 binaries both sides hold: 3 of base's 10 and 1 of new's 8 are \
             left out of the paired interval (they count in the ratio and in eq. 5); over the \
             binaries paired new's mean is 1.0 % below base's, over all of each side's \
             binaries 0.36 % above base's: the binaries left out differ from those paired"
        );
    }

    #[test]
    fn a_withheld_interval_is_named_with_the_one_rule_and_the_units() {
        let w = PairWarning::Withheld {
            interval: PairInterval::Bootstrap,
            why: Withheld::BelowZero,
        };
        assert_eq!(
            warning(&w, "rounds"),
            format!(
                "no bootstrap interval: {}",
                crate::report::words::withheld::reason_with_units(Withheld::BelowZero, "rounds")
            )
        );
        let few = PairWarning::Bootstrap(BootstrapShortfall::FewUnits(3));
        assert!(warning(&few, "binaries")
            .starts_with("the bootstrap interval resamples only 3 binaries: not advisable below "));
    }
}
