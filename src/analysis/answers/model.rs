//! The report as data: what every exporter renders and what `--format json` writes.
//!
//! The JSON schema is this module's serde form; docs/report.md documents it field by field.
//! Change it only additively, and bump [`REPORT_SCHEMA`] when a reader could misread it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::experiment::FailureCounts;
use crate::analysis::vocabulary::Thresholds;
use crate::stats::degrees_of_freedom::DegreesOfFreedom;
use crate::units::Scale;
use crate::wire::{words, Shape};

/// Version of the JSON report format.
pub(crate) const REPORT_SCHEMA: u32 = crate::analysis::vocabulary::OUTPUT_SCHEMA;

/// The whole report of one experiment directory.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = words(
    "across_metrics",
    Shape::List,
    "Per program (and variant) with more than one metric, its layout verdicts side by side, \
     the metric the run measured first."
))]
#[schemars(transform = words(
    "warnings",
    Shape::List,
    "Problems found while reading and balancing the data."
))]
pub struct Report {
    /// The store holds fewer executions than the run planned (interrupted, or still
    /// running): every answer is provisional and the CI gate does not judge it. Absent when
    /// every planned execution is stored; the first key of the JSON when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) incomplete: Option<super::experiment::Incomplete>,
    /// [`REPORT_SCHEMA`].
    pub(crate) schema: u32,
    /// `layoutrand` version that wrote the report.
    pub(crate) tool_version: String,
    /// The experiment directory.
    pub(crate) directory: String,
    /// Confidence level of every interval in the report, e.g. 0.95.
    pub(crate) confidence: f64,
    /// Relevance threshold (share): effects whose whole interval lies within ± this are
    /// "detectable but negligible".
    pub(crate) negligible: f64,
    /// How the experiment was set up.
    pub(crate) setup: Setup,
    /// One analysis per program and metric.
    pub series: Vec<SeriesReport>,
    /// How the executions ended, by program and variant (each variant counted apart);
    /// written as a list of objects keyed by `program` and `variant`.
    #[serde(serialize_with = "crate::analysis::vocabulary::by_program_and_variant")]
    #[schemars(with = "Vec<crate::analysis::vocabulary::ByProgram<'static, FailureCounts>>")]
    pub failures: BTreeMap<(String, Option<String>), FailureCounts>,
    /// Problems found while reading and balancing the data (the wire's `warnings` say
    /// them, with the machines' and the series `--sequential` could not replay).
    #[serde(skip)]
    pub(crate) warning_grounds: Vec<ReportWarning>,
    /// The machine as a factor, per program and metric (Slurm runs only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) machines: Vec<super::machines::MachineSeries>,
    /// Each non-base variant against the base, per program and metric (experiments built
    /// with `build --variant`; empty otherwise).
    pub(crate) comparisons: Vec<crate::analysis::variants::PairComparison>,
    /// Tukey's HSD over every pair, per program and metric with more than two variants.
    pub(crate) multiple: Vec<MultipleComparison>,
    /// A suite's cases taken together (`run --metric gbench|criterion|hyperfine|lines`),
    /// per program and variant; absent for a run that measured no suite.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) suites: Vec<Suite>,
    /// Each variant's suite against the base's (the ratio of geometric means over cases).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) suite_comparisons: Vec<SuiteComparison>,
    /// The answer `layoutrand explain` last stored in the directory (`explain/`), which the
    /// HTML report shows as a section of its own; not part of the JSON report (explain's
    /// own JSON has it).
    #[serde(skip)]
    pub(crate) explanation: Option<crate::analysis::explain::Explanation>,
    /// With variants: the answers `layoutrand explain` last stored for them
    /// (`NAME/explain/`), shown as the explanation is; not part of the JSON report.
    #[serde(skip)]
    pub(crate) variant_explanations: Option<crate::analysis::explain_variants::VariantExplanations>,
    /// `report --sequential`: the series and comparisons that could not be replayed, and
    /// why (said among the wire's `warnings`).
    #[serde(skip)]
    pub(crate) unreplayed: Vec<crate::analysis::sequential::Unreplayed>,
}

/// A problem found while reading, balancing or comparing the data of a report, with what
/// its sentence needs (`crate::report::words::experiment` words it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ReportWarning {
    /// Reading or balancing the experiment.
    Experiment(super::experiment::ExperimentWarning),
    /// A variant with no usable randomised binaries, left out of its program's comparison.
    VariantLeftOut {
        /// Program.
        program: String,
        /// Metric.
        metric: String,
        /// The variant (`None`: unnamed).
        variant: Option<String>,
    },
    /// A warning of the variant comparison of one program and metric.
    Variants {
        /// Program.
        program: String,
        /// Metric.
        metric: String,
        /// What the comparison found.
        warning: crate::analysis::variants::VariantWarning,
    },
    /// The stored `explain` answer could not be read, so its section is left out.
    ExplainLeftOut {
        /// Why, as the reading error says it.
        error: String,
    },
}

/// Tukey's HSD family of one program and metric.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct MultipleComparison {
    /// Program.
    pub(crate) program: String,
    /// Metric.
    pub(crate) metric: String,
    /// The family.
    #[serde(flatten)]
    pub(crate) family: crate::analysis::variants::Multiple,
}

