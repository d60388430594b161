//! `layoutrand explain DIR`: why is this program layout-sensitive? (issue 26)
//!
//! The orchestration: load the experiment, profile the default-layout binary once under
//! cachegrind for the hot functions ([`hotness`]), read every seed's ELF for where they
//! landed, and hand the binaries' means and placements to the screening of
//! [`crate::analysis::explain`]. Everything written goes under `DIR/explain/`.

pub(crate) mod confirm;
pub(crate) mod differential;
pub(crate) mod hotness;
pub(crate) mod image;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::analysis::answers::experiment::{load, Experiment, Series};
use crate::analysis::effect::Interval;
use crate::analysis::explain::{
    culprit_plots, screen, settle_by_report, LayoutUnit, Problem, ReportSettled, ScreenOptions,
    Screening,
};
use crate::analysis::vocabulary::Verdict;
use crate::files::cache_model::CacheModel;
use crate::files::results::Header;
use crate::files::trust::Verified;
use crate::layout::features::{ICache, RunningCode, SharedHot};

use hotness::HotFunction;
use image::Image;

pub use crate::analysis::explain::{Explanation, EXPLAIN_DIR, EXPLAIN_SCHEMA, PLOTTED};
pub(crate) use crate::analysis::explain_variants::VariantExplanations;

/// What the user chose.
#[derive(Debug, Clone)]
pub struct ExplainOptions {
    /// The program to explain; `None`: the first the store names.
    pub program: Option<String>,
    /// The recorded metric to explain; `None`: the run's primary metric.
    pub metric: Option<String>,
    /// With variants: the one variant to explain; `None`: each of them.
    pub variant: Option<String>,
    /// The confirmation's confidence and relevance threshold (`--negligible`).
    pub thresholds: crate::analysis::vocabulary::Thresholds,
    /// Whether to print a line on stderr as each stage starts (profile, screening, each
    /// confirmation), which can take minutes each.
    pub progress: bool,
    /// False discovery rate of the screening.
    pub fdr: f64,
    /// Permutations per test (raised when too few for the number of tests).
    pub permutations: usize,
    /// Seed of the permutations.
    pub seed: u64,
    /// The instruction cache of the set features; `None`: the run's I1 (cachegrind runs) or
    /// the default model's.
    pub cache: Option<crate::files::cache_model::CacheGeometry>,
    /// `--confirm`: relink and measure the strongest suspects on this many seeds (0: no
    /// confirmation).
    pub confirm_seeds: usize,
}

/// What `explain` answers: one build's explanation, or one per variant of an experiment
/// built with `build --variant`.
#[derive(Debug, Clone)]
pub enum Answer {
    /// The experiment's one build.
    One(Box<Explanation>),
    /// Each variant's binaries explained on their own, set side by side.
    Variants(VariantExplanations),
}

/// The build one explanation screens: the variant (none without variants), its manifest
/// (paths relative to the experiment directory), the directory holding its recording
/// (`.record`, which `--confirm` relinks from), and the folder of the experiment directory
/// its profile, relinks and answer go to.
struct Target<'a> {
    variant: Option<&'a str>,
    manifest: &'a crate::files::manifest::Manifest,
    record_base: PathBuf,
    out_rel: PathBuf,
}

/// Explains the experiment in `dir`: its one build, or each of its variants (only
/// `options.variant`, when given).
pub fn explain(dir: &Path, options: &ExplainOptions) -> Result<Answer> {
    // The profile and confirmation runs start the binaries in the run's own working
    // directory, where a DIR relative to this one (the default `layoutrand-out`) means
    // something else.
    let dir = &std::path::absolute(dir)
        .with_context(|| format!("the absolute path of {}", dir.display()))?;
    // It writes DIR/explain/ (clearing its profile folder): no planted link may lead out.
    crate::files::confined::refuse_links_in(dir, &["", EXPLAIN_DIR])?;
    let exp = load(dir)?;
    let manifest = manifest_of(&exp)?;
    if options.confirm_seeds > 0 {
        // The confirmation relinks with the manifest's build settings: only as verified,
        // and the one every step below reads.
        let verified = crate::files::manifest::Manifest::load_verified(dir)?;
        if verified.get() != manifest {
            bail!(
                "{} changed while it was read: nothing was relinked; try again once nothing \
                 else writes to it",
                dir.join(crate::files::manifest::MANIFEST_FILE).display()
            );
        }
    }
    if manifest.variants.is_empty() {
        if let Some(name) = &options.variant {
            bail!(
                "--variant {name}: {} has no variants (it was built without `build --variant`)",
                dir.display()
            );
        }
        let target = Target {
            variant: None,
            manifest,
            record_base: dir.clone(),
            out_rel: PathBuf::from(EXPLAIN_DIR),
        };
        return Ok(Answer::One(Box::new(explain_build(
            &exp, &target, options,
        )?)));
    }
    let mut explanations = Vec::new();
    for name in variants_asked(manifest, options.variant.as_deref())? {
        let build = &manifest
            .variants
            .iter()
            .find(|v| v.name == name)
            .expect("a variant of the manifest")
            .build;
        // A variant's directory is a build of its own, whose recording the confirmation
        // relinks (writing within it): its explain folder is DIR/NAME/explain.
        let out_rel = Path::new(name).join(EXPLAIN_DIR);
        let explain_in = format!("{name}/{EXPLAIN_DIR}");
        crate::files::confined::refuse_links_in(dir, &[name, &explain_in])?;
        let target = Target {
            variant: Some(name),
            manifest: build,
            record_base: dir.join(name),
            out_rel,
        };
        explanations.push(
            explain_build(&exp, &target, options)
                .with_context(|| format!("explaining variant {name}"))?,
        );
    }
    Ok(Answer::Variants(VariantExplanations::of(explanations)))
}

