//! The part of a run that is decided before anything executes, shared by the local runner
//! and the Slurm path: settings completed and checked, the metric and command parsed, the
//! binaries under test found, and the store's header.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::command::CommandTemplate;
use super::environment::PAD_VARIABLE;
use super::execution::unix_now;
use super::host::{detect_conditions, detect_host};
use super::metric::MetricSpec;
use super::preflight::which;
use super::schedule::{plan_schedule, ScheduleShape, Slot};
use super::settings::{resolve, RunRequest, RunSettings};
use super::targets::{plan_targets, Target};
use crate::files::manifest::Manifest;
use crate::files::store::{Header, RESULTS_SCHEMA};

/// A run's plan: what every execution of it shares.
pub(crate) struct PreparedRun {
    /// The settings actually used.
    pub(crate) settings: RunSettings,
    /// The parsed metric.
    pub(crate) metric: MetricSpec,
    /// The parsed command.
    pub(crate) template: CommandTemplate,
    /// Programs under test.
    pub(crate) programs: Vec<String>,
    /// One target per (program, variant, binary): see [`PreparedRun::target`].
    pub(crate) targets: Vec<Target>,
    /// Binary labels in target order.
    pub(crate) binary_labels: Vec<String>,
    /// Names of the variants in build order; empty without variants.
    pub(crate) variants: Vec<String>,
    /// `--cases`: the pattern a suite's cases must match to be kept.
    pub(crate) cases: Option<regex::Regex>,
}

/// Resolves `req` (against `previous`, the header of the run being resumed) and checks
/// everything that can be checked before the first execution.
pub(crate) fn prepare_run(
    req: &RunRequest,
    previous: Option<&crate::files::trust::Verified<Header>>,
    manifest: &Manifest,
    out: &Path,
) -> Result<PreparedRun> {
    if req.resume && previous.is_none() && req.command.is_empty() {
        bail!(
            "--resume: {} holds no run to resume (no {} with a header): start the run with its \
             benchmark command after `--`",
            out.display(),
            crate::files::store::RESULTS_FILE
        );
    }
    let mut settings = resolve(req, previous)?;
    settings.check_limits()?;
    let metric = MetricSpec::parse(&settings.metric)?;
    if !metric.has_iterations() {
        // `--iterations 1` says what these metrics give anyway: one value per execution.
        if settings.iterations.is_some_and(|i| i != 1) || settings.warmup > 0 {
            bail!(
                "--iterations and --warmup need a program-reported metric (--metric regex:PATTERN, or a suite's: gbench, criterion, hyperfine@FILE, lines); --metric {} gives one value per execution",
                settings.metric
            );
        }
        settings.iterations = None;
    }
    if let (Some(i), w) = (settings.iterations, settings.warmup) {
        if w >= i {
            bail!("--warmup {w} leaves none of the {i} iterations to measure");
        }
    }
    let template = CommandTemplate::parse(&settings.command)?;
    let (programs, targets) = plan_targets(manifest, out, &template, &settings)?;
    let mut binary_labels: Vec<String> = Vec::new();
    for t in &targets {
        if !binary_labels.contains(&t.binary) {
            binary_labels.push(t.binary.clone());
        }
    }
    let variants: Vec<String> = manifest.variants.iter().map(|v| v.name.clone()).collect();
    super::schedule::check_schedule_size(
        programs.len(),
        variants.len(),
        binary_labels.len(),
        settings.executions.saturating_mul(settings.data_seeds),
        settings.iterations.unwrap_or(1),
    )?;
    if let Some(h) = previous.filter(|h| h.variants != variants) {
        bail!(
            "--resume: the manifest's variants ({}) differ from the interrupted run's ({}); start a new run in another --out",
            variants.join(", "),
            h.variants.join(", ")
        );
    }
    if req.cache_sim.is_some() && !metric.uses_cachegrind() {
        bail!(
            "--cache-sim sets cachegrind's cache model: it needs --metric cachegrind (this run \
             measures {})",
            settings.metric
        );
    }
    let cases = cases_pattern(&settings, &metric)?;
    if metric.uses_cachegrind() && which("valgrind").is_none() {
        bail!(
            "--metric {} needs valgrind on PATH (apt-get install valgrind)",
            settings.metric
        );
    }
    Ok(PreparedRun {
        settings,
        metric,
        template,
        programs,
        targets,
        binary_labels,
        variants,
        cases,
    })
}

