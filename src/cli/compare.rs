//! `layoutrand compare`: is the new system faster than the base, and by how much?
//!
//! CSV mode ([`run_csv`]): two files of nested measurements with the same `--levels` and
//! `--value`. Reports the ratio of means `new/base` with Fieller's interval (Kalibera & Jones
//! 2013 eq. 5) — the effect size with its uncertainty, the paper's recommendation — plus
//! Welch's test on the top-level means and, when both files have the same top-level ids
//! (e.g. the same layout seeds), the matched-pair interval of Georges et al. 2008 §5.2.
//! Values are taken to be times or costs: lower is better.
//!
//! Directory mode: given two experiment directories, [`run`] hands over to
//! `layoutrand::report::compare` (see docs/report.md), which adds `--fail-if-slower`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use layoutrand::measurements::{load_hierarchy, CsvSpec};
use layoutrand::seeded::SeededRng;
use layoutrand::stats::bootstrap::{self, BootstrapCi};
use layoutrand::stats::fieller::{ratio_ci, RatioInterval};
use layoutrand::stats::hierarchy::{plural, Hierarchy};
use layoutrand::stats::mann_whitney::{mann_whitney, MannWhitney};
use layoutrand::stats::multilevel::mean_ci;
use layoutrand::stats::paired::{paired_difference, PairedDifference};
use layoutrand::stats::sample::MeanInterval;
use layoutrand::stats::shapiro_wilk::{shapiro_wilk, ShapiroWilk};
use layoutrand::stats::welch::welch;

use super::analyze::{
    check_confidence, check_levels, fmt_confidence, fmt_p, fmt_sig, OutputFormat,
};

/// Arguments of `layoutrand compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The baseline's measurements (CSV with a header), or its experiment directory.
    pub base: PathBuf,
    /// The new system's measurements (CSV with a header), or its experiment directory.
    pub new: PathBuf,
    /// Columns identifying the unit at each level, highest level first (CSV mode).
    #[arg(long, value_delimiter = ',')]
    pub levels: Vec<String>,
    /// The numeric column, a time or cost: lower is better (CSV mode).
    #[arg(long)]
    pub value: Option<String>,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Also compute a hierarchical percentile bootstrap CI of the ratio with this many
    /// resamples.
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// Seed of the bootstrap resampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Directory mode: exit with code 1 when the whole confidence interval says new is
    /// slower than base by more than this many percent (for CI gating).
    #[arg(long, value_name = "PCT")]
    pub fail_if_slower: Option<f64>,
}

/// One side of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct SideJson {
    /// The file read.
    pub file: String,
    /// Number of measurements.
    pub n: usize,
    /// Number of top-level units.
    pub top_units: usize,
    /// Grand mean.
    pub mean: f64,
    /// Kalibera & Jones eq. 4 interval.
    pub ci: MeanInterval,
    /// Shapiro–Wilk on the top-level unit means (null below 3 units).
    pub normality: Option<ShapiroWilk>,
}

/// The ratio `mean_new / mean_base` with its Fieller interval.
#[derive(Debug, Clone, Serialize)]
pub struct RatioJson {
    /// `mean_new / mean_base`.
    pub estimate: f64,
    /// Lower end (null when unbounded).
    pub low: Option<f64>,
    /// Upper end (null when unbounded).
    pub high: Option<f64>,
    /// Whether the interval is bounded (false when the base interval contains zero).
    pub bounded: bool,
    /// Always "fieller" (Kalibera & Jones eq. 5).
    pub method: &'static str,
}

/// Welch's test on the top-level unit means, for `new − base`.
#[derive(Debug, Clone, Serialize)]
pub struct WelchJson {
    /// t statistic of `mean(new) − mean(base)`.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// `mean(new) − mean(base)` of the top-level means.
    pub difference: f64,
    /// Lower end of the two-sided interval of the difference.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// Everything `compare` reports (CSV mode); its JSON form is the `--format json` output.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The compared column.
    pub value: String,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// The baseline.
    pub base: SideJson,
    /// The new system.
    pub new: SideJson,
    /// Fieller interval of `new/base`.
    pub ratio: RatioJson,
    /// Welch's test on the top-level means.
    pub welch: WelchJson,
    /// Matched pairs by top-level id (`new − base`), when both have the same ids.
    pub paired: Option<PairedDifference>,
    /// Mann–Whitney U on the top-level means (`u` counts new > base), the distribution-free
    /// check when normality is doubtful.
    pub mann_whitney: MannWhitney,
    /// Percentile bootstrap of the ratio when --bootstrap was given.
    pub bootstrap: Option<BootstrapCi>,
    /// "faster", "slower", "no significant difference" or "unbounded".
    pub verdict: &'static str,
    /// The one-sentence answer.
    pub summary: String,
    /// Things the reader must know.
    pub warnings: Vec<String>,
}

