//! `layoutrand compare BASE_DIR NEW_DIR`: is the new version faster, over random code
//! layouts? Per program and metric: the ratio of the means with Fieller's interval
//! (Kalibera & Jones 2013 eq. 5), matched pairs by seed when both experiments used the same
//! seeds (Georges et al. 2008 §5.2), and Welch's test on the binaries' means. Across several
//! programs: Touati et al.'s weighted overall gain and the share of programs sped up.

use std::fmt::Write;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::stats::fieller::ratio_ci;
use crate::stats::multilevel::mean_ci;
use crate::stats::paired::paired_difference;
use crate::stats::suite::{overall_gain, time_weights, wilson_ci, ProgramTimes};
use crate::stats::welch::welch;

use super::analysis::seed_hierarchy;
use super::experiment::{Experiment, Series};
use super::model::Interval;
use super::numfmt::{change, estimate, level, p_value, percent};

/// The comparison of two experiments.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The base experiment's directory.
    pub base: String,
    /// The new experiment's directory.
    pub new: String,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// One entry per program and metric present in both.
    pub programs: Vec<ProgramComparison>,
    /// Programs or metrics present in only one of the two, in words.
    pub unmatched: Vec<String>,
    /// Across programs, per metric measured on at least two programs.
    pub overall: Vec<Overall>,
}

/// The comparison of one program and metric.
#[derive(Debug, Clone, Serialize)]
pub struct ProgramComparison {
    /// Program.
    pub program: String,
    /// Metric.
    pub metric: String,
    /// Unit.
    pub unit: String,
    /// Whether the metric is a time (lower means faster).
    pub unit_is_time: bool,
    /// Randomised binaries in base and new.
    pub binaries: (usize, usize),
    /// Base mean with its interval (eq. 4).
    pub base_mean: f64,
    /// Base interval.
    pub base_ci: Interval,
    /// New mean.
    pub new_mean: f64,
    /// New interval.
    pub new_ci: Interval,
    /// new / base.
    pub ratio: f64,
    /// Fieller interval of the ratio; `None` when unbounded.
    pub ratio_ci: Option<Interval>,
    /// Matched pairs by seed: interval of mean(new − base) as a share of the base mean.
    pub paired_relative_ci: Option<Interval>,
    /// Welch's test on the binaries' means: p-value.
    pub welch_p: Option<f64>,
    /// Welch's degrees of freedom.
    pub welch_df: Option<f64>,
    /// Whether the whole ratio interval says "slower" (higher) by more than the
    /// `--fail-if-slower` threshold.
    pub slower_beyond_threshold: bool,
    /// The answer in words.
    pub text: String,
}

/// Across the programs measured with one metric (Touati et al.).
#[derive(Debug, Clone, Serialize)]
pub struct Overall {
    /// The metric.
    pub metric: String,
    /// Programs compared.
    pub programs: usize,
    /// Programs whose ratio interval lies wholly below 1 (sped up).
    pub sped_up: usize,
    /// Wilson interval of the proportion of programs sped up.
    pub sped_up_ci: Option<Interval>,
    /// Touati's overall gain `G = 1 − Σ W_j t'_j / Σ W_j t_j` with time-proportional
    /// weights, from the means over random layouts; positive means saved.
    pub gain: Option<f64>,
    /// The answer in words.
    pub text: String,
}

/// Loads and compares the experiments in `base` and `new` (what `layoutrand compare
/// BASE_DIR NEW_DIR` does). `fail_if_slower` is a share (0.02 for 2 %).
pub fn compare_directories(
    base: &std::path::Path,
    new: &std::path::Path,
    confidence: f64,
    fail_if_slower: Option<f64>,
) -> Result<Comparison> {
    let b = super::experiment::load_with_context(base)?;
    let n = super::experiment::load_with_context(new)?;
    compare(&b, &n, confidence, fail_if_slower)
}

/// `layoutrand compare BASE_DIR NEW_DIR`: the rendered comparison (text, or JSON when
/// `json`) and the exit code. `fail_if_slower_percent` is in percent (2 for 2 %).
pub fn run_directories(
    base: &std::path::Path,
    new: &std::path::Path,
    confidence: f64,
    fail_if_slower_percent: Option<f64>,
    json: bool,
) -> Result<(String, i32)> {
    if let Some(p) = fail_if_slower_percent {
        if !(p.is_finite() && p >= 0.0) {
            bail!("--fail-if-slower {p}: give a non-negative percentage, e.g. 2 for 2 %");
        }
    }
    let c = compare_directories(
        base,
        new,
        confidence,
        fail_if_slower_percent.map(|p| p / 100.0),
    )?;
    let text = if json {
        serde_json::to_string_pretty(&c)? + "\n"
    } else {
        render_text(&c)
    };
    Ok((text, exit_code(&c)))
}

