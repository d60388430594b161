//! The binary the user's build made (`as-built`) placed among the random layouts: the two
//! questions [`super::shift`] answers for the default layout (its shift from the random
//! layouts' mean, Kalibera & Jones 2013 eq. 5; its place among them, a prediction interval),
//! asked of the build's own binary, with what `build` found the baseline differs from it in.
//! It is a fixed layout: never pooled into the random layouts' sample.

use crate::analysis::numfmt::{change_parts, percent};
use crate::analysis::vocabulary::Thresholds;
use crate::files::manifest::{Manifest, AS_BUILT_LABEL};
use crate::stats::sample::MeanInterval;

use super::builder::{baseline_interval, baseline_summary};
use super::model::{AsBuilt, SeriesReport, Verdict};
use super::series::Series;
use super::shift::{placement_of, shift_of, Fixed};

/// The as-built answer of `series`, `None` when it has no as-built data. `random` is the
/// random layouts' mean interval with the engine's note when it has none.
pub fn as_built(
    series: &Series,
    random: (Option<&MeanInterval>, Option<&str>),
    thresholds: &Thresholds,
) -> Option<AsBuilt> {
    let b = series.as_built.as_ref()?;
    let ci = baseline_interval(b, thresholds.confidence);
    let fixed = Fixed::as_built(series);
    let mut answer = AsBuilt {
        binary: baseline_summary(b, ci.as_ref()),
        shift: shift_of(series, &fixed, random, ci.as_ref(), thresholds),
        placement: placement_of(series, &fixed, thresholds),
        versus_baseline: None,
        text: String::new(),
    };
    answer.text = sentence(&answer, series.is_time(), thresholds);
    Some(answer)
}

/// The answer in one sentence: where its mean lies among the random layouts' means, how far
/// from their mean (with the Fieller interval), and the verdict of the placement.
fn sentence(a: &AsBuilt, is_time: bool, thresholds: &Thresholds) -> String {
    let (better, worse) = if is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let p = &a.placement;
    let Some(percentile) = p.percentile else {
        return format!("The binary your build made (as built): {}", p.text);
    };
    let shift = match (a.shift.ratio, a.shift.ci) {
        (Some(ratio), Some(ci)) => {
            let (how, interval) = change_parts(
                ratio,
                ci.lower,
                ci.upper,
                thresholds.confidence,
                better,
                worse,
            );
            format!("it is {how} than the mean over random layouts ({interval})")
        }
        _ => format!(
            "its distance from the mean over random layouts: {}",
            a.shift.text
        ),
    };
    let verdict = match p.verdict {
        Verdict::Detected => "unusual among random layouts, so results on it alone are biased",
        Verdict::Negligible => "unusual, but negligibly so",
        Verdict::NotDetected => "an ordinary layout",
        Verdict::Undetermined => "cannot tell whether it is unusual",
    };
    format!(
        "The binary your build made (as built) is {verdict}: {} of the random layouts' means are below its; {shift}.",
        percent(percentile, 2)
    )
}

/// Fills each series' [`AsBuilt::versus_baseline`] from the manifest (the variant's build for
/// a variant's series).
pub fn attach_versus_baseline(series: &mut [SeriesReport], manifest: Option<&Manifest>) {
    let Some(m) = manifest else { return };
    for s in series {
        let Some(a) = s.as_built.as_mut() else {
            continue;
        };
        let build = m
            .variant_builds()
            .into_iter()
            .find(|(name, _)| *name == s.variant.as_deref())
            .map(|(_, b)| b);
        a.versus_baseline = build
            .and_then(|b| b.as_built.as_ref())
            .filter(|set| set.label() == AS_BUILT_LABEL)
            .and_then(|set| set.find(&s.program))
            .and_then(|bin| bin.versus_baseline.clone());
    }
}