/// The variants to explain: every variant of `manifest`, in its order, or the one asked
/// (an error naming the variants when it has no such one).
pub fn variants_asked<'a>(
    manifest: &'a crate::files::manifest::Manifest,
    asked: Option<&str>,
) -> Result<Vec<&'a str>> {
    let names: Vec<&str> = manifest.variants.iter().map(|v| v.name.as_str()).collect();
    match asked {
        None => Ok(names),
        Some(name) => match names.iter().find(|n| **n == name) {
            Some(n) => Ok(vec![*n]),
            None => bail!(
                "--variant {name}: the experiment has no such variant (variants: {})",
                names.join(", ")
            ),
        },
    }
}

/// Explains the randomised binaries of `target`'s build: profile its default layout,
/// screen, confirm (`options.confirm_seeds`), and store the answer in `target.out_rel`.
// Long on purpose: the pipeline in order (profile, screen, confirm, assemble, store), each
// step a function already; what stays here is the values one step hands the next, which a
// split would only thread through more signatures.
fn explain_build(
    exp: &Experiment,
    target: &Target,
    options: &ExplainOptions,
) -> Result<Explanation> {
    let metric = options.metric.as_deref().unwrap_or(&exp.primary_metric);
    let picked = pick_series(exp, options.program.as_deref(), metric, target.variant)?;
    refuse_rates(picked)?;
    let view = report_view(picked, &options.thresholds);
    let series = &view.kept;
    let say = progress(options.progress, target.variant);
    let program = series.program.clone();
    let (profiled, units) = profiled_units(exp, target, series, &say)?;
    let Profiled {
        hot,
        running,
        left_out,
        mut problems,
        image,
    } = profiled;
    let shared = running.shared.clone();
    let cache = ICache::from_geometry(&options.cache.unwrap_or_else(|| run_i1(exp)));
    problems.splice(0..0, cache_mismatch(exp, options));
    problems.extend(shared_period_warning(&shared, &cache));
    let screen_options = screen_options(exp, metric, options, cache, &running);
    let on = (&units[..], &hot[..], &screen_options);
    let mut screening = screened_and_settled(series, on, &view, &say)?;
    if options.confirm_seeds > 0 {
        let seeded = first_seeds(series, &units, options.confirm_seeds);
        let hot_names: Vec<String> = hot.iter().map(|h| h.name.clone()).collect();
        let screened = confirm::Screened {
            exp,
            manifest: target.manifest,
            record_base: &target.record_base,
            out_rel: &target.out_rel,
            program: &program,
            metric,
            thresholds: options.thresholds,
            units: &seeded,
            screened: &units,
            hot: &hot_names,
            cache: &cache,
            running: &running,
            image: &image,
        };
        confirm_culprits(&screened, &mut screening, &say)?;
    }
    let with = (&units[..], &image);
    let differential = differential_of(exp, target, series, with, &hot, &screen_options, &say)?;
    crate::analysis::explain::revise_suggestions(&mut screening, &series.metric);
    let leads = leads_of(differential.as_ref(), &screening, options.thresholds);
    let (plots, shown_unit) = plots(&units, &hot, &screening, (&cache, &running), series);
    let mut e = Explanation {
        schema: EXPLAIN_SCHEMA,
        program,
        variant: target.variant.map(String::from),
        metric: series.metric.clone(),
        unit: series.unit.clone(),
        shown_unit,
        hot_limits: crate::analysis::explain::HOT_RULE,
        hot,
        libraries: image.libraries.iter().map(|l| l.name.clone()).collect(),
        cache,
        shared_hot: shared,
        phases: running.phases.len(),
        layout_share: view.share,
        report_settled: view.settled,
        negligible: Some(options.thresholds.negligible),
        differential,
        leads,
        screening,
        plots,
        reading: exp.warnings.clone(),
        problems,
        recorded_warnings: Vec::new(),
    };
    e.problems.extend(no_wider_screen(&e, &left_out));
    store(&exp.dir, &target.out_rel, &e)?;
    Ok(e)
}

