//! The inline-SVG plots of a variant comparison (issue 11): the paired plot (one line per
//! layout from the base to the new variant), the ratio intervals against the no-change line
//! and the negligible band, and the interaction plot (each variant's mean per layout).
//! Like [`super::svg`], no script and no library; styling comes from the page's CSS.

use std::fmt::Write;

use super::svg::{escape, range, widen, Frame};
use crate::report::numfmt::percent;

/// One layout (seed) of a paired plot: its label and the means of the base and the new
/// variant.
#[derive(Debug, Clone)]
pub(crate) struct Pair {
    /// The seed, as the x labels show it.
    pub(crate) label: String,
    /// The base variant's mean on this layout.
    pub(crate) base: f64,
    /// The new variant's mean on this layout.
    pub(crate) new: f64,
}

/// The paired plot: the base at the left, the new variant at the right, one line per layout
/// between its two means, green where the new variant is lower, red where it is higher (a
/// layout effect shared by both variants shows as lines at different heights, the change as
/// their slope).
pub(crate) fn paired_plot(
    title: &str,
    y_label: &str,
    base: &str,
    new: &str,
    pairs: &[Pair],
) -> String {
    let values: Vec<f64> = pairs
        .iter()
        .flat_map(|p| [p.base, p.new])
        .filter(|v| v.is_finite())
        .collect();
    let mut f = Frame::new(360.0, 260.0, (-0.3, 1.3), range(values.iter()));
    let mut out = String::new();
    f.open(&mut out, title, "variant", y_label);
    for (x, name, cls) in [(0.0, base, "tick basetick"), (1.0, new, "tick")] {
        let _ = write!(
            out,
            r#"<text class="{cls}" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            f.px(x),
            f.height - f.bottom + 11.0,
            escape(name)
        );
    }
    for p in pairs
        .iter()
        .filter(|p| p.base.is_finite() && p.new.is_finite())
    {
        let direction = if p.new < p.base {
            " lower"
        } else if p.new > p.base {
            " higher"
        } else {
            ""
        };
        let (x0, y0, x1, y1) = (f.px(0.0), f.py(p.base), f.px(1.0), f.py(p.new));
        let _ = write!(
            out,
            r#"<path class="seedline{direction}" d="M{x0:.1},{y0:.1}L{x1:.1},{y1:.1}"><title>seed {}</title></path><circle class="base" cx="{x0:.1}" cy="{y0:.1}" r="2.5"/><circle class="pt" cx="{x1:.1}" cy="{y1:.1}" r="2.5"/>"#,
            escape(&p.label)
        );
    }
    out.push_str("</svg>");
    out
}

/// One interval of a ratio-interval plot.
#[derive(Debug, Clone)]
pub(crate) struct IntervalRow {
    /// What the interval is, e.g. `eq. 5 (Fieller)`.
    pub(crate) label: String,
    /// The point estimate of the ratio.
    pub(crate) estimate: f64,
    /// The interval; `None`: unbounded or not computable (the row says so).
    pub(crate) ci: Option<(f64, f64)>,
    /// The interval as the text report prints it (shown at the right of its row).
    pub(crate) ci_text: String,
    /// The interval the verdict rests on (drawn bold).
    pub(crate) basis: bool,
}

/// Where a ratio-interval plot draws: the ratio range shown, the margins and the height of
/// a row (one interval each).
struct RatioFrame {
    lo: f64,
    hi: f64,
    width: f64,
    left: f64,
    right: f64,
    top: f64,
    row: f64,
    rows: usize,
}

impl RatioFrame {
    /// A frame showing every estimate and finite bound of `rows` and the band `1 ±
    /// negligible`.
    fn new(rows: &[IntervalRow], negligible: f64) -> RatioFrame {
        let mut ends = vec![1.0 - negligible, 1.0 + negligible];
        for r in rows {
            ends.push(r.estimate);
            if let Some((lo, hi)) = r.ci {
                ends.extend([lo, hi]);
            }
        }
        ends.retain(|v| v.is_finite());
        let (lo, hi) = widen(range(ends.iter()));
        RatioFrame {
            lo,
            hi,
            width: 620.0,
            left: 150.0,
            right: 140.0,
            top: 26.0,
            row: 26.0,
            rows: rows.len(),
        }
    }

