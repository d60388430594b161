//! One CSV row per program and metric (`kind` `series`), then one per comparison of
//! variants (`comparison`: each variant against the base; `tukey_pair`: each pair of
//! Tukey's family): flat columns, raw numbers, empty cells for "not computable" or "not
//! applicable to this kind of row".

use anyhow::Result;

use super::tables::pair_confidence;
use super::Exporter;
use crate::analysis::answers::model::{AsBuilt, MultipleComparison, Report, SeriesReport};
use crate::analysis::effect::{Direction, EffectVerdict, Interval};
use crate::analysis::variants::PairComparison;
use crate::analysis::vocabulary::json_word;

/// CSV.
#[derive(Debug, Clone, Copy)]
pub struct CsvExporter;

/// The columns, in order.
/// `variant` and the bootstrap columns come last so that readers of the first 22 columns
/// (reports before variants and `--bootstrap`) keep working; the default layout's verdict
/// and prediction interval were added after them, the comparisons' columns (from `kind`
/// to `direction`) after those, and the as-built binary's answer (from `as_built_mean` on)
/// after those: every column keeps the place it had.
pub(crate) const COLUMNS: [&str; 46] = [
    "program",
    "metric",
    "unit",
    "confidence",
    "binaries",
    "executions",
    "iterations",
    "mean",
    "ci_lower",
    "ci_upper",
    "relative_half_width",
    "t_iteration",
    "t_execution",
    "t_binary",
    "anova_f",
    "anova_p",
    "icc",
    "sensitivity",
    "shift_ratio",
    "shift_ci_lower",
    "shift_ci_upper",
    "shift",
    "variant",
    "bootstrap_lower",
    "bootstrap_upper",
    "default_layout",
    "default_layout_pi_lower",
    "default_layout_pi_upper",
    "kind",
    "base",
    "ratio",
    "ratio_lower",
    "ratio_upper",
    "p_value",
    "verdict",
    "direction",
    "as_built_mean",
    "as_built_ci_lower",
    "as_built_ci_upper",
    "as_built_shift_ratio",
    "as_built_shift_ci_lower",
    "as_built_shift_ci_upper",
    "as_built_shift",
    "as_built_layout",
    "as_built_layout_pi_lower",
    "as_built_layout_pi_upper",
];

/// The columns of an incomplete store (issue 55), last and only when the store holds fewer
/// executions than the run planned: every row's answers are then provisional.
pub(crate) const INCOMPLETE_COLUMNS: [&str; 2] = ["executions_stored", "executions_planned"];

/// The split's columns (issue 35), after [`COLUMNS`] and only when some series has a split
/// (its executions ran with several data seeds), so that the CSV of every other experiment
/// keeps its bytes: each component's share with its interval's bounds, each axis's p-value,
/// the data seeds and, when there is no split, why (JSON `variance_split`'s words).
pub(crate) const SPLIT_COLUMNS: [&str; 17] = [
    "data_seeds",
    "split_cannot_tell",
    "code_share",
    "code_share_lower",
    "code_share_upper",
    "code_p",
    "data_share",
    "data_share_lower",
    "data_share_upper",
    "data_p",
    "code_x_data_share",
    "code_x_data_share_lower",
    "code_x_data_share_upper",
    "code_x_data_p",
    "run_share",
    "run_share_lower",
    "run_share_upper",
];

/// The machine's columns of the split, after [`SPLIT_COLUMNS`] and only when some series
/// has a machine component (executions on several machines, balanced), so that every other
/// CSV keeps its bytes.
pub const MACHINE_COLUMNS: [&str; 4] = [
    "machine_share",
    "machine_share_lower",
    "machine_share_upper",
    "machine_p",
];

/// The machine cells of `s`, in the order of [`MACHINE_COLUMNS`] (empty without one).
fn machine_cells(s: &SeriesReport) -> Vec<String> {
    let part = s.variance_split.as_ref().and_then(|v| v.machine.as_ref());
    vec![
        opt(part.map(|p| p.share)),
        opt(part.map(|p| p.interval.lower)),
        opt(part.map(|p| p.interval.upper)),
        opt(part.and_then(|p| p.test).map(|t| t.p_value)),
    ]
}

