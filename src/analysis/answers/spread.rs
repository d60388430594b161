//! Did the spread over layouts shrink? The proof a pin (`build --pin`, issue 51) owes: the
//! standard deviation of the binaries' means on each side of a comparison, their ratio, and
//! where the new side's mean lies against the base's median layout.
//!
//! Random layouts are lumpy (a few layouts far off), so nothing here assumes normality: each
//! side's deviation has Bonett's interval (CSDA 2006), their ratio Bonett's two-sample interval
//! (APM 2006), whose upper end (what a claimed reduction rests on) is rarely too low in
//! simulation of such samples, and the base's median has the distribution-free order-statistic
//! interval. The spread of binaries' means includes their execution noise; with the same noise
//! on both sides that can only bring the ratio closer to 1, so a reduction shown is not
//! overstated by it (under cachegrind there is none). When the sides' noise differs (an F
//! test of their pooled within-binary variances: two runs apart on a host that changed), a
//! verdict the difference could have made is withheld (cannot tell), and the words give both
//! noises: Debian's mujs, pinned and run 40 minutes after its random layouts on a host whose
//! executions then varied by 6.7 % instead of 1.0 %, read "wider, at least 1.06 times".

use serde::Serialize;

use crate::stats::sample::{
    mean, median, median_interval, sd_interval_nonnormal, sd_ratio_interval_nonnormal, variance,
};

use super::model::Interval;
use crate::stats::hierarchy::Hierarchy;

/// The fewest binaries per side for the spread's intervals (Bonett's needs five).
pub const MIN_BINARIES_FOR_SPREAD: usize = 5;

/// How much one side's binaries' means vary from layout to layout.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LayoutSpread {
    /// Binaries (layouts) measured.
    pub binaries: usize,
    /// Standard deviation of the binaries' means.
    pub sd: f64,
    /// Bonett's (2006) interval of that deviation, which does not assume normal layouts;
    /// null when every layout gave the same value (a sample cannot bound a spread it never
    /// shows) or for fewer than five.
    pub sd_ci: Option<Interval>,
    /// Median of the binaries' means: the typical layout.
    pub median: f64,
    /// Distribution-free interval of that median (order statistics); null for too few
    /// binaries.
    pub median_ci: Option<Interval>,
}

/// Whether the new side's layouts spread less than the base's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpreadChange {
    /// The ratio's whole interval lies below 1.
    Narrower,
    /// The ratio's whole interval lies above 1.
    Wider,
    /// The interval holds 1, or there is none.
    CannotTell,
}

/// Where the new side's mean lies against the base's median layout (the pin's promise: never
/// slower than the typical random layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgainstMedian {
    /// The new mean's interval lies wholly below the median's.
    Below,
    /// Wholly above.
    Above,
    /// The intervals overlap, or one is missing.
    CannotTell,
}

/// One side's execution noise: the pooled variance of its binaries' execution means about
/// their binary's mean, on `df` degrees of freedom, with `executions` per binary.
#[derive(Debug, Clone, Copy)]
pub struct ExecutionNoise {
    /// The pooled within-binary variance of one execution's mean.
    pub within: f64,
    /// Its degrees of freedom, `binaries × (executions − 1)`.
    pub df: usize,
    /// Executions per binary.
    pub executions: usize,
    /// The side's grand mean (the noise is said relative to it).
    pub mean: f64,
}

impl ExecutionNoise {
    /// The noise of `h`'s binaries (its top level) over their executions (the level below);
    /// `None` with a single execution per binary or a single level.
    pub fn of(h: &Hierarchy) -> Option<ExecutionNoise> {
        // Kalibera & Jones' S² of the execution level (eq. 1) is that pooled variance.
        let levels = crate::stats::multilevel::level_variances(h);
        let execution = levels.get(levels.len().checked_sub(2)?)?;
        let (executions, within) = (execution.repetitions, execution.s2?);
        let binaries = h.top_ids().len();
        if binaries == 0 {
            return None;
        }
        Some(ExecutionNoise {
            within,
            df: binaries * (executions - 1),
            executions,
            mean: h.mean(),
        })
    }

    /// The relative standard deviation of one execution's mean.
    fn cv(&self) -> f64 {
        self.within.sqrt() / self.mean.abs()
    }

    /// The relative standard deviation the noise leaves in a binary's mean.
    fn in_mean(&self) -> f64 {
        (self.within / self.executions as f64).sqrt() / self.mean.abs()
    }
}

