//! Where the variation comes from: code layout, data layout, their interaction and run
//! noise, as shares of the variance between executions (issue 35).
//!
//! The model is the two-way crossed random-effects model with replication (Searle, Casella &
//! McCulloch, "Variance Components", 1992, §4.6, the two-way crossed classification with
//! interaction, balanced data; Montgomery, "Design and Analysis of Experiments", §13.2, the
//! two-factor random-effects model):
//!
//! `y_ijk = μ + c_i + d_j + (cd)_ij + e_ijk`, with `c_i ~ N(0, σ_c²)` the code seed
//! (binary) `i` of `a`, `d_j ~ N(0, σ_d²)` the data seed `j` of `b`, `(cd)_ij ~ N(0, σ_cd²)`
//! their interaction and `e_ijk ~ N(0, σ_e²)` the replicate `k` of `n` (an execution,
//! summarised by its mean). The ANOVA mean squares have the expected values (Searle et al.
//! table 4.8; Montgomery eq. 13.9)
//!
//! - `E[MS_C]  = σ_e² + n σ_cd² + b n σ_c²` on `a − 1` df,
//! - `E[MS_D]  = σ_e² + n σ_cd² + a n σ_d²` on `b − 1` df,
//! - `E[MS_CD] = σ_e² + n σ_cd²` on `(a − 1)(b − 1)` df,
//! - `E[MS_E]  = σ_e²` on `a b (n − 1)` df,
//!
//! and equating them to the observed mean squares gives the ANOVA estimators
//! `σ̂_c² = (MS_C − MS_CD)/(b n)`, `σ̂_d² = (MS_D − MS_CD)/(a n)`,
//! `σ̂_cd² = (MS_CD − MS_E)/n`, `σ̂_e² = MS_E` (Searle et al. eq. 4.73), each truncated at 0
//! (a negative estimate says the component is not detectable; Searle et al. §4.3.b), and the
//! share of a component is its estimate over their sum.
//!
//! The interval of each share is a generalized confidence interval (Weerahandi, "Generalized
//! confidence intervals", JASA 1993; for this very design, the gauge R&R study, Hamada &
//! Weerahandi, Technometrics 2000, and Burdick, Borror & Montgomery, "Design and Analysis of
//! Gauge R&R Studies", 2005, §6.4): the mean squares are independent, `df·MS/E[MS] ~ χ²_df`,
//! so `R = df · ms / W` with `W ~ χ²_df` drawn afresh is a generalized pivotal quantity for
//! each expected mean square; the components computed from the `R`s by the same equations,
//! each over their sum and the ratio truncated to `[0, 1]` (the truncation is applied to the
//! share, not to each component: see `pivot_shares`), are pivots for the shares, and the
//! interval is their `α/2` and `1 − α/2` quantiles over seeded draws. Every drawn share
//! lies in `[0, 1]`, so the interval does. Its coverage, measured by seeded simulation, is in
//! docs/statistics.md.
//!
//! **Machines.** When the executions ran on `M ≥ 2` machines, each cell's `n = M r`
//! replicates `r` on every machine, the machine is a third random factor, additive:
//! `y_ijmk = μ + c_i + d_j + (cd)_ij + m_m + e_ijmk`, `m_m ~ N(0, σ_m²)`; its interactions
//! with code and data (a machine that favours some layouts) are pooled into `e`, since
//! with a handful of machines they could not be told from run noise. Every machine being in
//! every cell equally often, machines are orthogonal to code, data and their interaction
//! (Montgomery §5.3 and §13.2 for the additive factor in a balanced design): a cell's mean
//! holds the same average machine effect as every other, so `MS_C`, `MS_D` and `MS_CD` keep
//! their expectations, and the within-cell sum of squares splits into
//! `SS_M = a b r Σ_m (ȳ_··m· − ȳ)²` on `M − 1` df, `E[MS_M] = σ_e² + a b r σ_m²`, and the
//! rest, `MS_E` on `a b (n − 1) − (M − 1)` df, `E[MS_E] = σ_e²`. So
//! `σ̂_m² = (MS_M − MS_E)/(a b r)`, truncated at 0, its F test `MS_M / MS_E`, and its pivot
//! drawn like the others'. Unbalanced machines (some machine missing from a cell, or in
//! other numbers) break the orthogonality: the split then keeps the machines inside run
//! noise and says so (`crate::variance_split` callers).