    /// The x coordinate of ratio `x`.
    fn px(&self, x: f64) -> f64 {
        self.left + (x - self.lo) / (self.hi - self.lo) * (self.width - self.left - self.right)
    }

    /// The y of the ratio axis, below the last row.
    fn bottom_axis(&self) -> f64 {
        self.top + self.row * self.rows as f64 + 4.0
    }

    fn height(&self) -> f64 {
        self.top + self.row * self.rows as f64 + 40.0
    }

    /// The negligible band, the no-change line at 1, the axis with its ticks and label.
    fn axis(&self, out: &mut String, negligible: f64, x_label: &str) {
        let (top, left, bottom_axis) = (self.top, self.left, self.bottom_axis());
        if negligible > 0.0 {
            let band = (
                self.px((1.0 - negligible).max(self.lo)),
                self.px((1.0 + negligible).min(self.hi)),
            );
            let _ = write!(
                out,
                r#"<rect class="band" x="{:.1}" y="{top:.1}" width="{:.1}" height="{:.1}"><title>negligible: within ± {}</title></rect>"#,
                band.0,
                (band.1 - band.0).max(0.0),
                bottom_axis - top,
                percent(negligible, 2)
            );
        }
        let _ = write!(
            out,
            r#"<path class="nochange" d="M{x:.1},{top:.1}V{bottom_axis:.1}"/><path class="axis" d="M{left:.1},{bottom_axis:.1}H{:.1}"/>"#,
            self.width - self.right,
            x = self.px(1.0)
        );
        // Round ticks (1, 2, 2.5 or 5 times a power of ten) inside the range: the axis read
        // 0.8955, 0.9323, … at four even steps before.
        let (ticks, step) = super::svg::nice_ticks(self.lo, self.hi);
        let inside = |v: &&f64| **v >= self.lo - step * 1e-9 && **v <= self.hi + step * 1e-9;
        for v in ticks.iter().filter(inside) {
            let _ = write!(
                out,
                r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="middle">{}</text>"#,
                self.px(*v),
                bottom_axis + 12.0,
                super::svg::tick_label(*v, step)
            );
        }
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="lbl" text-anchor="middle">{}</text>"#,
            (left + self.width - self.right) / 2.0,
            self.height() - 6.0,
            escape(x_label)
        );
    }

    /// Row `i`: its label, its bar (none when unbounded: the text at the right says so), the
    /// interval as the text report prints it, and the estimate.
    fn interval_row(&self, out: &mut String, i: usize, r: &IntervalRow) {
        let y = self.top + self.row * i as f64 + self.row / 2.0;
        let weight = if r.basis { " strong" } else { "" };
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="lbl{weight}" text-anchor="end">{}</text>"#,
            self.left - 6.0,
            y + 4.0,
            escape(&r.label)
        );
        if let Some((a, b)) = r.ci.filter(|(a, b)| a.is_finite() && b.is_finite()) {
            let (xa, xb) = (self.px(a), self.px(b));
            let _ = write!(
                out,
                r#"<path class="ci{weight}" d="M{xa:.1},{y:.1}H{xb:.1}M{xa:.1},{:.1}V{:.1}M{xb:.1},{:.1}V{:.1}"><title>{}</title></path>"#,
                y - 5.0,
                y + 5.0,
                y - 5.0,
                y + 5.0,
                escape(&r.ci_text)
            );
        }
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="lbl civalue{weight}">{}</text>"#,
            self.width - self.right + 8.0,
            y + 4.0,
            escape(&r.ci_text)
        );
        if r.estimate.is_finite() {
            let _ = write!(
                out,
                r#"<circle class="pt" cx="{:.1}" cy="{y:.1}" r="3"/>"#,
                self.px(r.estimate)
            );
        }
    }
}

