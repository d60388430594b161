//! Known-answer tests of the report's analysis on synthetic experiments (no runner, no CLI):
//! the Kalibera & Jones levels, the sensitivity and shift verdicts, the shift detector's
//! false-positive rate, and the dimensioning table.

use crate::report_support;

use std::path::Path;

use layoutrand::analysis::answers::builder::analyse;
use layoutrand::analysis::answers::dimension::{dimension, CostOverrides};
use layoutrand::analysis::answers::experiment::from_parts;
use layoutrand::analysis::answers::model::{
    DiagnosticConcern, DriftUntested, ExecutionId, SensitivityGrounds, SensitivityOutcome, Verdict,
};
use layoutrand::analysis::vocabulary::Thresholds;
use report_support::{manifest, optional_words, results, word_list, words, Design, ThreeLevel};

fn experiment(
    design: &Design,
    gen: &mut ThreeLevel,
) -> layoutrand::analysis::answers::experiment::Experiment {
    let r = results(design, &mut |_, seed, execution, _, _| {
        gen.value(seed, execution)
    });
    from_parts(Path::new("synthetic"), manifest(design), r).unwrap()
}

/// The report of `design`'s values (`value`) stored as a rounds schedule (execution `e` of
/// every binary in round `e`), as `run` writes one by default.
fn analysed_on_rounds(
    design: &Design,
    value: &mut report_support::ValueFn,
) -> layoutrand::analysis::answers::model::Report {
    let mut r = results(design, value);
    r.header.as_mut().unwrap().schedule_design = layoutrand::files::results::ScheduleDesign::Rounds;
    let e = from_parts(Path::new("synthetic"), manifest(design), r).unwrap();
    analyse(&e, &Thresholds::default()).unwrap()
}

/// libkalibera's public example: binaries × executions × iterations
/// {(0,0):[3,4,3],(0,1):[1.2,3.1,3],(1,0):[0.2,1,1.5],(1,1):[1,2,3]}.
const KALIBERA: [[[f64; 3]; 2]; 2] = [
    [[3.0, 4.0, 3.0], [1.2, 3.1, 3.0]],
    [[0.2, 1.0, 1.5], [1.0, 2.0, 3.0]],
];

fn kalibera_experiment() -> layoutrand::analysis::answers::experiment::Experiment {
    let mut design = Design::new(2, 2, 3);
    design.baseline = false;
    let r = results(&design, &mut |_, seed, e, i, _| {
        KALIBERA[seed.unwrap() as usize - 1][e as usize][i as usize]
    });
    from_parts(Path::new("synthetic"), manifest(&design), r).unwrap()
}

#[test]
fn levels_match_libkalibera_oracle() {
    // Oracle from libkalibera (public): S² = [0.726667, 0.505, 1.027222],
    // T² = [0.726667, 0.262778, 0.774722].
    let report = analyse(&kalibera_experiment(), &Thresholds::default()).unwrap();
    let s = &report.series[0];
    let names: Vec<&str> = s.levels.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["iteration", "execution", "binary"]);
    let s2: Vec<f64> = s.levels.iter().map(|l| l.s2).collect();
    let t2: Vec<f64> = s.levels.iter().map(|l| l.t2).collect();
    for (got, want) in s2.iter().zip([0.726667, 0.505, 1.027222]) {
        assert!((got - want).abs() < 1e-6, "S² {s2:?}");
    }
    for (got, want) in t2.iter().zip([0.726667, 0.262778, 0.774722]) {
        assert!((got - want).abs() < 1e-6, "T² {t2:?}");
    }
    // Mean 26/12; eq. 4 with r_n = 2: 26/12 ± t(0.975, 1)·sqrt(1.027222/2).
    // python3 -c "from scipy.stats import t; print(26/12 - t.ppf(.975,1)*(1.0272222222/2)**.5)"
    // → -6.939447...: below zero for positive values, so the report withholds it (issue 21)
    // and says why (the note pinned whole); the engine's eq. 4 is the one checked here.
    assert!((s.mean - 26.0 / 12.0).abs() < 1e-12);
    assert!(s.ci.is_none());
    insta::assert_snapshot!(
        "kalibera_interval_note",
        optional_words(s, "interval_note").unwrap()
    );
    let (h, _) =
        layoutrand::analysis::answers::builder::seed_hierarchy(&kalibera_experiment().series[0])
            .unwrap();
    let ci = layoutrand::stats::multilevel::mean_ci(&h, 0.95).unwrap();
    assert!((ci.lower - -6.939447).abs() < 1e-5, "{ci:?}");
    // t_i = √T²/mean.
    let t1 = s.levels[0].relative_variation.unwrap();
    assert!((t1 - 0.726667f64.sqrt() / (26.0 / 12.0)).abs() < 1e-5);
}

#[test]
fn dimension_matches_hand_computation() {
    // Costs 1 s / 10 s / 100 s with the libkalibera T²: eq. 3 gives
    // r_1 = ceil(sqrt(10/1 · 0.726667/0.262778)) = 6, r_2 = ceil(sqrt(100/10 · 0.262778/0.774722)) = 2;
    // E[S_3²] = 0.774722 + 0.262778/2 + 0.726667/12 = 0.966667. Binaries for a 95 % CI of
    // ±5 % (mean 26/12) and ±50 %, by scipy:
    // python3 -c "from scipy.stats import t
    // v=0.774722+0.262778/2+0.726667/12; m=26/12
    // for e in (.05,.5): print(next(r for r in range(5,2000) if t.ppf(.975,r-1)*(v/r)**.5<=e*m))"
    // → 319, 6. Each binary costs 100 + 2·(10 + 6·1) = 132 s.
    let costs = CostOverrides {
        iteration: Some(1.0),
        execution: Some(10.0),
        binary: Some(100.0),
    };
    let d = dimension(&kalibera_experiment(), costs, &[0.05, 0.5, 0.001], 0.95).unwrap();
    let s = &d.series[0];
    let optimal: Vec<Option<u64>> = s.levels.iter().map(|l| l.optimal).collect();
    assert_eq!(optimal, [Some(6), Some(2), None]);
    let reps: Vec<Option<usize>> = s.rows.iter().map(|r| r.top_repetitions).collect();
    assert_eq!(
        reps,
        [Some(319), Some(6), None],
        "±0.1 % needs more than 1000: ∞"
    );
    assert!((s.rows[0].expected_seconds.unwrap() - 319.0 * 132.0).abs() < 1e-6);
}