/// How the experiment was set up (from the manifest and the store header).
///
/// The fields that only the manifest records are `Option`s: `None` (JSON `null`) when the
/// directory has no `manifest.json` and the report was built from the store alone.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct Setup {
    /// The benchmark command with `{bin}` unexpanded.
    pub(crate) command: Vec<String>,
    /// The metric specification given to `run`.
    pub(crate) metric: String,
    /// What was randomised: `link`, `module`, `global` or `none` (padding only); `None`
    /// without a manifest.
    pub(crate) granularity: Option<String>,
    /// The same as the reports' set-up line names it: `module granularity`, or for `none`
    /// `padding only, order kept` (the seeds are the build's layout jittered by padding, not
    /// shuffles of its code); `None` without a manifest.
    pub(crate) estimand: Option<String>,
    /// The linker of the relinks; `None` without a manifest.
    pub(crate) linker: Option<String>,
    /// What each program's seeds could move (the manifest's `programs[].achieved`), as
    /// `NAME: words`, in the manifest's order; empty for `--rebuild` and older manifests;
    /// `None` without a manifest.
    #[serde(rename = "achieved")]
    pub(crate) achieved_by_program: Option<Vec<ProgramAchieved>>,
    /// `relink` or `rebuild`; `None` without a manifest.
    pub(crate) mode: Option<String>,
    /// `build --pad MAX`: the most filler bytes a seed put before each function (0: none);
    /// `None` without a manifest.
    pub(crate) pad: Option<u64>,
    /// The programs whose hot functions every seed placed by a pin file (`build --pin`):
    /// their layouts are random but for those functions; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) pinned: Vec<PinnedProgram>,
    /// Seeds in the manifest (built or failed); `None` without a manifest (the store names
    /// only the binaries that were run, not the seeds whose build failed).
    pub(crate) seeds_built: Option<usize>,
    /// Planned executions per binary; per binary and data seed when `data_seeds` is above 1.
    pub(crate) executions_planned: u32,
    /// Data seeds per binary (`run --data-seeds`); absent when 1.
    #[serde(skip_serializing_if = "is_one")]
    pub(crate) data_seeds: u32,
    /// Whether each data seed also set malloc's mmap threshold (`run
    /// --vary-mmap-threshold`); absent when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) vary_mmap_threshold: bool,
    /// Planned iterations per execution (including warmup).
    pub(crate) iterations_planned: u32,
    /// Warmup iterations discarded per execution.
    pub(crate) warmup_discarded: u32,
    /// Whether ASLR was disabled.
    pub(crate) aslr_disabled: bool,
    /// CPU model, when known.
    pub(crate) cpu_model: Option<String>,
    /// How the number of binaries was decided when it grew on-line (`layoutrand
    /// experiment`); `None` when it was fixed in advance.
    pub(crate) stopping: Option<crate::files::stopping::GrowthLog>,
    /// Online CPUs of the host.
    pub(crate) cores: Option<u32>,
    /// The host's state when the run started (load, governors, boost, SMT).
    pub(crate) conditions: Option<crate::files::results::HostConditions>,
    /// The 1-minute load average at the end of the last `run` invocation.
    pub(crate) load_after: Option<f64>,
    /// Most executions that ran at once (`run --jobs`).
    pub(crate) jobs: u32,
    /// How the runner waited for a quiet host (`run --wait-for-quiet`); absent when it was
    /// not asked to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) quiet_waits: Option<super::host_conditions::QuietWaits>,
    /// Warnings about the host's state, with the figures (time metrics only): the host's
    /// states that disturb time measurements.
    #[serde(rename = "host_warnings")]
    pub(crate) host_conditions: Vec<super::host_conditions::HostCondition>,
}

/// A program whose seeds a pin file placed (`build --pin`, docs/pin.md).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct PinnedProgram {
    /// The program.
    pub(crate) program: String,
    /// Its functions pinned.
    pub(crate) functions: usize,
    /// The period their offsets are taken modulo (bytes).
    pub(crate) period: u64,
}

/// What one program's seeds could move, as the manifest words it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProgramAchieved {
    /// The program (or library) name.
    pub(crate) program: String,
    /// Whether it is a shared library (its code moves inside the programs' processes).
    pub(crate) library: bool,
    /// What its seeds could move (`programs[].achieved`).
    pub(crate) achieved: crate::files::manifest::Achieved,
    /// Why it was left out of the seeds (`programs[].excluded`), when it was: then what its
    /// seeds could move is moot.
    pub(crate) left_out: Option<crate::files::manifest::Exclusion>,
}

pub(crate) use crate::analysis::effect::Interval;

/// The analysis of one program and metric.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = words("summary", Shape::Sentence, "One-paragraph answer in words."))]
#[schemars(transform = words(
    "bootstrap_note",
    Shape::Optional,
    "Why the bootstrap interval asked for is missing (e.g. too few binaries to bound it), or \
     why it is not advisable (fewer than 5 binaries)."
))]
pub struct SeriesReport {
    /// Program name.
    pub program: String,
    /// The variant (`build --variant NAME`); null without variants.
    pub variant: Option<String>,
    /// Metric name.
    pub(crate) metric: String,
    /// Unit of every value of this series (means, intervals, variances' square roots).
    pub(crate) unit: String,
    /// Whether lower values are better and mean "faster" (time metrics).
    pub(crate) is_time: bool,
    /// Levels of the randomised-binaries hierarchy, lowest (iteration) first, as in
    /// Kalibera & Jones §9; a level with one repetition is not estimable and is left out.
    pub levels: Vec<Level>,
    /// Mean of all live values of the randomised binaries (Ȳ).
    pub mean: f64,
    /// Confidence interval of the mean (KJ eq. 4); `None` with fewer than 2 binaries. With
    /// several data seeds, the crossed design's interval over code and data layouts
    /// ([`SeriesReport::crossed_mean`]).
    pub ci: Option<Interval>,
    /// Half-width of the interval divided by the mean.
    pub relative_half_width: Option<f64>,
    /// Why the interval cannot inform, when it cannot: withheld (`ci` null) because it
    /// reaches zero or below for a positive quantity, or kept but wider than ± 50 % of the
    /// mean ([`crate::analysis::single::MAX_INFORMATIVE_RELATIVE_HALF_WIDTH`]).
    #[serde(rename = "interval_note")]
    pub(crate) interval_grounds: Option<crate::analysis::single::IntervalNote>,
    /// Studentized bootstrap interval of the mean (`report --bootstrap N`), resampling the
    /// binaries (Kalibera & Jones §10 suggest a bootstrap when the binaries' means are far
    /// from normal; [`crate::stats::bootstrap`] for the method and its coverage).
    pub(crate) bootstrap: Option<crate::stats::bootstrap::BootstrapCi>,
    /// What the wire's `bootstrap_note` says, as figures.
    #[serde(skip)]
    pub(crate) bootstrap_grounds: Option<crate::analysis::single::BootstrapShortfall>,
    /// When the executions ran with several data seeds (`run --data-seeds`): the mean is
    /// over random code and data layouts, and `ci`, `relative_half_width` and
    /// `interval_note` are the crossed design's (binaries × data seeds, Satterthwaite's df),
    /// not eq. 4's over binaries, which leaves out the data seeds every binary shares;
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crossed_mean: Option<super::crossed_mean::CrossedMean>,
    /// The default-layout binary on its own.
    pub baseline: Option<BaselineSummary>,
    /// Every binary's live values summarised (the baseline first, then the seeds in seed
    /// order), as hyperfine exports each command: for plots and dashboards of one's own.
    pub(crate) binaries: Vec<BinaryStatistics>,
    /// Is the program layout-sensitive? (variance between binaries)
    pub sensitivity: Sensitivity,
    /// Does the default layout's mean differ from the mean over random layouts?
    pub shift: Shift,
    /// Is the default layout unusual among random layouts? (prediction interval)
    pub default_layout: DefaultLayout,
    /// The binary the user's build made, answered as the default layout is; absent when the
    /// build kept none or it was not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) as_built: Option<AsBuilt>,
    /// Where the variation between executions comes from — code, data, their interaction,
    /// run noise — when the executions ran with several data seeds (`run --data-seeds`);
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variance_split: Option<super::data_split::DataSplit>,
    /// Is the program data-layout-sensitive? The crossed design's test of the data seeds
    /// with the metric's variation from one data layout to another, when the executions ran
    /// with several data seeds; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_sensitivity: Option<super::data_sensitivity::DataSensitivity>,
    /// Checks of the assumptions behind the numbers above.
    pub diagnostics: Diagnostics,
    /// The confidence and relevance threshold of the report, for the summary's words.
    #[serde(skip)]
    pub(crate) thresholds: Thresholds,
    /// Whether the host was loaded or unsteady while this time metric was measured (the
    /// setup's host conditions), which the summary's verdicts are qualified by.
    #[serde(skip)]
    pub(crate) on_unsteady_host: bool,
    /// The data the HTML report plots (not in the JSON: the JSON carries the measurements'
    /// summaries, and `export` the measurements); none when the series was not analysed
    /// from an experiment's measurements.
    #[serde(skip)]
    pub(crate) plots: Option<super::plot_data::SeriesPlots>,
    /// `report --sequential`: the binaries replayed in seed order with a confidence
    /// sequence (docs/report.md); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sequential: Option<crate::analysis::sequential::Sequential>,
}

