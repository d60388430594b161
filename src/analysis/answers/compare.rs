//! `layoutrand compare BASE_DIR NEW_DIR`: is the new version faster, over random code
//! layouts? Per program and metric: the one pair analysis that `report` uses for variants
//! ([`crate::analysis::pair`]): the ratio of the means paired by seed when the experiments
//! share at least two seeds, Fieller's interval (Kalibera & Jones 2013 eq. 5) otherwise, plus
//! the difference of the matched pairs (Georges et al. 2008 §5.2) and Welch's test on the
//! binaries' means. Across several programs: Touati et al.'s weighted overall gain and the
//! share of programs sped up.

use anyhow::{bail, Result};
use serde::Serialize;

use crate::analysis::compare::{
    compare_over_data_layouts, CompareOptions, Comparison as EngineComparison,
};
use crate::analysis::effect::EffectVerdict;
use crate::analysis::single::Dataset;
use crate::stats::suite::{overall_gain, time_weights, wilson_ci, ProgramTimes};

use super::builder::seed_hierarchy;
use super::data_split::data_cell_means;
use super::experiment::{Experiment, Series};
use super::model::Interval;
use super::series::program_label;
use crate::analysis::pair::DataCells;

/// The comparison of two experiments.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "unmatched",
    crate::wire::Shape::List,
    "Programs or metrics present in only one of the two, in words."
))]
#[schemars(transform = crate::wire::words(
    "warnings",
    crate::wire::Shape::List,
    "What reading either experiment found (binaries that never ran, a trimmed interrupted run, …), prefixed with `base:` or `new:`: `report` shows these for one experiment, and a comparison resting on the same data must not hide them; then whether two cachegrind runs simulated the same caches."
))]
pub struct ExperimentComparison {
    /// The base experiment's store holds fewer executions than its run planned (absent when
    /// complete): the comparison is provisional and the CI gate does not judge it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_incomplete: Option<super::experiment::Incomplete>,
    /// The same of the new experiment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_incomplete: Option<super::experiment::Incomplete>,
    /// The output's schema, [`crate::analysis::vocabulary::OUTPUT_SCHEMA`].
    pub schema: u32,
    /// The layoutrand version that wrote the output.
    pub tool_version: &'static str,
    /// The base experiment's directory.
    pub base: String,
    /// The new experiment's directory.
    pub new: String,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// One entry per program and metric present in both.
    pub programs: Vec<ProgramComparison>,
    /// The series present in only one of the two (the wire's `unmatched` says them).
    #[serde(skip)]
    pub only_in: Vec<OnlyIn>,
    /// Across programs, per metric measured on at least two programs.
    pub overall: Vec<Overall>,
    /// Each suite measured on both sides (per program and variant): the new side's ratio of
    /// geometric means over the cases to the base's, as `report` gives it between variants.
    pub suites: Vec<super::model::SuiteComparison>,
    /// How two cachegrind runs' simulated caches or valgrind versions differ (among the
    /// wire's `warnings`, after the reading's).
    #[serde(skip)]
    pub model_differences: Vec<crate::files::cache_model::SetupDifference>,
    /// The two runs never overlapped in time, on a metric the host's state disturbs (among
    /// the wire's `warnings`, last).
    #[serde(skip)]
    pub ran_apart: Option<RanApart>,
    /// What reading each experiment found (the wire's `warnings` say it first).
    #[serde(skip)]
    pub read_warnings: Vec<(
        ExperimentSide,
        crate::analysis::answers::experiment::ExperimentWarning,
    )>,
}

/// Two experiments of a time metric whose runs never overlapped: each side's span, from the
/// first `run` invocation's start to the last one's end (seconds since the Unix epoch). Their
/// intervals cover layouts and executions, not how the host changed between the two runs,
/// which a comparison of two such runs cannot tell from the code's effect (variants of one
/// experiment interleave their executions for that).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RanApart {
    /// The base's span.
    pub base: (f64, f64),
    /// The new side's span.
    pub new: (f64, f64),
}

impl RanApart {
    /// Seconds from the end of the earlier run to the start of the later one.
    pub fn gap_seconds(&self) -> f64 {
        (self.new.0 - self.base.1).max(self.base.0 - self.new.1)
    }
}

