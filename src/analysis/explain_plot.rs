//! What `explain` draws and advises for each culprit, computed here so that the renderings
//! only print: the per-binary means against the culprit's feature (one point per binary,
//! with its interval, in the unit the numbers are shown in) and the confirmation's pairs.
//! The fix that follows from the feature is worded in `crate::report::words::explain`.

use serde::{Deserialize, Serialize};

use super::effect::Interval;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_points_are_scaled_into_the_display_unit() {
        let ci = Some(Interval {
            lower: 1000.0,
            upper: 3000.0,
        });
        let p = feature_plot(
            "spin",
            Feature::OffsetModLine,
            &ICache {
                line: 64,
                sets: 64,
                ways: 8,
            },
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
