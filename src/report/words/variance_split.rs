//! "Where does the variation come from?" in words: the split of
//! [`crate::stats::variance_split`] into code, data, their interaction, the machine (runs
//! on several) and run noise, each
//! share with its interval, largest first; each axis's test and magnitude; and why there is
//! no split when there is none ([`crate::analysis::answers::data_split`]).

use crate::analysis::answers::data_split::{AxisShare, DataSplit, SplitCannotTell};
use crate::report::numfmt::{capitalised, level, p_value, percent, statistic};
use crate::stats::interval::Interval;
use crate::stats::variance_split::Component;

/// The series' answer: the shares' sentence, or why there is none.
pub fn answer(split: &DataSplit) -> String {
    if let Some(why) = split.cannot_tell {
        let set_aside = set_aside_phrase(split.executions_set_aside)
            .map(|p| format!("; {p}"))
            .unwrap_or_default();
        return format!(
            "cannot tell where the variation comes from: {}{set_aside}.",
            cannot_tell(why, split)
        );
    }
    let parts: Vec<(Component, f64, Interval)> = split
        .parts()
        .into_iter()
        .map(|(c, s)| (c, s.share, s.interval))
        .collect();
    let mut words = shares_sentence(&parts, split.confidence);
    if let Some(phrase) = set_aside_phrase(split.executions_set_aside) {
        words.push_str(&format!(" {} of it.", capitalised(&phrase)));
    }
    if split.executions_left_out > 0 {
        let on_every_machine = if split.machine.is_some() {
            ", equally many on every machine"
        } else {
            ""
        };
        words.push_str(&format!(
            " {} execution(s) were left out so that every binary has {} with every data \
             seed{on_every_machine}.",
            split.executions_left_out, split.executions_per_cell
        ));
    }
    if let Some(machines) = split.machines_in_run {
        words.push_str(&format!(
            " The executions ran on {machines} machines, not each equally often with every \
             binary and data seed, so the machines' part cannot be told apart: it is in run \
             noise."
        ));
    }
    words
}

/// "the N execution(s) set aside as outlying under layout sensitivity are left out" (`None`
/// for 0): the split and the data-layout answer rest on the executions the
/// layout-sensitivity screening kept.
pub(crate) fn set_aside_phrase(set_aside: usize) -> Option<String> {
    (set_aside > 0).then(|| {
        format!("the {set_aside} execution(s) set aside as outlying under layout sensitivity are left out")
    })
}

/// One line per axis (code, data, their interaction, run noise): its magnitude and test, e.g.
/// "where the data sits: varies by 3.1 % from data layout to data layout (F(3, 27) = 45.1,
/// p < 0.0001)".
pub(crate) fn axis_lines(split: &DataSplit) -> Vec<String> {
    split
        .parts()
        .into_iter()
        .map(|(c, s)| {
            let label = capitalised(what(c));
            format!("{label}: {}", axis_words(c, s, split.confidence))
        })
        .collect()
}

/// The heading of the split's answer.
pub(crate) const TITLE: &str = "Where the variation comes from (code, data, run)";

/// A component's magnitude and test in words.
fn axis_words(component: Component, s: &AxisShare, confidence: f64) -> String {
    let between = match component {
        Component::Code => "from binary to binary",
        Component::Data => "from data layout to data layout",
        Component::CodeXData => "from pair to pair beyond code and data alone",
        Component::Machine => "from machine to machine",
        Component::Run => "from execution to execution of one binary with one data layout",
    };
    let Some(test) = s.test else {
        return format!("varies by {} {between}", percent(s.variation, 2));
    };
    // No F when its denominator is 0: infinite when the numerator is not (p = 0), and no
    // test at all when both are 0 (nothing varies at either level; p = 1).
    let grounds = match test.f {
        None if test.p_value >= 1.0 => format!(
            "no F: nothing varies at this level or the one it is tested against, {}",
            p_value(test.p_value)
        ),
        f => format!(
            "F({}, {}) = {}, {}",
            test.df_numerator,
            test.df_denominator,
            f.map_or("∞".to_string(), statistic),
            p_value(test.p_value)
        ),
    };
    let grounds = if s.verdict.is_some() {
        format!("the layout-sensitivity test: {grounds}")
    } else {
        grounds
    };
    if s.detected(confidence) {
        format!(
            "varies by {} {between} ({grounds})",
            percent(s.variation, 2)
        )
    } else if s.cannot_tell(confidence) {
        format!(
            "cannot tell whether it varies {between}: the test rejects ({grounds}) but the share's interval reaches 0 (the estimate is {})",
            percent(s.variation, 2)
        )
    } else if s.verdict == Some(crate::analysis::vocabulary::Verdict::Undetermined) {
        format!(
            "cannot tell whether it varies {between} (see layout sensitivity; {grounds}; the estimate is {})",
            percent(s.variation, 2)
        )
    } else {
        format!(
            "no variation detected {between} ({grounds}; the estimate is {})",
            percent(s.variation, 2)
        )
    }
}

/// Why there is no split, with the numbers that show it.
fn cannot_tell(why: SplitCannotTell, split: &DataSplit) -> String {
    match why {
        SplitCannotTell::OneBinary => {
            "one binary cannot tell where the code sits from anything else; run two or more".into()
        }
        SplitCannotTell::MixedDataSeeds => {
            "some executions ran without a data seed beside others with one".into()
        }
        SplitCannotTell::MissingPair => format!(
            "some binary has no usable execution with one of the {} data seeds",
            split.data_seeds
        ),
        SplitCannotTell::OneExecutionPerPair => {
            "some binary has a single usable execution with some data seed, so run noise cannot \
             be told from how a data layout's effect differs from binary to binary; run two or \
             more executions of each"
                .into()
        }
        SplitCannotTell::NoVariation => "every execution measured the same value".into(),
    }
}