/// With one execution per binary (and one iteration), the table has the binary level alone,
/// yet every planned binary still runs its execution: a binary costs 100 s of link and 10 s
/// of execution, 110 s. Before, the execution was left out (xz 5.4.1 under cachegrind: 7
/// binaries planned at 111 ms, each execution taking 0.65 s). The count is eq. 4's on the
/// binaries' values 1, 2, ..., 8 (variance 6, mean 4.5), by scipy:
/// python3 -c "from scipy.stats import t; print(next(r for r in range(5,2000) if t.ppf(.975,r-1)*(6/r)**.5<=.25*4.5))"
/// → 21.
#[test]
fn one_execution_per_binary_is_priced_into_each_binary() {
    let mut design = Design::new(8, 1, 1);
    design.baseline = false;
    let r = results(&design, &mut |_, seed, _, _, _| seed.unwrap() as f64);
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let costs = CostOverrides {
        iteration: None,
        execution: Some(10.0),
        binary: Some(100.0),
    };
    let d = dimension(&e, costs, &[0.25], 0.95).unwrap();
    let s = &d.series[0];
    let names: Vec<&str> = s.levels.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["binary"]);
    assert_eq!(s.levels[0].cost_seconds, 110.0);
    assert_eq!(s.levels[0].execution_seconds, Some(10.0));
    assert_eq!(s.rows[0].top_repetitions, Some(21));
    assert_eq!(s.rows[0].expected_seconds, Some(21.0 * 110.0));
}

#[test]
fn sensitive_program_with_faster_default_layout() {
    // 20 random layouts with a 2 % binary effect, small execution and iteration noise; the
    // default layout 4 % faster than the random layouts' expectation.
    let design = Design::new(20, 3, 5);
    let mut gen = ThreeLevel::new(11, 1e6, 0.02, 0.002, 0.004, -0.04);
    let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert_eq!(
        s.sensitivity.verdict,
        Verdict::Detected,
        "{}",
        words(&s.sensitivity, "text")
    );
    assert!(s.sensitivity.icc.unwrap() > 0.8, "{:?}", s.sensitivity.icc);
    assert!(
        matches!(&s.sensitivity.grounds, SensitivityGrounds::Tested(t) if t.outcome == SensitivityOutcome::Detected),
        "{:?}",
        s.sensitivity.grounds
    );
    assert_eq!(
        s.shift.verdict,
        Verdict::Detected,
        "{}",
        words(&s.shift, "text")
    );
    let ci = s.shift.ci.unwrap();
    assert!(ci.upper < 1.0 && s.shift.ratio.unwrap() < 0.99, "{ci:?}");
    // The sentence, pinned whole: faster, with its 95 % CI. A shift from the mean over
    // layouts is true of any single layout when layouts matter: it is worded as what it is
    // (differs from the mean over random layouts), never as bias (issue 21).
    insta::assert_snapshot!("faster_default_shift", words(&s.shift, "text"));
    // The baseline's mean is below nearly all random layouts'.
    assert!(s.shift.baseline_rank.unwrap() <= 0.1);
}

#[test]
fn default_layout_far_outside_the_layouts_is_unusual_and_biased() {
    // 20 random layouts varying by 2 %; the default layout 12 % faster: far outside the
    // prediction interval of one layout's mean (about ± 4.4 %).
    let design = Design::new(20, 3, 5);
    let mut gen = ThreeLevel::new(11, 1e6, 0.02, 0.002, 0.004, -0.12);
    let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    let s = &report.series[0];
    let d = &s.default_layout;
    assert_eq!(d.verdict, Verdict::Detected, "{}", words(d, "text"));
    assert_eq!(d.percentile, Some(0.0));
    let pi = d.prediction_interval.unwrap();
    assert!(pi.lower > 0.0 && pi.upper > pi.lower && pi.confidence == 0.95);
    assert!(pi.lower < 1e6 && pi.upper > 1e6, "{pi:?}");
    assert!(d.p_value.unwrap() < 0.05);
    assert!(
        words(d, "text").starts_with("unusual among random layouts"),
        "{}",
        words(d, "text")
    );
    // The summary, pinned whole: the default layout unusual among random layouts, and
    // results on it biased.
    insta::assert_snapshot!("unusual_default_summary", words(s, "summary"));
    // The same in JSON: `default_layout` with percentile, interval and verdict.
    let json = serde_json::to_value(s).unwrap();
    assert_eq!(json["default_layout"]["verdict"], "detected");
    assert_eq!(
        json["default_layout"]["prediction_interval"]["confidence"],
        0.95
    );
    assert_eq!(json["default_layout"]["percentile"], 0.0);
}

/// A default layout that is just one more random layout: its effect drawn from the same
/// distribution as the seeds'. Issue 21: the shift test called it "biased" in 44–49 % of
/// experiments; the prediction interval may call it unusual in 1 − confidence of them.
/// The same experiments (no drift) give the drift test's size. `benches/single_series.sh`
/// runs it larger (LAYOUTRAND_SIM_RUNS, LAYOUTRAND_SIM_BINARIES).
#[test]
fn an_ordinary_default_layout_is_called_unusual_in_at_most_five_percent() {
    let from_env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let runs = from_env("LAYOUTRAND_SIM_RUNS", 400);
    let design = Design::new(from_env("LAYOUTRAND_SIM_BINARIES", 10), 3, 2);
    let (mut unusual, mut drifting, mut biased_words, mut shifted) = (0, 0, 0, 0);
    let mut cannot_tell = 0;
    let mut draws = report_support::Normal::new(5, "default-layout-effect");
    for k in 0..runs {
        let mut gen = ThreeLevel::new(5000 + k, 1e6, 0.02, 0.01, 0.005, 0.0);
        gen.baseline_effect = 0.02 * draws.draw();
        let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
        let s = &report.series[0];
        match s.default_layout.verdict {
            Verdict::Detected | Verdict::Negligible => unusual += 1,
            Verdict::NotDetected => {}
            // Placed by rank (normal layouts a test for normality rejects, one far off the
            // others) and beyond every one of the 10, which no rank test can call unusual.
            Verdict::Undetermined => {
                let d = &s.default_layout;
                assert!(
                    matches!(d.percentile, Some(p) if p == 0.0 || p == 1.0),
                    "{}",
                    words(d, "text")
                );
                cannot_tell += 1;
            }
        }
        if matches!(s.shift.verdict, Verdict::Detected | Verdict::Negligible) {
            shifted += 1;
        }
        let summary = words(s, "summary");
        if summary.contains("biased") || summary.contains("The default layout is unusual among") {
            biased_words += 1;
        }
        if s.diagnostics.drift.as_ref().unwrap().p_value < 0.05 {
            drifting += 1;
        }
    }
    eprintln!(
        "ordinary default, {} binaries: {unusual} of {runs} unusual, {cannot_tell} cannot tell, {shifted} shifted from the mean over layouts, {drifting} drift alarms",
        design.seeds
    );
    // Normal layouts are taken for lumpy in at most 1 % of samples, and the default lies
    // beyond all ten in 2 of 11 of those.
    assert!(
        cannot_tell as f64 <= 0.01 * runs as f64,
        "{cannot_tell} of {runs} cannot tell"
    );
    // At 400 runs: 20 expected, 30 allowed.
    let allowed = allowed_at_five_percent(runs as usize);
    assert!(
        unusual <= allowed,
        "{unusual} of {runs} ordinary defaults called unusual"
    );
    assert!(
        unusual as f64 >= 0.02 * runs as f64,
        "{unusual} of {runs}: the interval is too wide"
    );
    assert!(
        biased_words <= unusual,
        "{biased_words} summaries say biased/unusual"
    );
    assert!(
        drifting <= allowed,
        "{drifting} of {runs} drift alarms without drift"
    );
}

