//! Where the variation between executions comes from when the run varied the data layout
//! (`run --data-seeds`, issue 35): the crossed split of [`crate::stats::variance_split`] —
//! code, data, their interaction, run noise — of one series, each share with its interval,
//! with each axis's F test and magnitude. Each execution is summarised by the mean of its
//! live iterations (the estimator's `y_ijk`). Numbers and enums only: the sentences are
//! `crate::report::words::variance_split`'s.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::series::Series;
use crate::files::results::ExecutionKey;
use crate::stats::interval::Interval;
use crate::stats::sample::mean;
use crate::stats::variance_split::{
    axis_tests, components_from_mean_squares, crossed_mean_squares, machine_test, variance_split,
    variance_split_by_machine, AxisTest, Component, VarianceSplit,
};

/// Pivot draws behind each share's interval (the interval's quantiles move by well under a
/// percentage point between draws of this size).
const PIVOT_DRAWS: usize = 4000;

/// The pivots' stream: fixed, so that the same store gives the same report.
const PIVOT_SEED: u64 = 35;

/// The split of a series whose executions ran with several data seeds.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DataSplit {
    /// Binaries (code seeds) in the split.
    pub code_seeds: usize,
    /// Data seeds in the split.
    pub data_seeds: usize,
    /// Executions of every binary with every data seed that the split used.
    pub executions_per_cell: usize,
    /// Executions left out so that every binary has as many with every data seed (the
    /// first ones of each pair are kept).
    pub executions_left_out: usize,
    /// Executions the layout-sensitivity screening set aside as outlying (load bursts),
    /// left out of the split before the cut above; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub executions_set_aside: usize,
    /// The intervals' confidence level (the tests reject at one minus it).
    pub confidence: f64,
    /// Why there is no split: the components below are then absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cannot_tell: Option<SplitCannotTell>,
    /// Where the code sits: the binaries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<AxisShare>,
    /// Where the data sits: the data seeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<AxisShare>,
    /// How a data layout's effect differs from binary to binary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_x_data: Option<AxisShare>,
    /// Which machine ran the execution, when the executions ran on several machines, each
    /// in every (binary, data seed) pair equally often.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<AxisShare>,
    /// Executions of the same binary with the same data seed (on the same machine, when
    /// `machine` is given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<AxisShare>,
    /// The machines that ran the executions when they are not a component: several, but
    /// not each in every (binary, data seed) pair equally often, so their share stays in
    /// `run` (absent with one machine, or when `machine` is given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machines_in_run: Option<usize>,
}

/// One component's part of the variance between executions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct AxisShare {
    /// Its share of the variance between executions, in [0, 1].
    pub share: f64,
    /// The share's generalized confidence interval, within [0, 1].
    pub interval: Interval,
    /// Its standard deviation over the mean (the ANOVA estimate, truncated at 0): how much
    /// the metric varies from one level of this axis to another, e.g. 0.031 for 3.1 %.
    pub variation: f64,
    /// Whether the component is there: its F test (absent for run noise, which is the
    /// floor every test is against). The code axis's is the layout-sensitivity test's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) test: Option<AxisTest>,
    /// The code axis only: the layout-sensitivity verdict, the one answer to "does where the
    /// code sits matter?" (its test, magnitude and verdict are the split's code line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) verdict: Option<crate::analysis::vocabulary::Verdict>,
}

impl AxisShare {
    /// Whether the component is there at level `1 − confidence`: the code axis by the
    /// layout-sensitivity verdict (a negligible one when its test rejects: it is also given
    /// when the binaries' spread is bounded within the threshold while the test does not
    /// reject); the others when the test rejects and the share's interval lies above 0 (a
    /// verdict is judged on the interval it prints, issue 55).
    pub fn detected(&self, confidence: f64) -> bool {
        use crate::analysis::vocabulary::Verdict;
        match self.verdict {
            Some(Verdict::Detected) => true,
            Some(Verdict::Negligible) => self.rejected(confidence),
            Some(_) => false,
            None => self.rejected(confidence) && self.interval.lower > 0.0,
        }
    }

