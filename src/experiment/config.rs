//! The experiment file (`experiment.toml`): one place naming the source, the build, the run,
//! the check and the target precision of a whole experiment. Every key can also be given on
//! the command line; the command line wins.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Deserializer, Serialize};

use crate::flags::build::{GranularityArg, LinkerArg};

/// A whole experiment, as read from TOML (all sections optional until validated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// Short name, used for the default output directory.
    #[serde(default)]
    pub name: Option<String>,
    /// Output directory (manifest, binaries, results, reports). Relative paths are taken
    /// from the directory the command runs in.
    #[serde(default)]
    pub out: Option<PathBuf>,
    /// Where the program's source comes from; absent means "the current directory".
    #[serde(default)]
    pub source: Option<SourceConfig>,
    /// How to build the program.
    #[serde(default)]
    pub build: BuildConfig,
    /// `[[variant]]` tables: versions of the program compared in one interleaved experiment
    /// (each built with `build --variant NAME`, all with the same seeds); the first is the
    /// base every other one is compared with. Empty: one program, built by `[build] command`.
    #[serde(default, rename = "variant")]
    pub variants: Vec<VariantConfig>,
    /// How to run it.
    #[serde(default)]
    pub run: RunConfig,
    /// How to check that each binary still works.
    #[serde(default)]
    pub check: Option<CheckConfig>,
    /// The precision to reach.
    #[serde(default)]
    pub target: TargetConfig,
    /// The directory this file was read from (not a TOML key).
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// `experiment --trust`: the stages may resume and extend an output directory that is
    /// not this user's own. Never a TOML key: a received experiment file cannot grant it.
    #[serde(skip)]
    pub trust: bool,
}

/// `[source]`: fetch the program's source before building.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SourceConfig {
    /// A Debian source package, fetched with `recipes/debian-source.sh` into `OUT/source`.
    pub(crate) debian: Option<String>,
    /// Apply Debian's patches (default true); `false` unpacks the upstream source as is.
    pub(crate) patches: Option<bool>,
    /// Subdirectory of the unpacked source in which to build and run.
    pub(crate) subdir: Option<PathBuf>,
    /// Commands run once in the build directory after fetching (e.g. generating inputs).
    pub(crate) prepare: Vec<Vec<String>>,
}

/// `[build]`: arguments of `layoutrand build`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BuildConfig {
    /// The build command (argv), e.g. `["make", "-j2"]`.
    pub command: Vec<String>,
    /// Number of randomised binaries (the top level) of the initial experiment, or the
    /// starting count of a real one.
    pub seeds: Option<u32>,
    /// `link`, `module`, `global` or `none` (padding only: needs `pad`): `build
    /// --granularity`'s own type and spelling.
    pub granularity: Option<GranularityArg>,
    /// `auto`, `bfd`, `gold`, `lld` or `mold`: `build --linker`'s own type and spelling.
    pub linker: Option<LinkerArg>,
    /// `build --pad`: the most filler bytes before each function (0 or absent: none).
    pub pad: Option<u64>,
    /// `build --data-order`: each seed also permutes the static data (absent or false: not).
    pub data_order: Option<bool>,
    /// `build --keep-debug`: the relinks keep the debug information (absent or false: left
    /// out).
    pub keep_debug: Option<bool>,
    /// `build --pin`: a pin file (`layoutrand pin`) fixing the hot functions' placement in
    /// every seed, relative to the experiment file's directory.
    pub pin: Option<PathBuf>,
}

/// `[[variant]]`: one version of the program (other flags, compiler or sources).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariantConfig {
    /// The variant's name (`build --variant NAME`; its binaries go to `OUT/NAME/`).
    pub name: String,
    /// Its build command (argv), e.g. `["make", "CFLAGS=-O3"]`.
    pub command: Vec<String>,
    /// Environment variables set for its prepare and build commands (not for the runs: all
    /// variants run in the runner's one environment, so that only the build differs).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Commands run in `dir` before each build of this variant (e.g. `[["make", "clean"]]`,
    /// so that the build compiles again with the variant's flags).
    #[serde(default)]
    pub prepare: Vec<Vec<String>>,
    /// Working directory of its prepare and build commands, relative to the experiment
    /// file's directory; absent: the experiment's build directory (the fetched source, or
    /// the current directory).
    #[serde(default)]
    pub dir: Option<PathBuf>,
}

