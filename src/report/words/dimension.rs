//! "How many repetitions does a target precision need?" in words: the cost sources, the
//! advice beside eq. 3's counts and the notes of `layoutrand dimension`
//! ([`crate::analysis::answers::dimension`]), from its figures, and eq. 3's guard cases
//! ([`OptimalCount`]) that `analyze` shares.

use crate::analysis::answers::dimension::{
    CostSource, LevelDimension, SeriesDimension, UndimensionedLevel, MIN_COST_SECONDS,
    MIN_EXECUTIONS_FOR_SENSITIVITY,
};
use crate::analysis::single::LevelJson;
use crate::report::numfmt::{duration, sig};
use crate::stats::multilevel::OptimalCount;

// Every level's `cost_source` and `advice` and every series' `notes`, on the wire.
super::on_the_wire!(LevelDimension {
    cost_source: String = cost_source,
    advice: Option<String> = advice,
});
super::on_the_wire!(SeriesDimension { notes: Vec<String> = notes });
super::on_the_wire!(LevelJson { optimal_note: Option<&'static str> = |l: &LevelJson| l.optimal.as_ref().and_then(optimal_count) });

/// Where a level's cost comes from, `…, floored` when the measured cost was raised to
/// [`MIN_COST_SECONDS`].
pub(crate) fn cost_source(l: &LevelDimension) -> String {
    let source = match l.source {
        CostSource::Given => "given with --costs",
        CostSource::MeanLiveIteration => "measured: mean live iteration",
        CostSource::WallPerIteration => "measured: process wall time / iterations",
        CostSource::MeanProcessWall => "measured: mean process wall time",
        CostSource::WallMinusLiveIterations => {
            "measured: process wall time minus its live iterations"
        }
        CostSource::LinkTime => "manifest: mean link (or build) time",
    };
    let source = match l.floored_from {
        Some(_) => format!("{source}, floored"),
        None => source.to_string(),
    };
    match l.execution_seconds {
        Some(e) => format!("{source}, plus its one execution ({})", duration(e)),
        None => source,
    }
}

/// Eq. 3's guard cases in words (`None` for a plain count).
pub(crate) fn optimal_count(c: &OptimalCount) -> Option<&'static str> {
    match c {
        OptimalCount::NoVarianceHere => {
            Some("T² ≤ 0: this level adds no measurable variance of its own; repeat it once")
        }
        OptimalCount::NoVarianceAbove => Some(
            "the level above has no variance of its own (T² ≤ 0) or one negligible beside \
             this level's (eq. 3 gives more than 2^53), so eq. 3 has no useful optimum: \
             repeat at this level and drop repetition above",
        ),
        OptimalCount::Unknown => {
            Some("T² could not be estimated here (a level has a single repetition)")
        }
        _ => None,
    }
}

/// Why the count advised at a level is not eq. 3's own, when it is not: eq. 3's guard case
/// with the count kept, then the raise to [`MIN_EXECUTIONS_FOR_SENSITIVITY`] executions.
pub(crate) fn advice(l: &LevelDimension) -> Option<String> {
    let kept = l.initial_repetitions;
    let guard = match &l.eq3 {
        Some(OptimalCount::NoVarianceAbove) => Some(no_variance_above(&l.name, kept)),
        Some(c) => optimal_count(c).map(|words| match c.repetitions() {
            Some(_) => words.to_string(),
            None => format!("{words}; keeping the initial experiment's {kept}"),
        }),
        None => None,
    };
    let Some(c) = l.raised_from else {
        return guard;
    };
    Some(format!(
        "{}raised from {c} to {MIN_EXECUTIONS_FOR_SENSITIVITY}: with one execution per binary `report` cannot test layout sensitivity (it compares the binaries against executions of one binary); the interval of the mean alone would need {c}",
        guard.map(|a| format!("{a}; ")).unwrap_or_default()
    ))
}

/// The advice when the level above `name` adds no variance of its own (eq. 3 has no
/// optimum). Eq. 3 alone would say "repeat here, drop repetition above", but the table of
/// top-level counts keeps `kept` repetitions here and counts the top level; the advice says
/// what the table does and what it trades, so the two do not contradict each other (issue 36:
/// "drop repetition above" was printed beside a table asking 625 binaries).
fn no_variance_above(name: &str, kept: usize) -> String {
    let (here, above) = match name {
        "iteration" => ("iterations", "executions"),
        "execution" => ("executions", "binaries"),
        _ => ("repetitions at this level", "units of the level above"),
    };
    format!(
        "the {above} add no measurable variance of their own (T² ≤ 0 above, or negligible beside this level's), so eq. 3 has no optimum: only the total number of {here} counts. The table keeps the initial experiment's {kept} {here} per unit above and counts the {above}; the same total spread over fewer {above} with more {here} each would be as precise if that T² ≤ 0 holds, but it is estimated from the initial experiment alone, and more {above} also cover more layouts"
    )
}

/// The series' notes: the levels its initial experiment leaves undimensioned, then the
/// costs floored.
pub(crate) fn notes(s: &SeriesDimension) -> Vec<String> {
    let shape = s
        .shape
        .iter()
        .map(|level| undimensioned(*level).to_string());
    let floored = s.levels.iter().filter_map(|l| {
        l.floored_from.map(|measured| {
            format!(
                "The measured {} cost is {} s, so it was set to {MIN_COST_SECONDS} s: this level adds (almost) no time of its own; give --costs {}=TIME if that is wrong.",
                l.name,
                sig(measured, 3),
                l.name
            )
        })
    });
    shape.chain(floored).collect()
}

/// A level the initial experiment leaves undimensioned, in words.
fn undimensioned(level: UndimensionedLevel) -> &'static str {
    match level {
        UndimensionedLevel::Iteration => "One live iteration per execution in the initial experiment: the iteration level cannot be dimensioned; keep one iteration per execution or run an initial experiment with several.",
        UndimensionedLevel::Execution => "One execution per binary in the initial experiment: the execution level cannot be dimensioned. Run at least 2 executions per binary: with one, `report` cannot tell the layout's effect from execution-to-execution noise (layout sensitivity needs executions of one binary to compare the binaries against).",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(name: &str, eq3: Option<OptimalCount>, raised_from: Option<u64>) -> LevelDimension {
        LevelDimension {
            name: name.into(),
            initial_repetitions: 3,
            t2: 1.0,
            relative_variation: None,
            cost_seconds: 1.0,
            execution_seconds: None,
            optimal: None,
            source: CostSource::WallMinusLiveIterations,
            floored_from: None,
            eq3,
            raised_from,
        }
    }

    /// The advice as `dimension` worded it in analysis/ (same clauses, same order).
    #[test]
    fn the_advice_reads_as_before() {
        let plain = level(
            "execution",
            Some(OptimalCount::Count { repetitions: 4 }),
            None,
        );
        assert_eq!(advice(&plain), None);
        let unknown = level("iteration", Some(OptimalCount::Unknown), None);
        assert_eq!(
            advice(&unknown).unwrap(),
            "T² could not be estimated here (a level has a single repetition); keeping the \
             initial experiment's 3"
        );
        let once = level("execution", Some(OptimalCount::NoVarianceHere), Some(1));
        assert_eq!(
            advice(&once).unwrap(),
            "T² ≤ 0: this level adds no measurable variance of its own; repeat it once; raised \
             from 1 to 2: with one execution per binary `report` cannot test layout sensitivity \
             (it compares the binaries against executions of one binary); the interval of the \
             mean alone would need 1"
        );
        let above = level("execution", Some(OptimalCount::NoVarianceAbove), None);
        insta::assert_snapshot!(advice(&above).unwrap());
    }

    /// A floored cost says so in its source and in a note after the shape's.
    #[test]
    fn a_floored_cost_is_named_twice() {
        let mut floored = level("execution", None, None);
        floored.floored_from = Some(-0.178);
        assert_eq!(
            cost_source(&floored),
            "measured: process wall time minus its live iterations, floored"
        );
        let s = SeriesDimension {
            program: "p".into(),
            variant: None,
            metric: "wall".into(),
            unit: "s".into(),
            mean: 1.0,
            levels: vec![level("iteration", None, None), floored],
            rows: Vec::new(),
            crossed: Vec::new(),
            shape: vec![UndimensionedLevel::Iteration],
        };
        let notes = notes(&s);
        assert_eq!(notes.len(), 2);
        assert!(notes[0].starts_with("One live iteration per execution"));
        assert_eq!(
            notes[1],
            "The measured execution cost is -0.178 s, so it was set to 0.000001 s: this level \
             adds (almost) no time of its own; give --costs execution=TIME if that is wrong."
        );
    }
}