/// Ratio intervals as horizontal bars on one ratio axis, with the no-change line at 1 and
/// the negligible band `1 ± negligible` shaded: an interval inside the band is a negligible
/// change, one crossing the line no detected change.
pub(crate) fn ratio_intervals(
    title: &str,
    x_label: &str,
    rows: &[IntervalRow],
    negligible: f64,
) -> String {
    let frame = RatioFrame::new(rows, negligible);
    let (width, height) = (frame.width, frame.height());
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img"><title>{t}</title><text x="4" y="14" class="ttl">{t}</text>"#,
        t = escape(title)
    );
    frame.axis(&mut out, negligible, x_label);
    for (i, r) in rows.iter().enumerate() {
        frame.interval_row(&mut out, i, r);
    }
    out.push_str("</svg>");
    out
}

/// One variant's line of an interaction plot: its name and its mean on each layout.
#[derive(Debug, Clone)]
pub(crate) struct VariantLine {
    /// The variant.
    pub(crate) name: String,
    /// Its mean per layout, in the plot's layout order.
    pub(crate) means: Vec<f64>,
}

/// The interaction plot: the layouts along x (in the given order), each variant's mean per
/// layout joined by a line. Parallel lines: the change does not depend on the layout;
/// lines that converge, diverge or cross: it does (the variant × binary interaction).
/// The first line is the base (the baseline colour), the others take the point colours.
pub(crate) fn interaction_plot(
    title: &str,
    x_label: &str,
    y_label: &str,
    layouts: &[String],
    lines: &[VariantLine],
) -> String {
    let values: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.means.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    let width = (120.0 + 22.0 * layouts.len() as f64).clamp(420.0, 1100.0);
    let mut f = Frame::new(
        width,
        260.0,
        (0.0, layouts.len().saturating_sub(1).max(1) as f64),
        range(values.iter()),
    );
    let mut out = String::new();
    f.open(&mut out, title, x_label, y_label);
    if layouts.len() <= 40 {
        for (i, l) in layouts.iter().enumerate() {
            let _ = write!(
                out,
                r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                f.px(i as f64),
                f.height - f.bottom + 11.0,
                escape(l)
            );
        }
    }
    for (k, line) in lines.iter().enumerate() {
        let cls = if k == 0 { "base" } else { "pt" };
        let mut d = String::new();
        for (i, &m) in line.means.iter().enumerate().filter(|(_, m)| m.is_finite()) {
            let _ = write!(
                d,
                "{}{:.1},{:.1}",
                if d.is_empty() { "M" } else { "L" },
                f.px(i as f64),
                f.py(m)
            );
        }
        let _ = write!(
            out,
            r#"<path class="vline {cls}" d="{d}"><title>{}</title></path>"#,
            escape(&line.name)
        );
        for (i, &m) in line.means.iter().enumerate().filter(|(_, m)| m.is_finite()) {
            let _ = write!(
                out,
                r#"<circle class="{cls}" cx="{:.1}" cy="{:.1}" r="2.5"/>"#,
                f.px(i as f64),
                f.py(m)
            );
        }
        // Legend in the title's row, right-aligned, last variant rightmost: above the data,
        // so it never hides a point.
        let _ = write!(
            out,
            r#"<text class="lbl legend {cls}" x="{:.1}" y="14" text-anchor="end">{}</text>"#,
            f.width - f.right - 60.0 * (lines.len() - 1 - k) as f64,
            escape(&line.name)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `<svg>…</svg>` of `s` parses as XML and holds no NaN or infinity.
    fn well_formed(s: &str) {
        roxmltree::Document::parse(s).unwrap_or_else(|e| panic!("{e}: {s}"));
        for bad in ["NaN", "inf"] {
            assert!(!s.contains(bad), "{bad} in {s}");
        }
    }

    fn pair(label: &str, base: f64, new: f64) -> Pair {
        Pair {
            label: label.into(),
            base,
            new,
        }
    }

    fn row(label: &str, estimate: f64, ci: Option<(f64, f64)>, basis: bool) -> IntervalRow {
        IntervalRow {
            label: label.into(),
            estimate,
            ci,
            ci_text: super::super::tables::ratio_interval(
                ci.map(|(lower, upper)| crate::analysis::effect::Interval { lower, upper }),
            ),
            basis,
        }
    }

    #[test]
    fn paired_plot_draws_one_line_per_finite_seed_coloured_by_direction() {
        let p = paired_plot(
            "p",
            "ms",
            "O2",
            "O3",
            &[
                pair("1", 10.0, 9.0),
                pair("2", 11.0, 12.0),
                pair("3", 5.0, 5.0),
                pair("4", f64::NAN, 1.0),
            ],
        );
        well_formed(&p);
        assert_eq!(p.matches(r#"class="seedline"#).count(), 3);
        assert_eq!(p.matches(r#"class="seedline lower""#).count(), 1);
        assert_eq!(p.matches(r#"class="seedline higher""#).count(), 1);
    }

    #[test]
    fn ratio_intervals_mark_the_basis_no_change_band_and_unbounded_rows() {
        let rows = [
            row("eq. 5 (Fieller)", 0.9, Some((0.8, 1.02)), false),
            row("paired by seed", 0.9, Some((0.88, 0.92)), true),
            row("bootstrap", 0.9, None, false),
        ];
        let r = ratio_intervals("r", "ratio", &rows, 0.01);
        well_formed(&r);
        assert_eq!(r.matches(r#"<path class="ci"#).count(), 2);
        assert_eq!(r.matches(r#"<path class="ci strong""#).count(), 1);
        assert_eq!(r.matches(">unbounded<").count(), 1);
        assert!(r.contains("<title>0.8800 to 0.9200</title>"));
        assert_eq!(r.matches(r#"class="nochange""#).count(), 1);
        assert_eq!(r.matches(r#"class="band""#).count(), 1);
        // Ticks at round values, each with the digits its step needs (were four even steps
        // such as 0.8955).
        let ticks: Vec<f64> = r
            .split(r#"class="tick" text-anchor="middle">"#)
            .skip(1)
            .map(|t| t.split('<').next().unwrap().parse().unwrap())
            .collect();
        assert!(ticks.len() >= 3, "{ticks:?}");
        for t in &ticks {
            assert!(((t * 20.0).round() - t * 20.0).abs() < 1e-9, "{ticks:?}");
        }
        // Without a relevance threshold there is no band.
        let r = ratio_intervals("r", "ratio", &rows, 0.0);
        assert_eq!(r.matches(r#"class="band""#).count(), 0);
    }

    #[test]
    fn interaction_plot_draws_one_line_per_variant() {
        let i = interaction_plot(
            "i",
            "seed",
            "ms",
            &["1".into(), "2".into()],
            &[
                VariantLine {
                    name: "O2".into(),
                    means: vec![10.0, 11.0],
                },
                VariantLine {
                    name: "O3".into(),
                    means: vec![9.0, 12.0],
                },
            ],
        );
        well_formed(&i);
        assert_eq!(i.matches(r#"class="vline"#).count(), 2);
        assert_eq!(i.matches("<circle").count(), 4);
    }

    /// No data, one binary, constant values, infinite or NaN values, an unbounded or a
    /// huge interval: every plot still parses and holds no NaN or infinity.
    #[test]
    fn degenerate_input_still_gives_well_formed_svg() {
        for pairs in [
            vec![],
            vec![pair("1", 3.0, 3.0)],
            vec![pair("1", 0.0, 0.0), pair("2", 0.0, 0.0)],
            vec![pair("1", f64::INFINITY, 1.0), pair("2", f64::NAN, f64::NAN)],
        ] {
            well_formed(&paired_plot("p <&>", "ms", "a\"b", "c", &pairs));
            let layouts: Vec<String> = pairs.iter().map(|p| p.label.clone()).collect();
            let lines = [
                VariantLine {
                    name: "a".into(),
                    means: pairs.iter().map(|p| p.base).collect(),
                },
                VariantLine {
                    name: "b".into(),
                    means: pairs.iter().map(|p| p.new).collect(),
                },
            ];
            well_formed(&interaction_plot("i", "seed", "ms", &layouts, &lines));
        }
        for rows in [
            vec![],
            vec![row("eq. 5", 1.0, None, true)],
            vec![row("eq. 5", 1.0, Some((1.0, 1.0)), true)],
            vec![row("eq. 5", f64::NAN, Some((f64::NEG_INFINITY, 2.0)), true)],
            vec![row("eq. 5", 1.0, Some((-1e12, 1e12)), true)],
        ] {
            for negligible in [0.0, 0.01] {
                well_formed(&ratio_intervals("r", "ratio", &rows, negligible));
            }
        }
    }
}
