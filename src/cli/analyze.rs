//! `layoutrand analyze`: the multi-level statistics on any CSV of measurements.
//!
//! Reads nested measurements (`--levels`, highest level first), then reports per level the
//! variance estimators of Kalibera & Jones (eq. 1–2), the optimal repetition counts when the
//! costs are known (eq. 3), the confidence interval of the mean (eq. 4), a normality check
//! of the top-level means (Shapiro–Wilk), the between-unit ANOVA, and warnings a careful
//! statistician would give. `--format json` prints [`Analysis`] as one object; its keys
//! (`n`, `mean`, `confidence`, `ci`, `levels` lowest level first, `normality`, …) are a
//! contract other tools and tests rely on: add keys, never rename them.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Result};
use serde::Serialize;

use layoutrand::measurements::{load_hierarchy, CsvSpec};
use layoutrand::seeded::SeededRng;
use layoutrand::stats::anova::{random_effects, RandomEffectsAnova};
use layoutrand::stats::bootstrap;
use layoutrand::stats::hierarchy::{plural, Hierarchy};
use layoutrand::stats::multilevel::{level_variances, mean_ci, optimal_repetitions, OptimalCount};
use layoutrand::stats::shapiro_wilk::shapiro_wilk;

/// Output format of `analyze` and `compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Aligned text for people.
    Text,
    /// One JSON object.
    Json,
}

/// Arguments of `layoutrand analyze`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// CSV file with a header row.
    pub file: PathBuf,
    /// Columns identifying the unit at each level, highest level first
    /// (e.g. `binary,execution,iteration`). One column gives a plain sample.
    #[arg(long, value_delimiter = ',', required = true)]
    pub levels: Vec<String>,
    /// The numeric column to analyse.
    #[arg(long)]
    pub value: String,
    /// Cost of one repetition at each level, same order as --levels (Kalibera & Jones §9.1);
    /// with them the optimal repetition counts (eq. 3) are reported.
    #[arg(long, value_delimiter = ',')]
    pub costs: Option<Vec<f64>>,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Also compute a hierarchical percentile bootstrap CI with this many resamples.
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// Seed of the bootstrap resampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// The confidence interval of the mean, as printed in JSON.
#[derive(Debug, Clone, Serialize)]
pub struct CiJson {
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// `t · sqrt(S_n² / r_n)`.
    pub half_width: f64,
    /// `half_width / |mean|`.
    pub relative_half_width: f64,
    /// Degrees of freedom `r_n − 1`.
    pub df: f64,
    /// Always "kalibera-jones eq. 4".
    pub method: &'static str,
}

/// One level's row, lowest level first in [`Analysis::levels`].
#[derive(Debug, Clone, Serialize)]
pub struct LevelJson {
    /// The column name.
    pub name: String,
    /// `r_i`.
    pub repetitions: usize,
    /// `S_i²` (null when `r_i = 1`).
    pub s2: Option<f64>,
    /// `T_i²` (null when not estimable).
    pub t2: Option<f64>,
    /// `c_i` when --costs was given.
    pub cost: Option<f64>,
    /// Eq. 3 (null for the top level, without costs, or when eq. 3 has no finite answer).
    pub optimal_repetitions: Option<u64>,
    /// Why eq. 3 was guarded at this level, if it was.
    pub optimal_note: Option<&'static str>,
}

/// The Shapiro–Wilk check of the top-level means.
#[derive(Debug, Clone, Serialize)]
pub struct NormalityJson {
    /// Always "shapiro-wilk".
    pub test: &'static str,
    /// W.
    pub w: f64,
    /// p-value.
    pub p: f64,
    /// Number of top-level means tested.
    pub n: usize,
}