/// The exit code for CI gating: 1 when some program's whole ratio interval says slower
/// (higher) by more than the `--fail-if-slower` threshold, else 0.
pub fn exit_code(c: &Comparison) -> i32 {
    i32::from(c.programs.iter().any(|p| p.slower_beyond_threshold))
}

/// Compares two loaded experiments. `fail_if_slower` is a share (0.02 for 2 %).
pub fn compare(
    base: &Experiment,
    new: &Experiment,
    confidence: f64,
    fail_if_slower: Option<f64>,
) -> Result<Comparison> {
    if !(confidence > 0.0 && confidence < 1.0) {
        bail!("--confidence {confidence} is not strictly between 0 and 1 (e.g. 0.95)");
    }
    let mut programs = Vec::new();
    let mut unmatched = Vec::new();
    for b in &base.series {
        match new
            .series
            .iter()
            .find(|n| n.program == b.program && n.metric == b.metric)
        {
            Some(n) => {
                if n.unit != b.unit {
                    bail!(
                        "{} {}: measured in `{}` in {} but in `{}` in {}",
                        b.program,
                        b.metric,
                        b.unit,
                        base.dir.display(),
                        n.unit,
                        new.dir.display()
                    );
                }
                programs.push(compare_series(b, n, confidence, fail_if_slower)?);
            }
            None => unmatched.push(format!(
                "{} {} only in {}",
                b.program,
                b.metric,
                base.dir.display()
            )),
        }
    }
    for n in &new.series {
        if !base
            .series
            .iter()
            .any(|b| b.program == n.program && b.metric == n.metric)
        {
            unmatched.push(format!(
                "{} {} only in {}",
                n.program,
                n.metric,
                new.dir.display()
            ));
        }
    }
    if programs.is_empty() {
        bail!(
            "{} and {} have no program and metric in common",
            base.dir.display(),
            new.dir.display()
        );
    }
    let mut metrics: Vec<&str> = programs.iter().map(|p| p.metric.as_str()).collect();
    metrics.sort_unstable();
    metrics.dedup();
    let overall = metrics
        .into_iter()
        .filter_map(|m| {
            let of_metric: Vec<&ProgramComparison> =
                programs.iter().filter(|p| p.metric == m).collect();
            (of_metric.len() >= 2).then(|| overall(m, &of_metric, confidence))
        })
        .collect();
    Ok(Comparison {
        base: base.dir.display().to_string(),
        new: new.dir.display().to_string(),
        confidence,
        programs,
        unmatched,
        overall,
    })
}

