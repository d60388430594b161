//! "Is the new system faster than the base, and by how much?" in words: the one-sentence
//! answer of a comparison ([`crate::analysis::compare`]), naming the interval the verdict
//! rests on, its warnings, and the side tests' words every text rendering uses.

use crate::analysis::compare::{Comparison, Concern, ControlMoved, HostChanged, Side};
use crate::analysis::effect::EffectVerdict;
use crate::analysis::pair::Basis;
use crate::analysis::single::CLT_UNITS;
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::report::numfmt::{fixed, level, p_value, percent, ratio_bounds};
use crate::stats::bootstrap;
use crate::stats::hierarchy::plural;

super::on_the_wire!(Comparison {
    summary: String = summary,
    warnings: Vec<String> = warnings,
});

/// The comparison's warnings: each of its concerns in words.
pub(crate) fn warnings(c: &Comparison) -> Vec<String> {
    let units = plural(&c.top_name);
    let bootstrapped = c.pair.bootstrap.is_some();
    (c.concerns.iter())
        .map(|concern| warning(concern, &c.top_name, &units, bootstrapped))
        .collect()
}

/// One concern in words (`bootstrapped`: the comparison shows a bootstrap interval).
fn warning(concern: &Concern, top_name: &str, units: &str, bootstrapped: bool) -> String {
    match concern {
        Concern::Pair(w) => super::pair::warning(w, units),
        Concern::NoBootstrap => format!(
            "no bootstrap interval: it resamples the {units}, and a side has fewer than two"
        ),
        Concern::DesignsDiffer { base, new } => format!(
            "the two designs differ (repetitions per level, lowest first: base {base:?}, new \
             {new:?})"
        ),
        Concern::NoWelch(why) => format!("no Welch test: {why}"),
        Concern::NotNormal {
            source,
            p,
            top_units,
        } => format!(
            "the {top_name} means of {source} do not look normal (Shapiro–Wilk, {}) and there \
             are fewer than {CLT_UNITS}: {}",
            p_value(*p),
            if *top_units >= bootstrap::ADVISABLE_UNITS && bootstrapped {
                "check the bootstrap interval among the checks and the Mann–Whitney test"
                    .to_string()
            } else if *top_units >= bootstrap::ADVISABLE_UNITS {
                "check the bootstrap interval (--bootstrap 10000) and the Mann–Whitney test"
                    .to_string()
            } else {
                format!(
                    "check the Mann–Whitney test and add {units}; with fewer than {} the \
                     bootstrap interval is not advisable (too few distinct resamples for its \
                     coverage to be trusted)",
                    bootstrap::ADVISABLE_UNITS
                )
            }
        ),
        Concern::FewUnits { source, top_units } => format!(
            "{source} has only {}: its interval, and so the ratio's, is very wide (Kalibera & \
             Jones use at least {MIN_TOP_LEVEL_UNITS})",
            crate::stats::hierarchy::units(*top_units, top_name)
        ),
    }
}

/// Which sides' own intervals are withheld, as the end of a clause ("; the new side's own
/// interval would reach below zero"), empty when neither is: what makes a ratio's interval
/// unbounded, said of the side it is true of.
fn withheld_sides(base: &Side, new: &Side) -> &'static str {
    match (base.ci_grounds.is_some(), new.ci_grounds.is_some()) {
        (true, true) => "; each side's own interval would reach below zero",
        (true, false) => "; the base's own interval would reach below zero",
        (false, true) => "; the new side's own interval would reach below zero",
        (false, false) => "",
    }
}

/// The one-sentence answer, naming the interval the verdict rests on.
pub(crate) fn summary(c: &Comparison) -> String {
    let pair = &c.pair;
    let effect = &pair.effect;
    let (top_name, units) = (c.top_name.as_str(), plural(&c.top_name));
    let basis = match pair.basis {
        Basis::Paired => format!("paired by {top_name}, {} pairs", pair.binaries.len()),
        Basis::Fieller if pair.binaries.is_empty() => {
            format!("Fieller interval, independent sides: fewer than two {units} in common")
        }
        Basis::Fieller => "Fieller interval".to_string(),
    };
    let mut summary = match (c.host_changed, c.control_moved) {
        (_, Some(m)) if m.withheld.is_some() => control_moved(c, &m, &basis),
        (Some(h), _) if h.withheld.is_some() => host_changed(c, &h, &basis),
        (h, m) => {
            let mut said = by_verdict(c, effect.verdict, &basis);
            if let Some(h) = h {
                said = format!("{said} {}", host_changed_less(&h));
            }
            if let Some(m) = m {
                said = format!("{said} {}", control_moved_less(c, &m));
            }
            said
        }
    };
    if pair.slower_beyond_threshold {
        let worse = if c.is_time { "slower" } else { "higher" };
        summary.push_str(&format!(
            " FAIL: the whole interval is {worse} by more than {}.",
            percent(c.fail_if_slower.unwrap_or(0.0), 2)
        ));
    }
    summary
}

/// How the host changed between two runs apart: the gap, each run's noise and the test.
fn host_change_words(h: &HostChanged) -> String {
    format!(
        "the two ran {} apart and the host changed between them (one execution varied by {} \
         in base's run, {} in new's; F test {})",
        crate::report::numfmt::duration(h.gap_seconds),
        percent(h.base_cv, 2),
        percent(h.new_cv, 2),
        p_value(h.p),
    )
}