/// The screening of `units`' placements of `hot` against their means ([`screen`]), its
/// verdict then settled by the report's where it names no culprit ([`settle_by_report`]).
fn screened_and_settled(
    series: &Series,
    (units, hot, options): (&[LayoutUnit], &[HotFunction], &ScreenOptions),
    view: &ReportView,
    say: &dyn Fn(String),
) -> Result<Screening> {
    let (n_hot, n_units, metric) = (hot.len(), units.len(), &series.metric);
    say(format!(
        "screening {n_hot} hot functions' placements in {n_units} binaries against {metric}"
    ));
    let mut screening = screen(units, hot, options)
        .with_context(|| format!("cannot screen {}'s {n_units} binaries", series.program))?;
    settle_by_report(&mut screening, view.settled.as_ref());
    Ok(screening)
}

/// The profile runs of `series`'s default layout ([`hot_functions`]) and every binary
/// screened as the screening sees it ([`layout_units`]), each checked (inside DIR, a regular
/// file, the manifest's hash) before the first runs.
fn profiled_units(
    exp: &Experiment,
    target: &Target,
    series: &Series,
    say: &dyn Fn(String),
) -> Result<(Profiled, Vec<LayoutUnit>)> {
    let (dir, manifest, program) = (&exp.dir, target.manifest, &series.program);
    let baseline = binary_path(dir, manifest, program, None)?;
    let paths = (series.seeds.iter())
        .map(|b| binary_path(dir, manifest, program, b.seed))
        .collect::<Result<Vec<PathBuf>>>()?;
    say(format!(
        "profiling {program}'s default layout once under cachegrind for its hot functions"
    ));
    let profiled = hot_functions(dir, exp, target, &baseline, say)?;
    let units = layout_units(dir, manifest, (series, &paths), &profiled.image)?;
    Ok((profiled, units))
}

/// How the screening runs on `metric`: as `options` say, on `cache`, and under cachegrind
/// only on what a simulated cache feels (on real hardware every feature).
/// Explain (and the pin and fixes that follow it) reads lower values as faster: the fast
/// binaries, the fix's proof and the alignment advised all rest on it. On a rate (`MB/s`),
/// they would name the slow placements as the fast ones, so it is refused.
fn refuse_rates(series: &Series) -> Result<()> {
    if series.is_rate() {
        bail!(
            "{} of {} is a rate ({}: higher is faster), and explain reads lower values as \
             faster (its fast binaries, fixes and pins would be the slow ones); explain a \
             time or a count instead: --metric wall or cpu, cachegrind, or a regex capturing \
             the time per operation",
            series.metric,
            series.program,
            series.unit
        );
    }
    Ok(())
}

fn screen_options(
    exp: &Experiment,
    metric: &str,
    options: &ExplainOptions,
    cache: ICache,
    running: &RunningCode,
) -> ScreenOptions {
    ScreenOptions {
        fdr: options.fdr,
        permutations: options.permutations,
        seed: options.seed,
        cache,
        running: running.clone(),
        features: if differential::per_function_metric(exp, metric) {
            &crate::layout::features::CACHE_FEATURES
        } else {
            &crate::layout::features::FEATURES
        },
    }
}

/// The differential profile's leads beside the screening's findings (`None` without a
/// differential profile).
fn leads_of(
    differential: Option<&crate::analysis::explain_differential::Differential>,
    screening: &Screening,
    thresholds: crate::analysis::vocabulary::Thresholds,
) -> Option<crate::analysis::explain_differential::Leads> {
    let placement: Vec<Vec<String>> = screening
        .findings
        .iter()
        .map(|f| f.functions.clone())
        .collect();
    differential.map(|d| crate::analysis::explain_differential::leads(d, &placement, thresholds))
}

/// The differential profile of `series`'s binaries when its metric is one cachegrind counts
/// per function (else `None`): every binary profiled once more, and where the variation
/// between them went.
fn differential_of(
    exp: &Experiment,
    target: &Target,
    series: &Series,
    (units, image): (&[LayoutUnit], &Image),
    hot: &[HotFunction],
    screen: &ScreenOptions,
    say: &dyn Fn(String),
) -> Result<Option<crate::analysis::explain_differential::Differential>> {
    if !differential::per_function_metric(exp, &series.metric) || units.len() < 3 {
        return Ok(None);
    }
    let jobs = std::thread::available_parallelism().map_or(1, usize::from);
    say(format!(
        "profiling each of the {} binaries once under cachegrind for the functions whose own {} move ({jobs} at once)",
        units.len(),
        series.metric
    ));
    let per_binary = differential::profile_binaries(
        exp,
        target.manifest,
        &target.out_rel,
        series,
        &series.metric,
        jobs,
    )?;
    let own: std::collections::BTreeSet<String> = units
        .iter()
        .flat_map(|u| u.functions.iter().map(|f| f.name.clone()))
        .chain(hot.iter().map(|h| h.name.clone()))
        .collect();
    let means: Vec<f64> = units.iter().map(|u| u.mean).collect();
    let functions: Vec<&[crate::layout::binary::Function]> =
        units.iter().map(|u| u.functions.as_slice()).collect();
    let mut d = crate::analysis::explain_differential::differential(
        &per_binary,
        &means,
        &own,
        &functions,
        &screen.cache,
        (screen.fdr, screen.permutations.max(999), screen.seed),
    )
    .with_context(|| {
        format!(
            "cannot analyse the differential profile of {}",
            series.program
        )
    })?;
    for m in &mut d.movers {
        m.library = (units.first())
            .and_then(|u| image.library_holding(&u.functions, &m.function))
            .map(|l| l.name.clone());
    }
    Ok(Some(d))
}

