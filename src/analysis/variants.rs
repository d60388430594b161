//! Is variant B faster than variant A, whatever the layout? The comparison of the A/B
//! variants of one program measured in one interleaved experiment (issue 11).
//!
//! Input: per variant a balanced hierarchy (binaries × executions × iterations) whose
//! top-level ids name the binaries (`seed-3`), so that seed `s` of one variant pairs with
//! seed `s` of another. Per pair (the base — the first variant unless one is named — against
//! each other variant):
//!
//! - the ratio of means `new/base` with Fieller's interval (Kalibera & Jones 2013 eq. 5),
//!   which treats the two sides as independent;
//! - the paired-by-seed ratio interval ([`crate::stats::paired_ratio`]), which removes the
//!   layout effect a pair shares: **the verdict rests on it when at least two seeds match**,
//!   since eq. 5 is then needlessly wide (conservative); otherwise on eq. 5;
//! - a studentized bootstrap interval of the ratio over seeds, pairs drawn jointly when matched;
//! - the share of seeds on which new is faster, with Wilson's interval (Touati et al.);
//! - the variant × binary interaction of the two-way mixed ANOVA: does the speedup itself
//!   depend on the layout?
//!
//! With more than two variants, the ANOVA over the variants and Tukey's HSD simultaneous
//! intervals for every pair (Georges et al. 2008 §4.1). Verdicts use the one vocabulary
//! ([`super::effect`]): never "faster" when the interval includes no change or lies within
//! the relevance threshold. Every statistic the data make undefined is left out with the
//! reason in `warnings`; nothing here panics.

use std::collections::HashMap;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::seeded::SeededRng;
use crate::stats::anova::random_effects;
use crate::stats::bootstrap::{self, BootstrapCi};
use crate::stats::fieller::ratio_ci;
use crate::stats::hierarchy::Hierarchy;
use crate::stats::multilevel::mean_ci;
use crate::stats::paired_ratio::paired_ratio;
use crate::stats::suite::wilson_ci;
use crate::stats::tukey::tukey_hsd;
use crate::stats::twoway::{two_way_mixed, FTest};

use super::effect::{Effect, EffectVerdict, Interval};
use super::numfmt::{change_parts, p_value, percent};
use super::single::BootstrapOptions;
use super::vocabulary::{check_bootstrap, Thresholds};

/// Bootstrap resamples when the caller asks for none in particular: the bootstrap
/// interval's Monte Carlo error at 2 000 resamples is a few per cent of its width (Efron &
/// Tibshirani 1993 §19.3), enough beside two analytic intervals.
pub const DEFAULT_VARIANT_RESAMPLES: usize = 2000;

/// One variant's data.
#[derive(Debug, Clone, Copy)]
pub struct VariantData<'a> {
    /// The variant's name (`O2`).
    pub name: &'a str,
    /// Its measurements; top-level ids name the binaries (`seed-3`) for matching.
    pub hierarchy: &'a Hierarchy,
}

/// What to compute.
#[derive(Debug, Clone)]
pub struct VariantOptions {
    /// Confidence and relevance thresholds.
    pub thresholds: Thresholds,
    /// Whether the values are times (lower is "faster") or other costs (lower is "lower").
    pub is_time: bool,
    /// The base variant; the first one when `None`.
    pub base: Option<String>,
    /// The bootstrap's resamples and seed; `None`: no bootstrap interval (the report uses
    /// [`DEFAULT_VARIANT_RESAMPLES`] unless told otherwise).
    pub bootstrap: Option<BootstrapOptions>,
    /// Gate: flag a pair whose whole interval says slower than the base by more than this
    /// share.
    pub fail_if_slower: Option<f64>,
}

/// A ratio with its interval (`None`: unbounded or not computable).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RatioJson {
    /// The ratio `new/base`.
    pub ratio: f64,
    /// Its interval.
    pub ci: Option<Interval>,
}

/// The bootstrap interval of the ratio.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BootstrapJson {
    /// Studentized bootstrap interval (stats::bootstrap).
    pub ci: Interval,
    /// Resamples drawn.
    pub resamples: usize,
    /// Whether pairs were drawn jointly by seed.
    pub paired: bool,
}

