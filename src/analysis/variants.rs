//! Is variant B faster than variant A, whatever the layout? The comparison of the A/B
//! variants of one program measured in one interleaved experiment (issue 11).
//!
//! Input: per variant a balanced hierarchy (binaries × executions × iterations) whose
//! top-level ids name the binaries (`seed-3`), so that seed `s` of one variant pairs with
//! seed `s` of another. Per pair (the base — the first variant unless one is named — against
//! each other variant) the one pair analysis of [`super::pair`], which `compare` uses too:
//!
//! - the ratio of means `new/base` with Fieller's interval (Kalibera & Jones 2013 eq. 5),
//!   which treats the two sides as independent;
//! - the paired-by-seed ratio interval ([`crate::stats::paired_ratio`]), which removes the
//!   layout effect a pair shares: **the verdict rests on it when at least two seeds match**,
//!   since eq. 5 is then needlessly wide (conservative); otherwise on eq. 5;
//! - a studentized bootstrap interval of the ratio over seeds, pairs drawn jointly when matched;
//! - the share of seeds on which new is faster, with Wilson's interval (Touati et al.);
//! - the variant × layout interaction on the ratio scale, with the scheduler's blocks as
//!   the error stratum ([`super::interaction`]): does the ratio itself depend on the layout,
//!   and by how much?
//!
//! With more than two variants, the `k − 1` comparisons against the base are Bonferroni-
//! adjusted ([`crate::stats::bonferroni`]): every statistic of a pair is computed at
//! confidence `1 − α/(k − 1)`, so that the verdicts and the `--fail-if-slower` gate of the
//! family hold together at `1 − α`; and the ANOVA over the variants and Tukey's HSD
//! simultaneous intervals for every pair (Georges et al. 2008 §4.1). Verdicts use the one
//! vocabulary ([`super::effect`]): never "faster" when the interval includes no change or
//! lies within the relevance threshold. Every statistic the data make undefined is left out
//! with the reason in `warnings`; nothing here panics.

use anyhow::{bail, Result};
use serde::Serialize;

use crate::stats::anova::random_effects;
use crate::stats::bonferroni::bonferroni_confidence;
use crate::stats::degrees_of_freedom::DegreesOfFreedom;
use crate::stats::hierarchy::Hierarchy;
use crate::stats::tukey::{tukey_hsd, TukeyPair};

use super::positive::positive_interval;
use crate::stats::twoway::two_way_mixed;

use super::effect::{Direction, Effect, EffectVerdict, Interval};
use super::pair::{analyse_pair, PairAnalysis, PairOptions, PairWarning};
// The pair's types moved to `super::pair`; re-exported so that readers of a variant
// comparison keep their paths.
pub(crate) use super::pair::{Basis, FTestJson};
use super::single::BootstrapOptions;
use super::vocabulary::{check_bootstrap, Thresholds};

/// Bootstrap resamples when the caller asks for none in particular: the bootstrap
/// interval's Monte Carlo error at 2 000 resamples is a few per cent of its width (Efron &
/// Tibshirani 1993 §19.3), enough beside two analytic intervals.
pub(crate) const DEFAULT_VARIANT_RESAMPLES: usize = 2000;

/// One variant's data.
#[derive(Debug, Clone, Copy)]
pub struct VariantData<'a> {
    /// The variant's name (`O2`).
    pub name: &'a str,
    /// Its measurements; top-level ids name the binaries (`seed-3`) for matching.
    pub hierarchy: &'a Hierarchy,
    /// With data seeds, each binary's mean per data seed (in the hierarchy's order): the
    /// pairs' interval then covers random data layouts too.
    pub cells: Option<crate::analysis::pair::DataCells<'a>>,
}

/// What to compute.
#[derive(Debug, Clone)]
pub struct VariantOptions {
    /// Confidence and relevance thresholds.
    pub thresholds: Thresholds,
    /// Whether the values are times (lower is "faster") or other costs (lower is "lower").
    pub is_time: bool,
    /// Whether the values are rates (`MB/s`: higher is faster), for the gate.
    pub is_rate: bool,
    /// The base variant; the first one when `None`.
    pub base: Option<String>,
    /// The bootstrap's resamples and seed; `None`: no bootstrap interval (the report uses
    /// [`DEFAULT_VARIANT_RESAMPLES`] unless told otherwise).
    pub bootstrap: Option<BootstrapOptions>,
    /// Gate: flag a pair whose whole interval says slower than the base by more than this
    /// share.
    pub fail_if_slower: Option<f64>,
    /// The cases of the suite the metric is one case of (1 for a metric of its own): a
    /// suite's cases are compared together, each comparison at the Bonferroni confidence
    /// of all cases' comparisons, so that a suite of identical variants claims a difference
    /// in at most 1 − confidence of experiments (family-wise).
    pub suite_cases: usize,
}

