//! "Can the data be trusted as read?" in words: the warnings of reading an experiment
//! directory ([`crate::analysis::answers::experiment::ExperimentWarning`]) — binaries that
//! never ran, a manifest missing or of another version, the store's own notes and what
//! balancing changed ([`super::balance`]) — and the report's further warnings
//! ([`ReportWarning`]).

use crate::analysis::answers::compare::{ExperimentComparison, ExperimentSide, RanApart};
use crate::analysis::answers::experiment::{Ending, ExperimentWarning, NeverRan};
use crate::analysis::answers::model::ReportWarning;
use crate::files::cache_model::{CacheModel, SetupDifference};
use crate::files::manifest::MANIFEST_FILE;
use crate::files::store::RESULTS_FILE;
use crate::report::words::UNKNOWN_WITHOUT_MANIFEST;

/// The comparison's warnings: those of reading either experiment (prefixed `base:` or
/// `new:`), then those of the comparison itself.
pub(crate) fn compared_warnings(c: &ExperimentComparison) -> Vec<String> {
    let read = c.read_warnings.iter().map(|(side, w)| {
        let side = match side {
            ExperimentSide::Base => "base",
            ExperimentSide::New => "new",
        };
        format!("{side}: {}", warning(w))
    });
    read.chain(c.model_differences.iter().map(setup_difference))
        .chain(c.ran_apart.as_ref().map(ran_apart))
        .collect()
}

/// Two runs that never overlapped, in words: which started how long after the other ended,
/// and what a comparison of them cannot tell.
pub(crate) fn ran_apart(r: &RanApart) -> String {
    let (first, second) = if r.base.0 <= r.new.0 {
        ("base", "new")
    } else {
        ("new", "base")
    };
    format!(
        "the two experiments ran apart, not interleaved ({second} started {} after {first} \
         ended): their intervals cover the layouts and the executions, not how the host changed \
         between the two runs, so a difference of a few per cent may be the host's rather than \
         the code's; to judge the code, build both as variants of one experiment (`build \
         --variant`), whose executions interleave",
        crate::report::numfmt::duration(r.gap_seconds())
    )
}

/// How two cachegrind runs' set-ups differ, in words.
pub(crate) fn setup_difference(d: &SetupDifference) -> String {
    let state = |same: bool| if same { "are unknown" } else { "differ" };
    match d {
        SetupDifference::Models { base, new } => {
            let model = |m: &Option<CacheModel>| match m {
                Some(m) => m.to_string(),
                None => "not recorded (valgrind's model of the host it ran on)".to_string(),
            };
            format!(
                "the two stores' cachegrind cache models {}: base {}, new {}; their counts \
                 may come from two different simulated machines",
                state(base == new),
                model(base),
                model(new)
            )
        }
        SetupDifference::Versions { base, new } => {
            let version = |v: &Option<String>| v.as_deref().unwrap_or("not recorded").to_string();
            format!(
                "the two stores' valgrind versions {}: base {}, new {}",
                state(base == new),
                version(base),
                version(new)
            )
        }
    }
}

/// One warning of the report in words.
pub(crate) fn report_warning(w: &ReportWarning) -> String {
    match w {
        ReportWarning::Experiment(w) => warning(w),
        ReportWarning::VariantLeftOut {
            program,
            metric,
            variant,
        } => format!(
            "{program} {metric}: variant {} has no usable randomised binaries; it is left out \
             of the variant comparison",
            variant.as_deref().unwrap_or("?")
        ),
        ReportWarning::Variants {
            program,
            metric,
            warning,
        } => format!("{program} {metric}: {}", super::variants::warning(warning)),
        ReportWarning::ExplainLeftOut { error } => {
            format!("{error}: the explain section is left out")
        }
    }
}

/// One warning of reading an experiment in words.
pub(crate) fn warning(w: &ExperimentWarning) -> String {
    match w {
        ExperimentWarning::Store(w) => w.to_string(),
        ExperimentWarning::Balance(b) => super::balance::warning(b),
        ExperimentWarning::VersionsDiffer { manifest, store } => format!(
            "the manifest was written by layoutrand {manifest} and the store by layoutrand \
             {store}"
        ),
        ExperimentWarning::NoManifest { dir } => format!(
            "{} has no {MANIFEST_FILE}: this report is built from {RESULTS_FILE} alone, so \
             what only the manifest records is {UNKNOWN_WITHOUT_MANIFEST}: the seeds built, \
             granularity, linker, build mode, padding, what the seeds achieved, and the build \
             and link times (the cost of a binary for `dimension`)",
            dir.display()
        ),
        ExperimentWarning::NeverRan(n) => never_ran(n),
    }
}