/// The two sides' execution noise, when an F test of their within-binary variances finds it
/// different: the spreads' ratio then mixes the layouts' spread with that difference.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
pub struct NoiseContrast {
    /// The base's executions' relative standard deviation (one execution's mean).
    pub base_cv: f64,
    /// The new side's.
    pub new_cv: f64,
    /// What the base's noise leaves in one binary's mean (relative standard deviation).
    pub base_in_mean: f64,
    /// What the new side's leaves.
    pub new_in_mean: f64,
    /// The two-sided p-value of the F test of the two within-binary variances.
    pub p: f64,
    /// The difference could have made the verdict (narrower with the new side quieter, wider
    /// with it noisier), which is therefore withheld: `change` is `cannot_tell`.
    pub withheld: bool,
}

/// The two-sided F test of `new.within / base.within` at `confidence`: `Some` when it rejects
/// equal noise (Snedecor & Cochran, the variance-ratio test; p from F's two tails).
pub(crate) fn noise_contrast(
    base: &ExecutionNoise,
    new: &ExecutionNoise,
    confidence: f64,
) -> Option<NoiseContrast> {
    // Said relative to each side's mean: no words for a side whose mean is 0.
    let finite = |n: &ExecutionNoise| n.within > 0.0 && n.cv().is_finite();
    if !(finite(base) && finite(new)) {
        return None;
    }
    let upper = crate::stats::anova::f_upper_tail(new.within / base.within, new.df, base.df);
    let p = (2.0 * upper.min(1.0 - upper)).min(1.0);
    (p < 1.0 - confidence).then(|| NoiseContrast {
        base_cv: base.cv(),
        new_cv: new.cv(),
        base_in_mean: base.in_mean(),
        new_in_mean: new.in_mean(),
        p,
        withheld: false,
    })
}

/// Both sides' spread over layouts and how they compare.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SpreadComparison {
    /// The base's binaries.
    pub base: LayoutSpread,
    /// The new side's binaries.
    pub new: LayoutSpread,
    /// `sd(new) / sd(base)`.
    pub ratio: f64,
    /// Bonett's (2006) interval of that ratio; null when a side's means are all equal.
    pub ratio_ci: Option<Interval>,
    /// What the ratio's interval shows.
    pub change: SpreadChange,
    /// The new mean's interval against the base's median's.
    pub new_mean_against_base_median: AgainstMedian,
    /// The new mean's interval it was judged by (eq. 4; the mean itself when every new
    /// layout gave one value); null when there is none.
    pub new_mean_ci: Option<Interval>,
    /// The sides' execution noise when it differs (null: the same, as far as the test
    /// tells, or not known).
    pub noise: Option<NoiseContrast>,
}

/// The spread of `means` (one per binary) with its intervals at `confidence`.
fn layout_spread(means: &[f64], confidence: f64) -> LayoutSpread {
    let interval = |(lower, upper)| Interval { lower, upper };
    let sd = variance(means).sqrt();
    LayoutSpread {
        binaries: means.len(),
        sd,
        sd_ci: (sd > 0.0)
            .then(|| sd_interval_nonnormal(means, confidence).ok())
            .flatten()
            .map(interval),
        median: median(means),
        median_ci: median_interval(means, confidence).ok().map(interval),
    }
}

/// The spread comparison of two sides' binaries' means, with the new side's mean interval
/// (`new_mean_ci`, eq. 4, where there is one); `None` when a side has fewer than
/// [`MIN_BINARIES_FOR_SPREAD`] binaries.
pub fn spread_comparison(
    base_means: &[f64],
    new_means: &[f64],
    new_mean_ci: Option<Interval>,
    noise: Option<(ExecutionNoise, ExecutionNoise)>,
    confidence: f64,
) -> Option<SpreadComparison> {
    if base_means.len().min(new_means.len()) < MIN_BINARIES_FOR_SPREAD {
        return None;
    }
    let base = layout_spread(base_means, confidence);
    let new = layout_spread(new_means, confidence);
    let ratio_ci = sd_ratio_interval_nonnormal(base_means, new_means, confidence)
        .ok()
        .map(|(lower, upper)| Interval { lower, upper });
    let mut change = match ratio_ci {
        Some(ci) if ci.upper < 1.0 => SpreadChange::Narrower,
        Some(ci) if ci.lower > 1.0 => SpreadChange::Wider,
        _ => SpreadChange::CannotTell,
    };
    let contrast = noise.and_then(|(b, n)| Some((noise_contrast(&b, &n, confidence)?, b, n)));
    let mut noise = None;
    if let Some((mut n, base_noise, new_noise)) = contrast {
        let sides = ((&base, &base_noise), (&new, &new_noise));
        n.withheld = match (change, ratio_ci) {
            (SpreadChange::Narrower | SpreadChange::Wider, Some(ci)) => {
                noise_could_make(change, ci, sides, confidence)
            }
            _ => false,
        };
        if n.withheld {
            change = SpreadChange::CannotTell;
        }
        noise = Some(n);
    }
    // A new side whose layouts all gave one value has its mean exactly, without interval.
    let new_mean = new_mean_ci.or_else(|| {
        (new.sd == 0.0).then(|| {
            let m = mean(new_means);
            Interval { lower: m, upper: m }
        })
    });
    let new_mean_against_base_median = match (new_mean, base.median_ci) {
        (Some(n), Some(m)) if n.upper < m.lower => AgainstMedian::Below,
        (Some(n), Some(m)) if n.lower > m.upper => AgainstMedian::Above,
        _ => AgainstMedian::CannotTell,
    };
    Some(SpreadComparison {
        ratio: new.sd / base.sd,
        base,
        new,
        ratio_ci,
        change,
        new_mean_against_base_median,
        new_mean_ci: new_mean,
        noise,
    })
}