/// The share of seeds on which new is faster (lower), with Wilson's interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ShareFaster {
    /// Seeds on which new's mean is below base's.
    pub k: usize,
    /// Seeds compared.
    pub n: usize,
    /// Seeds on which new's mean is above base's (`n - k - slower` seeds tie).
    pub slower: usize,
    /// Lower end of Wilson's interval for the probability.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// An F-test as the report shows it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FTestJson {
    /// The F statistic.
    pub f: f64,
    /// Numerator and denominator degrees of freedom.
    pub df: (usize, usize),
    /// Its p-value.
    pub p_value: f64,
}

impl From<FTest> for FTestJson {
    fn from(t: FTest) -> Self {
        FTestJson {
            f: t.f,
            df: t.df,
            p_value: t.p_value,
        }
    }
}

/// One matched binary (seed) of a pair: its mean under each variant, from the same
/// hierarchies the pair's statistics use (what the paired and interaction plots draw).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BinaryMeans {
    /// The binary's label, `seed-N`.
    pub binary: String,
    /// Its mean under the base variant.
    pub base: f64,
    /// Its mean under the new variant.
    pub new: f64,
}

/// Which interval the verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The paired-by-seed interval (seeds matched).
    Paired,
    /// Fieller's interval for independent sides (eq. 5).
    Fieller,
}

/// One pair: `new` against `base`.
#[derive(Debug, Clone, Serialize)]
pub struct PairComparison {
    /// Program.
    pub program: String,
    /// Metric.
    pub metric: String,
    /// The base variant.
    pub base: String,
    /// The new variant.
    pub new: String,
    /// `mean(new) / mean(base)` over all their binaries.
    pub ratio: f64,
    /// Fieller's interval (eq. 5), independent sides.
    pub ci: Option<Interval>,
    /// The paired-by-seed ratio and interval (null without two matched seeds).
    pub paired: Option<RatioJson>,
    /// The hierarchical bootstrap interval of the ratio.
    pub bootstrap: Option<BootstrapJson>,
    /// Seeds on which new is faster (null without matched seeds).
    pub share_faster: Option<ShareFaster>,
    /// Variant × binary interaction (null without two matched seeds and equal replicates).
    pub interaction: Option<FTestJson>,
    /// The matched binaries' means under each variant, in the base's order (empty without
    /// two matched seeds): the data of the paired-by-seed interval, the share of faster
    /// seeds and the interaction test.
    pub binaries: Vec<BinaryMeans>,
    /// The interval the verdict rests on.
    pub basis: Basis,
    /// The effect classified at the thresholds.
    pub effect: Effect,
    /// One word: "faster", "slower", "negligible", "equivalent", "no significant
    /// difference", "tie", "unbounded" ("lower"/"higher" for non-times).
    pub verdict: &'static str,
    /// The whole interval says slower than `--fail-if-slower` allows.
    pub slower_beyond_threshold: bool,
    /// The answer in one sentence.
    pub text: String,
}

/// One pair of Tukey's family.
#[derive(Debug, Clone, Serialize)]
pub struct TukeyPairJson {
    /// The reference of the difference.
    pub base: String,
    /// The other variant.
    pub new: String,
    /// `mean(new) − mean(base)`, in the metric's unit.
    pub difference: f64,
    /// Its simultaneous interval.
    pub ci: Interval,
    /// `1 + difference / mean(base)`: the interval as a ratio, taking the base's mean as
    /// fixed (an approximation that ignores the base mean's own error).
    pub ratio: f64,
    /// The ratio's simultaneous interval.
    pub ratio_ci: Interval,
    /// Tukey's adjusted p-value.
    pub p_value: f64,
    /// The pair's verdict at the thresholds.
    pub verdict: &'static str,
}

