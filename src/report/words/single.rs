//! "How precisely do the data give the mean?" in words: the notes and warnings of `analyze`
//! ([`crate::analysis::single`]), from its figures, the notes of every interval of a mean
//! (`report`'s series and fixed layouts, each side of `compare`), and the bootstrap's
//! shortfalls that every command shares.

use super::OVERFLOW_REASON;
use crate::analysis::answers::model::SeriesReport;
use crate::analysis::single::{
    plural, units, Analysis, BootstrapShortfall, Excluded, IntervalNote, Narrowing, SingleWarning,
    CLT_UNITS, MAX_INFORMATIVE_RELATIVE_HALF_WIDTH,
};
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::report::numfmt::{counted, p_value, percent, sig};
use crate::stats::bootstrap::ADVISABLE_UNITS;

super::on_the_wire!(Analysis { bootstrap_note: Option<String> = bootstrap_note });
super::said_as!(SingleWarning = warning);
super::said_as!(Excluded = excluded);

/// Why `analyze`'s bootstrap interval is missing, or not to be trusted.
pub fn bootstrap_note(a: &Analysis) -> Option<String> {
    let top_name = a.levels.last().map_or("unit", |l| l.name.as_str());
    (a.bootstrap_grounds.as_ref()).map(|s| bootstrap_shortfall(s, &plural(top_name)))
}

/// The rows `analyze` left out, in words.
pub fn excluded(e: &Excluded) -> String {
    match e {
        Excluded::DefaultLayoutRows(n) => format!(
            "{n} rows of the default-layout baseline (column \"layout\" = \"default\"), as \
             `report` leaves the baseline out of the random layouts"
        ),
        Excluded::AsBuiltRows(n) => format!(
            "{n} rows of the build's own binary (column \"layout\" = \"as_built\"), a fixed \
             layout that `report` also keeps out of the random layouts"
        ),
    }
}

// Every `ci_note` and `interval_note` on the wire.
super::said_as!(IntervalNote = interval_note);

/// Why a mean has no interval, or how to read the one it has.
pub(crate) fn interval_note(n: &IntervalNote) -> String {
    match n {
        IntervalNote::Withheld { why, units } => {
            super::withheld::reason_with_units(*why, &narrowing(units))
        }
        IntervalNote::TooWide { relative, units } => format!(
            "cannot tell precisely: the interval is wider than ± {} of the mean (± {}); more {} \
             would narrow it",
            percent(MAX_INFORMATIVE_RELATIVE_HALF_WIDTH, 2),
            percent(*relative, 2),
            narrowing(units)
        ),
        IntervalNote::Overflow => format!(
            "the confidence interval is not computable: {OVERFLOW_REASON}; rescale the values \
             (e.g. another unit)"
        ),
    }
}

/// The units whose number would narrow an interval, in the plural ("binaries").
fn narrowing(units: &Narrowing) -> String {
    match units {
        Narrowing::Level(name) => plural(name),
        Narrowing::BinariesAndDataSeeds => "binaries and data seeds".to_string(),
    }
}

/// One warning of `analyze`.
pub(crate) fn warning(w: &SingleWarning) -> String {
    match w {
        SingleWarning::VarianceOverflow => "some variances are not computable: the values' \
            spread exceeds the range of double precision (values near ±1.8e308); rescale the \
            values (e.g. another unit)"
            .to_string(),
        SingleWarning::NoVarianceAdded { level, t2, below } => format!(
            "T² of level \"{level}\" is {} (≤ 0): the {} add no measurable variance beyond what \
             the {} already show; repeat them less (Kalibera & Jones §9.2)",
            sig(*t2, 4),
            plural(level),
            plural(below),
        ),
        SingleWarning::SingleRepetition => "a level has a single repetition, so its variance \
            cannot be separated from the level above"
            .to_string(),
        SingleWarning::MeanOverflow => {
            "the mean is not computable: the values exceed the range of double precision".into()
        }
        SingleWarning::Interval(n @ IntervalNote::Overflow) => interval_note(n),
        SingleWarning::Interval(n) => format!("the confidence interval: {}", interval_note(n)),
        SingleWarning::OneTopUnit {
            top_units,
            top_name,
        } => format!(
            "only {}: no confidence interval is possible; repeat the top level at least twice \
             ({MIN_TOP_LEVEL_UNITS} or more recommended)",
            units(*top_units, top_name)
        ),
        SingleWarning::FewTopUnits {
            top_units,
            top_name,
        } => format!(
            "only {}: the interval rests on {} of freedom and is very wide; Kalibera & Jones \
             use at least {MIN_TOP_LEVEL_UNITS} at the top level",
            units(*top_units, top_name),
            counted(top_units - 1, "degree", "degrees"),
        ),
        SingleWarning::NotNormal {
            top_units,
            top_name,
            p,
            bootstrapped,
        } => format!(
            "the {top_units} {top_name} means do not look normal (Shapiro–Wilk, {}) and there \
             are fewer than {CLT_UNITS}: the t interval may be off; {}",
            p_value(*p),
            bootstrap_advice(*top_units, top_name, *bootstrapped)
        ),
        SingleWarning::Bootstrap {
            shortfall,
            top_name,
        } => bootstrap_shortfall(shortfall, &plural(top_name)),
    }
}

/// What to do about a doubtful t interval with `units` top-level units: the bootstrap when
/// there are enough of them for it to cover ([`ADVISABLE_UNITS`]; the one shown when
/// `bootstrapped`, else the option), else only more units.
fn bootstrap_advice(units: usize, top_name: &str, bootstrapped: bool) -> String {
    if units >= ADVISABLE_UNITS && bootstrapped {
        format!(
            "prefer the bootstrap interval given with the mean or add more {}",
            plural(top_name)
        )
    } else if units >= ADVISABLE_UNITS {
        format!(
            "prefer the bootstrap interval (--bootstrap 10000) or add more {}",
            plural(top_name)
        )
    } else {
        format!(
            "add more {}: with fewer than {ADVISABLE_UNITS} the bootstrap interval is not \
             advisable either (too few distinct resamples for its coverage to be trusted)",
            plural(top_name),
        )
    }
}

/// Why a requested bootstrap interval is missing or not to be trusted; `units` names the
/// resampled units ("binaries").
pub(crate) fn bootstrap_shortfall(s: &BootstrapShortfall, units: &str) -> String {
    match s {
        BootstrapShortfall::Failed(why) => format!("no bootstrap interval: {why}"),
        BootstrapShortfall::FewUnits(n) => format!(
            "the bootstrap interval resamples only {n} {units}: not advisable below \
             {ADVISABLE_UNITS} (too few distinct resamples for its coverage to be trusted)"
        ),
    }
}

/// Why a report's series has no bootstrap interval of its mean, or why it is not to be
/// trusted.
pub(crate) fn series_bootstrap_note(s: &SeriesReport) -> Option<String> {
    (s.bootstrap_grounds.as_ref()).map(|b| bootstrap_shortfall(b, "binaries"))
}
