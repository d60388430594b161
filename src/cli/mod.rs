//! Subcommands: one file each, each a clap `Args` struct and a `run` function returning the
//! process exit code.

use clap::{Parser, Subcommand};

pub mod analyze;
pub mod build;
pub mod check_sensitivity;
pub mod common;
pub mod compare;
pub mod dimension;
pub mod doctor;
pub mod experiment;
pub mod explain;
pub mod export;
pub mod generate;
pub mod layout;
pub mod pin;
pub mod repair;
pub mod report;
pub mod run;
pub mod run_shard;
pub mod schemas;
pub mod status;
pub mod trust;
pub mod watch;

/// Benchmark native programs without being fooled by code layout.
#[derive(Debug, Parser)]
#[command(name = "layoutrand", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Record one build, then relink it once per seed with a randomised code layout.
    Build(build::Args),
    /// Run the built binaries: binaries × executions × iterations, interleaved.
    Run(run::Args),
    /// Statistics of an experiment directory: variance per level, CI, layout shift.
    ///
    /// Reads DIR/results.jsonl, and DIR/manifest.json when there: without it what only the
    /// build knows is reported as unknown.
    Report(report::Args),
    /// Optimal repetition counts for a target precision (Kalibera & Jones §9).
    ///
    /// DIR is the initial experiment's directory.
    Dimension(dimension::Args),
    /// Compare two experiments (or two CSV files): ratio of means with a Fieller CI.
    Compare(compare::Args),
    /// The multi-level statistics on any CSV of measurements.
    Analyze(analyze::Args),
    /// Show a binary's function order and fingerprint, or the distance between two.
    Layout(layout::Args),
    /// Write an experiment's measurements as CSV or JSON.
    ///
    /// Reads DIR/results.jsonl.
    Export(export::Args),
    /// Make a damaged results.jsonl readable: keep every valid record, move the original aside.
    ///
    /// Repairs DIR/results.jsonl; a valid store is left as it is.
    Repair(repair::Args),
    /// Build, run and report in one resumable command.
    Experiment(experiment::Args),
    /// Why is this program layout-sensitive? The hot functions whose placement goes with it.
    ///
    /// Reads DIR/manifest.json and DIR/results.jsonl; writes only into DIR/explain/ (with
    /// variants, each variant's DIR/NAME/explain/).
    Explain(explain::Args),
    /// A controlled layout: pin the functions `explain`'s profile saw run where the fastest
    /// layout had them, as a pin file for `build --pin`.
    ///
    /// Reads DIR/manifest.json, DIR/results.jsonl, explain's answer and profile in
    /// DIR/explain/, and the fastest seed's binary; runs nothing; writes only the pin file.
    Pin(pin::Args),
    /// Is HEAD slower than BASE, whatever the layout? The pull-request check.
    ///
    /// Builds both git revisions in worktrees with the same seeds, runs them interleaved,
    /// gates on the interval, confirms a failure by a second round (docs/ci.md).
    Watch(watch::Args),
    /// Is this program layout-sensitive on this machine? A quick answer.
    CheckSensitivity(check_sensitivity::Args),
    /// Progress of a Slurm run (`run --slurm`): executions per shard, task states.
    ///
    /// DIR is the experiment directory of the `run --slurm`.
    Status(status::Args),
    /// Is this machine fit for a layout experiment? Checks and a short noise calibration.
    Doctor(doctor::Args),
    /// Man pages and shell completions, made from this command line's own definitions.
    Generate(generate::Args),
    /// Adopt an experiment directory as your own: show what it would make layoutrand run
    /// (recorded links, the run's command and environment, the Slurm plan), then sign it.
    ///
    /// Resume, extend, Slurm resume and explain --confirm refuse a directory that is not
    /// your own (received, edited, or written before layoutrand signed its directories).
    Trust(trust::Args),
    /// The doctor's calibration loop (run by `doctor` in its own processes).
    #[command(hide = true)]
    CalibrationLoop(doctor::LoopArgs),
    /// One task of a Slurm run: runs one shard (used by the job script).
    #[command(hide = true)]
    RunShard(run_shard::Args),
    /// The executions' watchdog of a run (started by `run`, see `run::watchdog`).
    #[command(hide = true)]
    ExecutionWatchdog,
}

/// Runs the chosen subcommand and returns the exit code: a command a signal stopped (SIGINT,
/// SIGTERM) says what it kept and exits 128 + signal, whichever command it was.
pub fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    subcommand(cli).or_else(|err| common::exit_if_interrupted(err, "layoutrand"))
}