/// The line on stderr announcing a stage (`explain: …`, `explain: variant NAME: …`), or
/// nothing without `progress`.
fn progress(progress: bool, variant: Option<&str>) -> impl Fn(String) + '_ {
    move |line: String| {
        if progress {
            match variant {
                Some(v) => crate::diagnostic!("explain: variant {v}: {line}"),
                None => crate::diagnostic!("explain: {line}"),
            }
        }
    }
}

/// The first `n` randomised binaries of `series` with their seeds (those a confirmation
/// relinks).
fn first_seeds<'a>(
    series: &Series,
    units: &'a [LayoutUnit],
    n: usize,
) -> Vec<(u64, &'a LayoutUnit)> {
    series
        .seeds
        .iter()
        .zip(units)
        .filter_map(|(b, u)| b.seed.map(|s| (s, u)))
        .take(n)
        .collect()
}

/// The file of `program`'s binary of seed `seed` (`None`: the default layout), as the
/// manifest names it and checked as `run` checks it ([`verified`]).
pub(crate) fn binary_path(
    dir: &Path,
    manifest: &crate::files::manifest::Manifest,
    program: &str,
    seed: Option<u64>,
) -> Result<PathBuf> {
    let set = manifest
        .binary_sets()
        .find(|s| s.seed == seed)
        .with_context(|| format!("the manifest has no binary {seed:?}"))?;
    verified(dir, set, program)
}

/// The file of `set`'s program `program`, checked before explain reads or runs it exactly as
/// `run` checks it ([`crate::run::targets::verified_binary`]): inside `dir` once links are
/// followed, a regular file (a FIFO is refused, not opened), its SHA-256 the manifest's.
pub(crate) fn verified(
    dir: &Path,
    set: &crate::files::manifest::BinarySet,
    program: &str,
) -> Result<PathBuf> {
    let b = set
        .find(program)
        .with_context(|| format!("{}: no program {program}", set.label()))?;
    crate::run::targets::verified_binary(dir, b, "binary", &set.label())
}

/// The files of `set` that `template`'s `{bin:NAME}` placeholders stand for, each
/// [`verified`] (a name the set lacks stays out, and expands to nothing, as before).
pub(crate) fn named_binaries(
    dir: &Path,
    set: &crate::files::manifest::BinarySet,
    template: &crate::run::command::CommandTemplate,
) -> Result<BTreeMap<String, PathBuf>> {
    let mut named = BTreeMap::new();
    for name in &template.named {
        if set.find(name).is_some() {
            named.insert(name.clone(), verified(dir, set, name)?);
        }
    }
    Ok(named)
}

/// Each seed's binary of `series` (at `paths`, checked by [`binary_path`]) as the
/// screening sees it: its mean, the interval of that mean, and where its functions landed,
/// with those of the build's libraries it loads (`image`).
fn layout_units(
    dir: &Path,
    manifest: &crate::files::manifest::Manifest,
    (series, paths): (&Series, &[PathBuf]),
    image: &Image,
) -> Result<Vec<LayoutUnit>> {
    let mut units = Vec::new();
    for (b, path) in series.seeds.iter().zip(paths) {
        let set = manifest
            .binary_sets()
            .find(|s| s.seed == b.seed)
            .with_context(|| format!("the manifest has no binary {:?}", b.seed))?;
        units.push(LayoutUnit {
            binary: b.binary.clone(),
            mean: b.mean(),
            ci: execution_interval(b),
            functions: image.functions(dir, set, path)?,
        });
    }
    Ok(units)
}

/// The experiment's manifest, which names the binaries explain reads.
fn manifest_of(exp: &Experiment) -> Result<&crate::files::manifest::Manifest> {
    exp.manifest.as_ref().with_context(|| {
        format!(
            "{} has no manifest.json: explain reads the binaries the build made, which only \
             the manifest names",
            exp.dir.display()
        )
    })
}

/// The plots of the strongest culprits in the unit the report prints the metric in, and
/// that unit.
fn plots(
    units: &[LayoutUnit],
    hot: &[HotFunction],
    screening: &Screening,
    cache: (&ICache, &RunningCode),
    series: &Series,
) -> (Vec<crate::analysis::explain_plot::FeaturePlot>, String) {
    // The unit the report prints such values in (ms for 3e6 ns); its factor divides by it.
    let typical = units.iter().map(|u| u.mean).sum::<f64>() / units.len() as f64;
    let crate::report::numfmt::Scale {
        factor: divisor,
        name: shown_unit,
    } = crate::report::numfmt::Scale::for_values(&series.unit, typical);
    let axes = crate::analysis::explain_plot::Axes {
        cache: *cache.0,
        metric: &series.metric,
        shown_unit: &shown_unit,
    };
    let plots = culprit_plots(
        units,
        hot,
        screening,
        cache.1,
        (1.0 / divisor, &axes),
        PLOTTED,
    );
    (plots, shown_unit)
}

