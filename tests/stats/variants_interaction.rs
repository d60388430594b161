//! Seeded simulations of the variants design (issue 21): seeds × rounds × iterations, every
//! variant of a seed run back to back in each round (one block, as the scheduler runs
//! them). Values are `μ_v · exp(L_j + I_vj + D_jk + E_vjk + ε_vjki)`: `L_j` the layout
//! (shared by the variants), `I_vj` the variant × layout interaction, `D_jk` the drift of
//! block `(j, k)` (shared by the variants), `E_vjk` execution noise, `ε` iteration noise.
//!
//! Checked: the interaction is called "detected" for a constant speedup in at most 5 % of
//! experiments (with and without shared block drift); its power under drift is within a few
//! points of an oracle that knows the drift; and with three identical variants the headline
//! comparisons against the base claim "faster"/"slower" (and the gate trips) in at most 5 %
//! of experiments. Counts per experiment; every draw from a `SeededRng`.

use layoutrand::analysis::effect::Direction;
use layoutrand::analysis::variants::{
    compare_variants, VariantAnalysis, VariantData, VariantOptions,
};
use layoutrand::analysis::vocabulary::{Thresholds, Verdict};
use layoutrand::seeded::SeededRng;
use layoutrand::stats::hierarchy::Hierarchy;
use layoutrand::stats::twoway::two_way_mixed;

const SEEDS: usize = 10;
const ROUNDS: usize = 5;
const ITERATIONS: usize = 2;

/// The design's standard deviations on the log scale.
#[derive(Clone, Copy)]
struct Design {
    layout: f64,
    interaction: f64,
    drift: f64,
    execution: f64,
    iteration: f64,
}

/// One simulated experiment: per variant its hierarchy (`seed-j` ids) and its execution
/// means with the block drift removed (what only a simulation knows: the oracle's data).
struct Simulated {
    hierarchies: Vec<Hierarchy>,
    oracle_logs: Vec<Vec<Vec<f64>>>,
}

fn simulate(rng: &mut SeededRng, means: &[f64], d: Design) -> Simulated {
    let layouts: Vec<f64> = (0..SEEDS).map(|_| d.layout * rng.normal()).collect();
    let drifts: Vec<Vec<f64>> = (0..SEEDS)
        .map(|_| (0..ROUNDS).map(|_| d.drift * rng.normal()).collect())
        .collect();
    let mut hierarchies = Vec::new();
    let mut oracle_logs = Vec::new();
    for (v, mu) in means.iter().enumerate() {
        let mut values = Vec::with_capacity(SEEDS * ROUNDS * ITERATIONS);
        let mut cells = Vec::new();
        for j in 0..SEEDS {
            // The base is the reference: only the other variants' ratio varies by layout.
            let own = if v == 0 {
                0.0
            } else {
                d.interaction * rng.normal()
            };
            let mut cell = Vec::new();
            for &drift in &drifts[j] {
                let e = mu.ln() + layouts[j] + own + drift + d.execution * rng.normal();
                let its: Vec<f64> = (0..ITERATIONS)
                    .map(|_| (e + d.iteration * rng.normal()).exp())
                    .collect();
                let mean = its.iter().sum::<f64>() / ITERATIONS as f64;
                cell.push(mean.ln() - drift);
                values.extend(its);
            }
            cells.push(cell);
        }
        let ids = (0..SEEDS).map(|j| format!("seed-{j}")).collect();
        hierarchies.push(
            Hierarchy::from_nested(values, vec![ITERATIONS, ROUNDS, SEEDS])
                .unwrap()
                .with_top_ids(ids)
                .unwrap(),
        );
        oracle_logs.push(cells);
    }
    Simulated {
        hierarchies,
        oracle_logs,
    }
}

