//! `layoutrand compare`: is the new system faster than the base, and by how much?
//!
//! Both modes go through the engine ([`layoutrand::analysis::compare`], whose pair analysis
//! `report` shares for variants): the ratio of means `new/base` with the paired-by-id
//! interval when at least two top-level ids match, else Fieller's interval (Kalibera & Jones
//! 2013 eq. 5), classified as faster, slower, detectable but negligible (`--negligible`), a
//! tie or inconclusive, plus Welch, matched pairs, Mann–Whitney and an optional bootstrap.
//!
//! CSV mode: two files of nested measurements with the same `--levels` and `--value`.
//! Directory mode: two experiment directories, every program and metric they share, plus
//! Touati et al.'s summary across programs ([`layoutrand::analysis::report::compare`]).
//! `--fail-if-slower` gates CI in both modes (exit 1).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Result};

use layoutrand::analysis::compare::{compare, CompareOptions, Comparison};
use layoutrand::analysis::effect::Interval;
use layoutrand::analysis::pair::Basis;
use layoutrand::analysis::single::Dataset;
use layoutrand::measurements::{load_measurements, CsvSpec};
use layoutrand::stats::hierarchy::plural;

use super::analyze::{fmt_confidence, fmt_p, fmt_sig};
use super::common::{
    BootstrapArgs, CsvColumnsArgs, FormatArgs, GateArgs, MetricFilterArgs, OutputFormat,
    VerdictArgs,
};

/// Arguments of `layoutrand compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The baseline's measurements (CSV with a header), or its experiment directory.
    pub base: PathBuf,
    /// The new system's measurements (CSV with a header), or its experiment directory.
    pub new: PathBuf,
    /// CSV mode only: the columns to read (values are times or costs: lower is better).
    #[command(flatten)]
    pub columns: CsvColumnsArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Directory mode only.
    #[command(flatten)]
    pub metric: MetricFilterArgs,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// Runs `layoutrand compare`.
pub fn run(args: Args) -> Result<i32> {
    let thresholds = args.verdict.thresholds()?;
    let json = matches!(args.format.format, OutputFormat::Json);
    match (args.base.is_dir(), args.new.is_dir()) {
        (true, true) => {
            if !args.columns.levels.is_empty() || args.columns.value.is_some() {
                bail!("--levels and --value apply to CSV files, not experiment directories (their levels are binary, execution, iteration)");
            }
            let (text, failed) = layoutrand::report::render_compare::run_directories(
                &args.base,
                &args.new,
                &args.metric.metrics,
                &thresholds,
                args.bootstrap.options(),
                args.gate.fail_if_slower,
                json,
            )?;
            print!("{text}");
            Ok(args.gate.exit_code("compare", &failed))
        }
        (false, false) => run_csv(&args, thresholds, json),
        _ => bail!(
            "compare needs two CSV files or two experiment directories, got one of each ({} and {})",
            args.base.display(),
            args.new.display()
        ),
    }
}

/// CSV mode: both arguments are measurement files.
fn run_csv(
    args: &Args,
    thresholds: layoutrand::analysis::vocabulary::Thresholds,
    json: bool,
) -> Result<i32> {
    if !args.metric.metrics.is_empty() {
        bail!("--metric applies to experiment directories; in CSV files the metric is the --value column");
    }
    let (levels, value) = args.columns.checked()?;
    let spec = CsvSpec {
        levels,
        value,
        require_positive: true,
    };
    let read = |path: &PathBuf| -> Result<Dataset> {
        let loaded = load_measurements(path, &spec)?;
        Ok(Dataset {
            source: path.display().to_string(),
            value: value.to_string(),
            levels: levels.to_vec(),
            hierarchy: loaded.hierarchy,
        })
    };
    let base = read(&args.base)?;
    let new = read(&args.new)?;
    let cmp = compare(
        &base,
        &new,
        &CompareOptions {
            thresholds,
            is_time: true,
            bootstrap: args.bootstrap.options(),
            fail_if_slower: args.gate.fail_if_slower,
        },
    )?;
    if json {
        println!("{}", serde_json::to_string_pretty(&cmp)?);
    } else {
        print!("{}", render_text(&cmp, &levels[0]));
    }
    let tripped: Vec<String> = if cmp.pair.slower_beyond_threshold {
        vec![format!("{}: {}", cmp.value, cmp.pair.effect.words)]
    } else {
        Vec::new()
    };
    Ok(args.gate.exit_code("compare", &tripped))
}