    /// Whether the test rejects at level `1 − confidence` while the share's interval reaches
    /// 0 (no code verdict): the data cannot tell.
    pub fn cannot_tell(&self, confidence: f64) -> bool {
        self.verdict.is_none() && self.rejected(confidence) && self.interval.lower <= 0.0
    }

    fn rejected(&self, confidence: f64) -> bool {
        self.test.is_some_and(|t| t.p_value < 1.0 - confidence)
    }
}

/// Why a series with several data seeds has no split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SplitCannotTell {
    /// Fewer than two binaries: the code axis has one level.
    OneBinary,
    /// Some executions ran without a data seed beside others with one.
    MixedDataSeeds,
    /// Some binary has no (usable) execution with some data seed.
    MissingPair,
    /// Some binary has a single execution with some data seed: run noise cannot be told
    /// from the interaction.
    OneExecutionPerPair,
    /// Every execution measured the same value.
    NoVariation,
}

/// Whether a count is 0 (left out of the JSON, so stores without set-aside executions keep
/// their bytes).
pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl DataSplit {
    /// This split, saying that `set_aside` executions were left out before it.
    pub(crate) fn with_set_aside(self, set_aside: usize) -> DataSplit {
        DataSplit {
            executions_set_aside: set_aside,
            ..self
        }
    }

    /// The components present, in the model's order, with their shares.
    pub fn parts(&self) -> Vec<(Component, &AxisShare)> {
        Component::ALL
            .iter()
            .map(|c| (*c, self.part(*c)))
            .filter_map(|(c, s)| s.map(|s| (c, s)))
            .collect()
    }

    /// The share of `component`, when it is one of the split.
    pub(crate) fn part(&self, component: Component) -> Option<&AxisShare> {
        match component {
            Component::Code => self.code.as_ref(),
            Component::Data => self.data.as_ref(),
            Component::CodeXData => self.code_x_data.as_ref(),
            Component::Machine => self.machine.as_ref(),
            Component::Run => self.run.as_ref(),
        }
    }
}

/// The split of `series` when its executions carry at least two distinct data seeds;
/// `None` otherwise (the data layout was not a factor: nothing changes in the report).
/// `machines` names the machine of each execution (Slurm runs; empty otherwise): with two
/// or more, each in every (binary, data seed) pair equally often, the machine is a
/// component of its own.
pub(crate) fn data_split(
    series: &Series,
    machines: &BTreeMap<ExecutionKey, String>,
    confidence: f64,
) -> Option<DataSplit> {
    let executions = || series.seeds.iter().flat_map(|b| b.executions.iter());
    let seeds: BTreeSet<u64> = executions().filter_map(|e| e.data_seed).collect();
    if seeds.len() < 2 {
        return None;
    }
    let mut split = DataSplit {
        code_seeds: series.seeds.len(),
        data_seeds: seeds.len(),
        executions_per_cell: 0,
        executions_left_out: 0,
        executions_set_aside: 0,
        confidence,
        cannot_tell: None,
        code: None,
        data: None,
        code_x_data: None,
        machine: None,
        run: None,
        machines_in_run: None,
    };
    if let Some(by_machine) = machine_cells(series, machines, &seeds) {
        match by_machine {
            Ok((cells, left_out)) => {
                split.executions_per_cell = cells[0][0].iter().map(Vec::len).sum();
                split.executions_left_out = left_out;
                match variance_split_by_machine(&cells, confidence, PIVOT_DRAWS, PIVOT_SEED) {
                    Ok(estimated) => {
                        let all: Vec<f64> = cells
                            .iter()
                            .flatten()
                            .flatten()
                            .flatten()
                            .copied()
                            .collect();
                        fill(&mut split, &estimated, mean(&all));
                    }
                    Err(_) => split.cannot_tell = Some(SplitCannotTell::NoVariation),
                }
                return Some(split);
            }
            Err(count) => split.machines_in_run = Some(count),
        }
    }
    let cells = match balanced_cells(series, &seeds) {
        Ok((cells, left_out)) => {
            split.executions_per_cell = cells[0][0].len();
            split.executions_left_out = left_out;
            cells
        }
        Err(why) => {
            split.cannot_tell = Some(why);
            return Some(split);
        }
    };
    match variance_split(&cells, confidence, PIVOT_DRAWS, PIVOT_SEED) {
        Ok(estimated) => fill(&mut split, &estimated, grand_mean(&cells)),
        Err(_) => split.cannot_tell = Some(SplitCannotTell::NoVariation),
    }
    Some(split)
}

