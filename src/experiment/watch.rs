//! `layoutrand watch BASE HEAD`: the pull-request check. Both commits are built in worktrees
//! of their own as two variants of one experiment with the same seeds (seed `s` of the base
//! and of the head share their random layout), run in one interleaved schedule, and gated on
//! the head/base interval (`report --fail-if-slower`). A failed first round is confirmed by a
//! second, independent one (the same binaries, new executions, another schedule) before the
//! watch fails: docs/gate.md measures this procedure's false-alert rate and power. An
//! incomplete store is never gated (exit 2, said first). Running the same command again
//! resumes: the builds, the stores and the verdict are kept in `OUT` (`OUT/watch.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::config::{BuildConfig, ExperimentConfig, VariantConfig};
use super::subprocess::run_stage_allowing;
use super::worktree::Repo;
use crate::analysis::answers::builder::AnalysisOptions;
use crate::exit::Exit;
use crate::files::cache_model::CacheModel;
use crate::files::confined::ExperimentDir;
use crate::files::manifest::{Manifest, MANIFEST_FILE};
use crate::files::store::RESULTS_FILE;
use crate::files::watch::{
    JudgedComparison, Revision, RoundOutcome, WatchFile, WatchInputs, WatchRound, WatchVerdict,
    WATCH_SCHEMA,
};
use crate::flags::run::RunArgs;
use crate::flags::{DesignArgs, LimitArgs};
use crate::report::gate::{Gate, GateOutcome};

/// The variants' names in the experiment of each round.
pub const BASE: &str = "base";
/// See [`BASE`].
pub const HEAD: &str = "head";

/// What `layoutrand watch` was asked (the command line, parsed).
#[derive(Debug, Clone)]
pub struct WatchRequest {
    /// The base revision, as named.
    pub base: String,
    /// The head revision, as named.
    pub head: String,
    /// The build command: a shell script (`sh -c`) run in each worktree.
    pub build_command: String,
    /// The benchmark command with `{bin}`, run in the head's worktree.
    pub run_command: Vec<String>,
    /// The output directory.
    pub out: PathBuf,
    /// Randomised binaries per version.
    pub seeds: u32,
    /// Executions (required), iterations, warmup and metric (required) of each round.
    pub design: DesignArgs,
    /// Per-execution timeout and the watch's budget.
    pub limits: LimitArgs,
    /// The gate's threshold (a share).
    pub fail_if_slower: f64,
    /// Confirm a failed first round by a second.
    pub confirmation: bool,
    /// Granularity, linker and pin of the builds (`[build]`'s keys; command and seeds unused).
    pub build: BuildConfig,
    /// The programs `{bin}` stands for (and the only ones relinked).
    pub programs: Vec<String>,
    /// `run --cache-sim`.
    pub cache_sim: Option<CacheModel>,
    /// The form of the standard output.
    pub format: crate::report::watch::WatchFormat,
}

/// Runs the watch and returns its exit status: 0 pass (or a failure the confirmation did not
/// repeat), 1 confirmed slower, 2 not judged, 4 stopped by the budget (resumable).
pub fn run_watch(request: &WatchRequest) -> Result<i32> {
    super::subprocess::stages_print_to_stderr();
    let cwd = std::env::current_dir()?;
    let repo = Repo::discover(&cwd)?;
    let inputs = request.inputs(&repo, &cwd)?;
    let out_path = if request.out.is_absolute() {
        request.out.clone()
    } else {
        cwd.join(&request.out)
    };
    let out = ExperimentDir::create(&out_path)
        .with_context(|| format!("cannot create the output directory {}", out_path.display()))?;
    let mut record = begin(&out, inputs)?;
    crate::diagnostic!("{}", crate::report::watch::announcement(&record.inputs));
    if repo.has_uncommitted_changes() {
        crate::diagnostic!("{}", crate::report::watch::uncommitted_changes());
    }
    let watch = Watch {
        request,
        repo,
        out: out_path,
        config: request.experiment_config(&record.inputs),
        started: std::time::Instant::now(),
    };
    if record.verdict.is_none() {
        record.rounds.clear();
        let Some(verdict) = watch.rounds(&mut record, &out)? else {
            crate::out!("{}\n", crate::report::watch::stopped_early());
            return Ok(Exit::StoppedEarly.code());
        };
        record.verdict = Some(verdict);
        record.save(&out)?;
        watch.remove_trees(&out)?;
    } else {
        crate::diagnostic!("{}", crate::report::watch::reached_before(&watch.out));
    }
    crate::out!(
        "{}\n",
        crate::report::watch::render(&record, &watch.out, request.format)
    );
    Ok(exit_code(record.verdict.unwrap_or(WatchVerdict::NotJudged)))
}