/// The split cells of `s`, in the order of [`SPLIT_COLUMNS`] (empty without a split).
fn split_cells(s: &SeriesReport) -> Result<Vec<String>> {
    let Some(split) = &s.variance_split else {
        return Ok(vec![String::new(); SPLIT_COLUMNS.len()]);
    };
    let why = split
        .cannot_tell
        .map_or_else(String::new, |w| json_word(&w));
    let mut cells = vec![split.data_seeds.to_string(), why];
    for (k, part) in [&split.code, &split.data, &split.code_x_data, &split.run]
        .into_iter()
        .enumerate()
    {
        cells.push(opt(part.map(|p| p.share)));
        cells.push(opt(part.map(|p| p.interval.lower)));
        cells.push(opt(part.map(|p| p.interval.upper)));
        if k < 3 {
            cells.push(opt(part.and_then(|p| p.test).map(|t| t.p_value)));
        }
    }
    Ok(cells)
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(String::new, |v| format!("{v}"))
}

/// A row from named cells: every column not named is empty.
fn row(cells: &[(&str, String)]) -> Vec<String> {
    COLUMNS
        .iter()
        .map(|c| {
            cells
                .iter()
                .find(|(name, _)| name == c)
                .map_or_else(String::new, |(_, v)| v.clone())
        })
        .collect()
}

/// The cells of the binary the user's build made (JSON `as_built`): its mean with its
/// interval, its shift from the random layouts' mean and its place among them, named as the
/// series' own (`mean`, `ci_*`) and the default layout's (`shift*`, `default_layout*`) are;
/// the intervals at the row's `confidence`. A series without one (the build kept no
/// as-built binary, or it was not run) leaves these columns empty.
fn as_built_cells(a: &AsBuilt) -> [(&'static str, String); 10] {
    let pi = a.placement.prediction_interval;
    [
        ("as_built_mean", format!("{}", a.binary.mean)),
        ("as_built_ci_lower", opt(a.binary.ci.map(|c| c.lower))),
        ("as_built_ci_upper", opt(a.binary.ci.map(|c| c.upper))),
        ("as_built_shift_ratio", opt(a.shift.ratio)),
        ("as_built_shift_ci_lower", opt(a.shift.ci.map(|c| c.lower))),
        ("as_built_shift_ci_upper", opt(a.shift.ci.map(|c| c.upper))),
        ("as_built_shift", json_word(&a.shift.verdict)),
        ("as_built_layout", json_word(&a.placement.verdict)),
        ("as_built_layout_pi_lower", opt(pi.map(|p| p.lower))),
        ("as_built_layout_pi_upper", opt(pi.map(|p| p.upper))),
    ]
}

/// The row of one series (program, variant and metric).
fn series_row(s: &SeriesReport, confidence: f64) -> Vec<String> {
    let level = |name: &str| s.levels.iter().find(|l| l.name == name);
    let reps = |name: &str| level(name).map_or(1, |l| l.repetitions).to_string();
    let t = |name: &str| opt(level(name).and_then(|l| l.relative_variation));
    let as_built = s.as_built.as_ref().map(as_built_cells);
    let cells = [
        ("program", s.program.clone()),
        ("metric", s.metric.clone()),
        ("unit", s.unit.clone()),
        ("confidence", format!("{confidence}")),
        ("binaries", reps("binary")),
        ("executions", reps("execution")),
        ("iterations", reps("iteration")),
        ("mean", format!("{}", s.mean)),
        ("ci_lower", opt(s.ci.map(|c| c.lower))),
        ("ci_upper", opt(s.ci.map(|c| c.upper))),
        ("relative_half_width", opt(s.relative_half_width)),
        ("t_iteration", t("iteration")),
        ("t_execution", t("execution")),
        ("t_binary", t("binary")),
        ("anova_f", opt(s.sensitivity.f)),
        ("anova_p", opt(s.sensitivity.p_value)),
        ("icc", opt(s.sensitivity.icc)),
        ("sensitivity", json_word(&s.sensitivity.verdict)),
        ("shift_ratio", opt(s.shift.ratio)),
        ("shift_ci_lower", opt(s.shift.ci.map(|c| c.lower))),
        ("shift_ci_upper", opt(s.shift.ci.map(|c| c.upper))),
        ("shift", json_word(&s.shift.verdict)),
        ("variant", s.variant.clone().unwrap_or_default()),
        (
            "bootstrap_lower",
            opt(s.bootstrap.as_ref().map(|b| b.lower)),
        ),
        (
            "bootstrap_upper",
            opt(s.bootstrap.as_ref().map(|b| b.upper)),
        ),
        ("default_layout", json_word(&s.default_layout.verdict)),
        (
            "default_layout_pi_lower",
            opt(s.default_layout.prediction_interval.map(|p| p.lower)),
        ),
        (
            "default_layout_pi_upper",
            opt(s.default_layout.prediction_interval.map(|p| p.upper)),
        ),
        ("kind", "series".to_string()),
    ];
    row(&[&cells[..], as_built.as_ref().map_or(&[][..], |a| &a[..])].concat())
}

/// The cells every comparison row has: what is compared, the ratio new/base with its
/// interval at `confidence`, and the verdict in both of JSON's words.
struct ComparisonCells<'a> {
    kind: &'static str,
    program: &'a str,
    metric: &'a str,
    new: &'a str,
    base: &'a str,
    ratio: f64,
    ci: Option<Interval>,
    confidence: f64,
    p_value: Option<f64>,
    verdict: EffectVerdict,
    direction: Direction,
}

