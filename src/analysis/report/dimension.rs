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
use crate::analysis::numfmt::sig;
use crate::stats::planning::{expected_top_variance, top_repetitions_for_precision};

/// Executions per binary below which `report` cannot test layout sensitivity (its F-test
/// compares the binaries against executions of one binary): `dimension` never advises fewer.
pub const MIN_EXECUTIONS_FOR_SENSITIVITY: u64 = 2;

/// Kalibera & Jones (§11) never advise fewer top-level repetitions than this.
pub const MIN_TOP_REPETITIONS: usize = 5;

/// More top-level repetitions than this count as unreachable (∞), as in KJ Table 6.
pub const MAX_TOP_REPETITIONS: usize = 1000;

/// Floor for a cost that the measurements put at zero or below (1 µs): eq. 3 needs positive
/// costs, and "almost free" is what such a level is.
pub const MIN_COST_SECONDS: f64 = 1e-6;

/// The target precisions dimensioned when none is asked for (0.5 %, 1 %, 2 %, 5 %): the
/// default of `layoutrand dimension --target` and of the experiment's dimensioning stage.
pub const DEFAULT_TARGETS: [f64; 4] = [0.005, 0.01, 0.02, 0.05];

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
pub const DIMENSION_SCHEMA: u32 = crate::analysis::vocabulary::OUTPUT_SCHEMA;

/// The dimensioning of every data set of an experiment.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DimensionReport {
    /// [`DIMENSION_SCHEMA`].
    pub schema: u32,
    /// The layoutrand version that wrote the output.
    pub tool_version: &'static str,
    /// Confidence level of the intervals the targets refer to.
    pub confidence: f64,
    /// Target relative half-widths (shares, e.g. 0.01).
    pub targets: Vec<f64>,
    /// One entry per program, variant and metric.
    pub series: Vec<SeriesDimension>,
}

/// The dimensioning of one program (variant) and metric.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SeriesDimension {
    /// Program.
    pub program: String,
    /// The variant (`build --variant`), `None` in an experiment without variants.
    pub variant: Option<String>,
    /// Metric.
    pub metric: String,
    /// Unit of the metric.
    pub unit: String,
    /// Mean of the initial experiment.
    pub mean: f64,
    /// Levels, lowest first.
    pub levels: Vec<LevelDimension>,
    /// One row per target precision.
    pub rows: Vec<TargetRow>,
    /// When the executions ran with several data seeds (`run --data-seeds`): per target
    /// precision, the cheapest binaries × data seeds × executions design
    /// ([`crate::stats::crossed_plan`]); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crossed: Vec<CrossedRow>,
    /// Caveats in words.
    pub notes: Vec<String>,
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
pub const CROSSED_REPLICATES: usize = 2;

/// One level's estimates, cost and optimal count.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// Where the cost comes from.
    pub cost_source: String,
    /// Optimal repetitions for the real experiment (eq. 3); `None` for the top level.
    pub optimal: Option<u64>,
    /// Why eq. 3 gave no plain count, when it did not.
    pub advice: Option<String>,
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
/// §9.4: c₁ the mean iteration, c₂ the time to the first live iteration). When the
/// iteration level is absent (one live iteration per execution) the execution is the
/// lowest level and costs its whole process time.
fn measured_costs(s: &Series, iteration_level: bool) -> (f64, String, f64, String) {
    let executions: Vec<_> = s.seeds.iter().flat_map(|b| b.executions.iter()).collect();
    let n = executions.len().max(1) as f64;
    let mean_wall = executions
        .iter()
        .map(|e| e.wall_ns as f64 * 1e-9)
        .sum::<f64>()
        / n;
    let (iteration, source) = match seconds_per(&s.unit) {
        Some(f) => {
            let live: Vec<f64> = executions
                .iter()
                .flat_map(|e| e.live.iter().copied())
                .collect();
            (
                live.iter().sum::<f64>() / live.len().max(1) as f64 * f,
                "measured: mean live iteration".to_string(),
            )
        }
        None => {
            let per_exec = executions
                .iter()
                .map(|e| (e.warmup.len() + e.live.len()).max(1) as f64)
                .sum::<f64>()
                / n;
            (
                mean_wall / per_exec,
                "measured: process wall time / iterations".to_string(),
            )
        }
    };
    if !iteration_level {
        return (
            iteration,
            source,
            mean_wall,
            "measured: mean process wall time".to_string(),
        );
    }
    let live_per_exec = s.iterations_per_execution() as f64;
    (
        iteration,
        source,
        mean_wall - live_per_exec * iteration,
        "measured: process wall time minus its live iterations".to_string(),
    )
}