/// The exit status of a verdict.
fn exit_code(verdict: WatchVerdict) -> i32 {
    match verdict {
        WatchVerdict::Pass | WatchVerdict::Unconfirmed => Exit::Complete.code(),
        WatchVerdict::Fail => Exit::GateFailed.code(),
        WatchVerdict::NotJudged => Exit::InputError.code(),
    }
}

/// The record of `out`: a new one for `inputs`, or the one there when it was made by the same
/// inputs (a resume); any other watch's directory is refused, naming the first difference.
fn begin(out: &ExperimentDir, inputs: WatchInputs) -> Result<WatchFile> {
    if let Some(found) = WatchFile::load(out.path())? {
        if let Some(key) = found.inputs.first_difference(&inputs) {
            bail!(
                "{} holds a watch of other inputs ({key} differs); give a new output directory, \
                 or the same command to continue that one",
                out.path().display()
            );
        }
        return Ok(found);
    }
    if !out.list("")?.is_empty() {
        bail!(
            "{} is not empty and holds no watch; give a new output directory",
            out.path().display()
        );
    }
    let record = WatchFile {
        schema: WATCH_SCHEMA,
        inputs,
        rounds: Vec::new(),
        verdict: None,
    };
    record.save(out)?;
    Ok(record)
}

impl WatchRequest {
    /// The inputs the record keeps: the revisions resolved to commits, the pin's path made
    /// absolute, the other stage flags as argv.
    fn inputs(&self, repo: &Repo, cwd: &Path) -> Result<WatchInputs> {
        let revision = |reference: &str| -> Result<Revision> {
            Ok(Revision {
                reference: reference.to_string(),
                commit: repo.commit(reference)?,
            })
        };
        let pin = self
            .build
            .pin
            .as_ref()
            .map(|p| {
                cwd.join(p)
                    .canonicalize()
                    .with_context(|| format!("--pin {}", p.display()))
            })
            .transpose()?;
        let mut stage_flags: Vec<String> = self
            .run_args(Path::new(""), false)
            .to_argv()
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let build = self.experiment_config_with(None).stage_build_args();
        stage_flags.extend(
            build
                .to_argv()
                .iter()
                .map(|a| a.to_string_lossy().into_owned()),
        );
        Ok(WatchInputs {
            base: revision(&self.base)?,
            head: revision(&self.head)?,
            build_command: self.build_command.clone(),
            run_command: self.run_command.clone(),
            seeds: self.seeds,
            executions: self.design.executions.unwrap_or(1),
            metric: self.design.metric.clone().unwrap_or_else(|| "wall".into()),
            fail_if_slower: self.fail_if_slower,
            confirmation: self.confirmation,
            pin,
            stage_flags,
        })
    }

    /// The experiment whose variants are the two worktrees (their paths filled in by
    /// [`Watch`]), with the inputs' absolute pin.
    fn experiment_config(&self, inputs: &WatchInputs) -> ExperimentConfig {
        self.experiment_config_with(inputs.pin.clone())
    }

    fn experiment_config_with(&self, pin: Option<PathBuf>) -> ExperimentConfig {
        let mut config = ExperimentConfig {
            build: BuildConfig {
                pin,
                ..self.build.clone()
            },
            ..ExperimentConfig::default()
        };
        config.run.programs = self.programs.clone();
        config.run.command = self.run_command.clone();
        config
    }

    /// The run stage's arguments for the round in `dir`.
    fn run_args(&self, dir: &Path, resume: bool) -> RunArgs {
        RunArgs {
            out: dir.to_path_buf(),
            programs: (!self.programs.is_empty()).then(|| self.programs.clone()),
            design: self.design.clone(),
            limits: LimitArgs {
                // The budget is the watch's, given to each run stage it starts; not an input.
                budget: None,
                ..self.limits.clone()
            },
            cache_sim: self.cache_sim,
            resume,
            command: self.run_command.clone(),
            ..RunArgs::default()
        }
    }
}