impl SeriesReport {
    /// The unit every number of this series' section is printed and plotted in, chosen once
    /// for its mean so that its title, its text and its plots agree (`1.02 ms` is never
    /// plotted in µs because some binaries ran faster than a millisecond).
    pub(crate) fn scale(&self) -> Scale {
        Scale::for_values(&self.unit, self.mean)
    }
}

/// One level of the hierarchy (KJ eq. 1–2).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Level {
    /// `iteration`, `execution` or `binary`.
    pub name: String,
    /// Repetitions r_i at this level.
    pub repetitions: usize,
    /// S_i², the biased variance estimator at this level (eq. 1), in unit².
    pub s2: f64,
    /// T_i², the unbiased variance component of this level (eq. 2), in unit²; may be negative.
    pub t2: f64,
    /// t_i = √T_i² / Ȳ, the level's relative variation; `None` when T_i² ≤ 0.
    pub relative_variation: Option<f64>,
}

/// The baseline binary's own mean, from its executions.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BaselineSummary {
    /// Executions of the baseline binary.
    pub executions: usize,
    /// Live iterations per execution.
    pub iterations: usize,
    /// Mean of its live values.
    pub mean: f64,
    /// Interval over its executions (eq. 4 with executions as the top level); `None` with
    /// one execution, or when it would reach zero or below for a positive quantity.
    pub ci: Option<Interval>,
    /// Why `ci` is `None` although there are several executions.
    #[serde(rename = "ci_note")]
    pub ci_grounds: Option<crate::analysis::single::IntervalNote>,
}

/// The binary the user's build made (`as-built`), a fixed layout beside the baseline: its
/// own mean, its shift from the random layouts' mean and its place among them (the same
/// two questions as [`Shift`] and [`DefaultLayout`] for the baseline). Never part of the
/// random layouts' sample.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = words("text", Shape::Sentence, "The answer in words."))]
pub(crate) struct AsBuilt {
    /// Its mean with its interval over executions.
    pub(crate) binary: BaselineSummary,
    /// Its mean over the random layouts' mean, with Fieller's interval (`baseline_rank`:
    /// the share of random layouts whose mean is below its).
    pub(crate) shift: Shift,
    /// Its place among the random layouts (percentile, prediction interval, verdict).
    pub(crate) placement: DefaultLayout,
    /// In what the baseline differs from it, as `build` found (functions, order,
    /// addresses, sections, bytes); absent without a manifest. On the wire: its sentence.
    pub(crate) versus_baseline: Option<crate::files::manifest::VersusBaseline>,
    /// Whether it has the baseline's layout (the manifest's fingerprints of the two are
    /// equal: the same functions in the same order at the same addresses): then it is the
    /// default layout measured a second time, not a layout of its own. Absent without a
    /// manifest.
    pub(crate) same_layout_as_baseline: Option<bool>,
    /// Its mean over the baseline's (as built / baseline) with its interval, classified at
    /// the report's thresholds: paired by round on a rounds schedule, else of the two
    /// independent means (Kalibera & Jones eq. 5). With the baseline's layout, the default
    /// layout's two measurements, which should agree. Absent without a baseline or with one
    /// execution of either.
    pub(crate) against_baseline: Option<crate::analysis::effect::Effect>,
    /// What [`AsBuilt::against_baseline`] was paired on (a round), if anything (for its
    /// words).
    #[serde(skip)]
    pub(crate) against_baseline_paired_on: Option<PairedOn>,
    /// Whether the metric is a time, and the thresholds of the report, for its words.
    #[serde(skip)]
    pub(crate) is_time: bool,
    /// See `is_time`.
    #[serde(skip)]
    pub(crate) thresholds: Thresholds,
}

/// Plain answer of a test: the one vocabulary of [`crate::analysis::vocabulary`].
pub use crate::analysis::vocabulary::Verdict;

