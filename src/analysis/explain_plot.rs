//! What `explain` draws and advises for each culprit, computed here so that the renderings
//! only print: the per-binary means against the culprit's feature (one point per binary,
//! with its interval, in the unit the numbers are shown in), the confirmation's pairs, and
//! the fix that follows from the feature.

use serde::{Deserialize, Serialize};

use super::effect::Interval;
use super::vocabulary::Verdict;
use crate::layout::demangle::demangle;
use crate::layout::features::{Feature, ICache};

/// One binary in a culprit's plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeaturePoint {
    /// `seed-N`.
    pub binary: String,
    /// The culprit's feature value in this binary (x).
    pub value: f64,
    /// The binary's mean, in the plot's unit (y).
    pub mean: f64,
    /// The 95 % t interval of the mean over the binary's executions (K&J eq. 4 at the
    /// execution level; on the log scale for a positive metric, so it stays positive), in
    /// the plot's unit; `None` with a single execution.
    pub ci: Option<Interval>,
}

/// A culprit's plot: the binaries' means against its feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeaturePlot {
    /// The culprit's function.
    pub function: String,
    /// The culprit's feature.
    pub feature: Feature,
    /// The x axis in words (the feature and its unit).
    pub x_label: String,
    /// The y axis in words (the metric and the unit the means are in).
    pub y_label: String,
    /// The factor that turned the metric's values into the plot's unit.
    pub scale: f64,
    /// The x values to label: the levels of a 0/1 feature, else empty (round ticks).
    pub levels: Vec<f64>,
    /// One point per screened binary.
    pub points: Vec<FeaturePoint>,
    /// The confirmation's pairs on this culprit (means in the plot's unit); empty without.
    pub pairs: Vec<ConfirmPair>,
}

/// One side of a confirmation pair: its feature value and mean (the metric's unit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlacedMean {
    /// The suspect's feature value in this binary.
    pub value: f64,
    /// The binary's mean in the confirmation run.
    pub mean: f64,
}

/// One seed of a confirmation: the seed as built and relinked with only the suspect moved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConfirmPair {
    /// The seed.
    pub seed: u64,
    /// The seed's binary as built.
    pub control: PlacedMean,
    /// The relink with the suspect moved.
    pub moved: PlacedMean,
}

/// The x axis of `feature` in words.
pub fn x_label(feature: Feature, cache: &ICache) -> String {
    match feature {
        Feature::UpperHalfLine => format!(
            "starts in the upper half of a {}-byte line (0 no, 1 yes)",
            cache.line
        ),
        Feature::OffsetMod16 => "start offset mod 16 (bytes)".into(),
        Feature::OffsetMod32 => "start offset mod 32 (bytes)".into(),
        Feature::OffsetModLine => format!("start offset mod {} (bytes)", cache.line),
        Feature::Windows32 => "32-byte windows spanned".into(),
        Feature::Lines => format!("{}-byte lines spanned", cache.line),
        Feature::CrossesPage => "crosses a 4 KiB page (0 no, 1 yes)".into(),
        Feature::OverfullSet => format!(
            "a line in a set of more than {} hot lines (0 no, 1 yes)",
            cache.ways
        ),
    }
}

/// The plot of one culprit: `values[i]` its feature in binary `i`, `means[i]` and `cis[i]`
/// that binary's mean and interval in the metric's unit, shown in `display` (the factor
/// and unit name of [`super::numfmt::scale_for`]).
pub fn feature_plot(
    function: &str,
    feature: Feature,
    cache: &ICache,
    binaries: &[(&str, f64, f64, Option<Interval>)],
    pairs: &[ConfirmPair],
    metric: &str,
    display: (f64, &str),
) -> FeaturePlot {
    let (scale, unit) = display;
    let y_label = if unit.is_empty() {
        format!("{metric}, mean per binary")
    } else {
        format!("{metric} ({unit}), mean per binary")
    };
    FeaturePlot {
        function: function.to_string(),
        feature,
        x_label: x_label(feature, cache),
        y_label,
        scale,
        levels: if feature.is_binary() {
            vec![0.0, 1.0]
        } else {
            Vec::new()
        },
        points: binaries
            .iter()
            .map(|&(binary, value, mean, ci)| FeaturePoint {
                binary: binary.to_string(),
                value,
                mean: mean * scale,
                ci: ci.map(|c| Interval {
                    lower: c.lower * scale,
                    upper: c.upper * scale,
                }),
            })
            .collect(),
        pairs: pairs
            .iter()
            .map(|p| ConfirmPair {
                control: PlacedMean {
                    mean: p.control.mean * scale,
                    ..p.control
                },
                moved: PlacedMean {
                    mean: p.moved.mean * scale,
                    ..p.moved
                },
                ..*p
            })
            .collect(),
    }
}

/// What the screening knows of a culprit that the fix depends on.
#[derive(Debug, Clone)]
pub struct FixFacts<'a> {
    /// The function (mangled).
    pub function: &'a str,
    /// Its feature.
    pub feature: Feature,
    /// The effect from the feature's lowest to its highest value (sign: which end is
    /// higher).
    pub effect: f64,
    /// The feature's lowest and highest values among the binaries.
    pub range: (f64, f64),
    /// The feature's value were the function aligned to a cache line.
    pub aligned: f64,
    /// For a set-pressure culprit, the hot functions most often sharing its overfull set.
    pub partners: &'a [String],
    /// The cache.
    pub cache: &'a ICache,
}

