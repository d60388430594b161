//! Bencher Metric Format (BMF): the JSON that Bencher's `json` adapter reads
//! (`bencher run --adapter json --file report.bmf.json`), for continuous benchmarking.
//!
//! The format is an object of benchmarks, each an object of measures, each
//! `{"value": v, "lower_value": l, "upper_value": u}` (the bounds optional). Per program (and
//! variant) and metric this writes:
//!
//! - `METRIC`: the mean over random layouts, with its confidence interval (KJ eq. 4; the
//!   bounds left out when the report withholds the interval);
//! - `METRIC-layout-variation-percent`: how much the mean varies from one layout to another
//!   (the layout's own relative standard deviation, in %: Kalibera & Jones eq. 2 at the
//!   binary level, floored at 0), without bounds (none is computed for it) — the layout
//!   sensitivity as a number a dashboard can plot;
//! - `METRIC-binary-spread-percent`: the relative standard deviation of the binaries' means
//!   (in %, execution noise included), with its chi-square interval;
//! - `METRIC-default-layout-shift-percent`: the default layout's mean relative to the mean over
//!   random layouts, minus 1, in %, with its Fieller interval;
//! - with variants, under each non-base variant's benchmark, `METRIC-vs-BASE-percent`: its
//!   mean relative to the base variant's, minus 1, in %, with the interval the report's
//!   verdict rests on (paired by seed when the seeds match) — negative is lower (faster).
//!
//! Measure slugs are the metric's name in kebab case (Bencher's slugs: at most 64 characters);
//! values are in the series' unit (docs/report.md). Nothing is computed here: every number is
//! the report's.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;

use super::Exporter;
use crate::analysis::answers::model::{Interval, Report, SeriesReport};

/// BMF JSON.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BmfExporter;

/// One measure's metric.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BmfMetric {
    /// The value.
    pub(crate) value: f64,
    /// Lower end of its interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lower_value: Option<f64>,
    /// Upper end of its interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) upper_value: Option<f64>,
}

impl BmfMetric {
    /// JSON has no NaN or infinity.
    fn is_finite(&self) -> bool {
        [Some(self.value), self.lower_value, self.upper_value]
            .into_iter()
            .flatten()
            .all(f64::is_finite)
    }

    fn new(value: f64, interval: Option<Interval>, scale: impl Fn(f64) -> f64) -> BmfMetric {
        BmfMetric {
            value: scale(value),
            lower_value: interval.map(|i| scale(i.lower)),
            upper_value: interval.map(|i| scale(i.upper)),
        }
    }
}

/// Benchmark name → measure slug → metric.
pub type Bmf = BTreeMap<String, BTreeMap<String, BmfMetric>>;

/// The benchmark a series reports on: the program, with its variant in brackets.
pub(crate) fn benchmark_name(program: &str, variant: Option<&str>) -> String {
    match variant {
        Some(v) => format!("{program} [{v}]"),
        None => program.to_string(),
    }
}

/// A metric's name as a Bencher measure slug: lowercase, `_` and other separators as `-`.
pub(crate) fn measure_slug(metric: &str) -> String {
    let mut slug = String::new();
    for c in metric.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

/// The measures of one series (only finite values: JSON has no NaN).
fn series_measures(s: &SeriesReport) -> Vec<(String, BmfMetric)> {
    let metric = measure_slug(&s.metric);
    let percent = |x: f64| x * 100.0;
    let mut out = vec![(metric.clone(), BmfMetric::new(s.mean, s.ci, |x| x))];
    // The layout's own share has no interval of its own: the chi-square interval is of the
    // binaries' spread, execution noise included, a larger quantity. Each is written with
    // its own value, so that every measure's value lies within its bounds.
    if let Some(variation) = s.sensitivity.layout_variation {
        out.push((
            format!("{metric}-layout-variation-percent"),
            BmfMetric::new(variation, None, percent),
        ));
    }
    if let Some(spread) = s.sensitivity.cv_across_binaries {
        out.push((
            format!("{metric}-binary-spread-percent"),
            BmfMetric::new(spread, s.sensitivity.cv_across_binaries_ci, percent),
        ));
    }
    if let Some(ratio) = s.shift.ratio {
        out.push((
            format!("{metric}-default-layout-shift-percent"),
            BmfMetric::new(ratio, s.shift.ci, |x| percent(x - 1.0)),
        ));
    }
    out.retain(|(_, m)| m.is_finite());
    out
}

/// The whole BMF object of a report.
pub(crate) fn bmf(report: &Report) -> Bmf {
    let mut out = Bmf::new();
    for s in &report.series {
        let measures = out
            .entry(benchmark_name(&s.program, s.variant.as_deref()))
            .or_default();
        measures.extend(series_measures(s));
    }
    for c in &report.comparisons {
        let effect = &c.pair.effect;
        let metric = BmfMetric::new(effect.ratio, effect.ci, |x| (x - 1.0) * 100.0);
        if metric.is_finite() {
            let slug = format!(
                "{}-vs-{}-percent",
                measure_slug(&c.metric),
                measure_slug(&c.base)
            );
            out.entry(benchmark_name(&c.program, Some(&c.new)))
                .or_default()
                .insert(slug, metric);
        }
    }
    out
}

impl Exporter for BmfExporter {
    fn export(&self, report: &Report) -> Result<String> {
        if let Some(i) = report.incomplete {
            anyhow::bail!("{}", crate::report::words::incomplete::bmf_refusal(&i));
        }
        let mut s = serde_json::to_string_pretty(&bmf(report))?;
        s.push('\n');
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_slugs_are_kebab_case() {
        assert_eq!(measure_slug("wall"), "wall");
        assert_eq!(measure_slug("I1_misses"), "i1-misses");
        assert_eq!(measure_slug("estimated_cycles"), "estimated-cycles");
        assert_eq!(measure_slug("max_rss"), "max-rss");
        assert_eq!(measure_slug("__odd  name__"), "odd-name");
    }
}
