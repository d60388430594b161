//! `report --sequential`: the sequential replay ([`super::sequential`]) of every series and
//! every comparison of an experiment, attached to the report's model. The binaries are
//! replayed in the series' seed order (the order `build --extend` adds them); executions
//! and iterations per binary are as run (balanced, fixed beforehand).

use crate::analysis::answers::experiment::Experiment;
use crate::analysis::answers::model::Report;
use crate::analysis::answers::series::Series;
use crate::analysis::sequential::{
    replay_mean, replay_ratio, Method, Rule, Sequential, Unreplayable, Unreplayed,
};
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::stats::StatsError;

/// The method and horizon of the replay, read from the store's `stopping.json`, so that a
/// store grown on-line replays with the numbers its stopping rule saw: the calibrated
/// sequence up to the experiment's maximum for a log of method "lai_calibrated", the
/// repeated t intervals up to it for "repeated_t" (the rule before), Lai's mixture at the
/// nominal level for "lai_t_mixture" (the first rule). Any other store (no log, or a log
/// written before the rule was sequential): the calibrated sequence without a horizon.
pub(crate) fn plan(experiment: &Experiment) -> (Method, Option<usize>) {
    let Some(log) = experiment.growth.as_ref() else {
        return (Method::LaiCalibrated, None);
    };
    let max = log.rule.max_binaries as usize;
    match log.method.as_deref().and_then(Method::named) {
        Some(Method::LaiCalibrated) => (Method::LaiCalibrated, Some(max)),
        Some(Method::RepeatedT) => (Method::RepeatedT, Some(max)),
        Some(Method::LaiTMixture) => (Method::LaiTMixture, None),
        None => (Method::LaiCalibrated, None),
    }
}

/// Whether the mixture is tuned to the store's size: the calibrated sequence without a
/// horizon (a store grown by the first rule, which watched Lai's mixture at
/// [`crate::analysis::sequential::PLANNED_BINARIES`], replays as it saw it).
///
/// Why the store's size: any mixing parameter fixed before the first look gives a valid
/// sequence (Ville's inequality holds for each), and the size of a store replayed after the
/// fact is known before the replay's first look; tuned there, the boundary is tightest where
/// the replay ends. The size is not taken as a horizon for the level's calibration: a store
/// grown by looking (`build --extend` until the answer looked good) would make the looks
/// calibrated for depend on the data; the level is calibrated over every look up to
/// [`crate::stats::confidence_sequence::MAX_LOOKS`] instead, which holds for any size chosen
/// by looking up to it. The mixing parameter still depends on the size; the seeded
/// calibration measures the coverage of stores sized by looking
/// (tests/stats/sequential_calibration.rs, docs/sequential.md).
pub(crate) fn tuned_to_store(rule: &Rule) -> bool {
    rule.method == Method::LaiCalibrated && rule.horizon.is_none()
}

/// `rule`, tuned to `binaries` when `to_store` ([`tuned_to_store`]).
fn tuned(rule: &Rule, to_store: bool, binaries: usize) -> Rule {
    let mut rule = *rule;
    if to_store {
        rule.planned = binaries.max(MIN_TOP_LEVEL_UNITS);
    }
    rule
}

/// Replays one series' binaries' means.
pub(crate) fn for_series(series: &Series, rule: &Rule) -> Result<Sequential, StatsError> {
    let means: Vec<f64> = series.seeds.iter().map(|b| b.mean()).collect();
    replay_mean(&means, rule)
}

/// Replays the per-seed ratios of `new` over `base`, seeds matched by number, in the base's
/// seed order; a seed missing on either side is left out.
pub(crate) fn for_pair(base: &Series, new: &Series, rule: &Rule) -> Result<Sequential, StatsError> {
    let (b, n) = matched_means(base, new);
    replay_ratio(&b, &n, rule, base.is_time())
}

/// The binaries' means of the seeds `base` and `new` share, in the base's seed order.
fn matched_means(base: &Series, new: &Series) -> (Vec<f64>, Vec<f64>) {
    let (mut b, mut n) = (Vec::new(), Vec::new());
    for seed in &base.seeds {
        if let Some(other) = new.seeds.iter().find(|o| o.seed == seed.seed) {
            b.push(seed.mean());
            n.push(other.mean());
        }
    }
    (b, n)
}

/// Fills `sequential` in every series and comparison of `report` (built from `experiment`
/// in the same order); what cannot be replayed is recorded in `report.unreplayed` instead.
/// A comparison held together with others (Bonferroni, more than two variants) uses its
/// adjusted confidence.
pub(crate) fn attach(report: &mut Report, experiment: &Experiment, rule: &Rule) {
    let mut unreplayed = Vec::new();
    let to_store = tuned_to_store(rule);
    for (out, series) in report.series.iter_mut().zip(&experiment.series) {
        let rule = tuned(rule, to_store, series.seeds.len());
        match for_series(series, &rule) {
            Ok(s) => {
                out.sequential = Some(Sequential {
                    scale: Some(out.scale()),
                    ..s
                })
            }
            Err(error) => unreplayed.push(Unreplayed {
                program: series.program.clone(),
                metric: series.metric.clone(),
                subject: Unreplayable::Series {
                    variant: series.variant.clone(),
                },
                error,
            }),
        }
    }
    for c in &mut report.comparisons {
        let find = |variant: &str| {
            experiment.series.iter().find(|s| {
                s.program == c.program
                    && s.metric == c.metric
                    && s.variant.as_deref() == Some(variant)
            })
        };
        let (Some(base), Some(new)) = (find(&c.base), find(&c.new)) else {
            continue;
        };
        let mut rule = tuned(rule, to_store, matched_means(base, new).0.len());
        if let Some(a) = c.adjustment {
            rule.thresholds.confidence = a.confidence;
        }
        match for_pair(base, new, &rule) {
            Ok(s) => c.sequential = Some(s),
            Err(error) => unreplayed.push(Unreplayed {
                program: c.program.clone(),
                metric: c.metric.clone(),
                subject: Unreplayable::Pair {
                    base: c.base.clone(),
                    new: c.new.clone(),
                },
                error,
            }),
        }
    }
    report.unreplayed = unreplayed;
}