use serde::Serialize;

use super::error::{at_least, check_confidence, StatsError};
use super::interval::Interval;
use super::sample::{mean, quantile};
use crate::seeded::SeededRng;

/// A source of variation between executions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
// Not #[non_exhaustive], like mann_whitney's PMethod: the report names each component in
// words, and a new component must fail to compile there until it has its words.
pub enum Component {
    /// Where the code sits: the code seed (binary).
    Code,
    /// Where the data sits: the data seed.
    Data,
    /// A data layout's effect that differs from binary to binary.
    CodeXData,
    /// Which machine ran the execution (runs on several machines, balanced).
    Machine,
    /// Run-to-run noise: executions of the same binary with the same data seed (on the same
    /// machine, when machines are a component).
    Run,
}

impl Component {
    /// The five components, in the order of the model.
    pub const ALL: [Component; 5] = [
        Component::Code,
        Component::Data,
        Component::CodeXData,
        Component::Machine,
        Component::Run,
    ];
}

/// The machine factor of a crossed design whose executions ran on several machines, each
/// in every cell equally often.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MachineMeanSquare {
    /// Machines `M`.
    pub machines: usize,
    /// Replicates of every cell on every machine `r` (`n = M r`).
    pub per_machine: usize,
    /// `MS_M = a b r Σ_m (ȳ_··m· − ȳ)² / (M − 1)`.
    pub ms_machine: f64,
}

/// The ANOVA table of the crossed design.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CrossedMeanSquares {
    /// Code seeds `a`.
    pub code_seeds: usize,
    /// Data seeds `b`.
    pub data_seeds: usize,
    /// Replicates per cell `n`.
    pub replicates: usize,
    /// `MS_C = b n Σ(ȳ_i·· − ȳ)² / (a − 1)`.
    pub ms_code: f64,
    /// `MS_D = a n Σ(ȳ_·j· − ȳ)² / (b − 1)`.
    pub ms_data: f64,
    /// `MS_CD = n ΣΣ(ȳ_ij· − ȳ_i·· − ȳ_·j· + ȳ)² / ((a − 1)(b − 1))`.
    pub ms_code_x_data: f64,
    /// `MS_E = ΣΣΣ(y_ijk − ȳ_ij·)² / (a b (n − 1))`; with a machine factor, what is left
    /// of that sum after `SS_M`, over `a b (n − 1) − (M − 1)`.
    pub ms_run: f64,
    /// The machine factor, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineMeanSquare>,
}

impl CrossedMeanSquares {
    /// Degrees of freedom of the mean squares of code, data, their interaction and run.
    pub fn degrees_of_freedom(&self) -> [usize; 4] {
        let (a, b, n) = (self.code_seeds, self.data_seeds, self.replicates);
        let machines = self.machine.map_or(0, |m| m.machines - 1);
        [a - 1, b - 1, (a - 1) * (b - 1), a * b * (n - 1) - machines]
    }

    /// The mean squares in the order of [`Component::ALL`].
    pub fn values(&self) -> [f64; 4] {
        [self.ms_code, self.ms_data, self.ms_code_x_data, self.ms_run]
    }
}

/// One component's part of the variance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ComponentShare {
    /// Which component.
    pub component: Component,
    /// Its variance, the ANOVA estimate truncated at 0.
    pub variance: f64,
    /// Its share of the total variance, in `[0, 1]`.
    pub share: f64,
    /// The generalized confidence interval of the share, within `[0, 1]`.
    pub interval: Interval,
}

