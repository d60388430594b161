//! The settings of a run: what the command line asked for, completed by defaults or, on
//! `--resume`, by the interrupted run's header — and refused when they contradict it.
//!
//! A resumed run must be the same experiment: the schedule, the paddings and the meaning of
//! every execution index depend on these settings.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};

use crate::files::cache_model::CacheModel;
use crate::files::results::ScheduleDesign;
use crate::files::store::Header;
use crate::files::trust::Verified;

/// Default exclusive upper bound of the environment padding (one page).
pub(crate) const DEFAULT_ENV_PAD: u32 = 4096;
/// Default number of executions per binary.
pub const DEFAULT_EXECUTIONS: u32 = 10;
/// The most executions per binary a run accepts (`--executions`): more is a plan of months.
pub(crate) const MAX_EXECUTIONS: u32 = 100_000;
/// The most iterations per execution a run accepts (`--iterations`, `--warmup`).
pub(crate) const MAX_ITERATIONS: u32 = 1_000_000;
/// The most data seeds per binary (`--data-seeds`): each is a cell of every round.
pub(crate) const MAX_DATA_SEEDS: u32 = 1000;
/// The largest environment padding bound (`--env-pad`): 64 KiB, half of what Linux allows
/// one environment string (`MAX_ARG_STRLEN`, 32 pages), and 16 pages of stack movement.
pub(crate) const MAX_ENV_PAD: u32 = 65_536;

/// What the user asked for; `None` means "not given".
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// Output directory (holds manifest.json; receives results.jsonl).
    pub out_dir: PathBuf,
    /// Programs under test.
    pub programs: Option<Vec<String>>,
    /// Executions per binary.
    pub executions: Option<u32>,
    /// Iterations per execution (program-reported metrics only).
    pub iterations: Option<u32>,
    /// Warmup iterations per execution.
    pub warmup: Option<u32>,
    /// `wall`, `cpu`, `cachegrind`, `regex:PATTERN`.
    pub metric: Option<String>,
    /// Exclusive upper bound of the padding.
    pub env_pad_max: Option<u32>,
    /// Data seeds per binary (`--data-seeds`).
    pub data_seeds: Option<u32>,
    /// Each data seed also names a level of malloc's mmap threshold
    /// (`--vary-mmap-threshold`; `false`: not asked).
    pub vary_mmap_threshold: bool,
    /// Per-execution timeout.
    pub timeout: Option<Duration>,
    /// Stop between executions after this long.
    pub budget: Option<Duration>,
    /// Wait at most this long for a quiet host before each execution (`--wait-for-quiet`).
    /// Not part of the experiment: a resumed run may change it.
    pub wait_for_quiet: Option<Duration>,
    /// Seed of the schedule and paddings.
    pub schedule_seed: Option<u64>,
    /// Continue the store in `out_dir`.
    pub resume: bool,
    /// With `resume`: execution rounds to add to a rounds store (`--extend-executions`).
    pub extend_executions: Option<u32>,
    /// The benchmark command (may be empty on resume).
    pub command: Vec<String>,
    /// How to show the executions' progress.
    pub progress: crate::progress::ProgressDisplay,
    /// Executions at once (`--jobs`); `None`: the number of cores for a deterministic
    /// metric, 1 otherwise. Not part of the experiment: a resumed run may change it.
    pub jobs: Option<usize>,
    /// Allow `--jobs` above 1 with a time metric.
    pub force_parallel: bool,
    /// Pin executions to these CPUs (`--cpus`).
    pub cpus: Option<Vec<usize>>,
    /// `--cache-sim`: the cache model cachegrind simulates (`None`: the default model, or
    /// on `--resume` the recorded one).
    pub cache_sim: Option<CacheModel>,
    /// `--cases REGEX`: the suite's cases kept (`None`: all, or on `--resume` the recorded
    /// choice).
    pub cases: Option<String>,
    /// `--ok-exit-codes`: exit codes besides 0 that end an execution ok (empty: none, or on
    /// `--resume` the recorded ones).
    pub ok_exit_codes: Vec<i32>,
}

