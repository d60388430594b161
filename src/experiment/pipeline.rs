//! The stages of an experiment, each skipped when its output is already complete, so that
//! running the same command again after an interruption resumes where it stopped.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::config::{parse_percent, ExperimentConfig};
use super::growth::{fmt_share, Growth, GrowthLog};
use super::subprocess::{run_stage, run_stage_allowing, run_user_command};
use crate::analysis::answers::dimension::DEFAULT_TARGETS;
use crate::analysis::vocabulary::{Thresholds, DEFAULT_NEGLIGIBLE};
use crate::exit::Exit;
use crate::files::manifest::{BuildStatus, Manifest, MANIFEST_FILE};
use crate::files::store::RESULTS_FILE;
use crate::flags::build::BuildArgs;
use crate::flags::run::RunArgs;
use crate::flags::{DesignArgs, LimitArgs};
use crate::report::numfmt::counted;
use crate::report::Format;
use crate::run::command::CommandTemplate;

/// Which of Kalibera & Jones' two experiments to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The dimensioning experiment: generous counts at every level, ending with the table
    /// of repetitions needed per target precision.
    Initial,
    /// A real experiment with the counts given (from the initial experiment or the file).
    Real,
}

/// Defaults of the initial experiment (KJ §9.1 suggest 20–30 at each level; fewer at
/// lower levels keep it affordable).
const INITIAL_SEEDS: u32 = 20;
const INITIAL_EXECUTIONS: u32 = 5;
const INITIAL_ITERATIONS: u32 = 10;
/// Defaults of a real experiment given no counts.
const REAL_SEEDS: u32 = 5;
const REAL_EXECUTIONS: u32 = 3;