/// Everything `analyze` reports; its JSON form is the `--format json` output.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The analysed column.
    pub value: String,
    /// Number of measurements.
    pub n: usize,
    /// Grand mean.
    pub mean: f64,
    /// Confidence level.
    pub confidence: f64,
    /// Eq. 4 interval (null with fewer than two top-level units).
    pub ci: Option<CiJson>,
    /// Per level, lowest first.
    pub levels: Vec<LevelJson>,
    /// Shapiro–Wilk on the top-level unit means (null below 3 units).
    pub normality: Option<NormalityJson>,
    /// One-way random-effects ANOVA between top-level units, on the means of their
    /// children (null for one level or a single child per unit).
    pub anova: Option<RandomEffectsAnova>,
    /// Hierarchical percentile bootstrap CI when --bootstrap was given.
    pub bootstrap: Option<bootstrap::BootstrapCi>,
    /// Things the reader must know before trusting the numbers.
    pub warnings: Vec<String>,
}

/// Runs `layoutrand analyze`.
pub fn run(args: Args) -> Result<i32> {
    let spec = CsvSpec {
        levels: &args.levels,
        value: &args.value,
        require_positive: false,
    };
    check_confidence(args.confidence)?;
    check_levels(&args.levels)?;
    if let Some(costs) = &args.costs {
        if costs.len() != args.levels.len() {
            bail!(
                "--costs has {} values but --levels names {} levels",
                costs.len(),
                args.levels.len()
            );
        }
        for (cost, level) in costs.iter().zip(&args.levels) {
            if !(cost.is_finite() && *cost > 0.0) {
                bail!("--costs: the cost of one {level} ({cost}) must be a positive number");
            }
        }
    }
    let h = load_hierarchy(&args.file, &spec)?;
    let analysis = analyze(
        &h,
        &args.levels,
        &args.value,
        args.costs.as_deref(),
        args.confidence,
        args.bootstrap.map(|b| (b, args.seed)),
    )?;
    match args.format {
        OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&analysis)?),
        OutputFormat::Text => print!(
            "{}",
            render_text(&analysis, &args.file.display().to_string())
        ),
    }
    Ok(0)
}

/// Refuses an empty `--levels` or one naming a column twice.
pub fn check_levels(levels: &[String]) -> Result<()> {
    if levels.is_empty() || levels.iter().any(String::is_empty) {
        bail!("--levels needs column names, highest level first (e.g. binary,execution,iteration)");
    }
    for (i, l) in levels.iter().enumerate() {
        if levels[..i].contains(l) {
            bail!("--levels names the column \"{l}\" twice");
        }
    }
    Ok(())
}

/// Refuses a confidence level outside (0, 1) with the flag named.
pub fn check_confidence(confidence: f64) -> Result<()> {
    if !(confidence > 0.0 && confidence < 1.0) {
        bail!("--confidence {confidence} must be strictly between 0 and 1 (e.g. 0.95)");
    }
    Ok(())
}