/// One pair: `new` against `base`: the shared pair analysis ([`super::pair`], the same
/// object `compare` gives) with the pair's names and sentence.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "text",
    crate::wire::Shape::Sentence,
    "The answer in one sentence."
))]
pub struct PairComparison {
    /// Program.
    pub program: String,
    /// Metric.
    pub metric: String,
    /// The base variant.
    pub base: String,
    /// The new variant.
    pub new: String,
    /// Ratio, intervals, basis, verdict, share of faster seeds, interaction (flattened).
    #[serde(flatten)]
    pub pair: PairAnalysis,
    /// With more than two variants, how the comparisons against the base are held together
    /// (null with two variants: the intervals are at the report's confidence).
    pub adjustment: Option<Adjustment>,
    /// `report --sequential`: the matched seeds replayed in seed order with a confidence
    /// sequence of the per-seed ratio (docs/report.md); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequential: Option<super::sequential::Sequential>,
}

/// The multiplicity adjustment of the comparisons against the base (k > 2 variants, or a
/// suite's cases).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Adjustment {
    /// Always "bonferroni".
    pub(crate) method: &'static str,
    /// The number of comparisons held together: `k − 1` against the base, times the suite's
    /// cases.
    pub(crate) comparisons: usize,
    /// The suite's cases among them (1 for a metric of its own).
    pub(crate) suite_cases: usize,
    /// The confidence the family holds at together (the report's).
    pub(crate) family_confidence: f64,
    /// The confidence of each of the pair's intervals and tests, `1 − α/comparisons`.
    pub(crate) confidence: f64,
}

/// One pair of Tukey's family.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "ratio_ci_note",
    crate::wire::Shape::Optional,
    "Why `ratio_ci` is null, when it is."
))]
pub(crate) struct TukeyPairJson {
    /// The reference of the difference.
    pub(crate) base: String,
    /// The other variant.
    pub(crate) new: String,
    /// `mean(new) − mean(base)`, in the metric's unit.
    pub(crate) difference: f64,
    /// Its simultaneous interval.
    pub(crate) ci: Interval,
    /// `1 + difference / mean(base)`: the interval as a ratio, taking the base's mean as
    /// fixed (an approximation that ignores the base mean's own error).
    pub(crate) ratio: f64,
    /// The ratio's simultaneous interval; null when it would reach zero or below
    /// ([`crate::analysis::positive`], the reason in `ratio_ci_note`).
    pub(crate) ratio_ci: Option<Interval>,
    /// Why `ratio_ci` is null, as data (the wire's `ratio_ci_note` says it).
    #[serde(skip)]
    pub(crate) ratio_ci_withheld: Option<crate::analysis::positive::Withheld>,
    /// Tukey's adjusted p-value.
    pub(crate) p_value: f64,
    /// The pair's verdict at the thresholds in one word (faster, inconclusive, …), beside the
    /// `verdict`.
    // The schema stays a string, as it was before the direction was an enum.
    #[schemars(with = "String")]
    pub(crate) direction: Direction,
    /// The pair's verdict: the one effect vocabulary.
    pub(crate) verdict: EffectVerdict,
}

/// Tukey's HSD over all variants (k > 2).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Multiple {
    /// Always "tukey_hsd".
    pub(crate) method: &'static str,
    /// The ANOVA's F-test of "all variants equal".
    pub(crate) anova: FTestJson,
    /// Which error term: "interaction" (matched seeds, two-way mixed ANOVA) or "within"
    /// (independent binaries, one-way ANOVA of binary means).
    pub(crate) error_term: &'static str,
    /// The studentized range quantile.
    pub(crate) q_critical: f64,
    /// Every pair.
    pub(crate) pairs: Vec<TukeyPairJson>,
}

/// The comparison of the variants of one program and metric (the report takes its parts).
#[derive(Debug, Clone)]
pub struct VariantAnalysis {
    /// Base against each other variant.
    pub comparisons: Vec<PairComparison>,
    /// Tukey's HSD when there are more than two variants.
    pub multiple: Option<Multiple>,
    /// Why a statistic above is missing, and other things to know, as figures (the words
    /// are `crate::report::words::variants`').
    pub warnings: Vec<VariantWarning>,
}

