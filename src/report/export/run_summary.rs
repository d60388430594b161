//! The table `layoutrand run` prints at its end: one line per binary with its executions,
//! mean, coefficient of variation and failures.

use std::fmt::Write as _;

use crate::analysis::run_summary::BinarySummary;
use crate::report::numfmt::{percent, Scale};

/// One line per binary (the variant's name before the binary's, with variants); `-` for a
/// mean or CV that cannot be computed (no successful execution, or a single one).
pub fn render_run_summary(summary: &[BinarySummary]) -> String {
    let mut out = String::new();
    for s in summary {
        let cv = if s.cv.is_finite() {
            percent(s.cv, 3)
        } else {
            "-".to_string()
        };
        // Six significant digits in a readable unit (`7.24410 s`, never `7244099917 ns`).
        let mean = if s.mean.is_finite() {
            Scale::for_values(&s.unit, s.mean).quantity_digits(s.mean, 6)
        } else {
            format!("- {}", s.unit)
        };
        let binary = match &s.variant {
            Some(v) => format!("{v} {}", s.binary),
            None => s.binary.clone(),
        };
        let _ = writeln!(
            out,
            "{:<16} {:<12} n={:<4} mean={:<17} CV={:<8} failures={}",
            s.program, binary, s.executions_ok, mean, cv, s.failures
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(mean: f64, cv: f64, variant: Option<&str>) -> BinarySummary {
        BinarySummary {
            program: "gzip".into(),
            variant: variant.map(str::to_string),
            binary: "seed-3".into(),
            executions_ok: 5,
            failures: 1,
            values: 5,
            mean,
            cv,
            unit: "ns".into(),
        }
    }

    #[test]
    fn one_line_per_binary_with_six_significant_digits() {
        let text = render_run_summary(&[
            binary(12345.678, 0.01234, None),
            binary(f64::NAN, f64::NAN, Some("O3")),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("gzip             seed-3       n=5    mean=12.3457 µs "));
        assert!(lines[0].contains("CV=1.23 %") && lines[0].ends_with("failures=1"));
        let large = render_run_summary(&[binary(7_244_099_917.0, 0.1074, None)]);
        assert!(
            large.contains("mean=7.24410 s ") && large.contains("CV=10.7 %"),
            "{large}"
        );
        assert!(lines[1].contains("O3 seed-3") && lines[1].contains("mean=- "));
        assert!(lines[1].contains("CV=-"), "{}", lines[1]);
    }
}
