//! The inline-SVG plot of an `explain` culprit: each binary's mean against the culprit's
//! feature, with its interval, and the confirmation's pairs (the seed as built and its
//! relink with only the suspect moved) joined by a line. Drawn with the report's
//! `Frame`; styling from the page's CSS.

use std::fmt::Write;

use super::svg::{escape, nice_ticks, range, tick_label, Frame};
use crate::analysis::explain_plot::FeaturePlot;
use crate::report::numfmt::sig;

/// The scatter of `plot` titled `title`. Points of a 0/1 feature (or of few offsets) would
/// hide each other: those at one x value are spread sideways by their rank among them,
/// over less than a third of the gap between two x values, so each binary stays countable
/// and next to its value.
pub(crate) fn feature_scatter(title: &str, plot: &FeaturePlot) -> String {
    let xs = plot
        .points
        .iter()
        .map(|p| p.value)
        .chain(
            plot.pairs
                .iter()
                .flat_map(|p| [p.control.value, p.moved.value]),
        )
        .chain(plot.levels.iter().copied());
    let (xlo, xhi) = range_of(xs);
    // Room for the spread at both ends, inside the axes.
    let gap = gap(plot);
    let (xlo, xhi) = (xlo - 0.2 * gap, xhi + 0.2 * gap);
    let ys: Vec<f64> = plot
        .points
        .iter()
        .flat_map(|p| {
            let ci = p.ci.map(|c| [c.lower, c.upper]).unwrap_or([p.mean, p.mean]);
            [p.mean, ci[0], ci[1]]
        })
        .chain(
            plot.pairs
                .iter()
                .flat_map(|p| [p.control.mean, p.moved.mean]),
        )
        .collect();
    let mut f = Frame::new(520.0, 280.0, (xlo, xhi), range(ys.iter()));
    let mut out = String::new();
    let (x_label, y_label) = crate::report::words::explain::plot_labels(plot);
    f.open(&mut out, title, &x_label, &y_label);
    x_ticks(&mut out, &f, plot);
    let spread = 0.3 * gap * (f.px(1.0) - f.px(0.0)).abs();
    let values: Vec<f64> = plot.points.iter().map(|p| p.value).collect();
    for (i, p) in plot.points.iter().enumerate() {
        let cx = f.px(p.value) + sideways(&values, i) * spread;
        if let Some(ci) = p.ci {
            let _ = write!(
                out,
                r#"<path class="ci" d="M{cx:.1},{:.1}V{:.1}"/>"#,
                f.py(ci.lower),
                f.py(ci.upper)
            );
        }
        let _ = write!(
            out,
            r#"<circle class="pt" data-binary="{b}" cx="{cx:.1}" cy="{:.1}" r="3"><title>{b}: {} at {}</title></circle>"#,
            f.py(p.mean),
            sig(p.mean, 4),
            sig(p.value, 3),
            b = escape(&p.binary)
        );
    }
    let controls: Vec<f64> = plot.pairs.iter().map(|p| p.control.value).collect();
    let moved: Vec<f64> = plot.pairs.iter().map(|p| p.moved.value).collect();
    for (i, p) in plot.pairs.iter().enumerate() {
        let x0 = f.px(p.control.value) + sideways(&controls, i) * spread;
        let x1 = f.px(p.moved.value) + sideways(&moved, i) * spread;
        let (y0, y1) = (f.py(p.control.mean), f.py(p.moved.mean));
        let _ = write!(
            out,
            r#"<path class="seedline" d="M{x0:.1},{y0:.1}L{x1:.1},{y1:.1}"/><rect class="pt" data-confirm="control" data-seed="{s}" x="{:.1}" y="{:.1}" width="6" height="6"><title>seed {s} as built</title></rect><rect class="base" data-confirm="moved" data-seed="{s}" x="{:.1}" y="{:.1}" width="6" height="6"><title>seed {s} with only {} moved</title></rect>"#,
            x0 - 3.0,
            y0 - 3.0,
            x1 - 3.0,
            y1 - 3.0,
            escape(&plot.function),
            s = p.seed
        );
    }
    out.push_str("</svg>");
    out
}

/// Where `values[i]` goes sideways, from −0.5 to 0.5: by its rank among the values equal
/// to it (0 when alone).
fn sideways(values: &[f64], i: usize) -> f64 {
    let same = values.iter().filter(|v| **v == values[i]).count();
    if same < 2 {
        return 0.0;
    }
    let rank = values[..i].iter().filter(|v| **v == values[i]).count();
    rank as f64 / (same - 1) as f64 - 0.5
}