/// What the reader of a variant comparison must know, as figures.
#[derive(Debug, Clone, PartialEq)]
pub enum VariantWarning {
    /// The pair analysis of `new` against `base` found it.
    Pair {
        /// The new variant.
        new: String,
        /// The base variant.
        base: String,
        /// What it found.
        warning: PairWarning,
    },
    /// No Tukey HSD over the variants.
    NoTukey(NoTukey),
}

/// Why there is no Tukey HSD over the variants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoTukey {
    /// The variants share fewer than two seeds and have different numbers of binaries.
    UnequalBinaries,
    /// The statistics' reason.
    Stats(String),
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
    let adjustment = adjustment_for(options, ordered.len() - 1)?;
    let pair_options = match adjustment {
        Some(a) => VariantOptions {
            thresholds: Thresholds::new(a.confidence, options.thresholds.negligible)?,
            ..options.clone()
        },
        None => options.clone(),
    };
    let comparisons = ordered[1..]
        .iter()
        .map(|new| {
            let mut c = compare_pair(program, metric, base, *new, &pair_options, &mut warnings);
            c.adjustment = adjustment;
            c
        })
        .collect();
    let multiple = if ordered.len() > 2 {
        tukey_family(&ordered, options, &mut warnings)
    } else {
        None
    };
    Ok(VariantAnalysis {
        comparisons,
        multiple,
        warnings,
    })
}

/// The Bonferroni adjustment of `against_base` comparisons against the base in each of the
/// suite's cases: none for one in all.
fn adjustment_for(options: &VariantOptions, against_base: usize) -> Result<Option<Adjustment>> {
    let suite_cases = options.suite_cases.max(1);
    let comparisons = against_base * suite_cases;
    if comparisons < 2 {
        return Ok(None);
    }
    let family_confidence = options.thresholds.confidence;
    Ok(Some(Adjustment {
        method: "bonferroni",
        comparisons,
        suite_cases,
        family_confidence,
        confidence: bonferroni_confidence(family_confidence, comparisons)?,
    }))
}

fn compare_pair(
    program: &str,
    metric: &str,
    base: VariantData,
    new: VariantData,
    options: &VariantOptions,
    warnings: &mut Vec<VariantWarning>,
) -> PairComparison {
    let pair_options = PairOptions {
        thresholds: options.thresholds,
        is_time: options.is_time,
        is_rate: options.is_rate,
        bootstrap: options.bootstrap,
        fail_if_slower: options.fail_if_slower,
    };
    let mut pair_warnings = Vec::new();
    let pair = analyse_pair(
        base.hierarchy,
        new.hierarchy,
        base.cells.zip(new.cells),
        &pair_options,
        &mut pair_warnings,
    );
    warnings.extend(
        pair_warnings
            .into_iter()
            .map(|warning| VariantWarning::Pair {
                new: new.name.to_string(),
                base: base.name.to_string(),
                warning,
            }),
    );
    PairComparison {
        program: program.to_string(),
        metric: metric.to_string(),
        base: base.name.to_string(),
        new: new.name.to_string(),
        pair,
        adjustment: None,
        sequential: None,
    }
}

/// Tukey's HSD over all variants: on the seeds every variant shares with the two-way mixed
/// ANOVA's interaction as the error term, else on the binaries' means with the one-way
/// ANOVA's within mean square (equal numbers of binaries needed).
fn tukey_family(
    variants: &[VariantData],
    options: &VariantOptions,
    warnings: &mut Vec<VariantWarning>,
) -> Option<Multiple> {
    let th = &options.thresholds;
    // Seeds common to every variant, in the base's order.
    let shared: Vec<&String> = variants[0]
        .hierarchy
        .top_ids()
        .iter()
        .filter(|id| {
            variants
                .iter()
                .all(|v| seed_index(v.hierarchy, id).is_some())
        })
        .collect();
    let error = if shared.len() >= 2 {
        on_shared_seeds(variants, &shared)
    } else {
        on_binary_means(variants)
    };
    let tested = error.and_then(|e| {
        tukey_hsd(&e.means, e.ms, e.df, e.n, th.confidence)
            .map(|hsd| (e, hsd))
            .map_err(|x| NoTukey::Stats(x.to_string()))
    });
    let (e, hsd) = match tested {
        Ok(t) => t,
        Err(why) => {
            warnings.push(VariantWarning::NoTukey(why));
            return None;
        }
    };
    let pairs = hsd
        .pairs
        .iter()
        .map(|p| tukey_pair(p, e.means[p.i], variants, th, options.is_time))
        .collect();
    Some(Multiple {
        method: "tukey_hsd",
        anova: e.anova,
        error_term: e.error_term,
        q_critical: hsd.q_critical,
        pairs,
    })
}

