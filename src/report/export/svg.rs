//! Small inline-SVG plots for the HTML report: no JavaScript, no network, no library.
//!
//! Each function returns one `<svg>` element. Coordinates are computed here; styling comes
//! from the page's CSS classes (`axis`, `pt`, `base`, `line`, `cp`, `bar`, `band`).

use std::fmt::Write;

use crate::analysis::numfmt::sig;
use crate::analysis::report::plot_data::{BoxSummary, StripGroup};

/// Escapes text for HTML and SVG.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A plotting frame: pixel size, margins and the data ranges mapped onto it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    pub(super) width: f64,
    pub(super) height: f64,
    pub(super) left: f64,
    pub(super) right: f64,
    pub(super) top: f64,
    pub(super) bottom: f64,
    pub(super) x: (f64, f64),
    pub(super) y: (f64, f64),
}

impl Frame {
    pub(super) fn new(width: f64, height: f64, x: (f64, f64), y: (f64, f64)) -> Frame {
        Frame {
            width,
            height,
            left: 62.0,
            right: 10.0,
            top: 22.0,
            bottom: 30.0,
            x: widen(x),
            y: widen(y),
        }
    }

    pub(super) fn px(&self, x: f64) -> f64 {
        self.left + (x - self.x.0) / (self.x.1 - self.x.0) * (self.width - self.left - self.right)
    }

    pub(super) fn py(&self, y: f64) -> f64 {
        self.height
            - self.bottom
            - (y - self.y.0) / (self.y.1 - self.y.0) * (self.height - self.top - self.bottom)
    }

    /// Opens the `<svg>`, draws the title, axes, y ticks and the x label.
    pub(super) fn open(&self, out: &mut String, title: &str, x_label: &str, y_label: &str) {
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img"><title>{t}</title>"#,
            w = self.width,
            h = self.height,
            t = escape(title)
        );
        let _ = write!(
            out,
            r#"<text x="{}" y="14" class="ttl">{}</text>"#,
            self.left,
            escape(title)
        );
        let (x0, x1) = (self.left, self.width - self.right);
        let (y0, y1) = (self.height - self.bottom, self.top);
        let _ = write!(
            out,
            r#"<path class="axis" d="M{x0:.1},{y1:.1}V{y0:.1}H{x1:.1}"/>"#
        );
        for i in 0..=4 {
            let v = self.y.0 + (self.y.1 - self.y.0) * i as f64 / 4.0;
            let py = self.py(v);
            let _ = write!(
                out,
                r#"<path class="grid" d="M{x0:.1},{py:.1}H{x1:.1}"/><text x="{:.1}" y="{:.1}" class="tick" text-anchor="end">{}</text>"#,
                x0 - 4.0,
                py + 3.0,
                sig(v, 4)
            );
        }
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="lbl" text-anchor="middle">{}</text>"#,
            (x0 + x1) / 2.0,
            self.height - 6.0,
            escape(x_label)
        );
        let _ = write!(
            out,
            r#"<text x="12" y="{:.1}" class="lbl" text-anchor="middle" transform="rotate(-90 12 {:.1})">{}</text>"#,
            (y0 + y1) / 2.0,
            (y0 + y1) / 2.0,
            escape(y_label)
        );
    }
}

/// Pads a range by 5 % and makes a zero-width range one unit wide.
pub(super) fn widen((lo, hi): (f64, f64)) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi <= lo {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.01 };
        return (lo - d, hi + d);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

pub(super) fn range<'a>(values: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    })
}