/// Whether the sides' difference in execution noise could have made `change` (narrower
/// with the new side quieter, wider with it noisier), given the ratio's interval `ci`: each
/// binary's mean carries its executions' noise (its variance over the executions), so the
/// noisier side's spread is taken net of the excess, at the confidence bounds that favour
/// the difference (the noisier side's upper chi-square bound, the quieter side's lower, as
/// the mean's [`super::compare`] reach does), and the verdict stands only when the interval
/// still excludes 1. Before, any significant difference withheld it: pcre2grep's pinned I1
/// misses, 3.2 % of the random spread, read "cannot tell" because executions that varied by
/// less than 0.0001 % on each side varied differently.
fn noise_could_make(
    change: SpreadChange,
    ci: Interval,
    ((base, base_noise), (new, new_noise)): (
        (&LayoutSpread, &ExecutionNoise),
        (&LayoutSpread, &ExecutionNoise),
    ),
    confidence: f64,
) -> bool {
    // The variance one execution noise bound leaves in a binary's mean.
    let in_mean = |n: &ExecutionNoise, high: bool| {
        crate::stats::sample::sd_interval_of_variance(n.within, n.df, confidence)
            .ok()
            .map(|(low, hi)| if high { hi } else { low }.powi(2) / n.executions as f64)
    };
    // The noisier side's spread net of its excess noise: `None` when that noise could be all of it.
    let net = |sd: f64, noisier: &ExecutionNoise, quieter: &ExecutionNoise| {
        let excess = in_mean(noisier, true)? - in_mean(quieter, false)?;
        let left = sd * sd - excess.max(0.0);
        (left > 0.0).then(|| left.sqrt() / sd)
    };
    let new_quieter = new_noise.in_mean() < base_noise.in_mean();
    match (change, new_quieter) {
        // Base's spread shrinks by its extra noise: the ratio's upper end grows.
        (SpreadChange::Narrower, true) => {
            net(base.sd, base_noise, new_noise).is_none_or(|f| ci.upper / f >= 1.0)
        }
        // New's spread shrinks by its extra noise: the ratio's lower end falls.
        (SpreadChange::Wider, false) => {
            net(new.sd, new_noise, base_noise).is_none_or(|f| ci.lower * f <= 1.0)
        }
        _ => false,
    }
}

