//! The command line's flags, each defined once: the argument structs of the subcommands the
//! experiment pipeline runs as child processes (`build`, `run`) and the flag groups and value
//! parsers every subcommand shares.
//!
//! They live in the library, not beside the command line's `main`, so that the pipeline
//! builds a stage's argv from the very struct the stage parses ([`build::BuildArgs::to_argv`],
//! [`run::RunArgs::to_argv`]): a renamed or retyped flag then fails to compile, or fails the
//! round-trip unit tests `parse(to_argv(x)) == x`, instead of failing an experiment at run
//! time.
//!
//! The library does not need clap: without the `cli` feature these are plain typed structs
//! (the pipeline fills them and writes them as argv, `Argv` spelling enumerated values as
//! serde does); with it, which the command line requires, they also derive clap's parser.

use std::ffi::OsString;
use std::time::Duration;

pub mod build;
pub mod run;

/// `--executions`, `--iterations`, `--warmup` and `--metric`: the lower levels of the design
/// and what is measured, for `run` and for `experiment` (whose run stage passes them on).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct DesignArgs {
    /// Executions (processes) per binary, with run --data-seeds K per binary and data seed
    /// (K times as many per binary) [default: run 10; experiment 5 with --initial, else 3;
    /// check-sensitivity 3; watch 5].
    #[cfg_attr(feature = "cli", arg(long))]
    pub executions: Option<u32>,
    /// Iterations each execution must report (with --metric regex:... or a suite's: per
    /// case); `{iterations}` in the command is replaced by it.
    #[cfg_attr(feature = "cli", arg(long))]
    pub iterations: Option<u32>,
    /// Iterations at the start of each execution kept in the store but marked as warmup
    /// (left out of the statistics).
    #[cfg_attr(feature = "cli", arg(long))]
    pub warmup: Option<u32>,
    /// What to measure: wall | cpu | cachegrind | regex:PATTERN (one capture per iteration
    /// from stdout; `regex(UNIT):PATTERN` when the output does not print the unit) | a
    /// suite's output, every case a metric: `gbench[:cpu_time][@FILE]`
    /// (Google Benchmark JSON), `criterion[@DIR]` (criterion's sample files under DIR, e.g.
    /// target/criterion), `hyperfine@FILE` (--export-json), `lines[@FILE]` (`name value
    /// [unit]` lines) | `cachegrind:gbench[@FILE]`, `cachegrind:criterion` (each case run
    /// alone under cachegrind, its counts less a second process's) [default: wall]. (`report`,
    /// `compare` and `export` take `--metric NAME` instead: which of the metrics this
    /// recorded to read.)
    #[cfg_attr(feature = "cli", arg(long))]
    pub metric: Option<String>,
    /// Exit codes (1 to 255) besides 0 with which an execution still ends ok (e.g. 10,20: a
    /// SAT solver's satisfiable and unsatisfiable; 1: grep finding nothing), comma-separated;
    /// recorded in the store, and a resume keeps them [default: none, only 0].
    #[cfg_attr(feature = "cli", arg(long = "ok-exit-codes", value_name = "CODES", value_delimiter = ',', value_parser = clap::value_parser!(i32).range(1..=255)))]
    pub ok_exit_codes: Vec<i32>,
}

/// `--programs A,B` of the commands that build and then run (`check-sensitivity`, `watch`):
/// the programs `{bin}` stands for and the only ones relinked. Without it `{bin}` stands for
/// every program the build linked.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct MeasuredProgramsArgs {
    /// The programs `{bin}` stands for, and the only ones relinked (as `run --programs`),
    /// comma-separated [default: every program the build links].
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ','))]
    pub programs: Vec<String>,
}

/// `--timeout D` and `--budget D`: the limits of one execution and of the whole run, for
/// `run` and `experiment`. Both take plain seconds or a duration such as `90s`, `10m` or
/// `1h30m`, at most [`crate::units::MAX_DURATION`] (one parser:
/// [`crate::units::parse_duration`]).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LimitArgs {
    /// Kill an execution's whole process group after this long (e.g. 90s, 500ms, 2m; a bare
    /// number is seconds; at most a year).
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION", value_parser = crate::units::duration_arg))]
    pub timeout: Option<Duration>,
    /// Stop cleanly between executions after this long (e.g. 90s, 10m, 1h30m; a bare number
    /// is seconds; at most a year); the same command (run: with --resume) continues. A run
    /// stopped so exits 4.
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION", value_parser = crate::units::duration_arg))]
    pub budget: Option<Duration>,
    /// Before each execution, wait up to this long (e.g. 30s, 2m) for a quiet host: no
    /// runnable task beyond the run's own and under 2 % of the CPU time stolen, over a look
    /// of 0.1 s. An execution that waited the whole time starts anyway; each execution's
    /// record says how long it waited and whether the host was quiet. Not with --slurm
    /// (its nodes are exclusive).
    #[cfg_attr(feature = "cli", arg(long = "wait-for-quiet", value_name = "DURATION", value_parser = crate::units::duration_arg))]
    pub wait_for_quiet: Option<Duration>,
}

impl LimitArgs {
    fn push_argv(&self, argv: &mut Argv) {
        let LimitArgs {
            timeout,
            budget,
            wait_for_quiet,
        } = self;
        argv.duration("--timeout", *timeout);
        argv.duration("--budget", *budget);
        argv.duration("--wait-for-quiet", *wait_for_quiet);
    }
}