/// Binary-level variance: random-effects one-way ANOVA with binaries as groups and
/// execution means as observations.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = words("text", Shape::Sentence, "The answer in words, from the figures above."))]
pub struct Sensitivity {
    /// The answer.
    pub verdict: Verdict,
    /// F statistic (mean square between binaries over mean square within).
    pub(crate) f: Option<f64>,
    /// Degrees of freedom between and within binaries.
    #[serde(flatten)]
    pub(crate) df: Option<DegreesOfFreedom<f64>>,
    /// p-value of the F-test.
    pub p_value: Option<f64>,
    /// Intraclass correlation: share of the variance of an execution mean due to the binary.
    pub icc: Option<f64>,
    /// Variance components (between binaries, between executions of one binary) of an
    /// execution mean, unit².
    pub(crate) variance_components: Option<(f64, f64)>,
    /// Relative variation (standard deviation / mean) of the binaries' means.
    pub cv_across_binaries: Option<f64>,
    /// Its confidence interval (chi-square interval of a standard deviation): the effect
    /// size of the layout, compared with the relevance threshold.
    pub cv_across_binaries_ci: Option<Interval>,
    /// Relative variation of execution means within one binary (pooled over binaries).
    pub cv_across_executions: Option<f64>,
    /// The layout's own relative variation: on a rounds schedule the binaries' variance
    /// component of the blocked F test's ANOVA (within rounds, on the log scale), so that it
    /// is above 0 whenever that test's F is above 1; otherwise `√max(0, T²_binary) / mean`
    /// (Kalibera & Jones eq. 2 at the binary level: the binaries' means' variance less the
    /// execution noise they carry). The "varies by X % from one layout to another" of the
    /// summary.
    pub layout_variation: Option<f64>,
    /// For a case of a suite: its q-value among the suite's cases (Benjamini–Hochberg); the
    /// verdict "sensitive" stands only when it is within the false discovery rate. Absent
    /// for a metric of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite_fdr: Option<SuiteFdr>,
    /// The smallest layout variation (standard deviation of the layout effect relative to
    /// the mean) that the F-test finds with 80 % power with these counts
    /// ([`crate::stats::anova::detectable_variance_ratio`]). When no sensitivity is detected
    /// and this exceeds `--negligible`, the verdict is `undetermined` ("cannot tell").
    pub detectable_variation: Option<f64>,
    /// Which test gave `f`, `df` and `p_value` (null when none ran).
    pub(crate) test: Option<SensitivityTest>,
    /// `blocked_f`: the within-round permutations behind `p_value`.
    pub(crate) permutations: Option<usize>,
    /// `blocked_f`: the table whose F decided (the smallest p of the family; `f` and `df`
    /// are its).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) deciding_table: Option<BlockedTable>,
    /// `blocked_f`: the cells that table replaced by its robust fit, each a residual degree
    /// of freedom fewer (`df_denominator` = (binaries − 1)(rounds − 1) − this).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cells_replaced: Option<usize>,
    /// Executions set aside as outlying (a load burst, a one-off): the variation figures rest
    /// on the others; the blocked F test replaces them by the robust fit (and does so again
    /// in every permutation); the one-way F test of a free schedule keeps them.
    pub(crate) set_aside: Vec<SetAsideExecution>,
    /// The cut-off executions were set aside at, in robust standard deviations of the
    /// robust fit's residuals: calibrated to the table's shape so that clean stores lose an
    /// execution in at most 1 % of cases (null when no screen ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) set_aside_cut: Option<f64>,
    /// The environment paddings of the executions set aside, when the run drew one per
    /// execution (absent otherwise, and when none was set aside).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) set_aside_padding: Option<SetAsidePadding>,
    /// The binary a "layout-sensitive" verdict rested on: without it the test no longer
    /// finds the binaries differ, and it stands apart from the others. The verdict is then
    /// `undetermined`, unless on a rounds schedule it is off alike in every round
    /// (`steady`): a layout far off, and the verdict `detected`.
    pub(crate) rests_on: Option<RestsOn>,
    /// Layouts far off the others (the binaries whose kept mean stands more than
    /// `APART_CUT` robust standard deviations and more than `--negligible` from the median of
    /// the others'), farthest first, named when the binaries' spread lies within the
    /// threshold: it is then no bound on what a single layout misstates, so the verdict is
    /// not "negligible" (empty: none, a spread beyond the threshold, and in reports written
    /// before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) far_off: Vec<Apart>,
    /// What the verdict rests on, for its words (not on the wire: `text` is).
    #[serde(skip)]
    pub grounds: SensitivityGrounds,
    /// The confidence and relevance threshold the verdict was reached at, for its words.
    #[serde(skip)]
    pub(crate) thresholds: Thresholds,
}

impl Sensitivity {
    /// How many executions the outlier screen set aside.
    pub fn executions_set_aside(&self) -> usize {
        self.set_aside.len()
    }
}

/// What a [`Sensitivity`] verdict rests on: why no test could run, or the test's figures
/// and outcome. The sentence is built from it in `crate::report::words::sensitivity`.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SensitivityGrounds {
    /// Nothing analysed: no words.
    #[default]
    Unanalysed,
    /// Cannot tell: fewer than 2 randomised binaries with data.
    TooFewBinaries {
        /// Randomised binaries with data.
        with_data: usize,
    },
    /// Cannot tell: one execution per binary with one live iteration, so no within-binary
    /// variation (a layout far off the others is named in [`Sensitivity::far_off`]).
    SingleObservation,
    /// Negligible without a test: one execution per binary with one live iteration, yet the
    /// binaries' values vary by at most `ci.upper` (their relative standard deviation's
    /// interval, process noise included), within the relevance threshold, and none lies far
    /// off the others: whatever the layout's share of that, it is at most that.
    SingleObservationBounded {
        /// The interval of the binaries' relative standard deviation.
        ci: Interval,
        /// Randomised binaries.
        binaries: usize,
    },
    /// Cannot tell: the ANOVA or the screening refused the data.
    NotComputable(crate::stats::error::StatsError),
    /// Cannot tell: the spread exceeds the range of `f64`.
    Overflow,
    /// Not detected: every observation (execution mean, or iteration with one execution
    /// per binary) of every binary gave the same value.
    Constant {
        /// Whether the observations are execution means (else iterations).
        by_execution: bool,
    },
    /// Not detected: the run varied the data layout, and under each data seed every binary
    /// measured the same (the crossed design's code and interaction mean squares are 0):
    /// no code-layout variation at all, whatever the data layout does.
    NoCodeVariation {
        /// Data seeds every binary ran under.
        data_seeds: usize,
    },
    /// A test ran.
    Tested(TestedGrounds),
}

/// The figures of a layout test that its sentence quotes beyond [`Sensitivity`]'s own.
#[derive(Debug, Clone, PartialEq)]
pub struct TestedGrounds {
    /// How the verdict came out of the test.
    pub outcome: SensitivityOutcome,
    /// Whether the observations are execution means (else iterations of one execution).
    pub(crate) by_execution: bool,
    /// Randomised binaries tested.
    pub(crate) binaries: usize,
    /// Observations per binary.
    pub(crate) per_binary: usize,
    /// The one-way ANOVA of every observation: F (infinite when the executions of one
    /// binary gave identical values while binaries differ), degrees of freedom and p.
    pub anova_f: f64,
    pub(crate) anova_df: (usize, usize),
    pub(crate) anova_p: f64,
    /// The statistic and degrees of freedom of the test the verdict rests on (`f` and `df`
    /// of [`Sensitivity`] as computed: F may be infinite).
    pub(crate) test_f: f64,
    pub(crate) test_df: (usize, usize),
    /// Data seeds the binaries ran under (1 when the data layout was not a factor): with
    /// several, the rank test's blocks are one round and one data seed, and the power is
    /// judged against the noise within a data seed.
    pub(crate) data_seeds: usize,
}

