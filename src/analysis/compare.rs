//! Is the new system faster than the base, and by how much? The comparison of two data sets
//! of the same quantity, used by `compare` on CSV files and, per program and metric, on
//! experiment directories.
//!
//! The effect is the ratio of means `new/base` with Fieller's interval (Kalibera & Jones 2013
//! eq. 5), classified by [`super::effect`] (detected, negligible, tie, …). Beside it: Welch's
//! test on the top-level means (Welch 1947), the matched-pair interval when both sides have
//! the same top-level ids, e.g. the same layout seeds (Georges et al. 2008 §5.2), the
//! Mann–Whitney test on the top-level means, and an optional studentized bootstrap of the
//! ratio over top-level units. Every statistic that the data make undefined is left out
//! with the reason in `warnings`; nothing here panics.

use std::collections::HashMap;

use anyhow::Result;
use serde::Serialize;

use crate::seeded::SeededRng;
use crate::stats::bootstrap::{self, BootstrapCi};
use crate::stats::fieller::ratio_ci;
use crate::stats::hierarchy::{plural, Hierarchy};
use crate::stats::mann_whitney::{mann_whitney, MannWhitney};
use crate::stats::multilevel::mean_ci;
use crate::stats::paired::{paired_difference, PairedDifference};
use crate::stats::sample::MeanInterval;
use crate::stats::shapiro_wilk::{shapiro_wilk, ShapiroWilk};
use crate::stats::welch::welch;

use super::effect::{Effect, EffectVerdict};
use super::numfmt::{p_value, percent};
use super::single::{bootstrap_warning, BootstrapOptions, Dataset, CLT_UNITS};
use super::vocabulary::{check_bootstrap, Thresholds, MIN_TOP_LEVEL_UNITS};

/// Version of the JSON schema of [`Comparison`] (docs/formats.md).
pub const COMPARISON_SCHEMA: u32 = 2;

/// What to compute beside the ratio.
#[derive(Debug, Clone, Copy)]
pub struct CompareOptions {
    /// Confidence and relevance thresholds.
    pub thresholds: Thresholds,
    /// Whether the values are times (lower is "faster") or other costs (lower is "lower").
    pub is_time: bool,
    /// Studentized bootstrap of the ratio (resampling each side's top-level units).
    pub bootstrap: Option<BootstrapOptions>,
    /// Gate: flag the comparison when the whole interval says slower (higher) by more than
    /// this share.
    pub fail_if_slower: Option<f64>,
}

/// One side of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// Where the data came from.
    pub source: String,
    /// Number of measurements.
    pub n: usize,
    /// Number of top-level units.
    pub top_units: usize,
    /// Grand mean.
    pub mean: f64,
    /// Kalibera & Jones eq. 4 interval (null with one top-level unit).
    pub ci: Option<MeanInterval>,
    /// Shapiro–Wilk on the top-level unit means (null below 3 units or constant means).
    pub normality: Option<ShapiroWilk>,
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

/// The comparison of two data sets; its JSON form is `compare --format json` in CSV mode
/// and one entry of `programs` in directory mode.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// [`COMPARISON_SCHEMA`].
    pub schema: u32,
    /// The compared quantity.
    pub value: String,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// Relevance threshold (share).
    pub negligible: f64,
    /// The baseline.
    pub base: Side,
    /// The new system.
    pub new: Side,
    /// `new/base` with its Fieller interval, classified.
    pub effect: Effect,
    /// Welch's test on the top-level means (null when both sides have zero variance or a
    /// single unit).
    pub welch: Option<WelchJson>,
    /// Matched pairs by top-level id (`new − base`), when both have the same ids.
    pub paired: Option<PairedDifference>,
    /// Mann–Whitney U on the top-level means (`u` counts new > base).
    pub mann_whitney: Option<MannWhitney>,
    /// Percentile bootstrap of the ratio when asked for.
    pub bootstrap: Option<BootstrapCi>,
    /// Whether the whole interval says slower (higher) by more than `--fail-if-slower`.
    pub slower_beyond_threshold: bool,
    /// "faster"/"slower" (or "lower"/"higher"), "negligible", "equivalent",
    /// "no significant difference", "tie" or "unbounded".
    pub verdict: &'static str,
    /// The one-sentence answer.
    pub summary: String,
    /// Things the reader must know, including why a statistic above is null.
    pub warnings: Vec<String>,
}

