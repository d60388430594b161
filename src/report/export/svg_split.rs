//! The figure of the variance split (issue 35) for the HTML report: one bar stacked from
//! the components' shares (code, data, their interaction, run noise, in the model's order),
//! and under it a row per component with its share as a dot and its interval as a whisker,
//! on the same 0–100 % scale. Colours are set on the shapes, so the page's style sheet is
//! unchanged.

use std::fmt::Write;

use super::svg::escape;
use crate::analysis::answers::data_split::DataSplit;
use crate::stats::variance_split::Component;

/// Width of the drawing, the left margin holding the row labels, the right margin.
const WIDTH: f64 = 640.0;
const LEFT: f64 = 200.0;
const RIGHT: f64 = 20.0;

/// A component's colour and short label.
fn style(component: Component) -> (&'static str, &'static str) {
    match component {
        Component::Code => ("#2f6db5", "code"),
        Component::Data => ("#e07b00", "data"),
        Component::CodeXData => ("#7a4fa3", "code × data"),
        Component::Machine => ("#3c8d5a", "machine"),
        Component::Run => ("#9aa5b4", "run noise"),
    }
}

/// The figure of `split` (`None` when it has no components: "cannot tell").
pub(crate) fn split_figure(title: &str, split: &DataSplit) -> Option<String> {
    let parts = split.parts();
    if parts.is_empty() {
        return None;
    }
    let x = |share: f64| LEFT + share.clamp(0.0, 1.0) * (WIDTH - LEFT - RIGHT);
    let height = 78.0 + 22.0 * parts.len() as f64;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img"><title>{t}</title><text x="4" y="14" class="ttl">{t}</text>"#,
        t = escape(title)
    );
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="40" class="lbl" text-anchor="end">all executions</text>"#,
        LEFT - 6.0
    );
    let mut start = 0.0;
    for (component, s) in &parts {
        let (colour, label) = style(*component);
        let _ = write!(
            out,
            r#"<rect x="{:.1}" y="26" width="{:.1}" height="20" fill="{colour}"><title>{label}: {:.1} %</title></rect>"#,
            x(start),
            x(start + s.share) - x(start),
            100.0 * s.share
        );
        start += s.share;
    }
    for (k, (component, s)) in parts.iter().enumerate() {
        let (colour, label) = style(*component);
        let y = 66.0 + 22.0 * k as f64;
        // The share's words right of the whisker, unless that runs past the drawing's edge:
        // then left of it, or above the dot when the whisker spans nearly the whole axis.
        let (text_x, anchor, text_y) = if s.interval.upper <= 0.75 {
            (x(s.interval.upper) + 6.0, "start", y + 3.0)
        } else if s.interval.lower >= 0.3 {
            (x(s.interval.lower) - 6.0, "end", y + 3.0)
        } else {
            (x(s.share), "middle", y - 7.0)
        };
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="lbl" text-anchor="end">{label}</text><path d="M{:.1},{y:.1}H{:.1}M{:.1},{:.1}V{:.1}M{:.1},{:.1}V{:.1}" stroke="{colour}" stroke-width="1.5" fill="none"/><circle cx="{:.1}" cy="{y:.1}" r="3.5" fill="{colour}"/><text x="{text_x:.1}" y="{text_y:.1}" class="tick" text-anchor="{anchor}">{:.0} % ({:.0}–{:.0} %)</text>"#,
            LEFT - 6.0,
            y + 3.0,
            x(s.interval.lower),
            x(s.interval.upper),
            x(s.interval.lower),
            y - 4.0,
            y + 4.0,
            x(s.interval.upper),
            y - 4.0,
            y + 4.0,
            x(s.share),
            100.0 * s.share,
            100.0 * s.interval.lower,
            100.0 * s.interval.upper
        );
    }
    let axis_y = height - 14.0;
    let _ = write!(
        out,
        r#"<path class="axis" d="M{:.1},{:.1}H{:.1}"/>"#,
        x(0.0),
        axis_y - 8.0,
        x(1.0)
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{axis_y:.1}" class="tick" text-anchor="middle">{:.0} %</text>"#,
            x(tick),
            100.0 * tick
        );
    }
    out.push_str("</svg>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::data_split::{AxisShare, SplitCannotTell};
    use crate::stats::interval::Interval;

    fn share(share: f64, lower: f64, upper: f64) -> Option<AxisShare> {
        Some(AxisShare {
            share,
            interval: Interval { lower, upper },
            variation: 0.01,
            test: None,
            verdict: None,
        })
    }

    fn split() -> DataSplit {
        DataSplit {
            code_seeds: 10,
            data_seeds: 4,
            executions_per_cell: 3,
            executions_left_out: 0,
            executions_set_aside: 0,
            confidence: 0.95,
            cannot_tell: None,
            code: share(0.04, 0.0, 0.12),
            data: share(0.61, 0.45, 0.75),
            code_x_data: share(0.0, 0.0, 0.05),
            machine: None,
            run: share(0.35, 0.26, 0.47),
            machines_in_run: None,
        }
    }

    #[test]
    fn the_bar_is_stacked_to_the_whole_width_with_a_whisker_per_component() {
        let svg = split_figure("t", &split()).unwrap();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<rect").count(), 4);
        assert_eq!(svg.matches("<circle").count(), 4);
        // The last segment ends at the right edge of the scale: the shares sum to 1.
        let width = WIDTH - LEFT - RIGHT;
        let run_start = LEFT + 0.65 * width;
        assert!(svg.contains(&format!(
            r#"x="{run_start:.1}" y="26" width="{:.1}""#,
            0.35 * width
        )));
        assert!(svg.contains("61 % (45–75 %)"), "{svg}");
    }

    /// A share whose interval reaches the right of the axis has its words left of the
    /// whisker, or above the dot when the whisker spans nearly the whole axis: never past
    /// the drawing's right edge (the glance's "85 % (51–100 %)" was cut at "85 %").
    #[test]
    fn the_words_of_a_share_near_the_right_edge_stay_inside_the_drawing() {
        let mut s = split();
        s.data = share(0.85, 0.51, 1.0);
        s.run = share(0.15, 0.1, 0.9);
        let svg = split_figure("t", &s).unwrap();
        let width = WIDTH - LEFT - RIGHT;
        let data = format!(
            r#"x="{:.1}" y="{:.1}" class="tick" text-anchor="end">85 % (51–100 %)"#,
            LEFT + 0.51 * width - 6.0,
            66.0 + 22.0 + 3.0
        );
        assert!(svg.contains(&data), "{svg}");
        let run = format!(
            r#"x="{:.1}" y="{:.1}" class="tick" text-anchor="middle">15 % (10–90 %)"#,
            LEFT + 0.15 * width,
            66.0 + 3.0 * 22.0 - 7.0
        );
        assert!(svg.contains(&run), "{svg}");
    }

    #[test]
    fn a_split_that_cannot_tell_has_no_figure() {
        let mut s = split();
        s.cannot_tell = Some(SplitCannotTell::OneBinary);
        (s.code, s.data, s.code_x_data, s.run) = (None, None, None, None);
        assert_eq!(split_figure("t", &s), None);
    }
}