/// The settings actually used.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunSettings {
    /// Programs under test, or `None` for "all of the manifest" (resolved later).
    pub(crate) programs: Option<Vec<String>>,
    /// Executions per binary.
    pub(crate) executions: u32,
    /// Iterations per execution as required (`None`: as many as the program reports).
    pub(crate) iterations: Option<u32>,
    /// Warmup iterations per execution.
    pub(crate) warmup: u32,
    /// Metric specification.
    pub(crate) metric: String,
    /// Exclusive upper bound of the padding.
    pub(crate) env_pad_max: u32,
    /// Data seeds per binary: 1 when the data layout is not a factor.
    pub(crate) data_seeds: u32,
    /// Each data seed also names a level of malloc's mmap threshold.
    pub(crate) vary_mmap_threshold: bool,
    /// Per-execution timeout.
    pub(crate) timeout: Option<Duration>,
    /// Seed of the schedule and paddings.
    pub(crate) schedule_seed: u64,
    /// How the schedule is planned: rounds for a new run, the recorded design on `--resume`.
    pub(crate) schedule_design: ScheduleDesign,
    /// The benchmark command.
    pub(crate) command: Vec<String>,
    /// The cache model passed to cachegrind: `Some` for `--metric cachegrind` (the given
    /// `--cache-sim` or [`CacheModel::DEFAULT`]), `None` for other metrics and when resuming
    /// a cachegrind run recorded before models were pinned (valgrind's host model then, as
    /// the run began).
    pub(crate) cache_model: Option<CacheModel>,
    /// The pattern a suite's cases must match to be kept (`--cases`), as given.
    pub(crate) cases: Option<String>,
    /// Exit codes besides 0 that end an execution ok (`--ok-exit-codes`), sorted, each once.
    pub(crate) ok_exit_codes: Vec<i32>,
}

/// Whether a process that exited with `code` ended ok, given the run's `--ok-exit-codes`
/// (`ok`): 0 always is. The runner's executions and explain's profiles judge by it.
pub(crate) fn exit_ok(ok: &[i32], code: i32) -> bool {
    code == 0 || ok.contains(&code)
}

/// `codes` sorted, each once, without 0 (which is always ok): the one spelling a store
/// records and a resume compares.
fn ok_exit_codes(codes: &[i32]) -> Vec<i32> {
    let mut codes: Vec<i32> = codes.iter().copied().filter(|c| *c != 0).collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

/// A seed for runs that did not give one: the clock's nanoseconds (it is recorded in the
/// header, so the run stays reproducible).
fn fresh_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}

impl RunSettings {
    /// Whether an execution that exited with `code` ended ok.
    pub(crate) fn exit_ok(&self, code: i32) -> bool {
        exit_ok(&self.ok_exit_codes, code)
    }

    /// Checks the counts against the documented bounds ([`MAX_EXECUTIONS`],
    /// [`MAX_ITERATIONS`], [`MAX_ENV_PAD`]) before anything is planned or allocated: they come
    /// from the command line or, on `--resume`, from a store's header, which is data.
    pub(crate) fn check_limits(&self) -> Result<()> {
        if self.executions == 0 {
            bail!("--executions must be at least 1");
        }
        if self.executions > MAX_EXECUTIONS {
            bail!(
                "--executions {}: at most {MAX_EXECUTIONS} executions per binary",
                self.executions
            );
        }
        if let Some(i) = self.iterations.filter(|&i| i > MAX_ITERATIONS) {
            bail!("--iterations {i}: at most {MAX_ITERATIONS} iterations per execution");
        }
        if self.warmup > MAX_ITERATIONS {
            bail!(
                "--warmup {}: at most {MAX_ITERATIONS} iterations per execution",
                self.warmup
            );
        }
        if self.data_seeds == 0 || self.data_seeds > MAX_DATA_SEEDS {
            bail!(
                "--data-seeds {}: expected 1 to {MAX_DATA_SEEDS} data seeds per binary",
                self.data_seeds
            );
        }
        if self.data_seeds > 1 && self.schedule_design != ScheduleDesign::Rounds {
            bail!(
                "data_seeds {}: a run with data seeds is planned in rounds, but this store's \
                 schedule is free",
                self.data_seeds
            );
        }
        if self.vary_mmap_threshold && self.data_seeds < 2 {
            bail!(
                "--vary-mmap-threshold makes malloc's mmap threshold part of each data seed's \
                 layout: it needs --data-seeds 2 or more (this run has {})",
                self.data_seeds
            );
        }
        if self.env_pad_max > MAX_ENV_PAD {
            bail!(
                "--env-pad {}: at most {MAX_ENV_PAD} bytes (a larger environment string is \
                 refused by exec)",
                self.env_pad_max
            );
        }
        Ok(())
    }
}