/// Keeps the answer in `DIR/explain/` (a variant's in `DIR/NAME/explain/`) for `report
/// --format html`.
fn store(dir: &Path, out_rel: &Path, e: &Explanation) -> Result<()> {
    let rel = out_rel.join(crate::analysis::explain::STORED);
    let data = crate::wire::data_only(|| serde_json::to_string_pretty(e))?;
    crate::files::confined::ExperimentDir::open(dir)?.write_atomic(rel, data.as_bytes())
}

/// The 95 % t interval of a binary's mean over its executions' means (K&J eq. 4 at the
/// execution level); `None` with fewer than two executions.
fn execution_interval(b: &crate::analysis::answers::series::BinaryData) -> Option<Interval> {
    let means = b.execution_means();
    // A positive metric's interval is taken on the log scale and mapped back, so that it
    // stays above zero with few, noisy executions (a plain t interval would not).
    let positive = means.iter().all(|&m| m > 0.0);
    let scaled: Vec<f64> = if positive {
        means.iter().map(|m| m.ln()).collect()
    } else {
        means
    };
    let ci = crate::stats::sample::mean_interval(&scaled, 0.95).ok()?;
    let (lower, upper) = if positive {
        (ci.lower.exp(), ci.upper.exp())
    } else {
        (ci.lower, ci.upper)
    };
    (lower.is_finite() && upper.is_finite()).then_some(Interval { lower, upper })
}

/// Confirms the strongest culprits ([`confirm::suspects`]) and files each answer with its
/// culprit.
fn confirm_culprits(
    screened: &confirm::Screened,
    screening: &mut Screening,
    say: &dyn Fn(String),
) -> Result<()> {
    let chosen: Vec<crate::analysis::explain::Suspect> =
        confirm::suspects(screening).into_iter().cloned().collect();
    if chosen.is_empty() {
        // Asked for, so said: a confirmation relinks only the screen's discoveries.
        say(
            "nothing to confirm: no placement feature of a hot function was a discovery of \
             the screen (--confirm relinks and measures discoveries only)"
                .to_string(),
        );
        return Ok(());
    }
    let answers = confirm::confirm(screened, &chosen, say)?;
    for (suspect, answer) in chosen.iter().zip(answers) {
        let culprit = screening
            .culprits
            .iter_mut()
            .find(|c| c.function == suspect.function && c.feature == suspect.feature)
            .expect("a suspect is a culprit");
        culprit.confirmation = Some(answer);
    }
    Ok(())
}

/// The folder in the explain folder holding the profile run's output (which `pin` reads
/// again for its hot functions).
pub(crate) const PROFILE_DIR: &str = "profile";

/// The series of `metric` of `program` (the first program when `None`) of `variant` (none
/// without variants).
fn pick_series<'a>(
    exp: &'a Experiment,
    program: Option<&str>,
    metric: &str,
    variant: Option<&str>,
) -> Result<&'a Series> {
    let wanted = |s: &&Series| {
        s.metric == metric
            && s.variant.as_deref() == variant
            && program.is_none_or(|p| s.program == p)
    };
    match exp.series.iter().find(wanted) {
        Some(s) => Ok(s),
        None => {
            let metrics: std::collections::BTreeSet<&str> =
                exp.series.iter().map(|s| s.metric.as_str()).collect();
            let of_variant = variant.map_or(String::new(), |v| format!(" of variant {v}"));
            bail!(
                "no measurements{of_variant} of {} with metric {metric} to explain (programs: \
                 {}; metrics: {})",
                program.unwrap_or("any program"),
                exp.header.programs.join(", "),
                metrics.into_iter().collect::<Vec<_>>().join(", ")
            )
        }
    }
}

/// The instruction cache the run's functions were placed in: a cachegrind run's simulated
/// I1; for a run on the machine, that machine's L1 instruction cache as its store recorded
/// it (a shape valgrind would refuse, as a received store may hold, is not taken); else the
/// default model's.
fn run_i1(exp: &Experiment) -> crate::layout::cache_geometry::CacheGeometry {
    let machine = exp.header.host.l1i.filter(|g| g.check("L1i").is_ok());
    match (exp.header.cache_model, machine) {
        (Some(model), _) => model.i1,
        (None, Some(machine)) => machine,
        (None, None) => CacheModel::DEFAULT.i1,
    }
}

/// A warning when `--icache` differs from the I1 the run simulated: the set features then
/// describe another cache than the one that produced the metric.
fn cache_mismatch(exp: &Experiment, options: &ExplainOptions) -> Option<Problem> {
    match (options.cache, exp.header.cache_model) {
        (Some(asked), Some(model)) if asked != model.i1 => Some(Problem::CacheMismatch {
            asked,
            simulated: model.i1,
        }),
        _ => None,
    }
}

/// The program's functions that ran but were not screened (outside the hot rule).
struct Unscreened {
    /// How many.
    functions: usize,
    /// Their share of the program's own instructions.
    ir_share: f64,
}