impl Comparison {
    /// The Mann–Whitney test in words, e.g. "on the binary means: P(new > base) = 0.080,
    /// p = 0.032 (exact)": one wording for every text rendering of a comparison (the
    /// warnings advise reading it when the means do not look normal).
    pub fn mann_whitney_words(&self, top_name: &str) -> Option<String> {
        self.mann_whitney.map(|mw| {
            format!(
                "on the {top_name} means: P(new > base) = {:.3}, {} ({})",
                mw.prob_superiority,
                p_value(mw.p),
                match mw.method {
                    crate::stats::mann_whitney::PMethod::Exact => "exact",
                    crate::stats::mann_whitney::PMethod::Normal => "normal approximation",
                }
            )
        })
    }

    /// The bootstrap interval of new/base in words, e.g. "new/base 0.6350 … 1.0140 (95 %
    /// studentized, 10000 resamples of the binaries)", when `--bootstrap` asked for it.
    pub fn bootstrap_words(&self) -> Option<String> {
        self.bootstrap.as_ref().map(|b| {
            format!(
                "new/base {:.4} … {:.4} ({} studentized, {} resamples of the binaries)",
                b.low,
                b.high,
                super::numfmt::level(b.confidence),
                b.resamples
            )
        })
    }
}

fn side(d: &Dataset, confidence: f64) -> Side {
    let h = &d.hierarchy;
    Side {
        source: d.source.clone(),
        n: h.len(),
        top_units: *h.repetitions().last().expect("a level"),
        mean: h.mean(),
        ci: mean_ci(h, confidence)
            .ok()
            .filter(|c| c.low.is_finite() && c.high.is_finite()),
        normality: shapiro_wilk(&h.top_means())
            .ok()
            .filter(|s| s.w.is_finite() && s.p.is_finite()),
    }
}