/// Tukey's HSD over all variants (k > 2).
#[derive(Debug, Clone, Serialize)]
pub struct Multiple {
    /// Always "tukey_hsd".
    pub method: &'static str,
    /// The ANOVA's F-test of "all variants equal".
    pub anova: FTestJson,
    /// Which error term: "interaction" (matched seeds, two-way mixed ANOVA) or "within"
    /// (independent binaries, one-way ANOVA of binary means).
    pub error_term: &'static str,
    /// The studentized range quantile.
    pub q_critical: f64,
    /// Every pair.
    pub pairs: Vec<TukeyPairJson>,
}

/// The comparison of the variants of one program and metric.
#[derive(Debug, Clone, Serialize)]
pub struct VariantAnalysis {
    /// Program.
    pub program: String,
    /// Metric.
    pub metric: String,
    /// The base variant.
    pub base: String,
    /// Every variant, base first.
    pub variants: Vec<String>,
    /// Base against each other variant.
    pub comparisons: Vec<PairComparison>,
    /// Tukey's HSD when there are more than two variants.
    pub multiple: Option<Multiple>,
    /// Why a statistic above is missing, and other things to know.
    pub warnings: Vec<String>,
}

impl VariantAnalysis {
    /// Whether some pair's whole interval is slower than `--fail-if-slower` allows.
    pub fn fails(&self) -> bool {
        self.comparisons.iter().any(|c| c.slower_beyond_threshold)
    }
}

