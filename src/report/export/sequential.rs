//! Rendering of `report --sequential` (the numbers come from
//! [`crate::analysis::sequential`]): a few lines for the text report and a plot of the
//! confidence sequence narrowing with the binaries, the stopping point marked, for HTML.

use std::fmt::Write;

use super::svg::{range, Frame};
use crate::analysis::answers::model::Report;
use crate::analysis::sequential::{Sequential, LAI_CALIBRATED, REPEATED_T};
use crate::report::numfmt::level;
use crate::report::words;

/// The heading of the section.
pub(crate) const SEQUENTIAL_TITLE: &str = "Sequential (intervals valid at every look)";

/// One line per series and per comparison with a sequential answer; empty without
/// `--sequential`.
pub(crate) fn sequential_lines(report: &Report) -> Vec<String> {
    let series = report.series.iter().filter_map(|s| {
        let q = s.sequential.as_ref()?;
        let name =
            crate::analysis::answers::series::program_label(&s.program, s.variant.as_deref());
        Some(format!(
            "{name} {}: {}",
            s.metric,
            words::sequential::words(q)
        ))
    });
    let pairs = report.comparisons.iter().filter_map(|c| {
        let q = c.sequential.as_ref()?;
        Some(format!(
            "{} {}: {} against {}: {}",
            c.program,
            c.metric,
            c.new,
            c.base,
            words::sequential::words(q)
        ))
    });
    series.chain(pairs).collect()
}

/// What a reader must know to read the lines: the level holds at every look at once.
pub(crate) fn sequential_note(report: &Report) -> String {
    // The method and horizon are the experiment's (one per report): any sequential answer
    // carries them.
    let first = report
        .series
        .iter()
        .filter_map(|s| s.sequential.as_ref())
        .chain(
            report
                .comparisons
                .iter()
                .filter_map(|c| c.sequential.as_ref()),
        )
        .next();
    let confidence = level(report.confidence);
    let family = match first.map(|q| (q.method, q.horizon)) {
        Some((REPEATED_T, Some(h))) => format!(
            "{confidence} repeated t intervals (over looks 5 to the maximum of {h} binaries fixed in advance) hold at every one of those looks at once"
        ),
        Some((LAI_CALIBRATED, Some(h))) => format!(
            "{confidence} confidence sequence (Lai's t-mixture, its level calibrated to hold also when a few layouts are much slower, over looks 5 to the maximum of {h} binaries fixed in advance) holds at every one of those looks at once"
        ),
        Some((LAI_CALIBRATED, None)) => format!(
            "{confidence} confidence sequence (Lai's t-mixture, its level calibrated to hold also when a few layouts are much slower) holds at every look at once"
        ),
        _ => format!("{confidence} confidence sequence holds at every look at once"),
    };
    format!(
        "Each binary was looked at in seed order from the fifth; the {family}, so stopping when it first looks good keeps its level (a fixed interval would not). Means are geometric (of the binaries' means, or of the per-seed ratios)."
    )
}

/// The sequence's interval against the binaries seen: a band from lower to upper, the
/// estimate as a line, the stop as a vertical line; for a ratio (`reference` = 1) a dashed
/// line at no change.
pub(crate) fn sequence_plot(
    title: &str,
    y_label: &str,
    q: &Sequential,
    reference: Option<f64>,
) -> String {
    let bounded: Vec<_> = q
        .sequence
        .iter()
        .filter_map(|l| {
            l.ci.map(|c| (l.binaries as f64, l.estimate, c.lower, c.upper))
        })
        .collect();
    let mut out = String::new();
    let Some(first) = bounded.first() else {
        return out;
    };
    let ys: Vec<f64> = bounded
        .iter()
        .flat_map(|b| [b.2, b.3])
        .chain(reference)
        .collect();
    let last = bounded.last().map_or(first.0, |b| b.0);
    let mut f = Frame::new(460.0, 240.0, (first.0, last), range(ys.iter()));
    f.open(&mut out, title, "binaries seen", y_label);
    let upper: Vec<String> = bounded
        .iter()
        .map(|b| format!("{:.1},{:.1}", f.px(b.0), f.py(b.3)))
        .collect();
    let lower: Vec<String> = bounded
        .iter()
        .rev()
        .map(|b| format!("{:.1},{:.1}", f.px(b.0), f.py(b.2)))
        .collect();
    let _ = write!(
        out,
        r#"<polygon class="band" points="{} {}"/>"#,
        upper.join(" "),
        lower.join(" ")
    );
    let estimate: Vec<String> = bounded
        .iter()
        .map(|b| format!("{:.1},{:.1}", f.px(b.0), f.py(b.1)))
        .collect();
    let _ = write!(
        out,
        r#"<polyline class="line" points="{}"/>"#,
        estimate.join(" ")
    );
    if let Some(r) = reference {
        let _ = write!(
            out,
            r#"<path class="nochange" d="M{:.1},{:.1}H{:.1}"/>"#,
            f.left,
            f.py(r),
            f.width - f.right
        );
    }
    let x = f.px(q.stopped_at as f64);
    let _ = write!(
        out,
        r#"<path class="cp" d="M{x:.1},{:.1}V{:.1}"/><text x="{:.1}" y="{:.1}" class="tick">stopped at {}</text>"#,
        f.top,
        f.height - f.bottom,
        x + 3.0,
        f.top + 10.0,
        q.stopped_at
    );
    // The frame draws no x ticks: the first and last looks name the axis's ends.
    for (b, anchor) in [(first.0, "start"), (last, "end")] {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="{anchor}">{b}</text>"#,
            f.px(b),
            f.height - f.bottom + 11.0
        );
    }
    out.push_str("</svg>");
    out
}