/// The settings of how an execution ends, as [`conflicts_with`] lists them: `(flag, (given,
/// stored))` for `--timeout` and `--ok-exit-codes`.
fn ending_settings(req: &RunRequest, h: &Header) -> [(&'static str, (Option<String>, String)); 2] {
    [
        (
            "--timeout",
            (
                req.timeout.map(|t| format!("{}", t.as_secs_f64())),
                h.timeout_seconds
                    .map(|t| format!("{t}"))
                    .unwrap_or_else(|| "none".into()),
            ),
        ),
        (
            "--ok-exit-codes",
            (
                (!req.ok_exit_codes.is_empty())
                    .then(|| codes_words(&ok_exit_codes(&req.ok_exit_codes))),
                codes_words(&ok_exit_codes(&h.ok_exit_codes)),
            ),
        ),
    ]
}

/// Each setting of `req` that differs from the header `h` of the run being resumed, as
/// `FLAG: GIVEN now, STORED in the stored run`.
fn conflicts_with(req: &RunRequest, h: &Header) -> Vec<String> {
    // Each setting as (flag, given, stored), in the order the message lists them.
    let number =
        |given: Option<u32>, stored: u32| (given.map(|v| v.to_string()), stored.to_string());
    let settings = [
        (
            "--programs",
            (
                req.programs.as_ref().map(|p| p.join(",")),
                h.programs.join(","),
            ),
        ),
        ("--executions", number(req.executions, h.executions)),
        ("--iterations", number(req.iterations, h.iterations)),
        ("--warmup", number(req.warmup, h.warmup)),
        ("--metric", (req.metric.clone(), h.metric.clone())),
        ("--env-pad", number(req.env_pad_max, h.env_pad_max)),
        ("--data-seeds", number(req.data_seeds, h.data_seeds)),
        (
            "--vary-mmap-threshold",
            (
                req.vary_mmap_threshold.then(|| "given".to_string()),
                if h.vary_mmap_threshold {
                    "given"
                } else {
                    "not given"
                }
                .to_string(),
            ),
        ),
        (
            "--cache-sim",
            (
                req.cache_sim.map(|m| m.to_string()),
                h.cache_model.map_or_else(
                    || "valgrind's model of the host, not recorded".into(),
                    |m| m.to_string(),
                ),
            ),
        ),
        (
            "--cases",
            (
                req.cases.clone(),
                h.cases.clone().unwrap_or_else(|| "not given".into()),
            ),
        ),
    ];
    let later = [
        (
            "--schedule-seed",
            (
                req.schedule_seed.map(|v| v.to_string()),
                h.schedule_seed.to_string(),
            ),
        ),
        (
            "the command",
            (
                (!req.command.is_empty()).then(|| crate::child::display_args(&req.command)),
                crate::child::display_args(&h.command),
            ),
        ),
    ];
    settings
        .into_iter()
        .chain(ending_settings(req, h))
        .chain(later)
        .filter_map(|(flag, (given, stored))| {
            let g = given?;
            (g != stored).then(|| format!("{flag}: {g} now, {stored} in the stored run"))
        })
        .collect()
}

/// The executions per binary of the resumed run `h` grown by `extend` rounds: refused for a
/// free schedule (its executions of one binary are not rounds, so added ones would not be
/// balanced blocks) and beyond [`MAX_EXECUTIONS`].
fn extended_executions(h: &Header, extend: Option<u32>) -> Result<u32> {
    let Some(k) = extend else {
        return Ok(h.executions);
    };
    if k == 0 {
        bail!("--extend-executions must be at least 1");
    }
    if h.schedule_design != ScheduleDesign::Rounds {
        bail!(
            "--extend-executions: this run's schedule is free (planned before rounds), so added \
             executions would not run in balanced rounds with the others; start a new run \
             (`layoutrand run --out OTHER_DIR`) to re-measure interleaved"
        );
    }
    match h.executions.checked_add(k) {
        Some(n) if n <= MAX_EXECUTIONS => Ok(n),
        _ => bail!(
            "--extend-executions {k}: the run would have more than {MAX_EXECUTIONS} executions per binary"
        ),
    }
}

/// Asking a rounds store for more executions than it holds means adding rounds: say how
/// (cmark 0.30: `--resume --executions 10` on a 3-execution store was only refused).
fn more_executions_hint(req: &RunRequest, h: &Header) -> String {
    match req.executions {
        Some(n) if n > h.executions && h.schedule_design == ScheduleDesign::Rounds => {
            let k = n - h.executions;
            format!(
                "; to add {k} execution{} per binary to this run, interleaved with the others: --resume --extend-executions {k}",
                if k == 1 { "" } else { "s" }
            )
        }
        _ => String::new(),
    }
}

/// Exit codes as a resume's conflict message names them: `10,20`, or `none`.
fn codes_words(codes: &[i32]) -> String {
    if codes.is_empty() {
        return "none".into();
    }
    codes
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Completes `req` with defaults (fresh run) or with the header of the run being resumed,
/// refusing any given setting that differs from that header. A recorded header is taken only
/// verified ([`Verified`]): its command is what the run executes.
pub(crate) fn resolve(
    req: &RunRequest,
    previous: Option<&Verified<Header>>,
) -> Result<RunSettings> {
    let Some(h) = previous.map(Verified::get) else {
        if req.extend_executions.is_some() {
            bail!("--extend-executions adds rounds to a stored run: it needs --resume and a store in --out");
        }
        let metric = req.metric.clone().unwrap_or_else(|| "wall".to_string());
        return Ok(RunSettings {
            cache_model: crate::files::metric::is_cachegrind_spec(&metric)
                .then(|| req.cache_sim.unwrap_or(CacheModel::DEFAULT)),
            programs: req.programs.clone(),
            executions: req.executions.unwrap_or(DEFAULT_EXECUTIONS),
            iterations: req.iterations,
            warmup: req.warmup.unwrap_or(0),
            metric,
            env_pad_max: req.env_pad_max.unwrap_or(DEFAULT_ENV_PAD),
            data_seeds: req.data_seeds.unwrap_or(1),
            vary_mmap_threshold: req.vary_mmap_threshold,
            timeout: req.timeout,
            schedule_seed: req.schedule_seed.unwrap_or_else(fresh_seed),
            schedule_design: ScheduleDesign::Rounds,
            command: req.command.clone(),
            cases: req.cases.clone(),
            ok_exit_codes: ok_exit_codes(&req.ok_exit_codes),
        });
    };
    let conflicts = conflicts_with(req, h);
    if !conflicts.is_empty() {
        bail!(
            "--resume: these settings differ from the run being resumed, so it would not be the same experiment:\n  {}\nleave them out to reuse the recorded ones, or write to another --out directory{}",
            conflicts.join("\n  "),
            more_executions_hint(req, h)
        );
    }
    Ok(RunSettings {
        programs: Some(h.programs.clone()),
        executions: extended_executions(h, req.extend_executions)?,
        iterations: (h.iterations > 0 && crate::files::metric::is_reported_spec(&h.metric))
            .then_some(h.iterations),
        warmup: h.warmup,
        metric: h.metric.clone(),
        env_pad_max: h.env_pad_max,
        data_seeds: h.data_seeds,
        vary_mmap_threshold: h.vary_mmap_threshold,
        timeout: h
            .timeout_seconds
            .map(|t| {
                crate::units::duration_from_seconds(t)
                    .map_err(|e| anyhow::anyhow!("the run's header has timeout_seconds {e}"))
            })
            .transpose()?,
        schedule_seed: h.schedule_seed,
        schedule_design: h.schedule_design,
        command: h.command.clone(),
        cache_model: h.cache_model,
        cases: h.cases.clone(),
        ok_exit_codes: ok_exit_codes(&h.ok_exit_codes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header as layoutrand wrote it before the schedule design was recorded.
    const OLD_HEADER: &str = r#"{"schema":2,"tool_version":"0","command":["{bin}"],"programs":["p"],"binaries":["baseline","seed-1"],"metric":"wall","executions":4,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null},"started_unix":0.0}"#;

    #[test]
    fn a_new_run_plans_rounds_and_a_resumed_old_store_its_free_schedule() {
        let fresh = resolve(&RunRequest::default(), None).unwrap();
        assert_eq!(fresh.schedule_design, ScheduleDesign::Rounds);
        let old: Header = serde_json::from_str(OLD_HEADER).unwrap();
        assert_eq!(old.schedule_design, ScheduleDesign::Free);
        let resumed = resolve(
            &RunRequest::default(),
            Some(&Verified::for_tests(old.clone())),
        )
        .unwrap();
        assert_eq!(resumed.schedule_design, ScheduleDesign::Free);
        let mut new = old.clone();
        new.schedule_design = ScheduleDesign::Rounds;
        let line = serde_json::to_string(&new).unwrap();
        assert!(line.contains(r#""schedule_design":"rounds""#), "{line}");
        let back: Header = serde_json::from_str(&line).unwrap();
        assert_eq!(
            resolve(
                &RunRequest::default(),
                Some(&Verified::for_tests(back.clone()))
            )
            .unwrap()
            .schedule_design,
            ScheduleDesign::Rounds
        );
    }

    #[test]
    fn extend_executions_adds_rounds_to_a_rounds_store_only() {
        let extend = |k| RunRequest {
            extend_executions: Some(k),
            ..RunRequest::default()
        };
        let mut h: Header = serde_json::from_str(OLD_HEADER).unwrap();
        let err = resolve(&extend(2), Some(&Verified::for_tests(h.clone())))
            .unwrap_err()
            .to_string();
        insta::assert_snapshot!(err);
        h.schedule_design = ScheduleDesign::Rounds;
        assert_eq!(
            resolve(&extend(2), Some(&Verified::for_tests(h.clone())))
                .unwrap()
                .executions,
            6
        );
        assert!(resolve(&extend(0), Some(&Verified::for_tests(h.clone()))).is_err());
        assert!(resolve(
            &extend(MAX_EXECUTIONS),
            Some(&Verified::for_tests(h.clone()))
        )
        .is_err());
        let err = resolve(&extend(2), None).unwrap_err().to_string();
        insta::assert_snapshot!(err);
    }

    #[test]
    fn the_mmap_threshold_needs_data_seeds_and_a_resume_keeps_it() {
        let vary = |data_seeds| RunRequest {
            vary_mmap_threshold: true,
            data_seeds,
            ..RunRequest::default()
        };
        let err = resolve(&vary(None), None)
            .unwrap()
            .check_limits()
            .unwrap_err()
            .to_string();
        insta::assert_snapshot!(err);
        let settings = resolve(&vary(Some(3)), None).unwrap();
        settings.check_limits().unwrap();
        assert!(settings.vary_mmap_threshold);
        // The header of an old store has no such field: not varied, and absent when written.
        let mut h: Header = serde_json::from_str(OLD_HEADER).unwrap();
        assert!(!h.vary_mmap_threshold);
        let written = serde_json::to_value(&h).unwrap();
        assert_eq!(written.get("vary_mmap_threshold"), None, "{written}");
        h.schedule_design = ScheduleDesign::Rounds;
        h.data_seeds = 3;
        let err = resolve(&vary(None), Some(&Verified::for_tests(h.clone())))
            .unwrap_err()
            .to_string();
        insta::assert_snapshot!(err);
        h.vary_mmap_threshold = true;
        let line = serde_json::to_string(&h).unwrap();
        assert!(line.contains(r#""vary_mmap_threshold":true"#), "{line}");
        let back: Header = serde_json::from_str(&line).unwrap();
        assert!(
            resolve(
                &RunRequest::default(),
                Some(&Verified::for_tests(back.clone()))
            )
            .unwrap()
            .vary_mmap_threshold
        );
    }
}
