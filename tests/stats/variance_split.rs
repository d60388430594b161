//! The split of the variance (stats::variance_split): its estimates against R's lme4, and
//! the coverage and bias of each share's interval by seeded simulation of the crossed
//! design. The small version here can fail; the rate run is tests/figures'
//! `variance_split_coverage_figures` (benches/variance_split_coverage.sh), whose figures
//! docs/statistics.md quotes.

use layoutrand::seeded::SeededRng;
use layoutrand::stats::variance_split::{
    axis_tests, machine_test, variance_split, variance_split_by_machine, Component, VarianceSplit,
};

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
        shares_of(self.components)
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
    coverage(
        (design.shares(), WITHOUT_MACHINES),
        experiments,
        SeededRng::new(seed, "variance-split-coverage"),
        |rng, e| variance_split(&design.draw(rng), 0.95, 1000, e).expect("split"),
    )
}

/// Per component of `components`: the share of `experiments` 95 % intervals of the splits
/// `split(rng, experiment)` makes that covered the true share in `truth`, and the mean
/// estimated share minus the true one.
fn coverage<const N: usize>(
    (truth, components): ([f64; N], [Component; N]),
    experiments: usize,
    mut rng: SeededRng,
    split: impl Fn(&mut SeededRng, u64) -> VarianceSplit,
) -> [(f64, f64); N] {
    let mut covered = [0usize; N];
    let mut bias = [0.0; N];
    for e in 0..experiments {
        let split = split(&mut rng, e as u64);
        for (k, c) in components.iter().enumerate() {
            let s = split.share_of(*c).expect("every component of the design");
            covered[k] += usize::from(s.interval.lower <= truth[k] && truth[k] <= s.interval.upper);
            bias[k] += (s.share - truth[k]) / experiments as f64;
        }
    }
    std::array::from_fn(|k| (covered[k] as f64 / experiments as f64, bias[k]))
}

