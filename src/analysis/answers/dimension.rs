//! `layoutrand dimension`: Kalibera & Jones 2013 §9 from an initial experiment — the
//! variance per level, the cost of one repetition at each level, the optimal repetition
//! counts below the top level (eq. 3), and, Table 6/7 style, how many top-level
//! repetitions (binaries) each target precision needs and how long that experiment takes.

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::stats::multilevel::{level_variances, optimal_repetitions, LevelEstimate, OptimalCount};

use super::builder::seed_hierarchy;
use super::experiment::{Experiment, Series};
use super::series::program_label;
use crate::stats::planning::{expected_top_variance, top_repetitions_for_precision};

/// Executions per binary below which `report` cannot test layout sensitivity (its F-test
/// compares the binaries against executions of one binary): `dimension` never advises fewer.
pub(crate) const MIN_EXECUTIONS_FOR_SENSITIVITY: u64 = 2;

/// Kalibera & Jones (§11) never advise fewer top-level repetitions than this.
pub(crate) const MIN_TOP_REPETITIONS: usize = 5;

/// More top-level repetitions than this count as unreachable (∞), as in KJ Table 6.
pub(crate) const MAX_TOP_REPETITIONS: usize = 1000;

/// Floor for a cost that the measurements put at zero or below (1 µs): eq. 3 needs positive
/// costs, and "almost free" is what such a level is.
pub(crate) const MIN_COST_SECONDS: f64 = 1e-6;

/// The target precisions dimensioned when none is asked for (0.5 %, 1 %, 2 %, 5 %): the
/// default of `layoutrand dimension --target` and of the experiment's dimensioning stage.
pub(crate) const DEFAULT_TARGETS: [f64; 4] = [0.005, 0.01, 0.02, 0.05];

/// [`DEFAULT_TARGETS`] as `--target` is written.
pub const DEFAULT_TARGETS_TEXT: &str = "0.5%,1%,2%,5%";

/// Costs given on the command line (seconds), overriding the measured ones.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CostOverrides {
    /// Seconds per iteration.
    pub iteration: Option<f64>,
    /// Seconds an execution adds beyond its live iterations (start-up and warmup).
    pub execution: Option<f64>,
    /// Seconds to produce one more binary.
    pub binary: Option<f64>,
}

/// Parses `iteration=0.5s,execution=2s,binary=20ms` (units `s`, `ms`, `us`/`µs`, `ns`; a
/// bare number is seconds).
pub fn parse_costs(text: &str) -> Result<CostOverrides> {
    let mut costs = CostOverrides::default();
    for (name, seconds) in crate::units::parse_costs(text)? {
        match name.as_str() {
            "iteration" => costs.iteration = Some(seconds),
            "execution" => costs.execution = Some(seconds),
            "binary" => costs.binary = Some(seconds),
            other => bail!("--costs: unknown level `{other}` (use iteration, execution or binary)"),
        }
    }
    Ok(costs)
}

/// Parses target precisions such as `0.5%,1%,2%,5%` or `0.005,0.01` (the project's one
/// percent parser: `1%` and `0.01` are the same) into shares (0.005, …).
pub fn parse_targets(text: &str) -> Result<Vec<f64>> {
    let targets: Vec<f64> = text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| crate::units::parse_percent(p).with_context(|| format!("--target {p}")))
        .collect::<Result<_>>()?;
    if targets.is_empty() {
        bail!("--target: no target precision given");
    }
    Ok(targets)
}

/// Version of `dimension --format json`; changes when a reader could misread it.
pub(crate) const DIMENSION_SCHEMA: u32 = crate::analysis::vocabulary::OUTPUT_SCHEMA;

/// The dimensioning of every data set of an experiment.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DimensionReport {
    /// [`DIMENSION_SCHEMA`].
    pub(crate) schema: u32,
    /// The layoutrand version that wrote the output.
    pub(crate) tool_version: &'static str,
    /// Confidence level of the intervals the targets refer to.
    pub(crate) confidence: f64,
    /// Target relative half-widths (shares, e.g. 0.01).
    pub(crate) targets: Vec<f64>,
    /// One entry per program, variant and metric.
    pub series: Vec<SeriesDimension>,
}