/// Whether `base` and `new` ran apart ([`RanApart`]): `None` when either side's metric is
/// deterministic (cachegrind's counts, which the host cannot disturb), when a side recorded
/// no finished `run` invocation (its span is unknown), or when the two sides' spans overlap
/// (their invocations alternated or ran together).
pub(crate) fn ran_apart(base: &Experiment, new: &Experiment) -> Option<RanApart> {
    use super::builder::deterministic_metric;
    if deterministic_metric(base) || deterministic_metric(new) {
        return None;
    }
    let span = |e: &Experiment| -> Option<(f64, f64)> {
        let known = e
            .finishes
            .iter()
            .map(|f| (f.started_unix, f.ended_unix))
            .filter(|(start, end)| start.is_finite() && end.is_finite() && start <= end);
        known.fold(None, |whole, (start, end)| match whole {
            None => Some((start, end)),
            Some((s, e)) => Some((f64::min(s, start), f64::max(e, end))),
        })
    };
    let (base, new) = (span(base)?, span(new)?);
    let overlap = base.0 <= new.1 && new.0 <= base.1;
    (!overlap).then_some(RanApart { base, new })
}

/// A series (program, variant, metric) that only one of the two experiments holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlyIn {
    /// Program.
    pub(crate) program: String,
    /// Variant, when the experiment holds variants.
    pub(crate) variant: Option<String>,
    /// Metric.
    pub(crate) metric: String,
    /// The experiment that holds it.
    pub(crate) side: ExperimentSide,
}

/// Which of the two compared experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExperimentSide {
    /// The base (the first directory).
    Base,
    /// The new one (the second).
    New,
}

/// The comparison of one program and metric: the engine's [`EngineComparison`] of the two
/// experiments' randomised binaries, with the program's names and the matched-pair interval
/// as a share of the base mean.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The answer in words: the verdict alone (the matched difference and Welch's test are checks of it, which the renderings show apart)."
))]
pub struct ProgramComparison {
    /// Program.
    pub(crate) program: String,
    /// The variant (`build --variant`) compared, when both experiments hold variants: each
    /// variant of one is compared with the variant of the same name in the other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Metric.
    pub(crate) metric: String,
    /// Unit.
    pub(crate) unit: String,
    /// Whether the metric is a time (lower means faster).
    pub(crate) unit_is_time: bool,
    /// A suite's case: the suite's cases compared together, this one at the Bonferroni
    /// confidence of them all (its intervals and tests; absent for a metric of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite_cases: Option<usize>,
    /// The engine's comparison (flattened: `base`, `new`, `effect`, `welch`, `paired`,
    /// `mann_whitney`, `bootstrap`, `verdict`, `summary`, `warnings`, …).
    #[serde(flatten)]
    pub comparison: EngineComparison,
    /// Matched pairs by seed: interval of mean(new − base) as a share of the base mean.
    pub paired_relative_ci: Option<Interval>,
    /// How much each side's binaries spread over layouts, and whether the new side's spread
    /// less (the proof of a pin); null below five binaries a side.
    pub spread: Option<super::spread::SpreadComparison>,
    /// The base's build placed this program's hot functions by a pin file (`build --pin`).
    pub base_pinned: bool,
    /// The new side's build did.
    pub new_pinned: bool,
}

/// Across the programs measured with one metric (Touati et al.).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The answer in words."
))]
pub struct Overall {
    /// The metric.
    pub(crate) metric: String,
    /// Programs compared.
    pub programs: usize,
    /// Programs whose ratio interval lies wholly below 1 (sped up); for a rate (MB/s,
    /// higher is faster), wholly above 1.
    pub sped_up: usize,
    /// Wilson interval of the proportion of programs sped up.
    pub sped_up_ci: Option<Interval>,
    /// Touati's overall gain `G = 1 − Σ W_j t'_j / Σ W_j t_j` with time-proportional
    /// weights, from the means over random layouts; positive means saved. None for a rate,
    /// whose values are not times.
    pub gain: Option<f64>,
    /// Whether the metric is a time or a rate: a program sped up is then "faster", else
    /// "lower".
    #[serde(skip)]
    pub(crate) is_time: bool,
    /// The confidence of the Wilson interval, for its words.
    #[serde(skip)]
    pub(crate) confidence: f64,
}

