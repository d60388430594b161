//! "Can the experiment stop, and what does it say at the stop?" in words: the outcome of a
//! sequential replay (`report --sequential`, the growth rule of `experiment`) from the
//! numbers of a [`Sequential`] ([`crate::analysis::sequential`]).

use crate::analysis::sequential::{Method, Reason, Sequential, Unreplayable, Unreplayed};
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::report::numfmt::{change_parts, level, percent, Scale};

super::on_the_wire!(Sequential {
    text: String = words
});

/// The sentence of a replay: a series' geometric mean in its scale (its section's unit,
/// [`crate::analysis::answers::model::SeriesReport::scale`]), a comparison's per-seed ratio
/// and its verdict.
pub(crate) fn words(q: &Sequential) -> String {
    sentence(q, q.scale.as_ref())
}

/// "stopped at 12 of 30 binaries (8 looks): a verdict was reached: 3.1 % faster (95 %
/// confidence sequence: 1.2 % to 5.0 % faster)", and the binaries left outside the plan
/// when there are any.
fn sentence(q: &Sequential, scale: Option<&Scale>) -> String {
    let looks_taken = match q.looks {
        1 => "1 look".to_string(),
        n => format!("{n} looks"),
    };
    // The verdict reached is the answer that follows; any other reason is a clause of its
    // own.
    let after_why = if q.reason == Reason::Verdict && q.at_stop.ci.is_some() {
        ": "
    } else {
        "; "
    };
    let mut text = format!(
        "stopped at {} of {} binaries ({looks_taken}): {}{after_why}{}",
        q.at_stop.binaries,
        q.available,
        why(q),
        answer(q, scale)
    );
    if let (Some(last), 1..) = (q.last_look, q.beyond_horizon) {
        text.push_str(&looks_lost(q.beyond_horizon, last, q.horizon.is_some()));
    }
    text
}

/// Why the replay stopped.
fn why(q: &Sequential) -> String {
    match q.reason {
        Reason::TargetReached => format!(
            "the relative half-width reached the target of ± {}",
            percent(q.target, 2)
        ),
        Reason::Verdict => "a verdict was reached".to_string(),
        Reason::Cap => "every binary was used without reaching the target or a verdict".into(),
    }
}

/// The family of intervals, e.g. "95 % confidence sequence (looks 5 to 40)".
fn family(q: &Sequential) -> String {
    let confidence = level(q.confidence);
    match (Method::named(q.method), q.horizon) {
        (Some(Method::RepeatedT), Some(last)) => format!(
            "{confidence} repeated confidence interval (looks {MIN_TOP_LEVEL_UNITS} to {last})"
        ),
        (Some(Method::LaiCalibrated), Some(last)) => {
            format!("{confidence} confidence sequence (looks {MIN_TOP_LEVEL_UNITS} to {last})")
        }
        _ => format!("{confidence} confidence sequence"),
    }
}

/// The answer at the stop: the ratio with its verdict, or the series' geometric mean, each
/// with the sequence's interval; "cannot tell" while the sequence is unbounded.
fn answer(q: &Sequential, scale: Option<&Scale>) -> String {
    let cs = family(q);
    let at = &q.at_stop;
    let Some(ci) = at.ci else {
        return format!("cannot tell: the {cs} is not yet bounded");
    };
    match (&q.effect, scale) {
        (Some(effect), _) => {
            let (better, worse) = super::effect::directions(effect.is_time);
            let (head, bounds) = change_parts(effect.ratio, ci.lower, ci.upper, 1.0, better, worse);
            // change_parts names its interval "… CI: bounds"; this one is a sequence.
            let bounds = bounds.split_once(": ").map_or(bounds.as_str(), |(_, b)| b);
            // A verdict of faster or slower is the change's own word: "19.9 % faster", not
            // "faster: 19.9 % faster"; any other verdict is named before the change.
            let verdict = effect.verdict.word(better, worse);
            if head.ends_with(&format!(" {verdict}")) {
                format!("{head} ({cs}: {bounds})")
            } else {
                format!("{verdict}, {head} ({cs}: {bounds})")
            }
        }
        (_, Some(scale)) => {
            let (lower, upper) = scale.bounds(ci.lower, ci.upper);
            let half = at
                .relative_half_width
                .map(|h| format!(", ± {}", percent(h, 2)))
                .unwrap_or_default();
            format!(
                "geometric mean of the binaries' means {} ({cs}: {lower} to {upper}{half})",
                scale.quantity_digits(at.estimate, 6),
            )
        }
        // A series without its unit: the bare numbers rather than a guessed unit.
        _ => format!("{} ({cs}: {} to {})", at.estimate, ci.lower, ci.upper),
    }
}