/// The dimensioning of one program (variant) and metric.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "notes",
    crate::wire::Shape::List,
    "Caveats in words: the levels the initial experiment leaves undimensioned, then the costs floored."
))]
pub struct SeriesDimension {
    /// Program.
    pub(crate) program: String,
    /// The variant (`build --variant`), `None` in an experiment without variants.
    pub(crate) variant: Option<String>,
    /// Metric.
    pub(crate) metric: String,
    /// Unit of the metric.
    pub(crate) unit: String,
    /// Mean of the initial experiment.
    pub(crate) mean: f64,
    /// Levels, lowest first.
    pub levels: Vec<LevelDimension>,
    /// One row per target precision.
    pub rows: Vec<TargetRow>,
    /// When the executions ran with several data seeds (`run --data-seeds`): per target
    /// precision, the cheapest binaries × data seeds × executions design
    /// ([`crate::stats::crossed_plan`]); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crossed: Vec<CrossedRow>,
    /// The levels the initial experiment's shape leaves undimensioned.
    #[serde(skip)]
    pub(crate) shape: Vec<UndimensionedLevel>,
}

/// A level the initial experiment's shape leaves undimensioned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UndimensionedLevel {
    /// One live iteration per execution: the iteration level has no variance to estimate.
    Iteration,
    /// One execution per binary: the execution level has no variance to estimate, and
    /// `report` cannot test layout sensitivity.
    Execution,
}

/// The crossed design for one target precision.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CrossedRow {
    /// Target relative half-width (share).
    pub target: f64,
    /// The cheapest design meeting it; `None` when none with at most 1000 binaries and 1000
    /// data seeds does.
    pub plan: Option<crate::stats::crossed_plan::CrossedPlan>,
}

/// Executions per (binary, data seed) pair a crossed plan keeps: the fewest that separate
/// run noise from the interaction (docs/statistics.md, "Planning the crossed design").
pub(crate) const CROSSED_REPLICATES: usize = 2;

/// One level's estimates, cost and optimal count.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "cost_source",
    crate::wire::Shape::Sentence,
    "Where the cost comes from."
))]
#[schemars(transform = crate::wire::words(
    "advice",
    crate::wire::Shape::Optional,
    "Why eq. 3 gave no plain count, when it did not."
))]
pub struct LevelDimension {
    /// `iteration`, `execution` or `binary`.
    pub name: String,
    /// Repetitions in the initial experiment.
    pub initial_repetitions: usize,
    /// T² (eq. 2), unit².
    pub t2: f64,
    /// √T² / mean, when T² > 0.
    pub relative_variation: Option<f64>,
    /// Seconds one repetition at this level adds.
    pub cost_seconds: f64,
    /// Of the top level's `cost_seconds`, the seconds of the one execution each binary runs
    /// when the initial experiment ran one per binary (the execution level then has no row
    /// of its own, yet every planned binary still runs it); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_seconds: Option<f64>,
    /// Optimal repetitions for the real experiment (eq. 3); `None` for the top level.
    pub optimal: Option<u64>,
    /// Where [`LevelDimension::cost_seconds`] comes from (`cost_source` in words).
    #[serde(skip)]
    pub source: CostSource,
    /// The measured cost, when it was at most [`MIN_COST_SECONDS`] and floored to it.
    #[serde(skip)]
    pub floored_from: Option<f64>,
    /// Eq. 3's own answer for this level; `None` for the top level.
    #[serde(skip)]
    pub eq3: Option<OptimalCount>,
    /// The count [`LevelDimension::optimal`] was raised from to
    /// [`MIN_EXECUTIONS_FOR_SENSITIVITY`] (executions only).
    #[serde(skip)]
    pub raised_from: Option<u64>,
}

/// Where the cost of one repetition at a level comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostSource {
    /// Given with `--costs`.
    Given,
    /// The mean live iteration (a time metric).
    MeanLiveIteration,
    /// The process's wall time divided by its iterations (a metric that is not a time).
    WallPerIteration,
    /// The mean process wall time (the execution is the lowest level).
    MeanProcessWall,
    /// The process's wall time minus its live iterations.
    WallMinusLiveIterations,
    /// The manifest's mean link (or build) time.
    LinkTime,
}

/// Top-level repetitions for one target precision.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TargetRow {
    /// Target relative half-width (share).
    pub target: f64,
    /// Top-level repetitions needed (at least 5); `None` = ∞ (more than 1000).
    pub top_repetitions: Option<usize>,
    /// Expected duration of the real experiment in seconds.
    pub expected_seconds: Option<f64>,
}

