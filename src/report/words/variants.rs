//! "Is variant B faster than variant A, whatever the layout?" in words: the warnings of a
//! variant comparison ([`crate::analysis::variants`]), from its [`VariantWarning`]s.

use crate::analysis::variants::{NoTukey, VariantWarning};

/// One warning in words, e.g. "O3 vs O2: no interaction test: …".
pub fn warning(w: &VariantWarning) -> String {
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
