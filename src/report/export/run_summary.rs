//! The table `layoutrand run` prints at its end: one line per binary with its executions,
//! mean, coefficient of variation and failures.

use std::fmt::Write as _;

use crate::analysis::run_summary::BinarySummary;
use crate::report::numfmt::{percent, Scale};

/// One line per binary (the variant's name before the binary's, with variants); `no value`
/// for the mean of a binary without a measured value (`not computable` for one beyond
/// double precision), `-` for a CV that cannot be computed (fewer than two values).
pub fn render_run_summary(summary: &[BinarySummary]) -> String {
    let rows: Vec<[String; 5]> = summary
        .iter()
        .map(|s| {
            let cv = if s.cv.is_finite() {
                percent(s.cv, 3)
            } else {
                "-".to_string()
            };
            // Six significant digits in a readable unit (`7.24410 s`, never `7244099917 ns`).
            let mean = if s.values == 0 {
                "no value".to_string()
            } else if s.mean.is_finite() {
                Scale::for_values(&s.unit, s.mean).quantity_digits(s.mean, 6)
            } else {
                "not computable".to_string()
            };
            let binary = match &s.variant {
                Some(v) => format!("{v} {}", s.binary),
                None => s.binary.clone(),
            };
            let n = s.executions_ok.to_string();
            [s.program.clone(), binary, n, mean, cv]
        })
        .collect();
    // Columns as wide as their widest cell (at least the former fixed widths), so that a
    // long program name does not push its line out of line.
    let width = |k: usize, least: usize| {
        rows.iter()
            .map(|r| r[k].chars().count())
            .max()
            .unwrap_or(0)
            .max(least)
    };
    let widths = [
        width(0, 16),
        width(1, 12),
        width(2, 4),
        width(3, 17),
        width(4, 8),
    ];
    let mut out = String::new();
    for (row, s) in rows.iter().zip(summary) {
        let _ = writeln!(
            out,
            "{:<w0$} {:<w1$} n={:<w2$} mean={:<w3$} CV={:<w4$} failures={}",
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            s.failures,
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
            w4 = widths[4],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary of 5 successful executions and one failure, or of none and one failure
    /// when `mean` is NaN (as the summary leaves the mean of a binary without values).
    fn binary(mean: f64, cv: f64, variant: Option<&str>) -> BinarySummary {
        let measured = if mean.is_nan() { 0 } else { 5 };
        BinarySummary {
            program: "gzip".into(),
            variant: variant.map(str::to_string),
            binary: "seed-3".into(),
            executions_ok: measured,
            failures: 1,
            values: measured,
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
        assert_eq!(text.lines().count(), 2, "{text}");
        // The second binary measured nothing: no mean (said in words, not as `- ns`), no CV.
        insta::assert_snapshot!(text);
        let large = render_run_summary(&[binary(7_244_099_917.0, 0.1074, None)]);
        insta::assert_snapshot!(large);
    }

    #[test]
    fn a_long_program_name_keeps_the_columns_in_line() {
        let mut long = binary(12345.678, 0.01234, None);
        long.program = "a_program_of_twenty_four".into();
        let text = render_run_summary(&[binary(1.0, 0.5, None), long]);
        // In characters, as a terminal shows them (`µ` is two bytes).
        let at = |line: &str, what: &str| line[..line.find(what).unwrap()].chars().count();
        let lines: Vec<&str> = text.lines().collect();
        for column in ["n=", "mean=", "CV=", "failures="] {
            assert_eq!(at(lines[0], column), at(lines[1], column), "{text}");
        }
    }
}
