//! "Why is there no interval?" in words, the same in every command and output: the reasons
//! an interval of a positive quantity is withheld ([`Withheld`], the one rule of
//! [`crate::analysis::positive`]).

use crate::analysis::positive::Withheld;

/// Why the interval is not given; a caller adds what would narrow it
/// ([`reason_with_units`]).
pub(crate) fn reason(w: Withheld) -> &'static str {
    match w {
        Withheld::BelowZero => {
            "cannot tell how precisely: the interval would reach below zero, impossible for a \
             quantity whose every value is positive"
        }
        Withheld::Unbounded => {
            "cannot tell how precisely: the data bound the interval on one side only"
        }
    }
}

/// [`reason`] with what would narrow the interval: "…; more binaries would narrow it".
pub(crate) fn reason_with_units(w: Withheld, units: &str) -> String {
    format!("{}; more {units} would narrow it", reason(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_says_cannot_tell_and_why() {
        let below = reason_with_units(Withheld::BelowZero, "binaries");
        assert!(below.starts_with("cannot tell how precisely: the interval would reach below zero"));
        assert!(
            below.ends_with("; more binaries would narrow it"),
            "{below}"
        );
        assert!(reason(Withheld::Unbounded).contains("on one side only"));
    }
}