/// A verdict withheld because the host changed between two runs apart: what the data show,
/// and why it cannot tell.
fn host_changed(c: &Comparison, h: &HostChanged, basis: &str) -> String {
    format!(
        "cannot tell: the data show new {} than base ({basis}), but {}: a change of the host \
         worth up to {} of noise can move the mean by about as much, which could make this \
         difference; build both as variants of one experiment (`build --variant`), whose \
         executions interleave.",
        super::effect::words(&c.pair.effect),
        host_change_words(h),
        percent(h.reach, 2),
    )
}

/// A verdict that stands although the host changed: the change is too small to make it.
fn host_changed_less(h: &HostChanged) -> String {
    format!(
        "The verdict stands although {}: a change worth up to {} of noise is too small to \
         make this difference.",
        host_change_words(h),
        percent(h.reach, 2),
    )
}

/// How the binary both runs measured byte-identical moved between them.
fn control_words(c: &Comparison, m: &ControlMoved) -> String {
    let which = if m.binary == "baseline" {
        "the default layout"
    } else {
        "the binary the build made"
    };
    let (better, worse) = if c.is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    format!(
        "the same binary in both ({which}, byte for byte, its libraries too) measured {} in \
         new's run than in base's",
        crate::report::numfmt::change(m.ratio, m.ci.lower, m.ci.upper, c.confidence, better, worse)
    )
}

/// A verdict withheld because a binary both runs measured byte-identical moved between
/// them: what the data show, and why it cannot tell.
fn control_moved(c: &Comparison, m: &ControlMoved, basis: &str) -> String {
    format!(
        "cannot tell: the data show new {} than base ({basis}), but {}: the runs differ by \
         more than the code, by up to {}, which could make this difference; build both as \
         variants of one experiment (`build --variant`), whose executions interleave.",
        super::effect::words(&c.pair.effect),
        control_words(c, m),
        percent(m.reach, 2),
    )
}

/// A verdict that stands although the byte-identical binary moved: too little to make it.
fn control_moved_less(c: &Comparison, m: &ControlMoved) -> String {
    format!(
        "The verdict stands although {}: a shift of the runs worth up to {} is too small to \
         make this difference.",
        control_words(c, m),
        percent(m.reach, 2),
    )
}

/// The sentence of `verdict` as the pair analysis gave it.
fn by_verdict(c: &Comparison, verdict: EffectVerdict, basis: &str) -> String {
    let effect = &c.pair.effect;
    let units = plural(&c.top_name);
    match verdict {
        EffectVerdict::Lower | EffectVerdict::Higher => {
            format!(
                "new is {} than base ({basis}).",
                super::effect::words(effect)
            )
        }
        EffectVerdict::Negligible | EffectVerdict::Equivalent | EffectVerdict::Inconclusive => {
            format!(
                "{}: new is {} than base ({basis}).",
                super::effect::qualifier(effect),
                super::effect::words(effect)
            )
        }
        EffectVerdict::Tie => {
            "a tie: every measurement of both sides has the same value.".to_string()
        }
        EffectVerdict::Unbounded => format!(
            "cannot tell: {} ({basis}{}); measure more {units}.",
            super::effect::words(effect),
            withheld_sides(&c.base, &c.new)
        ),
    }
}

/// The Mann–Whitney test in words, e.g. "on the binary means: P(new > base) = 0.080, p =
/// 0.032 (exact)": one wording for every text rendering of a comparison (the warnings advise
/// reading it when the means do not look normal).
pub(crate) fn mann_whitney(c: &Comparison, top_name: &str) -> Option<String> {
    c.mann_whitney.map(|mw| {
        format!(
            "on the {top_name} means: P(new > base) = {}, {} ({})",
            fixed(mw.prob_superiority, 3),
            p_value(mw.p_value),
            match mw.method {
                crate::stats::mann_whitney::PMethod::Exact => "exact",
                crate::stats::mann_whitney::PMethod::Normal => "normal approximation",
            }
        )
    })
}

/// The bootstrap interval of new/base in words, e.g. "new/base 0.6350 … 1.0140 (95 %
/// studentized, 10000 resamples of the binaries)", when `--bootstrap` asked for it.
pub(crate) fn bootstrap(c: &Comparison) -> Option<String> {
    c.pair.bootstrap.as_ref().map(|b| {
        let (lower, upper) = ratio_bounds(b.ci.lower, b.ci.upper);
        format!(
            "new/base {lower} … {upper} ({} studentized, {} resamples of the binaries{})",
            level(c.confidence),
            b.resamples,
            if b.paired {
                ", pairs drawn jointly"
            } else {
                ""
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_bootstrap_interval_is_pointed_at_rather_than_asked_for() {
        let concern = Concern::NotNormal {
            source: "base".into(),
            p: 0.01,
            top_units: bootstrap::ADVISABLE_UNITS,
        };
        let asked = warning(&concern, "binary", "binaries", false);
        let shown = warning(&concern, "binary", "binaries", true);
        assert!(asked.contains("(--bootstrap 10000)"), "{asked}");
        assert!(
            shown.contains("the bootstrap interval among the checks")
                && !shown.contains("--bootstrap"),
            "{shown}"
        );
    }
}