/// Dimensions one data set.
pub fn dimension_series(
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
    let mut notes = initial_notes(s);
    let costs = level_costs(s, &names, overrides, &what, &mut notes)?;
    let cost_values: Vec<f64> = costs.iter().map(|(c, _)| *c).collect();
    let optimal = optimal_repetitions(&estimates, &cost_values)
        .map_err(|e| anyhow::anyhow!("{what}: {e}"))?;

    let t2: Vec<f64> = estimates.iter().map(|e| e.t2.unwrap_or(0.0)).collect();
    let mut lower_counts = Vec::new();
    let mut levels = Vec::new();
    for (i, (e, name)) in estimates.iter().zip(&names).enumerate() {
        let (advice, chosen) = chosen_count(e, optimal.get(i), name);
        if let Some(c) = chosen {
            lower_counts.push(c as usize);
        }
        let t2_here = e.t2.unwrap_or(f64::NAN);
        levels.push(LevelDimension {
            name: name.to_string(),
            initial_repetitions: e.repetitions,
            t2: t2_here,
            relative_variation: (t2_here > 0.0).then(|| t2_here.sqrt() / mean.abs()),
            cost_seconds: costs[i].0,
            cost_source: costs[i].1.clone(),
            optimal: chosen.filter(|_| i + 1 < names.len()),
            advice,
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
        notes,
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

/// What the initial experiment's shape leaves undimensioned (one iteration per execution,
/// one execution per binary), as notes.
fn initial_notes(s: &Series) -> Vec<String> {
    let mut notes = Vec::new();
    if s.iterations_per_execution() == 1 {
        notes.push(
            "One live iteration per execution in the initial experiment: the iteration level cannot be dimensioned; keep one iteration per execution or run an initial experiment with several."
                .to_string(),
        );
    }
    if s.executions_per_binary() == 1 {
        notes.push(
            "One execution per binary in the initial experiment: the execution level cannot be dimensioned. Run at least 2 executions per binary: with one, `report` cannot tell the layout's effect from execution-to-execution noise (layout sensitivity needs executions of one binary to compare the binaries against)."
                .to_string(),
        );
    }
    notes
}

/// The cost in seconds of one repetition of each level of `names` and where it comes from:
/// given with `--costs`, else measured (floored at [`MIN_COST_SECONDS`], with a note); an
/// unknown binary cost is an error naming `what`.
fn level_costs(
    s: &Series,
    names: &[&str],
    overrides: CostOverrides,
    what: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<(f64, String)>> {
    let (c_iter, src_iter, c_exec, src_exec) = measured_costs(s, names.contains(&"iteration"));
    let mut cost = |name: &str| -> Result<(f64, String)> {
        let (given, measured) = match name {
            "iteration" => (overrides.iteration, Some((c_iter, src_iter.clone()))),
            "execution" => (overrides.execution, Some((c_exec, src_exec.clone()))),
            _ => (
                overrides.binary,
                s.binary_cost_seconds
                    .map(|c| (c, "manifest: mean link (or build) time".to_string())),
            ),
        };
        if let Some(c) = given {
            return Ok((c, "given with --costs".into()));
        }
        match measured {
            Some((c, src)) if c > MIN_COST_SECONDS => Ok((c, src)),
            Some((c, src)) => {
                notes.push(format!(
                    "The measured {name} cost is {} s, so it was set to {MIN_COST_SECONDS} s: this level adds (almost) no time of its own; give --costs {name}=TIME if that is wrong.",
                    sig(c, 3)
                ));
                Ok((MIN_COST_SECONDS, format!("{src}, floored")))
            }
            None => bail!(
                "{what}: the cost of one {name} is unknown (no link time: the manifest has none, or there is no manifest.json); give it with --costs {name}=TIME"
            ),
        }
    };
    names.iter().map(|n| cost(n)).collect()
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

/// The count advised for level `name` (estimated as `e`) from eq. 3's `optimal`, with advice
/// when it is not eq. 3's own count; never fewer than [`MIN_EXECUTIONS_FOR_SENSITIVITY`]
/// executions.
fn chosen_count(
    e: &LevelEstimate,
    optimal: Option<&OptimalCount>,
    name: &str,
) -> (Option<String>, Option<u64>) {
    let (advice, chosen) = match optimal {
        Some(OptimalCount::Count { repetitions }) => (None, Some(*repetitions)),
        Some(OptimalCount::NoVarianceAbove) => (
            Some(no_variance_above(name, e.repetitions)),
            Some(e.repetitions as u64),
        ),
        Some(other) => {
            let keep = other.repetitions().unwrap_or(e.repetitions as u64);
            let extra = if other.repetitions().is_none() {
                format!("; keeping the initial experiment's {}", e.repetitions)
            } else {
                String::new()
            };
            (
                other.explanation().map(|x| format!("{x}{extra}")),
                Some(keep),
            )
        }
        None => (None, None),
    };
    // Eq. 3 optimises the interval of the mean alone, and may say 1 execution; `report`
    // then cannot test layout sensitivity, so never advise fewer than 2.
    match chosen {
        Some(c) if name == "execution" && c < MIN_EXECUTIONS_FOR_SENSITIVITY => (
            Some(format!(
                "{}raised from {c} to {MIN_EXECUTIONS_FOR_SENSITIVITY}: with one execution per binary `report` cannot test layout sensitivity (it compares the binaries against executions of one binary); the interval of the mean alone would need {c}",
                advice.map(|a| format!("{a}; ")).unwrap_or_default()
            )),
            Some(MIN_EXECUTIONS_FOR_SENSITIVITY),
        ),
        other => (advice, other),
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
    /// beside a table that asked hundreds of binaries. The count kept is the initial one and
    /// the advice says the table counts binaries.
    #[test]
    fn no_variance_above_keeps_the_count_the_table_uses() {
        let e = LevelEstimate {
            repetitions: 3,
            s2: Some(1.0),
            t2: Some(1.0),
        };
        let (advice, chosen) = chosen_count(&e, Some(&OptimalCount::NoVarianceAbove), "execution");
        assert_eq!(chosen, Some(3));
        let advice = advice.unwrap();
        assert!(!advice.contains("drop repetition"), "{advice}");
        assert!(
            advice.contains("keeps the initial experiment's 3 executions"),
            "{advice}"
        );
        assert!(advice.contains("counts the binaries"), "{advice}");
    }
}
