//! The split of the variance (stats::variance_split): its estimates against R's lme4, and
//! the coverage and bias of each share's interval by seeded simulation of the crossed
//! design. The small version here can fail; the rate run is tests/figures'
//! `variance_split_coverage_figures` (benches/variance_split_coverage.sh), whose figures
//! docs/statistics.md quotes.

use layoutrand::seeded::SeededRng;
use layoutrand::stats::variance_split::{axis_tests, variance_split, Component};

/// The components of the split without machines, in the model's order.
const WITHOUT_MACHINES: [Component; 4] = [
    Component::Code,
    Component::Data,
    Component::CodeXData,
    Component::Run,
];

/// A crossed design and its true components `[σ_c², σ_d², σ_cd², σ_e²]`.
#[derive(Debug, Clone, Copy)]
pub struct Design {
    /// Code seeds.
    pub code_seeds: usize,
    /// Data seeds.
    pub data_seeds: usize,
    /// Executions per cell.
    pub replicates: usize,
    /// The true variance components.
    pub components: [f64; 4],
}

impl Design {
    /// The true shares.
    pub fn shares(&self) -> [f64; 4] {
        let total: f64 = self.components.iter().sum();
        self.components.map(|v| v / total)
    }

    /// One experiment's cells drawn from the model.
    pub fn draw(&self, rng: &mut SeededRng) -> Vec<Vec<Vec<f64>>> {
        let sd = self.components.map(f64::sqrt);
        let data: Vec<f64> = (0..self.data_seeds).map(|_| sd[1] * rng.normal()).collect();
        (0..self.code_seeds)
            .map(|_| {
                let code = sd[0] * rng.normal();
                data.iter()
                    .map(|d| {
                        let cell = 100.0 + code + d + sd[2] * rng.normal();
                        (0..self.replicates)
                            .map(|_| cell + sd[3] * rng.normal())
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }
}

/// Per component: the share of `experiments` 95 % intervals that covered the true share,
/// and the mean estimated share minus the true one.
pub fn coverage_and_bias(design: Design, experiments: usize, seed: u64) -> [(f64, f64); 4] {
    let mut rng = SeededRng::new(seed, "variance-split-coverage");
    let truth = design.shares();
    let mut covered = [0usize; 4];
    let mut bias = [0.0; 4];
    for e in 0..experiments {
        let cells = design.draw(&mut rng);
        let split = variance_split(&cells, 0.95, 1000, e as u64).expect("split");
        for (k, c) in WITHOUT_MACHINES.iter().enumerate() {
            let s = split.share_of(*c).expect("every component of the design");
            covered[k] += usize::from(s.interval.lower <= truth[k] && truth[k] <= s.interval.upper);
            bias[k] += (s.share - truth[k]) / experiments as f64;
        }
    }
    [0, 1, 2, 3].map(|k| (covered[k] as f64 / experiments as f64, bias[k]))
}

#[test]
fn estimates_match_lme4_reml_on_balanced_data() {
    // Drawn once with numpy (default_rng(35); 4 code seeds, 3 data seeds, 3 executions),
    // rounded to 0.01; R 4.2 lme4 1.1 (apt-get install r-base-core r-cran-lme4):
    //   d <- read.csv("vs.csv"); d$code <- factor(d$code); d$data <- factor(d$data)
    //   m <- lmer(y ~ 1 + (1|code) + (1|data) + (1|code:data), data=d, REML=TRUE)
    //   as.data.frame(VarCorr(m))  # code:data 0.968420117306, code 5.176991277762,
    //                              # data 15.113505362994, Residual 1.304113372127
    //   summary(aov(y ~ code*data, data=d))  # MS 50.8022472222 185.5721194444
    //                                        #    4.2093638889 1.3041138889
    // (With every estimate positive on balanced data, REML equals the ANOVA estimators.)
    let cells = vec![
        vec![
            vec![101.07, 101.45, 101.31],
            vec![97.13, 97.38, 98.1],
            vec![92.12, 96.01, 92.44],
        ],
        vec![
            vec![104.89, 107.07, 104.86],
            vec![99.54, 100.12, 101.19],
            vec![98.47, 100.89, 98.26],
        ],
        vec![
            vec![108.54, 107.78, 107.2],
            vec![102.47, 104.37, 103.71],
            vec![98.68, 96.1, 97.42],
        ],
        vec![
            vec![105.33, 105.6, 103.36],
            vec![100.52, 102.66, 101.74],
            vec![98.4, 97.05, 98.28],
        ],
    ];
    let split = variance_split(&cells, 0.95, 2000, 1).unwrap();
    let ms = split.mean_squares.values();
    for (got, want) in ms
        .iter()
        .zip([50.8022472222, 185.5721194444, 4.2093638889, 1.3041138889])
    {
        assert!((got - want).abs() < 1e-8, "{got} {want}");
    }
    // The per-axis F tests (Montgomery table 13.6) against scipy 1.x:
    //   python3 -c "from scipy.stats import f; print(f.sf(50.8022472222/4.2093638889, 3, 6),
    //     f.sf(185.5721194444/4.2093638889, 2, 6), f.sf(4.2093638889/1.3041138889, 6, 24))"
    //   # 0.00593920604429974 0.00025864306553723354 0.018088844896924493
    let tests = axis_tests(&split.mean_squares);
    let scipy = [
        (12.068865644085658, (3, 6), 0.00593920604429974),
        (44.08554934719462, (2, 6), 0.00025864306553723354),
        (3.2277578858166547, (6, 24), 0.018088844896924493),
    ];
    for (test, (f, df, p)) in tests.iter().zip(scipy) {
        assert!((test.f.unwrap() / f - 1.0).abs() < 1e-8, "{test:?}");
        assert_eq!((test.df_numerator, test.df_denominator), df);
        assert!((test.p_value / p - 1.0).abs() < 1e-6, "{test:?} {p}");
    }
    let lme4 = [
        5.176991277762,
        15.113505362994,
        0.968420117306,
        1.304113372127,
    ];
    let total: f64 = lme4.iter().sum();
    for (k, c) in WITHOUT_MACHINES.iter().enumerate() {
        let s = split.share_of(*c).expect("every component of the design");
        // lme4 maximises the REML likelihood numerically (to about 1e-5 relative; the exact
        // agreement is with aov's mean squares above).
        assert!(
            (s.variance / lme4[k] - 1.0).abs() < 1e-5,
            "{c:?} {}",
            s.variance
        );
        assert!((s.share - lme4[k] / total).abs() < 1e-5);
        assert!(0.0 <= s.interval.lower && s.interval.lower <= s.interval.upper);
        assert!(s.interval.upper <= 1.0);
    }
}

#[test]
fn the_same_seed_gives_the_same_intervals() {
    let design = Design {
        code_seeds: 5,
        data_seeds: 4,
        replicates: 2,
        components: [1.0, 1.0, 0.5, 1.0],
    };
    let cells = design.draw(&mut SeededRng::new(9, "same-seed"));
    let one = variance_split(&cells, 0.95, 500, 7).unwrap();
    let two = variance_split(&cells, 0.95, 500, 7).unwrap();
    assert_eq!(one, two);
}

#[test]
fn share_intervals_cover_the_truth_in_seeded_simulation() {
    // 400 experiments: the sd of a 95 % coverage is 1.1 %, so 3 sd either side is
    // 91.7–98.3 %.
    let design = Design {
        code_seeds: 10,
        data_seeds: 6,
        replicates: 3,
        components: [1.0, 2.0, 0.5, 1.5],
    };
    assert_every_share_covered(design, 400, 35, 0.917..=0.983);
}

/// Every share's interval covers its truth within `bounds` over `experiments` seeded
/// experiments of `design`.
fn assert_every_share_covered(
    design: Design,
    experiments: usize,
    seed: u64,
    bounds: std::ops::RangeInclusive<f64>,
) {
    let figures = coverage_and_bias(design, experiments, seed);
    for (c, (coverage, bias)) in Component::ALL.iter().zip(figures) {
        eprintln!("{c:?}: coverage {:.3}, bias {:+.4}", coverage, bias);
        assert!(bounds.contains(&coverage), "{c:?} coverage {coverage}");
    }
}

/// Where run noise dominates (run share 0.91), the run share's interval covered only 91 %
/// while the pivots of the small components were truncated at 0 one by one (a low draw of
/// a small component raised the total and pulled the run share's draw down); truncating the
/// share instead holds it at 95 %. 1000 experiments: the sd of a 95 % coverage is 0.69 %,
/// so 3 sd either side is 92.9–97.1 %, which the old 91 % fails.
#[test]
fn the_run_share_is_covered_where_run_noise_dominates() {
    let design = Design {
        code_seeds: 10,
        data_seeds: 6,
        replicates: 3,
        components: [0.2, 0.2, 0.1, 5.0],
    };
    assert_every_share_covered(design, 1000, 36, 0.929..=0.971);
}
