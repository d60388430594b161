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
//! overstated by it (under cachegrind there is none).

use serde::Serialize;

use crate::stats::sample::{
    mean, median, median_interval, sd_interval_nonnormal, sd_ratio_interval_nonnormal, variance,
};

use super::model::Interval;

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
    let change = match ratio_ci {
        Some(ci) if ci.upper < 1.0 => SpreadChange::Narrower,
        Some(ci) if ci.lower > 1.0 => SpreadChange::Wider,
        _ => SpreadChange::CannotTell,
    };
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
    })
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
        let s = spread_comparison(&base, &new, Some(ci), 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::Narrower);
        assert!(s.ratio_ci.unwrap().upper < 0.01, "{:?}", s.ratio_ci);
        assert_eq!(s.new_mean_against_base_median, AgainstMedian::Below);
        // The 6th of 20 values: seeds 0, 1, 2, 4, 5 and 6 (3 is far off).
        assert_eq!(s.base.median_ci.unwrap().lower, 5_000.0 + 37.0 * 6.0);
    }

    /// The same layouts on both sides: cannot tell, and the mean is not below the median.
    #[test]
    fn the_same_spread_cannot_be_told_apart() {
        let base: Vec<f64> = (0..12).map(|i| 100.0 + f64::from(i * 7 % 5)).collect();
        let s = spread_comparison(&base, &base, None, 0.95).unwrap();
        assert_eq!(s.change, SpreadChange::CannotTell);
        assert_eq!(s.ratio, 1.0);
        assert_eq!(s.new_mean_against_base_median, AgainstMedian::CannotTell);
        assert!(spread_comparison(&base[..4], &base, None, 0.95).is_none());
    }

    /// A new side whose layouts all gave one value: no ratio interval (no logarithm of
    /// zero), its exact mean still placed against the median.
    #[test]
    fn a_constant_new_side_has_no_ratio_interval() {
        let base: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i)).collect();
        let s = spread_comparison(&base, &[90.0; 10], None, 0.95).unwrap();
        assert_eq!(s.ratio, 0.0);
        assert!(s.ratio_ci.is_none());
        assert_eq!(s.change, SpreadChange::CannotTell);
        assert_eq!(s.new_mean_against_base_median, AgainstMedian::Below);
    }
}