/// The suite of one program (one variant of it, with variants).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Suite {
    /// Program.
    pub program: String,
    /// The variant; null without variants.
    pub variant: Option<String>,
    /// The cases, the most layout-sensitive first (by the layout's own variation; cases
    /// without one last, in name order).
    pub cases: Vec<SuiteCase>,
    /// The false discovery rate the "layout-sensitive" verdicts are held at.
    pub false_discovery_rate: f64,
    /// Cases found layout-sensitive within that rate.
    pub sensitive: usize,
    /// The unit every case shares (`ns` for times), null when they differ (the geometric
    /// mean then has no unit).
    pub unit: Option<String>,
    /// The geometric mean over cases of their means, with its interval over the randomised
    /// binaries; null with fewer than two binaries that ran every case.
    pub geometric_mean: Option<crate::stats::suite::SuiteMean>,
    /// Executions per randomised binary: with one, differences between processes count as
    /// layout effects in every case's verdict, or (a metric that varies from process to
    /// process) leave a case whose binaries differ at "cannot tell".
    pub executions_per_binary: usize,
    /// The cases whose binaries differ but each ran in one process, on a metric that varies
    /// from process to process: "cannot tell" for that reason.
    pub cases_one_process: usize,
    /// The cases that did not run in every execution of the randomised binaries that ran
    /// some case of the suite (dropped or added between executions, or renamed), in name
    /// order.
    pub partial_cases: Vec<PartialCase>,
}

/// A case of a suite missing from some of the executions that ran the suite.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PartialCase {
    /// The case.
    pub case: String,
    /// The randomised binaries' executions it ran in (as analysed, balanced).
    pub executions: usize,
    /// The randomised binaries' executions that ran some case of the suite.
    pub of: usize,
    /// How many other partial cases it never ran in one execution with.
    pub never_with_cases: usize,
    /// The one other partial case it never ran in one execution with, when it is also that
    /// case's only one: the two are likely one case renamed between executions.
    pub never_with_only: Option<String>,
}

/// One case's line of the suite's table.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SuiteCase {
    /// The case's name (its metric name in the store).
    pub case: String,
    /// Mean over random layouts.
    pub mean: f64,
    /// Unit of the mean.
    pub unit: String,
    /// How much the layout moves the case's mean (relative standard deviation of the
    /// layout's own share).
    pub layout_variation: Option<f64>,
    /// The layout test's p-value, alone.
    pub p_value: Option<f64>,
    /// Its q-value among the suite's cases.
    pub q_value: Option<f64>,
    /// The verdict, held at the suite's false discovery rate.
    pub verdict: Verdict,
}

/// A variant's suite against the base's: the ratio of the geometric means over the cases.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SuiteComparison {
    /// Program.
    pub program: String,
    /// The variant compared in both of two experiments (`compare`); absent between the
    /// variants of one (`report`), where `base` and `new` name them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The base variant.
    pub base: String,
    /// The new variant.
    pub new: String,
    /// The cases compared.
    pub cases: usize,
    /// `new / base` of the geometric means, with Welch's interval over the binaries.
    pub ratio: crate::stats::suite::SuiteMean,
    /// The verdict on that interval at the report's thresholds.
    pub verdict: crate::analysis::effect::EffectVerdict,
    /// Whether the values are times (a ratio below 1 is "faster").
    pub is_time: bool,
    /// Cases whose own comparison (Bonferroni over the suite) says lower (faster) and
    /// higher (slower).
    pub cases_lower: usize,
    /// See `cases_lower`.
    pub cases_higher: usize,
    /// The whole interval says slower than `--fail-if-slower` allows.
    pub slower_beyond_threshold: bool,
    /// Whether `--fail-if-slower` judged the suite.
    pub gated: bool,
    /// How far beyond the gate's threshold a true slowdown of the suite's geometric mean
    /// must lie for the gate to catch it 80 % of the time (a share: `λ* · SE` of the log
    /// ratio, Welch's degrees of freedom; Cohen 1988 §2.4).
    pub detectable_excess: Option<f64>,
}

/// A suite case's layout test among the suite's: the Benjamini–Hochberg adjustment of the
/// cases' p-values (Benjamini & Hochberg 1995), which keeps the expected share of false
/// "layout-sensitive" claims among the suite's at most `rate`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SuiteFdr {
    /// The case's q-value (its adjusted p-value).
    pub q_value: f64,
    /// The cases whose tests were adjusted together (those with a p-value).
    pub cases: usize,
    /// The false discovery rate allowed: 1 − the report's confidence.
    pub rate: f64,
}

/// How a tested layout verdict came out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SensitivityOutcome {
    /// Cannot tell: the rejection rests on one binary ([`Sensitivity::rests_on`]) that may
    /// have met an episode of the machine.
    RestsOnOne,
    /// Detected: the rejection rests on one binary that is off alike in every round of a
    /// rounds schedule ([`RestsOn::steady`]): one layout far off.
    OneApart,
    /// Detected, the whole interval of the binaries' relative standard deviation within
    /// the relevance threshold.
    Negligible {
        /// That interval.
        ci: Interval,
    },
    /// Detected.
    Detected,
    /// Not rejected, but the smallest effect the test finds with 80 % power exceeds the
    /// relevance threshold: cannot tell.
    Underpowered {
        /// That smallest detectable variation, relative to the mean.
        detectable: f64,
    },
    /// Not rejected, yet the layout's own variation estimated from the test's table is at
    /// least the variation the test finds with 80 % power: the ANOVA of the table sees
    /// the binaries apart while the randomisation test finds that values placed as they
    /// fell (load bursts lining up with binaries) often look so. Cannot tell; "not
    /// detected" would contradict the estimate quoted beside it.
    LargeButNotRejected {
        /// The layout's own variation estimated, relative to the mean.
        estimated: f64,
        /// The smallest variation the test finds with 80 % power, relative to the mean.
        detectable: f64,
    },
    /// Not rejected, and the test would not settle it (it was [`Self::Underpowered`] or
    /// [`Self::LargeButNotRejected`]), but the whole interval of the binaries' relative
    /// standard deviation lies within the relevance threshold: the binaries' means, which
    /// carry the layout's effect and their executions' noise, vary by less than is worth
    /// finding, whatever the test says of the layout alone.
    Bounded {
        /// That interval.
        ci: Interval,
    },
    /// Not rejected, and the test would have found an effect worth finding.
    NotDetected,
    /// Rejected over the iterations of one execution per binary, on a metric that varies
    /// from process to process (time, not cachegrind's counts): each binary ran in one
    /// process, so the binaries' differences may be their processes'. Cannot tell.
    OneProcessPerBinary,
    /// Rejected on its own, but not across the suite the metric is one case of: its
    /// Benjamini–Hochberg q-value ([`Sensitivity::suite_fdr`]) exceeds the false discovery
    /// rate allowed. Cannot tell.
    ChanceAcrossSuite,
}