/// A watch under way.
struct Watch<'a> {
    request: &'a WatchRequest,
    repo: Repo,
    /// The output directory (absolute).
    out: PathBuf,
    /// The experiment of the rounds (variants filled in when the trees exist).
    config: ExperimentConfig,
    /// When this invocation began (`--budget` counts from it).
    started: std::time::Instant,
}

impl Watch<'_> {
    /// The worktree of `variant`, made when missing; returns the directory that corresponds
    /// to the user's current one.
    fn tree(&self, variant: &str, inputs: &WatchInputs) -> Result<PathBuf> {
        let revision = if variant == BASE {
            &inputs.base
        } else {
            &inputs.head
        };
        self.repo
            .worktree(&self.out.join("trees").join(variant), &revision.commit)
    }

    fn remove_trees(&self, out: &ExperimentDir) -> Result<()> {
        for variant in [BASE, HEAD] {
            self.repo
                .remove_worktree(&self.out.join("trees").join(variant))?;
        }
        out.remove_empty_dir("trees")?;
        Ok(())
    }

    /// The first round and, after a failure, its confirmation; `None` when the budget ran
    /// out (the record then holds the rounds finished).
    fn rounds(&self, record: &mut WatchFile, out: &ExperimentDir) -> Result<Option<WatchVerdict>> {
        let Some(first) = self.round(1, &record.inputs, out)? else {
            return Ok(None);
        };
        let outcome = first.outcome;
        record.rounds.push(first);
        record.save(out)?;
        match outcome {
            RoundOutcome::NotJudged => return Ok(Some(WatchVerdict::NotJudged)),
            RoundOutcome::Pass => return Ok(Some(WatchVerdict::Pass)),
            RoundOutcome::Fail if !record.inputs.confirmation => {
                return Ok(Some(WatchVerdict::Fail))
            }
            RoundOutcome::Fail => {}
        }
        crate::diagnostic!(
            "layoutrand watch: the first round failed; a second round (the same binaries, new executions) confirms it or not"
        );
        let Some(second) = self.round(2, &record.inputs, out)? else {
            return Ok(None);
        };
        let verdict = confirmed(&record.rounds[0], &second);
        record.rounds.push(second);
        Ok(Some(verdict))
    }

    /// Round `number`: its builds (round 1 builds, later rounds copy round 1's binaries),
    /// its executions, its gate; `None` when the budget ran out.
    fn round(
        &self,
        number: u32,
        inputs: &WatchInputs,
        out: &ExperimentDir,
    ) -> Result<Option<WatchRound>> {
        let name = format!("round-{number}");
        let dir = self.out.join(&name);
        if number == 1 {
            self.build(inputs, &dir)?;
        } else if out.entry(Path::new(&name).join(MANIFEST_FILE))?
            == crate::files::confined::Entry::Missing
        {
            copy_build(out, Path::new("round-1"), Path::new(&name))?;
        }
        if !complete(&dir, inputs.executions)? {
            let head = self.tree(HEAD, inputs)?;
            let resume = dir.join(RESULTS_FILE).exists();
            let mut args = self.request.run_args(&dir, resume);
            // The budget is the whole watch's: each run stage gets what is left of it.
            if let Some(budget) = self.request.limits.budget {
                let left = budget.saturating_sub(self.started.elapsed());
                if left.is_zero() {
                    return Ok(None);
                }
                args.limits.budget = Some(left);
            }
            let stopped = Exit::StoppedEarly.code();
            let code =
                run_stage_allowing("run", &args.to_argv(), &head, &BTreeMap::new(), &[stopped])?;
            if code == stopped || !complete(&dir, inputs.executions)? {
                return Ok(None);
            }
        }
        Ok(Some(self.gate(number, &dir)?))
    }

    /// Builds the base and the head into `dir` with the same seeds, unless both are built.
    fn build(&self, inputs: &WatchInputs, dir: &Path) -> Result<()> {
        let manifest = if dir.join(MANIFEST_FILE).exists() {
            Some(Manifest::load(dir)?)
        } else {
            None
        };
        let built = |name: &str| {
            manifest.as_ref().is_some_and(|m| {
                m.variants
                    .iter()
                    .any(|v| v.name == name && v.build.seeds.len() >= inputs.seeds as usize)
            })
        };
        if built(BASE) && built(HEAD) {
            return Ok(());
        }
        let mut config = self.config.clone();
        for variant in [BASE, HEAD] {
            // A version not fully built gets a fresh worktree: one a build left half-way
            // (interrupted) holds objects that make would find up to date, so the recording
            // would see no compile and no link.
            if !built(variant) {
                self.repo
                    .remove_worktree(&self.out.join("trees").join(variant))?;
            }
            config.variants.push(VariantConfig {
                name: variant.to_string(),
                command: vec!["sh".into(), "-c".into(), inputs.build_command.clone()],
                dir: Some(self.tree(variant, inputs)?),
                ..VariantConfig::default()
            });
        }
        super::variants::build_variants(&config, inputs.seeds, dir, &self.out)
    }

    /// Gates the complete round in `dir`: writes its report (`dir/report.txt`), says the
    /// gate's lines, and returns the round's numbers.
    fn gate(&self, number: u32, dir: &Path) -> Result<WatchRound> {
        let threshold = self.request.fail_if_slower;
        let options = AnalysisOptions {
            fail_if_slower: Some(threshold),
            ..AnalysisOptions::default()
        };
        let report = crate::analysis::answers::analyse_directory(dir, &options, &[])?;
        let (text, gate) = crate::report::render_with_gate(&report, crate::report::Format::Text)?;
        ExperimentDir::open(dir)?.write_atomic("report.txt", text.as_bytes())?;
        for line in gate.lines(&format!("layoutrand watch: round {number}"), threshold) {
            crate::diagnostic!("{line}");
        }
        let comparisons = report
            .comparisons
            .iter()
            .filter(|c| c.pair.gated)
            .map(|c| JudgedComparison {
                program: c.program.clone(),
                metric: c.metric.clone(),
                ratio: c.pair.effect.ratio,
                ci: c.pair.effect.ci,
                // A pair held at Bonferroni (more variants, a suite's cases) has its
                // intervals at the adjusted level.
                confidence: c.adjustment.map_or(report.confidence, |a| a.confidence),
                is_time: c.pair.effect.is_time,
                failed: c.pair.slower_beyond_threshold,
                detectable_slowdown: c
                    .pair
                    .detectable_excess(report.confidence)
                    .map(|excess| threshold + excess),
            })
            .chain(suite_judgements(&report, threshold))
            .collect();
        let busy = report.setup.host_conditions.iter().find_map(|c| match c {
            crate::analysis::answers::host_conditions::HostCondition::Busy(b) => {
                Some([b.busy as u64, b.sampled as u64])
            }
            _ => None,
        });
        Ok(WatchRound {
            number,
            outcome: outcome(&gate),
            comparisons,
            busy_executions: busy,
        })
    }
}