/// Runs `layoutrand compare`.
pub fn run(args: Args) -> Result<i32> {
    if args.base.is_dir() && args.new.is_dir() {
        // Two experiment directories: the report module's comparison (docs/report.md).
        let (text, code) = layoutrand::report::compare::run_directories(
            &args.base,
            &args.new,
            args.confidence,
            args.fail_if_slower,
            matches!(args.format, OutputFormat::Json),
        )?;
        print!("{text}");
        return Ok(code);
    }
    if args.fail_if_slower.is_some() {
        bail!("--fail-if-slower applies to two experiment directories, not CSV files");
    }
    run_csv(&args)
}

/// CSV mode: both arguments are measurement files.
pub fn run_csv(args: &Args) -> Result<i32> {
    if args.levels.is_empty() {
        bail!("comparing CSV files needs --levels (columns, highest level first)");
    }
    let value = args
        .value
        .as_deref()
        .context("comparing CSV files needs --value (the numeric column)")?;
    check_confidence(args.confidence)?;
    check_levels(&args.levels)?;
    let spec = CsvSpec {
        levels: &args.levels,
        value,
        require_positive: true,
    };
    let base = load_hierarchy(&args.base, &spec)?;
    let new = load_hierarchy(&args.new, &spec)?;
    let cmp = compare(
        (&base, &args.base),
        (&new, &args.new),
        &args.levels[0],
        value,
        args.confidence,
        args.bootstrap.map(|b| (b, args.seed)),
    )?;
    match args.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&cmp)?),
        OutputFormat::Text => print!("{}", render_text(&cmp, &args.levels[0])),
    }
    Ok(0)
}

fn side(h: &Hierarchy, file: &Path, confidence: f64, top_name: &str) -> Result<SideJson> {
    let ci = mean_ci(h, confidence).with_context(|| {
        format!(
            "{}: a ratio interval needs at least two {}",
            file.display(),
            plural(top_name)
        )
    })?;
    Ok(SideJson {
        file: file.display().to_string(),
        n: h.len(),
        top_units: *h.repetitions().last().expect("a level"),
        mean: h.mean(),
        ci,
        normality: shapiro_wilk(&h.top_means()).ok(),
    })
}

/// Compares `new` against `base` (positive values, at least two top-level units each).
/// `bootstrap` is `(resamples, seed)`.
pub fn compare(
    (base, base_file): (&Hierarchy, &Path),
    (new, new_file): (&Hierarchy, &Path),
    top_name: &str,
    value: &str,
    confidence: f64,
    bootstrap: Option<(usize, u64)>,
) -> Result<Comparison> {
    let b = side(base, base_file, confidence, top_name)?;
    let n = side(new, new_file, confidence, top_name)?;
    let fieller = ratio_ci(&b.ci, &n.ci);
    let (low, high) = match fieller.interval {
        RatioInterval::Bounded { low, high } => (Some(low), Some(high)),
        RatioInterval::Unbounded => (None, None),
    };
    let ratio = RatioJson {
        estimate: fieller.estimate,
        low,
        high,
        bounded: low.is_some(),
        method: "fieller",
    };
    let w = welch(&new.top_means(), &base.top_means())?;
    let (wl, wh) = w.interval(confidence)?;
    let welch = WelchJson {
        t: w.t,
        df: w.df,
        p: w.p,
        difference: w.difference,
        low: wl,
        high: wh,
    };
    let mut warnings = Vec::new();
    let paired = match matched_top_means(base, new) {
        Some((before, after)) if before.len() >= 2 => {
            Some(paired_difference(&before, &after, confidence)?)
        }
        _ => None,
    };
    if base.repetitions() != new.repetitions() {
        warnings.push(format!(
            "the two designs differ (repetitions per level, lowest first: base {:?}, new {:?})",
            base.repetitions(),
            new.repetitions()
        ));
    }
    let mann_whitney = mann_whitney(&new.top_means(), &base.top_means())?;
    for s in [&b, &n] {
        if let Some(sw) = s.normality.filter(|sw| sw.p < 0.05 && s.top_units < 30) {
            warnings.push(format!(
                "the {} means of {} do not look normal (Shapiro–Wilk p = {}) and there are \
                 fewer than 30: check the bootstrap interval (--bootstrap 10000) and the \
                 Mann–Whitney test",
                top_name,
                s.file,
                fmt_p(sw.p)
            ));
        }
        if s.top_units < 5 {
            warnings.push(format!(
                "{} has only {} {}: its interval, and so the ratio's, is very wide",
                s.file,
                s.top_units,
                plural(top_name)
            ));
        }
    }
    let bootstrap = match bootstrap {
        Some((resamples, seed)) => {
            let mut rng = SeededRng::new(seed, "compare-bootstrap");
            Some(bootstrap::ratio_ci(
                base, new, confidence, resamples, &mut rng,
            )?)
        }
        None => None,
    };
    let pct = fmt_confidence(confidence);
    let (verdict, summary) = match (low, high) {
        (Some(lo), Some(hi)) if hi < 1.0 => (
            "faster",
            format!(
                "new is {} % ± {} % faster than base ({pct} CI, Fieller)",
                fmt_pct(100.0 * (1.0 - ratio.estimate)),
                fmt_pct(50.0 * (hi - lo))
            ),
        ),
        (Some(lo), Some(hi)) if lo > 1.0 => (
            "slower",
            format!(
                "new is {} % ± {} % slower than base ({pct} CI, Fieller)",
                fmt_pct(100.0 * (ratio.estimate - 1.0)),
                fmt_pct(50.0 * (hi - lo))
            ),
        ),
        (Some(lo), Some(hi)) => (
            "no significant difference",
            format!(
                "no significant difference: new/base = {} ({pct} CI {} … {}, Fieller), \
                 anywhere from {} % faster to {} % slower",
                fmt_ratio(ratio.estimate),
                fmt_ratio(lo),
                fmt_ratio(hi),
                fmt_pct(100.0 * (1.0 - lo)),
                fmt_pct(100.0 * (hi - 1.0))
            ),
        ),
        _ => (
            "unbounded",
            format!(
                "the ratio new/base = {} has no bounded {pct} interval: the base's interval \
                 contains zero (Fieller); measure more {}",
                fmt_ratio(ratio.estimate),
                plural(top_name)
            ),
        ),
    };
    Ok(Comparison {
        value: value.to_string(),
        confidence,
        base: b,
        new: n,
        ratio,
        welch,
        paired,
        mann_whitney,
        bootstrap,
        verdict,
        summary,
        warnings,
    })
}