/// The split of the variance between executions.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct VarianceSplit {
    /// The ANOVA table it comes from.
    pub mean_squares: CrossedMeanSquares,
    /// One entry per component of the design, in the order of [`Component::ALL`].
    pub shares: Vec<ComponentShare>,
    /// The intervals' confidence level.
    pub confidence: f64,
    /// Pivot draws behind each interval.
    pub draws: usize,
}

impl VarianceSplit {
    /// The entry of `component`, when it is one of the split (the machine is only with a
    /// machine factor).
    pub fn share_of(&self, component: Component) -> Option<&ComponentShare> {
        self.shares.iter().find(|s| s.component == component)
    }
}

/// The mean squares of `cells[i][j]`, the replicates of code seed `i` with data seed `j`.
/// Needs at least two code seeds, two data seeds and the same number (≥ 2) of finite
/// replicates in every cell (with one replicate the interaction cannot be told from run
/// noise).
pub fn crossed_mean_squares<C: AsRef<[f64]>>(
    cells: &[Vec<C>],
) -> Result<CrossedMeanSquares, StatsError> {
    let (a, b, n) = crossed_shape(cells)?;
    let cell_means: Vec<Vec<f64>> = cells
        .iter()
        .map(|row| row.iter().map(|c| mean(c.as_ref())).collect())
        .collect();
    let code_means: Vec<f64> = cell_means.iter().map(|r| mean(r)).collect();
    let data_means: Vec<f64> = (0..b)
        .map(|j| cell_means.iter().map(|r| r[j]).sum::<f64>() / a as f64)
        .collect();
    let grand = mean(&code_means);
    let (af, bf, nf) = (a as f64, b as f64, n as f64);
    let squares = |means: &[f64]| means.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    let mut ss_cd = 0.0;
    let mut ss_e = 0.0;
    for (i, row) in cells.iter().enumerate() {
        for (j, cell) in row.iter().enumerate() {
            let m = cell_means[i][j];
            ss_cd += (m - code_means[i] - data_means[j] + grand).powi(2);
            ss_e += cell.as_ref().iter().map(|y| (y - m).powi(2)).sum::<f64>();
        }
    }
    Ok(CrossedMeanSquares {
        code_seeds: a,
        data_seeds: b,
        replicates: n,
        ms_code: bf * nf * squares(&code_means) / (af - 1.0),
        ms_data: af * nf * squares(&data_means) / (bf - 1.0),
        ms_code_x_data: nf * ss_cd / ((af - 1.0) * (bf - 1.0)),
        ms_run: ss_e / (af * bf * (nf - 1.0)),
        machine: None,
    })
}

/// The mean squares of `cells[i][j][m]`, the replicates of code seed `i` with data seed `j`
/// on machine `m`: the crossed table of the replicates pooled over machines, with the
/// machine factor taken out of its run noise (see the module's comment). Needs two code
/// seeds, two data seeds, two machines and the same number (≥ 1) of finite replicates on
/// every machine in every cell.
pub fn crossed_mean_squares_by_machine<C: AsRef<[f64]>>(
    cells: &[Vec<Vec<C>>],
) -> Result<CrossedMeanSquares, StatsError> {
    const METHOD: &str = "the split of the variance by machine";
    let machines = cells
        .first()
        .and_then(|row| row.first())
        .map_or(0, Vec::len);
    at_least(METHOD, "machines", 2, machines)?;
    let r = cells[0][0][0].as_ref().len();
    at_least(METHOD, "executions per cell on each machine", 1, r)?;
    let balanced = cells
        .iter()
        .flatten()
        .all(|cell| cell.len() == machines && cell.iter().all(|on| on.as_ref().len() == r));
    if !balanced {
        return Err(StatsError::Domain(
            "the split by machine needs every machine in every cell, the same number of \
             executions each"
                .into(),
        ));
    }
    let pooled: Vec<Vec<Vec<f64>>> = cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| cell.iter().flat_map(|on| on.as_ref().to_vec()).collect())
                .collect()
        })
        .collect();
    let mut table = crossed_mean_squares(&pooled)?;
    let (a, b, n) = (table.code_seeds, table.data_seeds, table.replicates);
    let machine_means: Vec<f64> = (0..machines)
        .map(|m| {
            let on: Vec<f64> = cells
                .iter()
                .flatten()
                .flat_map(|cell| cell[m].as_ref().to_vec())
                .collect();
            mean(&on)
        })
        .collect();
    let grand = mean(&machine_means);
    let ss_machine = (a * b * r) as f64
        * machine_means
            .iter()
            .map(|m| (m - grand).powi(2))
            .sum::<f64>();
    let within = table.ms_run * (a * b * (n - 1)) as f64;
    let df_run = a * b * (n - 1) - (machines - 1);
    table.ms_run = (within - ss_machine).max(0.0) / df_run as f64;
    table.machine = Some(MachineMeanSquare {
        machines,
        per_machine: r,
        ms_machine: ss_machine / (machines - 1) as f64,
    });
    Ok(table)
}