/// The ANOVA estimates `[σ_c², σ_d², σ_cd², σ_e²]` of `series`'s crossed split (truncated
/// at 0) and the grand mean, for planning (`dimension`); `None` without a split (fewer than
/// two data seeds, or a design that cannot tell).
pub(crate) fn split_components(series: &Series) -> Option<([f64; 4], f64)> {
    let cells = crossed_cells(series)?;
    let table = crossed_mean_squares(&cells).ok()?;
    let (a, b, n) = (table.code_seeds, table.data_seeds, table.replicates);
    Some((
        components_from_mean_squares(table.values(), a, b, n),
        grand_mean(&cells),
    ))
}

/// `cells[i][j]`: the execution means of binary `i` with data seed `j`, each pair cut to the
/// fewest any pair has, with the number of executions that cut left out.
pub(super) type Cells = Vec<Vec<Vec<f64>>>;

/// The data seeds `series` ran under, when at least two (none recorded: the data layout was
/// not a factor).
fn data_seeds_of(series: &Series) -> Option<BTreeSet<u64>> {
    let seeds: BTreeSet<u64> = series
        .seeds
        .iter()
        .flat_map(|b| b.executions.iter())
        .filter_map(|e| e.data_seed)
        .collect();
    (seeds.len() >= 2).then_some(seeds)
}

/// The balanced crossed table the split analyses, when `series` ran with at least two data
/// seeds and every binary has at least two executions with each: the one table the other
/// answers of a crossed design (the mean's interval, the code axis's power) come from.
pub(super) fn crossed_cells(series: &Series) -> Option<Cells> {
    let seeds = data_seeds_of(series)?;
    balanced_cells(series, &seeds).ok().map(|(cells, _)| cells)
}

/// Each binary's mean per data seed, and the data seeds in the columns' order, when `series`
/// ran every binary under the same (at least two) data seeds, each at least once: the cells
/// of a comparison over code and data layouts ([`crate::analysis::pair::DataCells`]).
pub(crate) fn data_cell_means(series: &Series) -> Option<(Vec<u64>, Vec<Vec<f64>>)> {
    let seeds = data_seeds_of(series)?;
    let mut means = Vec::with_capacity(series.seeds.len());
    for binary in &series.seeds {
        let mut by_seed: BTreeMap<u64, Vec<f64>> = seeds.iter().map(|s| (*s, vec![])).collect();
        for e in &binary.executions {
            by_seed.entry(e.data_seed?).or_default().push(mean(&e.live));
        }
        if by_seed.values().any(Vec::is_empty) {
            return None;
        }
        means.push(by_seed.values().map(|v| mean(v)).collect());
    }
    Some((seeds.into_iter().collect(), means))
}