/// `[run]`: arguments of `layoutrand run`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// The benchmark command with `{bin}` / `{bin:NAME}` placeholders.
    pub command: Vec<String>,
    /// Programs (binary names) to run, when the build made several.
    pub programs: Vec<String>,
    /// `wall`, `cpu`, `cachegrind` or `regex:PATTERN`.
    pub metric: Option<String>,
    /// Executions per binary (with `data_seeds`: per binary and data seed).
    pub executions: Option<u32>,
    /// Data seeds per binary (`layoutrand run --data-seeds`): each binary runs with this
    /// many seeded data layouts; absent: 1, the padding drawn per execution.
    pub data_seeds: Option<u32>,
    /// With `data_seeds` of 2 or more: each data seed also sets malloc's mmap threshold to
    /// one of two levels (`layoutrand run --vary-mmap-threshold`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub vary_mmap_threshold: bool,
    /// Iterations per execution (with a `regex:` metric).
    pub iterations: Option<u32>,
    /// Warmup iterations dropped at the start of each execution.
    pub warmup: Option<u32>,
    /// Per-execution timeout in seconds: a number (`90`, `2.5`) or, as `run --timeout`
    /// takes it, a duration (`"90s"`, `"2m"`).
    #[serde(deserialize_with = "seconds_or_duration")]
    pub timeout: Option<f64>,
    /// Before each execution, wait at most this long for a quiet host (`layoutrand run
    /// --wait-for-quiet`), in seconds or as a duration, as `timeout`.
    #[serde(default, deserialize_with = "seconds_or_duration")]
    pub wait_for_quiet: Option<f64>,
    /// Executions at once (`layoutrand run --jobs`): only for a deterministic metric
    /// (cachegrind), whose values do not depend on what else runs; absent: the runner's
    /// default (the number of cores for cachegrind, else 1).
    pub jobs: Option<usize>,
    /// With `metric = "cachegrind"`: the caches to simulate, as `run --cache-sim` takes
    /// them (`"I1=4096,2,64"`; a cache left out keeps the default).
    pub cache_sim: Option<String>,
    /// With a suite's metric: the cases kept, a regular expression matched against their
    /// names (`layoutrand run --cases`).
    pub cases: Option<String>,
    /// Exit codes besides 0 with which an execution still ends ok (`layoutrand run
    /// --ok-exit-codes`): `[10, 20]` for a SAT solver, 1 to 255 each.
    pub ok_exit_codes: Vec<i32>,
}

/// `[check]`: a command run once per binary that must exit 0 (the program's own test).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// The check command, with `{bin}` / `{bin:NAME}` placeholders.
    pub command: Vec<String>,
}

/// `[target]`: when to stop growing the top level.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TargetConfig {
    /// Target relative half-width of the confidence interval, e.g. `"1%"`.
    pub precision: Option<String>,
    /// Upper bound of the number of randomised binaries in a real experiment.
    pub max_binaries: Option<u32>,
    /// Confidence level, default 0.95.
    pub confidence: Option<f64>,
}