/// Compares `new` against `base`.
pub fn compare(base: &Dataset, new: &Dataset, options: &CompareOptions) -> Result<Comparison> {
    let th = &options.thresholds;
    let confidence = th.confidence;
    if let Some(b) = options.bootstrap {
        check_bootstrap(b.resamples)?;
    }
    let top_name = base.levels.first().map_or("unit", String::as_str);
    let units = plural(top_name);
    let b = side(base, confidence);
    let n = side(new, confidence);
    let (better, worse) = if options.is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let mut warnings = Vec::new();
    let constant = |h: &Hierarchy| h.values().iter().all(|v| *v == h.values()[0]);
    let tie = constant(&base.hierarchy)
        && constant(&new.hierarchy)
        && base.hierarchy.values()[0] == new.hierarchy.values()[0];
    let effect = match (&b.ci, &n.ci) {
        _ if tie => Effect::classify(1.0, Some((1.0, 1.0)), th, better, worse),
        (Some(bc), Some(nc)) => {
            let f = ratio_ci(bc, nc);
            Effect::classify(f.estimate, f.bounds(), th, better, worse)
        }
        _ => {
            warnings.push(format!(
                "the ratio's interval is not computable: each side needs at least two {units}"
            ));
            Effect::classify(n.mean / b.mean, None, th, better, worse)
        }
    };
    let base_means = base.hierarchy.top_means();
    let new_means = new.hierarchy.top_means();
    let welch = match welch(&new_means, &base_means) {
        Ok(w) => match w.interval(confidence) {
            Ok((low, high)) if w.p.is_finite() => Some(WelchJson {
                t: w.t,
                df: w.df,
                p: w.p,
                difference: w.difference,
                low,
                high,
            }),
            _ => None,
        },
        Err(e) => {
            if !tie {
                warnings.push(format!("no Welch test: {e}"));
            }
            None
        }
    };
    let paired = match matched_top_means(&base.hierarchy, &new.hierarchy) {
        Some((before, after)) if before.len() >= 2 => {
            paired_difference(&before, &after, confidence)
                .ok()
                .filter(|p| p.low.is_finite() && p.high.is_finite())
        }
        _ => None,
    };
    if base.hierarchy.repetitions() != new.hierarchy.repetitions() {
        warnings.push(format!(
            "the two designs differ (repetitions per level, lowest first: base {:?}, new {:?})",
            base.hierarchy.repetitions(),
            new.hierarchy.repetitions()
        ));
    }
    let mann_whitney = mann_whitney(&new_means, &base_means)
        .ok()
        .filter(|m| m.p.is_finite());
    for s in [&b, &n] {
        if let Some(sw) = s
            .normality
            .filter(|sw| sw.p < th.alpha() && s.top_units < CLT_UNITS)
        {
            warnings.push(format!(
                "the {top_name} means of {} do not look normal (Shapiro–Wilk, {}) and there \
                 are fewer than {CLT_UNITS}: {}",
                s.source,
                p_value(sw.p),
                if s.top_units >= bootstrap::ADVISABLE_UNITS {
                    "check the bootstrap interval (--bootstrap 10000) and the Mann–Whitney test"
                        .to_string()
                } else {
                    format!(
                        "check the Mann–Whitney test and add {units}; with fewer than {} the \
                         bootstrap interval is not advisable (too few distinct resamples for \
                         its coverage to be trusted)",
                        bootstrap::ADVISABLE_UNITS
                    )
                }
            ));
        }
        if s.top_units < MIN_TOP_LEVEL_UNITS {
            warnings.push(format!(
                "{} has only {} {}: its interval, and so the ratio's, is very wide \
                 (Kalibera & Jones use at least {MIN_TOP_LEVEL_UNITS})",
                s.source, s.top_units, units
            ));
        }
    }
    let bootstrap = options.bootstrap.and_then(|o| {
        let mut rng = SeededRng::new(o.seed, "compare-bootstrap");
        let ci = bootstrap::ratio_ci(
            &base.hierarchy,
            &new.hierarchy,
            confidence,
            o.resamples,
            &mut rng,
        );
        let fewest = b.top_units.min(n.top_units);
        warnings.extend(bootstrap_warning(&ci, fewest, top_name));
        ci.ok()
    });
    let slower_beyond_threshold = effect.slower_beyond(options.fail_if_slower);
    let verdict = effect.verdict.word(better, worse);
    let mut summary = match effect.verdict {
        EffectVerdict::Lower | EffectVerdict::Higher => {
            format!("new is {} than base (Fieller interval).", effect.words)
        }
        EffectVerdict::Negligible | EffectVerdict::Equivalent | EffectVerdict::Inconclusive => {
            format!(
                "{}: new is {} than base (Fieller interval).",
                effect.qualifier(th),
                effect.words
            )
        }
        EffectVerdict::Tie => {
            "a tie: every measurement of both sides has the same value.".to_string()
        }
        EffectVerdict::Unbounded => format!(
            "cannot tell: {} (the base's interval includes zero or is missing); measure more {units}.",
            effect.words
        ),
    };
    if slower_beyond_threshold {
        summary.push_str(&format!(
            " FAIL: the whole interval is {worse} by more than {}.",
            percent(options.fail_if_slower.unwrap_or(0.0), 2)
        ));
    }
    Ok(Comparison {
        schema: COMPARISON_SCHEMA,
        value: base.value.clone(),
        confidence,
        negligible: th.negligible,
        base: b,
        new: n,
        effect,
        welch,
        paired,
        mann_whitney,
        bootstrap,
        slower_beyond_threshold,
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