/// The shares' sentence: largest first, each with its interval.
fn shares_sentence(parts: &[(Component, f64, Interval)], confidence: f64) -> String {
    let mut shares: Vec<&(Component, f64, Interval)> = parts.iter().collect();
    // Largest first; ties keep the model's order (a stable sort).
    shares.sort_by(|x, y| y.1.total_cmp(&x.1));
    let parts: Vec<String> = shares
        .iter()
        .enumerate()
        .map(|(k, (component, share, interval))| {
            let verb = if k == 0 && *component != Component::Run {
                "is "
            } else {
                ""
            };
            // A lower bound that rounds to 0 is 0, not "< 1": "(0–1 %)".
            let lower = (100.0 * interval.lower).round();
            format!(
                "{} ({lower:.0}–{} %) {verb}{}",
                whole_percent(*share),
                whole_percent(interval.upper).trim_end_matches(" %"),
                what(*component)
            )
        })
        .collect();
    format!(
        "of the variation between executions, {} ({} intervals).",
        parts.join(", "),
        level(confidence)
    )
}

/// What a component is, after its share.
fn what(component: Component) -> &'static str {
    match component {
        Component::Code => "where the code sits",
        Component::Data => "where the data sits",
        Component::CodeXData => "how a data layout's effect differs from binary to binary",
        Component::Machine => "which machine ran it",
        Component::Run => "run noise",
    }
}

/// A share in whole percent, `61 %`; a share above 0 that rounds to 0 is `< 1 %`.
fn whole_percent(share: f64) -> String {
    let p = (100.0 * share).round();
    if p == 0.0 && share > 0.0 {
        "< 1 %".into()
    } else {
        format!("{p:.0} %")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::Interval;

    #[test]
    fn the_largest_share_comes_first_with_every_interval() {
        let share = |c, s, lower, upper| (c, s, Interval { lower, upper });
        let parts = [
            share(Component::Code, 0.04, 0.0, 0.12),
            share(Component::Data, 0.61, 0.45, 0.75),
            share(Component::CodeXData, 0.002, 0.0, 0.05),
            share(Component::Run, 0.348, 0.26, 0.47),
        ];
        assert_eq!(
            shares_sentence(&parts, 0.95),
            "of the variation between executions, 61 % (45–75 %) is where the data sits, \
             35 % (26–47 %) run noise, 4 % (0–12 %) where the code sits, < 1 % (0–5 %) how a \
             data layout's effect differs from binary to binary (95 % intervals)."
        );
    }

    fn axis(share: f64, variation: f64, f: Option<f64>, p: f64) -> Option<AxisShare> {
        Some(AxisShare {
            share,
            interval: Interval {
                lower: share * 0.5,
                upper: (share * 1.5).min(1.0),
            },
            variation,
            test: Some(crate::stats::variance_split::AxisTest {
                f,
                df_numerator: 3,
                df_denominator: 27,
                p_value: p,
            }),
            verdict: None,
        })
    }

    fn data_split() -> DataSplit {
        DataSplit {
            code_seeds: 10,
            data_seeds: 4,
            executions_per_cell: 3,
            executions_left_out: 0,
            executions_set_aside: 0,
            confidence: 0.95,
            cannot_tell: None,
            code: axis(0.04, 0.002, Some(1.2), 0.33),
            data: axis(0.61, 0.031, None, 0.0),
            code_x_data: None,
            machine: None,
            machines_in_run: None,
            run: Some(AxisShare {
                share: 0.35,
                interval: Interval {
                    lower: 0.26,
                    upper: 0.47,
                },
                variation: 0.004,
                test: None,
                verdict: None,
            }),
        }
    }

    #[test]
    fn each_axis_says_its_magnitude_and_test_and_an_undetected_one_says_so() {
        assert_eq!(
            axis_lines(&data_split()),
            [
                "Where the code sits: no variation detected from binary to binary (F(3, 27) = \
                 1.20, p = 0.33; the estimate is 0.20 %)",
                "Where the data sits: varies by 3.1 % from data layout to data layout (F(3, \
                 27) = ∞, p < 0.0001)",
                "Run noise: varies by 0.40 % from execution to execution of one binary with one \
                 data layout",
            ]
        );
    }

    /// A deterministic metric that only the data layout moves: MS_C and MS_CD both 0, so
    /// the code's F is 0/0; it must not read "F = ∞" beside "p = 1.0".
    #[test]
    fn a_test_of_nothing_against_nothing_has_no_f() {
        let mut split = data_split();
        split.code = axis(0.0, 0.0, None, 1.0);
        let line = &axis_lines(&split)[0];
        assert!(
            line.contains(
                "(no F: nothing varies at this level or the one it is tested against, p = 1.0;"
            ),
            "{line}"
        );
        assert!(!line.contains('∞'), "{line}");
    }

    #[test]
    fn a_split_that_cannot_tell_says_why_and_a_cut_says_how_many() {
        let mut split = data_split();
        split.executions_left_out = 5;
        assert!(answer(&split).ends_with(
            "5 execution(s) were left out so that every binary has 3 with every data seed."
        ));
        split.executions_set_aside = 2;
        assert!(answer(&split).contains(
            " The 2 execution(s) set aside as outlying under layout sensitivity are left out of it. 5 execution(s)"
        ));
        split.cannot_tell = Some(SplitCannotTell::OneExecutionPerPair);
        let text = answer(&split);
        assert!(
            text.starts_with(
                "cannot tell where the variation comes from: some binary has a single usable \
                 execution with some data seed"
            ) && text.ends_with(
                "; the 2 execution(s) set aside as outlying under layout sensitivity are left out."
            ),
            "{text}"
        );
    }
}