fn fmt_ratio(x: f64) -> String {
    format!("{x:.4}")
}

/// The ratio lines: the interval the verdict rests on first, then eq. 5 when it is not the
/// basis, then the bootstrap.
fn ratio_lines(out: &mut String, c: &Comparison, top_name: &str, pct: &str) {
    let p = &c.pair;
    let interval = |ci: Option<Interval>| {
        ci.map_or(format!("{pct} CI unbounded"), |ci| {
            format!("{pct} CI {} … {}", fmt_ratio(ci.lower), fmt_ratio(ci.upper))
        })
    };
    if p.basis == Basis::Paired {
        let _ = writeln!(
            out,
            "new/base    {}  ({}, paired by {top_name}: {} pairs; the verdict's interval)",
            fmt_ratio(p.effect.ratio),
            interval(p.effect.ci),
            p.binaries.len()
        );
    }
    let _ = writeln!(
        out,
        "new/base    {}  ({}, Fieller / Kalibera & Jones eq. 5, independent sides{})",
        fmt_ratio(p.ratio),
        interval(p.ci),
        if p.basis == Basis::Fieller {
            "; the verdict's interval"
        } else {
            ""
        }
    );
    if let Some(b) = &p.bootstrap {
        let _ = writeln!(
            out,
            "bootstrap   {} … {}  ({pct} percentile, {} hierarchical resamples{})",
            fmt_ratio(b.ci.lower),
            fmt_ratio(b.ci.upper),
            b.resamples,
            if b.paired {
                ", pairs drawn jointly"
            } else {
                ""
            }
        );
    }
}

/// Renders the comparison for people.
pub fn render_text(c: &Comparison, top_name: &str) -> String {
    let mut out = String::new();
    let pct = fmt_confidence(c.confidence);
    for (label, s) in [("base", &c.base), ("new", &c.new)] {
        let ci = s.ci.as_ref().map_or("no interval".to_string(), |ci| {
            format!("{pct} CI {} … {}", fmt_sig(ci.low), fmt_sig(ci.high))
        });
        let _ = writeln!(
            out,
            "{label:<5}{}: mean {} ({ci}), {} {}, {} measurements",
            s.source,
            fmt_sig(s.mean),
            s.top_units,
            plural(top_name),
            s.n
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", c.summary);
    let _ = writeln!(out);
    ratio_lines(&mut out, c, top_name, &pct);
    if let Some(w) = &c.welch {
        let _ = writeln!(
            out,
            "Welch       on the {} means: new − base = {}, t = {:.3}, df = {:.1}, p = {}",
            top_name,
            fmt_sig(w.difference),
            w.t,
            w.df,
            fmt_p(w.p)
        );
    }
    if let Some(p) = &c.paired_difference {
        let _ = writeln!(
            out,
            "paired      by {top_name} ({} pairs): new − base = {} ({pct} CI {} … {}, Georges et al. §5.2)",
            p.n,
            fmt_sig(p.mean_difference),
            fmt_sig(p.low),
            fmt_sig(p.high)
        );
    }
    if let Some(words) = c.mann_whitney_words(top_name) {
        let _ = writeln!(out, "Mann–Whitney {words}");
    }
    if !c.warnings.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "warnings:");
        for w in &c.warnings {
            let _ = writeln!(out, "  - {w}");
        }
    }
    out
}
