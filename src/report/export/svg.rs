//! Small inline-SVG plots for the HTML report: no JavaScript, no network, no library.
//!
//! Each function returns one `<svg>` element. Coordinates are computed here; styling comes
//! from the page's CSS classes (`axis`, `pt`, `base`, `line`, `cp`, `bar`, `band`).

use std::fmt::Write;

use crate::analysis::answers::plot_data::{BoxSummary, StripGroup};
use crate::report::numfmt::sig;

/// Escapes text for HTML and SVG (one escaping for the page and its plots).
pub use crate::report::document::html::escape;

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
    /// A frame whose y range is widened to whole tick steps ([`nice_ticks`]) and whose left
    /// margin fits the longest tick label, so that the y label never overlaps the ticks.
    pub(super) fn new(width: f64, height: f64, x: (f64, f64), y: (f64, f64)) -> Frame {
        let (lo, hi) = widen(y);
        let (ticks, step) = nice_ticks(lo, hi);
        let y = match (ticks.first(), ticks.last()) {
            (Some(&first), Some(&last)) => (lo.min(first), hi.max(last)),
            _ => (lo, hi),
        };
        let longest = ticks
            .iter()
            .map(|&v| tick_label(v, step).chars().count())
            .max()
            .unwrap_or(1);
        Frame {
            width,
            height,
            left: (22.0 + TICK_CHAR_WIDTH * longest as f64).max(40.0),
            right: 10.0,
            top: 22.0,
            bottom: 30.0,
            x: widen(x),
            y,
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

    /// Opens the `<svg>`, draws the title (on two lines when one would be clipped: the
    /// frame then grows by a line), axes, y ticks at round values and the x label.
    pub(super) fn open(&mut self, out: &mut String, title: &str, x_label: &str, y_label: &str) {
        let lines = title_lines(title, self.width - 2.0 * TITLE_X);
        let extra = TITLE_LINE_HEIGHT * (lines.len().saturating_sub(1)) as f64;
        self.top += extra;
        self.height += extra;
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img"><title>{t}</title>"#,
            w = self.width,
            h = self.height,
            t = escape(title)
        );
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                out,
                r#"<text x="{TITLE_X}" y="{:.1}" class="ttl">{}</text>"#,
                14.0 + TITLE_LINE_HEIGHT * k as f64,
                escape(line)
            );
        }
        let (x0, x1) = (self.left, self.width - self.right);
        let (y0, y1) = (self.height - self.bottom, self.top);
        let _ = write!(
            out,
            r#"<path class="axis" d="M{x0:.1},{y1:.1}V{y0:.1}H{x1:.1}"/>"#
        );
        let (ticks, step) = nice_ticks(self.y.0, self.y.1);
        for v in ticks {
            let py = self.py(v);
            let _ = write!(
                out,
                r#"<path class="grid" d="M{x0:.1},{py:.1}H{x1:.1}"/><text x="{:.1}" y="{:.1}" class="tick" text-anchor="end">{}</text>"#,
                x0 - 4.0,
                py + 3.0,
                tick_label(v, step)
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
            r#"<text x="10" y="{:.1}" class="lbl" text-anchor="middle" transform="rotate(-90 10 {:.1})">{}</text>"#,
            (y0 + y1) / 2.0,
            (y0 + y1) / 2.0,
            escape(y_label)
        );
    }
}

/// Where a plot's title starts, in pixels from the left edge.
const TITLE_X: f64 = 4.0;
/// Vertical distance between a wrapped title's lines.
const TITLE_LINE_HEIGHT: f64 = 13.0;
/// Approximate advance of one character of the 11 px bold title font (wider than the
/// average, so that an estimate errs towards wrapping, never towards clipping).
const TITLE_CHAR_WIDTH: f64 = 6.6;
/// Approximate advance of one character of the 9 px tick font.
const TICK_CHAR_WIDTH: f64 = 5.6;

/// The title split at spaces into lines that fit `width` pixels (at most two; a second
/// line that still does not fit is shortened with an ellipsis, the full title staying in
/// the SVG's `<title>` tooltip).
fn title_lines(title: &str, width: f64) -> Vec<String> {
    let fits = |s: &str| s.chars().count() as f64 * TITLE_CHAR_WIDTH <= width;
    if fits(title) {
        return vec![title.to_string()];
    }
    let mut first = String::new();
    let mut words = title.split(' ').peekable();
    while let Some(&w) = words.peek() {
        let candidate = if first.is_empty() {
            w.to_string()
        } else {
            format!("{first} {w}")
        };
        if !first.is_empty() && !fits(&candidate) {
            break;
        }
        first = candidate;
        words.next();
    }
    let mut second: String = words.collect::<Vec<_>>().join(" ");
    if !fits(&second) {
        let keep = ((width / TITLE_CHAR_WIDTH) as usize).saturating_sub(1);
        second = second.chars().take(keep).collect::<String>() + "…";
    }
    if second.is_empty() {
        vec![first]
    } else {
        vec![first, second]
    }
}

/// Tick values at a round step (1, 2 or 5 times a power of ten) covering `lo..hi` with
/// about five ticks, and the step. The first and last tick may lie just outside the range
/// ([`Frame::new`] widens the range to them).
pub(super) fn nice_ticks(lo: f64, hi: f64) -> (Vec<f64>, f64) {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return (vec![lo], 1.0);
    }
    let rough = (hi - lo) / 5.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= rough)
        .unwrap_or(10.0 * power);
    let first = (lo / step).floor();
    let last = (hi / step).ceil();
    let ticks = (0..=((last - first) as i64).min(20))
        .map(|k| (first + k as f64) * step)
        // -0.0 prints as "-0".
        .map(|v| if v.abs() < step * 1e-9 { 0.0 } else { v })
        .collect();
    (ticks, step)
}

