//! The binary the user's build made (`as-built`) placed among the random layouts: the two
//! questions [`super::shift`] answers for the default layout (its shift from the random
//! layouts' mean, Kalibera & Jones 2013 eq. 5; its place among them, a prediction interval),
//! asked of the build's own binary, with what `build` found the baseline differs from it in.
//! It is a fixed layout: never pooled into the random layouts' sample.

use std::collections::BTreeMap;

use crate::analysis::effect::Effect;
use crate::analysis::single::IntervalNote;
use crate::analysis::vocabulary::Thresholds;
use crate::files::manifest::{Manifest, AS_BUILT_LABEL};
use crate::stats::fieller::ratio_ci;
use crate::stats::paired_ratio::paired_ratio;
use crate::stats::sample::{mean, MeanInterval};

use super::model::{AsBuilt, PairedOn, SeriesReport};
use super::series::Series;
use super::shift::{baseline_interval, baseline_summary, placement_of, shift_of, Fixed};

/// The as-built answer of `series`, `None` when it has no as-built data. `random` is the
/// random layouts' mean interval with the engine's note when it has none.
pub(crate) fn as_built(
    series: &Series,
    random: (Option<&MeanInterval>, Option<&IntervalNote>),
    thresholds: &Thresholds,
) -> Option<AsBuilt> {
    let b = series.as_built.as_ref()?;
    let ci = baseline_interval(b, thresholds.confidence);
    let fixed = Fixed::as_built(series);
    let (against_baseline, against_baseline_paired_on) =
        against_baseline(series, thresholds).map_or((None, None), |(e, on)| (Some(e), on));
    Some(AsBuilt {
        binary: baseline_summary(b, ci.as_ref()),
        shift: shift_of(series, &fixed, random, ci.as_ref(), thresholds),
        placement: placement_of(series, &fixed, thresholds),
        against_baseline,
        against_baseline_paired_on,
        versus_baseline: None,
        same_layout_as_baseline: None,
        is_time: series.is_time(),
        thresholds: *thresholds,
    })
}

/// The as-built binary's mean over the baseline's, with its interval, classified at
/// `thresholds`, and what it was paired on (a round) if anything: on a rounds schedule every round ran
/// both binaries once (under the same data seed, when the run crossed data seeds: the same
/// execution index), so the interval is Fieller's for matched pairs (Fieller 1954, the
/// paired form of Kalibera & Jones 2013 eq. 5), which takes out what the host did round by
/// round; otherwise eq. 5 itself, of the two binaries' independent intervals over their
/// executions. `None` without both binaries or with fewer than two executions of either.
/// For an as-built binary with the baseline's code layout these are two measurements of one
/// layout, which should agree within the run's noise (the wall times of opus_demo by two
/// such measurements differed by 6 %).
fn against_baseline(
    series: &Series,
    thresholds: &Thresholds,
) -> Option<(Effect, Option<PairedOn>)> {
    let (base, own) = (series.baseline.as_ref()?, series.as_built.as_ref()?);
    let classify =
        |ratio: f64, bounds| Effect::classify(ratio, bounds, thresholds, series.is_time());
    if series.rounds {
        let base_by_round: BTreeMap<u32, f64> = base
            .executions
            .iter()
            .map(|e| (e.execution, mean(&e.live)))
            .collect();
        let (base_means, own_means): (Vec<f64>, Vec<f64>) = own
            .executions
            .iter()
            .filter_map(|e| Some((*base_by_round.get(&e.execution)?, mean(&e.live))))
            .unzip();
        if let Ok(r) = paired_ratio(&base_means, &own_means, thresholds.confidence) {
            return Some((classify(r.estimate, r.bounds()), Some(PairedOn::Round)));
        }
    }
    let base_ci = baseline_interval(base, thresholds.confidence)?;
    let own_ci = baseline_interval(own, thresholds.confidence)?;
    let r = ratio_ci(&base_ci, &own_ci);
    Some((classify(r.estimate, r.bounds()), None))
}