/// `--cases`, compiled: refused with a metric that has no cases, or when it is no regular
/// expression.
fn cases_pattern(settings: &RunSettings, metric: &MetricSpec) -> Result<Option<regex::Regex>> {
    let Some(pattern) = &settings.cases else {
        return Ok(None);
    };
    if !matches!(metric, MetricSpec::Suite(_) | MetricSpec::SuiteCounts(_)) {
        bail!(
            "--cases chooses a suite's cases: it needs a suite's metric (gbench, criterion, \
             hyperfine@FILE, lines, cachegrind:gbench, cachegrind:criterion); --metric {} has \
             none",
            settings.metric
        );
    }
    regex::Regex::new(pattern)
        .map(Some)
        .with_context(|| format!("--cases {pattern:?} is not a valid regular expression"))
}

impl PreparedRun {
    /// The target a slot of the schedule runs.
    pub(crate) fn target(&self, slot: &Slot) -> &Target {
        let variants = self.variants.len().max(1);
        &self.targets
            [(slot.program * variants + slot.variant) * self.binary_labels.len() + slot.binary]
    }

    /// The whole schedule of this run (see [`plan_schedule`]).
    pub(crate) fn schedule(&self) -> Vec<Slot> {
        let shape = ScheduleShape {
            programs: self.programs.len(),
            variants: self.variants.len().max(1),
            binaries: self.binary_labels.len(),
            executions: self.settings.executions,
            data_seeds: self.settings.data_seeds,
            vary_mmap_threshold: self.settings.vary_mmap_threshold,
        };
        plan_schedule(
            self.settings.schedule_design,
            shape,
            self.settings.schedule_seed,
            self.settings.env_pad_max,
        )
    }

    /// The header of a new store for this run.
    pub(crate) fn header(
        &self,
        manifest: &Manifest,
        aslr_disabled: bool,
        cwd: &Path,
        base_env: &[(String, String)],
    ) -> Header {
        let settings = &self.settings;
        Header {
            schema: RESULTS_SCHEMA,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            command: settings.command.clone(),
            programs: self.programs.clone(),
            binaries: self.binary_labels.clone(),
            variants: self.variants.clone(),
            metric: settings.metric.clone(),
            executions: settings.executions,
            iterations: match (self.metric.has_iterations(), settings.iterations) {
                (true, Some(i)) => i,
                (true, None) => 0,
                (false, _) => 1,
            },
            warmup: settings.warmup,
            env_pad_max: settings.env_pad_max,
            schedule_seed: settings.schedule_seed,
            data_seeds: settings.data_seeds,
            vary_mmap_threshold: settings.vary_mmap_threshold,
            cases: settings.cases.clone(),
            schedule_design: settings.schedule_design,
            timeout_seconds: settings.timeout.map(|t| t.as_secs_f64()),
            ok_exit_codes: settings.ok_exit_codes.clone(),
            aslr_disabled,
            host: detect_host(),
            started_unix: unix_now(),
            toolchain: manifest.toolchain.clone(),
            cwd: Some(cwd.display().to_string()),
            environment: base_env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            pad_variable: Some(PAD_VARIABLE.to_string()),
            conditions: Some(detect_conditions()),
            cache_model: settings.cache_model,
            valgrind_version: self
                .metric
                .uses_cachegrind()
                .then(valgrind_version)
                .flatten(),
        }
    }
}

/// The first line of `valgrind --version` (e.g. `valgrind-3.19.0`); `None` when valgrind
/// cannot be run.
pub(crate) fn valgrind_version() -> Option<String> {
    let out = crate::child::command("valgrind")
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next()?.trim();
    (out.status.success() && !line.is_empty()).then(|| line.to_string())
}