/// The fix that follows from a culprit's feature: alignment for a placement within a line,
/// window or page, an order file for set pressure.
pub fn suggestion(f: &FixFacts) -> String {
    let name = demangle(f.function);
    let line = f.cache.line;
    let align = format!(
        "align {name} to {line} bytes (__attribute__((aligned({line}))) on it, or \
         -falign-functions={line} for every function)"
    );
    match f.feature {
        Feature::OverfullSet if !f.partners.is_empty() => {
            let others: Vec<String> = f.partners.iter().map(|p| demangle(p)).collect();
            format!(
                "place {name} and {} apart (an order file: lld/gold --symbol-ordering-file), \
                 so that their lines fall in different sets of the {}-set cache",
                others.join(", "),
                f.cache.sets
            )
        }
        Feature::OverfullSet => format!(
            "place the hot functions next to each other (an order file: lld/gold \
             --symbol-ordering-file), so that {name}'s lines share no set with more hot lines \
             than the cache has ways"
        ),
        Feature::CrossesPage => format!(
            "keep {name} within one page: {align}, or an order file (lld/gold \
             --symbol-ordering-file) placing it with the other hot functions"
        ),
        _ => format!("{align}: {}", aligned_outcome(f)),
    }
}

/// Which binaries' placement an alignment to a line gives: the feature takes the value
/// `aligned` in every layout, at the low end, the high end or inside the range seen.
fn aligned_outcome(f: &FixFacts) -> String {
    let (lo, hi) = f.range;
    let side = |higher: bool| if higher { "higher" } else { "lower" };
    let at = if f.aligned <= lo {
        Some(side(f.effect < 0.0))
    } else if f.aligned >= hi {
        Some(side(f.effect > 0.0))
    } else {
        None
    };
    match at {
        Some(which) => format!(
            "its placement is then that of the binaries with the {which} means in every layout"
        ),
        None => "its placement is then the same in every layout, between the binaries' \
                 extremes"
            .to_string(),
    }
}

/// The fix for a function the confirmation moved alone without a relevant change.
pub fn unconfirmed(function: &str, metric: &str, verdict: Verdict) -> String {
    if verdict == Verdict::Undetermined {
        return format!(
            "none yet for {}: moving it alone changed {metric} in some seeds and not in \
             others, too unevenly for the relinks to tell (more, `--confirm-seeds`, may)",
            demangle(function)
        );
    }
    format!(
        "none for {} itself: moving it alone did not change {metric} by a relevant amount, \
         so its association came with another placement",
        demangle(function)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CACHE: ICache = ICache {
        line: 64,
        sets: 64,
        ways: 8,
    };

    fn cache() -> ICache {
        CACHE
    }

    fn facts<'a>(
        feature: Feature,
        effect: f64,
        aligned: f64,
        partners: &'a [String],
    ) -> FixFacts<'a> {
        FixFacts {
            function: "spin",
            feature,
            effect,
            range: (0.0, 1.0),
            aligned,
            partners,
            cache: &CACHE,
        }
    }

    #[test]
    fn alignment_says_which_binaries_it_copies() {
        // Upper half costs more (effect > 0): aligned, it starts at 0, the lower means.
        let s = suggestion(&facts(Feature::UpperHalfLine, 0.5, 0.0, &[]));
        assert!(
            s.starts_with("align spin to 64 bytes (__attribute__((aligned(64)))"),
            "{s}"
        );
        assert!(
            s.ends_with("the binaries with the lower means in every layout"),
            "{s}"
        );
        // Upper half faster: the alignment copies the slower binaries, and says so.
        let s = suggestion(&facts(Feature::UpperHalfLine, -0.5, 0.0, &[]));
        assert!(s.contains("with the higher means"), "{s}");
        let s = suggestion(&facts(Feature::Lines, 0.1, 0.5, &[]));
        assert!(s.contains("between the binaries' extremes"), "{s}");
    }

    #[test]
    fn set_pressure_names_the_partners() {
        let partners = vec!["fold".to_string(), "mix".to_string()];
        let s = suggestion(&facts(Feature::OverfullSet, 0.1, 0.0, &partners));
        assert!(
            s.starts_with("place spin and fold, mix apart (an order file"),
            "{s}"
        );
        let s = suggestion(&facts(Feature::OverfullSet, 0.1, 0.0, &[]));
        assert!(
            s.starts_with("place the hot functions next to each other"),
            "{s}"
        );
    }

    #[test]
    fn plot_points_are_scaled_into_the_display_unit() {
        let ci = Some(Interval {
            lower: 1000.0,
            upper: 3000.0,
        });
        let p = feature_plot(
            "spin",
            Feature::OffsetModLine,
            &cache(),
            &[("seed-1", 48.0, 2000.0, ci), ("seed-2", 0.0, 1000.0, None)],
            &[ConfirmPair {
                seed: 1,
                control: PlacedMean {
                    value: 48.0,
                    mean: 2000.0,
                },
                moved: PlacedMean {
                    value: 0.0,
                    mean: 1500.0,
                },
            }],
            "wall",
            (1e-3, "µs"),
        );
        assert_eq!(p.points.len(), 2);
        assert_eq!(p.points[0].mean, 2.0);
        assert_eq!(p.points[0].ci.unwrap().upper, 3.0);
        assert!(p.levels.is_empty());
        assert_eq!((p.pairs[0].control.mean, p.pairs[0].moved.mean), (2.0, 1.5));
        assert_eq!(p.pairs[0].moved.value, 0.0);
        assert_eq!(p.y_label, "wall (µs), mean per binary");
        assert_eq!(p.x_label, "start offset mod 64 (bytes)");
    }
}
