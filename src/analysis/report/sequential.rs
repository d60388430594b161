//! `report --sequential`: the sequential replay ([`super::sequential`]) of every series and
//! every comparison of an experiment, attached to the report's model. The binaries are
//! replayed in the series' seed order (the order `build --extend` adds them); executions
//! and iterations per binary are as run (balanced, fixed beforehand).

use crate::analysis::report::experiment::Experiment;
use crate::analysis::report::model::Report;
use crate::analysis::report::series::Series;
use crate::analysis::sequential::{replay_mean, replay_ratio, Rule, Sequential};
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
    let (mut b, mut n) = (Vec::new(), Vec::new());
    for seed in &base.seeds {
        if let Some(other) = new.seeds.iter().find(|o| o.seed == seed.seed) {
            b.push(seed.mean());
            n.push(other.mean());
        }
    }
    let (better, worse) = if base.is_time() {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    replay_ratio(&b, &n, rule, better, worse)
}

/// Fills `sequential` in every series and comparison of `report` (built from `experiment`
/// in the same order); what cannot be replayed gets a warning instead. A comparison held
/// together with others (Bonferroni, more than two variants) uses its adjusted confidence.
pub fn attach(report: &mut Report, experiment: &Experiment, rule: &Rule) {
    let mut warnings = Vec::new();
    for (out, series) in report.series.iter_mut().zip(&experiment.series) {
        match for_series(series, rule, &out.scale()) {
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
        let mut rule = *rule;
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
