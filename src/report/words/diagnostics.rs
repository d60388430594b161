//! "Can the report's numbers be trusted?" in words: the notes of the checks
//! ([`crate::analysis::answers::diagnostics`]) and of the design, and why drift was not
//! tested, from the model's [`DiagnosticConcern`]s and [`DriftUntested`].

use super::OVERFLOW_REASON;
use crate::analysis::answers::diagnostics::MIN_EXECUTIONS_FOR_DRIFT;
use crate::analysis::answers::model::{DiagnosticConcern, DriftUntested, ExecutionId, Normality};
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::report::numfmt::{percent, signed_percent};

// The diagnostics' `notes`, `drift_not_tested` and the executions failing the
// independence test, on the wire, in words.
super::said_as!(DiagnosticConcern = note);
super::said_as!(DriftUntested = |d: &DriftUntested| drift_untested(*d));
super::said_as!(ExecutionId = execution);

/// One execution as the report names it: "seed-3 execution 1".
pub(crate) fn execution(e: &ExecutionId) -> String {
    format!("{} execution {}", e.binary, e.execution)
}

/// What Shapiro–Wilk on the binaries' means says for the report's intervals at
/// `confidence`, as the end of a sentence: no evidence against normality, or not normal with
/// the advice that fits the number of binaries (the bootstrap only from
/// [`crate::stats::bootstrap::ADVISABLE_UNITS`] on; the one the report shows when
/// `bootstrapped`, else the option that asks for it).
pub(crate) fn normality_advice(n: &Normality, confidence: f64, bootstrapped: bool) -> &'static str {
    let rejected = n.rejected(confidence);
    if rejected && n.n >= crate::stats::bootstrap::ADVISABLE_UNITS && bootstrapped {
        " — not normal; with few binaries the t interval may be off: prefer more binaries or the bootstrap interval given with the mean"
    } else if rejected && n.n >= crate::stats::bootstrap::ADVISABLE_UNITS {
        " — not normal; with few binaries the t interval may be off: prefer more binaries or the bootstrap interval (report --bootstrap 10000)"
    } else if rejected {
        " — not normal; with so few binaries the t interval may be off and the bootstrap interval is not advisable either: add binaries"
    } else {
        " — no evidence against normality"
    }
}

/// One note in words.
pub(crate) fn note(concern: &DiagnosticConcern) -> String {
    match concern {
        DiagnosticConcern::Host(condition) => super::host_conditions::warning(condition),
        DiagnosticConcern::FewBinaries { binaries } => format!(
            "Only {binaries} randomised binar{} with usable data: with fewer than {MIN_TOP_LEVEL_UNITS} the interval's own width is poorly estimated (Kalibera & Jones §11); build and run more seeds.",
            if *binaries == 1 { "y" } else { "ies" }
        ),
        DiagnosticConcern::DependentIterations => "More executions fail the independence test than chance explains: iterations within an execution are not independent (Kalibera & Jones §6.2), so the iteration-level variance is biased; inspect the run-sequence and lag plots (--format html) and consider a longer warmup or one iteration per execution.".into(),
        DiagnosticConcern::OneExecutionPerBinary => "One execution per binary: execution-level variation is confounded with the layout's.".into(),
        DiagnosticConcern::NoNoise => "Noise: none: the executions of each binary gave the same value (a deterministic metric), so the binaries' means differ only by their layouts and any difference between them is measured exactly.".into(),
        DiagnosticConcern::Noise {
            cv,
            mde,
            executions,
            alpha,
        } => format!(
            "Noise: with executions varying by {}, an effect below ≈ {} cannot be detected with these counts (the difference between two binaries' means over {executions} executions each, two-sided test at {}, 80 % power).",
            percent(*cv, 2),
            percent(*mde, 2),
            percent(*alpha, 0)
        ),
        DiagnosticConcern::NoBaseline => "The default-layout binary (baseline) was not run, so no layout shift can be estimated.".into(),
        DiagnosticConcern::Phases(p) => format!(
            "Phases: {} of the randomised binaries were added after the run began (`build --extend`) and ran later, in {} phase(s) of their own; the host's state in a phase is in all its binaries' means (a phase's binaries sit up to {} from the mean over all random binaries), so the layout's answers (sensitivity, shift, place) compare the binaries within their phase, each phase's shift taken out; the mean over random layouts and the table of levels keep every value as it ran.",
            p.added,
            p.phases - 1,
            signed_percent(p.largest)
        ),
    }
}

/// Why drift was not tested, in words.
pub(crate) fn drift_untested(reason: DriftUntested) -> String {
    match reason {
        DriftUntested::Overflow => format!("not tested: {OVERFLOW_REASON}."),
        DriftUntested::TooFewExecutions => format!(
            "not tested (needs at least {MIN_EXECUTIONS_FOR_DRIFT} executions in run order and at least 2 per binary, to take each binary's own mean out)."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normality(n: usize, p_value: f64) -> Normality {
        Normality { n, w: 0.8, p_value }
    }

    #[test]
    fn normality_is_rejected_below_one_minus_the_confidence() {
        assert!(normality(10, 0.049).rejected(0.95));
        assert!(!normality(10, 0.051).rejected(0.95));
        assert!(normality(10, 0.009).rejected(0.99));
        assert!(!normality(10, 0.011).rejected(0.99));
    }

    #[test]
    fn an_execution_is_named_by_its_binary_and_index() {
        let e = ExecutionId {
            binary: "seed-3".into(),
            execution: 1,
        };
        assert_eq!(execution(&e), "seed-3 execution 1");
    }

    #[test]
    fn the_bootstrap_is_advised_only_from_the_advisable_units_on() {
        let units = crate::stats::bootstrap::ADVISABLE_UNITS;
        let enough = normality_advice(&normality(units, 0.01), 0.95, false);
        let too_few = normality_advice(&normality(units - 1, 0.01), 0.95, false);
        let normal = normality_advice(&normality(units - 1, 0.5), 0.95, false);
        let shown = normality_advice(&normality(units, 0.01), 0.95, true);
        insta::assert_snapshot!(format!(
            "enough: {enough}\nenough, bootstrapped: {shown}\ntoo few: {too_few}\nnormal: {normal}"
        ));
    }
}