/// A pin's proof as tests see it: 20 lumpy random layouts (two far off), 20 tight pinned ones,
/// and the pinned mean's interval.
#[cfg(test)]
pub(crate) fn pinned_example() -> (Vec<f64>, Vec<f64>, Interval) {
    let random = (0..20)
        .map(|i| match i {
            3 => 130_000.0,
            11 => 90_000.0,
            _ => 5_000.0 + 37.0 * f64::from(i),
        })
        .collect();
    let pinned = (0..20).map(|i| 4_800.0 + 3.0 * f64::from(i % 7)).collect();
    let mean_ci = Interval {
        lower: 4_805.0,
        upper: 4_815.0,
    };
    (random, pinned, mean_ci)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lumpy base (two layouts far off) against a tight new side: narrower, the ratio's
    /// interval below 1, the new mean below the base's median's interval.
    #[test]
    fn a_pinned_side_is_narrower_and_below_the_median() {
        let (base, new, ci) = pinned_example();
        let s = spread_comparison(&base, &new, Some(ci), None, 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::Narrower);
        assert!(s.ratio_ci.unwrap().upper < 0.01, "{:?}", s.ratio_ci);
        assert_eq!(s.new_mean_against_base_median, AgainstMedian::Below);
        // The 6th of 20 values: seeds 0, 1, 2, 4, 5 and 6 (3 is far off).
        assert_eq!(s.base.median_ci.unwrap().lower, 5_000.0 + 37.0 * 6.0);
    }

    fn noise(within: f64) -> ExecutionNoise {
        ExecutionNoise {
            within,
            df: 80,
            executions: 5,
            mean: 100.0,
        }
    }

    /// A noisier new side: a wider spread it could have made is withheld; a narrower one,
    /// which the noise works against, stands; the same noise says nothing.
    #[test]
    fn a_spread_the_noise_difference_could_have_made_is_withheld() {
        let base: Vec<f64> = (0..20).map(|i| 100.0 + f64::from(i % 5) * 0.5).collect();
        let wide: Vec<f64> = (0..20).map(|i| 100.0 + f64::from(i % 5) * 2.0).collect();
        let (quiet, noisy) = (noise(1.0), noise(36.0));
        let plain = spread_comparison(&base, &wide, None, Some((quiet, quiet)), 0.95).unwrap();
        assert_eq!(plain.change, SpreadChange::Wider);
        assert!(plain.noise.is_none());
        let s = spread_comparison(&base, &wide, None, Some((quiet, noisy)), 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::CannotTell);
        let n = s.noise.unwrap();
        assert!(n.withheld && n.p < 1e-6, "{n:?}");
        assert!(
            (n.new_cv - 0.06).abs() < 1e-12 && (n.new_in_mean - 0.06 / 5f64.sqrt()).abs() < 1e-12
        );
        // Narrower despite a noisier new side: the verdict stands, the noise said.
        let s = spread_comparison(&wide, &base, None, Some((quiet, noisy)), 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::Narrower);
        assert!(!s.noise.unwrap().withheld);
        // Narrower with a quieter new side: withheld.
        let s = spread_comparison(&wide, &base, None, Some((noisy, quiet)), 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::CannotTell);
    }

    /// A difference in noise too small to make the verdict leaves it standing: pcre2grep's
    /// I1 misses pinned, executions varying by less than 0.0001 % on each side (yet
    /// differently), the spread of the layouts' means falling from hundreds of thousands to
    /// hundreds. Before, "cannot tell narrower from wider".
    #[test]
    fn a_noise_difference_too_small_to_make_the_verdict_is_said_but_not_withheld() {
        let random: Vec<f64> = (0..20).map(|i| 100.0 + f64::from(i % 5) * 20.0).collect();
        let pinned: Vec<f64> = (0..20).map(|i| 100.0 + f64::from(i % 5) * 0.5).collect();
        let (louder, quieter) = (noise(1e-4), noise(1e-8));
        let s = spread_comparison(&random, &pinned, None, Some((louder, quieter)), 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::Narrower);
        let n = s.noise.unwrap();
        assert!(!n.withheld && n.p < 1e-6, "{n:?}");
    }

    /// The noise of a hierarchy: the pooled variance of each binary's execution means.
    #[test]
    fn the_execution_noise_is_pooled_over_the_binaries() {
        // 2 binaries × 2 executions × 1 iteration.
        let h = Hierarchy::from_nested(vec![1.0, 3.0, 10.0, 14.0], vec![1, 2, 2]).unwrap();
        let n = ExecutionNoise::of(&h).unwrap();
        // Variances 2 and 8, pooled 5, on 2 × 1 degrees.
        assert_eq!((n.within, n.df, n.executions), (5.0, 2, 2));
        let one = Hierarchy::from_nested(vec![1.0, 3.0], vec![1, 1, 2]).unwrap();
        assert!(ExecutionNoise::of(&one).is_none());
        // A side whose mean is 0 has no relative noise to say: no contrast.
        let wide = ExecutionNoise { df: 80, ..n };
        let noisier = ExecutionNoise {
            within: 500.0,
            ..wide
        };
        assert!(noise_contrast(&wide, &noisier, 0.95).is_some());
        let zero = ExecutionNoise { mean: 0.0, ..wide };
        assert!(noise_contrast(&zero, &noisier, 0.95).is_none());
    }

    /// The same layouts on both sides: cannot tell, and the mean is not below the median.
    #[test]
    fn the_same_spread_cannot_be_told_apart() {
        let base: Vec<f64> = (0..12).map(|i| 100.0 + f64::from(i * 7 % 5)).collect();
        let s = spread_comparison(&base, &base, None, None, 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::CannotTell);
        assert_eq!(s.ratio, 1.0);
        assert_eq!(s.new_mean_against_base_median, AgainstMedian::CannotTell);
        assert!(spread_comparison(&base[..4], &base, None, None, 0.95).is_none());
    }

    /// A new side whose layouts all gave one value: no ratio interval (no logarithm of
    /// zero), its exact mean still placed against the median.
    #[test]
    fn a_constant_new_side_has_no_ratio_interval() {
        let base: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i)).collect();
        let s = spread_comparison(&base, &[90.0; 10], None, None, 0.95).unwrap();
        assert_eq!(s.ratio, 0.0);
        assert!(s.ratio_ci.is_none());
        assert_eq!(s.change, SpreadChange::CannotTell);
        assert_eq!(s.new_mean_against_base_median, AgainstMedian::Below);
    }
}