impl SensitivityOutcome {
    /// Whether the test rejected "no layout effect" and the verdict rests on it: a
    /// negligible verdict bounded by the means' spread ([`Self::Bounded`]) claims no
    /// effect, and the outcomes that cannot tell claim nothing.
    pub fn rejects(self) -> bool {
        matches!(
            self,
            SensitivityOutcome::Detected
                | SensitivityOutcome::OneApart
                | SensitivityOutcome::Negligible { .. }
        )
    }

    /// The verdict this outcome gives.
    pub(crate) fn verdict(self) -> Verdict {
        match self {
            SensitivityOutcome::RestsOnOne
            | SensitivityOutcome::ChanceAcrossSuite
            | SensitivityOutcome::OneProcessPerBinary
            | SensitivityOutcome::Underpowered { .. }
            | SensitivityOutcome::LargeButNotRejected { .. } => Verdict::Undetermined,
            SensitivityOutcome::Negligible { .. } | SensitivityOutcome::Bounded { .. } => {
                Verdict::Negligible
            }
            SensitivityOutcome::Detected | SensitivityOutcome::OneApart => Verdict::Detected,
            SensitivityOutcome::NotDetected => Verdict::NotDetected,
        }
    }
}

/// The test of the layout-sensitivity verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SensitivityTest {
    /// One-way random-effects F test of the binaries' execution means (free schedules, or
    /// rounds that are not complete blocks).
    OneWayF,
    /// The F test of the binaries blocked on execution rounds (the two-way additive ANOVA
    /// of the screened logarithms of the execution means, binaries against the binary ×
    /// round residual), its p-value from within-round permutations (rounds schedules).
    BlockedF,
    /// One-way F test of the iterations of one execution per binary.
    IterationF,
}

/// The tables of the blocked F family (issue 55), each a view of the binaries × rounds
/// table of execution means on the log scale: docs/statistics.md, "Layout sensitivity".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BlockedTable {
    /// Cells beyond 8 robust standard deviations of the low fit (row and column levels are
    /// low order statistics, which bursts only slowing executions down cannot pull) replaced
    /// by that fit.
    LowFitted,
    /// Every cell as measured.
    Plain,
    /// Each round judged alone: cells beyond 4 robust standard deviations of the round's
    /// level replaced.
    RoundScreenedTight,
    /// The same at 8 robust standard deviations.
    RoundScreenedLoose,
}

impl BlockedTable {
    /// The family's tables in the order they are tested.
    pub(crate) const ALL: [BlockedTable; 4] = [
        BlockedTable::LowFitted,
        BlockedTable::Plain,
        BlockedTable::RoundScreenedTight,
        BlockedTable::RoundScreenedLoose,
    ];
}

/// One execution set aside as outlying.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct SetAsideExecution {
    /// `seed-N`.
    pub(crate) binary: String,
    /// Its layout seed.
    pub(crate) seed: Option<u64>,
    /// The execution (and, on a rounds schedule, its round).
    pub(crate) execution: u32,
    /// Its mean relative to the robust additive fit, minus 1 (0.25: 25 % above).
    pub(crate) deviation: f64,
    /// Whether the host was busy around it (its record's `host`, as the busy-host warning
    /// counts it); absent when the store has no host sample of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) busy: Option<bool>,
    /// Its environment padding in bytes, when the run drew one per execution.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) env_pad: Option<u32>,
}

/// Where the executions set aside started their stack: the run draws each execution's
/// environment padding at random, independently of what it measures, so paddings that
/// bunch among the set-aside executions say the stack's start (the data layout), not the
/// code, set them apart.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct SetAsidePadding {
    /// The smallest padding among them, in bytes.
    pub(crate) lowest: u32,
    /// The largest padding among them, in bytes.
    pub(crate) highest: u32,
    /// The paddings were drawn below this many bytes (the run's `--env-pad`).
    pub(crate) drawn_below: u32,
    /// The executions of the randomised binaries they are compared with.
    pub(crate) executions: usize,
    /// The exact probability that as many of those executions, drawn at random, have
    /// paddings as close together ([`crate::stats::range_test`]); absent with one set aside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) p_value: Option<f64>,
    /// Whether the metric is deterministic (cachegrind's counts): an execution then differs
    /// from the others of its binary only by its padding and by what the program itself
    /// does differently from run to run.
    pub(crate) deterministic: bool,
}

/// A binary whose kept mean stands apart from the others' ([`Sensitivity::far_off`],
/// [`RestsOn`]).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Apart {
    /// `seed-N`.
    pub(crate) binary: String,
    /// Its layout seed.
    pub(crate) seed: Option<u64>,
    /// Its mean relative to the median of the other binaries' means, minus 1.
    pub(crate) deviation: f64,
    /// How many robust standard deviations of the other binaries' means it sits away, with
    /// its sign; null when infinitely far (the others' means all equal: counts under
    /// cachegrind).
    pub(crate) robust_distance: Option<f64>,
}

/// The binary a verdict rested on.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct RestsOn {
    /// The binary, and how far it stands apart.
    #[serde(flatten)]
    pub(crate) apart: Apart,
    /// The test's p-value without it.
    pub(crate) p_value_without: f64,
    /// Whether it is off alike in every round of a rounds schedule (a layout, not an
    /// episode of the machine): the verdict is then "detected", resting on this one layout.
    pub(crate) steady: bool,
}

/// One binary's live values (every iteration of every execution kept after warmup).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct BinaryStatistics {
    /// `baseline` or `seed-N`.
    pub(crate) binary: String,
    /// The layout seed (null for the baseline).
    pub(crate) seed: Option<u64>,
    /// Executions measured.
    pub(crate) executions: usize,
    /// Live values summarised.
    pub(crate) values: usize,
    /// Their mean, in the series' unit (as every value below).
    pub(crate) mean: f64,
    /// Median (numpy's default interpolation for even counts).
    pub(crate) median: f64,
    /// Smallest value.
    pub(crate) min: f64,
    /// Largest value.
    pub(crate) max: f64,
    /// Sample standard deviation (n − 1; null below 2 values).
    pub(crate) stddev: Option<f64>,
}