use crate::units::seconds_per;

/// Dimensions every data set of `experiment`.
pub fn dimension(
    experiment: &Experiment,
    overrides: CostOverrides,
    targets: &[f64],
    confidence: f64,
) -> Result<DimensionReport> {
    let series = experiment
        .series
        .iter()
        .map(|s| dimension_series(s, overrides, targets, confidence))
        .collect::<Result<Vec<_>>>()?;
    Ok(DimensionReport {
        schema: DIMENSION_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        confidence,
        targets: targets.to_vec(),
        series,
    })
}

/// Measured costs of one iteration and of one execution beyond its live iterations (KJ
/// §9.4: c₁ the mean iteration, c₂ the time to the first live iteration), with their
/// sources. When the iteration level is absent (one live iteration per execution) the
/// execution is the lowest level and costs its whole process time.
fn measured_costs(s: &Series, iteration_level: bool) -> [(f64, CostSource); 2] {
    let executions: Vec<_> = s.seeds.iter().flat_map(|b| b.executions.iter()).collect();
    let n = executions.len().max(1) as f64;
    let mean_wall = executions
        .iter()
        .map(|e| e.wall_ns as f64 * 1e-9)
        .sum::<f64>()
        / n;
    let iteration = match seconds_per(&s.unit) {
        Some(f) => {
            let live: Vec<f64> = executions
                .iter()
                .flat_map(|e| e.live.iter().copied())
                .collect();
            (
                live.iter().sum::<f64>() / live.len().max(1) as f64 * f,
                CostSource::MeanLiveIteration,
            )
        }
        None => {
            let per_exec = executions
                .iter()
                .map(|e| (e.warmup.len() + e.live.len()).max(1) as f64)
                .sum::<f64>()
                / n;
            (mean_wall / per_exec, CostSource::WallPerIteration)
        }
    };
    if !iteration_level {
        return [iteration, (mean_wall, CostSource::MeanProcessWall)];
    }
    let live_per_exec = s.iterations_per_execution() as f64;
    [
        iteration,
        (
            mean_wall - live_per_exec * iteration.0,
            CostSource::WallMinusLiveIterations,
        ),
    ]
}

/// Dimensions one data set.
pub(crate) fn dimension_series(
    s: &Series,
    overrides: CostOverrides,
    targets: &[f64],
    confidence: f64,
) -> Result<SeriesDimension> {
    let what = format!(
        "{} {}",
        program_label(&s.program, s.variant.as_deref()),
        s.metric
    );
    let Some((h, names)) = seed_hierarchy(s) else {
        bail!("{what}: no randomised binary has usable data");
    };
    if h.repetitions().last().copied().unwrap_or(0) < 2 {
        bail!("{what}: dimensioning needs at least 2 randomised binaries (better 20–30)");
    }
    let mean = h.mean();
    let estimates = level_variances(&h);
    let costs = level_costs(s, &names, overrides, &what)?;
    let cost_values: Vec<f64> = costs.iter().map(|c| c.seconds).collect();
    let optimal = optimal_repetitions(&estimates, &cost_values)
        .map_err(|e| anyhow::anyhow!("{what}: {e}"))?;

    let t2: Vec<f64> = estimates.iter().map(|e| e.t2.unwrap_or(0.0)).collect();
    let mut lower_counts = Vec::new();
    let mut levels = Vec::new();
    for (i, (e, name)) in estimates.iter().zip(&names).enumerate() {
        let eq3 = optimal.get(i).copied();
        let (chosen, raised_from) = chosen_count(e, eq3.as_ref(), name);
        if let Some(c) = chosen {
            lower_counts.push(c as usize);
        }
        let t2_here = e.t2.unwrap_or(f64::NAN);
        levels.push(LevelDimension {
            name: name.to_string(),
            initial_repetitions: e.repetitions,
            t2: t2_here,
            relative_variation: (t2_here > 0.0).then(|| t2_here.sqrt() / mean.abs()),
            cost_seconds: costs[i].seconds,
            execution_seconds: costs[i].execution,
            optimal: chosen.filter(|_| i + 1 < names.len()),
            source: costs[i].source,
            floored_from: costs[i].floored_from,
            eq3,
            raised_from,
        });
    }
    let rows = target_rows(&t2, &lower_counts, &cost_values, mean, targets, confidence);
    let crossed = crossed_rows(s, &lower_counts, &cost_values, targets, confidence);
    Ok(SeriesDimension {
        program: s.program.clone(),
        variant: s.variant.clone(),
        metric: s.metric.clone(),
        unit: s.unit.clone(),
        mean,
        levels,
        rows,
        crossed,
        shape: undimensioned_levels(s),
    })
}