impl Unscreened {
    /// The functions of `own` that ran in `profile` and are not among `hot`.
    fn of(
        profile: &BTreeMap<String, (f64, f64)>,
        own: &std::collections::BTreeSet<String>,
        hot: &[HotFunction],
    ) -> Unscreened {
        let ran: Vec<f64> = profile
            .iter()
            .filter(|(name, (ir, _))| own.contains(name.as_str()) && *ir > 0.0)
            .map(|(_, (ir, _))| *ir)
            .collect();
        let hot_ir: f64 = hot.iter().map(|h| h.ir).sum();
        let total_ir: f64 = ran.iter().sum();
        Unscreened {
            functions: ran.len().saturating_sub(hot.len()),
            ir_share: if total_ir > 0.0 {
                (total_ir - hot_ir) / total_ir
            } else {
                0.0
            },
        }
    }
}

/// Why explain does not screen wider when the layout holds most of the variance and no
/// hot function's placement goes with it: the functions left out run little, and their
/// tests would raise every pair's bar. `None` unless nothing was found while the layout
/// holds at least half the variance (or the binaries' means differ, one value each).
fn no_wider_screen(e: &Explanation, left_out: &Unscreened) -> Option<Problem> {
    let s = &e.screening;
    let layout_share = match e.layout_share {
        Some(share) if share >= 0.5 => Some(share),
        None if s.means_vary => None,
        _ => return None,
    };
    // The report's "not detected" says the means do not differ: no wider screen would help.
    let nothing = s.verdict == Verdict::NotDetected && e.report_settled.is_none();
    (nothing && left_out.functions > 0).then(|| Problem::NoWiderScreen {
        program: e.program.clone(),
        libraries: e.libraries.clone(),
        layout_share,
        hot: e.hot.len(),
        functions: left_out.functions,
        ir_share: left_out.ir_share,
        tests: left_out.functions * e.screening.features.len(),
    })
}

/// A warning when the shared libraries' hot code is counted in a cache whose set period
/// exceeds a page: a library's sets then depend on its load address, which explain takes
/// as a page-aligned 0.
fn shared_period_warning(shared: &[SharedHot], cache: &ICache) -> Option<Problem> {
    let period = cache.sets * cache.line;
    (!shared.is_empty() && period > crate::layout::features::PAGE)
        .then_some(Problem::SharedPeriod { period })
}

/// What the profile runs of the baseline found: the hot functions, the code running beside
/// them, what was left unscreened, the problems met, and the image (the program and the
/// build's libraries it loads) whose functions are screened.
struct Profiled {
    hot: Vec<HotFunction>,
    running: RunningCode,
    left_out: Unscreened,
    problems: Vec<Problem>,
    image: Image,
}

/// One run of the baseline under cachegrind and one under callgrind, with the run's own
/// command, working directory and environment: the hot functions the first shows (the
/// program's own and those of the build's libraries it loads, which every seed relinks),
/// the code running beside them (the other shared libraries' hot code, the second's
/// phases), and what could not be read of it.
fn hot_functions(
    dir: &Path,
    exp: &Experiment,
    target: &Target,
    baseline: &Path,
    say: &dyn Fn(String),
) -> Result<Profiled> {
    let manifest = target.manifest;
    let recorded = recorded_header(&exp.dir)?;
    let header: &Header = &recorded;
    let template = crate::run::command::CommandTemplate::parse(&header.command)?;
    let named = named_binaries(dir, &manifest.baseline, &template)?;
    let iterations = (header.iterations > 0).then_some(header.iterations);
    let argv = template.expand(Some(&baseline.to_path_buf()), &named, iterations);
    let scratch_rel = target.out_rel.join(PROFILE_DIR);
    let scratch = dir.join(&scratch_rel);
    let root = crate::files::confined::ExperimentDir::open(dir)?;
    root.remove_dir_all(&scratch_rel)
        .with_context(|| format!("cannot clear {}", scratch.display()))?;
    root.create_dir_all(&scratch_rel)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    let mut env = recorded_environment(header)?;
    if let Some(path) = stage_libraries(dir, &manifest.baseline, &scratch)? {
        env.push((
            crate::run::libraries::LIBRARY_PATH_VARIABLE.to_string(),
            path,
        ));
    }
    let model = header.cache_model.unwrap_or(CacheModel::DEFAULT);
    let cwd = header.cwd.as_ref().map(PathBuf::from);
    let how = (cwd.as_deref(), &env[..], &header.ok_exit_codes[..]);
    let profile = hotness::profile(&argv, &model, how, &scratch)?;
    let objects = hotness::loaded_objects(&profile.log, baseline);
    let staged = crate::run::libraries::staged_library_dir(&scratch);
    let image = Image::of_loaded(&manifest.baseline, &objects, &staged);
    let functions = image.functions(dir, &manifest.baseline, baseline)?;
    let own = functions.iter().map(|f| f.name.clone()).collect();
    let mut hot = hotness::select_hot(&profile.functions, &own, crate::analysis::explain::HOT_RULE);
    for h in &mut hot {
        h.library = (image.library_holding(&functions, &h.name)).map(|l| l.name.clone());
    }
    let left_out = Unscreened::of(&profile.functions, &own, &hot);
    let Some(coldest) = hot.last().map(|h| h.ir) else {
        bail!(
            "the profile run of {} executed none of its own functions",
            baseline.display()
        );
    };
    let staged_file = |l: &image::ImageLibrary| staged.join(&l.loaded_as);
    let others: Vec<hotness::LoadedObject> = (objects.into_iter())
        .filter(|o| !image.libraries.iter().any(|l| o.path == staged_file(l)))
        .collect();
    let (shared, problems) = hotness::shared_hot(&profile.functions, &own, &others, coldest);
    say(format!(
        "profiling it once more under callgrind for the lines that run together \
         (stretches of {} basic blocks)",
        crate::layout::features::PHASE_BLOCKS
    ));
    let phases_rel = scratch_rel.join("phases");
    root.create_dir_all(&phases_rel)
        .with_context(|| format!("cannot create {}", dir.join(&phases_rel).display()))?;
    let phases_dir = dir.join(&phases_rel);
    hotness::profile_phases(&argv, how, &phases_dir)?;
    let objects: Vec<(PathBuf, u64)> = std::iter::once((baseline.to_path_buf(), 0))
        .chain(image.libraries.iter().map(|l| (staged_file(l), l.base)))
        .collect();
    let phases = hotness::read_phases(&phases_dir, &objects, &functions)?;
    let running = RunningCode {
        shared,
        phases: std::sync::Arc::new(phases),
    };
    Ok(Profiled {
        hot,
        running,
        left_out,
        problems,
        image,
    })
}