/// The shape `(a, b, n)` of `cells`, refused unless it is a balanced crossed design with at
/// least two levels of each factor, at least two replicates and finite values.
fn crossed_shape<C: AsRef<[f64]>>(cells: &[Vec<C>]) -> Result<(usize, usize, usize), StatsError> {
    const METHOD: &str = "the split of the variance (code × data)";
    let a = cells.len();
    at_least(METHOD, "code seeds", 2, a)?;
    let b = cells[0].len();
    at_least(METHOD, "data seeds", 2, b)?;
    let n = cells[0].first().map_or(0, |c| c.as_ref().len());
    at_least(METHOD, "executions per code seed and data seed", 2, n)?;
    let balanced = cells
        .iter()
        .all(|row| row.len() == b && row.iter().all(|c| c.as_ref().len() == n));
    if !balanced {
        return Err(StatsError::Domain(
            "the split of the variance needs every code seed with every data seed, the same \
             number of executions each"
                .into(),
        ));
    }
    let finite = cells
        .iter()
        .flatten()
        .flat_map(|c| c.as_ref())
        .all(|y| y.is_finite());
    if !finite {
        return Err(StatsError::Domain(
            "the split of the variance needs finite measurements".into(),
        ));
    }
    Ok((a, b, n))
}

/// The variance components `[σ_c², σ_d², σ_cd², σ_e²]` from expected mean squares
/// `ems = [MS_C, MS_D, MS_CD, MS_E]` (Searle et al. eq. 4.73), each truncated at 0.
pub fn components_from_mean_squares(ems: [f64; 4], a: usize, b: usize, n: usize) -> [f64; 4] {
    untruncated_components(ems, a, b, n).map(|v| v.max(0.0))
}

/// The components of eq. 4.73 before truncation: a difference of mean squares may be
/// negative.
fn untruncated_components(ems: [f64; 4], a: usize, b: usize, n: usize) -> [f64; 4] {
    let (af, bf, nf) = (a as f64, b as f64, n as f64);
    let [c, d, cd, e] = ems;
    [(c - cd) / (bf * nf), (d - cd) / (af * nf), (cd - e) / nf, e]
}

/// The mean squares `[MS_C, MS_D, MS_CD, MS_M, MS_E]` of `table` with their degrees of
/// freedom (`MS_M` and its df 0 without a machine factor), in the order of
/// [`Component::ALL`].
fn five_mean_squares(table: &CrossedMeanSquares) -> ([f64; 5], [usize; 5]) {
    let [c, d, cd, e] = table.values();
    let [dc, dd, dcd, de] = table.degrees_of_freedom();
    let (m, dm) = table
        .machine
        .map_or((0.0, 0), |m| (m.ms_machine, m.machines - 1));
    ([c, d, cd, m, e], [dc, dd, dcd, dm, de])
}