/// The crossed plans of `s` (empty without data seeds): the split's components, a binary
/// at the top level's cost and an execution at the cost of one unit of the level below it
/// with its own lower levels at `lower_counts`.
fn crossed_rows(
    s: &Series,
    lower_counts: &[usize],
    costs: &[f64],
    targets: &[f64],
    confidence: f64,
) -> Vec<CrossedRow> {
    let Some((components, mean)) = super::data_split::split_components(s) else {
        return Vec::new();
    };
    let Some((&binary, below)) = costs.split_last() else {
        return Vec::new();
    };
    // Seconds per execution: c_{n−1} + r_{n−2}(c_{n−2} + …), as in `target_rows`.
    let mut execution = 0.0;
    for (i, c) in below.iter().enumerate() {
        execution = c + if i == 0 {
            0.0
        } else {
            lower_counts[i - 1] as f64 * execution
        };
    }
    let costs = crate::stats::crossed_plan::CrossedCosts { binary, execution };
    targets
        .iter()
        .map(|&target| CrossedRow {
            target,
            plan: crate::stats::crossed_plan::crossed_plan(
                components,
                mean,
                costs,
                target,
                confidence,
                CROSSED_REPLICATES,
                MAX_TOP_REPETITIONS,
            ),
        })
        .collect()
}

/// The top-level count each precision of `targets` needs, and its expected time, with the
/// lower levels at `lower_counts` (their T² estimates `t2` and costs `costs`).
fn target_rows(
    t2: &[f64],
    lower_counts: &[usize],
    costs: &[f64],
    mean: f64,
    targets: &[f64],
    confidence: f64,
) -> Vec<TargetRow> {
    let top_variance = expected_top_variance(t2, lower_counts);
    // Seconds per top-level unit: c_n + r_{n−1}(c_{n−1} + r_{n−2}(…)).
    let mut unit_seconds = 0.0;
    for (i, c) in costs.iter().enumerate() {
        unit_seconds = c + if i == 0 {
            0.0
        } else {
            lower_counts[i - 1] as f64 * unit_seconds
        };
    }
    targets
        .iter()
        .map(|&target| {
            let r = top_repetitions_for_precision(
                top_variance,
                mean,
                target,
                confidence,
                MIN_TOP_REPETITIONS,
                MAX_TOP_REPETITIONS,
            );
            TargetRow {
                target,
                top_repetitions: r,
                expected_seconds: r.map(|r| r as f64 * unit_seconds),
            }
        })
        .collect()
}

/// The levels the initial experiment's shape leaves undimensioned (one iteration per
/// execution, one execution per binary).
fn undimensioned_levels(s: &Series) -> Vec<UndimensionedLevel> {
    let mut shape = Vec::new();
    if s.iterations_per_execution() == 1 {
        shape.push(UndimensionedLevel::Iteration);
    }
    if s.executions_per_binary() == 1 {
        shape.push(UndimensionedLevel::Execution);
    }
    shape
}

/// The cost of one repetition at a level.
struct LevelCost {
    seconds: f64,
    source: CostSource,
    /// The measured cost, when it was floored to [`MIN_COST_SECONDS`].
    floored_from: Option<f64>,
    /// Of `seconds`, the one execution of a binary whose execution level has no row.
    execution: Option<f64>,
}

