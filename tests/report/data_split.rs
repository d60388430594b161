//! The split of the variance between executions into code, data, their interaction and run
//! noise (issue 35) on synthetic crossed stores with known truth: all between-layout
//! variance on the data puts the data share above 90 % and code's interval at 0, and the
//! reverse; a failed execution is cut to balance, a design that cannot answer says why, and
//! one data seed adds nothing.

use crate::report_support;

use std::path::Path;

use layoutrand::analysis::report::data_split::{DataSplit, SplitCannotTell};
use layoutrand::analysis::report::experiment::from_parts;
use layoutrand::analysis::vocabulary::Thresholds;
use layoutrand::files::store::ExecutionStatus;
use layoutrand::report::analyse;
use report_support::{manifest, records, Crossed, Design};

/// 10 binaries × 4 data seeds × 3 executions × 5 iterations.
fn crossed_design() -> Design {
    let mut design = Design::new(10, 12, 5);
    design.data_seeds = 4;
    design
}

/// The split of the one series of `design` with values from `gen`, execution statuses from
/// `status`.
fn split_of(
    design: &Design,
    gen: &mut Crossed,
    status: &dyn Fn(&str, Option<u64>, u32) -> ExecutionStatus,
) -> Option<DataSplit> {
    analysed(design, gen, status).series[0]
        .variance_split
        .clone()
}

/// The report of the synthetic store of `design` with values from `gen`, execution statuses
/// from `status`.
pub(crate) fn analysed(
    design: &Design,
    gen: &mut Crossed,
    status: &dyn Fn(&str, Option<u64>, u32) -> ExecutionStatus,
) -> layoutrand::analysis::report::model::Report {
    analyse(&experiment_of(design, gen, status), &Thresholds::default()).unwrap()
}

/// The experiment of a synthetic store of `design` whose values come from `gen`.
pub(crate) fn experiment_of(
    design: &Design,
    gen: &mut Crossed,
    status: &dyn Fn(&str, Option<u64>, u32) -> ExecutionStatus,
) -> layoutrand::analysis::report::experiment::Experiment {
    let mut r = layoutrand::files::store::Results::default();
    for batch in records(
        design,
        &mut |_, seed, e, _, _| gen.value(design, seed, e),
        status,
    ) {
        for rec in batch {
            use layoutrand::files::store::Record;
            match rec {
                Record::Header(h) => r.header = Some(h),
                Record::Measurement(m) => r.measurements.push(m),
                Record::Execution(x) => r.executions.push(x),
                Record::Extension(x) => r.extensions.push(x),
                Record::Finish(f) => r.finishes.push(f),
            }
        }
    }
    from_parts(Path::new("synthetic"), manifest(design), r).unwrap()
}

#[test]
fn all_between_layout_variance_on_the_data_puts_the_split_on_data() {
    // A data layout moves the metric by 5 % (sd), the code not at all; a little run noise.
    let design = crossed_design();
    let mut gen = Crossed::new(1e6, [0.0, 0.05, 0.0, 0.002, 0.001], 35);
    let split = split_of(&design, &mut gen, &report_support::all_ok).expect("a split");
    assert_eq!(split.cannot_tell, None);
    assert_eq!(
        (
            split.code_seeds,
            split.data_seeds,
            split.executions_per_cell
        ),
        (10, 4, 3)
    );
    let data = split.data.unwrap();
    let code = split.code.unwrap();
    assert!(data.share >= 0.9, "{split:?}");
    assert!(data.detected(0.95), "{data:?}");
    assert_eq!(code.interval.lower, 0.0, "{split:?}");
    assert!(!code.detected(0.95), "{code:?}");
    // The magnitude is the data effect's sd over the mean: 5 % drawn from 4 levels.
    assert!((0.01..0.15).contains(&data.variation), "{data:?}");
}

#[test]
fn all_between_layout_variance_on_the_code_puts_the_split_on_code() {
    let design = crossed_design();
    let mut gen = Crossed::new(1e6, [0.05, 0.0, 0.0, 0.002, 0.001], 36);
    let split = split_of(&design, &mut gen, &report_support::all_ok).expect("a split");
    let code = split.code.unwrap();
    let data = split.data.unwrap();
    assert!(code.share >= 0.9, "{split:?}");
    assert!(code.detected(0.95), "{code:?}");
    assert_eq!(data.interval.lower, 0.0, "{split:?}");
    assert!(!data.detected(0.95), "{data:?}");
    let total: f64 = split.parts().iter().map(|(_, s)| s.share).sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
}

#[test]
fn a_failed_execution_is_cut_to_balance_and_counted() {
    let design = crossed_design();
    let mut gen = Crossed::new(1e6, [0.02, 0.02, 0.0, 0.01, 0.001], 37);
    let failing = |_: &str, seed: Option<u64>, e: u32| {
        if seed == Some(3) && e == 5 {
            ExecutionStatus::Exit
        } else {
            ExecutionStatus::Ok
        }
    };
    let split = split_of(&design, &mut gen, &failing).expect("a split");
    assert_eq!(split.cannot_tell, None, "{split:?}");
    assert_eq!(split.executions_per_cell, 2);
    assert!(split.executions_left_out > 0, "{split:?}");
    assert!(split.data.is_some() && split.run.is_some());
}

#[test]
fn one_execution_per_pair_cannot_tell_run_noise_from_the_interaction() {
    let mut design = Design::new(6, 4, 3);
    design.data_seeds = 4;
    let mut gen = Crossed::new(1e6, [0.02, 0.02, 0.0, 0.01, 0.001], 38);
    let split = split_of(&design, &mut gen, &report_support::all_ok).expect("data seeds");
    assert_eq!(
        split.cannot_tell,
        Some(SplitCannotTell::OneExecutionPerPair)
    );
    assert!(split.parts().is_empty());
}

#[test]
fn one_binary_cannot_tell_code_from_anything() {
    let mut design = crossed_design();
    design.seeds = 1;
    let mut gen = Crossed::new(1e6, [0.02, 0.02, 0.0, 0.01, 0.001], 39);
    let split = split_of(&design, &mut gen, &report_support::all_ok).expect("data seeds");
    assert_eq!(split.cannot_tell, Some(SplitCannotTell::OneBinary));
}

#[test]
fn one_data_seed_adds_no_split() {
    let design = Design::new(10, 3, 5);
    let mut gen = Crossed::new(1e6, [0.02, 0.02, 0.0, 0.01, 0.001], 40);
    assert_eq!(split_of(&design, &mut gen, &report_support::all_ok), None);
}