/// The report of `n` random layouts whose means are `layout(seed)` (seed 1 to n) and a
/// default layout at `default`, each measurement varying by 0.1 % (noise seeded by
/// `noise_seed`).
fn lumpy_report(
    n: u64,
    layout: &dyn Fn(u64) -> f64,
    default: f64,
    noise_seed: u64,
) -> layoutrand::analysis::answers::model::Report {
    let design = Design::new(n, 3, 2);
    let mut noise = report_support::Normal::new(noise_seed, "lumpy-noise");
    let r = results(&design, &mut |_, seed, _, _, _| {
        let centre = seed.map_or(default, layout);
        centre * (1.0 + 0.001 * noise.draw())
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    analyse(&e, &Thresholds::default()).unwrap()
}

/// mawk's I1 misses under cachegrind (12 seeds): ten layouts at 2.5k to 4.5k, one at
/// 10.6k, one at 386k, the default layout at 10.9k. The prediction interval, widened by the
/// layout 150 times the others, ran from 189 to 132k and called the default "an ordinary
/// layout ... as representative as any one random layout", though it lay above 11 of the 12.
/// Among lumpy layouts the default is placed by rank: ordinary by its rank (p = 4/13), with
/// where it lies. With 12 layouts no rank is unusual at 95 %, so a default beyond every one
/// of them is "cannot tell"; with 40 the rank answers, either way.
#[test]
fn a_default_layout_among_lumpy_layouts_is_placed_by_rank() {
    use layoutrand::analysis::answers::model::PlacementGrounds;
    let mawk = [
        2539.5, 2539.5, 2567.5, 2572.5, 2573.0, 2590.5, 3433.5, 3532.0, 3835.0, 4460.0, 10633.0,
        386445.0,
    ];
    let report = lumpy_report(12, &|seed| mawk[seed as usize - 1], 10923.0, 17);
    let d = &report.series[0].default_layout;
    let text = words(d, "text");
    assert_eq!(d.verdict, Verdict::NotDetected, "{text}");
    assert!(d.prediction_interval.is_none());
    let PlacementGrounds::Ranked { n, needed, .. } = d.grounds else {
        panic!("not placed by rank: {text}");
    };
    assert_eq!((n, needed), (12, 39));
    assert_eq!(d.percentile, Some(11.0 / 12.0));
    // Two-sided: 2 (min(11, 1) + 1) / 13.
    assert!((d.p_value.unwrap() - 4.0 / 13.0).abs() < 1e-12);
    // From the median of the 12, 3,012: 262.6 % higher.
    assert!((d.difference.unwrap() - (10923.0 / 3012.0 - 1.0)).abs() < 1e-3);
    insta::assert_snapshot!("lumpy_default_layout_ordinary_by_rank", text);
    let beyond = lumpy_report(12, &|seed| mawk[seed as usize - 1], 2000.0, 17);
    let d = &beyond.series[0].default_layout;
    assert_eq!(d.verdict, Verdict::Undetermined, "{}", words(d, "text"));
    assert_eq!(d.percentile, Some(0.0));
    insta::assert_snapshot!("lumpy_default_layout_cannot_tell", words(d, "text"));

    // 40 layouts within 1 % of each other but two 40 % off: a default 5 % below every one
    // is unusual (p = 2 / 41), one among them ordinary.
    let close = |seed: u64| match seed {
        7 | 23 => 1.4e6,
        s => 1e6 * (1.0 + 0.01 * ((s * 37 % 41) as f64 / 41.0 - 0.5)),
    };
    let below = lumpy_report(40, &close, 0.95e6, 17);
    let d = &below.series[0].default_layout;
    assert_eq!(d.verdict, Verdict::Detected, "{}", words(d, "text"));
    assert!((d.p_value.unwrap() - 2.0 / 41.0).abs() < 1e-12);
    assert!(matches!(d.grounds, PlacementGrounds::Ranked { .. }));
    assert!(
        words(d, "text")
            .starts_with("unusual among random layouts: the random layouts' means are lumpy"),
        "{}",
        words(d, "text")
    );
    let among = lumpy_report(40, &close, close(5), 17);
    let d = &among.series[0].default_layout;
    assert_eq!(d.verdict, Verdict::NotDetected, "{}", words(d, "text"));
    assert!(d.p_value.unwrap() > 0.5);
}

/// Placed by rank among lumpy layouts, a default layout that is one more of them is called
/// unusual in at most 5 % of experiments (its rank is uniform): 40 layouts within 0.5 % of
/// each other of which each is, with probability 0.1, 30 % slower (a collision), and a
/// default drawn alike (600 experiments: 28 called unusual, 4.7 %).
#[test]
fn among_lumpy_layouts_an_ordinary_default_is_called_unusual_in_at_most_five_percent() {
    use layoutrand::analysis::answers::model::PlacementGrounds;
    let runs = 600;
    let (mut unusual, mut ranked) = (0, 0);
    let mut draws = layoutrand::seeded::SeededRng::new(23, "lumpy-layouts");
    for run in 0..runs {
        let mut layout = || {
            let collided = draws.unit_f64() < 0.1;
            1e6 * (1.0 + 0.005 * (draws.unit_f64() - 0.5)) * if collided { 1.3 } else { 1.0 }
        };
        let means: Vec<f64> = (0..41).map(|_| layout()).collect();
        let report = lumpy_report(
            40,
            &|seed| means[seed as usize],
            means[0],
            1000 + run as u64,
        );
        let d = &report.series[0].default_layout;
        if matches!(d.grounds, PlacementGrounds::Ranked { .. }) {
            ranked += 1;
        }
        if matches!(d.verdict, Verdict::Detected | Verdict::Negligible) {
            unusual += 1;
        }
    }
    eprintln!("lumpy layouts: {unusual} of {runs} ordinary defaults called unusual, {ranked} placed by rank");
    assert!(
        ranked as f64 >= 0.9 * runs as f64,
        "{ranked} of {runs} placed by rank"
    );
    assert!(
        unusual <= allowed_at_five_percent(runs),
        "{unusual} of {runs} ordinary defaults called unusual"
    );
}

/// The most alarms a test of size 5 % may raise in `runs` experiments: 5 % and 2.3 binomial
/// standard errors.
fn allowed_at_five_percent(runs: usize) -> usize {
    let n = runs as f64;
    (0.05 * n + 2.3 * (n * 0.05 * 0.95).sqrt()) as usize
}

/// Issue 21: with one baseline execution the shift test fell back to iterations as
/// replicates (8.8 % false alarms); now it cannot tell, while the default layout's
/// question is still answered from the random layouts' spread.
#[test]
fn one_baseline_execution_is_undetermined_never_iterations_as_replicates() {
    use layoutrand::files::store::{ExecutionStatus, Record, Results};
    let design = Design::new(10, 3, 5);
    let mut gen = ThreeLevel::new(31, 1e6, 0.02, 0.01, 0.005, 0.0);
    let status = |_: &str, seed: Option<u64>, execution: u32| {
        if seed.is_none() && execution > 0 {
            ExecutionStatus::Exit
        } else {
            ExecutionStatus::Ok
        }
    };
    let mut r = Results::default();
    let batches =
        report_support::records(&design, &mut |_, seed, e, _, _| gen.value(seed, e), &status);
    for rec in batches.into_iter().flatten() {
        match rec {
            Record::Header(h) => r.header = Some(h),
            Record::Measurement(m) => r.measurements.push(m),
            Record::Execution(e) => r.executions.push(e),
            _ => {}
        }
    }
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert_eq!(s.baseline.as_ref().unwrap().executions, 1);
    assert_eq!(
        s.shift.verdict,
        Verdict::Undetermined,
        "{}",
        words(&s.shift, "text")
    );
    // Why, pinned whole: the baseline's 1 execution.
    insta::assert_snapshot!("one_baseline_execution_shift", words(&s.shift, "text"));
    assert!(s.shift.ci.is_none());
    assert_ne!(s.default_layout.verdict, Verdict::Undetermined);
    assert!(s.default_layout.prediction_interval.is_some());
}

#[test]
fn nothing_detectable_is_cannot_tell_not_not_detected() {
    // No layout effect at all, but executions varying by 10 %: with 10 binaries of 3
    // executions the F-test finds only a layout effect of about 10 % (80 % power), far
    // above the 1 % worth finding: the headline says "cannot tell" (issue 21).
    let design = Design::new(10, 3, 2);
    let mut gen = ThreeLevel::new(43, 1e6, 0.0, 0.10, 0.01, 0.0);
    let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    let s = &report.series[0];
    let sens = &s.sensitivity;
    if sens.p_value.unwrap() >= 0.05 {
        assert_eq!(
            sens.verdict,
            Verdict::Undetermined,
            "{}",
            words(sens, "text")
        );
        let d = sens.detectable_variation.unwrap();
        assert!(d > 0.05 && d < 0.2, "{d}");
        assert!(
            words(sens, "text").starts_with("cannot tell (nothing below"),
            "{}",
            words(sens, "text")
        );
        // The summary, pinned whole: "cannot tell", never "not detected".
        insta::assert_snapshot!("cannot_tell_summary", words(s, "summary"));
    } else {
        panic!("a false alarm with this seed: {}", words(sens, "text"));
    }
    // With quiet executions (0.1 %) the same absence of an effect is a real "not detected".
    let mut gen = ThreeLevel::new(42, 1e6, 0.0, 0.001, 0.001, 0.0);
    let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert_eq!(
        s.sensitivity.verdict,
        Verdict::NotDetected,
        "{}",
        words(&s.sensitivity, "text")
    );
    assert!(s.sensitivity.detectable_variation.unwrap() < 0.01);
    insta::assert_snapshot!("not_detected_summary", words(s, "summary"));
}

#[test]
fn the_layout_variation_sentence_uses_the_layout_only_component() {
    let design = Design::new(20, 3, 5);
    let mut gen = ThreeLevel::new(11, 1e6, 0.02, 0.01, 0.004, 0.0);
    let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert_eq!(s.sensitivity.verdict, Verdict::Detected);
    // KJ eq. 2 at the binary level: T² = S²_binary − S²_execution / r_execution.
    let binary = s.levels.iter().find(|l| l.name == "binary").unwrap();
    let execution = s.levels.iter().find(|l| l.name == "execution").unwrap();
    let t2 = binary.s2 - execution.s2 / 3.0;
    assert!((binary.t2 - t2).abs() <= 1e-9 * binary.s2, "{binary:?}");
    let want = t2.sqrt() / s.mean;
    let got = s.sensitivity.layout_variation.unwrap();
    assert!((got - want).abs() < 1e-12, "{got} {want}");
    assert!(got < s.sensitivity.cv_across_binaries.unwrap());
    let variation = format!(
        "its mean varies by {} from one layout to another",
        layoutrand::report::numfmt::percent(want, 2)
    );
    let summary = words(s, "summary");
    assert!(summary.contains(&variation), "{summary}\n{variation}");
}

#[test]
fn drift_between_executions_is_tested_and_reported_in_text() {
    // The second half of the run 20 % slower than the first (the xz case of issue 21):
    // executions are written execution-major, so execution index is run order.
    let design = Design::new(10, 4, 2);
    let mut gen = ThreeLevel::new(51, 1e6, 0.01, 0.01, 0.002, 0.0);
    let r = results(&design, &mut |_, seed, e, _, _| {
        gen.value(seed, e) * if e >= 2 { 1.2 } else { 1.0 }
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    let d = s.diagnostics.drift.as_ref().unwrap();
    assert_eq!(d.executions, 44);
    assert!(d.lag1 > 0.5 && d.p_value <= 0.001, "{d:?}");
    assert!((d.halves_change - 0.2).abs() < 0.03, "{d:?}");
    assert_eq!(d.verdict, Verdict::Detected);
    // The line, pinned whole: the executions drift, the second half slower than the first.
    let line = layoutrand::report::export::tables::drift_line(s);
    insta::assert_snapshot!("drift_line", line);
}

#[test]
fn a_drift_no_execution_shows_beyond_the_threshold_is_negligible() {
    // grep 3.8 under cachegrind: a drift test at p = 0.05 over executions that differed by
    // at most 0.0009 % advised rerunning "on a steadier host". The same run-order drift as
    // above, 0.02 % instead of 20 %, on noise a thousand times smaller: detected by the
    // test, and negligible, since no execution departs from its binary's mean by 1 %.
    let design = Design::new(10, 4, 2);
    let mut gen = ThreeLevel::new(51, 1e6, 1e-5, 1e-5, 2e-6, 0.0);
    let r = results(&design, &mut |_, seed, e, _, _| {
        gen.value(seed, e) * if e >= 2 { 1.0002 } else { 1.0 }
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    let d = s.diagnostics.drift.as_ref().unwrap();
    assert!(d.p_value <= 0.001, "{d:?}");
    assert!(
        d.largest_departure > 5e-5 && d.largest_departure < 5e-4,
        "{d:?}"
    );
    assert_eq!(d.verdict, Verdict::Negligible);
    // With a threshold below the departures, the same drift is one worth rerunning for.
    let strict = Thresholds {
        negligible: 1e-5,
        ..Thresholds::default()
    };
    let report = analyse(&e, &strict).unwrap();
    let d = report.series[0].diagnostics.drift.as_ref().unwrap();
    assert_eq!(d.verdict, Verdict::Detected);
    let line = layoutrand::report::export::tables::drift_line(s);
    insta::assert_snapshot!("drift_line_negligible", line);
}

#[test]
fn no_interval_of_a_positive_mean_reaches_below_zero() {
    // Issue 21: "Mean over random layouts … 95 % CI -48 to 107 s". Three binaries whose
    // means spread as widely as their mean: the t interval would reach below zero.
    let mut design = Design::new(3, 2, 2);
    design.baseline = false;
    let means = [2e9, 20e9, 90e9];
    let r = results(&design, &mut |_, seed, e, _, _| {
        means[seed.unwrap() as usize - 1] * (1.0 + 0.01 * f64::from(e))
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert!(s.ci.is_none(), "{:?}", s.ci);
    let note = optional_words(s, "interval_note").unwrap();
    assert!(note.starts_with("cannot tell how precisely"), "{note}");
    // The summary and the mean's line, pinned whole: "cannot tell how precisely", no
    // negative bound.
    insta::assert_snapshot!("imprecise_mean_summary", words(s, "summary"));
    let line = layoutrand::report::export::tables::mean_line(s, 0.95);
    insta::assert_snapshot!("imprecise_mean_line", line);
    // A narrower but still uninformative interval (± more than 50 %) is kept and said so.
    let means = [15e9, 20e9, 25e9];
    let r = results(&design, &mut |_, seed, e, _, _| {
        means[seed.unwrap() as usize - 1] * (1.0 + 0.01 * f64::from(e))
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    let ci = s.ci.unwrap();
    assert!(ci.lower > 0.0, "{ci:?}");
    assert!(s.relative_half_width.unwrap() > 0.5);
    assert!(
        optional_words(s, "interval_note")
            .as_ref()
            .unwrap()
            .starts_with("cannot tell precisely"),
        "{:?}",
        optional_words(s, "interval_note")
    );
}

#[test]
fn insensitive_program_raises_no_alarm() {
    let design = Design::new(20, 3, 5);
    let mut gen = ThreeLevel::new(12, 1e6, 0.0, 0.01, 0.004, 0.0);
    let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert_eq!(
        s.sensitivity.verdict,
        Verdict::NotDetected,
        "{}",
        words(&s.sensitivity, "text")
    );
    // An interval that includes no difference: equivalent (not detected) when it stays
    // within the negligible margin, cannot tell (undetermined) when it reaches beyond it.
    let ci = s.shift.ci.unwrap();
    assert!(ci.lower < 1.0 && ci.upper > 1.0);
    let within = ci.lower >= 0.99 && ci.upper <= 1.01;
    let expected = if within {
        Verdict::NotDetected
    } else {
        Verdict::Undetermined
    };
    assert_eq!(s.shift.verdict, expected, "{}", words(&s.shift, "text"));
}

#[test]
fn shift_detector_false_positive_rate_is_at_most_five_percent() {
    // 1000 experiments with no shift (baseline effect 0) but real layout variance, 10 random
    // layouts × 3 executions × 2 iterations, baseline 3 executions.
    let design = Design::new(10, 3, 2);
    let mut alarms = 0;
    for k in 0..1000 {
        let mut gen = ThreeLevel::new(1000 + k, 1e6, 0.02, 0.01, 0.005, 0.0);
        let report = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
        let shift = &report.series[0].shift;
        // Every interval is bounded: "cannot tell" comes from an interval that includes no
        // difference, never from a missing one.
        assert!(shift.ci.is_some(), "experiment {k}: no interval");
        if matches!(shift.verdict, Verdict::Detected | Verdict::Negligible) {
            alarms += 1;
        }
    }
    assert!(
        alarms <= 50,
        "{alarms} false alarms in 1000 no-shift experiments"
    );
}

/// On a rounds schedule the fixed layout's shift is paired by round: the host's state during
/// a round moves the default layout and the random ones alike, so the rounds' shifts cancel
/// instead of widening the default layout's interval. 10 binaries × 6 rounds drifting 1 %
/// per round (5 % over the run, as a shared host does), execution noise 0.5 %, no layout
/// effect: a default layout 2 % faster is found in 200 of 200 experiments (unpaired, with an
/// interval over its own executions that spans the drift, in 122), and one no faster than the
/// random layouts raises an alarm in at most 5 % (7 of 200; unpaired 0).
#[test]
fn on_rounds_the_shift_is_paired_by_round() {
    let design = Design::new(10, 6, 1);
    let run = |k: u64, baseline_effect: f64| {
        let mut gen = ThreeLevel::new(3000 + k, 1e6, 0.0, 0.005, 0.0, baseline_effect);
        analysed_on_rounds(&design, &mut |_, seed, e, _, _| {
            gen.value(seed, e) * (1.0 + 0.01 * f64::from(e))
        })
    };
    let mut found = 0;
    let mut alarms = 0;
    for k in 0..200 {
        let shift = &run(k, -0.02).series[0].shift;
        if shift.verdict == Verdict::Detected && shift.ratio.unwrap() < 1.0 {
            found += 1;
        }
        let shift = &run(k, 0.0).series[0].shift;
        if matches!(shift.verdict, Verdict::Detected | Verdict::Negligible) {
            alarms += 1;
        }
    }
    assert!(
        found >= 190,
        "a 2 % faster default layout found in {found} of 200"
    );
    assert!(
        alarms <= 10,
        "{alarms} false alarms in 200 no-shift experiments"
    );
}

/// The store `r` as `run --resume` leaves it after `build --extend` added the binaries of
/// `seeds`: in an extension record, not in the header.
fn added_later(r: &mut layoutrand::files::store::Results, seeds: std::ops::RangeInclusive<u64>) {
    let added: Vec<String> = seeds.map(|s| format!("seed-{s}")).collect();
    let header = r.header.as_mut().unwrap();
    header.binaries.retain(|b| !added.contains(b));
    r.extensions.push(
        serde_json::from_value(serde_json::json!({"binaries": added, "added_unix": 1.0})).unwrap(),
    );
}

/// Binaries added after the run began (`build --extend`, `run --resume`) ran later, on the
/// host as it was then: 18 seeds added to 12, their phase 2 % slower, no layout effect at
/// all. Compared across phases the binaries read "layout-sensitive"; within their phase (each
/// phase's shift taken out, a design note saying so) they do not. libdeflate 1.14's added
/// seeds ran 0.85 % faster as a group.
#[test]
fn binaries_added_later_are_compared_within_their_phase() {
    let design = Design::new(30, 6, 1);
    let mut gen = ThreeLevel::new(77, 1e6, 0.0, 0.005, 0.0, 0.0);
    let store = results(&design, &mut |_, seed, e, _, _| {
        let later = seed.is_some_and(|s| s > 12);
        gen.value(seed, e) * if later { 1.02 } else { 1.0 }
    });
    let analysed = |extended: bool| {
        let mut r = store.clone();
        if extended {
            added_later(&mut r, 13..=30);
        }
        let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
        analyse(&e, &Thresholds::default()).unwrap()
    };
    let across = analysed(false);
    assert_eq!(across.series[0].sensitivity.verdict, Verdict::Detected);
    let within = analysed(true);
    let s = &within.series[0];
    assert_ne!(
        s.sensitivity.verdict,
        Verdict::Detected,
        "{:?}",
        s.sensitivity
    );
    let phases = s.diagnostics.concerns.iter().find_map(|c| match c {
        layoutrand::analysis::answers::model::DiagnosticConcern::Phases(p) => Some(p.clone()),
        _ => None,
    });
    let phases = phases.expect("a phases note");
    assert_eq!((phases.added, phases.phases), (18, 2));
    // The later phase sits 2 % above the first.
    assert!((phases.largest - 0.02).abs() < 0.002, "{phases:?}");
    // The mean over random layouts keeps every value as it ran.
    assert_eq!(s.mean, across.series[0].mean);
}

/// mawk's I1 misses under cachegrind, 12 seeds (one at 386k among 2.5k to 11k) and 12
/// added by `build --extend` and `run --resume`: each phase's shift, a mean of lumpy
/// layouts, took 16k out of the default layout's 10.9k misses (the report read "as built:
/// −5,059") and placed it below half the layouts it lies above. A simulated count has no
/// host state to take out: the phases stay as they ran. By wall time, the same lumpy layouts
/// in two phases: each phase's shift is a ratio of medians (−5.1 %), and the default stays
/// among the layouts, above all but two.
#[test]
fn added_binaries_among_lumpy_layouts_keep_their_counts() {
    use layoutrand::analysis::answers::model::DiagnosticConcern;
    let level = |seed: u64| match seed {
        1 => 386_445.0,
        5 | 19 => 10_633.0,
        s => 2_540.0 + 80.0 * (s % 12) as f64,
    };
    let analysed = |metric: (&str, &str), spec: &str| {
        let mut design = Design::new(24, 2, 1);
        design.metrics = vec![(metric.0.into(), metric.1.into())];
        design.spec = Some(spec.into());
        let mut r = results(&design, &mut |_, seed, _, _, _| {
            seed.map_or(10_923.0, level)
        });
        added_later(&mut r, 13..=24);
        let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
        analyse(&e, &Thresholds::default()).unwrap()
    };
    let phases_of = |s: &layoutrand::analysis::answers::model::SeriesReport| {
        s.diagnostics.concerns.iter().find_map(|c| match c {
            DiagnosticConcern::Phases(p) => Some(p.clone()),
            _ => None,
        })
    };
    let counted = analysed(("I1_misses", "count"), "cachegrind");
    let s = &counted.series[0];
    assert!(phases_of(s).is_none(), "a simulated count has no phases");
    // 23 of the 24 below the default's 10,923: all but seed-1, none equal.
    assert_eq!(s.default_layout.percentile, Some(23.0 / 24.0));
    let timed = analysed(("wall", "ns"), "wall");
    let s = &timed.series[0];
    let phases = phases_of(s).expect("a phases note");
    assert!(phases.largest.abs() < 0.1, "{phases:?}");
    // seed-19, in the later phase, now above it too: 10,633 / 0.949.
    assert_eq!(s.default_layout.percentile, Some(22.0 / 24.0));
}

#[test]
fn deterministic_metric_with_identical_executions_is_sensitive() {
    // Like cachegrind: each binary gives exactly the same count every time, and the counts
    // differ by at most 0.05 % between layouts.
    let design = Design::new(8, 2, 1);
    let r = results(&design, &mut |_, seed, _, _, _| {
        8_780_000.0 + 1000.0 * seed.map_or(0.5, |s| (s % 5) as f64)
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let strict = Thresholds {
        negligible: 0.0,
        ..Thresholds::default()
    };
    let report = analyse(&e, &strict).unwrap();
    let s = &report.series[0];
    assert_eq!(
        s.sensitivity.verdict,
        Verdict::Detected,
        "{}",
        words(&s.sensitivity, "text")
    );
    assert_eq!(s.sensitivity.p_value, Some(0.0));
    // Executions of one binary identical while binaries differ: an infinite F.
    assert!(
        matches!(&s.sensitivity.grounds, SensitivityGrounds::Tested(t) if t.anova_f.is_infinite()),
        "{:?}",
        s.sensitivity.grounds
    );
    // Detectable is not relevant (issue 10: gzip's I1 misses varying 0.31 %): at the
    // default 1 % threshold the verdict says so, and not that a single layout misstates
    // the program's performance.
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert_eq!(s.sensitivity.verdict, Verdict::Negligible);
    let ci = s.sensitivity.cv_across_binaries_ci.unwrap();
    assert!(ci.upper < 0.01 && ci.lower > 0.0, "{ci:?}");
    assert!(
        matches!(&s.sensitivity.grounds, SensitivityGrounds::Tested(t) if matches!(t.outcome, SensitivityOutcome::Negligible { ci: c } if c == ci)),
        "{:?}",
        s.sensitivity.grounds
    );
    // The summary, pinned whole: detectable but negligible, and the metric named in words
    // ("the wall time of synthetic", was "synthetic wall").
    insta::assert_snapshot!("negligible_summary", words(s, "summary"));
}

#[test]
fn all_values_equal_is_a_tie_not_below_every_layout() {
    // Issue 10: with all values equal the report said the default layout "is below those
    // of all 4 random layouts".
    let design = Design::new(4, 2, 2);
    let r = results(&design, &mut |_, _, _, _, _| 5.0);
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    // The sentence, pinned whole: the default layout's mean equals those of all 4.
    insta::assert_snapshot!("all_equal_shift", words(&s.shift, "text"));
    assert_eq!(
        s.shift.effect.as_ref().unwrap().verdict,
        layoutrand::analysis::effect::EffectVerdict::Tie
    );
    assert_eq!(s.sensitivity.verdict, Verdict::NotDetected);
}

#[test]
fn diagnostics_name_short_warmups_and_dependent_executions() {
    // 4 slow first iterations but only 2 discarded; seed-3's iterations instead drift
    // upwards all along.
    let mut design = Design::new(6, 2, 20);
    design.warmup = 2;
    let mut gen = ThreeLevel::new(21, 1e6, 0.01, 0.002, 0.002, 0.0);
    let r = results(&design, &mut |_, seed, e, i, _| {
        let drifting = seed == Some(3);
        let slow = if i < 4 && !drifting { 1.5 } else { 1.0 };
        let drift = if drifting {
            1.0 + 0.01 * f64::from(i)
        } else {
            1.0
        };
        gen.value(seed, e) * slow * drift
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let d = &report.series[0].diagnostics;
    assert_eq!(d.warmup_discarded, 2);
    let clean: Vec<_> = d
        .warmup_suggestions
        .iter()
        .filter(|w| w.binary != "seed-3")
        .collect();
    assert!(!clean.is_empty());
    for w in clean {
        assert_eq!(w.suggested, Some(4), "{w:?}");
        assert!(w.exceeds_discard);
    }
    let independence = d.independence.as_ref().unwrap();
    assert_eq!(independence.tested, 14);
    // The analysis keeps the failing executions as ids; the words name them.
    for execution in [0, 1] {
        let seed_3 = ExecutionId {
            binary: "seed-3".to_string(),
            execution,
        };
        assert!(
            independence.failing_executions.contains(&seed_3),
            "{independence:?}"
        );
        assert!(
            word_list(independence, "failing").contains(&format!("seed-3 execution {execution}")),
            "{independence:?}"
        );
    }
    assert_eq!(
        word_list(independence, "failing").len(),
        independence.failing_executions.len()
    );
}

/// The checks' and the design's notes are figures in the model, most important first, and
/// the words layer says each one: 3 binaries (fewer than Kalibera & Jones' 5) with one
/// execution each and no baseline run; drift is not tested for want of executions.
#[test]
fn diagnostics_hold_their_concerns_as_figures() {
    let mut design = Design::new(3, 1, 4);
    design.baseline = false;
    let mut gen = ThreeLevel::new(5, 1e6, 0.01, 0.002, 0.002, 0.0);
    let e = experiment(&design, &mut gen);
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let d = &report.series[0].diagnostics;
    // The host's warnings (the synthetic header's recorded state) come first; the rest in
    // order of importance.
    let own: Vec<_> = d
        .concerns
        .iter()
        .filter(|c| !matches!(c, DiagnosticConcern::Host(_)))
        .cloned()
        .collect();
    assert_eq!(
        own,
        [
            DiagnosticConcern::FewBinaries { binaries: 3 },
            DiagnosticConcern::OneExecutionPerBinary,
            DiagnosticConcern::NoBaseline,
        ],
        "{:?}",
        d.concerns
    );
    assert_eq!(d.drift_untested, Some(DriftUntested::TooFewExecutions));
    assert!(d.drift.is_none());
    // One sentence per concern, and the reason drift was not tested, once the words are in.
    assert_eq!(word_list(d, "notes").len(), d.concerns.len());
    assert!(optional_words(d, "drift_not_tested")
        .as_ref()
        .is_some_and(|w| !w.is_empty()));
}

/// Failure counts are kept per variant: the failures of one variant are neither blamed on
/// the other nor mixed into its diagnostics (they were counted per program before).
#[test]
fn failure_counts_are_split_per_variant() {
    let mut design = Design::new(4, 3, 2);
    design.variants = vec![("O1".into(), 1.0), ("O2".into(), 0.9)];
    design.failed_in = vec![("O2".into(), 1)];
    let r = results(&design, &mut |_, seed, e, i, _| {
        100.0 + seed.unwrap_or(0) as f64 + 0.1 * f64::from(e) + 0.01 * f64::from(i)
    });
    let experiment = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&experiment, &Thresholds::default()).unwrap();
    // 5 binaries (baseline, 4 seeds): O2's execution 1 fails on each.
    let key = |v: &str| ("demo".to_string(), Some(v.to_string()));
    assert_eq!(report.failures[&key("O1")].ok, 15, "{:?}", report.failures);
    assert_eq!(report.failures[&key("O1")].exit, 0);
    assert_eq!(report.failures[&key("O2")].ok, 10);
    assert_eq!(report.failures[&key("O2")].exit, 5);
    assert!(!report.failures.contains_key(&("demo".to_string(), None)));
    for s in &report.series {
        let expected = if s.variant.as_deref() == Some("O2") {
            5
        } else {
            0
        };
        assert_eq!(s.diagnostics.failures.exit, expected, "{:?}", s.variant);
    }
}

/// Issue 21: a store with one value of 1e308 got "fewer than 2 randomised binaries" and
/// "every execution gave the same value" from `report` while `analyze` named the overflow;
/// both now give the true reason, from the same check.
#[test]
fn an_overflowing_spread_is_named_as_such_everywhere() {
    let design = Design::new(4, 2, 2);
    let r = results(&design, &mut |_, seed, e, i, _| {
        if seed == Some(1) && e == 0 && i == 0 {
            1e308
        } else {
            1e6 + 1e3 * seed.unwrap_or(0) as f64 + f64::from(e) + f64::from(i)
        }
    });
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    assert!(s.ci.is_none());
    // The note, the mean's line and the summary, pinned whole: each names the range of
    // double precision (never "fewer than 2").
    insta::assert_snapshot!(
        "overflow_interval_note",
        optional_words(s, "interval_note").unwrap()
    );
    let line = layoutrand::report::export::tables::mean_line(s, 0.95);
    insta::assert_snapshot!("overflow_mean_line", line);
    assert_eq!(s.sensitivity.verdict, Verdict::Undetermined);
    assert_eq!(s.sensitivity.grounds, SensitivityGrounds::Overflow);
    insta::assert_snapshot!("overflow_summary", words(s, "summary"));
}

/// Issue 21: `dimension` recommended 1 execution per binary, after which `report` could
/// not test layout sensitivity. Eq. 3 with costly executions and cheap binaries says 1:
/// r_2 = ⌈sqrt(1/100 · 0.262778/0.774722)⌉ = ⌈0.058⌉ = 1; the advice is 2, with the reason.
#[test]
fn dimension_never_advises_a_design_report_calls_insufficient() {
    let costs = CostOverrides {
        iteration: Some(1.0),
        execution: Some(100.0),
        binary: Some(1.0),
    };
    let d = dimension(&kalibera_experiment(), costs, &[0.05], 0.95).unwrap();
    let execution = d.series[0]
        .levels
        .iter()
        .find(|l| l.name == "execution")
        .unwrap();
    assert_eq!(execution.optimal, Some(2));
    assert_eq!(execution.raised_from, Some(1));
    assert_eq!(
        execution.eq3,
        Some(layoutrand::stats::multilevel::OptimalCount::Count { repetitions: 1 })
    );
}

/// One execution per binary: the binaries are tested over their iterations, so each binary
/// is one process. On a time metric, binaries that differ (3 % between layouts, 1 % between
/// processes, 0.1 % between iterations) cannot be told from their processes; under
/// cachegrind, whose counts do not vary from process to process, the same data is a
/// detection.
#[test]
fn one_execution_per_binary_cannot_tell_a_layout_from_a_process_on_a_time_metric() {
    let mut design = Design::new(12, 1, 10);
    design.baseline = false;
    let mut gen = ThreeLevel::new(8, 1e6, 0.03, 0.01, 0.001, 0.0);
    let timed = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    let s = &timed.series[0].sensitivity;
    assert!(s.p_value.unwrap() < 1e-6, "{s:?}");
    assert_eq!(s.verdict, Verdict::Undetermined);
    assert!(
        matches!(&s.grounds, SensitivityGrounds::Tested(t)
            if t.outcome == SensitivityOutcome::OneProcessPerBinary),
        "{:?}",
        s.grounds
    );
    insta::assert_snapshot!(words(s, "text"));
    assert!(
        words(&timed.series[0], "summary").contains(
            "Cannot tell whether it is layout-sensitive: the binaries differ (F-test, p < \
             0.0001), but each ran in one process"
        ),
        "{}",
        words(&timed.series[0], "summary")
    );

    design.spec = Some("cachegrind".into());
    design.metrics = vec![("est_cycles".into(), "cycles".into())];
    let mut gen = ThreeLevel::new(8, 1e6, 0.03, 0.01, 0.001, 0.0);
    let counted = analyse(&experiment(&design, &mut gen), &Thresholds::default()).unwrap();
    assert_eq!(counted.series[0].sensitivity.verdict, Verdict::Detected);
}

/// On a rounds schedule whose rounds drift, the layout's share of an execution mean's
/// variance (the intraclass correlation) comes from the blocked test that decided, within
/// rounds, as the layout's own variation does: jq's run of 2026-12-06 (a drift of 7 %
/// between the run's halves) read "layout-sensitive … the layout accounts for an estimated
/// 0.0 % of the variance" beside "the layout's own share … is 2.4 %", the first from the
/// one-way components the drift swamped.
#[test]
fn on_rounds_the_layouts_share_of_the_variance_is_the_blocked_tests() {
    let design = Design::new(12, 6, 1);
    let mut gen = ThreeLevel::new(5, 1e6, 0.02, 0.004, 0.001, 0.0);
    let mut r = results(&design, &mut |_, seed, e, _, _| {
        gen.value(seed, e) * (1.0 + 0.08 * e as f64)
    });
    r.header.as_mut().unwrap().schedule_design = layoutrand::files::results::ScheduleDesign::Rounds;
    let e = from_parts(Path::new("synthetic"), manifest(&design), r).unwrap();
    let report = analyse(&e, &Thresholds::default()).unwrap();
    let s = &report.series[0];
    let sensitivity = &s.sensitivity;
    assert_eq!(sensitivity.verdict, Verdict::Detected, "{sensitivity:?}");
    // The one-way components: the drift between rounds swamps the layout.
    let binary = s.levels.iter().find(|l| l.name == "binary").unwrap();
    assert!(binary.t2 <= 0.0, "{binary:?}");
    // The share, from the same components as the layout's and the executions' variation.
    let (layout, noise) = (
        sensitivity.layout_variation.unwrap(),
        sensitivity.cv_across_executions.unwrap(),
    );
    let icc = sensitivity.icc.unwrap();
    let want = layout * layout / (layout * layout + noise * noise);
    assert!((icc - want).abs() < 1e-9, "{icc} {want}");
    assert!(
        icc > 0.8,
        "2 % between layouts against 0.4 % within rounds: {icc}"
    );
    let text = words(sensitivity, "text");
    assert!(
        text.contains(&format!(
            "the layout accounts for an estimated {} of the variance",
            layoutrand::report::numfmt::percent(icc, 2)
        )),
        "{text}"
    );
    // explain's (and so pin's) share is the same number.
    let share = layoutrand::explain::report_view(&e.series[0], &Thresholds::default()).share;
    assert_eq!(share, Some(icc));
}

/// On a rounds schedule with executions set aside, the binaries' spread "with the execution
/// noise included" comes from the same table as the layout's own share without it, so it is
/// never the smaller: Debian's mujs 1.3.2 (20 seeds × 5 executions, 8 set aside) read "the
/// binaries' means vary by 1.3 % (… execution noise included) … the layout's own share …
/// is 1.4 %", the first from the kept executions' means, the second from the blocked test.
#[test]
fn on_rounds_the_binaries_spread_with_noise_is_never_below_the_layouts_share() {
    let design = Design::new(20, 5, 1);
    for seed in 0..6 {
        let mut gen = ThreeLevel::new(100 + seed, 1e6, 0.014, 0.01, 0.001, 0.0);
        let report = analysed_on_rounds(&design, &mut |_, s, e, _, _| {
            // A drift between rounds, and bursts on a few executions (+7 % to +11 %).
            let burst = if (s.unwrap_or(0) * 7 + u64::from(e) * 3 + seed) % 13 == 0 {
                1.09
            } else {
                1.0
            };
            gen.value(s, e) * (1.0 + 0.01 * e as f64) * burst
        });
        let sensitivity = &report.series[0].sensitivity;
        assert!(
            sensitivity.executions_set_aside() > 0,
            "{seed}: {sensitivity:?}"
        );
        let spread = sensitivity.cv_across_binaries.unwrap();
        let layout = sensitivity.layout_variation.unwrap();
        let noise = sensitivity.cv_across_executions.unwrap();
        assert!(spread >= layout, "{seed}: {spread} < {layout}");
        // The row means of one table: their variance is the layout's component plus the
        // noise over the 5 rounds.
        let want = (layout * layout + noise * noise / 5.0).sqrt();
        assert!(
            (spread - want).abs() < 1e-9 * want.max(1.0) + 1e-12,
            "{seed}: {spread} {want}"
        );
        let ci = sensitivity.cv_across_binaries_ci.unwrap();
        assert!(
            ci.lower < spread && spread < ci.upper,
            "{seed}: {ci:?} {spread}"
        );
    }
}

/// On a rounds schedule the verdict's noise is the executions' within rounds; the table of
/// levels keeps the shifts between rounds. Debian's lame at -O1 on a host slowing down read
/// "t = 8.7 %" in the table beside "2.8 % between executions of one binary": the sentence
/// now says "within a round", and a note under the table says what it counts.
#[test]
fn a_drift_between_rounds_is_in_the_table_and_out_of_the_sentence_and_a_note_says_so() {
    let design = Design::new(10, 4, 1);
    let mut gen = ThreeLevel::new(31, 1e6, 0.01, 0.01, 0.001, 0.0);
    // Each round 5 % slower than the last: the table's executions vary several times more
    // than those within a round.
    let report = analysed_on_rounds(&design, &mut |_, s, e, _, _| {
        gen.value(s, e) * (1.0 + 0.05 * e as f64)
    });
    let s = &report.series[0];
    let table = s.levels.iter().find(|l| l.name == "execution").unwrap();
    let noise = s.sensitivity.cv_across_executions.unwrap();
    assert!(
        table.relative_variation.unwrap() > 2.0 * noise,
        "{table:?} {noise}"
    );
    let (text, _) =
        layoutrand::report::render_with_gate(&report, layoutrand::report::Format::Text).unwrap();
    let note = "The table counts every execution as it ran, the shifts between rounds included";
    let at = text.find(note).unwrap_or_else(|| panic!("{text}"));
    assert!(at < text.find("Layout sensitivity: ").unwrap(), "{text}");
    assert!(
        text.contains("between executions of one binary within a round"),
        "{text}"
    );
}
