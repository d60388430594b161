//! `layoutrand analyze`: the multi-level statistics on any CSV of measurements.
//!
//! Parses the arguments, reads the CSV into a [`Dataset`] and renders what the engine
//! ([`layoutrand::analysis::single::analyze`]) computes. `--format json` prints
//! [`Analysis`] as one object (schema in docs/formats.md). Rows of an export marked as the
//! default layout are left out, as `report` leaves out the baseline.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use layoutrand::analysis::single::{analyze, costs_for_levels, Analysis, Dataset};
use layoutrand::analysis::vocabulary::{parse_costs, Thresholds};
use layoutrand::measurements::{load_measurements, CsvSpec};
use layoutrand::stats::bootstrap::BootstrapCi;
use layoutrand::stats::hierarchy::plural;

use super::common::{BootstrapArgs, ConfidenceArgs, CsvColumnsArgs, FormatArgs, OutputFormat};

/// Arguments of `layoutrand analyze`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// CSV file with a header row.
    pub file: PathBuf,
    #[command(flatten)]
    pub columns: CsvColumnsArgs,
    /// Cost of one repetition at each level, e.g. `binary=20s,execution=2s,iteration=0.5s`
    /// (the levels are the --levels columns; Kalibera & Jones §9.1); with them the optimal
    /// repetition counts (eq. 3) are reported.
    #[arg(long)]
    pub costs: Option<String>,
    #[command(flatten)]
    pub confidence: ConfidenceArgs,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub format: FormatArgs,
}

/// Runs `layoutrand analyze`.
pub fn run(args: Args) -> Result<i32> {
    let (levels, value) = args.columns.checked()?;
    let thresholds = Thresholds::new(args.confidence.confidence, 0.0)?;
    let spec = CsvSpec {
        levels,
        value,
        require_positive: false,
    };
    let loaded = load_measurements(&args.file, &spec)?;
    let data = Dataset {
        source: args.file.display().to_string(),
        value: value.to_string(),
        levels: levels.to_vec(),
        hierarchy: loaded.hierarchy,
    };
    let costs = args
        .costs
        .as_deref()
        .map(|text| costs_for_levels(&parse_costs(text)?, levels))
        .transpose()?;
    let mut analysis = analyze(
        &data,
        &thresholds,
        costs.as_deref(),
        args.bootstrap.options(),
    )?;
    if loaded.default_layout_rows > 0 {
        analysis.excluded.push(format!(
            "{} rows of the default-layout baseline (column \"layout\" = \"default\"), as \
             `report` leaves the baseline out of the random layouts",
            loaded.default_layout_rows
        ));
    }
    match args.format.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&analysis)?),
        OutputFormat::Text => print!("{}", render_text(&analysis, &data.source)),
    }
    Ok(0)
}