/// Consistent layout-induced shift: the baseline's mean against the randomised binaries'.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = words("text", Shape::Sentence, "The answer in words."))]
pub struct Shift {
    /// The answer.
    pub verdict: Verdict,
    /// Baseline mean / mean of the randomised binaries.
    pub ratio: Option<f64>,
    /// Fieller confidence interval of the ratio (KJ eq. 5); `None` if unbounded or not
    /// computable.
    pub ci: Option<Interval>,
    /// Share of randomised binaries whose mean is below the baseline's.
    pub baseline_rank: Option<f64>,
    /// The effect (baseline / random layouts) classified at the report's thresholds.
    pub effect: Option<crate::analysis::effect::Effect>,
    /// What the verdict rests on, for its words (not on the wire: `text` is).
    #[serde(skip)]
    pub(crate) grounds: ShiftGrounds,
    /// What the shift was paired on, when those data seeds' or rounds' means differ
    /// ([`super::paired_shift`]: every value taken relative to its data seed's or round's
    /// mean), so that a tie is one of equal values under each data seed (within each round),
    /// not of one value everywhere (for its words; not on the wire).
    #[serde(skip)]
    pub(crate) paired_on: Option<PairedOn>,
    /// Whose shift it is, for its words.
    #[serde(skip)]
    pub(crate) fixed: FixedLayout,
    /// Whether the metric is a time, for its words.
    #[serde(skip)]
    pub(crate) is_time: bool,
}

/// What a fixed layout's executions are paired with the random layouts' on
/// ([`super::paired_shift`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairedOn {
    /// The data seed (`run --data-seeds`).
    DataSeed,
    /// The round of a rounds schedule.
    Round,
}

/// A fixed layout measured beside the random ones, whose shift and placement the report
/// gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FixedLayout {
    /// The default-layout binary (`baseline`).
    #[default]
    Baseline,
    /// The binary the user's build made (`as-built`).
    AsBuilt,
}

/// Why a shift verdict is what it is, with the numbers its sentence quotes.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum ShiftGrounds {
    /// Not analysed (a placeholder before the analysis fills it).
    #[default]
    Unanalysed,
    /// The fixed layout's binary was not run.
    NotRun,
    /// The random layouts' mean has no interval: `note` says why when the engine did
    /// (an overflowing spread, an interval withheld); without one, fewer than 2 binaries.
    NoRandomInterval {
        /// The engine's reason.
        note: Option<crate::analysis::single::IntervalNote>,
    },
    /// The fixed layout ran in this many executions (fewer than 2): its mean has no interval.
    TooFewExecutions {
        /// Its executions.
        executions: usize,
    },
    /// The ratio was classified ([`Shift::effect`]); `rank` places the fixed layout's mean
    /// among the random layouts' means.
    Classified {
        /// Where its mean lies among the random layouts' means.
        rank: Rank,
    },
}

/// How many of `n` random layouts' means lie below, at and above a fixed layout's mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rank {
    /// Below it.
    pub(crate) below: usize,
    /// Equal to it.
    pub(crate) equal: usize,
    /// Random layouts with data.
    pub(crate) n: usize,
}

/// "Is the default layout unusual among random layouts?": where the default layout's mean
/// falls in the distribution of one random layout's mean, from a prediction interval on the
/// log scale (see `src/report/shift.rs`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = words("text", Shape::Sentence, "The answer in words."))]
pub struct DefaultLayout {
    /// `detected`: the default's mean lies outside the prediction interval (unusual);
    /// `negligible`: outside, but within `± --negligible` of the interval's centre;
    /// `not_detected`: inside (an ordinary layout); `undetermined`: no interval. When the
    /// random layouts are lumpy (some far off the others), the same verdicts by rank
    /// (`prediction_interval` null), and `undetermined` for a default beyond every random
    /// layout when they are too few for any rank to be unusual.
    pub verdict: Verdict,
    /// Share of the random layouts whose mean is below the default's (ties count half).
    pub percentile: Option<f64>,
    /// The prediction interval of one more random layout's mean, in the series' unit.
    pub prediction_interval: Option<PredictionIntervalJson>,
    /// Two-sided p-value of "the default is one more random layout" (from the same t).
    pub p_value: Option<f64>,
    /// The default's mean over the interval's centre (the geometric mean of the random
    /// layouts' means), minus 1; placed by rank (lumpy layouts), over their median.
    pub difference: Option<f64>,
    /// What the verdict rests on, for its words (not on the wire: `text` is).
    #[serde(skip)]
    pub grounds: PlacementGrounds,
    /// Whose placement it is, for its words.
    #[serde(skip)]
    pub(crate) fixed: FixedLayout,
    /// The series' unit and whether it is a time, for its words.
    #[serde(skip)]
    pub(crate) unit: String,
    /// See `unit`.
    #[serde(skip)]
    pub(crate) is_time: bool,
    /// The thresholds the verdict was reached at, for its words.
    #[serde(skip)]
    pub(crate) thresholds: Thresholds,
    /// The executions this placement and the shift beside it left out, when the outlier
    /// screen set some aside (of the random layouts or of this fixed layout).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) left_out: Option<LeftOut>,
}

/// The executions a fixed layout's shift and placement leave out: those the outlier screen
/// set aside, of the random layouts (under layout sensitivity) and of the fixed layout
/// itself (its executions screened as one more row of the same fit), so that a load burst
/// weighs on neither side of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct LeftOut {
    /// Executions of the random layouts set aside.
    pub(crate) random: usize,
    /// The fixed layout's executions set aside.
    pub(crate) fixed: Vec<FixedSetAside>,
}

/// One execution of a fixed layout set aside as outlying.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct FixedSetAside {
    /// The execution (and, on a rounds schedule, its round).
    pub(crate) execution: u32,
    /// Its mean relative to the robust additive fit, minus 1 (0.25: 25 % above).
    pub(crate) deviation: f64,
}

/// Why a placement verdict ([`DefaultLayout`]) is what it is, with the numbers its
/// sentence quotes beyond the placement's own.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum PlacementGrounds {
    /// Not analysed (a placeholder before the analysis fills it).
    #[default]
    Unanalysed,
    /// The fixed layout's binary was not run.
    NotRun,
    /// Fewer than 2 random layouts with data.
    TooFewBinaries {
        /// Random layouts with data.
        n: usize,
    },
    /// The random layouts' means overflow: their spread is not computable.
    Overflow,
    /// The prediction interval is not finite.
    NoFiniteInterval,
    /// Placed by its rank among the random layouts' means, which are lumpy: some lie far off
    /// the others, and a prediction interval, which takes them for a normal sample, would
    /// place it wrongly (a layout far off widens it to take in anything, or one missed
    /// makes one more look unusual). Under the hypothesis that the fixed layout is one more
    /// random layout, its rank among the `n + 1` is uniform; `p_value` is the two-sided
    /// rank p-value and `difference` is from the random layouts' median.
    Ranked {
        /// Random layouts with data.
        n: usize,
        /// How many random layouts' means lie below and at the fixed layout's.
        rank: Rank,
        /// The random layouts far off the others, farthest first.
        far_off: Vec<Apart>,
        /// The fewest random layouts with which a rank can be unusual at the confidence:
        /// with fewer, a fixed layout beyond every random one is `undetermined`.
        needed: usize,
    },
    /// Placed by the prediction interval (the verdict says inside or outside).
    Placed {
        /// Random layouts the interval comes from.
        n: usize,
        /// Whether it was computed on the log scale.
        log_scale: bool,
        /// The mean of the random layouts' means, which chooses the unit of the bounds.
        scale_mean: f64,
        /// How many random layouts' means lie below and at the fixed layout's: `percentile`
        /// counts a tie half, which the words must not call "below".
        rank: Rank,
    },
}