/// Compares one program and metric.
pub fn compare_series(
    base: &Series,
    new: &Series,
    confidence: f64,
    fail_if_slower: Option<f64>,
) -> Result<ProgramComparison> {
    let what = format!("{} {}", base.program, base.metric);
    let interval = |s: &Series, side: &str| {
        let (h, _) = seed_hierarchy(s)
            .ok_or_else(|| anyhow::anyhow!("{what}: no usable randomised binary in {side}"))?;
        mean_ci(&h, confidence).map_err(|e| anyhow::anyhow!("{what} ({side}): {e}"))
    };
    let b = interval(base, "the base experiment")?;
    let n = interval(new, "the new experiment")?;
    let ratio = ratio_ci(&b, &n);
    let bounds = ratio.bounds();

    let base_means: Vec<f64> = base.seeds.iter().map(|s| s.mean()).collect();
    let new_means: Vec<f64> = new.seeds.iter().map(|s| s.mean()).collect();
    let welch = welch(&base_means, &new_means).ok();

    let base_seeds: Vec<Option<u64>> = base.seeds.iter().map(|s| s.seed).collect();
    let new_seeds: Vec<Option<u64>> = new.seeds.iter().map(|s| s.seed).collect();
    let paired = (base_seeds == new_seeds)
        .then(|| paired_difference(&base_means, &new_means, confidence).ok())
        .flatten();
    let paired_relative_ci = paired.map(|p| Interval {
        lower: p.low / b.mean,
        upper: p.high / b.mean,
    });

    let (better, worse) = if base.is_time() {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let slower_beyond_threshold = match (fail_if_slower, bounds) {
        (Some(pct), Some((low, _))) => low > 1.0 + pct,
        _ => false,
    };
    let mut text = match bounds {
        Some((low, high)) => {
            let words = change(ratio.estimate, low, high, confidence, better, worse);
            let verdict = if high < 1.0 {
                format!("new is {words}: a {better} result over random code layouts.")
            } else if low > 1.0 {
                format!("new is {words}: a {worse} result over random code layouts.")
            } else {
                format!("no significant difference: new is {words}, an interval that includes no change.")
            };
            format!(
                "{verdict} Ratio new/base {:.4} (Fieller interval).",
                ratio.estimate
            )
        }
        None => format!(
            "cannot tell: the base experiment's interval includes zero, so the ratio's interval is unbounded (ratio {:.4}).",
            ratio.estimate
        ),
    };
    if let Some(p) = paired_relative_ci {
        let _ = write!(
            text,
            " Matched by seed ({} pairs): the difference is {} to {} of the base mean ({} CI).",
            base_means.len(),
            signed_percent(p.lower),
            signed_percent(p.upper),
            level(confidence)
        );
    }
    if let Some(w) = &welch {
        let _ = write!(
            text,
            " Welch's test on the binaries' means: {} ({} df).",
            p_value(w.p),
            super::numfmt::sig(w.df, 3)
        );
    }
    if let (Some(pct), true) = (fail_if_slower, slower_beyond_threshold) {
        let _ = write!(
            text,
            " FAIL: the whole interval is {worse} by more than {}.",
            percent(pct, 2)
        );
    }
    Ok(ProgramComparison {
        program: base.program.clone(),
        metric: base.metric.clone(),
        unit: base.unit.clone(),
        unit_is_time: base.is_time(),
        binaries: (base.seeds.len(), new.seeds.len()),
        base_mean: b.mean,
        base_ci: Interval {
            lower: b.low,
            upper: b.high,
        },
        new_mean: n.mean,
        new_ci: Interval {
            lower: n.low,
            upper: n.high,
        },
        ratio: ratio.estimate,
        ratio_ci: bounds.map(|(lower, upper)| Interval { lower, upper }),
        paired_relative_ci,
        welch_p: welch.map(|w| w.p),
        welch_df: welch.map(|w| w.df),
        slower_beyond_threshold,
        text,
    })
}

fn signed_percent(share: f64) -> String {
    if share < 0.0 {
        format!("−{}", percent(-share, 2))
    } else {
        format!("+{}", percent(share, 2))
    }
}

/// Across the programs of one metric: how many sped up (with Wilson's interval, Touati
/// et al. §4) and the overall gain G (Touati et al. §3, time-proportional weights).
fn overall(metric: &str, programs: &[&ProgramComparison], confidence: f64) -> Overall {
    let n = programs.len();
    let sped_up = programs
        .iter()
        .filter(|p| p.ratio_ci.is_some_and(|c| c.upper < 1.0))
        .count();
    let sped_up_ci = wilson_ci(sped_up as u64, n as u64, confidence, false)
        .ok()
        .map(|c| Interval {
            lower: c.low,
            upper: c.high,
        });
    let weights = time_weights(&programs.iter().map(|p| p.base_mean).collect::<Vec<_>>());
    let times: Vec<ProgramTimes> = programs
        .iter()
        .zip(weights)
        .map(|(p, weight)| ProgramTimes {
            weight,
            old: p.base_mean,
            new: p.new_mean,
        })
        .collect();
    let gain = overall_gain(&times).ok();
    let mut text = format!(
        "{sped_up} of {n} programs are significantly {} with new",
        if programs[0].unit_is_time {
            "faster"
        } else {
            "lower"
        }
    );
    if let Some(ci) = sped_up_ci {
        let _ = write!(
            text,
            " (proportion {}, {} Wilson CI {} to {})",
            percent(sped_up as f64 / n as f64, 2),
            level(confidence),
            percent(ci.lower, 2),
            percent(ci.upper, 2)
        );
    }
    text.push('.');
    if let Some(g) = gain {
        let _ = write!(
            text,
            " Overall gain G = {} of the base {metric} (Touati's time-weighted gain; {}).",
            signed_percent(g),
            if g >= 0.0 { "saved" } else { "lost" }
        );
    }
    Overall {
        metric: metric.to_string(),
        programs: n,
        sped_up,
        sped_up_ci,
        gain,
        text,
    }
}

/// The comparison as plain text.
pub fn render_text(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Comparison over random code layouts: base {} against new {}.\nEvery interval is a two-sided {} confidence interval.",
        c.base,
        c.new,
        level(c.confidence)
    );
    for p in &c.programs {
        let _ = writeln!(out, "\n{} — {} ({})", p.program, p.metric, p.unit);
        let _ = writeln!(
            out,
            "  base: {} over {} binaries",
            estimate(
                p.base_mean,
                p.base_ci.lower,
                p.base_ci.upper,
                &p.unit,
                c.confidence
            ),
            p.binaries.0
        );
        let _ = writeln!(
            out,
            "  new:  {} over {} binaries",
            estimate(
                p.new_mean,
                p.new_ci.lower,
                p.new_ci.upper,
                &p.unit,
                c.confidence
            ),
            p.binaries.1
        );
        let _ = writeln!(out, "  {}", p.text);
    }
    for o in &c.overall {
        let _ = writeln!(out, "\nAcross programs ({}): {}", o.metric, o.text);
    }
    for u in &c.unmatched {
        let _ = writeln!(out, "\nnot compared: {u}");
    }
    out
}