fn balanced_cells(
    series: &Series,
    seeds: &BTreeSet<u64>,
) -> Result<(Cells, usize), SplitCannotTell> {
    if series.seeds.len() < 2 {
        return Err(SplitCannotTell::OneBinary);
    }
    let mut cells: Cells = Vec::with_capacity(series.seeds.len());
    for binary in &series.seeds {
        let mut by_seed: BTreeMap<u64, Vec<f64>> = seeds.iter().map(|s| (*s, vec![])).collect();
        for e in &binary.executions {
            let seed = e.data_seed.ok_or(SplitCannotTell::MixedDataSeeds)?;
            by_seed.entry(seed).or_default().push(mean(&e.live));
        }
        cells.push(by_seed.into_values().collect());
    }
    let sizes = || cells.iter().flatten().map(Vec::len);
    let fewest = sizes().min().unwrap_or(0);
    match fewest {
        0 => return Err(SplitCannotTell::MissingPair),
        1 => return Err(SplitCannotTell::OneExecutionPerPair),
        _ => {}
    }
    let left_out = sizes().map(|n| n - fewest).sum();
    for cell in cells.iter_mut().flatten() {
        cell.truncate(fewest);
    }
    Ok((cells, left_out))
}

/// The mean of every execution mean (the cells are balanced).
fn grand_mean(cells: &Cells) -> f64 {
    let all: Vec<f64> = cells.iter().flatten().flatten().copied().collect();
    mean(&all)
}

/// The shares, magnitudes and tests of `estimated` into `split`.
fn fill(split: &mut DataSplit, estimated: &VarianceSplit, grand: f64) {
    let [code_test, data_test, interaction_test] = axis_tests(&estimated.mean_squares);
    let part = |component: Component, test: Option<AxisTest>| {
        estimated.share_of(component).map(|s| AxisShare {
            share: s.share,
            interval: s.interval,
            variation: s.variance.sqrt() / grand.abs(),
            test,
            verdict: None,
        })
    };
    split.code = part(Component::Code, Some(code_test));
    split.data = part(Component::Data, Some(data_test));
    split.code_x_data = part(Component::CodeXData, Some(interaction_test));
    split.machine = part(Component::Machine, machine_test(&estimated.mean_squares));
    split.run = part(Component::Run, None);
}

/// `cells[i][j][m]`: the execution means of binary `i` with data seed `j` on machine `m`.
type MachineCells = Vec<Vec<Vec<Vec<f64>>>>;

/// The crossed table by machine of `series` when its executions ran on two or more machines
/// (`None` otherwise): every (binary, data seed, machine) cut to the fewest executions any
/// has, with the number left out; `Err(machines)` when some machine is missing from some
/// (binary, data seed) pair, or every pair has a single execution (the machines then stay
/// in run noise).
fn machine_cells(
    series: &Series,
    machines: &BTreeMap<ExecutionKey, String>,
    seeds: &BTreeSet<u64>,
) -> Option<Result<(MachineCells, usize), usize>> {
    let machine_of = |binary: &str, execution: u32| {
        let key = (
            series.program.clone(),
            series.variant.clone(),
            binary.to_string(),
            execution,
        );
        machines.get(&key)
    };
    let names: BTreeSet<&String> = series
        .seeds
        .iter()
        .flat_map(|b| b.executions.iter().map(move |e| (b, e)))
        .filter_map(|(b, e)| machine_of(&b.binary, e.execution))
        .collect();
    if names.len() < 2 || series.seeds.len() < 2 {
        return None;
    }
    let mut cells: MachineCells = Vec::with_capacity(series.seeds.len());
    for binary in &series.seeds {
        let mut row: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); names.len()]; seeds.len()];
        for e in &binary.executions {
            let (Some(seed), Some(name)) = (e.data_seed, machine_of(&binary.binary, e.execution))
            else {
                return Some(Err(names.len()));
            };
            let j = seeds.iter().position(|s| *s == seed)?;
            let m = names.iter().position(|n| *n == name)?;
            row[j][m].push(mean(&e.live));
        }
        cells.push(row);
    }
    let sizes = || cells.iter().flatten().flatten().map(Vec::len);
    let fewest = sizes().min().unwrap_or(0);
    if fewest == 0 {
        return Some(Err(names.len()));
    }
    let left_out = sizes().map(|n| n - fewest).sum();
    for on in cells.iter_mut().flatten().flatten() {
        on.truncate(fewest);
    }
    Some(Ok((cells, left_out)))
}