fn analyse(s: &Simulated, thresholds: Thresholds, fail_if_slower: Option<f64>) -> VariantAnalysis {
    let names = ["A", "B", "C", "D"];
    let data: Vec<VariantData> = s
        .hierarchies
        .iter()
        .zip(names)
        .map(|(hierarchy, name)| VariantData {
            name,
            hierarchy,
            cells: None,
        })
        .collect();
    let options = VariantOptions {
        suite_cases: 1,
        thresholds,
        is_time: true,
        is_rate: false,
        base: None,
        bootstrap: None,
        fail_if_slower,
    };
    compare_variants("p", "wall", &data, &options).unwrap()
}

/// The old engine's test: the two-way mixed ANOVA's interaction on the raw execution means.
fn raw_scale_p(s: &Simulated) -> f64 {
    let cells: Vec<Vec<Vec<f64>>> = s
        .hierarchies
        .iter()
        .map(|h| (0..SEEDS).map(|j| h.child_means(j)).collect())
        .collect();
    two_way_mixed(&cells).unwrap().interaction.unwrap().p_value
}

/// The oracle: the same two-way mixed ANOVA on the log scale with each block's drift
/// subtracted (known only in a simulation), so that its within-cell error is the execution
/// noise alone, on `2 · SEEDS · (ROUNDS − 1)` df.
fn oracle_p(s: &Simulated) -> f64 {
    two_way_mixed(&s.oracle_logs)
        .unwrap()
        .interaction
        .unwrap()
        .p_value
}

/// Counts per experiment for the two-variant interaction.
#[derive(Default, Debug)]
struct Counts {
    rejected: usize,
    called_varying: usize,
    oracle: usize,
    raw: usize,
}

fn interaction_counts(seed: u64, runs: usize, d: Design) -> Counts {
    let mut rng = SeededRng::new(seed, "variants-interaction");
    let mut c = Counts::default();
    for _ in 0..runs {
        // A constant 2× speedup on every layout.
        let s = simulate(&mut rng, &[100.0, 50.0], d);
        let i = analyse(&s, Thresholds::default(), None).comparisons[0]
            .pair
            .interaction
            .clone()
            .expect("an interaction for matched seeds with 5 rounds");
        c.rejected += usize::from(i.p_value.is_some_and(|p| p < 0.05));
        c.called_varying += usize::from(i.verdict == Verdict::Detected);
        c.oracle += usize::from(oracle_p(&s) < 0.05);
        c.raw += usize::from(raw_scale_p(&s) < 0.05);
    }
    c
}

const QUIET: Design = Design {
    layout: 0.03,
    interaction: 0.0,
    drift: 0.0,
    execution: 0.01,
    iteration: 0.005,
};

// 1 000 experiments: at a true 5 % size the count has standard deviation 6.9, so 5 % ± 3 of
// them is 29 to 71.
const RUNS: usize = 1000;

#[test]
fn a_constant_speedup_is_called_varying_in_at_most_5_percent() {
    for (name, seed, d) in [
        ("no drift", 1, QUIET),
        (
            "shared block drift",
            2,
            Design {
                drift: 0.05,
                ..QUIET
            },
        ),
    ] {
        let c = interaction_counts(seed, RUNS, d);
        eprintln!("constant 2× speedup, {name}, {RUNS} experiments: {c:?}");
        assert!((29..=71).contains(&c.rejected), "{name}: size {c:?}");
        assert!(c.called_varying <= 71, "{name}: {c:?}");
    }
}

#[test]
fn power_under_block_drift_is_close_to_the_oracle() {
    // A true interaction of 0.6 % (sd of the log-ratio across layouts) under 5 % block drift:
    // the oracle (drift subtracted, twice the error df) is the reference. 600 experiments:
    // the difference of two powers near 50 % has standard error under 2.9 points (less,
    // as the two tests see the same data), so 8 points is a generous "a few".
    let runs = 600;
    let d = Design {
        interaction: 0.006,
        drift: 0.05,
        ..QUIET
    };
    let c = interaction_counts(3, runs, d);
    let (power, oracle, raw) = (
        c.rejected as f64 / runs as f64,
        c.oracle as f64 / runs as f64,
        c.raw as f64 / runs as f64,
    );
    eprintln!("interaction sd 0.6 %, drift 5 %: power {power}, oracle {oracle}, raw scale {raw}");
    assert!((power - oracle).abs() <= 0.08, "{c:?}");
    assert!(power > 0.2 && power > raw + 0.1, "{c:?}");
}