/// Renders the analysis for people.
pub fn render_text(a: &Analysis, file: &str) -> String {
    let mut out = String::new();
    let top = a.levels.last().expect("at least one level");
    let shape: Vec<String> = a
        .levels
        .iter()
        .rev()
        .map(|l| format!("{} {}", l.repetitions, plural(&l.name)))
        .collect();
    let _ = writeln!(out, "{file}: \"{}\", {} measurements", a.value, a.n);
    let _ = writeln!(out, "design: {}", shape.join(" × "));
    let _ = writeln!(out);

    let with_costs = a.levels.iter().any(|l| l.cost.is_some());
    let mut rows: Vec<Vec<String>> = vec![{
        let mut h = vec!["level".to_string(), "r".into(), "S²".into(), "T²".into()];
        if with_costs {
            h.push("cost".into());
            h.push("optimal r".into());
        }
        h
    }];
    for l in a.levels.iter().rev() {
        let mut row = vec![
            l.name.clone(),
            l.repetitions.to_string(),
            l.s2.map_or("–".into(), fmt_sig),
            l.t2.map_or("–".into(), fmt_sig),
        ];
        if with_costs {
            row.push(l.cost.map_or("–".into(), fmt_sig));
            row.push(match (l.optimal_repetitions, std::ptr::eq(l, top)) {
                (_, true) => "(top)".into(),
                (Some(r), false) => r.to_string(),
                (None, false) => "–".into(),
            });
        }
        rows.push(row);
    }
    out.push_str(&table(&rows));
    let _ = writeln!(
        out,
        "  (S²: Kalibera & Jones eq. 1; T²: each level's own variance, eq. 2{})",
        if with_costs { "; optimal r: eq. 3" } else { "" }
    );
    for l in &a.levels {
        if let Some(note) = l.optimal_note {
            let _ = writeln!(out, "  {}: {note}", l.name);
        }
    }
    let _ = writeln!(out);
    let pct = fmt_confidence(a.confidence);
    let _ = writeln!(
        out,
        "mean        {}",
        a.mean
            .map_or("not computable (see warnings)".to_string(), fmt_sig)
    );
    match &a.ci {
        Some(ci) => {
            let _ = writeln!(
                out,
                "{:<12}{} … {}  (± {}, ± {} % of the mean)",
                format!("{pct} CI"),
                fmt_sig(ci.low),
                fmt_sig(ci.high),
                fmt_sig(ci.half_width),
                fmt_sig(100.0 * ci.relative_half_width)
            );
            let _ = writeln!(
                out,
                "            t interval over the {} {} means, {} df (Kalibera & Jones eq. 4)",
                top.repetitions, top.name, ci.df
            );
        }
        None => {
            let _ = writeln!(
                out,
                "{:<12}not available (see warnings)",
                format!("{pct} CI")
            );
        }
    }
    if let Some(b) = &a.bootstrap {
        let _ = writeln!(out, "{}", bootstrap_line(b, &pct, fmt_sig));
    }
    if let Some(nw) = &a.normality {
        let _ = writeln!(
            out,
            "normality   Shapiro–Wilk on the {} {} means: W = {:.4}, p = {}",
            nw.n,
            top.name,
            nw.w,
            fmt_p(nw.p)
        );
    }
    if let Some(an) = &a.anova {
        let _ = writeln!(
            out,
            "ANOVA       between {}: F({}, {}) = {}, p = {}; intraclass correlation {:.3}",
            plural(&top.name),
            an.df_between,
            an.df_within,
            fmt_sig(an.f),
            fmt_p(an.p),
            an.icc
        );
    }
    for e in &a.excluded {
        let _ = writeln!(out, "left out    {e}");
    }
    if !a.warnings.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "warnings:");
        for w in &a.warnings {
            let _ = writeln!(out, "  - {w}");
        }
    }
    out
}

/// Left-aligns the first column and right-aligns the others.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    layoutrand::report::columns::aligned(rows, "  ", "   ")
}

/// The bootstrap line of the text of `analyze` and `compare`, the bounds written by `fmt`.
pub(crate) fn bootstrap_line(b: &BootstrapCi, pct: &str, fmt: fn(f64) -> String) -> String {
    format!(
        "bootstrap   {} … {}  ({pct} studentized, {} resamples of the top-level units)",
        fmt(b.low),
        fmt(b.high),
        b.resamples
    )
}

/// A number with 4 significant digits, in scientific notation when very large or small.
pub(crate) fn fmt_sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-3..6).contains(&mag) {
        format!("{x:.3e}")
    } else {
        let decimals = (3 - mag).max(0) as usize;
        format!("{x:.decimals$}")
    }
}

/// A p-value: `< 1e-16` below double precision's resolution, else 3 significant digits.
pub(crate) fn fmt_p(p: f64) -> String {
    if p < 1e-16 {
        "< 1e-16".to_string()
    } else if p < 1e-3 {
        format!("{p:.2e}")
    } else {
        format!("{p:.3}")
    }
}

/// `0.95` → `95 %`.
pub(crate) fn fmt_confidence(c: f64) -> String {
    let pct = 100.0 * c;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{} %", pct.round())
    } else {
        format!("{pct} %")
    }
}
