//! Cachegrind's counts of each case of a benchmark suite (`--metric cachegrind:gbench`,
//! `cachegrind:criterion`).
//!
//! A suite's process runs all its cases, so under `--metric cachegrind` its counts are the
//! whole process's: start-up, every case, and for Google Benchmark iteration counts chosen by
//! the clock (not even deterministic). Here each case runs alone, in processes of its own and
//! a fixed number of iterations, and its value is the difference of two processes' counts, so
//! that what the two share (start-up, loading, the suite's own per-process work) cancels:
//!
//! * Google Benchmark (1.8 or later: `--benchmark_min_time=Nx`): the case at 1 and at N
//!   iterations; the value is one iteration after the first, (C(N) − C(1)) / (N − 1). N, a
//!   power of two, is chosen from C(2) − C(1) so that the N − 1 iterations hold about
//!   [`ITERATION_INSTRUCTIONS`] instructions: the few hundred instructions by which two
//!   processes differ anyway (the times they print) then weigh nothing.
//! * criterion: its test mode (`--test`) runs a benchmark's routine exactly once, inside its
//!   timing loop (`Bencher::iter` or a kin, which criterion keeps out of line). The process
//!   that runs the case alone (its filter `^NAME$`, NAME escaped: criterion before 0.5 has
//!   no `--exact`) runs under callgrind, with the same cache
//!   simulation, and the value is the inclusive count of that loop's call: one call of the
//!   routine, cold, and criterion's two clock reads around it. Nothing else of the process
//!   counts, so two processes differing by a few thousand instructions elsewhere (they do:
//!   the arguments' lengths move the heap) leave it unchanged. (callgrind's own
//!   `--toggle-collect` would do it but keeps one of two patterns sharing the text before
//!   their first `*`, so the loops are found by layoutrand's reading of the call graph.)
//!
//! The cases are the ones the suite lists (`--benchmark_list_tests=true`, `--list`), asked
//! without valgrind and with the command's own arguments, so a Google Benchmark command's own
//! filter chooses them. The selecting arguments are appended to the command: it must end with
//! the suite binary's arguments (a wrapper script passes `"$@"` on).

use std::ffi::OsString;
use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, Result};

use super::metric::{read_cachegrind_totals, SuiteFormat, SuiteSpec, ESTIMATED_CYCLES};
use super::process::{run_process, ProcessEnd, ProcessOutcome, ProcessSpec};
use crate::files::cache_model::CacheModel;

/// About how many instructions the iterations of a Google Benchmark case measured beyond
/// its first should hold (10 million: a second or so under cachegrind).
pub(crate) const ITERATION_INSTRUCTIONS: f64 = 1e7;

/// The most iterations a Google Benchmark case is asked for (an empty loop reaches it).
const MAX_ITERATIONS: u64 = 1 << 20;

/// Whether `name` (as valgrind demangles it) is one of criterion's timing loops: `iter`,
/// `iter_custom`, `iter_batched` or `iter_batched_ref` of `Bencher` or `AsyncBencher`, all
/// `#[inline(never)]` in criterion 0.4 to 0.8 (read in their sources), as legacy symbols
/// name them (`criterion::bencher::Bencher<M>::iter`) and as v0 ones do
/// (`<criterion::bencher::Bencher>::iter::<u64, fib::benches::{closure#0}::{closure#0}>`).
/// Not `iter_with_setup` or `iter_with_large_drop`: they call `iter_batched`.
fn is_criterion_loop(name: &str) -> bool {
    static LOOP: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    LOOP.get_or_init(|| {
        regex::Regex::new(
            r"^(?:criterion::(?:bencher::)?(?:Async)?Bencher<[^<>]*>::(?:iter|iter_custom|iter_batched|iter_batched_ref)|<criterion::(?:bencher::)?(?:Async)?Bencher(?:<.*>)?>::(?:iter|iter_custom|iter_batched|iter_batched_ref)::<.*>)$",
        )
        .expect("a valid regular expression")
    })
    .is_match(name)
}

/// An execution under `cachegrind:SUITE`: its processes as one (`outcome`: their wall and
/// CPU times summed, the first that did not exit 0 saying how the execution ended), each
/// case's estimated cycles or why they could not be had, and, when a process failed, what it
/// was doing.
pub(crate) struct Counted {
    pub(crate) outcome: ProcessOutcome,
    pub(crate) cases: Result<Vec<(String, f64)>>,
    pub(crate) failed_step: Option<String>,
}