fn subcommand(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Build(a) => build::run(a),
        Command::Run(a) => run::run(a),
        Command::Report(a) => report::run(a),
        Command::Dimension(a) => dimension::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Layout(a) => layout::run(a),
        Command::Export(a) => export::run(a),
        Command::Repair(a) => repair::run(a),
        Command::Experiment(a) => experiment::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Pin(a) => pin::run(a),
        Command::Watch(a) => watch::run(a),
        Command::CheckSensitivity(a) => check_sensitivity::run(a),
        Command::Status(a) => status::run(a),
        Command::Doctor(a) => doctor::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Trust(a) => trust::run(a),
        Command::CalibrationLoop(a) => doctor::run_loop(a),
        Command::RunShard(a) => run_shard::run(a),
        Command::ExecutionWatchdog => {
            layoutrand::run::watchdog::serve(std::io::stdin());
            Ok(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use layoutrand::flags::build::{BuildArgs, GranularityArg};
    use layoutrand::flags::run::RunArgs;

    fn parse(argv: Vec<std::ffi::OsString>) -> Command {
        let full = std::iter::once("layoutrand".into()).chain(argv.clone());
        match Cli::try_parse_from(full) {
            Ok(cli) => cli.command,
            Err(e) => panic!("{argv:?}: {e}"),
        }
    }

    /// Issue 25: the experiment's stages are written by `to_argv` and parsed by this very
    /// command line (subcommand name included), back to the same arguments.
    #[test]
    fn stage_argv_parses_back_through_the_real_command_line() {
        let build = BuildArgs {
            seeds: Some(4),
            extend: true,
            granularity: Some(GranularityArg::Link),
            pad: Some(64),
            command: vec!["make".into(), "-j2".into()],
            ..BuildArgs::default()
        };
        match parse(build.to_argv()) {
            Command::Build(parsed) => assert_eq!(parsed, build),
            other => panic!("{other:?}"),
        }
        let run = RunArgs {
            resume: true,
            jobs: Some(2),
            command: vec!["{bin}".into(), "-q".into()],
            ..RunArgs::default()
        };
        match parse(run.to_argv()) {
            Command::Run(parsed) => assert_eq!(parsed, run),
            other => panic!("{other:?}"),
        }
    }

    /// The directory of every command that reads an experiment, however it is named.
    fn experiment_dir(command: Command) -> std::path::PathBuf {
        match command {
            Command::Report(a) => a.dir.path(),
            Command::Dimension(a) => a.dir.path(),
            Command::Export(a) => a.dir.path(),
            Command::Explain(a) => a.dir.path(),
            Command::Pin(a) => a.dir.path(),
            Command::Status(a) => a.dir.path(),
            Command::Repair(a) => a.dir.path(),
            other => panic!("not a command that reads an experiment: {other:?}"),
        }
    }

    /// Issue 25: `--out DIR` names the experiment directory in every command that takes
    /// one, as the positional `DIR` does in those that read it; giving both is an error.
    #[test]
    fn every_reading_command_takes_the_directory_as_dir_or_as_out() {
        let words = |w: &[&str]| w.iter().map(|s| s.into()).collect::<Vec<_>>();
        for sub in [
            "report",
            "dimension",
            "export",
            "explain",
            "pin",
            "status",
            "repair",
        ] {
            let positional = experiment_dir(parse(words(&[sub, "exp"])));
            let flag = experiment_dir(parse(words(&[sub, "--out", "exp"])));
            assert_eq!(positional, std::path::PathBuf::from("exp"), "{sub}");
            assert_eq!(flag, positional, "{sub}");
            let default = experiment_dir(parse(words(&[sub])));
            assert_eq!(default, std::path::PathBuf::from("layoutrand-out"), "{sub}");
            let both = Cli::try_parse_from(["layoutrand", sub, "a", "--out", "b"]);
            assert!(
                both.is_err(),
                "{sub}: DIR and --out together must be refused"
            );
        }
    }

    /// Issue 37: the man pages come from the clap definitions: one page per visible command,
    /// each naming every flag of that command; the completion scripts name every command.
    #[test]
    fn man_pages_and_completions_cover_every_command_and_flag() {
        let dir = tempfile::tempdir().unwrap();
        let written = generate::write_man_pages(dir.path()).unwrap();
        let command = {
            use clap::CommandFactory;
            let mut c = Cli::command();
            c.build();
            c
        };
        let visible: Vec<_> = generate::documented(&command).collect();
        assert!(visible.len() >= 15, "{} commands", visible.len());
        assert_eq!(written.len(), visible.len() + 1);
        for sub in visible {
            let page = dir.path().join(format!("layoutrand-{}.1", sub.get_name()));
            let text = std::fs::read_to_string(&page).unwrap();
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                if let Some(long) = arg.get_long() {
                    // roff escapes each '-' of a flag as '\-'.
                    let escaped = format!("\\-\\-{}", long.replace('-', "\\-"));
                    assert!(
                        text.contains(&escaped),
                        "{}: --{long} missing from its man page",
                        sub.get_name()
                    );
                }
            }
        }
        let mut bash = Vec::new();
        let mut c = {
            use clap::CommandFactory;
            Cli::command()
        };
        clap_complete::generate(clap_complete::Shell::Bash, &mut c, "layoutrand", &mut bash);
        let bash = String::from_utf8(bash).unwrap();
        for sub in ["build", "run", "report", "explain", "generate"] {
            assert!(bash.contains(sub), "{sub} missing from the bash completion");
        }
    }
}