/// Loads and compares the experiments in `base` and `new` (what `layoutrand compare
/// BASE_DIR NEW_DIR` does), keeping only `metrics` when some are named (`--metric`; an
/// error when one side did not record one of them).
pub fn compare_directories(
    base: &std::path::Path,
    new: &std::path::Path,
    metrics: &[String],
    options: &CompareOptions,
) -> Result<ExperimentComparison> {
    let mut b = super::experiment::load_with_context(base)?;
    let mut n = super::experiment::load_with_context(new)?;
    b.retain_metrics(metrics)?;
    n.retain_metrics(metrics)?;
    compare(&b, &n, options)
}

/// The suites both experiments measured (per program and variant, in the base's order):
/// the ratio of the new side's geometric mean over the cases to the base's, with how many
/// of `programs`' case comparisons moved each way. Each side is labelled `base` or `new`.
fn suites_compared(
    base: &Experiment,
    new: &Experiment,
    programs: &[ProgramComparison],
    options: &CompareOptions,
) -> Vec<super::model::SuiteComparison> {
    let mut seen: Vec<(&str, Option<&str>)> = Vec::new();
    let mut out = Vec::new();
    for p in programs.iter().filter(|p| p.suite_cases.is_some()) {
        let key = (p.program.as_str(), p.variant.as_deref());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let base_cases = super::suite::case_series(base, key.0, key.1);
        let new_cases = super::suite::case_series(new, key.0, key.1);
        let verdicts = programs
            .iter()
            .filter(|q| (q.program.as_str(), q.variant.as_deref()) == key)
            .filter(|q| q.suite_cases.is_some())
            .map(|q| q.comparison.pair.effect.verdict);
        let gate = options.fail_if_slower.filter(|_| p.comparison.pair.gated);
        out.extend(super::suite::suite_ratio(
            key,
            (("base", &base_cases[..]), ("new", &new_cases[..])),
            verdicts,
            &options.thresholds,
            gate,
        ));
    }
    out
}

/// Compares two loaded experiments. `fail_if_slower` is a share (0.02 for 2 %).
pub fn compare(
    base: &Experiment,
    new: &Experiment,
    options: &CompareOptions,
) -> Result<ExperimentComparison> {
    let confidence = options.thresholds.confidence;
    let (programs, only_in) = matched_series(base, new, options)?;
    if programs.is_empty() {
        bail!("{}", nothing_in_common(base, new));
    }
    let overall = overall_by_metric(&programs, confidence);
    let suites = suites_compared(base, new, &programs, options);
    Ok(ExperimentComparison {
        base_incomplete: base.incomplete,
        new_incomplete: new.incomplete,
        schema: crate::analysis::vocabulary::OUTPUT_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        base: base.dir.display().to_string(),
        new: new.dir.display().to_string(),
        confidence,
        programs,
        only_in,
        overall,
        suites,
        read_warnings: base
            .warnings
            .iter()
            .map(|w| (ExperimentSide::Base, w.clone()))
            .chain(
                new.warnings
                    .iter()
                    .map(|w| (ExperimentSide::New, w.clone())),
            )
            .collect(),
        model_differences: cachegrind_warnings(base, new),
        ran_apart: ran_apart(base, new),
    })
}

/// Why two experiments have no series in common, and what to do: variants on one side only
/// (compare pairs each variant with the variant of the same name), variants of other names,
/// or no program and metric in common.
fn nothing_in_common(base: &Experiment, new: &Experiment) -> String {
    let variants = |e: &Experiment| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for name in e.series.iter().filter_map(|s| s.variant.clone()) {
            if !v.contains(&name) {
                v.push(name);
            }
        }
        v
    };
    let (b, n) = (variants(base), variants(new));
    let (bd, nd) = (base.dir.display(), new.dir.display());
    let pairs_by_name = "compare pairs each variant (build --variant) with the variant of the \
                         same name in the other experiment";
    match (b.is_empty(), n.is_empty()) {
        (false, true) | (true, false) => {
            let (with, names, without) = if n.is_empty() {
                (&bd, b.join(", "), &nd)
            } else {
                (&nd, n.join(", "), &bd)
            };
            format!(
                "{with} holds variants ({names}) and {without} has none, and {pairs_by_name}: \
                 nothing matches. To compare versions, build them as variants of one \
                 experiment and run `layoutrand report DIR` (each variant against the first \
                 built; --fail-if-slower gates it), or build the other experiment with the \
                 same variant names"
            )
        }
        (false, false) if !b.iter().any(|v| n.contains(v)) => format!(
            "{bd} holds variants ({}) and {nd} variants ({}), and {pairs_by_name}: no name is \
             shared; rebuild one with the other's variant names",
            b.join(", "),
            n.join(", ")
        ),
        _ => format!(
            "{bd} and {nd} have no program and metric in common (programs {} against {}); \
             compare needs the same program measured by the same metric in both",
            names_of(base, |s| &s.program),
            names_of(new, |s| &s.program)
        ),
    }
}

