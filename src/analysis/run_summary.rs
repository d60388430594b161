//! The end-of-run summary: per binary, how many executions succeeded, the mean and the
//! coefficient of variation of the primary metric, and how many executions failed.
//!
//! This is a quick look, not the analysis (that is `layoutrand report`): values are pooled
//! over executions and iterations, warmup iterations left out. It is computed here, not by
//! the runner, so that every number a command prints comes from the analysis engine and
//! the renderer (`report::export::run_summary`) reads no stage's types.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::files::store::{scan_commits, Execution, ExecutionStatus, Measurement, Results};

/// One binary's line of the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct BinarySummary {
    /// Program name.
    pub(crate) program: String,
    /// The variant, `None` without variants.
    pub(crate) variant: Option<String>,
    /// Binary label.
    pub(crate) binary: String,
    /// Successful executions.
    pub(crate) executions_ok: usize,
    /// Failed executions (any status but ok).
    pub(crate) failures: usize,
    /// Number of values pooled.
    pub(crate) values: usize,
    /// Mean of the values (NaN when there are none).
    pub(crate) mean: f64,
    /// Sample standard deviation / mean (NaN with fewer than two values).
    pub(crate) cv: f64,
    /// Unit of the values.
    pub(crate) unit: String,
}

/// Summarises the non-warmup values of `metric` per (program, binary), in order of first
/// appearance in the store.
pub fn summarize(results: &Results, metric: &str) -> Vec<BinarySummary> {
    let mut summary = Summarizer::new(metric);
    let mut measurements = results.measurements.iter().peekable();
    for e in &results.executions {
        // The measurements of one execution are contiguous and in execution order.
        let mut mine = Vec::new();
        while let Some(m) = measurements.next_if(|m| m.key_ref() == e.key_ref()) {
            mine.push(m.clone());
        }
        summary.add(e, &mine);
    }
    summary.finish()
}

/// The summary of the store in `dir`, read one committed execution at a time (memory bounded
/// by the number of binaries, whatever the store's size): what `run` prints at its end.
pub fn summarize_store(dir: &Path, metric: &str) -> Result<Vec<BinarySummary>> {
    let mut summary = Summarizer::new(metric);
    scan_commits(dir, |e, mine| summary.add(e, &mine))?;
    Ok(summary.finish())
}

/// A program (with variants: program and variant) of which no execution of any binary
/// succeeded although some failed; the message is `crate::report::words::run_summary`'s.
#[derive(Debug, Clone, PartialEq)]
pub struct NeverRan {
    /// Program name.
    pub(crate) program: String,
    /// The variant, `None` without variants.
    pub(crate) variant: Option<String>,
    /// Its failed executions.
    pub(crate) failed: usize,
    /// Its binaries.
    pub(crate) binaries: usize,
    /// The stored output of one of its failed executions (trailing space trimmed), if any
    /// kept one.
    pub(crate) output: Option<String>,
    /// The store whose `output_tail`s hold the outputs.
    pub(crate) store: PathBuf,
}

/// The programs (with variants: program and variant) of which no execution of any binary
/// succeeded although some failed, each with the stored output of one of its failed
/// executions (read from the store in `dir`); empty when every program ran somewhere.
/// `run` exits with `ProgramFailed` when there is one.
pub fn programs_that_never_ran(dir: &Path, summary: &[BinarySummary]) -> Result<Vec<NeverRan>> {
    type Program = (String, Option<String>);
    let mut per_program: Vec<(Program, usize, usize, usize)> = Vec::new();
    for s in summary {
        let key = (s.program.clone(), s.variant.clone());
        match per_program.iter_mut().find(|(k, ..)| *k == key) {
            Some((_, ok, failed, binaries)) => {
                *ok += s.executions_ok;
                *failed += s.failures;
                *binaries += 1;
            }
            None => per_program.push((key, s.executions_ok, s.failures, 1)),
        }
    }
    let never: Vec<&(Program, usize, usize, usize)> = per_program
        .iter()
        .filter(|(_, ok, failed, _)| *ok == 0 && *failed > 0)
        .collect();
    if never.is_empty() {
        return Ok(Vec::new());
    }
    // One stored output per failed program: the first failed execution that kept one.
    let mut outputs: Vec<(Program, String)> = Vec::new();
    scan_commits(dir, |e, _| {
        let key = (e.program.clone(), e.variant.clone());
        if let Some(tail) = e.output_tail.as_deref().filter(|t| !t.trim().is_empty()) {
            if never.iter().any(|(k, ..)| *k == key) && !outputs.iter().any(|(k, _)| *k == key) {
                outputs.push((key, tail.trim_end().to_string()));
            }
        }
    })?;
    let store = dir.join(crate::files::results::RESULTS_FILE);
    Ok(never
        .iter()
        .map(|((program, variant), _, failed, binaries)| NeverRan {
            program: program.clone(),
            variant: variant.clone(),
            failed: *failed,
            binaries: *binaries,
            output: outputs
                .iter()
                .find(|(k, _)| k.0 == *program && k.1 == *variant)
                .map(|(_, t)| t.clone()),
            store: store.clone(),
        })
        .collect())
}

