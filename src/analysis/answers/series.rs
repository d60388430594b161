//! The balanced data of one program and metric, as the report analyses it: the randomised
//! binaries (binaries × executions × iterations) and, apart, the default-layout baseline.
//! [`super::experiment`] builds these from the store, [`super::balance`] trims them.

use crate::stats::sample::mean;

/// The measurements of one metric of one program: the randomised binaries (the
/// three-level hierarchy) and, separately, the baseline (default-layout) binary.
#[derive(Debug, Clone)]
pub struct Series {
    /// Program name (binary name from the manifest).
    pub program: String,
    /// The variant (`build --variant NAME`) measured; `None` without variants.
    pub variant: Option<String>,
    /// Metric name, e.g. `wall` or `I1_misses`.
    pub metric: String,
    /// Unit of the values, e.g. `ns`.
    pub unit: String,
    /// Randomised binaries (seeds), balanced, in seed order.
    pub seeds: Vec<BinaryData>,
    /// The default-layout binary, balanced on its own, if it was run.
    pub baseline: Option<BinaryData>,
    /// The binary the user's build made (`as-built`), balanced on its own, if it was run: a
    /// fixed layout like the baseline, never among [`Series::seeds`].
    pub as_built: Option<BinaryData>,
    /// Warmup iterations discarded at the start of each execution (from the store header).
    pub warmup_discarded: u32,
    /// Whether execution `k` of every seed binary ran in round `k` of a rounds schedule
    /// (randomised complete blocks the analysis may block on): the store's header says
    /// `schedule_design: rounds` and no binaries were added after the run began.
    pub rounds: bool,
    /// The binaries added after the run began (`build --extend`, then `run --resume`), each
    /// by the phase of the run that measured it: 1 for the first extension that added
    /// binaries, 2 for the next, …; every other binary ran from the start (phase 0). Each
    /// phase ran at its own time, so the host's state then is in its binaries' means.
    pub later_phases: std::collections::BTreeMap<String, u32>,
    /// Seconds to link one binary of this program (mean over the seeds' links in relink
    /// mode; the recorded full build in rebuild mode), when the manifest says.
    pub binary_cost_seconds: Option<f64>,
}

/// One binary (a seed or the baseline) and its executions.
#[derive(Debug, Clone, PartialEq)]
pub struct BinaryData {
    /// `baseline`, `as-built` or `seed-N`.
    pub binary: String,
    /// The seed, `None` for the baseline and the as-built binary.
    pub seed: Option<u64>,
    /// Executions, in execution-index order.
    pub executions: Vec<ExecutionData>,
}

/// One execution (process) of a binary.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionData {
    /// Index of the execution of this binary.
    pub execution: u32,
    /// Position in the interleaved schedule.
    pub schedule_index: u64,
    /// Wall time of the whole process in nanoseconds.
    pub wall_ns: u64,
    /// The data seed the execution ran with (`run --data-seeds`); `None` when the data
    /// layout was not a factor of the run.
    pub data_seed: Option<u64>,
    /// Iterations flagged as warmup, in iteration order (left out of the statistics).
    pub warmup: Vec<f64>,
    /// Live iterations, in iteration order.
    pub live: Vec<f64>,
}

impl BinaryData {
    /// Number of live iterations per execution (the data are balanced).
    pub(crate) fn iterations(&self) -> usize {
        self.executions.first().map_or(0, |e| e.live.len())
    }

    /// Mean of all live values of this binary.
    pub(crate) fn mean(&self) -> f64 {
        let values: Vec<f64> = self
            .executions
            .iter()
            .flat_map(|e| e.live.iter().copied())
            .collect();
        mean(&values)
    }

    /// The mean of each execution's live values.
    pub fn execution_means(&self) -> Vec<f64> {
        self.executions.iter().map(|e| mean(&e.live)).collect()
    }
}

/// A program as the reports name it (a key, not a sentence): one spelling, the
/// vocabulary's.
pub(crate) use crate::analysis::vocabulary::program_label;

#[cfg(test)]
impl Series {
    /// A rounds store of the randomised binaries `seed-1`, `seed-2`, … whose executions (one
    /// iteration each, round by round) gave `values[binary][round]`: the tests' stores.
    pub(crate) fn of_rounds(
        program: &str,
        metric: &str,
        unit: &str,
        values: &[Vec<f64>],
    ) -> Series {
        let seeds = (1u64..)
            .zip(values)
            .map(|(i, rounds)| BinaryData {
                binary: format!("seed-{i}"),
                seed: Some(i),
                executions: (0u32..)
                    .zip(rounds)
                    .map(|(round, v)| ExecutionData {
                        execution: round,
                        schedule_index: u64::from(round) * values.len() as u64 + i,
                        wall_ns: 0,
                        data_seed: None,
                        warmup: Vec::new(),
                        live: vec![*v],
                    })
                    .collect(),
            })
            .collect();
        Series {
            program: program.into(),
            variant: None,
            metric: metric.into(),
            unit: unit.into(),
            seeds,
            baseline: None,
            as_built: None,
            warmup_discarded: 0,
            rounds: true,
            later_phases: Default::default(),
            binary_cost_seconds: None,
        }
    }
}

impl Series {
    /// Executions per seed binary (balanced).
    pub(crate) fn executions_per_binary(&self) -> usize {
        self.seeds.first().map_or(0, |b| b.executions.len())
    }

    /// Live iterations per execution (balanced).
    pub(crate) fn iterations_per_execution(&self) -> usize {
        self.seeds.first().map_or(0, BinaryData::iterations)
    }

    /// This series without the randomised binaries' executions `set_aside` names (binary
    /// label, execution index): what the answers about where the variation comes from rest
    /// on once the screening set load bursts aside. No longer balanced when it names some:
    /// only for readers that balance their own tables (the crossed split cuts every pair to
    /// the fewest).
    pub(crate) fn without_executions(&self, set_aside: &[(&str, u32)]) -> Series {
        let mut kept = self.clone();
        for binary in &mut kept.seeds {
            binary
                .executions
                .retain(|e| !set_aside.contains(&(binary.binary.as_str(), e.execution)));
        }
        kept
    }

    /// Whether the metric is a rate (`MB/s`: higher means faster; [`crate::units::is_rate_unit`]).
    pub(crate) fn is_rate(&self) -> bool {
        crate::units::is_rate_unit(&self.unit)
    }

    /// Whether the metric measures time (so lower means faster).
    pub(crate) fn is_time(&self) -> bool {
        crate::units::is_time_unit(&self.unit)
            || matches!(self.metric.as_str(), "wall" | "cpu" | "user" | "sys")
    }
}