/// The distinct values of one field of an experiment's series, joined: `demo, gzip`.
fn names_of(e: &Experiment, field: impl Fn(&Series) -> &String) -> String {
    let mut names: Vec<&String> = Vec::new();
    for s in &e.series {
        if !names.contains(&field(s)) {
            names.push(field(s));
        }
    }
    names
        .iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether two series are the same program, metric and variant (so comparable).
fn same_series(a: &Series, b: &Series) -> bool {
    a.program == b.program && a.metric == b.metric && a.variant == b.variant
}

/// The comparisons of the series both experiments have (in the base's order), and each
/// series only one of them has.
fn matched_series(
    base: &Experiment,
    new: &Experiment,
    options: &CompareOptions,
) -> Result<(Vec<ProgramComparison>, Vec<OnlyIn>)> {
    let mut programs = Vec::new();
    let mut unmatched = Vec::new();
    let only_in = |s: &Series, side| OnlyIn {
        program: s.program.clone(),
        variant: s.variant.clone(),
        metric: s.metric.clone(),
        side,
    };
    for b in &base.series {
        match new.series.iter().find(|n| same_series(b, n)) {
            Some(n) => programs.push(compare_matched(base, new, b, n, options)?),
            None => unmatched.push(only_in(b, ExperimentSide::Base)),
        }
    }
    for n in &new.series {
        if !base.series.iter().any(|b| same_series(b, n)) {
            unmatched.push(only_in(n, ExperimentSide::New));
        }
    }
    Ok((programs, unmatched))
}

/// Compares base series `b` with the new experiment's same series `n`: refused when their
/// units differ (the numbers would not be comparable).
fn compare_matched(
    base: &Experiment,
    new: &Experiment,
    b: &Series,
    n: &Series,
    options: &CompareOptions,
) -> Result<ProgramComparison> {
    if n.unit != b.unit {
        bail!(
            "{} {}: measured in `{}` in {} but in `{}` in {}",
            b.program,
            b.metric,
            b.unit,
            base.dir.display(),
            n.unit,
            new.dir.display()
        );
    }
    // A suite's cases are compared together: each at the Bonferroni confidence of all.
    let cases = base.cases_of(&b.program).len();
    let suite_cases = (base.is_case(&b.metric) && cases > 1).then_some(cases);
    let thresholds = match suite_cases {
        Some(cases) => crate::analysis::vocabulary::Thresholds::new(
            crate::stats::bonferroni::bonferroni_confidence(options.thresholds.confidence, cases)?,
            options.thresholds.negligible,
        )?,
        None => options.thresholds,
    };
    // The gate judges the base run's primary metric, or the metrics named.
    let gate = CompareOptions {
        fail_if_slower: options.fail_if_slower.filter(|_| base.gates(&b.metric)),
        thresholds,
        ..*options
    };
    let pinned = |e: &Experiment| {
        (e.manifest.as_ref())
            .and_then(|m| m.pin.as_ref())
            .is_some_and(|pin| pin.program(&b.program).is_some())
    };
    let apart = ran_apart(base, new);
    let control = identical_control(base, new, b, n);
    let mut compared = compare_series(b, n, &gate, [pinned(base), pinned(new)], (apart, control))?;
    compared.suite_cases = suite_cases;
    Ok(compared)
}

/// The overall comparison of each metric that two or more programs share (in the
/// metrics' sorted order).
fn overall_by_metric(programs: &[ProgramComparison], confidence: f64) -> Vec<Overall> {
    let mut metrics: Vec<&str> = programs.iter().map(|p| p.metric.as_str()).collect();
    metrics.sort_unstable();
    metrics.dedup();
    metrics
        .into_iter()
        .filter_map(|m| {
            let of_metric: Vec<&ProgramComparison> =
                programs.iter().filter(|p| p.metric == m).collect();
            (of_metric.len() >= 2).then(|| overall(m, &of_metric, confidence))
        })
        .collect()
}

/// When both stores are cachegrind runs: whether they simulated the same caches with the
/// same valgrind (see [`crate::files::cache_model::setup_differences`]); counts from two
/// models are not comparable however the layouts compare.
fn cachegrind_warnings(
    base: &Experiment,
    new: &Experiment,
) -> Vec<crate::files::cache_model::SetupDifference> {
    let (b, n) = (&base.header, &new.header);
    if !crate::files::metric::is_cachegrind_spec(&b.metric)
        || !crate::files::metric::is_cachegrind_spec(&n.metric)
    {
        return Vec::new();
    }
    crate::files::cache_model::setup_differences(
        (b.cache_model.as_ref(), b.valgrind_version.as_deref()),
        (n.cache_model.as_ref(), n.valgrind_version.as_deref()),
    )
}

/// The randomised binaries of `series` as an engine data set whose top-level units are
/// named by seed (so two experiments with the same seeds are matched pair by pair).
fn dataset(series: &Series, side: &str) -> Result<Dataset> {
    let what = format!(
        "{} {}",
        program_label(&series.program, series.variant.as_deref()),
        series.metric
    );
    let (h, names) = seed_hierarchy(series)
        .ok_or_else(|| anyhow::anyhow!("{what}: no usable randomised binary in {side}"))?;
    let ids = series
        .seeds
        .iter()
        .enumerate()
        .map(|(i, b)| b.seed.map_or(format!("#{i}"), |s| format!("seed-{s}")))
        .collect();
    let hierarchy = h.with_top_ids(ids)?;
    Ok(Dataset {
        source: format!("{side} ({what})"),
        value: series.metric.clone(),
        levels: names.iter().rev().map(|n| n.to_string()).collect(),
        hierarchy,
    })
}

/// Compares one program and metric through the engine; `[base_pinned, new_pinned]` say which
/// side's build placed the program by a pin file; `apart`, that the two ran apart (a time's
/// verdict is then withheld when the host changed between them: [`host_changed`]);
/// `control`, a binary both ran byte-identical (a verdict is then withheld when it moved:
/// [`control_moved`]).
fn compare_series(
    base: &Series,
    new: &Series,
    options: &CompareOptions,
    [base_pinned, new_pinned]: [bool; 2],
    (apart, control): (Option<RanApart>, Option<Control>),
) -> Result<ProgramComparison> {
    let options = CompareOptions {
        is_time: base.is_time(),
        is_rate: base.is_rate(),
        ..*options
    };
    let b = dataset(base, "base")?;
    let n = dataset(new, "new")?;
    // With the same data seeds on both sides, the interval is over code and data layouts.
    let (base_cells, new_cells) = (data_cell_means(base), data_cell_means(new));
    let cells = base_cells
        .as_ref()
        .map(DataCells::of)
        .zip(new_cells.as_ref().map(DataCells::of));
    let mut c = compare_over_data_layouts(&b, &n, cells, &options)?;
    // Each side's execution noise, once: the spread and a change of host are judged by it.
    let noises = super::spread::ExecutionNoise::of(&b.hierarchy)
        .zip(super::spread::ExecutionNoise::of(&n.hierarchy));
    if let (Some(apart), Some(noises)) = (apart.filter(|_| base.is_time()), noises) {
        c.host_changed = host_changed(noises, apart, &mut c);
    }
    c.control_moved = control.and_then(|control| control_moved(control, &mut c));
    let paired_relative_ci = c.paired_difference.as_ref().map(|p| Interval {
        lower: p.lower / c.base.mean,
        upper: p.upper / c.base.mean,
    });
    let spread = super::spread::spread_comparison(
        &b.hierarchy.top_means(),
        &n.hierarchy.top_means(),
        c.new.ci.map(|m| Interval {
            lower: m.lower,
            upper: m.upper,
        }),
        noises,
        c.confidence,
    );
    Ok(ProgramComparison {
        program: base.program.clone(),
        variant: base.variant.clone(),
        metric: base.metric.clone(),
        unit: base.unit.clone(),
        unit_is_time: base.is_time(),
        suite_cases: None,
        comparison: c,
        paired_relative_ci,
        spread,
        base_pinned,
        new_pinned,
    })
}

/// Whether the host changed between two runs apart: the sides' executions vary differently
/// (the F test of [`super::spread::noise_contrast`] at the comparison's level). If so, a
/// determinate verdict of `c` that the change could have made is withheld
/// ([`crate::analysis::pair::PairAnalysis::withhold`]): its interval covers each run's layouts
/// and executions, not the change between the runs.
///
/// How far the change could move the mean is not measured by either run; its scale is the
/// noise it added or removed ([`reach_of_change`]): interference that comes at random
/// (another task, stolen time) delays an execution by amounts whose spread is of the order
/// of their mean, so a host that adds X % of noise can add about X % to the mean. A faster
/// or slower verdict stands when its whole interval lies farther from 1 than `reach` (lame
/// at -O1 is 2.5 times as fast however the host changed); a negligible or equivalent one
/// when `reach` is within the relevance threshold.
fn host_changed(
    (base_noise, new_noise): (super::spread::ExecutionNoise, super::spread::ExecutionNoise),
    apart: RanApart,
    c: &mut EngineComparison,
) -> Option<crate::analysis::compare::HostChanged> {
    let contrast = super::spread::noise_contrast(&base_noise, &new_noise, c.confidence)?;
    let reach = reach_of_change(&base_noise, &new_noise, c.confidence)?;
    let withheld = if within_reach(&c.pair.effect, reach) {
        c.pair.withhold(c.is_time)
    } else {
        None
    };
    Some(crate::analysis::compare::HostChanged {
        gap_seconds: apart.gap_seconds(),
        base_cv: contrast.base_cv,
        new_cv: contrast.new_cv,
        reach,
        p: contrast.p,
        withheld,
    })
}

/// Whether something between the runs that could move the mean by up to `reach` (a share)
/// could make `effect`'s verdict: a faster or slower one whose interval comes within `reach`
/// of 1, a negligible or equivalent one when `reach` exceeds the relevance threshold.
fn within_reach(effect: &crate::analysis::effect::Effect, reach: f64) -> bool {
    match (effect.verdict, effect.ci) {
        (EffectVerdict::Lower | EffectVerdict::Higher, Some(ci)) => {
            let nearest = (ci.lower - 1.0).abs().min((ci.upper - 1.0).abs());
            nearest <= reach
        }
        (EffectVerdict::Negligible | EffectVerdict::Equivalent, _) => {
            reach > effect.thresholds.negligible
        }
        _ => false,
    }
}

/// A binary both experiments ran byte-identical, with each side's executions.
struct Control {
    label: &'static str,
    base: super::experiment::BinaryData,
    new: super::experiment::BinaryData,
}

/// The binary both experiments ran byte-identical for this series' program and variant:
/// the default layout, else the build's own, whose program and libraries have the same
/// SHA-256 on both sides and which both measured.
fn identical_control(
    base: &Experiment,
    new: &Experiment,
    b: &Series,
    n: &Series,
) -> Option<Control> {
    use super::experiment::{AS_BUILT_LABEL, BASELINE_LABEL};
    let set = |e: &Experiment, s: &Series, label: &str| {
        let builds = e.manifest.as_ref()?.variant_builds();
        let (_, build) = builds
            .into_iter()
            .find(|(v, _)| *v == s.variant.as_deref())?;
        let set = build.binary_sets().find(|set| set.label() == label)?;
        let mut files: Vec<(String, String)> = set
            .all()
            .map(|binary| (binary.name.clone(), binary.sha256.clone()))
            .collect();
        files.sort();
        (set.find(&s.program).is_some()).then_some(files)
    };
    [BASELINE_LABEL, AS_BUILT_LABEL]
        .into_iter()
        .find_map(|label| {
            let data = |s: &Series| {
                if label == BASELINE_LABEL {
                    s.baseline.clone()
                } else {
                    s.as_built.clone()
                }
            };
            let same = set(base, b, label)? == set(new, n, label)?;
            same.then_some(Control {
                label,
                base: data(b)?,
                new: data(n)?,
            })
        })
}

/// Whether the byte-identical `control` moved between the two runs: the ratio of its means
/// (new over base) with Welch's interval on its executions' log means at the comparison's
/// level (a point for values without noise). If its interval excludes 1, a determinate
/// verdict of `c` the runs alone could make ([`within_reach`] of the interval's far end) is
/// withheld; `None` when it did not move or cannot be measured (an execution of each side
/// at least, positive means).
fn control_moved(
    control: Control,
    c: &mut EngineComparison,
) -> Option<crate::analysis::compare::ControlMoved> {
    // An execution without live values has no mean (NaN): left out.
    let logs = |d: &super::experiment::BinaryData| -> Option<Vec<f64>> {
        d.execution_means()
            .into_iter()
            .filter(|m| !m.is_nan())
            .map(|m| (m > 0.0).then(|| m.ln()))
            .collect()
    };
    let (b, n) = (logs(&control.base)?, logs(&control.new)?);
    if b.is_empty() || n.is_empty() {
        return None;
    }
    let exact = |v: &[f64]| v.iter().all(|x| *x == v[0]);
    let mean = crate::stats::sample::mean;
    let (lower, upper) = if exact(&b) && exact(&n) {
        let d = mean(&n) - mean(&b);
        (d, d)
    } else {
        crate::stats::welch::welch(&n, &b)
            .ok()?
            .interval(c.confidence)
            .ok()?
    };
    let ci = crate::analysis::effect::Interval {
        lower: lower.exp(),
        upper: upper.exp(),
    };
    if ci.lower <= 1.0 && ci.upper >= 1.0 {
        return None;
    }
    let reach = (ci.lower - 1.0).abs().max((ci.upper - 1.0).abs());
    let withheld = if within_reach(&c.pair.effect, reach) {
        c.pair.withhold(c.is_time)
    } else {
        None
    };
    Some(crate::analysis::compare::ControlMoved {
        binary: control.label,
        ratio: (mean(&n) - mean(&b)).exp(),
        ci,
        reach,
        withheld,
    })
}

/// The noise a change of the host added or removed, as a share of the mean, at its upper
/// confidence bound: `√(cv_hi² − cv_lo²)` from the noisier side's upper and the quieter
/// side's lower chi-square bound of its within-binary variance at `confidence`. The point
/// estimate `√|new_cv² − base_cv²|` let 6 of 60 simulated A/A pairs under random
/// interference read "slower" (tests/report/compare.rs); the bound keeps the withholding's
/// own errors near the intervals' level.
fn reach_of_change(
    base: &super::spread::ExecutionNoise,
    new: &super::spread::ExecutionNoise,
    confidence: f64,
) -> Option<f64> {
    let bounds = |n: &super::spread::ExecutionNoise| {
        crate::stats::sample::sd_interval_of_variance(n.within, n.df, confidence)
            .ok()
            .map(|(low, high)| (low / n.mean.abs(), high / n.mean.abs()))
    };
    let (b, n) = (bounds(base)?, bounds(new)?);
    let (quieter, noisier) = if new.within >= base.within {
        (b, n)
    } else {
        (n, b)
    };
    let reach = (noisier.1.powi(2) - quieter.0.powi(2)).max(0.0).sqrt();
    reach.is_finite().then_some(reach)
}

/// Across the programs of one metric: how many sped up (with Wilson's interval, Touati
/// et al. §4) and the overall gain G (Touati et al. §3, time-proportional weights).
fn overall(metric: &str, programs: &[&ProgramComparison], confidence: f64) -> Overall {
    let n = programs.len();
    let is_rate = crate::units::is_rate_unit(&programs[0].unit);
    let sped_up = programs
        .iter()
        .filter(|p| {
            (p.comparison.pair.effect.ci).is_some_and(|c| {
                if is_rate {
                    c.lower > 1.0
                } else {
                    c.upper < 1.0
                }
            })
        })
        .filter(|p| (p.comparison.host_changed).is_none_or(|h| h.withheld.is_none()))
        .filter(|p| (p.comparison.control_moved).is_none_or(|m| m.withheld.is_none()))
        .count();
    let sped_up_ci = wilson_ci(sped_up as u64, n as u64, confidence, false)
        .ok()
        .map(|c| Interval {
            lower: c.lower,
            upper: c.upper,
        });
    let weights = time_weights(
        &programs
            .iter()
            .map(|p| p.comparison.base.mean)
            .collect::<Vec<_>>(),
    );
    let times: Vec<ProgramTimes> = programs
        .iter()
        .zip(weights)
        .map(|(p, weight)| ProgramTimes {
            weight,
            old: p.comparison.base.mean,
            new: p.comparison.new.mean,
        })
        .collect();
    let gain = overall_gain(&times).ok().filter(|_| !is_rate);
    Overall {
        metric: metric.to_string(),
        programs: n,
        sped_up,
        sped_up_ci,
        gain,
        is_time: programs[0].unit_is_time || is_rate,
        confidence,
    }
}