impl ComparisonCells<'_> {
    fn row(&self, unit: &str) -> Result<Vec<String>> {
        Ok(row(&[
            ("program", self.program.to_string()),
            ("metric", self.metric.to_string()),
            ("unit", unit.to_string()),
            ("confidence", format!("{}", self.confidence)),
            ("variant", self.new.to_string()),
            ("kind", self.kind.to_string()),
            ("base", self.base.to_string()),
            ("ratio", format!("{}", self.ratio)),
            ("ratio_lower", opt(self.ci.map(|c| c.lower))),
            ("ratio_upper", opt(self.ci.map(|c| c.upper))),
            ("p_value", opt(self.p_value)),
            ("verdict", json_word(&self.verdict)),
            ("direction", json_word(&self.direction)),
        ]))
    }
}

/// A variant against the base: the ratio and interval the verdict rests on (JSON `effect`),
/// at the pair's confidence (Bonferroni-adjusted with more than two variants); no p-value
/// (the verdict is the interval's).
fn comparison_cells(c: &PairComparison, confidence: f64) -> ComparisonCells<'_> {
    ComparisonCells {
        kind: "comparison",
        program: &c.program,
        metric: &c.metric,
        new: &c.new,
        base: &c.base,
        ratio: c.pair.effect.ratio,
        ci: c.pair.effect.ci,
        confidence: pair_confidence(c, confidence),
        p_value: None,
        verdict: c.pair.effect.verdict,
        direction: c.pair.direction,
    }
}

/// Every pair of Tukey's family: its ratio, simultaneous interval (at the report's
/// confidence, for the family) and adjusted p-value.
fn tukey_cells(m: &MultipleComparison, confidence: f64) -> Vec<ComparisonCells<'_>> {
    m.family
        .pairs
        .iter()
        .map(|p| ComparisonCells {
            kind: "tukey_pair",
            program: &m.program,
            metric: &m.metric,
            new: &p.new,
            base: &p.base,
            ratio: p.ratio,
            ci: p.ratio_ci,
            confidence,
            p_value: Some(p.p_value),
            verdict: p.verdict,
            direction: p.direction,
        })
        .collect()
}

impl Exporter for CsvExporter {
    fn export(&self, report: &Report) -> Result<String> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        let splits = || {
            report
                .series
                .iter()
                .filter_map(|s| s.variance_split.as_ref())
        };
        let with_split = splits().next().is_some();
        let with_machine = splits().any(|v| v.machine.is_some());
        let incomplete = report
            .incomplete
            .map(|i| vec![i.stored.to_string(), i.planned.to_string()]);
        let split_tail = |mut row: Vec<String>, cells: Vec<String>, machine: Vec<String>| {
            if with_split {
                row.extend(cells);
            }
            if with_machine {
                row.extend(machine);
            }
            row.extend(incomplete.iter().flatten().cloned());
            row
        };
        let no_split = || vec![String::new(); SPLIT_COLUMNS.len()];
        let no_machine = || vec![String::new(); MACHINE_COLUMNS.len()];
        let header: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
        let names = |columns: &[&str]| columns.iter().map(|c| c.to_string()).collect();
        let mut header = split_tail(header, names(&SPLIT_COLUMNS), names(&MACHINE_COLUMNS));
        if report.incomplete.is_some() {
            // The tail holds the counts; the header names them.
            header.truncate(header.len() - INCOMPLETE_COLUMNS.len());
            header.extend(INCOMPLETE_COLUMNS.iter().map(|c| c.to_string()));
        }
        w.write_record(header)?;
        for s in &report.series {
            w.write_record(split_tail(
                series_row(s, report.confidence),
                split_cells(s)?,
                machine_cells(s),
            ))?;
        }
        let cells = report
            .comparisons
            .iter()
            .map(|c| comparison_cells(c, report.confidence))
            .chain(
                report
                    .multiple
                    .iter()
                    .flat_map(|m| tukey_cells(m, report.confidence)),
            );
        for c in cells {
            // The unit of the metric compared, from its series (all variants share it).
            let unit = report
                .series
                .iter()
                .find(|s| s.program == c.program && s.metric == c.metric)
                .map_or("", |s| s.unit.as_str());
            w.write_record(split_tail(c.row(unit)?, no_split(), no_machine()))?;
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }
}
