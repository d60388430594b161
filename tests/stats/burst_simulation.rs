//! Issues 36 and 55: a load burst must not become a layout verdict, and a lumpy layout effect
//! (one or a few layouts far off, as real layouts are) must not be missed. Seeded simulation
//! of the three-level design exactly as `run` plans it (the rounds schedule of
//! `run::schedule::build_schedule`): binaries × executions × 5 iterations, 1 % execution
//! noise, 0.5 % iteration noise, optional bursts (each +20 % on 1 to 3 consecutive executions
//! of the schedule starting anywhere in it), and the binaries' true means drawn from a
//! [`Truth`]: a normal spread, a few deviant layouts, or an effect on a share of them.
//!
//! The suite runs small seeded versions whose bounds can still fail; benches/burst.sh runs
//! `burst_rate_figures` (tests/figures, outside the suite) with many experiments (the figures
//! in docs/statistics.md).

use layoutrand::analysis::answers::model::{SensitivityGrounds, SensitivityOutcome, Verdict};
use layoutrand::analysis::answers::sensitivity::sensitivity;
use layoutrand::analysis::answers::series::{BinaryData, ExecutionData, Series};
use layoutrand::analysis::vocabulary::Thresholds;
use layoutrand::run::schedule::{build_schedule, ScheduleDesign};
use layoutrand::seeded::SeededRng;
use layoutrand::stats::anova::random_effects;

const ITERATIONS: usize = 5;
const EXECUTION_NOISE: f64 = 0.01;
const ITERATION_NOISE: f64 = 0.005;
const BURST: f64 = 0.20;

/// How the binaries' true means differ (relative to 1000).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Truth {
    /// Normally, with this relative standard deviation (0: no layout effect).
    Spread(f64),
    /// `count` binaries are `effect` off (0.05: 5 % slower), the others equal.
    Deviant { count: usize, effect: f64 },
    /// Each binary is `effect` off with probability `share`, else at the common level.
    Share { share: f64, effect: f64 },
}

/// One simulated experiment's design and truth.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scenario {
    pub(crate) binaries: usize,
    pub(crate) executions: u32,
    /// Bursts per run (each +20 % on 1 to 3 consecutive executions).
    pub(crate) bursts: usize,
    pub(crate) truth: Truth,
    pub(crate) design: ScheduleDesign,
}

impl Scenario {
    /// Issue 36's design: 10 binaries × 3 executions, two bursts, a normal spread.
    pub(crate) fn bursty(layout_sd: f64, design: ScheduleDesign) -> Scenario {
        Scenario {
            binaries: 10,
            executions: 3,
            bursts: 2,
            truth: Truth::Spread(layout_sd),
            design,
        }
    }

    /// The binaries' true means.
    fn truth(&self, rng: &mut SeededRng) -> Vec<f64> {
        (0..self.binaries)
            .map(|b| {
                1000.0
                    * match self.truth {
                        Truth::Spread(sd) => 1.0 + sd * rng.normal(),
                        Truth::Deviant { count, effect } => {
                            1.0 + if b < count { effect } else { 0.0 }
                        }
                        Truth::Share { share, effect } => {
                            let hit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= share;
                            1.0 + if hit { effect } else { 0.0 }
                        }
                    }
            })
            .collect()
    }

    /// One simulated store's series.
    pub(crate) fn simulated(&self, rng: &mut SeededRng) -> Series {
        let truth = self.truth(rng);
        let schedule = build_schedule(
            self.design,
            1,
            1,
            self.binaries,
            self.executions,
            rng.next_u64(),
            0,
        );
        let mut factor = vec![1.0; schedule.len()];
        for _ in 0..self.bursts {
            let start = rng.below(schedule.len() as u64) as usize;
            let length = 1 + rng.below(3) as usize;
            for f in factor.iter_mut().skip(start).take(length) {
                *f *= 1.0 + BURST;
            }
        }
        let mut seeds: Vec<BinaryData> = (0..self.binaries)
            .map(|b| BinaryData {
                binary: format!("seed-{}", b + 1),
                seed: Some(b as u64 + 1),
                executions: Vec::new(),
            })
            .collect();
        for (slot, f) in schedule.iter().zip(&factor) {
            let level = truth[slot.binary] * (1.0 + EXECUTION_NOISE * rng.normal()) * f;
            let live = (0..ITERATIONS)
                .map(|_| level * (1.0 + ITERATION_NOISE * rng.normal()))
                .collect();
            seeds[slot.binary].executions.push(ExecutionData {
                execution: slot.execution,
                schedule_index: slot.schedule_index,
                wall_ns: 0,
                data_seed: None,
                warmup: Vec::new(),
                live,
            });
        }
        Series {
            program: "p".into(),
            variant: None,
            metric: "wall".into(),
            unit: "ns".into(),
            seeds,
            baseline: None,
            as_built: None,
            warmup_discarded: 0,
            rounds: self.design == ScheduleDesign::Rounds,
            later_phases: Default::default(),
            binary_cost_seconds: None,
        }
    }
}