#[test]
fn a_true_interaction_is_detected() {
    // 1.5 % sd of the ratio across layouts, 5 % block drift: detected in nearly every
    // experiment, and the spread's interval covers the true one.
    let runs = 300;
    let d = Design {
        interaction: 0.015,
        drift: 0.05,
        ..QUIET
    };
    let mut rng = SeededRng::new(4, "variants-interaction");
    let (mut detected, mut covered) = (0, 0);
    for _ in 0..runs {
        let s = simulate(&mut rng, &[100.0, 50.0], d);
        let a = analyse(&s, Thresholds::default(), None);
        let i = a.comparisons[0].pair.interaction.as_ref().unwrap();
        detected += usize::from(i.verdict == Verdict::Detected);
        let truth = 0.015f64.exp_m1();
        covered += usize::from(i.spread_ci.lower <= truth && truth <= i.spread_ci.upper);
    }
    eprintln!("interaction sd 1.5 %: detected {detected}/{runs}, spread covered {covered}/{runs}");
    assert!(detected as f64 / runs as f64 > 0.9, "{detected}");
    // 95 % coverage, 300 experiments: standard error 1.3 points.
    assert!(covered as f64 / runs as f64 > 0.9, "{covered}");
}

/// Three identical variants, `runs` experiments: (experiments with a "faster"/"slower"
/// claim against the base, experiments whose 0 % gate trips, experiments with such a claim
/// had each pair been analysed alone, unadjusted). An experiment counts once however many of
/// its comparisons claim. No relevance threshold, so every detection counts.
pub(crate) fn three_identical(runs: usize) -> (usize, usize, usize) {
    let strict = Thresholds::new(0.95, 0.0).unwrap();
    let mut rng = SeededRng::new(5, "variants-three-identical");
    let d = Design {
        drift: 0.02,
        ..QUIET
    };
    let claims = |a: &VariantAnalysis| {
        a.comparisons
            .iter()
            .any(|c| matches!(c.pair.direction, Direction::Faster | Direction::Slower))
    };
    let (mut claimed, mut tripped, mut unadjusted) = (0, 0, 0);
    for _ in 0..runs {
        let s = simulate(&mut rng, &[100.0, 100.0, 100.0], d);
        let a = analyse(&s, strict, Some(0.0));
        claimed += usize::from(claims(&a));
        tripped += usize::from(a.comparisons.iter().any(|c| c.pair.slower_beyond_threshold));
        let alone = [1, 2].map(|v| {
            let pair = Simulated {
                hierarchies: vec![s.hierarchies[0].clone(), s.hierarchies[v].clone()],
                oracle_logs: Vec::new(),
            };
            claims(&analyse(&pair, strict, None))
        });
        unadjusted += usize::from(alone.iter().any(|&c| c));
    }
    (claimed, tripped, unadjusted)
}

#[test]
fn three_identical_variants_claim_faster_or_slower_in_at_most_5_percent() {
    // Tukey's family (computed for k > 2) makes each experiment cost a studentized-range
    // quantile, so this runs 200 experiments; the 2 000-experiment run is the ignored test
    // below (benches/variants_interaction.sh). At a true 5 % the count has sd 3.1: at most
    // 5 % + 3 sd is 19. The same experiments analysed pair by pair without the adjustment
    // claim in about 9 % (the figure): the adjusted count must be clearly lower.
    let (claimed, tripped, unadjusted) = three_identical(200);
    eprintln!("three identical variants, 200 experiments: claims {claimed}, gate {tripped}, unadjusted claims {unadjusted}");
    assert!(claimed <= 19 && tripped <= 19, "{claimed} {tripped}");
    assert!(claimed < unadjusted, "{claimed} vs {unadjusted}");
}
