//! Running the pipeline's stages as child processes of the same executable.
//!
//! An experiment drives `layoutrand build`, `run`, `report` and `dimension` as separate
//! processes: each stage keeps its own crash-safety guarantees, and an experiment that is
//! interrupted resumes simply by running each stage again in its resumable form. Children die
//! with the experiment (`PR_SET_PDEATHSIG`), so a killed experiment never leaves a runner
//! writing to the store behind its back.
//!
//! They stay processes rather than library calls because each stage owns process-wide state:
//! the build stage's SIGINT/SIGTERM handling and the environment of a variant's build (set
//! for the child only), the run stage's reaper and its watchdog process (which kills the
//! executions after a `kill -9` of that runner), and each stage's exit status. Their argv is
//! not written by hand: it comes from the very structs the stages parse
//! ([`crate::flags::build::BuildArgs::to_argv`], [`crate::flags::run::RunArgs::to_argv`]).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::fd::AsFd;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::signals::{self, Kept, Reach};

/// Runs `layoutrand ARGS...` in `cwd` with `env` added to the environment, inheriting stdout
/// and stderr; fails with the stage's name and exit status when it does not exit 0.
pub(crate) fn run_stage(
    stage: &str,
    args: &[OsString],
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Result<()> {
    run_stage_allowing(stage, args, cwd, env, &[]).map(|_| ())
}

/// [`run_stage`], taking the exit statuses in `allowed` (besides 0) as answers rather than
/// failures (the run stage's [`crate::exit::Exit::StoppedEarly`]); returns the status.
pub(crate) fn run_stage_allowing(
    stage: &str,
    args: &[OsString],
    cwd: &Path,
    env: &BTreeMap<String, String>,
    allowed: &[i32],
) -> Result<i32> {
    // SIGINT/SIGTERM to the experiment reach the stage, which stops cleanly (kills its own
    // build or benchmark, keeps what it finished) and says so; the experiment then says how
    // to resume.
    let kept = || Kept::Stages {
        stage: stage.to_string(),
    };
    let status =
        signals::status_until_interrupted(stage_command(args, cwd).envs(env), Reach::Resend, kept)?
            .with_context(|| format!("cannot run `layoutrand {stage}`"))?;
    match status.code() {
        Some(code) if code == 0 || allowed.contains(&code) => Ok(code),
        _ => bail!(
            "`layoutrand {stage}` failed ({status}); command: layoutrand {}",
            crate::child::display_args(args)
        ),
    }
}

/// Runs an arbitrary command (a recipe's prepare or check step) in `cwd` with `env` added to
/// the environment, capturing its output; returns (success, combined output tail).
pub(crate) fn run_user_command<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    argv: &[S],
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Result<(bool, String)> {
    let (program, rest) = argv.split_first().context("empty command")?;
    let mut cmd = crate::child::command(program);
    cmd.args(rest)
        .envs(env)
        .current_dir(cwd)
        .stdin(Stdio::null());
    let kept = || Kept::Nothing {
        command: crate::child::display_args(argv),
    };
    let output = signals::output_until_interrupted(&mut cmd, signals::Reach::Group, kept)?
        .with_context(|| format!("cannot start {program:?} in {}", cwd.display()))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Ok((output.status.success(), tail(&text, 20)))
}

/// Whether the stages' standard output goes to this process's standard error
/// ([`stages_print_to_stderr`]).
static STAGES_TO_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on, the stages this process starts write their standard output to its standard
/// error: `watch` keeps its standard output for its verdict alone, which a CI job may keep or
/// parse, while the builds' and runs' summaries still show in the log.
pub(crate) fn stages_print_to_stderr() {
    STAGES_TO_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn stage_command(args: &[OsString], cwd: &Path) -> Command {
    let mut cmd = crate::child::command(own_executable());
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .env(signals::ENV_EXPERIMENT_STAGE, "1");
    if STAGES_TO_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        if let Ok(stderr) = std::io::stderr().as_fd().try_clone_to_owned() {
            cmd.stdout(Stdio::from(stderr));
        }
    }
    cmd
}

/// This executable's path. When the file was replaced while the experiment ran (an upgrade
/// with `cargo install`), Linux reports the old inode as `PATH (deleted)`: the stages then
/// run the new file at the same path.
pub(crate) fn own_executable() -> std::path::PathBuf {
    match std::env::current_exe() {
        Ok(path) => {
            let text = path.to_string_lossy();
            match text.strip_suffix(" (deleted)") {
                Some(live) => live.into(),
                None => path,
            }
        }
        Err(_) => "layoutrand".into(),
    }
}

/// The last `lines` lines of `text`.
pub(crate) fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
