//! `report --sequential`: the sequential replay ([`super::sequential`]) of every series and
//! every comparison of an experiment, attached to the report's model. The binaries are
//! replayed in the series' seed order (the order `build --extend` adds them); executions
//! and iterations per binary are as run (balanced, fixed beforehand).

use crate::analysis::report::experiment::Experiment;
use crate::analysis::report::model::Report;
use crate::analysis::report::series::Series;
use crate::analysis::sequential::{replay_mean, replay_ratio, Rule, Sequential};
use crate::analysis::vocabulary::MIN_TOP_LEVEL_UNITS;
use crate::stats::StatsError;

/// The horizon of the looks: the maximum of binaries that `experiment` fixed before it
/// started, when it grew on-line with repeated t intervals (`stopping.json`, method
/// "repeated_t"), so that the replay gives the numbers its stopping rule saw; otherwise none
/// (Lai's mixture, valid for any number of looks: a store whose size was not planned for
/// looking, or grown by an older rule).
pub fn horizon(experiment: &Experiment) -> Option<usize> {
    let log = experiment.growth.as_ref()?;
    (log.method.as_deref() == Some(crate::analysis::sequential::REPEATED_T))
        .then_some(log.rule.max_binaries as usize)
}

/// Whether Lai's mixture is tuned to the store's size: when there is no horizon and the
/// store was not grown by a rule that watched Lai's mixture at
/// [`crate::analysis::sequential::PLANNED_BINARIES`] (a
/// `stopping.json` of method "lai_t_mixture", whose replay must give the numbers its rule
/// saw).
///
/// Why the store's size: any mixing parameter fixed before the first look gives a valid
/// sequence (Ville's inequality holds for each), and the size of a store replayed after the
/// fact is known before the replay's first look; tuned there, the boundary is tightest where
/// the replay ends instead of at 20 binaries. The repeated t intervals would also need a
/// horizon, but the store's size is one only if it was fixed before measuring: a store grown
/// by looking (`build --extend` until the answer looked good) would make that horizon
/// depend on the data, and the repeated intervals spend all of the error rate on exactly the
/// looks up to it. Lai's mixture depends on the size only through where it is tightest; a
/// size chosen by looking makes only that tuning depend on the data, and the seeded
/// calibration measures the coverage of such stores (tests/stats/sequential_calibration.rs,
/// docs/sequential.md).
pub fn tuned_to_store(experiment: &Experiment, rule: &Rule) -> bool {
    let grown_with_lai = experiment.growth.as_ref().is_some_and(|log| {
        log.method.as_deref() == Some(crate::analysis::sequential::LAI_T_MIXTURE)
    });
    rule.horizon.is_none() && !grown_with_lai
}

/// `rule`, tuned to `binaries` when `to_store` ([`tuned_to_store`]).
fn tuned(rule: &Rule, to_store: bool, binaries: usize) -> Rule {
    let mut rule = *rule;
    if to_store {
        rule.planned = binaries.max(MIN_TOP_LEVEL_UNITS);
    }
    rule
}

/// Replays one series' binaries' means, said in `scale` (its section's unit).
pub fn for_series(
    series: &Series,
    rule: &Rule,
    scale: &crate::analysis::numfmt::Scale,
) -> Result<Sequential, StatsError> {
    let means: Vec<f64> = series.seeds.iter().map(|b| b.mean()).collect();
    replay_mean(&means, rule, scale)
}

/// Replays the per-seed ratios of `new` over `base`, seeds matched by number, in the base's
/// seed order; a seed missing on either side is left out.
pub fn for_pair(base: &Series, new: &Series, rule: &Rule) -> Result<Sequential, StatsError> {
    let (b, n) = matched_means(base, new);
    let (better, worse) = if base.is_time() {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    replay_ratio(&b, &n, rule, better, worse)
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
/// in the same order); what cannot be replayed gets a warning instead. A comparison held
/// together with others (Bonferroni, more than two variants) uses its adjusted confidence.
pub fn attach(report: &mut Report, experiment: &Experiment, rule: &Rule) {
    let mut warnings = Vec::new();
    let to_store = tuned_to_store(experiment, rule);
    for (out, series) in report.series.iter_mut().zip(&experiment.series) {
        let rule = tuned(rule, to_store, series.seeds.len());
        match for_series(series, &rule, &out.scale()) {
            Ok(s) => out.sequential = Some(s),
            Err(e) => warnings.push(format!(
                "{} {}: no sequential analysis: {e}",
                crate::analysis::report::series::program_label(
                    &series.program,
                    series.variant.as_deref()
                ),
                series.metric
            )),
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
            Err(e) => warnings.push(format!(
                "{} {}: {} against {}: no sequential analysis: {e}",
                c.program, c.metric, c.new, c.base
            )),
        }
    }
    report.warnings.extend(warnings);
}