/// A prediction interval as the JSON writes it.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct PredictionIntervalJson {
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Its level, e.g. 0.95.
    pub confidence: f64,
}

/// Drift between executions: the lag-1 autocorrelation of execution means in run order,
/// each less its binary's mean, with a one-sided permutation p-value.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Drift {
    /// Executions in the sequence.
    pub executions: usize,
    /// Lag-1 autocorrelation r₁.
    pub lag1: f64,
    /// One-sided permutation p-value (each binary's executions permuted over its places).
    pub p_value: f64,
    /// Mean of the second half of the run over the first half's, minus 1 (each execution
    /// less its binary's mean, relative to the series' mean).
    pub halves_change: f64,
    /// The largest departure of one execution's mean from its binary's mean, relative to
    /// the series' mean: what the drift and the noise together moved any execution by.
    pub largest_departure: f64,
    /// `detected`: the test rejects and some execution departs more than `--negligible`;
    /// `negligible`: it rejects, but no execution departs that far (a drift too small to
    /// matter at the report's relevance threshold); `not_detected`: it does not reject.
    pub verdict: Verdict,
    /// The thresholds the verdict was reached at, for its words.
    #[serde(skip)]
    pub(crate) thresholds: Thresholds,
}

/// Checks of the assumptions behind the numbers.
#[derive(Debug, Clone, Serialize, Default, schemars::JsonSchema)]
pub struct Diagnostics {
    /// Warmup iterations discarded per execution.
    pub warmup_discarded: u32,
    /// Warmup that changepoint detection suggests, per execution, when iterations allow.
    pub warmup_suggestions: Vec<WarmupSuggestion>,
    /// Shapiro–Wilk test of the binaries' means (when 3 ≤ binaries < 30... up to 5000).
    pub normality: Option<Normality>,
    /// Ljung–Box tests of each execution's live iterations.
    pub independence: Option<Independence>,
    /// Drift between executions in run order; `None` when not testable (the reason is in
    /// the text).
    pub drift: Option<Drift>,
    /// Why drift was not tested, when it was not (null when it was).
    #[serde(rename = "drift_not_tested")]
    pub drift_untested: Option<DriftUntested>,
    /// Executions that failed, by kind.
    pub failures: FailureCounts,
    /// What the reader must know about the checks and the design, most important first.
    #[serde(rename = "notes")]
    pub concerns: Vec<DiagnosticConcern>,
    /// The smallest relative difference between two binaries' means, each over this run's
    /// executions, that a two-sided test at the report's level finds with 80 % power, from
    /// the execution-level variation (`stats::mde`); `None` when not computable.
    pub minimum_detectable_effect: Option<f64>,
}

/// Why drift between executions was not tested; the words are
/// `crate::report::words::diagnostics`'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriftUntested {
    /// The executions' means spread beyond f64, so the test would be arithmetic noise.
    Overflow,
    /// Fewer than [`super::diagnostics::MIN_EXECUTIONS_FOR_DRIFT`] executions in run order,
    /// or fewer than 2 per binary.
    TooFewExecutions,
}

/// A note on the checks or the design, as figures; the words are
/// `crate::report::words::diagnostics`'.
#[derive(Debug, Clone, PartialEq)]
pub enum DiagnosticConcern {
    /// A state of the host that disturbs time measurements ([`super::host_conditions`]).
    Host(super::host_conditions::HostCondition),
    /// Fewer randomised binaries with usable data than
    /// [`crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS`].
    FewBinaries {
        /// The randomised binaries with usable data.
        binaries: usize,
    },
    /// More executions fail Ljung–Box than chance explains.
    DependentIterations,
    /// One execution per binary (and at least two binaries).
    OneExecutionPerBinary,
    /// Every execution of each binary gave the same value (a deterministic metric).
    NoNoise,
    /// The smallest effect the executions' noise lets these counts detect.
    Noise {
        /// The coefficient of variation across executions.
        cv: f64,
        /// The minimum detectable effect ([`Diagnostics::minimum_detectable_effect`]).
        mde: f64,
        /// Executions per binary.
        executions: usize,
        /// The test's level, 1 − confidence.
        alpha: f64,
    },
    /// The default-layout binary (baseline) was not run.
    NoBaseline,
    /// Binaries added after the run began ran in phases of their own; the layout's answers
    /// compare the binaries within their phase ([`super::phases`]).
    Phases(super::phases::PhaseShifts),
}

/// A changepoint's suggestion for one execution.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WarmupSuggestion {
    /// `baseline` or `seed-N`.
    pub binary: String,
    /// Execution index.
    pub execution: u32,
    /// Suggested number of initial iterations to discard, counting the discarded warmup;
    /// `None` when the sequence shows no steady state (its last segment is short).
    pub suggested: Option<usize>,
    /// Whether the suggestion exceeds the warmup discarded (or there is no steady state).
    pub exceeds_discard: bool,
    /// Where the changepoints are (iteration indices counting the warmup, PELT).
    pub changepoints: Vec<usize>,
}

/// Shapiro–Wilk on the top-level means.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Normality {
    /// Number of means tested.
    pub(crate) n: usize,
    /// W statistic.
    pub(crate) w: f64,
    /// p-value.
    pub(crate) p_value: f64,
}

impl Normality {
    /// Whether the test rejects normality at the level of `confidence` (p below 1 −
    /// confidence); its advice is `crate::report::words::diagnostics::normality_advice`.
    pub(crate) fn rejected(&self, confidence: f64) -> bool {
        self.p_value < 1.0 - confidence
    }
}

/// Ljung–Box on each execution's live iterations.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Independence {
    /// Lags used.
    pub lags: usize,
    /// Executions tested.
    pub tested: usize,
    /// Executions whose iterations fail the test (`binary execution`).
    #[serde(rename = "failing")]
    pub failing_executions: Vec<ExecutionId>,
    /// How many would fail by chance alone if all were independent.
    pub expected_by_chance: f64,
}

/// One execution of one binary, by ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionId {
    /// `baseline` or `seed-N`.
    pub binary: String,
    /// Execution index.
    pub execution: u32,
}

fn is_one(n: &u32) -> bool {
    *n == 1
}
