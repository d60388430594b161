//! Which data each plot of one variant comparison shows: the matched binaries' means that
//! the engine analysed (`PairComparison::pair.binaries`), never a re-computation here, and the
//! pair's intervals in the text report's words ([`super::tables::ratio_interval`]).

use super::svg_variants::{
    interaction_plot, paired_plot, ratio_intervals, IntervalRow, Pair, VariantLine,
};
use super::tables::ratio_interval;
use crate::analysis::answers::model::{Report, SeriesReport};
use crate::analysis::effect::Interval;
use crate::analysis::variants::{Basis, PairComparison};
use crate::report::numfmt::{level, Scale};

/// The plots of one comparison, as SVG strings.
#[derive(Debug, Clone)]
pub(crate) struct ComparisonPlots {
    /// One line per matched binary from the base's mean to the new variant's.
    pub(crate) paired: String,
    /// The ratio intervals with the no-change line and the negligible band.
    pub(crate) intervals: String,
    /// Each variant's mean per binary, binaries sorted by the base's mean.
    pub(crate) interaction: String,
}

/// `seed-3` → `3` (the x tick labels); other labels as they are.
fn short_label(binary: &str) -> String {
    binary.strip_prefix("seed-").unwrap_or(binary).to_string()
}

/// The series of `c`'s base variant in the report: its section's unit is the plots'.
fn base_series<'a>(report: &'a Report, c: &PairComparison) -> Option<&'a SeriesReport> {
    report.series.iter().find(|s| {
        s.program == c.program
            && s.metric == c.metric
            && s.variant.as_deref() == Some(c.base.as_str())
    })
}

/// The rows of the ratio-interval plot: eq. 5, paired by seed and bootstrap, whichever the
/// comparison has; the verdict's basis bold.
fn interval_rows(c: &PairComparison) -> Vec<IntervalRow> {
    let row = |label: &str, estimate: f64, ci: Option<Interval>, basis: bool| IntervalRow {
        label: label.to_string(),
        estimate,
        ci: ci.map(|i| (i.lower, i.upper)),
        ci_text: ratio_interval(ci),
        basis,
    };
    let mut rows = vec![row(
        "eq. 5 (Fieller)",
        c.pair.ratio,
        c.pair.ci,
        c.pair.basis == Basis::Fieller,
    )];
    if let Some(p) = &c.pair.paired {
        rows.push(row(
            "paired by seed",
            p.ratio,
            p.ci,
            c.pair.basis == Basis::Paired,
        ));
    }
    if let Some(b) = &c.pair.bootstrap {
        rows.push(row("bootstrap", c.pair.ratio, Some(b.ci), false));
    }
    rows
}

/// The three plots of comparison `c` of `report`.
pub(crate) fn comparison_plots(report: &Report, c: &PairComparison) -> ComparisonPlots {
    // The unit of the base variant's section (its title and text), not one chosen from the
    // plotted values; values as they are without that section.
    let Scale { factor, name: unit } =
        base_series(report, c).map_or_else(|| Scale::for_values("", 1.0), SeriesReport::scale);
    let y_label = if unit.is_empty() {
        c.metric.clone()
    } else {
        format!("{} ({unit})", c.metric)
    };
    let pairs: Vec<Pair> = c
        .pair
        .binaries
        .iter()
        .map(|b| Pair {
            label: short_label(&b.binary),
            base: b.base / factor,
            new: b.new / factor,
        })
        .collect();
    let paired = paired_plot(
        &format!("One line per seed: {} → {}", c.base, c.new),
        &y_label,
        &c.base,
        &c.new,
        &pairs,
    );
    let intervals = ratio_intervals(
        &format!(
            "Ratio {}/{}: {} intervals (bold: the verdict's)",
            c.new,
            c.base,
            level(super::tables::pair_confidence(c, report.confidence))
        ),
        &format!(
            "{}/{} (dashed line: no change; band: within ± the negligible threshold)",
            c.new, c.base
        ),
        &interval_rows(c),
        report.negligible,
    );
    // Binaries ordered by the base's mean: the base's line rises steadily, and the new
    // variant's shows whether the change keeps its size across layouts.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&a, &b| pairs[a].base.total_cmp(&pairs[b].base));
    let interaction = interaction_plot(
        &format!("Mean per seed, seeds by {}'s mean", c.base),
        "seed",
        &y_label,
        &order
            .iter()
            .map(|&i| pairs[i].label.clone())
            .collect::<Vec<_>>(),
        &[
            VariantLine {
                name: c.base.clone(),
                means: order.iter().map(|&i| pairs[i].base).collect(),
            },
            VariantLine {
                name: c.new.clone(),
                means: order.iter().map(|&i| pairs[i].new).collect(),
            },
        ],
    );
    ComparisonPlots {
        paired,
        intervals,
        interaction,
    }
}