/// Runs every case of `suite` alone under cachegrind (see the module's documentation):
/// `spec` is the execution's process, its command expanded, not yet under valgrind.
pub(crate) fn run(
    spec: &ProcessSpec,
    (suite, kept): (&SuiteSpec, Option<&regex::Regex>),
    cg_dir: &Path,
    model: Option<&CacheModel>,
) -> Counted {
    let mut session = Session {
        spec,
        suite,
        kept,
        cg_dir,
        model,
        deadline: spec.timeout.map(|t| Instant::now() + t),
        total: ProcessOutcome::not_run(ProcessEnd::Exited(0)),
    };
    let result = session.every_case();
    let (cases, failed_step) = match result {
        Ok(values) => (Ok(values), None),
        Err((step, Stop::Metric(e))) => (Err(e.context(step)), None),
        Err((step, Stop::Process)) => (Err(anyhow!("{step} failed")), Some(step)),
    };
    Counted {
        outcome: session.total,
        cases,
        failed_step,
    }
}

/// Why an execution stopped before every case was counted.
enum Stop {
    /// A process did not exit 0: the session's outcome says how it ended.
    Process,
    /// A process exited 0 but its output or counts were not what was asked.
    Metric(anyhow::Error),
}

/// The step that stopped (`"listing the cases"`, `"case \"BM_x\" at 8 iterations"`) and why.
type Stopped = (String, Stop);

/// The events of one process's cachegrind files, raw and derived.
type Totals = Vec<(String, f64)>;

struct Session<'a> {
    spec: &'a ProcessSpec,
    suite: &'a SuiteSpec,
    /// `--cases`: the listed cases that are run.
    kept: Option<&'a regex::Regex>,
    cg_dir: &'a Path,
    model: Option<&'a CacheModel>,
    deadline: Option<Instant>,
    total: ProcessOutcome,
}