/// The components `[σ_c², σ_d², σ_cd², σ_m², σ_e²]` from the mean squares `ms` (in the
/// order of [`five_mean_squares`]) of `table`'s design, before truncation: eq. 4.73, and
/// `σ_m² = (MS_M − MS_E)/(a b r)` (0 without a machine factor).
fn untruncated_five(table: &CrossedMeanSquares, ms: [f64; 5]) -> [f64; 5] {
    let (a, b, n) = (table.code_seeds, table.data_seeds, table.replicates);
    let [c, d, cd, e] = untruncated_components([ms[0], ms[1], ms[2], ms[4]], a, b, n);
    let m = table
        .machine
        .map_or(0.0, |m| (ms[3] - ms[4]) / (a * b * m.per_machine) as f64);
    [c, d, cd, m, e]
}

/// Each component over their sum (`None` when all are 0: nothing varies).
fn shares_of(components: [f64; 5]) -> Option<[f64; 5]> {
    let total: f64 = components.iter().sum();
    (total > 0.0).then(|| components.map(|v| v / total))
}

/// The split of the variance of `cells[i][j]` (replicates of code seed `i` with data seed
/// `j`) into code, data, their interaction and run noise, with `confidence` generalized
/// intervals from `draws` pivot draws of the stream `seed` (see the module's comment).
pub fn variance_split<C: AsRef<[f64]>>(
    cells: &[Vec<C>],
    confidence: f64,
    draws: usize,
    seed: u64,
) -> Result<VarianceSplit, StatsError> {
    split_of_table(crossed_mean_squares(cells)?, confidence, draws, seed)
}

/// The split of `cells[i][j][m]` (replicates of code seed `i` with data seed `j` on machine
/// `m`) into code, data, their interaction, machine and run noise (see the module's
/// comment), as [`variance_split`].
pub fn variance_split_by_machine<C: AsRef<[f64]>>(
    cells: &[Vec<Vec<C>>],
    confidence: f64,
    draws: usize,
    seed: u64,
) -> Result<VarianceSplit, StatsError> {
    split_of_table(
        crossed_mean_squares_by_machine(cells)?,
        confidence,
        draws,
        seed,
    )
}

/// The split of the crossed ANOVA `table`, with its pivot intervals.
fn split_of_table(
    table: CrossedMeanSquares,
    confidence: f64,
    draws: usize,
    seed: u64,
) -> Result<VarianceSplit, StatsError> {
    check_confidence(confidence)?;
    at_least("the split's intervals", "draws", 100, draws)?;
    let (ms, _) = five_mean_squares(&table);
    let variances = untruncated_five(&table, ms).map(|v| v.max(0.0));
    let shares = shares_of(variances)
        .ok_or_else(|| StatsError::Degenerate("every execution measured the same value".into()))?;
    let pivots = pivot_shares(&table, draws, seed);
    let alpha = 1.0 - confidence;
    let entries = Component::ALL
        .iter()
        .enumerate()
        .filter(|(_, c)| **c != Component::Machine || table.machine.is_some())
        .map(|(k, &component)| {
            let mut drawn: Vec<f64> = pivots.iter().map(|s| s[k]).collect();
            drawn.sort_by(f64::total_cmp);
            ComponentShare {
                component,
                variance: variances[k],
                share: shares[k],
                interval: Interval {
                    lower: quantile(&drawn, alpha / 2.0),
                    upper: quantile(&drawn, 1.0 - alpha / 2.0),
                },
            }
        })
        .collect();
    Ok(VarianceSplit {
        mean_squares: table,
        shares: entries,
        confidence,
        draws,
    })
}

/// The F test of one factor of the crossed design: its mean square over the one whose
/// expectation it exceeds only by the factor's component.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct AxisTest {
    /// The ratio of mean squares; `None` when the denominator is 0 (no noise to test
    /// against: nothing varies below this factor, so any variation of it is certain).
    pub f: Option<f64>,
    /// The numerator's degrees of freedom.
    pub df_numerator: usize,
    /// The denominator's degrees of freedom.
    pub df_denominator: usize,
    /// `P(F ≥ f)`: 0 when the denominator is 0 and the numerator is not, 1 when both are.
    pub p_value: f64,
}