impl ExperimentConfig {
    /// Reads an experiment file; errors name the file and the offending key.
    pub fn load(path: &Path) -> Result<ExperimentConfig> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read experiment file {}", path.display()))?;
        let mut config: ExperimentConfig = toml::from_str(&text)
            .with_context(|| format!("{} is not a valid experiment file", path.display()))?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        config.base_dir = std::fs::canonicalize(&parent).unwrap_or(parent);
        config.substitute_recipe_dir();
        Ok(config)
    }

    /// Replaces `{recipe}` in every command by the directory of the experiment file, so a
    /// recipe can name its own scripts wherever it is run from, and `{layoutrand}` by this
    /// executable's path (a CMake configure in `[source] prepare` names it as its compiler
    /// and linker launcher); inside a shell script (`sh -c`) each is quoted, so any path works.
    fn substitute_recipe_dir(&mut self) {
        let dir = self.base_dir.display().to_string();
        let me = super::subprocess::own_executable().display().to_string();
        let fix = |argv: &mut Vec<String>| {
            crate::run::command::substitute_text(argv, "{recipe}", &dir);
            crate::run::command::substitute_text(argv, "{layoutrand}", &me);
        };
        fix(&mut self.run.command);
        if let Some(check) = &mut self.check {
            fix(&mut check.command);
        }
        if let Some(source) = &mut self.source {
            source.prepare.iter_mut().for_each(fix);
        }
        for variant in &mut self.variants {
            fix(&mut variant.command);
            variant.prepare.iter_mut().for_each(fix);
        }
    }

    /// Checks that the experiment can start; says which key is missing or wrong.
    pub fn validate(&self) -> Result<()> {
        self.validate_paths()?;
        if self.variants.is_empty() {
            if self.build.command.is_empty() {
                bail!(
                    "no build command: set [build] command = [...], pass --build-cmd, or give \
                     [[variant]] tables"
                );
            }
        } else {
            self.validate_variants()?;
        }
        if self.run.command.is_empty() {
            bail!("no run command: set [run] command = [...] or pass --run-cmd");
        }
        if let Some(c) = self
            .run
            .ok_exit_codes
            .iter()
            .find(|c| !(1..=255).contains(*c))
        {
            bail!("[run] ok_exit_codes: {c} is not an exit code besides 0 (1 to 255)");
        }
        if !self.run.command.iter().any(|a| a.contains("{bin")) {
            bail!(
                "the run command {:?} has no {{bin}} placeholder: layoutrand would not know where to put the binary under test",
                self.run.command
            );
        }
        if let Some(check) = &self.check {
            if check.command.is_empty() {
                bail!("[check] command is empty");
            }
        }
        if let Some(p) = &self.target.precision {
            parse_percent(p).with_context(|| format!("[target] precision = {p:?}"))?;
        }
        if let Some(g) = self.build.granularity {
            if g == GranularityArg::None && self.build.pad.unwrap_or(0) == 0 {
                bail!(
                    "[build] granularity = \"none\" keeps the build's order: it needs pad = MAX \
                     (e.g. pad = 256), the seeded padding being all that varies"
                );
            }
        }
        if let Some(pad) = self.build.pad {
            if pad > crate::relink::driver::MAX_PAD {
                bail!(
                    "[build] pad = {pad}: at most {} bytes (a page)",
                    crate::relink::driver::MAX_PAD
                );
            }
        }
        if let Some(jobs) = self.run.jobs {
            // The runner's own rule, checked before the build so a wall-time experiment
            // with `jobs = 2` stops at once instead of after building every seed.
            let text = self.run.metric.as_deref().unwrap_or("wall");
            let metric = crate::run::metric::MetricSpec::parse(text)
                .with_context(|| format!("[run] metric = {text:?}"))?;
            crate::run::parallel::check_jobs(&metric, text, jobs, false)
                .with_context(|| format!("[run] jobs = {jobs}"))?;
        }
        if let Some(c) = self.target.confidence {
            if !(c > 0.0 && c < 1.0) {
                bail!("[target] confidence = {c}: expected a number between 0 and 1, e.g. 0.95");
            }
        }
        Ok(())
    }

    /// Checks the keys that become paths, before any work: `name` (the default output
    /// directory is `layoutrand-out/NAME`) is a single file name, so a received experiment
    /// file cannot send the experiment's files elsewhere (`name = "../../etc/x"`); and the
    /// output directory can hold the recorded objects (see
    /// [`crate::layout::reorder::check_output_dir`]), which `build` would otherwise find
    /// only after the recorded build.
    pub(crate) fn validate_paths(&self) -> Result<()> {
        if let Some(name) = &self.name {
            crate::files::confined::check_component(name, "name")
                .context("name: the experiment's name is one file name (it names its default output directory)")?;
        }
        let out = std::path::absolute(self.out_dir())
            .with_context(|| format!("cannot resolve {}", self.out_dir().display()))?;
        crate::layout::reorder::check_output_dir(&out).with_context(|| match &self.out {
            Some(_) => "out".to_string(),
            None => "name".to_string(),
        })?;
        Ok(())
    }

    /// Checks the `[[variant]]` tables: at least two, valid and distinct names, a command
    /// each, and no `[build] command` beside them.
    fn validate_variants(&self) -> Result<()> {
        if !self.build.command.is_empty() {
            bail!(
                "[build] command = {:?} and [[variant]] tables are both set: each variant is \
                 built by its own command; remove [build] command (and --build-cmd)",
                self.build.command
            );
        }
        if self.variants.len() < 2 {
            bail!(
                "a single [[variant]] ({:?}) compares nothing: add another, or build the program \
                 with [build] command",
                self.variants[0].name
            );
        }
        let mut seen = BTreeSet::new();
        for (i, v) in self.variants.iter().enumerate() {
            let at = format!("[[variant]] number {} (name = {:?})", i + 1, v.name);
            crate::relink::variant::check_name(&v.name).with_context(|| at.clone())?;
            if !seen.insert(v.name.as_str()) {
                bail!("{at}: the name is used by an earlier [[variant]]; names must differ");
            }
            if v.command.is_empty() {
                bail!("{at}: command is empty");
            }
            if let Some(empty) = v.prepare.iter().position(Vec::is_empty) {
                bail!("{at}: prepare command number {} is empty", empty + 1);
            }
            if let Some(key) = v
                .env
                .keys()
                .find(|k| k.is_empty() || k.contains(['=', '\0']))
            {
                bail!("{at}: env key {key:?} is not a variable name");
            }
        }
        Ok(())
    }

    /// The working directory of `variant`'s commands: its `dir` taken from the experiment
    /// file's directory, else `build_dir`.
    pub(crate) fn variant_dir(&self, variant: &VariantConfig, build_dir: &Path) -> PathBuf {
        match &variant.dir {
            Some(dir) => self.base_dir.join(dir),
            None => build_dir.to_path_buf(),
        }
    }

    /// The output directory: `out`, else `layoutrand-out/NAME`, else `layoutrand-out`.
    pub fn out_dir(&self) -> PathBuf {
        match (&self.out, &self.name) {
            (Some(out), _) => out.clone(),
            (None, Some(name)) => Path::new(crate::files::DEFAULT_DIR).join(name),
            (None, None) => PathBuf::from(crate::files::DEFAULT_DIR),
        }
    }

    /// Checks every count, duration and pattern of the file (and of the flags that
    /// overrode its keys) against the bounds `build` and `run` apply, so that a bad value
    /// stops the experiment before its build stage instead of after it: seeds and
    /// `max_binaries` (at most [`crate::relink::projection::MAX_SEEDS`]; `max_binaries` at
    /// most [`crate::stats::confidence_sequence::MAX_LOOKS`]), executions (1 to
    /// [`crate::run::settings::MAX_EXECUTIONS`]), iterations and warmup (at most
    /// [`crate::run::settings::MAX_ITERATIONS`], leaving an iteration to measure), the
    /// metric (a valid regular expression), the timeout (a positive duration of at most
    /// [`crate::units::MAX_DURATION`]) and the schedule's size.
    pub(crate) fn validate_limits(&self) -> Result<()> {
        self.validate_binaries()?;
        self.validate_run_counts()?;
        if let Some(t) = self.run.timeout {
            crate::units::duration_from_seconds(t).context("[run] timeout")?;
        }
        if let Some(t) = self.run.wait_for_quiet {
            crate::units::duration_from_seconds(t).context("[run] wait_for_quiet")?;
        }
        self.cache_model()?;
        // The schedule's size with the counts known now (programs are known after the
        // build, so this is a lower bound of what `run` will check).
        let binaries = self.build.seeds.max(self.target.max_binaries).unwrap_or(0) as usize + 1;
        crate::run::schedule::check_schedule_size(
            1,
            self.variants.len(),
            binaries,
            self.run
                .executions
                .unwrap_or(1)
                .saturating_mul(self.run.data_seeds.unwrap_or(1)),
            self.run.iterations.unwrap_or(1),
        )
        .context("[build] seeds × [run] executions × [run] iterations")?;
        Ok(())
    }

    /// `[run] cache_sim`, parsed by the one parser of `run --cache-sim`.
    pub(crate) fn cache_model(&self) -> Result<Option<crate::files::cache_model::CacheModel>> {
        self.run
            .cache_sim
            .as_deref()
            .map(crate::files::cache_model::CacheModel::parse)
            .transpose()
            .context("[run] cache_sim")
    }

    /// `[build] seeds` and `[target] max_binaries`: at least one binary, at most what a
    /// build makes and what the sequential rule is calibrated for.
    fn validate_binaries(&self) -> Result<()> {
        use crate::relink::projection::MAX_SEEDS;
        for (key, count) in [
            ("[build] seeds", self.build.seeds),
            ("[target] max_binaries", self.target.max_binaries),
        ] {
            if let Some(n) = count.filter(|&n| n as usize > MAX_SEEDS) {
                bail!("{key} = {n}: at most {MAX_SEEDS} randomised binaries");
            }
            if count == Some(0) {
                bail!(
                    "{key} = 0: with no randomised binary the experiment can never answer \
                     (at least 1, and 10 or more for a useful interval)"
                );
            }
        }
        // The growth's confidence sequence is calibrated for skewed layouts up to this horizon.
        let horizon = crate::stats::confidence_sequence::MAX_LOOKS;
        if let Some(n) = self.target.max_binaries.filter(|&n| n as usize > horizon) {
            bail!(
                "[target] max_binaries = {n}: the sequential rule's confidence sequence is calibrated for up to {horizon} binaries"
            );
        }
        Ok(())
    }

    /// `[run]`'s executions, data seeds, iterations and warmup within `run`'s bounds, the
    /// warmup leaving an iteration to measure, and the metric a valid pattern.
    fn validate_run_counts(&self) -> Result<()> {
        use crate::run::settings::{MAX_EXECUTIONS, MAX_ITERATIONS};
        if let Some(e) = self.run.executions {
            if e == 0 || e > MAX_EXECUTIONS {
                bail!("[run] executions = {e}: expected 1 to {MAX_EXECUTIONS} per binary");
            }
        }
        if let Some(k) = self.run.data_seeds {
            let max = crate::run::settings::MAX_DATA_SEEDS;
            if k == 0 || k > max {
                bail!("[run] data_seeds = {k}: expected 1 to {max} per binary");
            }
        }
        if self.run.vary_mmap_threshold && self.run.data_seeds.unwrap_or(1) < 2 {
            bail!(
                "[run] vary_mmap_threshold = true makes malloc's mmap threshold part of each \
                 data seed's layout: it needs data_seeds = 2 or more"
            );
        }
        if let Some(i) = self.run.iterations {
            if i == 0 || i > MAX_ITERATIONS {
                bail!("[run] iterations = {i}: expected 1 to {MAX_ITERATIONS} per execution");
            }
        }
        let metric = self.run.metric.as_deref().unwrap_or("wall");
        let spec = crate::run::metric::MetricSpec::parse(metric)
            .with_context(|| format!("[run] metric = {metric:?}"))?;
        if let Some(w) = self.run.warmup {
            if w > MAX_ITERATIONS {
                bail!("[run] warmup = {w}: at most {MAX_ITERATIONS} iterations");
            }
            // Metrics with one value per execution ignore iterations and warmup (the
            // pipeline says so in a note): a `--metric cachegrind` override of a file written
            // for a program-reported metric keeps working.
            if let Some(i) = self
                .run
                .iterations
                .filter(|&i| w >= i && spec.has_iterations())
            {
                bail!("[run] warmup = {w} leaves none of the {i} iterations to measure");
            }
        }
        let suite = matches!(
            spec,
            crate::run::metric::MetricSpec::Suite(_)
                | crate::run::metric::MetricSpec::SuiteCounts(_)
        );
        if let (true, Some(p)) = (suite, &self.target.precision) {
            // Growing until one interval is narrow enough has no one interval to watch in a
            // suite of many cases.
            bail!(
                "[target] precision = {p:?}: a suite ([run] metric = {metric:?}) has many cases \
                 and the experiment grows toward one metric's precision; leave [target] out \
                 and set [build] seeds"
            );
        }
        Ok(())
    }
}