/// Per-group box (quartiles, whiskers at min/max) with the points jittered over it; the
/// highlighted group is drawn in the baseline colour and a dashed line marks its median
/// across the whole plot.
pub fn strip_plot(title: &str, y_label: &str, groups: &[StripGroup]) -> String {
    let extremes: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.box_summary.iter().flat_map(|b| [b.low, b.high]))
        .collect();
    let all = groups
        .iter()
        .flat_map(|g| g.points.iter())
        .chain(extremes.iter());
    let width = (90.0 + 18.0 * groups.len() as f64).clamp(480.0, 1100.0);
    let f = Frame::new(width, 260.0, (-0.5, groups.len() as f64 - 0.5), range(all));
    let mut out = String::new();
    f.open(&mut out, title, "binary", y_label);
    let step = f.px(1.0) - f.px(0.0);
    let half = (step * 0.3).clamp(1.5, 14.0);
    for (i, g) in groups.iter().enumerate() {
        let cls = if g.highlight { "base" } else { "pt" };
        let cx = f.px(i as f64);
        if let Some(BoxSummary {
            low: lo,
            q1,
            median: q2,
            q3,
            high: hi,
        }) = g.box_summary
        {
            let _ = write!(
                out,
                r#"<path class="whisker {cls}" d="M{cx:.1},{:.1}V{:.1}"/><rect class="box {cls}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/><path class="median" d="M{:.1},{:.1}H{:.1}"/>"#,
                f.py(lo),
                f.py(hi),
                cx - half,
                f.py(q3),
                2.0 * half,
                (f.py(q1) - f.py(q3)).max(0.5),
                cx - half,
                f.py(q2),
                cx + half
            );
            if g.highlight {
                let _ = write!(
                    out,
                    r#"<path class="baseline-line" d="M{:.1},{:.1}H{:.1}"/>"#,
                    f.left,
                    f.py(q2),
                    f.width - f.right
                );
            }
        }
        for (k, &p) in g.points.iter().enumerate() {
            let jitter = if g.points.len() > 1 {
                (k as f64 / (g.points.len() - 1) as f64 - 0.5) * half
            } else {
                0.0
            };
            let _ = write!(
                out,
                r#"<circle class="{cls}" cx="{:.1}" cy="{:.1}" r="2.5"/>"#,
                cx + jitter,
                f.py(p)
            );
        }
        if groups.len() <= 40 || g.highlight {
            let _ = write!(
                out,
                r#"<text class="tick{}" x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                if g.highlight { " basetick" } else { "" },
                f.height - f.bottom + 11.0,
                escape(&g.label)
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// Values against their index, joined by a line; dashed vertical lines at `marks` (indices
/// where something starts, e.g. a suggested end of warmup) and a shaded band over the first
/// `shaded` points (the discarded warmup).
pub fn run_sequence(
    title: &str,
    y_label: &str,
    values: &[f64],
    shaded: usize,
    marks: &[usize],
) -> String {
    let f = Frame::new(
        360.0,
        200.0,
        (0.0, values.len().saturating_sub(1).max(1) as f64),
        range(values.iter()),
    );
    let mut out = String::new();
    f.open(&mut out, title, "iteration", y_label);
    if shaded > 0 {
        let x1 = f.px(shaded as f64 - 0.5);
        let _ = write!(
            out,
            r#"<rect class="band" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/>"#,
            f.left,
            f.top,
            (x1 - f.left).max(0.0),
            f.height - f.top - f.bottom
        );
    }
    let mut d = String::new();
    for (i, &v) in values.iter().enumerate() {
        let _ = write!(
            d,
            "{}{:.1},{:.1}",
            if i == 0 { "M" } else { "L" },
            f.px(i as f64),
            f.py(v)
        );
    }
    let _ = write!(out, r#"<path class="line" d="{d}"/>"#);
    for (i, &v) in values.iter().enumerate() {
        let _ = write!(
            out,
            r#"<circle class="pt" cx="{:.1}" cy="{:.1}" r="1.6"/>"#,
            f.px(i as f64),
            f.py(v)
        );
    }
    for &m in marks {
        let x = f.px(m as f64 - 0.5);
        let _ = write!(
            out,
            r#"<path class="cp" d="M{x:.1},{:.1}V{:.1}"/>"#,
            f.top,
            f.height - f.bottom
        );
    }
    out.push_str("</svg>");
    out
}

/// Lag plot: the points (Y_{t−h}, Y_t) (Kalibera & Jones 2013 §6.1).
pub fn lag_plot(title: &str, values: &[f64], lag: usize) -> String {
    let r = range(values.iter());
    let mut f = Frame::new(170.0, 170.0, r, r);
    f.left = 40.0;
    let mut out = String::new();
    f.open(&mut out, title, &format!("Y(t−{lag})"), "Y(t)");
    for t in lag..values.len() {
        let _ = write!(
            out,
            r#"<circle class="pt" cx="{:.1}" cy="{:.1}" r="1.6"/>"#,
            f.px(values[t - lag]),
            f.py(values[t])
        );
    }
    out.push_str("</svg>");
    out
}

/// Autocorrelation bars for lags 1..=acf.len() with dashed bands at ±`bound` (the values
/// expected from independent noise).
pub fn acf_plot(title: &str, acf: &[f64], bound: f64) -> String {
    let f = Frame::new(260.0, 170.0, (0.5, acf.len() as f64 + 0.5), (-1.0, 1.0));
    let mut out = String::new();
    f.open(&mut out, title, "lag", "autocorrelation");
    for y in [bound, -bound] {
        let _ = write!(
            out,
            r#"<path class="cp" d="M{:.1},{:.1}H{:.1}"/>"#,
            f.left,
            f.py(y),
            f.width - f.right
        );
    }
    let zero = f.py(0.0);
    for (i, &r) in acf.iter().enumerate() {
        let x = f.px(i as f64 + 1.0);
        let _ = write!(
            out,
            r#"<path class="acf" d="M{x:.1},{zero:.1}V{:.1}"/>"#,
            f.py(r)
        );
    }
    out.push_str("</svg>");
    out
}

/// Horizontal bars, one per label, lengths proportional to the values (negative values are
/// drawn as zero-length bars and the label says so).
pub fn bars(title: &str, items: &[(String, f64)]) -> String {
    let height = 40.0 + 26.0 * items.len() as f64;
    let max = items
        .iter()
        .map(|(_, v)| *v)
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let (left, width) = (170.0, 560.0);
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img"><title>{t}</title><text x="4" y="14" class="ttl">{t}</text>"#,
        t = escape(title)
    );
    for (i, (label, v)) in items.iter().enumerate() {
        let y = 26.0 + 26.0 * i as f64;
        let w = (v.max(0.0) / max) * (width - left - 90.0);
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="lbl" text-anchor="end">{}</text><rect class="bar" x="{left}" y="{y:.1}" width="{w:.1}" height="16"/><text x="{:.1}" y="{:.1}" class="tick">{}</text>"#,
            left - 6.0,
            y + 12.0,
            escape(label),
            left + w + 4.0,
            y + 12.0,
            if *v < 0.0 {
                "≤ 0 (none)".to_string()
            } else {
                format!(
                    "{:.1} %",
                    v / items
                        .iter()
                        .map(|(_, v)| v.max(0.0))
                        .sum::<f64>()
                        .max(f64::MIN_POSITIVE)
                        * 100.0
                )
            }
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_are_well_formed_svg() {
        let s = run_sequence("r", "ns", &[1.0, 2.0, 3.0, 2.0], 1, &[2]);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert_eq!(s.matches("<circle").count(), 4);
        assert_eq!(s.matches(r#"class="cp""#).count(), 1);
        let l = lag_plot("lag 2", &[1.0, 2.0, 3.0, 4.0, 5.0], 2);
        assert_eq!(l.matches("<circle").count(), 3);
        let a = acf_plot("acf", &[0.5, 0.1, -0.2], 0.3);
        assert_eq!(a.matches(r#"class="acf""#).count(), 3);
        let e = escape("<a&b>");
        assert_eq!(e, "&lt;a&amp;b&gt;");
    }

    #[test]
    fn constant_data_does_not_divide_by_zero() {
        let s = run_sequence("r", "count", &[5.0, 5.0, 5.0], 0, &[]);
        assert!(!s.contains("NaN") && !s.contains("inf"), "{s}");
        let b = strip_plot(
            "s",
            "count",
            &[StripGroup {
                label: "x".into(),
                points: vec![1.0],
                box_summary: BoxSummary::of(&[1.0]),
                highlight: true,
            }],
        );
        assert!(!b.contains("NaN"), "{b}");
    }
}