impl Session<'_> {
    /// Lists the cases, then counts each; its value in the order listed.
    fn every_case(&mut self) -> Result<Vec<(String, f64)>, Stopped> {
        let listing = "listing the cases".to_string();
        let list_flag = match self.suite.format {
            SuiteFormat::Criterion => "--list",
            _ => "--benchmark_list_tests=true",
        };
        self.process(&[list_flag.to_string()], Counting::Not)
            .map_err(|stop| (self.refused_arguments(&listing), stop))?;
        let names = super::suite::listed_cases(self.suite, &self.spec.stdout)
            .and_then(|names| match names.is_empty() {
                true => Err(anyhow!(
                    "the suite listed no case when asked with {list_flag} appended to the \
                     command (a wrapper script must pass its arguments on: \"$@\")"
                )),
                false => Ok(names),
            })
            .and_then(|names| super::suite::kept_cases(names, self.kept, |n| n))
            .map_err(|e| (listing.clone(), Stop::Metric(e)))?;
        let mut values = Vec::with_capacity(names.len());
        match self.suite.format {
            SuiteFormat::Criterion => {
                for name in names {
                    let value = self.criterion_case(&name)?;
                    values.push((name, value));
                }
            }
            _ => {
                for name in names {
                    let value = self.gbench_case(&name)?;
                    values.push((name, value));
                }
            }
        }
        Ok(values)
    }

    /// One iteration of Google Benchmark case `name` beyond its first.
    fn gbench_case(&mut self, name: &str) -> Result<f64, Stopped> {
        let first = self.gbench_run(name, 1)?;
        let second = self.gbench_run(name, 2)?;
        let n = iterations_for(instructions(&second) - instructions(&first));
        let last = match n {
            2 => second,
            _ => self.gbench_run(name, n)?,
        };
        difference(&last, &first, n - 1).map_err(|e| (case_step(name, Some(n)), Stop::Metric(e)))
    }

    /// The counts of Google Benchmark case `name` run alone for exactly `n` iterations,
    /// checked against the suite's own report of what it ran.
    fn gbench_run(&mut self, name: &str, n: u64) -> Result<Totals, Stopped> {
        let step = case_step(name, Some(n));
        let before = super::suite::source_before(self.suite, &self.spec.cwd);
        let args = [
            format!("--benchmark_filter=^{}$", gbench_escape(name)),
            format!("--benchmark_min_time={n}x"),
            "--benchmark_repetitions=1".to_string(),
            "--benchmark_min_warmup_time=0".to_string(),
        ];
        let totals = self
            .counted(&args)
            .map_err(|stop| (self.refused_arguments(&step), stop))?;
        let runs =
            super::suite::gbench_runs(self.suite, &self.spec.stdout, &self.spec.cwd, &before)
                .map_err(|e| (step.clone(), Stop::Metric(e)))?;
        match runs.as_slice() {
            [(ran, Some(iterations))] if ran == name && *iterations == n as f64 => Ok(totals),
            [(ran, iterations)] if ran == name => Err((
                step,
                Stop::Metric(anyhow!(
                    "it ran {} iterations where {n} were asked: Google Benchmark before 1.8 \
                     cannot be given a number of iterations (--benchmark_min_time={n}x), and \
                     a case that sets its own Iterations() or MinTime() keeps them (leave \
                     such a case out: Google Benchmark's own --benchmark_filter=-REGEX in the \
                     command, or --cases)",
                    iterations.map_or("an unknown number of".to_string(), |i| i.to_string())
                )),
            )),
            _ => Err((
                step,
                Stop::Metric(anyhow!(
                    "the suite ran {} case(s) ({}) where it was asked for this one alone (an \
                     argument after layoutrand's --benchmark_filter overrides it?)",
                    runs.len(),
                    runs.iter()
                        .take(3)
                        .map(|(n, _)| format!("{n:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            )),
        }
    }

    /// The estimated cycles of criterion's test mode running benchmark `name` alone,
    /// counted inside its timing loop, checked against its `Testing NAME` line.
    fn criterion_case(&mut self, name: &str) -> Result<f64, Stopped> {
        let step = case_step(name, None);
        let args = ["--test".to_string(), format!("^{}$", regex::escape(name))];
        let (totals, calls) = self
            .process(&args, Counting::CallsOf(is_criterion_loop))
            .map_err(|stop| (self.refused_arguments(&step), stop))?
            .expect("a counted process has totals");
        if calls == 0 {
            let e = anyhow!(
                "no call of criterion's timing loop was counted (criterion::bencher::Bencher's \
                 iter, iter_custom, iter_batched or iter_batched_ref): valgrind names \
                 functions from the binary's symbols, which a stripped binary has not, and a \
                 fork of criterion names its Bencher otherwise"
            );
            return Err((step, Stop::Metric(e)));
        }
        let tested = format!("Testing {name}");
        let ran =
            count_lines(&self.spec.stdout, &tested).map_err(|e| (step.clone(), Stop::Metric(e)))?;
        let e = match ran {
            1 => {
                return event(&totals, ESTIMATED_CYCLES).ok_or_else(|| {
                    let e = anyhow!("cachegrind gave no {ESTIMATED_CYCLES}");
                    (step.clone(), Stop::Metric(e))
                })
            }
            _ => anyhow!(
                "criterion's output has {ran} line(s) `{tested}` where 1 was expected: the \
                 command must not name a filter of its own (layoutrand selects each case \
                 with its filter ^NAME$)"
            ),
        };
        Err((step, Stop::Metric(e)))
    }

    /// `step`, with the likely cause when the suite has just refused its arguments (the exit
    /// status of a usage error: 2 from criterion's parser, 1 from Google Benchmark's).
    fn refused_arguments(&self, step: &str) -> String {
        let ProcessEnd::Exited(status) = self.total.end else {
            return step.to_string();
        };
        let (usage_error, appended, advice) = match self.suite.format {
            SuiteFormat::Criterion => (
                2,
                "--list, or --test ^NAME$",
                "a criterion command must name no filter of its own",
            ),
            _ => (
                1,
                "--benchmark_list_tests, or --benchmark_filter=^NAME$ \
                 --benchmark_min_time=Nx --benchmark_repetitions=1 \
                 --benchmark_min_warmup_time=0",
                "Google Benchmark takes a number of iterations from 1.8 on",
            ),
        };
        if status != usage_error {
            return step.to_string();
        }
        format!(
            "{step} (exit status {status}: did the suite refuse the arguments layoutrand \
             appends, {appended}? The command must end with the suite's own arguments; \
             {advice})"
        )
    }

    /// Runs the command with `extra` arguments under cachegrind; its totals.
    fn counted(&mut self, extra: &[String]) -> Result<Totals, Stop> {
        self.process(extra, Counting::Process)
            .map(|counted| counted.expect("a counted process has totals").0)
    }

    /// Runs the command with `extra` arguments appended, counted as `counting` says, in what
    /// is left of the execution's time limit; its totals when counted, with the number of
    /// calls counted (1 for a whole process).
    fn process(
        &mut self,
        extra: &[String],
        counting: Counting,
    ) -> Result<Option<(Totals, u64)>, Stop> {
        let mut argv = self.spec.argv.clone();
        argv.extend(extra.iter().map(OsString::from));
        if !matches!(counting, Counting::Not) {
            super::metric::empty_cachegrind_dir(self.cg_dir).map_err(Stop::Metric)?;
        }
        argv = match counting {
            Counting::Not => argv,
            Counting::Process => super::metric::cachegrind_argv(self.cg_dir, self.model, &argv),
            Counting::CallsOf(_) => {
                let model = self.model.ok_or_else(|| {
                    Stop::Metric(anyhow!(
                        "this experiment has no cache model recorded (a run from before \
                         models were pinned cannot count a suite's cases)"
                    ))
                })?;
                super::metric::callgrind_argv(self.cg_dir, model, &argv)
            }
        };
        let timeout = match self.deadline {
            Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => {
                    self.total.end = ProcessEnd::TimedOut;
                    return Err(Stop::Process);
                }
            },
            None => None,
        };
        let outcome = run_process(&ProcessSpec {
            argv,
            timeout,
            ..self.spec.clone()
        });
        let total = &mut self.total;
        total.wall_ns += outcome.wall_ns;
        total.cpu_ns += outcome.cpu_ns;
        total.max_rss_kib = total.max_rss_kib.max(outcome.max_rss_kib);
        total.abandoned += outcome.abandoned;
        if outcome.end != ProcessEnd::Exited(0) {
            total.end = outcome.end;
            return Err(Stop::Process);
        }
        let totals = match counting {
            Counting::Not => return Ok(None),
            Counting::Process => read_cachegrind_totals(self.cg_dir).map(|t| (t, 1)),
            Counting::CallsOf(is_target) => {
                super::callgrind::inclusive_totals(self.cg_dir, is_target)
                    .and_then(|(events, calls)| Ok((super::metric::with_derived(events)?, calls)))
            }
        };
        totals.map(Some).map_err(Stop::Metric)
    }
}

/// What of a process valgrind counts.
#[derive(Clone, Copy)]
enum Counting {
    /// Nothing: it runs natively.
    Not,
    /// All of it (cachegrind).
    Process,
    /// The calls of the functions this accepts, inclusively (callgrind, the same cache
    /// simulation).
    CallsOf(fn(&str) -> bool),
}

/// How a step names case `name` (and the iterations it was asked for).
fn case_step(name: &str, iterations: Option<u64>) -> String {
    match iterations {
        Some(n) => format!(
            "case {name:?} at {}",
            crate::units::counted(n, "iteration", "iterations")
        ),
        None => format!("case {name:?}"),
    }
}

/// `Ir` of `totals` (0 without it).
fn instructions(totals: &Totals) -> f64 {
    event(totals, "Ir").unwrap_or(0.0)
}

fn event(totals: &Totals, name: &str) -> Option<f64> {
    totals.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
}

/// The iterations a Google Benchmark case is run for, given that its second iteration took
/// `per_iteration` instructions: the power of two (2 to [`MAX_ITERATIONS`]) whose
/// iterations beyond the first hold at least [`ITERATION_INSTRUCTIONS`].
fn iterations_for(per_iteration: f64) -> u64 {
    let wanted = (ITERATION_INSTRUCTIONS / per_iteration.max(1.0)).ceil() as u64 + 1;
    wanted.next_power_of_two().clamp(2, MAX_ITERATIONS)
}

/// Estimated cycles of `more` less those of `less`, over `iterations`. A case whose loop
/// the compiler emptied costs nothing per iteration, and the few hundred cycles by which two
/// processes differ then leave its value a fraction of a cycle either side of zero: it is
/// 0. Refused when a whole cycle or more below zero (the processes then differ by more than
/// the case's work).
fn difference(more: &Totals, less: &Totals, iterations: u64) -> Result<f64> {
    let cycles = |t: &Totals| {
        event(t, ESTIMATED_CYCLES).ok_or_else(|| anyhow!("cachegrind gave no {ESTIMATED_CYCLES}"))
    };
    let value = (cycles(more)? - cycles(less)?) / iterations as f64;
    if value <= -1.0 {
        return Err(anyhow!(
            "it counted fewer estimated cycles than the process it is compared with \
             ({value:.0} per iteration): the case's own work is below what two processes \
             differ by (leave it out: --benchmark_filter=-REGEX in the command, or --cases)"
        ));
    }
    Ok(value.max(0.0))
}

/// Google Benchmark's filter is a regular expression: `name` with its special characters
/// escaped, so that `^…$` matches it alone.
fn gbench_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if ".^$|()[]{}*+?\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// How many lines of the captured output `path` are `line` (trailing blanks aside), read a
/// bounded line at a time as a reported metric's output is.
fn count_lines(path: &Path, line: &str) -> Result<usize> {
    use std::io::{BufRead, Read};
    let file = crate::files::confined::open_regular(path)?;
    let mut input = std::io::BufReader::new(file);
    let (mut count, mut buffer) = (0, Vec::new());
    loop {
        buffer.clear();
        let limit = super::metric::MAX_REPORTED_LINE as u64 + 1;
        if input.by_ref().take(limit).read_until(b'\n', &mut buffer)? == 0 {
            return Ok(count);
        }
        count += usize::from(String::from_utf8_lossy(&buffer).trim_end() == line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_grow_until_the_measured_ones_hold_ten_million_instructions() {
        assert_eq!(iterations_for(5e7), 2);
        assert_eq!(iterations_for(1e7), 2);
        assert_eq!(iterations_for(4e6), 4);
        assert_eq!(iterations_for(92_923.0), 128);
        assert_eq!(iterations_for(4_185.0), 4096);
        // An empty loop, or two processes that differ by more than the iteration: the most.
        assert_eq!(iterations_for(7.0), MAX_ITERATIONS);
        assert_eq!(iterations_for(-61.0), MAX_ITERATIONS);
    }

    /// criterion's loops by their legacy and v0 names, and not the functions that call
    /// them or whose names only mention them.
    #[test]
    fn criterion_loops_are_known_by_both_manglings() {
        for name in [
            "criterion::bencher::Bencher<M>::iter",
            "criterion::bencher::Bencher<M>::iter_batched_ref",
            "criterion::bencher::AsyncBencher<A,M>::iter_custom",
            "criterion::Bencher<M>::iter",
            "<criterion::bencher::Bencher>::iter::<u64, fib::benches::{closure#0}::{closure#0}>",
            "<criterion::bencher::Bencher<my::Cycles>>::iter_batched::<u64, u64, fib::{closure#0}, fn(u64) -> u64>",
        ] {
            assert!(is_criterion_loop(name), "{name}");
        }
        for name in [
            "criterion::bencher::Bencher<M>::iter_with_setup",
            "criterion::bencher::Bencher<M>::iter_with_large_drop",
            "<criterion::bencher::Bencher>::iter::<u64, f::{closure#0}>::{closure#0}",
            "core::ptr::drop_in_place<criterion::bencher::Bencher<M>::iter>",
            "<criterion::benchmark_group::BenchmarkGroup<criterion::measurement::WallTime>>::bench_function::<alloc::string::String, fib::benches::{closure#0}>",
        ] {
            assert!(!is_criterion_loop(name), "{name}");
        }
    }

    #[test]
    fn a_filter_matches_the_one_name() {
        let escaped = gbench_escape("BM_Sort<int>/8/real_time");
        assert_eq!(escaped, "BM_Sort<int>/8/real_time");
        let escaped = gbench_escape("BM_x/min_time:0.5/(a|b)*");
        assert_eq!(escaped, r"BM_x/min_time:0\.5/\(a\|b\)\*");
        let re = regex::Regex::new(&format!("^{escaped}$")).unwrap();
        assert!(re.is_match("BM_x/min_time:0.5/(a|b)*"));
        assert!(!re.is_match("BM_x/min_time:0x5/(a|b)*"));
    }

    #[test]
    fn the_value_is_the_difference_per_iteration_and_never_negative() {
        let totals =
            |ir: f64| -> Totals { vec![("Ir".into(), ir), (ESTIMATED_CYCLES.into(), 2.0 * ir)] };
        assert_eq!(
            difference(&totals(2_000_000.0), &totals(1_000_000.0), 4).unwrap(),
            500_000.0
        );
        // An emptied loop: 300 cycles of difference between processes over 2^20 iterations.
        let emptied = difference(&totals(1_000_000.0), &totals(1_000_150.0), 1 << 20);
        assert_eq!(emptied.unwrap(), 0.0);
        let e = difference(&totals(999.0), &totals(1_000.0), 1).unwrap_err();
        assert!(format!("{e}").contains("fewer estimated cycles"), "{e}");
    }
}