pub use crate::units::parse_percent;

/// `[run] timeout`: a number of seconds, or a duration string read by the one duration
/// parser ([`crate::units::parse_duration`]), as `--timeout` reads it.
fn seconds_or_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Seconds {
        Number(f64),
        Text(String),
    }
    match Option::<Seconds>::deserialize(d)? {
        None => Ok(None),
        Some(Seconds::Number(s)) => Ok(Some(s)),
        Some(Seconds::Text(t)) => crate::units::parse_duration(&t)
            .map(|d| Some(d.as_secs_f64()))
            .map_err(|e| serde::de::Error::custom(format!("{e:#}"))),
    }
}

impl ExperimentConfig {
    /// The build stage's flags that the experiment file sets (`[build]` granularity, linker
    /// and pad, and the programs to relink), the same for every build of the experiment and
    /// of each of its variants.
    pub(super) fn stage_build_args(&self) -> crate::flags::build::BuildArgs {
        crate::flags::build::BuildArgs {
            granularity: self.build.granularity,
            linker: self
                .build
                .linker
                .unwrap_or(crate::flags::build::LinkerArg::Auto),
            pad: self.build.pad,
            data_order: self.build.data_order.unwrap_or(false),
            keep_debug: self.build.keep_debug.unwrap_or(false),
            pin: self.build.pin.as_ref().map(|p| self.base_dir.join(p)),
            programs: self.programs_to_relink(),
            ..crate::flags::build::BuildArgs::default()
        }
    }