/// Each of `components` over their sum.
fn shares_of<const N: usize>(components: [f64; N]) -> [f64; N] {
    let total: f64 = components.iter().sum();
    components.map(|v| v / total)
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

#[test]
fn the_machine_component_matches_statsmodels_anova_and_reml() {
    // Drawn once with numpy (default_rng(35): 4 code seeds, 3 data seeds, 2 machines × 2
    // executions; code sd 2, data sd 3, interaction sd 1, machines at −2 and +2, run sd 1),
    // rounded to 0.01; statsmodels 0.15 (pip install statsmodels), d a DataFrame of
    // (code, data, machine, y):
    //   ols = smf.ols("y ~ C(code)*C(data) + C(machine)", data=d).fit()
    //   anova_lm(ols, typ=2)  # MS code 52.1789909722, data 201.9670333333,
    //                         # code:data 6.2043722222, machine 242.8650187500,
    //                         # residual 1.0530001786 on 35 df
    //   d["one"] = 1; vc = {"code": "0 + C(code)", "data": "0 + C(data)",
    //     "cd": "0 + C(code):C(data)", "machine": "0 + C(machine)"}
    //   smf.mixedlm("y ~ 1", d, groups="one", vc_formula=vc, re_formula="0")
    //     .fit(reml=True, method=["bfgs"], maxiter=20000, gtol=1e-12)
    //   # code 3.831218228819264, data 12.235166366705984, cd 1.2878429937906668,
    //   # machine 10.075500918856061, scale 1.0530001800087228
    //   scipy.stats.f.sf(242.8650187500/1.0530001786, 1, 35)  # 5.646061117532322e-17
    // (Balanced, every estimate positive: REML equals the ANOVA estimators, to the
    // optimiser's tolerance.)
    let cells: Vec<Vec<Vec<Vec<f64>>>> = vec![
        vec![
            vec![vec![99.07, 99.45], vec![103.31, 102.92]],
            vec![vec![95.38, 96.1], vec![98.47, 102.36]],
            vec![vec![90.44, 91.48], vec![97.65, 95.45]],
        ],
        vec![
            vec![vec![103.33, 103.91], vec![108.98, 106.39]],
            vec![vec![99.01, 96.38], vec![103.39, 102.63]],
            vec![vec![97.92, 97.06], vec![102.96, 102.3]],
        ],
        vec![
            vec![vec![105.92, 103.35], vec![108.67, 108.98]],
            vec![vec![101.39, 99.14], vec![103.17, 105.31]],
            vec![vec![95.01, 95.64], vec![98.29, 99.52]],
        ],
        vec![
            vec![vec![102.1, 101.81], vec![105.82, 107.34]],
            vec![vec![98.46, 98.32], vec![103.23, 104.41]],
            vec![vec![96.78, 96.81], vec![101.09, 99.59]],
        ],
    ];
    let split = variance_split_by_machine(&cells, 0.95, 2000, 1).unwrap();
    let table = &split.mean_squares;
    let machine = table.machine.expect("a machine factor");
    let statsmodels = [
        (table.ms_code, 52.1789909722),
        (table.ms_data, 201.9670333333),
        (table.ms_code_x_data, 6.2043722222),
        (machine.ms_machine, 242.8650187500),
        (table.ms_run, 1.0530001786),
    ];
    for (got, want) in statsmodels {
        assert!((got - want).abs() < 1e-8, "{got} {want}");
    }
    assert_eq!(table.degrees_of_freedom(), [3, 2, 6, 35]);
    let test = machine_test(table).unwrap();
    assert_eq!((test.df_numerator, test.df_denominator), (1, 35));
    assert!(
        (test.p_value / 5.646061117532322e-17 - 1.0).abs() < 1e-6,
        "{test:?}"
    );
    let reml = [
        (Component::Code, 3.831218228819264),
        (Component::Data, 12.235166366705984),
        (Component::CodeXData, 1.2878429937906668),
        (Component::Machine, 10.075500918856061),
        (Component::Run, 1.0530001800087228),
    ];
    let total: f64 = reml.iter().map(|(_, v)| v).sum();
    for (c, v) in reml {
        let s = split.share_of(c).expect("every component");
        assert!((s.variance / v - 1.0).abs() < 1e-5, "{c:?} {}", s.variance);
        assert!((s.share - v / total).abs() < 1e-5, "{c:?}");
        assert!(0.0 <= s.interval.lower && s.interval.lower <= s.share);
        assert!(s.share <= s.interval.upper && s.interval.upper <= 1.0);
    }
    assert_eq!(split.shares.len(), 5);
}

/// A crossed design with machines: the true components `[σ_c², σ_d², σ_cd², σ_m², σ_e²]`,
/// `machines` machines each running `per_machine` executions of every cell.
#[derive(Debug, Clone, Copy)]
pub struct MachineDesign {
    pub code_seeds: usize,
    pub data_seeds: usize,
    pub machines: usize,
    pub per_machine: usize,
    pub components: [f64; 5],
}

impl MachineDesign {
    /// The true shares.
    pub fn shares(&self) -> [f64; 5] {
        shares_of(self.components)
    }

    /// One experiment's cells `[code][data][machine][execution]` drawn from the model.
    pub fn draw(&self, rng: &mut SeededRng) -> Vec<Vec<Vec<Vec<f64>>>> {
        let sd = self.components.map(f64::sqrt);
        let data: Vec<f64> = (0..self.data_seeds).map(|_| sd[1] * rng.normal()).collect();
        let machine: Vec<f64> = (0..self.machines).map(|_| sd[3] * rng.normal()).collect();
        (0..self.code_seeds)
            .map(|_| {
                let code = sd[0] * rng.normal();
                data.iter()
                    .map(|d| {
                        let cell = 100.0 + code + d + sd[2] * rng.normal();
                        machine
                            .iter()
                            .map(|m| {
                                (0..self.per_machine)
                                    .map(|_| cell + m + sd[4] * rng.normal())
                                    .collect()
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }
}

/// Per component (machine included): the share of `experiments` 95 % intervals that
/// covered the true share, and the mean estimated share minus the true one.
pub fn machine_coverage_and_bias(
    design: MachineDesign,
    experiments: usize,
    seed: u64,
) -> [(f64, f64); 5] {
    coverage(
        (design.shares(), Component::ALL),
        experiments,
        SeededRng::new(seed, "variance-split-machine-coverage"),
        |rng, e| variance_split_by_machine(&design.draw(rng), 0.95, 1000, e).expect("split"),
    )
}

#[test]
fn the_machine_share_is_covered_and_the_run_share_falls_short() {
    // 6 binaries × 4 data seeds × 4 machines × 2 executions, every component present,
    // the machines a fifth of the variance. At 2 000 experiments (docs/statistics.md) the
    // code, data, interaction and machine shares' intervals cover 94.7–96.0 %, the run
    // share's only 91.6 % (its estimate 2.5 points high): with 3 df for the machines, the
    // pivot of the total is too wide in its upper tail. 400 experiments: a true coverage
    // of 95 % lands in 92.5–97.5 % with probability 0.99 (binomial), one of 91.6 % in
    // 88.0–95.2 %; the bounds below are those, so that the test fails if either moves.
    let design = MachineDesign {
        code_seeds: 6,
        data_seeds: 4,
        machines: 4,
        per_machine: 2,
        components: [1.0, 1.0, 0.5, 1.0, 1.5],
    };
    let results = machine_coverage_and_bias(design, 400, 35);
    for (c, (coverage, bias)) in Component::ALL.iter().zip(results) {
        let band = if *c == Component::Run {
            0.880..=0.952
        } else {
            0.925..=0.975
        };
        assert!(band.contains(&coverage), "{c:?} {coverage} {bias}");
        assert!(bias.abs() < 0.05, "{c:?} {coverage} {bias}");
    }
}