/// Each gated suite's ratio of geometric means as a judged comparison, its metric named
/// [`crate::files::metric::SUITE_METRIC`], so that a confirmation round confirms a suite's failure as it does a
/// case's.
fn suite_judgements(
    report: &crate::analysis::answers::model::Report,
    threshold: f64,
) -> impl Iterator<Item = JudgedComparison> + '_ {
    report
        .suite_comparisons
        .iter()
        .filter(|c| c.gated)
        .map(move |c| JudgedComparison {
            program: c.program.clone(),
            metric: crate::files::metric::SUITE_METRIC.to_string(),
            ratio: c.ratio.estimate,
            ci: Some(crate::stats::interval::Interval {
                lower: c.ratio.lower,
                upper: c.ratio.upper,
            }),
            confidence: report.confidence,
            is_time: c.is_time,
            failed: c.slower_beyond_threshold,
            detectable_slowdown: c.detectable_excess.map(|excess| threshold + excess),
        })
}

/// Whether the round in `dir` has a store with every planned execution.
fn complete(dir: &Path, executions: u32) -> Result<bool> {
    Ok(dir.join(RESULTS_FILE).exists() && super::pipeline::run_is_complete(dir, executions)?)
}

/// A round's outcome from its gate: nothing judged is not a pass.
fn outcome(gate: &Gate) -> RoundOutcome {
    match gate.outcome() {
        GateOutcome::Refused => RoundOutcome::NotJudged,
        GateOutcome::Pass if gate.judged.is_empty() => RoundOutcome::NotJudged,
        GateOutcome::Pass => RoundOutcome::Pass,
        GateOutcome::Fail => RoundOutcome::Fail,
    }
}