/// Fills each series' [`AsBuilt::versus_baseline`] and [`AsBuilt::same_layout_as_baseline`]
/// from the manifest (the variant's build for a variant's series). An as-built binary with
/// the baseline's layout is said to be so in its sentence (issue 36, item 11: it was
/// answered as if it were a layout of its own).
pub(crate) fn attach_versus_baseline(series: &mut [SeriesReport], manifest: Option<&Manifest>) {
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
        let own = build
            .and_then(|b| b.as_built.as_ref())
            .filter(|set| set.label() == AS_BUILT_LABEL)
            .and_then(|set| set.find(&s.program));
        a.versus_baseline = own.and_then(|bin| bin.versus_baseline());
        let base = build.and_then(|b| b.baseline.find(&s.program));
        a.same_layout_as_baseline = own
            .zip(base)
            .map(|(own, base)| own.fingerprint == base.fingerprint);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::answers::builder::analyse_series;
    use crate::analysis::answers::model::Verdict;
    use crate::analysis::answers::series::{BinaryData, ExecutionData};
    use crate::seeded::SeededRng;

    /// A binary of `executions` one-value executions around `mean` (relative noise 1 %).
    fn binary(label: &str, seed: Option<u64>, mean: f64, rng: &mut SeededRng) -> BinaryData {
        BinaryData {
            binary: label.into(),
            seed,
            executions: (0..3)
                .map(|e| ExecutionData {
                    execution: e,
                    schedule_index: 0,
                    wall_ns: 0,
                    data_seed: None,
                    warmup: Vec::new(),
                    live: vec![mean * (1.0 + 0.01 * rng.normal())],
                })
                .collect(),
        }
    }

    /// 10 random layouts whose means vary by 3 % around 1000 ns, a baseline, and an
    /// as-built binary at `as_built` times the layouts' centre (`None`: one more layout).
    pub(crate) fn series(rng: &mut SeededRng, as_built: Option<f64>) -> Series {
        let layout = |rng: &mut SeededRng| 1000.0 * (1.0 + 0.03 * rng.normal());
        let seeds = (1..=10)
            .map(|s| {
                let m = layout(rng);
                binary(&format!("seed-{s}"), Some(s), m, rng)
            })
            .collect();
        let base = layout(rng);
        let own = as_built.map_or_else(|| layout(rng), |f| 1000.0 * f);
        Series {
            program: "p".into(),
            variant: None,
            metric: "wall".into(),
            unit: "ns".into(),
            seeds,
            baseline: Some(binary("baseline", None, base, rng)),
            as_built: Some(binary(AS_BUILT_LABEL, None, own, rng)),
            warmup_discarded: 0,
            rounds: false,
            later_phases: Default::default(),
            binary_cost_seconds: None,
        }
    }

    /// With the baseline's data, the as-built answer is the default layout's (the same
    /// functions ask the same questions); the random layouts' sample is the seeds alone.
    #[test]
    fn on_the_baselines_data_it_answers_as_the_default_layout() {
        let mut rng = SeededRng::new(7, "as-built-same");
        let mut s = series(&mut rng, None);
        let mut same = s.baseline.clone().unwrap();
        same.binary = AS_BUILT_LABEL.into();
        s.as_built = Some(same);
        let t = Thresholds::default();
        let r = analyse_series(&s, Default::default(), &Default::default(), &t, None);
        let a = r.as_built.as_ref().unwrap();
        let d = &r.default_layout;
        assert_eq!(a.placement.verdict, d.verdict);
        assert_eq!(a.placement.percentile, d.percentile);
        assert_eq!(a.placement.p_value, d.p_value);
        assert_eq!(a.placement.difference, d.difference);
        assert_eq!(a.shift.ratio, r.shift.ratio);
        assert_eq!(a.shift.ci, r.shift.ci);
        let without = Series {
            as_built: None,
            ..s.clone()
        };
        let w = analyse_series(&without, Default::default(), &Default::default(), &t, None);
        assert!(w.as_built.is_none());
        assert_eq!(
            r.mean, w.mean,
            "the as-built binary is not in the layouts' mean"
        );
        let binary_level = r.levels.iter().find(|l| l.name == "binary").unwrap();
        assert_eq!(binary_level.repetitions, 10);
    }

    /// 12 % faster than the layouts' centre (4 of their standard deviations): unusual,
    /// below every layout, and the shift's interval lies wholly on the faster side.
    #[test]
    fn far_below_the_layouts_it_is_unusual() {
        let mut rng = SeededRng::new(11, "as-built-fast");
        let s = series(&mut rng, Some(0.88));
        let r = analyse_series(
            &s,
            Default::default(),
            &Default::default(),
            &Thresholds::default(),
            None,
        );
        let a = r.as_built.unwrap();
        assert_eq!(
            a.placement.verdict,
            Verdict::Detected,
            "{:?}",
            a.placement.grounds
        );
        assert_eq!(a.placement.percentile, Some(0.0));
        let ci = a.shift.ci.unwrap();
        assert!(ci.upper < 1.0, "{ci:?}");
    }

    /// A rounds store of 10 random layouts (3 % apart) and the default layout measured twice,
    /// as the baseline and as the as-built binary (its true mean `own` times the
    /// baseline's), over 8 rounds: each execution is its round's host state (± 5 %) times 1 %
    /// noise of its own.
    fn measured_twice(rng: &mut SeededRng, own: f64) -> Series {
        let rounds: Vec<f64> = (0..8).map(|_| 1.0 + 0.05 * rng.normal()).collect();
        let run = |mean: f64, rng: &mut SeededRng| -> Vec<f64> {
            rounds
                .iter()
                .map(|r| mean * r * (1.0 + 0.01 * rng.normal()))
                .collect()
        };
        let layouts: Vec<Vec<f64>> = (0..10)
            .map(|_| {
                let layout = 1000.0 * (1.0 + 0.03 * rng.normal());
                run(layout, rng)
            })
            .collect();
        let mut s = Series::of_rounds("p", "wall", "ns", &layouts);
        let fixed = |label: &str, values: Vec<f64>| BinaryData {
            binary: label.into(),
            seed: None,
            executions: (0u32..)
                .zip(values)
                .map(|(round, v)| ExecutionData {
                    execution: round,
                    schedule_index: 0,
                    wall_ns: 0,
                    data_seed: None,
                    warmup: Vec::new(),
                    live: vec![v],
                })
                .collect(),
        };
        s.baseline = Some(fixed("baseline", run(1000.0, rng)));
        s.as_built = Some(fixed(AS_BUILT_LABEL, run(1000.0 * own, rng)));
        s
    }

    /// Seeded simulation of the default layout measured twice on a host whose state shifts
    /// from round to round by 5 %: paired by round, the two measurements are said to differ
    /// in about 5 % of 1000 experiments when they do not (size), and a 2 % difference is
    /// found in about 94 % of 200 (power: the t test of 8 pairs, each difference's noise 1.4 %).
    /// Unpaired, the rounds' shifts would hide it: eq. 5 of the two independent intervals
    /// finds it in few.
    #[test]
    fn the_default_layout_measured_twice_is_compared_within_rounds() {
        let t = Thresholds::default();
        let mut rng = SeededRng::new(36, "as-built-against-baseline");
        let runs = 1000;
        let mut differ = 0;
        for _ in 0..runs {
            let (e, paired) = against_baseline(&measured_twice(&mut rng, 1.0), &t).unwrap();
            assert_eq!(paired, Some(PairedOn::Round));
            differ += usize::from(e.detected());
        }
        eprintln!("the same layout measured twice differed in {differ} of {runs}");
        assert!((30..=70).contains(&differ), "{differ} of {runs}");
        let (mut found, mut found_unpaired) = (0, 0);
        for _ in 0..200 {
            let mut s = measured_twice(&mut rng, 1.02);
            let (e, _) = against_baseline(&s, &t).unwrap();
            found += usize::from(e.detected() && e.ratio > 1.0);
            s.rounds = false;
            let (e, paired) = against_baseline(&s, &t).unwrap();
            assert_eq!(paired, None);
            found_unpaired += usize::from(e.detected() && e.ratio > 1.0);
        }
        eprintln!("a 2 % difference found in {found} of 200 paired, {found_unpaired} unpaired");
        assert!(found >= 170, "{found} of 200");
        assert!(found_unpaired <= 60, "{found_unpaired} of 200");
    }

    /// Seeded simulation: an as-built binary that is one more random layout is called
    /// unusual (detected or negligibly so) in about 1 − confidence = 5 % of 1000
    /// experiments (binomial standard error 0.7 %).
    #[test]
    fn one_more_layout_is_called_unusual_in_about_five_percent() {
        let mut rng = SeededRng::new(2013, "as-built-size");
        let t = Thresholds::default();
        let runs = 1000;
        let unusual = (0..runs)
            .filter(|_| {
                let s = series(&mut rng, None);
                let p = placement_of(&s, &Fixed::as_built(&s), &t);
                matches!(p.verdict, Verdict::Detected | Verdict::Negligible)
            })
            .count();
        let rate = unusual as f64 / runs as f64;
        eprintln!("as-built called unusual in {unusual} of {runs} experiments");
        assert!((0.03..=0.07).contains(&rate), "{unusual} of {runs}");
    }
}
