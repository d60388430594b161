//! The end-of-run summary: per binary, how many executions succeeded, the mean and the
//! coefficient of variation of the primary metric, and how many executions failed.
//!
//! This is a quick look, not the analysis (that is `layoutrand report`): values are pooled
//! over executions and iterations, warmup iterations left out.

use super::store::{ExecutionStatus, Results};

/// One binary's line of the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct BinarySummary {
    /// Program name.
    pub program: String,
    /// Variant label.
    pub variant: String,
    /// Successful executions.
    pub executions_ok: usize,
    /// Failed executions (any status but ok).
    pub failures: usize,
    /// Number of values pooled.
    pub values: usize,
    /// Mean of the values (NaN when there are none).
    pub mean: f64,
    /// Sample standard deviation / mean (NaN with fewer than two values).
    pub cv: f64,
    /// Unit of the values.
    pub unit: String,
}

/// Summarises the non-warmup values of `metric` per (program, variant), in order of first
/// appearance in the store.
pub fn summarize(results: &Results, metric: &str) -> Vec<BinarySummary> {
    let mut out: Vec<BinarySummary> = Vec::new();
    let slot = |program: &str, variant: &str, out: &mut Vec<BinarySummary>| -> usize {
        if let Some(i) = out
            .iter()
            .position(|s| s.program == program && s.variant == variant)
        {
            return i;
        }
        out.push(BinarySummary {
            program: program.to_string(),
            variant: variant.to_string(),
            executions_ok: 0,
            failures: 0,
            values: 0,
            mean: f64::NAN,
            cv: f64::NAN,
            unit: String::new(),
        });
        out.len() - 1
    };
    for e in &results.executions {
        let i = slot(&e.program, &e.variant, &mut out);
        if e.status == ExecutionStatus::Ok {
            out[i].executions_ok += 1;
        } else {
            out[i].failures += 1;
        }
    }
    let mut values: Vec<Vec<f64>> = Vec::new();
    for m in results
        .measurements
        .iter()
        .filter(|m| m.metric == metric && !m.warmup)
    {
        let i = slot(&m.program, &m.variant, &mut out);
        values.resize(out.len(), Vec::new());
        values[i].push(m.value);
        out[i].unit.clone_from(&m.unit);
    }
    values.resize(out.len(), Vec::new());
    for (s, v) in out.iter_mut().zip(&values) {
        s.values = v.len();
        if v.is_empty() {
            continue;
        }
        let n = v.len() as f64;
        s.mean = v.iter().sum::<f64>() / n;
        if v.len() > 1 {
            let var = v.iter().map(|x| (x - s.mean).powi(2)).sum::<f64>() / (n - 1.0);
            s.cv = var.sqrt() / s.mean;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::store::{Execution, Measurement};

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
                program: "p".into(),
                variant: "baseline".into(),
                seed: None,
                execution: 0,
                iteration: it,
                warmup: warm,
                metric: "reported".into(),
                value: v,
                unit: "ms".into(),
            });
        }
        for (i, status) in [(0, ExecutionStatus::Ok), (1, ExecutionStatus::Timeout)] {
            r.executions.push(Execution {
                program: "p".into(),
                variant: "baseline".into(),
                seed: None,
                execution: i,
                schedule_index: 0,
                env_pad: 0,
                start_unix: 0.0,
                wall_ns: 0,
                status,
                exit_code: None,
                signal: None,
                output_tail: None,
                machine: None,
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