/// A tick value with the decimals its step needs and no more (no floating noise such as
/// 0.30000000000000004, no 64.95 beside 51.66), in exponent form when very large or small.
pub(super) fn tick_label(v: f64, step: f64) -> String {
    let magnitude = v.abs().max(step).log10().floor();
    if !(-4.0..=9.0).contains(&magnitude) {
        return sig(v, 3);
    }
    let decimals =
        (-(step.log10().floor()) + if is_half_step(step) { 1.0 } else { 0.0 }).max(0.0) as usize;
    // Thousands separated as in the text (issue 55: axes printed "1000000000").
    crate::report::numfmt::fixed(v, decimals)
}

/// Whether the step is 2.5 times a power of ten, whose ticks need one more decimal.
fn is_half_step(step: f64) -> bool {
    let mantissa = step / 10f64.powf(step.log10().floor());
    (mantissa - 2.5).abs() < 1e-9
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
pub(crate) fn strip_plot(title: &str, y_label: &str, groups: &[StripGroup]) -> String {
    let extremes: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.box_summary.iter().flat_map(|b| [b.low, b.high]))
        .collect();
    let all = groups
        .iter()
        .flat_map(|g| g.points.iter())
        .chain(extremes.iter());
    let width = (90.0 + 18.0 * groups.len() as f64).clamp(480.0, 1100.0);
    let mut f = Frame::new(width, 260.0, (-0.5, groups.len() as f64 - 0.5), range(all));
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
pub(crate) fn run_sequence(
    title: &str,
    x_label: &str,
    y_label: &str,
    values: &[f64],
    shaded: usize,
    marks: &[usize],
) -> String {
    let mut f = Frame::new(
        360.0,
        200.0,
        (0.0, values.len().saturating_sub(1).max(1) as f64),
        range(values.iter()),
    );
    let mut out = String::new();
    f.open(&mut out, title, x_label, y_label);
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
pub(crate) fn lag_plot(title: &str, values: &[f64], lag: usize) -> String {
    let r = range(values.iter());
    let mut f = Frame::new(170.0, 170.0, r, r);
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
pub(crate) fn acf_plot(title: &str, acf: &[f64], bound: f64) -> String {
    let mut f = Frame::new(260.0, 170.0, (0.5, acf.len() as f64 + 0.5), (-1.0, 1.0));
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
pub(crate) fn bars(title: &str, items: &[(String, f64)]) -> String {
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
        let s = run_sequence("r", "iteration", "ns", &[1.0, 2.0, 3.0, 2.0], 1, &[2]);
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
        let s = run_sequence("r", "iteration", "count", &[5.0, 5.0, 5.0], 0, &[]);
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

    /// The tick labels of a plot: every `class="tick"` text.
    fn tick_texts(svg: &str) -> Vec<String> {
        svg.split(r#"class="tick" text-anchor="end">"#)
            .skip(1)
            .map(|rest| rest[..rest.find('<').unwrap()].to_string())
            .collect()
    }

    #[test]
    fn ticks_are_round_values_with_the_digits_their_step_needs() {
        // The demo's run-order plot printed 13.93, 14.87, 15.81, 16.76, 17.70.
        let (ticks, step) = nice_ticks(13.7, 17.9);
        assert_eq!(step, 1.0);
        assert_eq!(ticks, vec![13.0, 14.0, 15.0, 16.0, 17.0, 18.0]);
        let (ticks, step) = nice_ticks(0.1, 0.9);
        assert_eq!(step, 0.2);
        let labels: Vec<String> = ticks.iter().map(|&v| tick_label(v, step)).collect();
        assert_eq!(labels, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        let (ticks, step) = nice_ticks(-1.0, 1.0);
        assert_eq!(step, 0.5);
        assert!(ticks.contains(&0.0) && !ticks.iter().any(|v| v.is_sign_negative() && *v == 0.0));
        let (_, step) = nice_ticks(0.0, 12.5);
        assert_eq!((step, tick_label(7.5, step)), (2.5, "7.5".to_string()));
        // Large counts keep their digits, grouped by thousands; a constant range still has a
        // tick.
        assert_eq!(tick_label(106_456_000.0, 1_000_000.0), "106,456,000");
        assert_eq!(tick_label(-2500.0, 500.0), "-2,500");
        assert_eq!(nice_ticks(5.0, 5.0).0.len(), 1);
        // Every label of a plot is distinct and none carries floating noise.
        let s = run_sequence("r", "iteration", "ms", &[64.9512, 51.6634, 58.2], 0, &[]);
        let labels = tick_texts(&s);
        assert!(labels.len() >= 3, "{labels:?}");
        for l in &labels {
            let v: f64 = l.parse().unwrap();
            assert_eq!(v % 5.0, 0.0, "{labels:?}");
        }
    }

    #[test]
    fn a_long_title_wraps_onto_a_second_line_instead_of_being_clipped() {
        let title = "baseline execution 0 — changepoint suggests a longer warmup";
        let short = run_sequence("seed-1 execution 0", "iteration", "ms", &[1.0, 2.0], 0, &[]);
        let long = run_sequence(title, "iteration", "ms", &[1.0, 2.0], 0, &[]);
        assert_eq!(short.matches(r#"class="ttl""#).count(), 1);
        assert_eq!(long.matches(r#"class="ttl""#).count(), 2);
        assert!(long.contains(r#"height="213""#), "{long}");
        // Both lines together hold the whole title.
        let lines = title_lines(title, 360.0 - 2.0 * TITLE_X);
        assert_eq!(lines.join(" "), title);
        for l in &lines {
            assert!(l.chars().count() as f64 * TITLE_CHAR_WIDTH <= 352.0, "{l}");
        }
    }
}