impl DesignArgs {
    fn push_argv(&self, argv: &mut Argv) {
        let DesignArgs {
            executions,
            iterations,
            warmup,
            metric,
            ok_exit_codes,
        } = self;
        argv.value("--executions", executions);
        argv.value("--iterations", iterations);
        argv.value("--warmup", warmup);
        argv.value("--metric", metric);
        let codes: Vec<String> = ok_exit_codes.iter().map(i32::to_string).collect();
        argv.list("--ok-exit-codes", &Some(codes).filter(|c| !c.is_empty()));
    }
}

/// The most of anything at once (`--jobs`): each is a thread or a process, and more than
/// the cores buys nothing.
pub const MAX_JOBS: usize = 1024;

/// The one parser of `--jobs N` (build: relinks at once; run and experiment: executions at
/// once): a whole number from 1 to [`MAX_JOBS`].
pub fn jobs_arg(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_JOBS).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n}: from 1 to {MAX_JOBS} at once")),
        Err(_) => Err(format!("{text:?} is not a whole number (e.g. 4)")),
    }
}

/// clap value parser for a share that may be zero (`--negligible 0`, `--fail-if-slower 0`).
pub fn share_arg(text: &str) -> std::result::Result<f64, String> {
    crate::units::parse_share(text, true).map_err(|e| e.to_string())
}

/// clap value parser for a confidence level: `0.95` or `95%`.
pub fn confidence_arg(text: &str) -> std::result::Result<f64, String> {
    crate::units::parse_share(text, false).map_err(|_| {
        format!("--confidence {text} must be strictly between 0 and 1 (e.g. 0.95 or 95%)")
    })
}

/// The one parser of a target precision (`--target` of `experiment`, `doctor` and, one per
/// comma, `dimension`): the project's percent parser,
/// [`crate::units::parse_percent`] (`1%` or `0.01`).
pub fn target_arg(text: &str) -> Result<f64, String> {
    crate::units::parse_percent(text).map_err(|e| format!("{e:#}"))
}

/// Says on stderr that `old` is a deprecated spelling of `new` (which it still means).
pub fn warn_deprecated(old: &str, new: &str) {
    crate::diagnostic!("layoutrand: warning: {old} is deprecated; use {new} (same meaning)");
}

/// A stage's argv under construction: one method per kind of flag value, each writing the
/// spelling the stage's own parser reads back.
#[derive(Debug, Default)]
struct Argv(Vec<OsString>);

impl Argv {
    fn flag(&mut self, name: &str, on: bool) {
        if on {
            self.0.push(name.into());
        }
    }

    fn value<T: ToString>(&mut self, name: &str, value: &Option<T>) {
        if let Some(v) = value {
            self.0.push(name.into());
            self.0.push(v.to_string().into());
        }
    }

    /// `--name=VALUE`, for values that may start with a hyphen.
    fn attached<T: ToString>(&mut self, name: &str, value: &T) {
        self.0.push(format!("{name}={}", value.to_string()).into());
    }

    fn path(&mut self, name: &str, value: &std::path::Path) {
        self.0.push(name.into());
        self.0.push(value.into());
    }

    fn list(&mut self, name: &str, values: &Option<Vec<String>>) {
        self.value(name, &values.as_ref().map(|v| v.join(",")));
    }

    /// An enumerated value, spelled as serde writes it: the experiment file's spelling,
    /// which is also the command line's (`enum_spellings_are_the_same_in_toml_and_on_the_
    /// command_line`), so the library needs no parser to write it.
    fn choice<T: serde::Serialize>(&mut self, name: &str, value: Option<T>) {
        let spelled = value.and_then(|v| match serde_json::to_value(v) {
            Ok(serde_json::Value::String(word)) => Some(word),
            _ => None,
        });
        self.value(name, &spelled);
    }

    /// Humantime's notation, which [`crate::units::parse_duration`] reads back exactly.
    fn duration(&mut self, name: &str, value: Option<Duration>) {
        self.value(
            name,
            &value.map(|d| humantime::format_duration(d).to_string()),
        );
    }

    /// `-- WORDS...` (nothing when there are no words).
    fn trailing(&mut self, words: &[String]) {
        if !words.is_empty() {
            self.0.push("--".into());
            self.0.extend(words.iter().map(OsString::from));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_as_percent() {
        assert_eq!(confidence_arg("95%").unwrap(), 0.95);
        assert_eq!(confidence_arg("0.9").unwrap(), 0.9);
        assert!(confidence_arg("1").is_err());
    }

    #[test]
    fn jobs_and_target_parsers_bound_their_values() {
        assert_eq!(jobs_arg("4"), Ok(4));
        insta::assert_snapshot!(jobs_arg("0").unwrap_err());
        assert!(jobs_arg("1025").is_err());
        insta::assert_snapshot!(jobs_arg("two").unwrap_err());
        assert_eq!(target_arg("1%"), Ok(0.01));
        assert_eq!(target_arg("0.02"), Ok(0.02));
        assert!(target_arg("0").is_err());
        assert!(target_arg("150%").is_err());
    }

    #[test]
    fn durations_are_written_as_their_parser_reads_them() {
        for d in [
            Duration::from_secs(90),
            Duration::from_millis(2500),
            Duration::from_nanos(1_000_000_007),
            Duration::from_secs(5400),
        ] {
            let mut argv = Argv::default();
            argv.duration("--timeout", Some(d));
            let text = argv.0[1].to_str().unwrap().to_string();
            assert_eq!(crate::units::parse_duration(&text).unwrap(), d, "{text}");
        }
    }
}