/// One pair of Tukey's HSD in the report's terms: the difference and its interval, as a
/// ratio to the base variant's mean `m` too, with its verdict on a metric that is a time
/// (`is_time`) or not.
fn tukey_pair(
    p: &TukeyPair,
    m: f64,
    variants: &[VariantData],
    th: &Thresholds,
    is_time: bool,
) -> TukeyPairJson {
    let (a, b) = (1.0 + p.lower / m, 1.0 + p.upper / m);
    let ratio_bounds = (a.min(b), a.max(b));
    let ratio = 1.0 + p.difference / m;
    let effect = Effect::classify(ratio, Some(ratio_bounds), th, is_time);
    let judged = positive_interval(ratio_bounds.0, ratio_bounds.1);
    TukeyPairJson {
        base: variants[p.i].name.to_string(),
        new: variants[p.j].name.to_string(),
        difference: p.difference,
        ci: Interval {
            lower: p.lower,
            upper: p.upper,
        },
        ratio,
        ratio_ci: judged.ok(),
        ratio_ci_withheld: judged.err(),
        p_value: p.p_value,
        direction: Direction::of(effect.verdict, is_time),
        verdict: effect.verdict,
    }
}

/// The position of seed `id` among the binaries of `h`.
fn seed_index(h: &Hierarchy, id: &str) -> Option<usize> {
    h.top_ids().iter().position(|x| x == id)
}

/// What Tukey's HSD compares: the variants' means, the error mean square with its degrees of
/// freedom, the observations per mean, and the ANOVA that gave the error term.
struct TukeyError {
    means: Vec<f64>,
    ms: f64,
    df: f64,
    n: f64,
    anova: FTestJson,
    error_term: &'static str,
}

/// The error term of the two-way mixed ANOVA on the `shared` seeds: their interaction.
fn on_shared_seeds(variants: &[VariantData], shared: &[&String]) -> Result<TukeyError, NoTukey> {
    let selected: Vec<Hierarchy> = variants
        .iter()
        .map(|v| {
            let idx: Vec<usize> = shared
                .iter()
                .filter_map(|id| seed_index(v.hierarchy, id))
                .collect();
            v.hierarchy.select_top(&idx).expect("shared ids exist")
        })
        .collect();
    let cells: Vec<Vec<Vec<f64>>> = selected
        .iter()
        .map(|h| (0..shared.len()).map(|k| h.child_means(k)).collect())
        .collect();
    let t = two_way_mixed(&cells).map_err(|e| NoTukey::Stats(e.to_string()))?;
    let per_mean = (t.binaries * t.replicates) as f64;
    let means: Vec<f64> = cells
        .iter()
        .map(|row| row.iter().flatten().sum::<f64>() / per_mean)
        .collect();
    Ok(TukeyError {
        means,
        ms: t.ms_interaction,
        df: ((t.variants - 1) * (t.binaries - 1)) as f64,
        n: per_mean,
        anova: FTestJson::from(t.variant),
        error_term: "interaction",
    })
}