/// Binaries that never ran: one among several, every binary (the command as run, with one
/// stored output), or several.
fn never_ran(n: &NeverRan) -> String {
    let (label, kinds) = (&n.label, endings(&n.endings));
    match n.binaries.as_slice() {
        [binary] if n.of > 1 => format!(
            "{label} {binary}: every execution failed ({} of {}; {kinds}), so it is left out \
             and the analysis covers only the binaries that ran; a failure on some layouts \
             only depends on the layout: worth a look before trusting the rest",
            n.executions, n.executions
        ),
        _ if n.binaries.len() == n.of => {
            let output = n
                .output
                .as_deref()
                .map(|t| format!("; the output of one of them:\n{}", t.trim_end()))
                .unwrap_or_default();
            format!(
                "{label}: every execution of every binary failed ({} executions of {} \
                 binaries; {kinds}): not a layout effect but the command as run (a wrong \
                 {{bin}} or input?), and the program is left out{output}",
                n.executions, n.of
            )
        }
        _ => format!(
            "{label}: every execution failed on {} of {} binaries ({}; {} executions; \
             {kinds}), so they are left out and the analysis covers only the binaries that \
             ran; a failure on some layouts only depends on the layout: worth a look before \
             trusting the rest",
            n.binaries.len(),
            n.of,
            n.binaries.join(", "),
            n.executions
        ),
    }
}

/// How the failed executions ended, each distinct way once, sorted by its words:
/// `exit status 1, signal 11, timeout`.
fn endings(endings: &[Ending]) -> String {
    endings
        .iter()
        .map(|e| match e {
            Ending::Exit(code) => format!("exit status {code}"),
            Ending::Signal(sig) => format!("signal {sig}"),
            Ending::Other(status) => format!("{status:?}").to_lowercase(),
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two cachegrind runs' set-ups are said side by side, base then new; an unknown
    /// model or version is never taken as the same.
    #[test]
    fn setup_differences_name_both_sides() {
        let tiny = CacheModel::parse("I1=1024,2,64").unwrap();
        let models = SetupDifference::Models {
            base: Some(CacheModel::DEFAULT),
            new: Some(tiny),
        };
        assert_eq!(
            setup_difference(&models),
            "the two stores' cachegrind cache models differ: base \
             I1=32768,8,64,D1=32768,8,64,LL=8388608,16,64, new \
             I1=1024,2,64,D1=32768,8,64,LL=8388608,16,64; their counts may come from two \
             different simulated machines"
        );
        let unknown = SetupDifference::Models {
            base: None,
            new: None,
        };
        assert_eq!(
            setup_difference(&unknown),
            "the two stores' cachegrind cache models are unknown: base not recorded \
             (valgrind's model of the host it ran on), new not recorded (valgrind's model of \
             the host it ran on); their counts may come from two different simulated machines"
        );
        let versions = SetupDifference::Versions {
            base: Some("valgrind-3.19.0".into()),
            new: Some("valgrind-3.22.0".into()),
        };
        assert_eq!(
            setup_difference(&versions),
            "the two stores' valgrind versions differ: base valgrind-3.19.0, new valgrind-3.22.0"
        );
        let versions = SetupDifference::Versions {
            base: None,
            new: None,
        };
        assert_eq!(
            setup_difference(&versions),
            "the two stores' valgrind versions are unknown: base not recorded, new not recorded"
        );
    }
    use crate::files::store::ExecutionStatus;

    fn never_ran_of(binaries: &[&str], of: usize, output: Option<&str>) -> NeverRan {
        NeverRan {
            label: "demo".into(),
            binaries: binaries.iter().map(|b| b.to_string()).collect(),
            of,
            executions: 3 * binaries.len(),
            endings: vec![
                Ending::Other(ExecutionStatus::Timeout),
                Ending::Signal(11),
                Ending::Exit(1),
            ],
            output: output.map(str::to_string),
        }
    }

    /// One binary among several, every binary (with the stored output, trimmed) and some
    /// binaries each get their own sentence with the counts; the endings are sorted by
    /// their words.
    #[test]
    fn binaries_that_never_ran_in_words() {
        let kinds = "exit status 1, signal 11, timeout";
        assert_eq!(
            never_ran(&never_ran_of(&["seed-3"], 5, Some("ignored"))),
            format!(
                "demo seed-3: every execution failed (3 of 3; {kinds}), so it is left out and \
                 the analysis covers only the binaries that ran; a failure on some layouts only \
                 depends on the layout: worth a look before trusting the rest"
            )
        );
        let all = never_ran(&never_ran_of(&["seed-1", "seed-2"], 2, Some("boom\n\n")));
        assert!(
            all.starts_with(&format!(
                "demo: every execution of every binary failed (6 executions of 2 binaries; \
                 {kinds}): not a layout effect"
            )),
            "{all}"
        );
        assert!(
            all.ends_with("left out; the output of one of them:\nboom"),
            "{all}"
        );
        let some = never_ran(&never_ran_of(&["seed-1", "seed-4"], 5, None));
        assert!(
            some.starts_with(&format!(
                "demo: every execution failed on 2 of 5 binaries (seed-1, seed-4; 6 \
                 executions; {kinds}), so they are left out"
            )),
            "{some}"
        );
    }
}
