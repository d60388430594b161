//! "Across programs, did new speed things up?" in words: the summary of a comparison of two
//! experiment directories per metric (Touati et al.'s proportion of programs sped up with
//! Wilson's interval, and the overall gain G), and the series only one of them holds
//! ([`crate::analysis::answers::compare`]).

use std::fmt::Write;

use crate::analysis::answers::compare::{
    ExperimentComparison, ExperimentSide, OnlyIn, Overall, ProgramComparison,
};
use crate::analysis::vocabulary::program_label;
use crate::report::numfmt::{level, percent, signed_percent};

super::on_the_wire!(ExperimentComparison {
    unmatched: Vec<String> = unmatched,
    warnings: Vec<String> = super::experiment::compared_warnings,
});
super::on_the_wire!(Overall {
    text: String = |o: &Overall| overall(o, o.confidence)
});
super::on_the_wire!(ProgramComparison {
    // The verdict alone: the matched difference and Welch's test are checks of it, which
    // the renderings show apart (issue 36).
    text: String = |p: &ProgramComparison| super::comparison::summary(&p.comparison),
});

/// The series only one of the two experiments holds, in words.
pub(crate) fn unmatched(c: &ExperimentComparison) -> Vec<String> {
    (c.only_in.iter())
        .map(|u| only_in(u, &c.base, &c.new))
        .collect()
}

/// "3 of 4 programs are significantly faster with new (proportion 75 %, 95 % Wilson CI 30 %
/// to 95 %). Overall gain G = +4.1 % of the base wall (…; saved)."
pub(crate) fn overall(o: &Overall, confidence: f64) -> String {
    let faster = if o.is_time { "faster" } else { "lower" };
    let (sped_up, n) = (o.sped_up, o.programs);
    let mut text = format!("{sped_up} of {n} programs are significantly {faster} with new");
    if let Some(ci) = o.sped_up_ci {
        let _ = write!(
            text,
            " (proportion {}, {} Wilson CI {} to {})",
            percent(sped_up as f64 / n as f64, 2),
            level(confidence),
            percent(ci.lower, 2),
            percent(ci.upper, 2)
        );
    }
    text.push('.');
    if let Some(g) = o.gain {
        let _ = write!(
            text,
            " Overall gain G = {} of the base {} (Touati's time-weighted gain; {}).",
            signed_percent(g),
            o.metric,
            if g >= 0.0 { "saved" } else { "lost" }
        );
    }
    text
}

/// "demo \[fast\] wall only in DIR", `base_dir` and `new_dir` naming the two sides.
pub(crate) fn only_in(u: &OnlyIn, base_dir: &str, new_dir: &str) -> String {
    let dir = match u.side {
        ExperimentSide::Base => base_dir,
        ExperimentSide::New => new_dir,
    };
    format!(
        "{} {} only in {dir}",
        program_label(&u.program, u.variant.as_deref()),
        u.metric
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::effect::Interval;

    #[test]
    fn the_overall_sentence_names_the_proportion_and_the_gain() {
        let o = Overall {
            metric: "wall".into(),
            programs: 4,
            sped_up: 3,
            sped_up_ci: Some(Interval {
                lower: 0.3,
                upper: 0.95,
            }),
            gain: Some(-0.041),
            is_time: true,
            confidence: 0.95,
        };
        insta::assert_snapshot!(overall(&o, 0.95));
        let counts = Overall {
            is_time: false,
            gain: None,
            sped_up_ci: None,
            ..o
        };
        assert_eq!(
            overall(&counts, 0.95),
            "3 of 4 programs are significantly lower with new."
        );
    }

    #[test]
    fn an_unmatched_series_names_its_side() {
        let u = OnlyIn {
            program: "demo".into(),
            variant: Some("fast".into()),
            metric: "wall".into(),
            side: ExperimentSide::New,
        };
        assert_eq!(only_in(&u, "a", "b"), "demo [fast] wall only in b");
    }
}