/// The x range of the values (one unit wide around a single value).
fn range_of(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let v: Vec<f64> = xs.collect();
    let (lo, hi) = range(v.iter());
    if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, lo + 0.5)
    }
}

/// The smallest gap between two distinct x values of the binaries (in x units), or the
/// whole range when there is one value.
fn gap(plot: &FeaturePlot) -> f64 {
    let mut xs: Vec<f64> = plot.points.iter().map(|p| p.value).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min)
        .min(1e9)
        .max(if xs.len() > 1 { 0.0 } else { 1.0 })
}

/// Tick labels under the x axis: the levels of a 0/1 feature as `no`/`yes`, else round
/// values.
fn x_ticks(out: &mut String, f: &Frame, plot: &FeaturePlot) {
    let y = f.height - f.bottom + 11.0;
    let ticks: Vec<(f64, String)> = if plot.levels.is_empty() {
        let (ticks, step) = nice_ticks(f.x.0, f.x.1);
        ticks
            .into_iter()
            .filter(|v| (f.x.0..=f.x.1).contains(v))
            .map(|v| (v, tick_label(v, step)))
            .collect()
    } else {
        plot.levels
            .iter()
            .map(|&v| (v, if v == 0.0 { "no" } else { "yes" }.to_string()))
            .collect()
    };
    for (v, label) in ticks {
        let _ = write!(
            out,
            r#"<text class="tick" x="{:.1}" y="{y:.1}" text-anchor="middle">{}</text>"#,
            f.px(v),
            escape(&label)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::effect::Interval;
    use crate::analysis::explain_plot::{ConfirmPair, FeaturePoint, PlacedMean};
    use crate::layout::features::Feature;

    fn plot(levels: Vec<f64>, n: usize) -> FeaturePlot {
        FeaturePlot {
            function: "spin".into(),
            feature: Feature::UpperHalfLine,
            cache: None,
            metric: String::new(),
            shown_unit: String::new(),
            recorded_x_label: Some("upper half".into()),
            recorded_y_label: Some("work, mean per binary".into()),
            scale: 1.0,
            levels,
            points: (0..n)
                .map(|i| FeaturePoint {
                    binary: format!("seed-{i}"),
                    value: (i % 2) as f64,
                    mean: 100.0 + 50.0 * (i % 2) as f64,
                    ci: (i == 0).then_some(Interval {
                        lower: 90.0,
                        upper: 110.0,
                    }),
                })
                .collect(),
            pairs: vec![ConfirmPair {
                seed: 1,
                control: PlacedMean {
                    value: 1.0,
                    mean: 150.0,
                },
                moved: PlacedMean {
                    value: 0.0,
                    mean: 100.0,
                },
            }],
        }
    }

    /// The texts of the SVG's `<text>` elements, one a line, in document order (the SVG
    /// parsed as XML).
    fn text_labels(svg: &str) -> String {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn one_circle_per_binary_and_the_pairs_marked() {
        let svg = feature_scatter("spin", &plot(vec![0.0, 1.0], 7));
        let labels = text_labels(&svg);
        assert_eq!(svg.matches("<circle class=\"pt\" data-binary=").count(), 7);
        assert_eq!(svg.matches("data-confirm=\"moved\"").count(), 1);
        assert_eq!(svg.matches("data-confirm=\"control\"").count(), 1);
        assert_eq!(svg.matches("<path class=\"ci\"").count(), 1);
        // The axis' 0/1 values named no/yes, the feature and the metric.
        insta::assert_snapshot!(labels);
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }

    #[test]
    fn points_spread_only_among_equal_values() {
        let v = [0.0, 1.0, 0.0, 0.0, 5.0];
        let at: Vec<f64> = (0..v.len()).map(|i| sideways(&v, i)).collect();
        assert_eq!(at, vec![-0.5, 0.0, 0.0, 0.5, 0.0]);
    }

    #[test]
    fn offsets_get_round_ticks_and_one_value_a_finite_frame() {
        let mut p = plot(Vec::new(), 3);
        for (i, q) in p.points.iter_mut().enumerate() {
            q.value = 16.0 * i as f64;
        }
        let svg = feature_scatter("spin", &p);
        // Round ticks from 0 to 30 bytes.
        insta::assert_snapshot!(text_labels(&svg));
        for q in p.points.iter_mut() {
            q.value = 16.0;
        }
        p.pairs.clear();
        let svg = feature_scatter("spin", &p);
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
    }
}