/// How many experiments of a scenario ended in each verdict, and how many lost an
/// execution to the outlier screen.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    pub(crate) experiments: usize,
    pub(crate) detected: usize,
    pub(crate) negligible: usize,
    pub(crate) not_detected: usize,
    pub(crate) undetermined: usize,
    /// Of the undetermined: a rejection resting on one binary not steady across rounds.
    pub(crate) rests_on_one: usize,
    /// Of the detected: resting on one binary off alike in every round.
    pub(crate) one_apart: usize,
    /// Of the undetermined: not rejected although the layout variation estimated is at
    /// least what the test finds with 80 % power.
    pub(crate) large_not_rejected: usize,
    /// Of the negligible: not rejected, the binaries' means' spread bounded within the
    /// threshold (`SensitivityOutcome::Bounded`): "at most X %", not a claim that the
    /// layout moves the metric.
    pub(crate) bounded: usize,
    pub(crate) lost_an_execution: usize,
    /// Claims ("detected" or "negligible") whose layout variation is 0 or unknown: a
    /// "sensitive" with a zero magnitude, which must never happen.
    pub(crate) zero_magnitude_claims: usize,
}

impl Tally {
    /// The share called layout-sensitive (detected, or detectable but negligible; a
    /// negligible verdict bounded without a rejection claims no effect).
    pub(crate) fn claimed(&self) -> f64 {
        (self.detected + self.negligible - self.bounded) as f64 / self.experiments as f64
    }
    pub(crate) fn share(&self, count: usize) -> f64 {
        count as f64 / self.experiments as f64
    }
}

/// The verdicts of `experiments` seeded experiments of `scenario`.
pub(crate) fn tally(experiments: usize, seed: u64, scenario: Scenario) -> Tally {
    let mut rng = SeededRng::new(seed, "burst-simulation");
    let mut t = Tally {
        experiments,
        ..Tally::default()
    };
    for _ in 0..experiments {
        let s = sensitivity(
            &scenario.simulated(&mut rng),
            &[],
            1000.0,
            &Thresholds::default(),
        );
        let rejected = matches!(&s.grounds, SensitivityGrounds::Tested(g) if g.outcome.rejects());
        if rejected && !s.layout_variation.is_some_and(|v| v > 0.0) {
            t.zero_magnitude_claims += 1;
        }
        match s.verdict {
            Verdict::Detected => t.detected += 1,
            Verdict::Negligible => t.negligible += 1,
            Verdict::NotDetected => t.not_detected += 1,
            Verdict::Undetermined => t.undetermined += 1,
        }
        if let SensitivityGrounds::Tested(g) = &s.grounds {
            match g.outcome {
                SensitivityOutcome::RestsOnOne => t.rests_on_one += 1,
                SensitivityOutcome::OneApart => t.one_apart += 1,
                SensitivityOutcome::LargeButNotRejected { .. } => t.large_not_rejected += 1,
                SensitivityOutcome::Bounded { .. } => t.bounded += 1,
                _ => {}
            }
        }
        if s.executions_set_aside() > 0 {
            t.lost_an_execution += 1;
        }
    }
    t
}

/// What the analysis before issue 36 did: the one-way F test of all execution means.
pub(crate) fn claimed_by_the_plain_f_test(series: &Series) -> bool {
    let groups: Vec<Vec<f64>> = series.seeds.iter().map(|b| b.execution_means()).collect();
    random_effects(&groups).is_ok_and(|a| a.p_value < 0.05)
}