/// "; 3 later binaries are outside the plan (past the maximum of 40 fixed before the first
/// look) and not in the sequence": binaries measured past the plan's `last` look.
fn looks_lost(beyond: usize, last: usize, horizon: bool) -> String {
    let later = match beyond {
        1 => "1 later binary is".to_string(),
        n => format!("{n} later binaries are"),
    };
    let plan = if horizon {
        format!("past the maximum of {last} fixed before the first look")
    } else {
        format!("past the {last} looks the sequence's level is calibrated for")
    };
    format!("; {later} outside the plan ({plan}) and not in the sequence")
}

/// The warning of a series or comparison that could not be replayed, e.g. "demo wall: no
/// sequential analysis: …" or "demo wall: O3 against O2: no sequential analysis: …".
pub(crate) fn unreplayed(u: &Unreplayed) -> String {
    match &u.subject {
        Unreplayable::Series { variant } => format!(
            "{} {}: no sequential analysis: {}",
            crate::analysis::answers::series::program_label(&u.program, variant.as_deref()),
            u.metric,
            u.error
        ),
        Unreplayable::Pair { base, new } => format!(
            "{} {}: {new} against {base}: no sequential analysis: {}",
            u.program, u.metric, u.error
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sequential::{replay_mean, replay_ratio, Rule};

    fn rule(horizon: Option<usize>) -> Rule {
        Rule {
            thresholds: Default::default(),
            target: 0.01,
            method: Method::LaiCalibrated,
            planned: 12,
            horizon,
        }
    }

    /// A series' sentence gives its mean and interval in the unit of its section, never as
    /// a bare number in the stored unit ("1,020,000" for 1.02 ms stored in ns).
    #[test]
    fn a_series_sentence_carries_its_unit() {
        let means: Vec<f64> = (0..12)
            .map(|i| 1.02e6 * (1.0 + 0.003 * (i as f64 * 1.7).sin()))
            .collect();
        let scale = Scale::for_values("ns", 1.02e6);
        let s = replay_mean(&means, &rule(None)).unwrap();
        let text = sentence(&s, Some(&scale));
        assert_eq!(s.reason, Reason::TargetReached, "{text}");
        let ci = s.at_stop.ci.unwrap();
        let (lower, upper) = scale.bounds(ci.lower, ci.upper);
        assert!(
            lower.ends_with(" ms") && upper.ends_with(" ms"),
            "{lower} {upper}"
        );
        let expected = format!(
            "geometric mean of the binaries' means {} (",
            scale.quantity_digits(s.at_stop.estimate, 6)
        );
        assert!(text.contains(&expected), "{text}");
        assert!(
            text.contains(&format!(": {lower} to {upper}, ± ")),
            "{text}"
        );
        insta::assert_snapshot!(text);
    }

    /// Five binaries do not bound the 95 % sequence: the sentence says "cannot tell", not a
    /// number.
    #[test]
    fn an_unbounded_sequence_cannot_tell() {
        let means = [100.0, 101.0, 99.0, 100.5, 99.5];
        let s = replay_mean(&means, &rule(None)).unwrap();
        assert!(s.at_stop.ci.is_none());
        let text = sentence(&s, Some(&Scale::for_values("count", 100.0)));
        assert!(
            text.ends_with("cannot tell: the 95 % confidence sequence is not yet bounded"),
            "{text}"
        );
    }

    /// Binaries past the horizon are counted in the sentence, and a comparison's sentence
    /// gives its verdict in the metric's words, once.
    #[test]
    fn a_comparison_past_its_horizon_says_the_binaries_left_out() {
        let base = vec![100.0; 12];
        let new: Vec<f64> = (0..12)
            .map(|i| 80.0 * (1.0 + 0.01 * (i as f64 * 2.3).sin()))
            .collect();
        let s = replay_ratio(&base, &new, &rule(Some(10)), true).unwrap();
        assert_eq!((s.available, s.beyond_horizon), (10, 2));
        assert_eq!(
            s.verdict,
            Some(crate::analysis::effect::EffectVerdict::Lower)
        );
        let text = sentence(&s, None);
        insta::assert_snapshot!(text);
    }

    /// A replay that fails (a mean at zero has no log) is named in the warning with its
    /// reason, a comparison with both its variants.
    #[test]
    fn a_failed_replay_is_named_with_its_reason() {
        let error = replay_mean(&[1.0, 0.0, 2.0, 3.0, 4.0], &rule(None)).unwrap_err();
        let series = Unreplayed {
            program: "demo".into(),
            metric: "wall".into(),
            subject: Unreplayable::Series { variant: None },
            error: error.clone(),
        };
        assert_eq!(
            unreplayed(&series),
            format!("demo wall: no sequential analysis: {error}")
        );
        let pair = Unreplayed {
            subject: Unreplayable::Pair {
                base: "O2".into(),
                new: "O3".into(),
            },
            ..series
        };
        assert_eq!(
            unreplayed(&pair),
            format!("demo wall: O3 against O2: no sequential analysis: {error}")
        );
    }
}