/// The error term of the one-way ANOVA on the binaries' means: the within mean square (as
/// many binaries in every variant needed).
fn on_binary_means(variants: &[VariantData]) -> Result<TukeyError, NoTukey> {
    let groups: Vec<Vec<f64>> = variants.iter().map(|v| v.hierarchy.top_means()).collect();
    if groups.iter().any(|g| g.len() != groups[0].len()) {
        return Err(NoTukey::UnequalBinaries);
    }
    let a = random_effects(&groups).map_err(|e| NoTukey::Stats(e.to_string()))?;
    Ok(TukeyError {
        means: groups
            .iter()
            .map(|g| crate::stats::sample::mean(g))
            .collect(),
        ms: a.ms_within,
        df: a.df_denominator as f64,
        n: groups[0].len() as f64,
        anova: FTestJson {
            f: a.f,
            df: DegreesOfFreedom {
                df_numerator: a.df_numerator,
                df_denominator: a.df_denominator,
            },
            p_value: a.p_value,
        },
        error_term: "within",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::vocabulary::Verdict;
    // The comparisons' words, which these tests read beside the numbers.
    use crate::report::words::variants::sentence;

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
        v.map(|(name, hierarchy)| VariantData {
            name,
            hierarchy,
            cells: None,
        })
    }

    fn options() -> VariantOptions {
        VariantOptions {
            suite_cases: 1,
            thresholds: Thresholds::default(),
            is_time: true,
            is_rate: false,
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
        assert_eq!(c.pair.basis, Basis::Paired);
        assert_eq!(c.pair.direction, Direction::Faster);
        let share = c.pair.share_below.unwrap();
        assert_eq!((share.below, share.compared), (30, 30));
        insta::assert_snapshot!(sentence(c));
        // The layout effect (±5 %) is shared, so the paired interval is far narrower than
        // eq. 5's; all three intervals hold the ratio.
        let p = c.pair.paired.unwrap().ci.unwrap();
        let f = c.pair.ci.unwrap();
        let b = c.pair.bootstrap.unwrap();
        assert!(b.paired);
        for ci in [p, f, b.ci] {
            assert!(ci.lower < 0.959 && 0.959 < ci.upper, "{ci:?}");
        }
        assert!(f.upper - f.lower > 5.0 * (p.upper - p.lower));
        assert!(a.multiple.is_none() && !c.pair.slower_beyond_threshold && c.adjustment.is_none());
        // The layouts differ by ±5 % but the speedup is the same on each: on the ratio scale
        // the interaction is at most a negligible spread (the raw-scale test called this
        // "the speedup varies with the layout").
        let i = c.pair.interaction.as_ref().unwrap();
        assert_eq!(i.verdict, Verdict::Negligible, "{}", sentence(c));
        assert!(i.spread_ci.upper < 0.01, "{i:?}");
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
        assert_eq!(
            c.pair.effect.verdict,
            EffectVerdict::Negligible,
            "{}",
            sentence(c)
        );
        insta::assert_snapshot!(sentence(c));
    }

    #[test]
    fn a_speedup_that_depends_on_the_layout_is_said() {
        let o2 = variant(100.0, 0..30, 0.0);
        let o3 = variant(96.0, 0..30, 0.06);
        let v = named([("O2", &o2), ("O3", &o3)]);
        let a = compare_variants("lua", "wall", &v, &options()).unwrap();
        let c = &a.comparisons[0];
        let i = c.pair.interaction.as_ref().unwrap();
        assert!(i.p_value.unwrap() < 1e-6, "{i:?}");
        // 30 seeds, 5 rounds (blocks) each: (30 − 1, 30 · 4) df.
        assert_eq!(
            i.df,
            DegreesOfFreedom {
                df_numerator: 29,
                df_denominator: 120
            }
        );
        assert_eq!(i.verdict, Verdict::Detected);
        // The speedup's own spread: the sd of ln(1 + 0.06 cos(2.9 s)) over the 30 seeds.
        let logs: Vec<f64> = (0..30)
            .map(|s| (0.06 * (s as f64 * 2.9).cos()).ln_1p())
            .collect();
        let truth = crate::stats::sample::variance(&logs).sqrt().exp_m1();
        assert!(
            i.spread_ci.lower < truth && truth < i.spread_ci.upper,
            "{truth} {i:?}"
        );
        assert!((i.spread - truth).abs() < 0.005, "{truth} {i:?}");
        insta::assert_snapshot!(sentence(c));
        // Some seeds are slower: the share is below 30.
        assert!(c.pair.share_below.unwrap().below < 30);
    }

    #[test]
    fn a_slowdown_that_depends_on_the_layout_is_worded_as_the_ratio() {
        // The issue: "the speedup varies" was printed for slowdowns. The ratio varies.
        let o2 = variant(100.0, 0..30, 0.0);
        let o1 = variant(110.0, 0..30, 0.06);
        let v = named([("O2", &o2), ("O1", &o1)]);
        let c = &compare_variants("lua", "wall", &v, &options())
            .unwrap()
            .comparisons[0];
        assert_eq!(c.pair.direction, Direction::Slower);
        insta::assert_snapshot!(sentence(c));
    }

    #[test]
    fn a_rates_share_of_layouts_is_counted_by_direction_not_called_faster() {
        // MB/s: new is higher, so faster, on every layout. The share counts the layouts on
        // which new is below base (none here), and no count is named after a speed.
        let base = variant(100.0, 0..12, 0.0);
        let new = variant(110.0, 0..12, 0.0);
        let v = named([("old", &base), ("new", &new)]);
        let mut o = options();
        (o.is_time, o.is_rate) = (false, true);
        o.base = Some("old".into());
        let a = compare_variants("zstd", "MB/s", &v, &o).unwrap();
        let c = &a.comparisons[0];
        let share = c.pair.share_below.unwrap();
        assert_eq!((share.below, share.above, share.compared), (0, 12, 12));
        assert!(share.upper < 0.5, "{share:?}");
        let json = serde_json::to_value(&c.pair).unwrap();
        assert_eq!(json["share_below"]["above"], 12, "{json}");
        assert!(json.get("share_faster").is_none(), "{json}");
        let text = sentence(c);
        assert!(text.contains("higher on 12 of 12 layouts"), "{text}");
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
        assert_eq!(a.comparisons[0].base, "old");
        assert_eq!(a.comparisons[0].pair.direction, Direction::Slower);
        // A slower variant is counted by the layouts on which it is slower.
        insta::assert_snapshot!(sentence(&a.comparisons[0]));
        assert_eq!(a.comparisons[0].pair.share_below.unwrap().above, 10);
        assert!(a.comparisons[0].pair.slower_beyond_threshold);
        o.fail_if_slower = Some(0.2);
        let lenient = compare_variants("p", "wall", &v, &o).unwrap();
        assert!(!lenient.comparisons[0].pair.slower_beyond_threshold);
        o.base = Some("nope".into());
        let e = compare_variants("p", "wall", &v, &o)
            .unwrap_err()
            .to_string();
        insta::assert_snapshot!(e);
    }

    #[test]
    fn unmatched_seeds_fall_back_to_independent_intervals() {
        let a = variant(100.0, 0..10, 0.0);
        let b = variant(100.0, 100..110, 0.0);
        let v = named([("a", &a), ("b", &b)]);
        let r = compare_variants("p", "wall", &v, &options()).unwrap();
        let c = &r.comparisons[0];
        assert_eq!(c.pair.basis, Basis::Fieller);
        assert!(
            c.pair.paired.is_none() && c.pair.share_below.is_none() && c.pair.interaction.is_none()
        );
        assert!(!c.pair.bootstrap.unwrap().paired);
        assert!(r.warnings.iter().any(|w| matches!(
            w,
            VariantWarning::Pair {
                warning: PairWarning::FewInCommon {
                    common: 0,
                    base: 10,
                    new: 10
                },
                ..
            }
        )));
        // The same layouts under other seeds' names: the ratio is 1 exactly.
        assert!((c.pair.ratio - 1.0).abs() < 1e-3);
        assert_ne!(c.pair.direction, Direction::Faster);
        assert_ne!(c.pair.direction, Direction::Slower);
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
            .map(|p| (p.base.as_str(), p.new.as_str(), p.direction.word()))
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
        // The two comparisons against the base hold together at 95 %: each at 97.5 %.
        for c in &a.comparisons {
            let adj = c.adjustment.unwrap();
            assert_eq!((adj.method, adj.comparisons), ("bonferroni", 2));
            assert!((adj.confidence - 0.975).abs() < 1e-12, "{adj:?}");
        }
        let sentences: Vec<String> = a.comparisons.iter().map(sentence).collect();
        insta::assert_snapshot!(sentences.join("\n"));
        // The adjusted interval of O3 against O1 is wider than the same pair's alone, so
        // the verdict and the gate rest on the wider one.
        let alone =
            compare_variants("p", "wall", &named([("O1", &x), ("O3", &z)]), &options()).unwrap();
        let narrow = alone.comparisons[0].pair.paired.unwrap().ci.unwrap();
        let wide = a.comparisons[1].pair.paired.unwrap().ci.unwrap();
        assert!(
            wide.lower < narrow.lower && narrow.upper < wide.upper,
            "{wide:?} {narrow:?}"
        );
        assert!(alone.comparisons[0].adjustment.is_none());
    }

    #[test]
    fn refuses_fewer_than_two_variants() {
        let x = variant(1.0, 0..3, 0.0);
        let v = named([("x", &x)]);
        assert!(compare_variants("p", "wall", &v, &options()).is_err());
    }
}