/// The top-level means of both sides paired by id, when both have exactly the same ids.
fn matched_top_means(base: &Hierarchy, new: &Hierarchy) -> Option<(Vec<f64>, Vec<f64>)> {
    if base.top_ids().len() != new.top_ids().len() {
        return None;
    }
    let new_means: HashMap<&str, f64> = new
        .top_ids()
        .iter()
        .map(String::as_str)
        .zip(new.top_means())
        .collect();
    let mut before = Vec::new();
    let mut after = Vec::new();
    for (id, m) in base.top_ids().iter().zip(base.top_means()) {
        after.push(*new_means.get(id.as_str())?);
        before.push(m);
    }
    Some((before, after))
}

fn fmt_pct(x: f64) -> String {
    format!("{x:.1}")
}

fn fmt_ratio(x: f64) -> String {
    format!("{x:.4}")
}

/// Renders the comparison for people.
pub fn render_text(c: &Comparison, top_name: &str) -> String {
    let mut out = String::new();
    let pct = fmt_confidence(c.confidence);
    for (label, s) in [("base", &c.base), ("new", &c.new)] {
        let _ = writeln!(
            out,
            "{label:<5}{}: mean {} ({pct} CI {} … {}), {} {}, {} measurements",
            s.file,
            fmt_sig(s.mean),
            fmt_sig(s.ci.low),
            fmt_sig(s.ci.high),
            s.top_units,
            plural(top_name),
            s.n
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", c.summary);
    let _ = writeln!(out);
    match (c.ratio.low, c.ratio.high) {
        (Some(lo), Some(hi)) => {
            let _ = writeln!(
                out,
                "new/base    {}  ({pct} CI {} … {}, Fieller / Kalibera & Jones eq. 5)",
                fmt_ratio(c.ratio.estimate),
                fmt_ratio(lo),
                fmt_ratio(hi)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "new/base    {}  ({pct} CI unbounded, Fieller)",
                fmt_ratio(c.ratio.estimate)
            );
        }
    }
    if let Some(b) = &c.bootstrap {
        let _ = writeln!(
            out,
            "bootstrap   {} … {}  ({pct} percentile, {} hierarchical resamples)",
            fmt_ratio(b.low),
            fmt_ratio(b.high),
            b.resamples
        );
    }
    let _ = writeln!(
        out,
        "Welch       on the {} means: new − base = {}, t = {:.3}, df = {:.1}, p = {}",
        top_name,
        fmt_sig(c.welch.difference),
        c.welch.t,
        c.welch.df,
        fmt_p(c.welch.p)
    );
    if let Some(p) = &c.paired {
        let _ = writeln!(
            out,
            "paired      by {top_name} ({} pairs): new − base = {} ({pct} CI {} … {}, Georges et al. §5.2)",
            p.n,
            fmt_sig(p.mean_difference),
            fmt_sig(p.low),
            fmt_sig(p.high)
        );
    }
    let _ = writeln!(
        out,
        "Mann–Whitney on the {} means: P(new > base) = {:.3}, p = {} ({})",
        top_name,
        c.mann_whitney.prob_superiority,
        fmt_p(c.mann_whitney.p),
        match c.mann_whitney.method {
            layoutrand::stats::mann_whitney::PMethod::Exact => "exact",
            layoutrand::stats::mann_whitney::PMethod::Normal => "normal approximation",
        }
    );
    if !c.warnings.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "warnings:");
        for w in &c.warnings {
            let _ = writeln!(out, "  - {w}");
        }
    }
    out
}