    /// The programs each seed must relink when `[run] programs` names the ones measured:
    /// those, and any the run or check command names as `{bin:NAME}`. Relinking the others
    /// (a build's test programs, say) would only cost time: issue 36 measured leveldb's 33
    /// programs relinked per seed to run one. `None` (every program the build step's own
    /// rules pick) when `[run] programs` is not set, since then the run measures them all.
    fn programs_to_relink(&self) -> Option<Vec<String>> {
        if self.run.programs.is_empty() {
            return None;
        }
        let mut programs = self.run.programs.clone();
        let commands =
            std::iter::once(&self.run.command).chain(self.check.iter().map(|c| &c.command));
        for command in commands {
            if let Ok(template) = crate::run::command::CommandTemplate::parse(command) {
                programs.extend(template.named);
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        programs.retain(|p| seen.insert(p.clone()));
        Some(programs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36, item 12: an experiment that measures one program of many relinks that one
    /// (and any program its commands name), not every program of the build.
    #[test]
    fn the_build_relinks_the_programs_the_run_measures() {
        let mut c = ExperimentConfig::default();
        c.build.command = vec!["make".into()];
        c.run.command = vec!["{bin}".into(), "--with".into(), "{bin:helper}".into()];
        assert_eq!(c.stage_build_args().programs, None);
        c.run.programs = vec!["db_bench".into()];
        c.check = Some(CheckConfig {
            command: vec!["{bin:db_bench}".into(), "{bin:checker}".into()],
        });
        assert_eq!(
            c.stage_build_args().programs,
            Some(vec!["db_bench".into(), "helper".into(), "checker".into()])
        );
        let argv = c.stage_build_args().to_argv();
        let at = argv
            .iter()
            .position(|a| a == "--programs")
            .expect("--programs passed");
        assert_eq!(argv[at + 1], "db_bench,helper,checker");
    }

    /// Issue 22: `executions = 0` and a bad metric regex were found only after the build.
    #[test]
    fn counts_durations_and_patterns_are_checked_before_the_build() {
        let base = || {
            let mut c = ExperimentConfig::default();
            c.build.command = vec!["make".into()];
            c.run.command = vec!["{bin}".into()];
            c
        };
        assert!(base().validate_limits().is_ok());
        let refused = |edit: &dyn Fn(&mut ExperimentConfig), key: &str| {
            let mut c = base();
            edit(&mut c);
            let err = format!("{:#}", c.validate_limits().unwrap_err());
            assert!(err.contains(key), "{key}: {err}");
        };
        refused(&|c| c.run.executions = Some(0), "[run] executions = 0");
        refused(&|c| c.run.data_seeds = Some(0), "[run] data_seeds = 0");
        refused(
            &|c| c.run.vary_mmap_threshold = true,
            "[run] vary_mmap_threshold = true",
        );
        refused(
            &|c| c.run.data_seeds = Some(1001),
            "[run] data_seeds = 1001",
        );
        refused(&|c| c.run.executions = Some(4_000_000_000), "executions");
        refused(
            &|c| c.run.metric = Some("regex:([0-9".into()),
            "[run] metric",
        );
        refused(&|c| c.run.metric = Some("walltime".into()), "[run] metric");
        refused(&|c| c.run.timeout = Some(1e30), "[run] timeout");
        refused(&|c| c.run.timeout = Some(0.0), "[run] timeout");
        refused(
            &|c| c.run.wait_for_quiet = Some(-1.0),
            "[run] wait_for_quiet",
        );
        refused(&|c| c.run.iterations = Some(0), "[run] iterations");
        refused(
            &|c| {
                c.run.metric = Some(r"regex:time=(\d+)".into());
                c.run.iterations = Some(3);
                c.run.warmup = Some(3)
            },
            "[run] warmup",
        );
        refused(&|c| c.build.seeds = Some(u32::MAX), "[build] seeds");
        // Issue 34, attack 15: no randomised binary can never answer.
        refused(&|c| c.build.seeds = Some(0), "[build] seeds = 0");
        refused(
            &|c| c.target.max_binaries = Some(1001),
            "[target] max_binaries = 1001",
        );
        refused(
            &|c| {
                c.build.seeds = Some(1000);
                c.run.executions = Some(10_000)
            },
            "[build] seeds × [run] executions",
        );
        let mut fine = base();
        fine.run.metric = Some(r"regex:time=(\d+)".into());
        fine.run.iterations = Some(10);
        fine.run.warmup = Some(2);
        fine.run.timeout = Some(2.5);
        assert!(fine.validate_limits().is_ok());
        // One value per execution: iterations and warmup are ignored, not refused (a
        // `--metric cachegrind --iterations 1` override of a file that sets a warmup).
        let mut one_value = base();
        one_value.run.metric = Some("cachegrind".into());
        one_value.run.iterations = Some(1);
        one_value.run.warmup = Some(1);
        assert!(one_value.validate_limits().is_ok());
    }

    /// Issue 23: `granularity = "none"` (padding only) is accepted with a `pad`, refused
    /// without one (nothing would vary).
    #[test]
    fn granularity_none_needs_pad() {
        let with = |g: GranularityArg, pad: Option<u64>| {
            let mut c = ExperimentConfig::default();
            c.build.command = vec!["make".into()];
            c.run.command = vec!["{bin}".into()];
            c.build.granularity = Some(g);
            c.build.pad = pad;
            c.validate().map_err(|e| format!("{e:#}"))
        };
        assert!(with(GranularityArg::None, Some(256)).is_ok());
        assert!(with(GranularityArg::Module, None).is_ok());
        let no_pad = with(GranularityArg::None, None).unwrap_err();
        let zero = with(GranularityArg::None, Some(0)).unwrap_err();
        insta::assert_snapshot!(format!("no pad => {no_pad}\npad = 0 => {zero}"));
    }

    fn load_text(text: &str) -> Result<ExperimentConfig> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        std::fs::write(&p, text).unwrap();
        ExperimentConfig::load(&p)
    }

    /// The whole message of the error loading `text` gives, its temporary directory
    /// written `[dir]`.
    fn load_error(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        std::fs::write(&p, text).unwrap();
        let e = format!("{:#}", ExperimentConfig::load(&p).unwrap_err());
        redact(&e, dir.path())
    }

    /// `message` with `dir` (as given and canonical) written `[dir]`.
    fn redact(message: &str, dir: &Path) -> String {
        let canonical = dir.canonicalize().unwrap();
        message
            .replace(canonical.to_str().unwrap(), "[dir]")
            .replace(dir.to_str().unwrap(), "[dir]")
    }

    /// Issue 25: `granularity` and `linker` are read into `build`'s own enums, spelled as
    /// on the command line; a bad value is refused at load time naming the key and every
    /// allowed value.
    #[test]
    fn enumerated_keys_take_the_command_lines_spellings() {
        let c = load_text("[build]\ngranularity = \"global\"\nlinker = \"lld\"\n").unwrap();
        assert_eq!(c.build.granularity, Some(GranularityArg::Global));
        assert_eq!(c.build.linker, Some(LinkerArg::Lld));
        insta::assert_snapshot!(load_error("[build]\ngranularity = \"nothing\"\n"));
        insta::assert_snapshot!(load_error("[build]\nlinker = \"ld\"\n"));
    }

    /// Issue 25: `[run] timeout` takes a number of seconds or a duration, as `--timeout`.
    #[test]
    fn timeout_takes_seconds_or_a_duration() {
        let seconds =
            |t: &str| load_text(&format!("[run]\ntimeout = {t}\n")).map(|c| c.run.timeout);
        assert_eq!(seconds("90").unwrap(), Some(90.0));
        assert_eq!(seconds("2.5").unwrap(), Some(2.5));
        assert_eq!(seconds("\"90s\"").unwrap(), Some(90.0));
        assert_eq!(seconds("\"1m30s\"").unwrap(), Some(90.0));
        assert_eq!(seconds("\"500ms\"").unwrap(), Some(0.5));
        insta::assert_snapshot!(load_error("[run]\ntimeout = \"soon\"\n"));
        // `[run] wait_for_quiet` the same way, as `--wait-for-quiet`; absent is none.
        let wait = |t: &str| {
            load_text(&format!("[run]\nwait_for_quiet = {t}\n")).map(|c| c.run.wait_for_quiet)
        };
        assert_eq!(wait("\"2m\"").unwrap(), Some(120.0));
        assert_eq!(wait("30").unwrap(), Some(30.0));
        assert_eq!(load_text("[run]\n").unwrap().run.wait_for_quiet, None);
    }

    /// `[run] ok_exit_codes`, as `run --ok-exit-codes`: read from the file, checked to be exit
    /// codes besides 0, and passed to the run stage.
    #[test]
    fn ok_exit_codes_are_read_checked_and_passed_to_the_run() {
        let mut c = load_text("[run]\nok_exit_codes = [10, 20]\n").unwrap();
        assert_eq!(c.run.ok_exit_codes, vec![10, 20]);
        c.build.command = vec!["make".into()];
        c.run.command = vec!["{bin}".into()];
        c.validate().unwrap();
        c.run.ok_exit_codes = vec![10, 256];
        let err = format!("{:#}", c.validate().unwrap_err());
        assert_eq!(
            err,
            "[run] ok_exit_codes: 256 is not an exit code besides 0 (1 to 255)"
        );
        let argv = crate::flags::run::RunArgs {
            design: crate::flags::DesignArgs {
                ok_exit_codes: vec![10, 20],
                ..Default::default()
            },
            ..Default::default()
        }
        .to_argv();
        let at = argv.iter().position(|a| a == "--ok-exit-codes").unwrap();
        assert_eq!(argv[at + 1], "10,20");
    }

    #[test]
    fn unknown_keys_are_rejected_with_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        std::fs::write(&p, "[build]\ncommand = [\"make\"]\nseedz = 3\n").unwrap();
        let err = format!("{:#}", ExperimentConfig::load(&p).unwrap_err());
        insta::assert_snapshot!(redact(&err, dir.path()));
    }

    #[test]
    fn recipe_placeholder_is_the_files_directory() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        std::fs::write(
            &p,
            "[run]\ncommand = [\"{bin}\", \"{recipe}/bench.lua\"]\n[build]\ncommand = [\"make\"]\n",
        )
        .unwrap();
        let c = ExperimentConfig::load(&p).unwrap();
        let expected = format!("{}/bench.lua", dir.path().canonicalize().unwrap().display());
        assert_eq!(c.run.command[1], expected);
        c.validate().unwrap();
    }

    #[test]
    fn shipped_recipes_parse_and_validate() {
        let recipes = Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes");
        let mut n = 0;
        // Every experiment file of every recipe (experiment.toml and variant files).
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&recipes).unwrap() {
            let dir = entry.unwrap().path();
            if dir.is_dir() {
                for f in std::fs::read_dir(&dir).unwrap() {
                    let f = f.unwrap().path();
                    if f.extension().is_some_and(|e| e == "toml") {
                        files.push(f);
                    }
                }
            }
        }
        for file in files {
            let c = ExperimentConfig::load(&file).unwrap();
            c.validate()
                .unwrap_or_else(|e| panic!("{}: {e:#}", file.display()));
            assert!(
                c.check.is_some(),
                "{}: every recipe checks its binaries",
                file.display()
            );
            n += 1;
        }
        assert!(n >= 5, "expected at least five recipe files, found {n}");
    }