/// The verdict after a failed `first` round and its confirmation `second`: failed only when
/// some comparison failed in both (the same program and metric).
fn confirmed(first: &WatchRound, second: &WatchRound) -> WatchVerdict {
    if second.outcome == RoundOutcome::NotJudged {
        return WatchVerdict::NotJudged;
    }
    let failed_in_first = |c: &JudgedComparison| {
        first
            .comparisons
            .iter()
            .any(|f| f.failed && f.program == c.program && f.metric == c.metric)
    };
    if second
        .comparisons
        .iter()
        .any(|c| c.failed && failed_in_first(c))
    {
        WatchVerdict::Fail
    } else {
        WatchVerdict::Unconfirmed
    }
}

/// Copies the build of round `from` to round `to` (hard-linked where the file system
/// allows), so that the confirmation runs the very binaries of the first round with none of
/// its executions: the manifest (with its MAC) and each version's binaries. The recording
/// (`.record/`, for relinks) stays behind: a confirmation round is never relinked.
fn copy_build(out: &ExperimentDir, from: &Path, to: &Path) -> Result<()> {
    out.create_dir_all(to)?;
    // The manifest last: a round with a manifest has its binaries, also after a crash
    // half-way through the copy (which the next attempt repeats whole).
    let manifest_mac = format!("{MANIFEST_FILE}.mac");
    for name in [BASE, HEAD, &manifest_mac, MANIFEST_FILE] {
        let entry = out.entry(from.join(name))?;
        copy_entry(out, &from.join(name), &to.join(name), entry)?;
    }
    Ok(())
}

/// Copies one entry below `out` (a file, or a folder recursively but for a recording); a
/// link or a special file is refused (a build writes neither beside its binaries).
fn copy_entry(
    out: &ExperimentDir,
    from: &Path,
    to: &Path,
    entry: crate::files::confined::Entry,
) -> Result<()> {
    use crate::files::confined::Entry;
    match entry {
        Entry::File => out.link_or_copy_in(&out.join(from), to),
        Entry::Dir => {
            out.create_dir_all(to)?;
            for (name, inner) in out.list(from)? {
                if name != ".record" {
                    copy_entry(out, &from.join(&name), &to.join(&name), inner)?;
                }
            }
            Ok(())
        }
        Entry::Missing => Ok(()),
        Entry::Link | Entry::Special => bail!(
            "{} is a link or a special file; a watch copies only a build's files and folders",
            out.join(from).display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(outcome: RoundOutcome, failed: &[(&str, bool)]) -> WatchRound {
        WatchRound {
            number: 1,
            outcome,
            busy_executions: None,
            comparisons: failed
                .iter()
                .map(|(program, failed)| JudgedComparison {
                    program: program.to_string(),
                    metric: "wall".into(),
                    ratio: 1.0,
                    ci: None,
                    confidence: 0.95,
                    is_time: true,
                    failed: *failed,
                    detectable_slowdown: None,
                })
                .collect(),
        }
    }

    /// A failure is confirmed only by the same comparison failing again; an unjudged
    /// confirmation judges nothing.
    #[test]
    fn a_failure_is_confirmed_by_the_same_comparison_only() {
        let first = round(RoundOutcome::Fail, &[("a", true), ("b", false)]);
        let again = round(RoundOutcome::Fail, &[("a", true), ("b", false)]);
        assert_eq!(confirmed(&first, &again), WatchVerdict::Fail);
        let elsewhere = round(RoundOutcome::Fail, &[("a", false), ("b", true)]);
        assert_eq!(confirmed(&first, &elsewhere), WatchVerdict::Unconfirmed);
        let passed = round(RoundOutcome::Pass, &[("a", false), ("b", false)]);
        assert_eq!(confirmed(&first, &passed), WatchVerdict::Unconfirmed);
        let unjudged = round(RoundOutcome::NotJudged, &[]);
        assert_eq!(confirmed(&first, &unjudged), WatchVerdict::NotJudged);
        assert_eq!(exit_code(WatchVerdict::Unconfirmed), 0);
        assert_eq!(exit_code(WatchVerdict::Fail), 1);
        assert_eq!(exit_code(WatchVerdict::NotJudged), 2);
    }

    /// Nothing judged is not a pass.
    #[test]
    fn a_gate_that_judged_nothing_is_not_judged() {
        assert_eq!(outcome(&Gate::default()), RoundOutcome::NotJudged);
        let refused = Gate {
            refused: Some("incomplete".into()),
            ..Gate::default()
        };
        assert_eq!(outcome(&refused), RoundOutcome::NotJudged);
    }
}