/// The cost in seconds of one repetition of each level of `names` and where it comes from:
/// given with `--costs`, else measured (floored at [`MIN_COST_SECONDS`]); an unknown binary
/// cost is an error naming `what`. With one execution per binary (no execution level in
/// `names`), a binary costs its link and that execution: priced by its link alone, 7
/// binaries of xz under cachegrind were planned at 111 ms, each execution taking 0.65 s.
fn level_costs(
    s: &Series,
    names: &[&str],
    overrides: CostOverrides,
    what: &str,
) -> Result<Vec<LevelCost>> {
    let [iteration, execution] = measured_costs(s, names.contains(&"iteration"));
    let cost = |name: &str| -> Result<LevelCost> {
        let (given, measured) = match name {
            "iteration" => (overrides.iteration, Some(iteration)),
            "execution" => (overrides.execution, Some(execution)),
            _ => (
                overrides.binary,
                s.binary_cost_seconds.map(|c| (c, CostSource::LinkTime)),
            ),
        };
        let (seconds, source, floored_from) = match (given, measured) {
            (Some(c), _) => (c, CostSource::Given, None),
            (None, Some((c, source))) if c > MIN_COST_SECONDS => (c, source, None),
            (None, Some((c, source))) => (MIN_COST_SECONDS, source, Some(c)),
            (None, None) => bail!(
                "{what}: the cost of one {name} is unknown (no link time: the manifest has none, or there is no manifest.json); give it with --costs {name}=TIME"
            ),
        };
        Ok(LevelCost {
            seconds,
            source,
            floored_from,
            execution: None,
        })
    };
    let mut costs = names.iter().map(|n| cost(n)).collect::<Result<Vec<_>>>()?;
    if !names.contains(&"execution") {
        let execution = cost("execution")?.seconds;
        if let Some(top) = costs.last_mut() {
            top.seconds += execution;
            top.execution = Some(execution);
        }
    }
    Ok(costs)
}

/// The count advised for level `name` (estimated as `e`) from eq. 3's `optimal`, and the
/// count it was raised from when that was fewer than [`MIN_EXECUTIONS_FOR_SENSITIVITY`]
/// executions. When the level above adds no variance of its own, eq. 3 alone would say
/// "repeat here, drop repetition above", but the table of top-level counts keeps the initial
/// experiment's count here and counts the top level (issue 36: "drop repetition above" was
/// printed beside a table asking 625 binaries); when eq. 3 cannot estimate, the initial count
/// is kept too.
fn chosen_count(
    e: &LevelEstimate,
    optimal: Option<&OptimalCount>,
    name: &str,
) -> (Option<u64>, Option<u64>) {
    let chosen = optimal.map(|o| o.repetitions().unwrap_or(e.repetitions as u64));
    // Eq. 3 optimises the interval of the mean alone, and may say 1 execution; `report`
    // then cannot test layout sensitivity, so never advise fewer than 2.
    match chosen {
        Some(c) if name == "execution" && c < MIN_EXECUTIONS_FOR_SENSITIVITY => {
            (Some(MIN_EXECUTIONS_FOR_SENSITIVITY), Some(c))
        }
        other => (other, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_targets_read_as_written() {
        let parsed = parse_targets(DEFAULT_TARGETS_TEXT).unwrap();
        assert_eq!(parsed.len(), DEFAULT_TARGETS.len());
        for (p, d) in parsed.iter().zip(DEFAULT_TARGETS) {
            assert!(
                (p - d).abs() <= 1e-15 * d,
                "{parsed:?} vs {DEFAULT_TARGETS:?}"
            );
        }
    }

    /// Issue 36: with no binary-level variance, the advice said "drop repetition above"
    /// beside a table that asked hundreds of binaries. The count kept is the initial one, as
    /// when eq. 3 cannot estimate.
    #[test]
    fn no_variance_above_keeps_the_count_the_table_uses() {
        let e = LevelEstimate {
            repetitions: 3,
            s2: Some(1.0),
            t2: Some(1.0),
        };
        let chosen = chosen_count(&e, Some(&OptimalCount::NoVarianceAbove), "execution");
        assert_eq!(chosen, (Some(3), None));
        let chosen = chosen_count(&e, Some(&OptimalCount::Unknown), "iteration");
        assert_eq!(chosen, (Some(3), None));
    }

    /// Eq. 3's one execution per binary is raised to two, and the model keeps the one.
    #[test]
    fn one_execution_is_raised_to_two_and_remembered() {
        let e = LevelEstimate {
            repetitions: 5,
            s2: Some(1.0),
            t2: Some(1.0),
        };
        let one = OptimalCount::Count { repetitions: 1 };
        assert_eq!(
            chosen_count(&e, Some(&one), "execution"),
            (Some(2), Some(1))
        );
        assert_eq!(
            chosen_count(&e, Some(&OptimalCount::NoVarianceHere), "execution"),
            (Some(2), Some(1))
        );
        assert_eq!(chosen_count(&e, Some(&one), "iteration"), (Some(1), None));
    }
}