/// The share of `experiments` seeded experiments that the plain F test rejects.
pub(crate) fn plain_f_rate(experiments: usize, seed: u64, scenario: Scenario) -> f64 {
    let mut rng = SeededRng::new(seed, "burst-simulation");
    let hits = (0..experiments)
        .filter(|_| claimed_by_the_plain_f_test(&scenario.simulated(&mut rng)))
        .count();
    hits as f64 / experiments as f64
}

/// The small seeded version: 300 experiments per rate. The blocked family's randomisation
/// test is exact, so its false claims are 5 % in expectation (the bench's two seeds: 5.8 %
/// and 4.2 %; this seed 6.7 %), and the bound is 2.8 standard errors above that; power ≈ 96 %
/// is 6 standard errors above its bound. An analysis with the old one's rates (F test of
/// all executions: power ≈ 15 %; an F test that ignored the bursts claimed far more) fails.
#[test]
fn bursts_do_not_become_layout_verdicts_and_a_3_percent_effect_is_found() {
    let false_claims = tally(300, 1, Scenario::bursty(0.0, ScheduleDesign::Rounds)).claimed();
    assert!(false_claims <= 0.085, "false claims {false_claims}");
    let power = tally(300, 2, Scenario::bursty(0.03, ScheduleDesign::Rounds)).claimed();
    assert!(power >= 0.80, "power {power}");
}

/// The simulation has teeth: its bursts swamp the analysis the issue started from (the
/// one-way F test of all executions, free schedule; 18.6 % power at 3 % in the bench's 2 000
/// experiments). 300 experiments: the bound is about 7 standard errors above that rate and
/// far below the 80 % the report's analysis must reach on the same kind of data.
#[test]
fn the_bursts_swamp_the_plain_f_test() {
    let power = plain_f_rate(300, 3, Scenario::bursty(0.03, ScheduleDesign::Free));
    assert!(power <= 0.35, "plain F power under bursts {power}");
}

/// Issue 55: real layouts are lumpy. One layout 5 % (or 50 %) off in every round of a
/// blocked store is called layout-sensitive (ranks of 3 rounds called it "no layout
/// sensitivity" in 30 % of stores), a 3 % effect on 30 % of the layouts is found through
/// bursts, clean stores keep their executions, and no claim has a zero magnitude. The
/// bench's rates (benches/burst.sh, docs/statistics.md) are about 98 %, 100 %, 95 % (80 %
/// at 10 × 3) and 0.5 %; the bounds below fail at the rates before issue 55 (30 % "not
/// detected", 15.7 % of clean 10 × 8 stores losing an execution, 40 % at 10 × 3 through
/// bursts).
#[test]
fn lumpy_layouts_are_found_and_clean_stores_kept_whole() {
    let rounds = |binaries, executions, bursts, truth| Scenario {
        binaries,
        executions,
        bursts,
        truth,
        design: ScheduleDesign::Rounds,
    };
    let mut zero_magnitude_claims = 0;
    for (effect, experiments) in [(0.05, 120), (0.5, 40)] {
        let t = tally(
            experiments,
            21,
            rounds(10, 3, 0, Truth::Deviant { count: 1, effect }),
        );
        assert!(t.claimed() >= 0.9, "one binary +{effect}: {t:?}");
        assert_eq!(t.not_detected, 0, "one binary +{effect}: {t:?}");
        zero_magnitude_claims += t.zero_magnitude_claims;
    }
    let spread = tally(
        120,
        22,
        rounds(
            10,
            8,
            2,
            Truth::Share {
                share: 0.3,
                effect: 0.03,
            },
        ),
    );
    assert!(spread.claimed() >= 0.8, "{spread:?}");
    // The same effect in the smallest blocked design, through bursts: the low fit's and the
    // round screens' share of the family (issue 55; a median polish and the plain table
    // alone found it in 40 %).
    let small = tally(
        120,
        24,
        rounds(
            10,
            3,
            2,
            Truth::Share {
                share: 0.3,
                effect: 0.03,
            },
        ),
    );
    assert!(small.claimed() >= 0.7, "{small:?}");
    zero_magnitude_claims += small.zero_magnitude_claims;
    let clean = tally(200, 23, rounds(10, 8, 0, Truth::Spread(0.0)));
    assert!(clean.share(clean.lost_an_execution) <= 0.02, "{clean:?}");
    zero_magnitude_claims += spread.zero_magnitude_claims + clean.zero_magnitude_claims;
    assert_eq!(zero_magnitude_claims, 0);
}