/// Compares the variants of `program`'s `metric`: the base against each other variant, and
/// every pair by Tukey's HSD when there are more than two.
pub fn compare_variants(
    program: &str,
    metric: &str,
    variants: &[VariantData],
    options: &VariantOptions,
) -> Result<VariantAnalysis> {
    if variants.len() < 2 {
        bail!(
            "{program} {metric}: comparing variants needs at least two, got {}",
            variants.len()
        );
    }
    if let Some(b) = options.bootstrap {
        check_bootstrap(b.resamples)?;
    }
    let base_index = match &options.base {
        None => 0,
        Some(name) => match variants.iter().position(|v| v.name == name) {
            Some(i) => i,
            None => bail!(
                "--base {name}: {program} has no such variant (it has {})",
                variants
                    .iter()
                    .map(|v| v.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    };
    let mut order: Vec<usize> = vec![base_index];
    order.extend((0..variants.len()).filter(|&i| i != base_index));
    let ordered: Vec<VariantData> = order.iter().map(|&i| variants[i]).collect();
    let base = ordered[0];
    let mut warnings = Vec::new();
    let comparisons = ordered[1..]
        .iter()
        .map(|new| compare_pair(program, metric, base, *new, options, &mut warnings))
        .collect();
    let multiple = if ordered.len() > 2 {
        tukey_family(&ordered, options, &mut warnings)
    } else {
        None
    };
    Ok(VariantAnalysis {
        program: program.to_string(),
        metric: metric.to_string(),
        base: base.name.to_string(),
        variants: ordered.iter().map(|v| v.name.to_string()).collect(),
        comparisons,
        multiple,
        warnings,
    })
}

/// Indices of the top-level ids that both hierarchies hold, in `a`'s order: (in a, in b).
fn matched_units(a: &Hierarchy, b: &Hierarchy) -> Vec<(usize, usize)> {
    let in_b: HashMap<&str, usize> = b
        .top_ids()
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    a.top_ids()
        .iter()
        .enumerate()
        .filter_map(|(i, id)| in_b.get(id.as_str()).map(|&j| (i, j)))
        .collect()
}

fn interval((lower, upper): (f64, f64)) -> Interval {
    Interval { lower, upper }
}

fn compare_pair(
    program: &str,
    metric: &str,
    base: VariantData,
    new: VariantData,
    options: &VariantOptions,
    warnings: &mut Vec<String>,
) -> PairComparison {
    let th = &options.thresholds;
    let confidence = th.confidence;
    let (better, worse) = if options.is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let (hb, hn) = (base.hierarchy, new.hierarchy);
    let pair_name = format!("{} vs {}", new.name, base.name);
    let ratio = hn.mean() / hb.mean();
    let fieller = match (mean_ci(hb, confidence), mean_ci(hn, confidence)) {
        (Ok(b), Ok(n)) => ratio_ci(&b, &n).bounds().map(interval),
        _ => {
            warnings.push(format!(
                "{pair_name}: no Fieller interval: each variant needs at least two binaries"
            ));
            None
        }
    };
    let matched = matched_units(hb, hn);
    let (mb, mn) = if matched.len() >= 2 {
        let (ib, in_): (Vec<usize>, Vec<usize>) = matched.iter().copied().unzip();
        (hb.select_top(&ib), hn.select_top(&in_))
    } else {
        if !matched.is_empty() || hb.top_ids().len() >= 2 {
            warnings.push(format!(
                "{pair_name}: fewer than two seeds in common, so no paired interval, share \
                 of faster seeds or interaction test"
            ));
        }
        (None, None)
    };
    let (base_means, new_means) = match (&mb, &mn) {
        (Some(b), Some(n)) => (b.top_means(), n.top_means()),
        _ => (Vec::new(), Vec::new()),
    };
    let binaries: Vec<BinaryMeans> = match &mb {
        Some(b) => b
            .top_ids()
            .iter()
            .zip(base_means.iter().zip(&new_means))
            .map(|(id, (&base, &new))| BinaryMeans {
                binary: id.clone(),
                base,
                new,
            })
            .collect(),
        None => Vec::new(),
    };
    let paired = (!base_means.is_empty())
        .then(|| paired_ratio(&base_means, &new_means, confidence).ok())
        .flatten()
        .map(|p| RatioJson {
            ratio: p.estimate,
            ci: p.bounds().map(interval),
        });
    let share_faster = (!base_means.is_empty())
        .then(|| {
            let pairs = || base_means.iter().zip(&new_means);
            let k = pairs().filter(|(b, n)| n < b).count();
            let slower = pairs().filter(|(b, n)| n > b).count();
            wilson_ci(k as u64, base_means.len() as u64, confidence, false)
                .ok()
                .map(|w| ShareFaster {
                    k,
                    n: base_means.len(),
                    slower,
                    lower: w.low,
                    upper: w.high,
                })
        })
        .flatten();
    let interaction = match (&mb, &mn) {
        (Some(b), Some(n)) => {
            let cells: Vec<Vec<Vec<f64>>> = [b, n]
                .iter()
                .map(|h| (0..h.top_ids().len()).map(|k| h.child_means(k)).collect())
                .collect();
            match two_way_mixed(&cells) {
                Ok(t) => t
                    .interaction
                    .filter(|i| i.f.is_finite() && i.p_value.is_finite())
                    .map(FTestJson::from),
                Err(e) => {
                    warnings.push(format!("{pair_name}: no interaction test: {e}"));
                    None
                }
            }
        }
        _ => None,
    };
    let bootstrap = options
        .bootstrap
        .and_then(|boot| {
            let mut rng = SeededRng::new(boot.seed, "variants-bootstrap");
            match (&mb, &mn) {
                (Some(b), Some(n)) => {
                    bootstrap::paired_ratio_ci(b, n, confidence, boot.resamples, &mut rng)
                        .ok()
                        .map(|c| (c, true))
                }
                _ if hb.top_ids().len() >= 2 && hn.top_ids().len() >= 2 => {
                    bootstrap::ratio_ci(hb, hn, confidence, boot.resamples, &mut rng)
                        .ok()
                        .map(|c| (c, false))
                }
                _ => None,
            }
        })
        .filter(|(c, _)| c.low.is_finite() && c.high.is_finite())
        .inspect(|(_, paired)| {
            // The seeds resampled: the matched ones, or the fewer side's.
            let units = match (&mb, *paired) {
                (Some(b), true) => b.top_ids().len(),
                _ => hb.top_ids().len().min(hn.top_ids().len()),
            };
            if units < bootstrap::ADVISABLE_UNITS {
                warnings.push(format!(
                    "{pair_name}: the bootstrap interval resamples only {units} seeds: not \
                     advisable below {} (too few distinct resamples for its coverage to be \
                     trusted)",
                    bootstrap::ADVISABLE_UNITS
                ));
            }
        })
        .map(|(c, paired): (BootstrapCi, bool)| BootstrapJson {
            ci: Interval {
                lower: c.low,
                upper: c.high,
            },
            resamples: c.resamples,
            paired,
        });
    let constant = |h: &Hierarchy| h.values().iter().all(|v| *v == h.values()[0]);
    let tie = constant(hb) && constant(hn) && hb.values()[0] == hn.values()[0];
    let (basis, effect) = match paired {
        _ if tie => (
            Basis::Fieller,
            Effect::classify(1.0, Some((1.0, 1.0)), th, better, worse),
        ),
        Some(p) => (
            Basis::Paired,
            Effect::classify(p.ratio, p.ci.map(|c| (c.lower, c.upper)), th, better, worse),
        ),
        None => (
            Basis::Fieller,
            Effect::classify(
                ratio,
                fieller.map(|c| (c.lower, c.upper)),
                th,
                better,
                worse,
            ),
        ),
    };
    let slower_beyond_threshold = effect.slower_beyond(options.fail_if_slower);
    let text = sentence(
        base.name,
        new.name,
        &effect,
        share_faster.as_ref(),
        interaction.as_ref(),
        options,
    );
    PairComparison {
        program: program.to_string(),
        metric: metric.to_string(),
        base: base.name.to_string(),
        new: new.name.to_string(),
        ratio,
        ci: fieller,
        paired,
        bootstrap,
        share_faster,
        interaction,
        binaries,
        basis,
        verdict: effect.verdict.word(better, worse),
        effect,
        slower_beyond_threshold,
        text,
    }
}

/// "O3 is 4.1 % faster than O2 (95 % CI: 2.9 % to 5.3 % faster), faster on 28 of 30
/// layouts; the speedup varies with the layout (interaction p = 0.003)".
fn sentence(
    base: &str,
    new: &str,
    effect: &Effect,
    share: Option<&ShareFaster>,
    interaction: Option<&FTestJson>,
    options: &VariantOptions,
) -> String {
    let th = &options.thresholds;
    let (better, worse) = if options.is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let parts = effect.ci.map(|ci| {
        change_parts(
            effect.ratio,
            ci.lower,
            ci.upper,
            th.confidence,
            better,
            worse,
        )
    });
    let margin = percent(th.negligible, 2);
    let mut text = match (effect.verdict, &parts) {
        (EffectVerdict::Lower | EffectVerdict::Higher, Some((head, ci))) => {
            format!("{new} is {head} than {base} ({ci})")
        }
        (EffectVerdict::Negligible, Some((head, ci))) => format!(
            "{new} is {head} than {base}: detectable but negligible ({ci}, within ± {margin})"
        ),
        (EffectVerdict::Equivalent, Some((head, ci))) => format!(
            "no relevant difference between {new} and {base}: {head} ({ci}, within ± {margin})"
        ),
        (EffectVerdict::Inconclusive, Some((head, ci))) => format!(
            "no significant difference between {new} and {base}: {head} ({ci}), more \
             binaries would tell"
        ),
        (EffectVerdict::Tie, _) => {
            format!("{new} and {base} tie: every measurement has the same value")
        }
        _ => format!(
            "{new} against {base}: ratio {:.4}, with no bounded interval (the base's mean is \
             not distinguishable from zero); measure more binaries",
            effect.ratio
        ),
    };
    if let Some(s) = share {
        // A slower variant is described by the layouts on which it is slower, not as
        // "faster on 0 of 6 layouts".
        if effect.verdict == EffectVerdict::Higher {
            text.push_str(&format!(", {worse} on {} of {} layouts", s.slower, s.n));
        } else {
            text.push_str(&format!(", {better} on {} of {} layouts", s.k, s.n));
        }
    }
    if let Some(i) = interaction {
        let what = if options.is_time {
            "the speedup"
        } else {
            "the difference"
        };
        if i.p_value < th.alpha() {
            text.push_str(&format!(
                "; {what} varies with the layout (interaction {})",
                p_value(i.p_value)
            ));
        } else {
            text.push_str(&format!(
                "; no evidence that {what} varies with the layout (interaction {})",
                p_value(i.p_value)
            ));
        }
    }
    text
}

/// Tukey's HSD over all variants: on the seeds every variant shares with the two-way mixed
/// ANOVA's interaction as the error term, else on the binaries' means with the one-way
/// ANOVA's within mean square (equal numbers of binaries needed).
fn tukey_family(
    variants: &[VariantData],
    options: &VariantOptions,
    warnings: &mut Vec<String>,
) -> Option<Multiple> {
    let th = &options.thresholds;
    let (better, worse) = if options.is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    // Seeds common to every variant, in the base's order.
    let index_of = |h: &Hierarchy, id: &str| h.top_ids().iter().position(|x| x == id);
    let shared: Vec<&String> = variants[0]
        .hierarchy
        .top_ids()
        .iter()
        .filter(|id| variants.iter().all(|v| index_of(v.hierarchy, id).is_some()))
        .collect();
    let (means, ms, df, n, anova, error_term) = if shared.len() >= 2 {
        let selected: Vec<Hierarchy> = variants
            .iter()
            .map(|v| {
                let idx: Vec<usize> = shared
                    .iter()
                    .filter_map(|id| index_of(v.hierarchy, id))
                    .collect();
                v.hierarchy.select_top(&idx).expect("shared ids exist")
            })
            .collect();
        let cells: Vec<Vec<Vec<f64>>> = selected
            .iter()
            .map(|h| (0..shared.len()).map(|k| h.child_means(k)).collect())
            .collect();
        let t = match two_way_mixed(&cells) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(format!("no Tukey HSD: {e}"));
                return None;
            }
        };
        let per_mean = (t.binaries * t.replicates) as f64;
        let means: Vec<f64> = cells
            .iter()
            .map(|row| row.iter().flatten().sum::<f64>() / per_mean)
            .collect();
        let df = ((t.variants - 1) * (t.binaries - 1)) as f64;
        (
            means,
            t.ms_interaction,
            df,
            per_mean,
            FTestJson::from(t.variant),
            "interaction",
        )
    } else {
        let groups: Vec<Vec<f64>> = variants.iter().map(|v| v.hierarchy.top_means()).collect();
        if groups.iter().any(|g| g.len() != groups[0].len()) {
            warnings.push(
                "no Tukey HSD: the variants share fewer than two seeds and have different \
                 numbers of binaries"
                    .to_string(),
            );
            return None;
        }
        let a = match random_effects(&groups) {
            Ok(a) => a,
            Err(e) => {
                warnings.push(format!("no Tukey HSD: {e}"));
                return None;
            }
        };
        let means = groups
            .iter()
            .map(|g| crate::stats::sample::mean(g))
            .collect();
        (
            means,
            a.ms_within,
            a.df_within as f64,
            groups[0].len() as f64,
            FTestJson {
                f: a.f,
                df: (a.df_between, a.df_within),
                p_value: a.p,
            },
            "within",
        )
    };
    let hsd = match tukey_hsd(&means, ms, df, n, th.confidence) {
        Ok(h) => h,
        Err(e) => {
            warnings.push(format!("no Tukey HSD: {e}"));
            return None;
        }
    };
    let pairs = hsd
        .pairs
        .iter()
        .map(|p| {
            let m = means[p.i];
            let ratio_ci = Interval {
                lower: 1.0 + p.lower / m,
                upper: 1.0 + p.upper / m,
            };
            let ratio = 1.0 + p.difference / m;
            let effect = Effect::classify(
                ratio,
                Some((
                    ratio_ci.lower.min(ratio_ci.upper),
                    ratio_ci.upper.max(ratio_ci.lower),
                )),
                th,
                better,
                worse,
            );
            TukeyPairJson {
                base: variants[p.i].name.to_string(),
                new: variants[p.j].name.to_string(),
                difference: p.difference,
                ci: Interval {
                    lower: p.lower,
                    upper: p.upper,
                },
                ratio,
                ratio_ci,
                p_value: p.p_value,
                verdict: effect.verdict.word(better, worse),
            }
        })
        .collect();
    Some(Multiple {
        method: "tukey_hsd",
        anova,
        error_term,
        q_critical: hsd.q_critical,
        pairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seeds` binaries × 5 executions × 4 iterations: `mean · (1 + layout(s)) ·
    /// (1 + speedup_spread · wobble(s))` plus execution noise; layouts shared across variants
    /// through the seed's id.
    fn variant(mean: f64, seeds: std::ops::Range<u64>, spread: f64) -> Hierarchy {
        let mut values = Vec::new();
        let ids: Vec<String> = seeds.clone().map(|s| format!("seed-{s}")).collect();
        for s in seeds.clone() {
            let layout = 0.05 * ((s as f64) * 1.7).sin();
            let wobble = spread * ((s as f64) * 2.9).cos();
            for e in 0..5 {
                for i in 0..4 {
                    let noise = 0.002 * ((s * 31 + e * 7 + i) as f64 * 0.61 + mean).sin();
                    values.push(mean * (1.0 + layout) * (1.0 + wobble) * (1.0 + noise));
                }
            }
        }
        let n = ids.len();
        Hierarchy::from_nested(values, vec![4, 5, n])
            .unwrap()
            .with_top_ids(ids)
            .unwrap()
    }

    /// The variants as `compare_variants` takes them, from (name, measurements) pairs.
    fn named<'a, const N: usize>(v: [(&'a str, &'a Hierarchy); N]) -> [VariantData<'a>; N] {
        v.map(|(name, hierarchy)| VariantData { name, hierarchy })
    }

    fn options() -> VariantOptions {
        VariantOptions {
            thresholds: Thresholds::default(),
            is_time: true,
            base: None,
            bootstrap: Some(BootstrapOptions {
                resamples: 500,
                seed: 3,
            }),
            fail_if_slower: None,
        }
    }

    #[test]
    fn a_clear_speedup_in_words() {
        let o2 = variant(100.0, 0..30, 0.0);
        let o3 = variant(95.9, 0..30, 0.0);
        let v = named([("O2", &o2), ("O3", &o3)]);
        let a = compare_variants("lua", "wall", &v, &options()).unwrap();
        let c = &a.comparisons[0];
        assert_eq!((c.base.as_str(), c.new.as_str()), ("O2", "O3"));
        assert_eq!(c.basis, Basis::Paired);
        assert_eq!(c.verdict, "faster");
        let share = c.share_faster.unwrap();
        assert_eq!((share.k, share.n), (30, 30));
        assert!(
            c.text.starts_with("O3 is 4.1 % faster than O2 (95 % CI: "),
            "{}",
            c.text
        );
        assert!(c.text.contains("faster on 30 of 30 layouts"), "{}", c.text);
        // The layout effect (±5 %) is shared, so the paired interval is far narrower than
        // eq. 5's; all three intervals hold the ratio.
        let p = c.paired.unwrap().ci.unwrap();
        let f = c.ci.unwrap();
        let b = c.bootstrap.unwrap();
        assert!(b.paired);
        for ci in [p, f, b.ci] {
            assert!(ci.lower < 0.959 && 0.959 < ci.upper, "{ci:?}");
        }
        assert!(f.upper - f.lower > 5.0 * (p.upper - p.lower));
        assert!(a.multiple.is_none() && !a.fails());
    }

    #[test]
    fn a_negligible_speedup_is_worded_as_a_comparison() {
        // 0.3 % faster, detected (the layouts are matched), below the 1 % threshold. The
        // sentence said "O3 differs from O2 by a detectable but negligible 0.3 % faster".
        let o2 = variant(100.0, 0..30, 0.0);
        let o3 = variant(99.7, 0..30, 0.0);
        let v = named([("O2", &o2), ("O3", &o3)]);
        let a = compare_variants("lua", "wall", &v, &options()).unwrap();
        let c = &a.comparisons[0];
        assert_eq!(c.effect.verdict, EffectVerdict::Negligible, "{}", c.text);
        assert!(c.text.starts_with("O3 is 0.3"), "{}", c.text);
        assert!(
            c.text
                .contains(" % faster than O2: detectable but negligible (95 % CI: "),
            "{}",
            c.text
        );
        assert!(c.text.contains("within ± 1.0 %)"), "{}", c.text);
    }

    #[test]
    fn a_speedup_that_depends_on_the_layout_is_said() {
        let o2 = variant(100.0, 0..30, 0.0);
        let o3 = variant(96.0, 0..30, 0.06);
        let v = named([("O2", &o2), ("O3", &o3)]);
        let a = compare_variants("lua", "wall", &v, &options()).unwrap();
        let c = &a.comparisons[0];
        let i = c.interaction.unwrap();
        assert!(i.p_value < 1e-6, "{i:?}");
        assert_eq!(i.df, (29, 240));
        assert!(
            c.text
                .contains("the speedup varies with the layout (interaction p < 0.0001)"),
            "{}",
            c.text
        );
        // Some seeds are slower: the share is below 30.
        assert!(c.share_faster.unwrap().k < 30);
    }

    #[test]
    fn the_base_can_be_named_and_gates_fail() {
        let a2 = variant(100.0, 0..10, 0.0);
        let a3 = variant(110.0, 0..10, 0.0);
        let v = named([("new", &a3), ("old", &a2)]);
        let mut o = options();
        o.base = Some("old".into());
        o.fail_if_slower = Some(0.05);
        let a = compare_variants("p", "wall", &v, &o).unwrap();
        assert_eq!(a.base, "old");
        assert_eq!(a.comparisons[0].verdict, "slower");
        // A slower variant is counted by the layouts on which it is slower.
        let text = &a.comparisons[0].text;
        assert!(text.contains("slower on 10 of 10 layouts"), "{text}");
        assert!(!text.contains("faster on"), "{text}");
        assert_eq!(a.comparisons[0].share_faster.unwrap().slower, 10);
        assert!(a.fails());
        o.fail_if_slower = Some(0.2);
        assert!(!compare_variants("p", "wall", &v, &o).unwrap().fails());
        o.base = Some("nope".into());
        let e = compare_variants("p", "wall", &v, &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such variant (it has new, old)"), "{e}");
    }

    #[test]
    fn unmatched_seeds_fall_back_to_independent_intervals() {
        let a = variant(100.0, 0..10, 0.0);
        let b = variant(100.0, 100..110, 0.0);
        let v = named([("a", &a), ("b", &b)]);
        let r = compare_variants("p", "wall", &v, &options()).unwrap();
        let c = &r.comparisons[0];
        assert_eq!(c.basis, Basis::Fieller);
        assert!(c.paired.is_none() && c.share_faster.is_none() && c.interaction.is_none());
        assert!(!c.bootstrap.unwrap().paired);
        assert!(r
            .warnings
            .iter()
            .any(|w| w.contains("fewer than two seeds in common")));
        // The same layouts under other seeds' names: the ratio is 1 exactly.
        assert!((c.ratio - 1.0).abs() < 1e-3);
        assert_ne!(c.verdict, "faster");
        assert_ne!(c.verdict, "slower");
    }

    #[test]
    fn three_variants_get_tukey_pairs() {
        let (x, y, z) = (
            variant(100.0, 0..12, 0.0),
            variant(100.0, 0..12, 0.0),
            variant(90.0, 0..12, 0.0),
        );
        let v = named([("O1", &x), ("O2", &y), ("O3", &z)]);
        let a = compare_variants("p", "wall", &v, &options()).unwrap();
        assert_eq!(a.comparisons.len(), 2);
        let m = a.multiple.unwrap();
        assert_eq!(m.method, "tukey_hsd");
        assert_eq!(m.error_term, "interaction");
        let names: Vec<(&str, &str, &str)> = m
            .pairs
            .iter()
            .map(|p| (p.base.as_str(), p.new.as_str(), p.verdict))
            .collect();
        assert_eq!(
            names,
            [
                ("O1", "O2", "equivalent"),
                ("O1", "O3", "faster"),
                ("O2", "O3", "faster")
            ]
        );
        assert!(m.anova.p_value < 1e-6);
    }

    #[test]
    fn refuses_fewer_than_two_variants() {
        let x = variant(1.0, 0..3, 0.0);
        let v = named([("x", &x)]);
        assert!(compare_variants("p", "wall", &v, &options()).is_err());
    }
}