/// The summary built one committed execution at a time (see `store::scan_results`), in
/// memory bounded by the number of binaries: mean and variance by Welford's update.
#[derive(Debug, Clone)]
pub(crate) struct Summarizer {
    metric: String,
    out: Vec<BinarySummary>,
    /// Per entry of `out`: running mean and sum of squared deviations.
    moments: Vec<(f64, f64)>,
    index: HashMap<(String, Option<String>, String), usize>,
}

impl Summarizer {
    /// An empty summary of `metric`.
    pub(crate) fn new(metric: &str) -> Summarizer {
        Summarizer {
            metric: metric.to_string(),
            out: Vec::new(),
            moments: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// Takes in one committed execution and its measurements.
    pub(crate) fn add(&mut self, e: &Execution, measurements: &[Measurement]) {
        let key = (e.program.clone(), e.variant.clone(), e.binary.clone());
        let i = *self.index.entry(key).or_insert_with(|| {
            self.out.push(BinarySummary {
                program: e.program.clone(),
                variant: e.variant.clone(),
                binary: e.binary.clone(),
                executions_ok: 0,
                failures: 0,
                values: 0,
                mean: f64::NAN,
                cv: f64::NAN,
                unit: String::new(),
            });
            self.moments.push((0.0, 0.0));
            self.out.len() - 1
        });
        let s = &mut self.out[i];
        if e.status == ExecutionStatus::Ok {
            s.executions_ok += 1;
        } else {
            s.failures += 1;
        }
        let (mean, m2) = &mut self.moments[i];
        for m in measurements
            .iter()
            .filter(|m| m.metric == self.metric && !m.warmup)
        {
            s.values += 1;
            let delta = m.value - *mean;
            *mean += delta / s.values as f64;
            *m2 += delta * (m.value - *mean);
            s.unit.clone_from(&m.unit);
        }
    }

    /// The summary lines, by program, variant and binary (the baseline, the build's own
    /// binary, then the seeds by number), not in the schedule's random order.
    pub(crate) fn finish(mut self) -> Vec<BinarySummary> {
        for (s, (mean, m2)) in self.out.iter_mut().zip(&self.moments) {
            if s.values > 0 {
                s.mean = *mean;
            }
            if s.values > 1 {
                s.cv = (m2 / (s.values as f64 - 1.0)).sqrt() / s.mean;
            }
        }
        self.out.sort_by(|a, b| {
            (&a.program, &a.variant, binary_rank(&a.binary)).cmp(&(
                &b.program,
                &b.variant,
                binary_rank(&b.binary),
            ))
        });
        self.out
    }
}

/// Where a binary's line goes: the baseline, the build's own binary (`as-built`), the seeds
/// by number (`seed-10` after `seed-9`), then any other name in alphabetical order.
fn binary_rank(binary: &str) -> (u8, u64, &str) {
    match binary {
        "baseline" => (0, 0, ""),
        "as-built" => (1, 0, ""),
        _ => match binary.strip_prefix("seed-").and_then(|n| n.parse().ok()) {
            Some(seed) => (2, seed, ""),
            None => (3, 0, binary),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::results::fixtures;

    #[test]
    fn lines_come_by_program_and_binary_not_in_schedule_order() {
        let mut names = vec![
            "seed-10", "other", "seed-2", "as-built", "baseline", "seed-9",
        ];
        names.sort_by_key(|b| binary_rank(b));
        assert_eq!(
            names,
            ["baseline", "as-built", "seed-2", "seed-9", "seed-10", "other"]
        );
    }

    #[test]
    fn mean_and_cv_leave_out_warmup_and_failures() {
        let mut r = Results::default();
        let values = [
            (0, true, 100.0),
            (1, false, 2.0),
            (2, false, 4.0),
            (3, false, 6.0),
        ];
        for (it, warm, v) in values {
            r.measurements.push(Measurement {
                warmup: warm,
                metric: "reported".into(),
                unit: "ms".into(),
                ..fixtures::measurement("baseline", 0, it, v)
            });
        }
        for (i, status) in [(0, ExecutionStatus::Ok), (1, ExecutionStatus::Timeout)] {
            r.executions.push(Execution {
                wall_ns: 0,
                status,
                exit_code: None,
                ..fixtures::execution("baseline", i, 0)
            });
        }
        let s = summarize(&r, "reported");
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].executions_ok, s[0].failures, s[0].values), (1, 1, 3));
        // mean of 2, 4, 6 = 4; sample sd = 2; CV = 0.5.
        assert!((s[0].mean - 4.0).abs() < 1e-12);
        assert!((s[0].cv - 0.5).abs() < 1e-12);
    }
}
