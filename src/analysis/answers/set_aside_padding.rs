//! Where the executions the outlier screen set aside started their stack. The run draws
//! each execution's environment padding at random (one data seed), independently of what
//! the execution measures: under a deterministic metric the padding is all that tells two
//! executions of one binary apart, and set-aside executions whose paddings bunch point at
//! the stack's start (the data layout), not at the code (a dash script under cachegrind:
//! paddings of 3,904 bytes and more, 5 % of the draws, took four times the D1 read misses).

use super::experiment::{Experiment, Series};
use super::model::{Sensitivity, SetAsidePadding};

/// Gives each set-aside execution of `sensitivity` (of `series`) its padding, and
/// `sensitivity` how those paddings bunch; nothing when the run drew no padding per
/// execution.
pub(crate) fn attach(
    experiment: &Experiment,
    series: &Series,
    sensitivity: &mut Sensitivity,
    deterministic: bool,
) {
    if sensitivity.set_aside.is_empty() || experiment.paddings.is_empty() {
        return;
    }
    let padding_of = |binary: &str, execution: u32| {
        let key = (
            series.program.clone(),
            series.variant.clone(),
            binary.to_string(),
            execution,
        );
        experiment.paddings.get(&key).copied()
    };
    for set_aside in &mut sensitivity.set_aside {
        set_aside.env_pad = padding_of(&set_aside.binary, set_aside.execution);
    }
    let chosen: Option<Vec<u32>> = sensitivity.set_aside.iter().map(|s| s.env_pad).collect();
    let Some(chosen) = chosen else {
        return;
    };
    // The executions the screen looked at: every one of the randomised binaries that ended well.
    let all: Vec<u32> = series
        .seeds
        .iter()
        .flat_map(|b| {
            b.executions
                .iter()
                .map(|e| (b.binary.as_str(), e.execution))
        })
        .filter_map(|(binary, execution)| padding_of(binary, execution))
        .collect();
    let as_f64 = |v: &[u32]| v.iter().map(|&p| f64::from(p)).collect::<Vec<f64>>();
    // Several set aside without a p-value (the test refused the data) would read as one: no
    // words of the paddings then.
    let p_value = match chosen.len() {
        1 => None,
        _ => match crate::stats::range_test::range_p_value(&as_f64(&all), &as_f64(&chosen)) {
            Ok(p) => Some(p),
            Err(_) => return,
        },
    };
    sensitivity.set_aside_padding = Some(SetAsidePadding {
        lowest: chosen.iter().copied().min().unwrap_or_default(),
        highest: chosen.iter().copied().max().unwrap_or_default(),
        drawn_below: experiment.header.env_pad_max,
        executions: all.len(),
        p_value,
        deterministic,
    });
}
