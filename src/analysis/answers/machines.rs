//! The machine as a factor (Slurm runs): per-machine means, the share of the
//! execution-level variance due to machines, whether they differ detectably, and how the
//! top-level interval treats them. Absent when the store records no machines.

use serde::Serialize;

use super::experiment::Experiment;
use super::series::Series;
use crate::stats::machines::{machine_component, MachineComponent};

/// The machine analysis of one program, variant and metric.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The finding in words."
))]
pub(crate) struct MachineSeries {
    /// Program name.
    pub(crate) program: String,
    /// The variant (`build --variant NAME`); null without variants.
    pub(crate) variant: Option<String>,
    /// Metric name.
    pub(crate) metric: String,
    /// Unit of the means.
    pub(crate) unit: String,
    /// One row per machine, by name.
    pub(crate) machines: Vec<MachineRow>,
    /// The random-effects estimate; `None` with one machine or too few executions.
    pub(crate) component: Option<MachineComponent>,
    /// True when the machines differ detectably at the report's confidence.
    pub(crate) differ: bool,
}

/// One machine's executions of one series.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct MachineRow {
    /// Slurm node name (else host name).
    pub(crate) machine: String,
    /// Executions it ran.
    pub(crate) executions: usize,
    /// Mean of its executions' means.
    pub(crate) mean: f64,
    /// Mean offset of its executions from their binaries' means.
    pub(crate) offset: f64,
}

/// The machine analysis of every series of `experiment`; empty when no execution records
/// its machine.
pub(crate) fn machine_sections(experiment: &Experiment, confidence: f64) -> Vec<MachineSeries> {
    if experiment.machines.is_empty() {
        return Vec::new();
    }
    let mut names: Vec<&String> = experiment.machines.values().collect();
    names.sort();
    names.dedup();
    experiment
        .series
        .iter()
        .map(|s| machine_series(experiment, s, &names, confidence))
        .collect()
}

/// The machine analysis of series `s` (`names`: every machine of the experiment, sorted).
fn machine_series(
    experiment: &Experiment,
    s: &Series,
    names: &[&String],
    confidence: f64,
) -> MachineSeries {
    let (data, present) = execution_means(experiment, s, names);
    let component = machine_component(&data).ok();
    let machines: Vec<MachineRow> = present
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let ys: Vec<f64> = data.iter().filter(|d| d.1 == i).map(|d| d.2).collect();
            MachineRow {
                machine: names[m].clone(),
                executions: ys.len(),
                mean: ys.iter().sum::<f64>() / ys.len() as f64,
                offset: component.as_ref().map_or(f64::NAN, |c| c.offsets[i].1),
            }
        })
        .collect();
    let differ = component
        .as_ref()
        .is_some_and(|c| c.p_value < 1.0 - confidence);
    MachineSeries {
        program: s.program.clone(),
        variant: s.variant.clone(),
        metric: s.metric.clone(),
        unit: s.unit.clone(),
        machines,
        component,
        differ,
    }
}

/// Each execution of `s` that has a machine and a live iteration, as (binary, machine,
/// mean of its live iterations), machines numbered densely; and for each such number its
/// index in `names`.
fn execution_means(
    experiment: &Experiment,
    s: &Series,
    names: &[&String],
) -> (Vec<(usize, usize, f64)>, Vec<usize>) {
    let mut data = Vec::new();
    let binaries = s.baseline.iter().chain(s.seeds.iter());
    for (b, bin) in binaries.enumerate() {
        for e in &bin.executions {
            let key = (
                s.program.clone(),
                s.variant.clone(),
                bin.binary.clone(),
                e.execution,
            );
            let (Some(name), false) = (experiment.machines.get(&key), e.live.is_empty()) else {
                continue;
            };
            let m = names.iter().position(|n| *n == name).expect("listed");
            let y = e.live.iter().sum::<f64>() / e.live.len() as f64;
            data.push((b, m, y));
        }
    }
    // Machine indices must be dense for the estimator: renumber those present.
    let mut present: Vec<usize> = data.iter().map(|d| d.1).collect();
    present.sort();
    present.dedup();
    for d in &mut data {
        d.1 = present.iter().position(|&m| m == d.1).expect("present");
    }
    (data, present)
}