/// The F tests of the crossed random-effects model (Montgomery §13.2, table 13.6; Searle et
/// al. §4.6): code `MS_C / MS_CD` on `(a − 1, (a − 1)(b − 1))` df, data `MS_D / MS_CD` on
/// `(b − 1, (a − 1)(b − 1))`, their interaction `MS_CD / MS_E` on `((a − 1)(b − 1), a b
/// (n − 1))`: each ratio's numerator and denominator have the same expectation exactly when
/// the component tested is 0. In the order code, data, code × data.
pub fn axis_tests(table: &CrossedMeanSquares) -> [AxisTest; 3] {
    let df = table.degrees_of_freedom();
    let test = f_test;
    [
        test(table.ms_code, table.ms_code_x_data, df[0], df[2]),
        test(table.ms_data, table.ms_code_x_data, df[1], df[2]),
        test(table.ms_code_x_data, table.ms_run, df[2], df[3]),
    ]
}

/// The F test of the machine factor, `MS_M / MS_E` on `(M − 1, a b (n − 1) − (M − 1))` df
/// (its numerator exceeds its denominator in expectation by `a b r σ_m²` only); `None`
/// without a machine factor.
pub fn machine_test(table: &CrossedMeanSquares) -> Option<AxisTest> {
    let df_run = table.degrees_of_freedom()[3];
    table
        .machine
        .map(|m| f_test(m.ms_machine, table.ms_run, m.machines - 1, df_run))
}

/// `num / den` on `(df1, df2)` df; when `den` is 0 (nothing varies below the factor), no F
/// and a p-value of 0 if `num` is not 0, else 1.
fn f_test(num: f64, den: f64, df1: usize, df2: usize) -> AxisTest {
    let (f, p_value) = if den > 0.0 {
        let f = num / den;
        (Some(f), super::anova::f_upper_tail(f, df1, df2))
    } else if num > 0.0 {
        (None, 0.0)
    } else {
        (None, 1.0)
    };
    AxisTest {
        f,
        df_numerator: df1,
        df_denominator: df2,
        p_value,
    }
}

/// `draws` generalized pivotal quantities of the four shares: each expected mean square
/// replaced by `df · ms / W`, `W ~ χ²_df` (Hamada & Weerahandi 2000 §3), each share the
/// untruncated component over the untruncated total, then clamped to `[0, 1]`.
///
/// The truncation is applied to the share, not to each component (as for the MLS and
/// GPQ intervals of a ratio in Burdick, Borror & Montgomery 2005 §6.4, which bound the
/// ratio, not its terms): truncating a small component's pivot at 0 adds to the total
/// exactly when that component's pivot fell low, so a dominant component's share was
/// drawn too low and its interval missed the truth from below (run share 0.91 covered
/// 91 % instead of 95 %; docs/statistics.md). The total, `MS_C/(b n) + MS_D/(a n) +
/// MS_CD (1/n − 1/(b n) − 1/(a n)) + MS_E (1 − 1/n)`, has no negative coefficient when
/// `a, b ≥ 2`, so it is positive whenever a mean square is; a draw whose total is 0
/// (possible only when the data are constant within a factor) is left out, and the
/// observed split is not all zero, so some draws remain.
fn pivot_shares(table: &CrossedMeanSquares, draws: usize, seed: u64) -> Vec<[f64; 5]> {
    let mut rng = SeededRng::new(seed, "variance-split-pivots");
    let (ms, df) = five_mean_squares(table);
    let mut out = Vec::with_capacity(draws);
    for _ in 0..draws {
        let mut ems = [0.0; 5];
        // Without a machine factor its df is 0: no draw, so the stream (and every interval
        // of a one-machine split) is what it was before machines were a component.
        for k in (0..5).filter(|&k| df[k] > 0) {
            let w = chi_square(&mut rng, df[k] as f64);
            ems[k] = if ms[k] > 0.0 {
                df[k] as f64 * ms[k] / w
            } else {
                0.0
            };
        }
        let components = untruncated_five(table, ems);
        let total: f64 = components.iter().sum();
        if total > 0.0 {
            out.push(components.map(|v| (v / total).clamp(0.0, 1.0)));
        }
    }
    out
}

