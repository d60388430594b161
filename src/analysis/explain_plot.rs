//! What `explain` draws and advises for each culprit, computed here so that the renderings
//! only print: the per-binary means against the culprit's feature (one point per binary,
//! with its interval, in the unit the numbers are shown in) and the confirmation's pairs.
//! The axes' labels and the fix that follows from the feature are worded in
//! `crate::report::words::explain`.

use serde::{Deserialize, Serialize};

use super::effect::Interval;
use crate::layout::features::{Feature, ICache};

/// One binary in a culprit's plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct FeaturePoint {
    /// `seed-N`.
    pub(crate) binary: String,
    /// The culprit's feature value in this binary (x).
    pub(crate) value: f64,
    /// The binary's mean, in the plot's unit (y).
    pub(crate) mean: f64,
    /// The 95 % t interval of the mean over the binary's executions (K&J eq. 4 at the
    /// execution level; on the log scale for a positive metric, so it stays positive), in
    /// the plot's unit; `None` with a single execution.
    pub(crate) ci: Option<Interval>,
}

/// A culprit's plot: the binaries' means against its feature. Its JSON carries the axes'
/// labels in words beside it (`crate::report::words::explain`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
#[schemars(transform = crate::wire::words(
    "x_label",
    crate::wire::Shape::Sentence,
    "The x axis in words (the feature and its unit). Not in the stored answer."
))]
#[schemars(transform = crate::wire::words(
    "y_label",
    crate::wire::Shape::Sentence,
    "The y axis in words (the metric and the unit the means are in). Not in the stored answer."
))]
pub struct FeaturePlot {
    /// The culprit's function.
    pub(crate) function: String,
    /// The culprit's feature.
    pub(crate) feature: Feature,
    /// The instruction cache the feature is measured in (its line size and ways name the
    /// x axis); `None` in answers stored before it was kept, which kept the labels.
    #[serde(default)]
    pub(crate) cache: Option<ICache>,
    /// The metric (the y axis).
    #[serde(default)]
    pub(crate) metric: String,
    /// The unit the means are shown in (empty for a count).
    #[serde(default)]
    pub(crate) shown_unit: String,
    /// The axes' labels as an answer stored by an earlier version kept them: read, never
    /// written.
    #[serde(rename = "x_label", default, skip_serializing)]
    #[schemars(skip)]
    pub(crate) recorded_x_label: Option<String>,
    /// See `recorded_x_label`.
    #[serde(rename = "y_label", default, skip_serializing)]
    #[schemars(skip)]
    pub(crate) recorded_y_label: Option<String>,
    /// The factor that turned the metric's values into the plot's unit.
    pub(crate) scale: f64,
    /// The x values to label: the levels of a 0/1 feature, else empty (round ticks).
    pub(crate) levels: Vec<f64>,
    /// One point per screened binary.
    pub(crate) points: Vec<FeaturePoint>,
    /// The confirmation's pairs on this culprit (means in the plot's unit); empty without.
    pub(crate) pairs: Vec<ConfirmPair>,
}
crate::wire::read_as_written!(FeaturePlot);

/// What a plot's axes are: the cache its feature is measured in, the metric, and the unit
/// its means are shown in.
pub(crate) struct Axes<'a> {
    /// The instruction cache.
    pub(crate) cache: ICache,
    /// The metric.
    pub(crate) metric: &'a str,
    /// The unit shown (empty for a count).
    pub(crate) shown_unit: &'a str,
}

/// One side of a confirmation pair: its feature value and mean (the metric's unit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct PlacedMean {
    /// The suspect's feature value in this binary.
    pub(crate) value: f64,
    /// The binary's mean in the confirmation run.
    pub(crate) mean: f64,
}

/// One seed of a confirmation: the seed as built and relinked with only the suspect moved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct ConfirmPair {
    /// The seed.
    pub(crate) seed: u64,
    /// The seed's binary as built.
    pub(crate) control: PlacedMean,
    /// The relink with the suspect moved.
    pub(crate) moved: PlacedMean,
}

/// The plot of one culprit: each of `binaries` is a binary's name, its feature value, and
/// its mean and interval in the metric's unit, shown multiplied by `scale` (the inverse of
/// the factor of `units::Scale::for_values`) on `axes`.
pub(crate) fn feature_plot(
    (function, feature): (&str, Feature),
    binaries: &[(&str, f64, f64, Option<Interval>)],
    pairs: &[ConfirmPair],
    scale: f64,
    axes: &Axes,
) -> FeaturePlot {
    FeaturePlot {
        function: function.to_string(),
        feature,
        cache: Some(axes.cache),
        metric: axes.metric.to_string(),
        shown_unit: axes.shown_unit.to_string(),
        recorded_x_label: None,
        recorded_y_label: None,
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
        let axes = Axes {
            cache: ICache {
                line: 64,
                sets: 64,
                ways: 8,
            },
            metric: "wall",
            shown_unit: "s",
        };
        let p = feature_plot(
            ("spin", Feature::OffsetModLine),
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
            1e-3,
            &axes,
        );
        assert_eq!(p.points.len(), 2);
        assert_eq!(p.points[0].mean, 2.0);
        assert_eq!(p.points[0].ci.unwrap().upper, 3.0);
        assert!(p.levels.is_empty());
        assert_eq!((p.pairs[0].control.mean, p.pairs[0].moved.mean), (2.0, 1.5));
        assert_eq!(p.pairs[0].moved.value, 0.0);
    }
}