    #[test]
    fn build_pad_is_read_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        std::fs::write(
            &p,
            "[build]\ncommand = [\"make\"]\npad = 256\n[run]\ncommand = [\"{bin}\"]\n",
        )
        .unwrap();
        let c = ExperimentConfig::load(&p).unwrap();
        assert_eq!(c.build.pad, Some(256));
        c.validate().unwrap();
        std::fs::write(
            &p,
            "[build]\ncommand = [\"make\"]\npad = 5000\n[run]\ncommand = [\"{bin}\"]\n",
        )
        .unwrap();
        let err = format!(
            "{:#}",
            ExperimentConfig::load(&p).unwrap().validate().unwrap_err()
        );
        insta::assert_snapshot!(err);
    }

    /// `[build] pin` reaches the build stage as `--pin`, taken from the file's directory.
    #[test]
    fn build_pin_is_passed_from_the_files_directory() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        std::fs::write(
            &p,
            "[build]\ncommand = [\"make\"]\npin = \"pins/pin.json\"\n[run]\ncommand = [\"{bin}\"]\n",
        )
        .unwrap();
        let c = ExperimentConfig::load(&p).unwrap();
        let argv = c.stage_build_args().to_argv();
        let at = argv
            .iter()
            .position(|a| a == "--pin")
            .expect("--pin passed");
        let pin = std::path::PathBuf::from(&argv[at + 1]);
        assert_eq!(pin, c.base_dir.join("pins/pin.json"));
        assert!(pin.is_absolute());
    }

    /// `[run] cache_sim` is read by `run --cache-sim`'s parser, and refused when it does not
    /// parse, before anything runs.
    #[test]
    fn a_suite_timed_or_counted_has_no_one_precision_to_grow_toward() {
        for metric in ["gbench", "cachegrind:gbench", "cachegrind:criterion"] {
            let mut c = ExperimentConfig::default();
            c.run.metric = Some(metric.into());
            c.target.precision = Some("1%".into());
            let err = format!("{:#}", c.validate_run_counts().unwrap_err());
            assert!(err.starts_with("[target] precision = "), "{metric}: {err}");
            c.target.precision = None;
            c.validate_run_counts().unwrap();
        }
    }

    #[test]
    fn run_cache_sim_is_parsed_as_the_flag_is() {
        let mut c = ExperimentConfig::default();
        c.run.cache_sim = Some("I1=4096,2,64".into());
        let model = c.cache_model().unwrap().expect("a model");
        assert_eq!(
            Some(model),
            crate::flags::run::cache_sim_arg("I1=4096,2,64").ok()
        );
        c.run.cache_sim = Some("I1=4096".into());
        let err = format!("{:#}", c.validate_limits().unwrap_err());
        assert!(err.starts_with("[run] cache_sim: "), "{err}");
    }

    /// A file with two `[[variant]]` tables plus `extra`, loaded and validated.
    fn variants_file(extra: &str, second: &str) -> Result<ExperimentConfig> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        let text = format!(
            "{extra}\n[[variant]]\nname = \"a\"\ncommand = [\"make\"]\nprepare = [[\"make\", \"clean\"]]\nenv = {{ CFLAGS = \"-O2\" }}\ndir = \"src\"\n\n[[variant]]\n{second}\n[run]\ncommand = [\"{{bin}}\"]\n"
        );
        std::fs::write(&p, text).unwrap();
        let c = ExperimentConfig::load(&p)
            .map_err(|e| anyhow::anyhow!(redact(&format!("{e:#}"), dir.path())))?;
        c.validate()?;
        Ok(c)
    }

    #[test]
    fn variant_tables_are_read_and_checked() {
        let c = variants_file("", "name = \"b\"\ncommand = [\"make\", \"{recipe}/x\"]").unwrap();
        assert_eq!(c.variants.len(), 2);
        assert_eq!(c.variants[0].env["CFLAGS"], "-O2");
        assert_eq!(c.variants[0].prepare, [vec!["make", "clean"]]);
        assert_eq!(
            c.variant_dir(&c.variants[0], Path::new("/b")),
            c.base_dir.join("src")
        );
        assert_eq!(
            c.variant_dir(&c.variants[1], Path::new("/b")),
            Path::new("/b")
        );
        assert!(
            c.variants[1].command[1].ends_with("/x") && !c.variants[1].command[1].contains('{')
        );
        let err =
            |extra: &str, second: &str| format!("{:#}", variants_file(extra, second).unwrap_err());
        let cases = [
            ("duplicate name", "", "name = \"a\"\ncommand = [\"make\"]"),
            ("empty command", "", "name = \"b\"\ncommand = []"),
            (
                "unknown field",
                "",
                "name = \"b\"\ncommand = [\"make\"]\ncflags = 1",
            ),
            ("no name", "", "command = [\"make\"]"),
            ("seed- name", "", "name = \"seed-3\"\ncommand = [\"make\"]"),
            (
                "empty prepare",
                "",
                "name = \"b\"\ncommand = [\"make\"]\nprepare = [[]]",
            ),
            (
                "[build] command too",
                "[build]\ncommand = [\"make\"]",
                "name = \"b\"\ncommand = [\"make\"]",
            ),
        ];
        let text: String = cases
            .iter()
            .map(|(case, extra, second)| format!("{case} => {}\n", err(extra, second)))
            .collect();
        insta::assert_snapshot!(text);
        // Growing on-line is allowed with variants: each round extends every variant.
        variants_file(
            "[target]\nmax_binaries = 9",
            "name = \"b\"\ncommand = [\"make\"]",
        )
        .unwrap();
        let mut one = variants_file("", "name = \"b\"\ncommand = [\"make\"]").unwrap();
        one.variants.pop();
        insta::assert_snapshot!(format!("{:#}", one.validate().unwrap_err()));
    }

    #[test]
    fn validation_names_the_missing_piece() {
        let mut c = ExperimentConfig::default();
        insta::assert_snapshot!(format!("{:#}", c.validate().unwrap_err()));
        c.build.command = vec!["make".into()];
        c.run.command = vec!["./prog".into()];
        insta::assert_snapshot!(format!("{:#}", c.validate().unwrap_err()));
        c.run.command = vec!["{bin}".into()];
        c.validate().unwrap();
    }

    #[test]
    fn jobs_is_read_and_refused_with_a_time_metric() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.toml");
        let file = |metric: &str, jobs: usize| {
            format!(
                "[build]\ncommand = [\"make\"]\n[run]\ncommand = [\"{{bin}}\"]\nmetric = \"{metric}\"\njobs = {jobs}\n"
            )
        };
        std::fs::write(&p, file("cachegrind", 2)).unwrap();
        let c = ExperimentConfig::load(&p).unwrap();
        assert_eq!(c.run.jobs, Some(2));
        c.validate().unwrap();
        std::fs::write(&p, file("wall", 2)).unwrap();
        let err = format!(
            "{:#}",
            ExperimentConfig::load(&p).unwrap().validate().unwrap_err()
        );
        insta::assert_snapshot!(err);
        std::fs::write(&p, file("cachegrind", 0)).unwrap();
        let err = format!(
            "{:#}",
            ExperimentConfig::load(&p).unwrap().validate().unwrap_err()
        );
        insta::assert_snapshot!(err);
        // A serial time-metric run may say so explicitly.
        std::fs::write(&p, file("wall", 1)).unwrap();
        ExperimentConfig::load(&p).unwrap().validate().unwrap();
    }
}