/// A `χ²_df` deviate: `2 · Gamma(df/2)`, by Marsaglia & Tsang, "A simple method for
/// generating gamma variables" (ACM TOMS 2000), with their boost `Gamma(k) = Gamma(k + 1) ·
/// U^{1/k}` for shapes below 1. Positive for `df > 0`.
pub fn chi_square(rng: &mut SeededRng, df: f64) -> f64 {
    let shape = df / 2.0;
    if shape < 1.0 {
        let u = 1.0 - rng.unit_f64();
        return 2.0 * gamma_at_least_one(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    2.0 * gamma_at_least_one(rng, shape)
}

/// Marsaglia & Tsang's squeeze-and-reject gamma sampler for `shape ≥ 1` (their §3).
fn gamma_at_least_one(rng: &mut SeededRng, shape: f64) -> f64 {
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = rng.normal();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = 1.0 - rng.unit_f64();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_draws_have_the_mean_and_variance_of_the_distribution() {
        for df in [1.0, 3.0, 12.0] {
            let mut rng = SeededRng::new(5, "chi-square-moments");
            let draws: Vec<f64> = (0..40_000).map(|_| chi_square(&mut rng, df)).collect();
            let m = mean(&draws);
            let v = draws.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 39_999.0;
            // sd of the mean is sqrt(2 df / 40 000): 4 sd.
            assert!(
                (m - df).abs() < 4.0 * (2.0 * df / 40_000.0).sqrt(),
                "{df} {m}"
            );
            assert!((v / (2.0 * df) - 1.0).abs() < 0.08, "{df} {v}");
        }
    }

    #[test]
    fn unbalanced_or_too_small_designs_are_refused() {
        let two = vec![1.0, 2.0];
        let one_code = vec![vec![two.clone(), two.clone()]];
        assert!(matches!(
            crossed_mean_squares(&one_code),
            Err(StatsError::TooFew {
                need: 2,
                got: 1,
                ..
            })
        ));
        let ragged = vec![
            vec![two.clone(), two.clone()],
            vec![two.clone(), vec![1.0, 2.0, 3.0]],
        ];
        assert!(matches!(
            crossed_mean_squares(&ragged),
            Err(StatsError::Domain(_))
        ));
        let single = vec![vec![vec![1.0], vec![2.0]], vec![vec![1.0], vec![2.0]]];
        assert!(crossed_mean_squares(&single).is_err());
        let constant = vec![vec![vec![1.0, 1.0]; 2]; 2];
        assert!(matches!(
            variance_split(&constant, 0.95, 1000, 1),
            Err(StatsError::Degenerate(_))
        ));
    }

    #[test]
    fn deterministic_data_effect_puts_everything_on_data() {
        // y depends on the data seed only, with no noise (a cachegrind count): the data
        // share is 1 and every other interval is [0, 0].
        let cells: Vec<Vec<Vec<f64>>> = (0..4)
            .map(|_| (0..3).map(|j| vec![10.0 + j as f64; 2]).collect())
            .collect();
        let split = variance_split(&cells, 0.95, 1000, 3).unwrap();
        let data = split.share_of(Component::Data).unwrap();
        assert_eq!((data.share, data.interval.lower), (1.0, 1.0));
        for c in [Component::Code, Component::CodeXData, Component::Run] {
            let s = split.share_of(c).unwrap();
            assert_eq!(
                (s.share, s.interval.lower, s.interval.upper),
                (0.0, 0.0, 0.0)
            );
        }
        // No noise below the data seed: the data's variation is certain, the code's absent.
        let [code, data, interaction] = axis_tests(&split.mean_squares);
        assert_eq!((data.f, data.p_value), (None, 0.0));
        assert_eq!((code.f, code.p_value), (None, 1.0));
        assert_eq!((interaction.f, interaction.p_value), (None, 1.0));
        assert_eq!((data.df_numerator, data.df_denominator), (2, 6));
    }
}