/// Computes the whole analysis of `h` whose levels are named `names` (highest first) and
/// whose costs (same order) are optional. `bootstrap` is `(resamples, seed)`.
pub fn analyze(
    h: &Hierarchy,
    names: &[String],
    value: &str,
    costs_highest_first: Option<&[f64]>,
    confidence: f64,
    bootstrap: Option<(usize, u64)>,
) -> Result<Analysis> {
    let estimates = level_variances(h);
    let n_levels = estimates.len();
    let lowest_first_names: Vec<&String> = names.iter().rev().collect();
    let costs: Option<Vec<f64>> = costs_highest_first.map(|c| c.iter().rev().copied().collect());
    let optimal: Option<Vec<OptimalCount>> = match &costs {
        Some(c) => Some(optimal_repetitions(&estimates, c)?),
        None => None,
    };
    let mut warnings = Vec::new();
    let levels: Vec<LevelJson> = estimates
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let advice = optimal.as_ref().and_then(|o| o.get(i));
            LevelJson {
                name: lowest_first_names[i].clone(),
                repetitions: e.repetitions,
                s2: e.s2,
                t2: e.t2,
                cost: costs.as_ref().map(|c| c[i]),
                optimal_repetitions: advice.and_then(|a| match a {
                    OptimalCount::NoVarianceAbove | OptimalCount::Unknown => None,
                    other => other.repetitions(),
                }),
                optimal_note: advice.and_then(|a| a.explanation()),
            }
        })
        .collect();
    let top_name = &names[0];
    let top_units = h.repetitions()[n_levels - 1];
    for (i, l) in levels.iter().enumerate().skip(1) {
        if let Some(t2) = l.t2.filter(|t| *t <= 0.0) {
            warnings.push(format!(
                "T² of level \"{}\" is {} (≤ 0): the {} add no measurable variance beyond what \
                 the {} already show; repeat them less (Kalibera & Jones §9.2)",
                l.name,
                fmt_sig(t2),
                plural(&l.name),
                plural(&levels[i - 1].name),
            ));
        }
    }
    if h.repetitions().contains(&1) && n_levels > 1 {
        warnings.push(
            "a level has a single repetition, so its variance cannot be separated from the \
             level above"
                .to_string(),
        );
    }
    let ci = match mean_ci(h, confidence) {
        Ok(ci) => Some(CiJson {
            low: ci.low,
            high: ci.high,
            half_width: ci.half_width,
            relative_half_width: ci.relative_half_width(),
            df: ci.df,
            method: "kalibera-jones eq. 4",
        }),
        Err(_) => {
            warnings.push(format!(
                "only {top_units} {top_name} unit: no confidence interval is possible; \
                 repeat the top level at least twice (5 or more recommended)"
            ));
            None
        }
    };
    if (2..5).contains(&top_units) {
        warnings.push(format!(
            "only {top_units} {}: the interval rests on {} degree{} of freedom and is very \
             wide; Kalibera & Jones use at least 5 at the top level",
            plural(top_name),
            top_units - 1,
            if top_units == 2 { "" } else { "s" }
        ));
    }
    let top_means = h.top_means();
    let normality = shapiro_wilk(&top_means).ok().map(|sw| NormalityJson {
        test: "shapiro-wilk",
        w: sw.w,
        p: sw.p,
        n: sw.n,
    });
    if let Some(nw) = &normality {
        if nw.p < 0.05 && top_units < 30 {
            warnings.push(format!(
                "the {top_units} {top_name} means do not look normal (Shapiro–Wilk p = {}) and \
                 there are fewer than 30: the t interval may be off; prefer the bootstrap \
                 interval (--bootstrap 10000) or add more {}",
                fmt_p(nw.p),
                plural(top_name)
            ));
        }
    }
    let anova = if n_levels >= 2 && h.repetitions()[n_levels - 2] >= 2 {
        let groups = child_means_per_top_unit(h);
        random_effects(&groups).ok()
    } else {
        None
    };
    let bootstrap = match bootstrap {
        Some((resamples, seed)) if top_units >= 2 => {
            let mut rng = SeededRng::new(seed, "analyze-bootstrap");
            Some(bootstrap::mean_ci(h, confidence, resamples, &mut rng)?)
        }
        _ => None,
    };
    Ok(Analysis {
        value: value.to_string(),
        n: h.len(),
        mean: h.mean(),
        confidence,
        ci,
        levels,
        normality,
        anova,
        bootstrap,
        warnings,
    })
}

/// For each top-level unit, the means of its children (the level below the top).
fn child_means_per_top_unit(h: &Hierarchy) -> Vec<Vec<f64>> {
    let reps = h.repetitions();
    let children = reps[reps.len() - 1 - 1];
    let top = reps[reps.len() - 1];
    (0..top)
        .map(|k| {
            let vals = h.top_unit_values(k);
            let size = vals.len() / children;
            vals.chunks(size)
                .map(|c| c.iter().sum::<f64>() / c.len() as f64)
                .collect()
        })
        .collect()
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
    let _ = writeln!(out, "mean        {}", fmt_sig(a.mean));
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
        let _ = writeln!(
            out,
            "bootstrap   {} … {}  ({pct} percentile, {} hierarchical resamples)",
            fmt_sig(b.low),
            fmt_sig(b.high),
            b.resamples
        );
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