/// Runs the whole experiment described by `config` and returns the exit code.
///
/// `initial_dir` (real experiments only) is the directory of an initial experiment whose
/// dimensioning gives the repetition counts.
pub fn run_experiment(
    config: &ExperimentConfig,
    mode: Mode,
    budget: Option<Duration>,
    initial_dir: Option<&Path>,
) -> Result<i32> {
    config.validate()?;
    config.validate_limits()?;
    let started = Instant::now();
    let cwd = std::env::current_dir()?;
    let out = absolute(&cwd, &config.out_dir());
    crate::files::confined::ExperimentDir::create(&out)
        .with_context(|| format!("cannot create the output directory {}", out.display()))?;
    let workdir = fetch_source(config, &out, &cwd)?;
    let plan = Plan::resolve(
        config,
        mode,
        initial_dir.map(|d| absolute(&cwd, d)).as_deref(),
    )?;
    plan.announce();
    announce_variants(config);
    if !run_rounds(config, &plan, &out, &workdir, budget)? {
        crate::diagnostic!(
            "layoutrand experiment: the budget ran out; run the same command again to continue (exit status {})",
            Exit::StoppedEarly.code()
        );
        return Ok(Exit::StoppedEarly.code());
    }
    stage_header("report");
    report(config, &plan, &out)?;
    if mode == Mode::Initial {
        stage_header("dimension (Kalibera & Jones §9)");
        let mut targets = DEFAULT_TARGETS.to_vec();
        if let Some(p) = &config.target.precision {
            // The experiment's own target once, in its place among the defaults (a 1 %
            // target was a second 1 % row).
            targets.push(parse_percent(p)?);
            targets.sort_by(f64::total_cmp);
            targets.dedup();
        }
        let d = dimensioning(config, &out, &targets)?;
        crate::out!("{}", crate::report::render_dimension::render_text(&d));
    }
    crate::diagnostic!(
        "layoutrand experiment: done in {:.1} s; results in {}",
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(Exit::Complete.code())
}

/// Says which variants are compared (nothing without variants).
fn announce_variants(config: &ExperimentConfig) {
    if let Some((base, others)) = config.variants.split_first() {
        let others: Vec<&str> = others.iter().map(|v| v.name.as_str()).collect();
        crate::diagnostic!(
            "layoutrand experiment: variants {} (base) and {}, built with the same seeds and run in one interleaved schedule",
            base.name,
            others.join(", ")
        );
    }
}

/// Builds, checks and runs round after round, growing the number of binaries while the
/// growth rule (if any) asks for more; false when the budget ran out first.
fn run_rounds(
    config: &ExperimentConfig,
    plan: &Plan,
    out: &Path,
    workdir: &Path,
    budget: Option<Duration>,
) -> Result<bool> {
    let mut binaries = plan.binaries;
    let mut growth_log = plan
        .growth
        .as_ref()
        .map(|g| GrowthLog::new(g, plan.binaries));
    if let Some(log) = &growth_log {
        // Before the first analysis: the replay takes its horizon (the maximum) from it.
        log.save(out)?;
    }
    loop {
        if !run_round(config, plan, binaries, out, workdir, budget)? {
            return Ok(false);
        }
        let (Some(growth), Some(log)) = (&plan.growth, growth_log.as_mut()) else {
            break;
        };
        match grown_count(config, plan, growth, log, binaries, out)? {
            Some(next) => binaries = next,
            None => break,
        }
        log.save(out)?;
    }
    if let Some(log) = &growth_log {
        log.save(out)?;
        crate::diagnostic!(
            "layoutrand experiment: {}",
            crate::report::words::stopping::outcome(log)
        );
    }
    Ok(true)
}

/// One round: builds the first `binaries` binaries (those already built are kept),
/// checks them when asked, and runs them; false when the budget ran out.
fn run_round(
    config: &ExperimentConfig,
    plan: &Plan,
    binaries: u32,
    out: &Path,
    workdir: &Path,
    budget: Option<Duration>,
) -> Result<bool> {
    if config.variants.is_empty() {
        stage_header(&format!(
            "build {} in {}",
            counted(binaries, "randomised binary", "randomised binaries"),
            workdir.display()
        ));
        build(config, binaries, out, workdir)?;
    } else {
        super::variants::build_variants(config, binaries, out, workdir)?;
    }
    if let Some(check) = &config.check {
        stage_header("check every binary");
        check_binaries(&check.command, out, workdir)?;
    }
    stage_header("run");
    run(config, plan, out, workdir, budget)
}

/// After a round of `binaries`: records the watched sequences in `log` and returns the
/// number of binaries to grow to, or `None` when the growth rule says stop.
fn grown_count(
    config: &ExperimentConfig,
    plan: &Plan,
    growth: &Growth,
    log: &mut GrowthLog,
    binaries: u32,
    out: &Path,
) -> Result<Option<u32>> {
    let watched = watched_sequences(config, plan, out, growth.target)?;
    log.record(&watched);
    let sequences: Vec<_> = watched.into_iter().map(|(_, s)| s).collect();
    let next = log.next_count(growth, binaries, &sequences);
    if let Some(next) = next {
        crate::diagnostic!(
            "layoutrand experiment: repeated interval's relative half-width {} with {binaries} binaries (the widest watched; looked at after each from {}), target {}: growing to {next} binaries",
            fmt_share(log.rounds.last().and_then(|r| r.relative_half_width)),
            crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS,
            fmt_share(Some(growth.target)),
        );
    }
    Ok(next)
}

/// The repetition counts an experiment uses.
#[derive(Debug, Clone)]
struct Plan {
    /// Randomised binaries to start with.
    binaries: u32,
    executions: u32,
    /// Iterations per execution (program-reported metrics only).
    iterations: Option<u32>,
    warmup: Option<u32>,
    metric: String,
    /// Growing the top level on-line, when asked for.
    growth: Option<Growth>,
    /// Where the counts came from, in words.
    source: String,
}

impl Plan {
    fn resolve(config: &ExperimentConfig, mode: Mode, initial_dir: Option<&Path>) -> Result<Plan> {
        let metric = config.run.metric.clone().unwrap_or_else(|| "wall".into());
        let reported = crate::files::metric::is_reported_spec(&metric);
        // Each mode's defaults for what the file and the flags leave open.
        let (seeds, executions, source) = match mode {
            Mode::Initial => (
                INITIAL_SEEDS,
                INITIAL_EXECUTIONS,
                "initial experiment (Kalibera & Jones §9.1)",
            ),
            Mode::Real => (
                REAL_SEEDS,
                REAL_EXECUTIONS,
                "the experiment file and command line",
            ),
        };
        let mut plan = Plan {
            binaries: config.build.seeds.unwrap_or(seeds),
            executions: config.run.executions.unwrap_or(executions),
            // A suite reports as many repetitions per case as it does unless told.
            iterations: match crate::run::metric::is_suite_spec(&metric) {
                true => config.run.iterations,
                false => reported.then(|| config.run.iterations.unwrap_or(INITIAL_ITERATIONS)),
            },
            warmup: config.run.warmup,
            metric,
            growth: None,
            source: source.into(),
        };
        if mode == Mode::Real {
            let target = config
                .target
                .precision
                .as_deref()
                .map(parse_percent)
                .transpose()?;
            if let Some(dir) = initial_dir {
                plan.apply_dimensioning(config, dir, target)?;
            }
            if let (Some(target), Some(max)) = (target, config.target.max_binaries) {
                if max < plan.binaries {
                    if config.build.seeds.is_some() {
                        bail!(
                            "[target] max_binaries = {max} is below the {} binaries the experiment starts with ([build] seeds)",
                            plan.binaries
                        );
                    }
                    crate::diagnostic!(
                        "layoutrand experiment: warning: the target needs about {} binaries but at most {max} are allowed; starting with {max}",
                        plan.binaries
                    );
                    plan.binaries = max;
                }
                plan.growth = Some(Growth {
                    target,
                    confidence: confidence(config),
                    max_binaries: max,
                    metric: crate::run::metric::primary_name_of_spec(&plan.metric).to_string(),
                });
            }
        }
        Ok(plan)
    }

    /// Takes the lower levels' optimal counts (eq. 3) and the starting number of binaries
    /// for the target precision from `layoutrand dimension` of the initial experiment.
    fn apply_dimensioning(
        &mut self,
        config: &ExperimentConfig,
        initial_dir: &Path,
        target: Option<f64>,
    ) -> Result<()> {
        // The library, not a child process: typed results, so a renamed field is a compile
        // error instead of a silent fall-back to default counts.
        let targets = target.map_or_else(|| DEFAULT_TARGETS.to_vec(), |t| vec![t]);
        let dimensioning = dimensioning(config, initial_dir, &targets)?;
        let metric = crate::run::metric::primary_name_of_spec(&self.metric);
        let series = dimensioning
            .series
            .iter()
            .find(|s| s.metric == metric)
            .with_context(|| {
                format!(
                    "the initial experiment in {} has no {metric} measurements to dimension from",
                    initial_dir.display()
                )
            })?;
        let optimal = |level: &str| -> Result<Option<u32>> {
            let Some(count) = series
                .levels
                .iter()
                .find(|l| l.name == level)
                .and_then(|l| l.optimal)
            else {
                return Ok(None);
            };
            match u32::try_from(count.max(1)) {
                Ok(n) if n <= MAX_PLANNED_REPETITIONS => Ok(Some(n)),
                _ => bail!(
                    "the initial experiment in {} gives an optimal {count} {level}s per unit above (Kalibera & Jones eq. 3), more than the {MAX_PLANNED_REPETITIONS} this pipeline plans: the level above adds almost no variance, or a cost is wrong; set `{level}s` in [run] of the experiment file",
                    initial_dir.display()
                ),
            }
        };
        if config.run.executions.is_none() {
            if let Some(e) = optimal("execution")? {
                self.executions = e;
            }
        }
        if self.iterations.is_some() && config.run.iterations.is_none() {
            if let Some(i) = optimal("iteration")? {
                // The optimal count is of live iterations; the warmup comes on top.
                self.iterations = Some(i.saturating_add(config.run.warmup.unwrap_or(0)));
            }
        }
        if let (Some(t), None) = (target, config.build.seeds) {
            let row = series.rows.iter().find(|r| (r.target - t).abs() < 1e-12);
            match row.and_then(|r| r.top_repetitions) {
                Some(n) => {
                    self.binaries = u32::try_from(n).unwrap_or(u32::MAX).max(REAL_SEEDS)
                }
                None => crate::diagnostic!(
                    "layoutrand experiment: warning: the initial experiment says {} is not reachable with up to 1000 binaries; starting with {} and growing up to the maximum",
                    fmt_share(Some(t)),
                    self.binaries
                ),
            }
        }
        self.source = format!(
            "dimensioning of the initial experiment in {}",
            initial_dir.display()
        );
        Ok(())
    }

    fn announce(&self) {
        let iterations = match self.iterations {
            Some(i) => format!(" × {}", counted(i, "iteration", "iterations")),
            None => String::new(),
        };
        crate::diagnostic!(
            "layoutrand experiment: {} × {}{iterations}, metric {} (counts from {})",
            counted(self.binaries, "binary", "binaries"),
            counted(self.executions, "execution", "executions"),
            self.metric,
            self.source
        );
        if let Some(g) = &self.growth {
            crate::diagnostic!(
                "layoutrand experiment: the top level grows until the {} repeated t interval (valid at every look, one after each binary from 5 to the maximum) has a relative half-width of at most {} or, comparing variants, every comparison reaches a verdict, up to {} binaries",
                crate::report::numfmt::level(g.confidence),
                fmt_share(Some(g.target)),
                g.max_binaries
            );
        }
    }
}

fn stage_header(what: &str) {
    crate::diagnostic!("\n== layoutrand experiment: {what} ==");
}

/// The most executions per binary, or iterations per execution, the pipeline takes from the
/// initial experiment's eq. 3 without the user saying so: more means a plan of days.
const MAX_PLANNED_REPETITIONS: u32 = 100_000;

/// Fetches the source (once: a marker file records completion) and runs the prepare
/// commands; returns the directory in which to build and run.
fn fetch_source(config: &ExperimentConfig, out: &Path, cwd: &Path) -> Result<PathBuf> {
    let Some(source) = &config.source else {
        return Ok(cwd.to_path_buf());
    };
    let mut root = cwd.to_path_buf();
    if let Some(package) = &source.debian {
        let dest = out.join("source");
        let unpacked = dest.join("src");
        let marker = dest.join(".layoutrand-fetched");
        crate::files::confined::refuse_link_at(&marker)?;
        if !marker.exists() {
            stage_header(&format!("fetch Debian source package {package}"));
            let script = write_debian_source_script(out)?;
            let mut argv = vec!["bash".to_string(), script.display().to_string()];
            if source.patches == Some(false) {
                argv.push("--skip-patches".into());
            }
            argv.extend([package.clone(), dest.display().to_string()]);
            let (ok, output) = run_user_command(&argv, cwd, &BTreeMap::new())?;
            if !ok {
                bail!("fetching Debian source package {package} failed:\n{output}");
            }
            let (dir, name) = crate::files::confined::parent_of(&marker)?;
            dir.write_atomic(name, package.as_bytes())?;
        }
        root = unpacked;
    }
    let workdir = match &source.subdir {
        Some(sub) => root.join(sub),
        None => root,
    };
    let prepared = out.join(".layoutrand-prepared");
    crate::files::confined::refuse_link_at(&prepared)?;
    if !source.prepare.is_empty() && !prepared.exists() {
        stage_header("prepare");
        for argv in &source.prepare {
            let (ok, output) = run_user_command(argv, &workdir, &BTreeMap::new())?;
            if !ok {
                bail!(
                    "prepare command {argv:?} failed in {}:\n{output}",
                    workdir.display()
                );
            }
        }
        // Created afresh, never through a planted (perhaps dangling) link.
        crate::files::confined::create_fresh_file(&prepared)
            .with_context(|| format!("cannot create {}", prepared.display()))?;
    }
    Ok(workdir)
}

/// The Debian source fetcher shipped in `recipes/`, compiled into the executable so that an
/// installed `layoutrand` (no source checkout beside it) fetches sources the same way.
const DEBIAN_SOURCE_SCRIPT: &str = include_str!("../../recipes/debian-source.sh");

/// Writes the compiled-in fetcher into `dir` and returns its path.
fn write_debian_source_script(dir: &Path) -> Result<PathBuf> {
    let path = dir.join(".layoutrand-debian-source.sh");
    crate::files::confined::ExperimentDir::open(dir)?.write_atomic(
        ".layoutrand-debian-source.sh",
        DEBIAN_SOURCE_SCRIPT.as_bytes(),
    )?;
    Ok(path)
}

fn build(config: &ExperimentConfig, seeds: u32, out: &Path, workdir: &Path) -> Result<()> {
    let existing = Manifest::load(out).ok();
    if let Some(manifest) = &existing {
        if manifest.build_command != config.build.command {
            bail!(
                "{} holds a build of another command ({:?}); use another output directory",
                out.join(MANIFEST_FILE).display(),
                manifest.build_command
            );
        }
        crate::relink::source_tree::reuse_only_from(out, manifest, workdir, true)?;
        if manifest.seeds.len() as u32 >= seeds {
            crate::diagnostic!(
                "layoutrand experiment: {} already holds {} seeds; not rebuilding",
                out.join(MANIFEST_FILE).display(),
                manifest.seeds.len()
            );
            return Ok(());
        }
    }
    let args = BuildArgs {
        seeds: Some(u64::from(seeds)),
        out: out.to_path_buf(),
        // New seeds are relinked from the recording; the built ones stay as they are.
        extend: existing.is_some(),
        trust: existing.is_some() && config.trust,
        command: config.build.command.clone(),
        ..config.stage_build_args()
    };
    run_stage("build", &args.to_argv(), workdir, &BTreeMap::new())
}

/// Runs the check command against every successfully built binary of every variant; fails
/// naming every binary whose check failed.
fn check_binaries(command: &[String], out: &Path, workdir: &Path) -> Result<()> {
    let manifest = Manifest::load(out)?;
    let mut failures = Vec::new();
    let mut checked = 0;
    for (variant, build) in manifest.variant_builds() {
        for set in build.binary_sets().filter(|v| v.status == BuildStatus::Ok) {
            let argv = expand_bins(command, set, out)?;
            let (ok, output) = run_user_command(&argv, workdir, &BTreeMap::new())?;
            checked += 1;
            if !ok {
                let label = match variant {
                    Some(v) => format!("{v} {}", set.label()),
                    None => set.label(),
                };
                failures.push(format!("{label}: {argv:?} failed:\n{output}"));
            }
        }
    }
    if !failures.is_empty() {
        bail!(
            "{} of {checked} binaries failed the check:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
    crate::diagnostic!("layoutrand experiment: all {checked} binaries pass the check");
    Ok(())
}

/// Replaces `{bin}` (the only program) and `{bin:NAME}` by the absolute paths of `set`'s
/// binaries, with the runner's own template.
fn expand_bins(
    command: &[String],
    set: &crate::files::manifest::BinarySet,
    out: &Path,
) -> Result<Vec<OsString>> {
    use crate::run::targets::binary_inside;
    let template = CommandTemplate::parse(command)?;
    let mut named = BTreeMap::new();
    for name in &template.named {
        let binary = set
            .binaries
            .iter()
            .find(|b| &b.name == name)
            .with_context(|| {
                format!(
                    "{{bin:{name}}}: {} has no program named {name}",
                    set.label()
                )
            })?;
        let path = binary_inside(out, &binary.path, "program", name, &set.label())?;
        named.insert(name.clone(), path);
    }
    let bin = match (template.uses_bin, set.binaries.as_slice()) {
        (false, _) => None,
        (true, [only]) => Some(binary_inside(
            out,
            &only.path,
            "program",
            &only.name,
            &set.label(),
        )?),
        (true, many) => bail!(
            "{{bin}} is ambiguous: the build made {} programs ({}); use {{bin:NAME}}",
            many.len(),
            many.iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Ok(template.expand(bin.as_ref(), &named, None))
}

/// Runs (or resumes) the measurements; returns false when the budget stopped them early.
fn run(
    config: &ExperimentConfig,
    plan: &Plan,
    out: &Path,
    workdir: &Path,
    budget: Option<Duration>,
) -> Result<bool> {
    let (iterations, warmup) = match plan.iterations {
        Some(i) => (Some(i), plan.warmup),
        None => {
            let suite = crate::run::metric::is_suite_spec(&plan.metric);
            if !suite
                && (config.run.iterations.unwrap_or(1) > 1 || config.run.warmup.unwrap_or(0) > 0)
            {
                crate::diagnostic!(
                    "layoutrand experiment: note: metric {} gives one value per execution; the iterations and warmup settings apply to program-reported (regex:) metrics only and are ignored",
                    plan.metric
                );
            }
            (None, plan.warmup.filter(|_| suite))
        }
    };
    let timeout = config
        .run
        .timeout
        .map(crate::units::duration_from_seconds)
        .transpose()
        .context("[run] timeout")?;
    let wait_for_quiet = config
        .run
        .wait_for_quiet
        .map(crate::units::duration_from_seconds)
        .transpose()
        .context("[run] wait_for_quiet")?;
    let args = RunArgs {
        out: out.to_path_buf(),
        programs: (!config.run.programs.is_empty()).then(|| config.run.programs.clone()),
        design: DesignArgs {
            executions: Some(plan.executions),
            iterations,
            warmup,
            metric: Some(plan.metric.clone()),
            ok_exit_codes: config.run.ok_exit_codes.clone(),
        },
        limits: LimitArgs {
            timeout,
            budget,
            wait_for_quiet,
        },
        data_seeds: config.run.data_seeds,
        vary_mmap_threshold: config.run.vary_mmap_threshold,
        jobs: config.run.jobs,
        cache_sim: config.cache_model()?,
        cases: config.run.cases.clone(),
        resume: out.join(RESULTS_FILE).exists(),
        trust: out.join(RESULTS_FILE).exists() && config.trust,
        command: config.run.command.clone(),
        ..RunArgs::default()
    };
    let stopped = Exit::StoppedEarly.code();
    let code = run_stage_allowing(
        "run",
        &args.to_argv(),
        workdir,
        &BTreeMap::new(),
        &[stopped],
    )?;
    Ok(code != stopped && run_is_complete(out, plan.executions)?)
}

/// True when every planned execution of every binary (of every variant) in the manifest is
/// in the store.
pub(super) fn run_is_complete(out: &Path, executions: u32) -> Result<bool> {
    let manifest = Manifest::load(out)?;
    let results = crate::files::store::read_results(out)?;
    let programs = results
        .header
        .as_ref()
        .map_or(1, |h| h.programs.len().max(1));
    let expected = manifest
        .variant_builds()
        .iter()
        .flat_map(|(_, build)| build.binary_sets())
        .filter(|v| v.status == BuildStatus::Ok)
        .count()
        * programs
        * executions as usize
        * results.header.as_ref().map_or(1, |h| h.data_seeds.max(1)) as usize;
    Ok(results.executions.len() >= expected)
}

/// The confidence sequences the growth rule watches (`report --sequential` on the data so
/// far, the same replay), labelled: without variants, the first program's series of the
/// run's metric (or the one `[run] programs` names first); with `[[variant]]`, each
/// comparison of that metric against the base (Bonferroni-adjusted with more than two
/// variants), which stops on a verdict as well as on the target. Empty when none can be
/// computed yet.
fn watched_sequences(
    config: &ExperimentConfig,
    plan: &Plan,
    out: &Path,
    target: f64,
) -> Result<Vec<(String, crate::analysis::sequential::Sequential)>> {
    let experiment = crate::analysis::answers::experiment::load_with_context(out)?;
    let options = crate::analysis::answers::builder::AnalysisOptions {
        thresholds: thresholds(config)?,
        sequential: Some(target),
        ..Default::default()
    };
    let report = crate::analysis::answers::builder::analyse_with(&experiment, &options)?;
    let metric = crate::run::metric::primary_name_of_spec(&plan.metric);
    let program_ok = |p: &String| config.run.programs.first().is_none_or(|first| p == first);
    if !config.variants.is_empty() {
        // The first program the comparisons name, so one program is watched as without
        // variants.
        let first = report
            .comparisons
            .iter()
            .find(|c| c.metric == metric && program_ok(&c.program))
            .map(|c| c.program.clone());
        // A comparison whose sequence cannot be computed yet leaves nothing watched rather
        // than letting the others stop the experiment without it.
        let watched: Option<Vec<_>> = report
            .comparisons
            .iter()
            .filter(|c| c.metric == metric && Some(&c.program) == first.as_ref())
            .map(|c| {
                let label = format!("{} against {} ({} {})", c.new, c.base, c.program, c.metric);
                c.sequential.clone().map(|s| (label, s))
            })
            .collect();
        return Ok(watched.unwrap_or_default());
    }
    let series = report
        .series
        .iter()
        .find(|s| s.metric == metric && program_ok(&s.program));
    Ok(series
        .and_then(|s| {
            let label = format!("{} {}", s.program, s.metric);
            s.sequential.clone().map(|q| (label, q))
        })
        .into_iter()
        .collect())
}

/// The experiment's `[target] confidence` (0.95 by default).
fn confidence(config: &ExperimentConfig) -> f64 {
    config.target.confidence.unwrap_or(0.95)
}

/// The experiment's thresholds: its confidence and the default relevance.
fn thresholds(config: &ExperimentConfig) -> Result<Thresholds> {
    Thresholds::new(confidence(config), DEFAULT_NEGLIGIBLE)
}

/// Dimensions the experiment in `dir` for `targets` at the experiment's confidence, with the
/// measured costs (Kalibera & Jones §9): the library's `layoutrand dimension`.
fn dimensioning(
    config: &ExperimentConfig,
    dir: &Path,
    targets: &[f64],
) -> Result<crate::analysis::answers::dimension::DimensionReport> {
    let experiment = crate::analysis::answers::experiment::load_with_context(dir)?;
    crate::analysis::answers::dimension::dimension(
        &experiment,
        crate::analysis::answers::dimension::CostOverrides::default(),
        targets,
        confidence(config),
    )
}

/// Writes the HTML and JSON reports (every metric) and prints the text report of the
/// experiment's own metric (the others are one `layoutrand report OUT` away).
fn report(config: &ExperimentConfig, plan: &Plan, out: &Path) -> Result<()> {
    // A grown experiment is reported with the sequences its rule watched: their intervals
    // are the ones valid at the look where it stopped.
    let options = crate::analysis::answers::builder::AnalysisOptions {
        thresholds: thresholds(config)?,
        sequential: plan.growth.as_ref().map(|g| g.target),
        ..Default::default()
    };
    let render = |format, metrics: &[String]| {
        crate::report::render_gated_report(out, format, &options, metrics).map(|(t, _)| t)
    };
    for (format, file) in [(Format::Html, "report.html"), (Format::Json, "report.json")] {
        let text = render(format, &[])?;
        crate::files::write_atomically(&out.join(file), text.as_bytes())?;
    }
    let primary = crate::run::metric::primary_name_of_spec(&plan.metric);
    // A suite's cases are all primary: the text shows every metric.
    let shown: Vec<String> = match primary {
        crate::run::metric::SUITE_CASES => Vec::new(),
        _ => vec![primary.to_string()],
    };
    let text = render(Format::Text, &shown)?;
    crate::out!("{text}");
    let shows = match shown.is_empty() {
        true => "the text above shows every metric too".to_string(),
        false => format!(
            "the text above shows {primary}, `layoutrand report {}` shows all",
            out.display()
        ),
    };
    crate::diagnostic!(
        "layoutrand experiment: wrote {} and {} (every metric; {shows})",
        out.join("report.html").display(),
        out.join("report.json").display(),
    );
    Ok(())
}

fn absolute(cwd: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}