/// The header of the experiment's own run in `dir`, read verified (its MAC checked over the
/// bytes it is parsed from): the store's first line, or the Slurm plan's header for a run of
/// shards. What `explain` runs (the profile runs, the differential runs, a confirmation's run)
/// takes the command, working directory, environment and counts from it only.
pub(crate) fn recorded_header(dir: &Path) -> Result<Verified<Header>> {
    if let Some(h) = crate::files::store::file::verified_header(dir)? {
        return Ok(h);
    }
    if let Some(plan) = crate::run::slurm::plan::SlurmPlan::load_verified(dir)? {
        return Ok(plan.map(|p| p.header));
    }
    bail!(
        "{} holds no run header (no results.jsonl, no Slurm plan): nothing to confirm with",
        dir.display()
    )
}

/// The run's fixed environment as the store's header recorded it, checked as `run` checks
/// it before running anything with it.
fn recorded_environment(header: &Header) -> Result<Vec<(String, String)>> {
    let env: Vec<(String, String)> = header
        .environment
        .iter()
        .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.into(), v.into())))
        .collect();
    crate::run::environment::check_recorded_environment(&env)?;
    Ok(env)
}

/// Stages `set`'s own shared libraries (if the build made any) in `scratch/lib`, as `run`
/// stages each binary's, and returns the loader path that finds them.
fn stage_libraries(
    dir: &Path,
    set: &crate::files::manifest::BinarySet,
    scratch: &Path,
) -> Result<Option<String>> {
    if set.libraries.is_empty() {
        return Ok(None);
    }
    let mut libraries: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
    for l in &set.libraries {
        let loaded_as = l.loaded_as();
        let path = crate::run::targets::verified_binary(dir, l, "library", &set.label())?;
        libraries.insert(loaded_as, (path, l.sha256.clone()));
    }
    let lib = crate::run::libraries::staged_library_dir(scratch);
    crate::run::libraries::stage_libraries(&libraries, &lib, &set.label())?;
    Ok(Some(lib.display().to_string()))
}

/// What explain takes from the report on `series`, so that the two give one answer: the
/// layout's share of the variance, whether the layout sensitivity settles the question
/// without a culprit, and the series as the sensitivity's outlier screen kept it.
pub struct ReportView {
    /// The sensitivity's intraclass correlation (on a rounds schedule that of the blocked
    /// test, within rounds), in [0, 1] after truncating a negative estimate at 0; `None`
    /// when the report has none. explain, pin and report give this one number.
    pub share: Option<f64>,
    /// The report's `negligible` or `not detected` ([`ReportSettled`]).
    pub settled: Option<ReportSettled>,
    /// `series` less the executions the report set aside as outlying (a load burst): the
    /// binaries' means explain screens are the report's. A burst on one binary's
    /// execution made flac's seed-4 3.4 % slower than the others in explain's eyes, a
    /// "strongest pair" of a function crossing a page, while the report, without it, found
    /// the layout's effect negligible. Binaries added later are taken within their phase,
    /// as the report's layout answers take them ([`crate::analysis::answers::phases`]).
    pub kept: Series,
}

