//! "How precisely do the data give the mean?" in words: the notes and warnings of `analyze`
//! ([`crate::analysis::single`]), from its figures, and the bootstrap's shortfalls that every
//! command shares.

use crate::analysis::single::BootstrapShortfall;
use crate::stats::bootstrap::ADVISABLE_UNITS;

/// Why a requested bootstrap interval is missing or not to be trusted; `units` names the
/// resampled units ("binaries").
pub fn bootstrap_shortfall(s: &BootstrapShortfall, units: &str) -> String {
    match s {
        BootstrapShortfall::Failed(why) => format!("no bootstrap interval: {why}"),
        BootstrapShortfall::FewUnits(n) => format!(
            "the bootstrap interval resamples only {n} {units}: not advisable below \
             {ADVISABLE_UNITS} (too few distinct resamples for its coverage to be trusted)"
        ),
    }
}