/// The report's answer on `series` at `thresholds` as explain reads it ([`ReportView`]).
pub fn report_view(
    series: &Series,
    thresholds: &crate::analysis::vocabulary::Thresholds,
) -> ReportView {
    let report = crate::analysis::answers::builder::analyse_series(
        series,
        Default::default(),
        &BTreeMap::new(),
        thresholds,
        None,
    );
    let s = &report.sensitivity;
    let share = s
        .icc
        .filter(|icc| icc.is_finite())
        .map(|icc| icc.clamp(0.0, 1.0));
    let bound = match s.verdict {
        Verdict::Negligible => s.cv_across_binaries_ci.map(|ci| ci.upper),
        Verdict::NotDetected => s.detectable_variation,
        _ => None,
    };
    let settled = bound.map(|bound| ReportSettled {
        verdict: s.verdict,
        bound,
        negligible: thresholds.negligible,
    });
    let set_aside: Vec<(&str, u32)> = s
        .set_aside
        .iter()
        .map(|a| (a.binary.as_str(), a.execution))
        .collect();
    let centred = crate::analysis::answers::phases::phase_centred(series).map(|(c, _)| c);
    let kept = centred
        .as_ref()
        .unwrap_or(series)
        .without_executions(&set_aside);
    ReportView {
        share,
        settled,
        kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded::SeededRng;

    /// 10 binaries × 6 rounds, the layout moving a binary's level by `layout` (relative
    /// standard deviation), executions by `noise`, and seed-4's last execution a burst (+14 %):
    /// flac's wall time on a shared host, in shape.
    fn flac_like(layout: f64, noise: f64, seed: u64) -> Series {
        let mut rng = SeededRng::new(seed, "explain:report-view");
        let values: Vec<Vec<f64>> = (1..=10)
            .map(|i| {
                let level = 240.0 * (1.0 + layout * rng.normal());
                (0..6)
                    .map(|round| {
                        let burst = if i == 4 && round == 5 { 1.14 } else { 1.0 };
                        level * (1.0 + noise * rng.normal()) * burst
                    })
                    .collect()
            })
            .collect();
        Series::of_rounds("flac", "wall", "ms", &values)
    }

    /// explain screens the binaries' means the report's outlier screen kept, and takes the
    /// report's "negligible" as its answer: the burst is out of seed-4's mean, and the bound
    /// is the report's. A layout effect of 3 % settles nothing (the screening answers).
    #[test]
    fn explain_screens_the_reports_kept_executions_and_hears_its_negligible() {
        let thresholds = crate::analysis::vocabulary::Thresholds::default();
        // Executions varying by 0.4 %: the binaries differ detectably, negligibly; by 0.8 %:
        // not detectably, with the power to find 0.46 %.
        for (noise, verdict) in [(0.004, Verdict::Negligible), (0.008, Verdict::NotDetected)] {
            let series = flac_like(0.001, noise, 5);
            let view = report_view(&series, &thresholds);
            let executions: Vec<usize> =
                view.kept.seeds.iter().map(|b| b.executions.len()).collect();
            assert_eq!(executions, [6, 6, 6, 5, 6, 6, 6, 6, 6, 6]);
            assert!(view.kept.seeds[3]
                .executions
                .iter()
                .all(|e| e.execution != 5));
            let settled = view.settled.expect("the report settles it");
            assert_eq!(settled.verdict, verdict);
            let report = crate::analysis::answers::builder::analyse_series(
                &series,
                Default::default(),
                &BTreeMap::new(),
                &thresholds,
                None,
            );
            let s = &report.sensitivity;
            let bound = match verdict {
                Verdict::Negligible => s.cv_across_binaries_ci.unwrap().upper,
                _ => s.detectable_variation.unwrap(),
            };
            assert_eq!(settled.bound, bound);
            assert!(bound < thresholds.negligible, "{settled:?}");
        }
        let sensitive = report_view(&flac_like(0.03, 0.008, 5), &thresholds);
        assert_eq!(sensitive.settled, None);
    }

    /// The note instead of a wider screen: only when nothing was found while the layout
    /// holds at least half the variance (or the means differ, one value per binary), with
    /// the functions left out, their share and the tests they would add.
    #[test]
    fn no_wider_screen_is_said_only_when_the_layout_matters_and_nothing_was_found() {
        let stored = include_str!("../../tests/report/fixtures/explained/explain/explanation.json");
        let mut e: Explanation = serde_json::from_str(stored).unwrap();
        let left_out = Unscreened {
            functions: 7,
            ir_share: 0.004,
        };
        // Found something: no note.
        assert_eq!(e.screening.verdict, Verdict::Detected);
        assert_eq!(no_wider_screen(&e, &left_out), None);
        e.screening.verdict = Verdict::NotDetected;
        e.layout_share = Some(0.9);
        let note = |layout_share| Problem::NoWiderScreen {
            program: "placed".into(),
            libraries: Vec::new(),
            layout_share,
            hot: e.hot.len(),
            functions: 7,
            ir_share: 0.004,
            tests: 56,
        };
        assert_eq!(no_wider_screen(&e, &left_out), Some(note(Some(0.9))));
        e.layout_share = Some(0.3);
        assert_eq!(no_wider_screen(&e, &left_out), None);
        e.layout_share = None;
        assert_eq!(no_wider_screen(&e, &left_out), Some(note(None)));
        e.screening.means_vary = false;
        assert_eq!(no_wider_screen(&e, &left_out), None);
        let none_left = Unscreened {
            functions: 0,
            ir_share: 0.0,
        };
        e.layout_share = Some(0.9);
        assert_eq!(no_wider_screen(&e, &none_left), None);
    }
}
