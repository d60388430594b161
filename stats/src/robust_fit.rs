//! Which cells of a two-way table do not fit an additive model? Tukey's median polish
//! (Tukey, "Exploratory Data Analysis", 1977, ch. 11; the algorithm of R's `medpolish`:
//! alternate sweeps of row and column medians) gives a fit that a few wild cells cannot pull,
//! and the residuals' median absolute deviation, scaled by 1.4826 to estimate a normal
//! standard deviation (Hampel 1974; Rousseeuw & Croux 1993), a scale those cells cannot
//! inflate. A cell whose residual exceeds a cut-off times that scale is outlying.
//!
//! A second fit, whose row and column levels are low order statistics, screens the first
//! table of the blocked F family ([`low_fit_screened`]): a burst only slows executions down,
//! and a row with two bursts of three has a burst for its median.
//!
//! The report uses the polish to set aside executions hit by a load burst: rows are binaries,
//! columns the execution rounds (or no columns for a free schedule), values the logarithms of
//! the execution means, so a residual is a relative deviation.

use super::sample::median;

/// The normal-consistency factor of the median absolute deviation, `1 / Φ⁻¹(3/4)`.
pub const MAD_TO_SD: f64 = 1.482_602_218_505_602;

/// Sweeps of median polish (R's `medpolish` default `maxiter`).
const SWEEPS: usize = 10;

/// The residuals of Tukey's median polish of `table[row][column]` (a complete table): row
/// medians are swept out, then, when `columns`, column medians, up to 10 times or until
/// the sum of absolute residuals changes by less than 1e-9 of itself. Without `columns` the
/// residuals are the deviations from each row's median.
pub fn median_polish_residuals(table: &[Vec<f64>], columns: bool) -> Vec<Vec<f64>> {
    let mut r: Vec<Vec<f64>> = table.to_vec();
    let width = r.first().map_or(0, Vec::len);
    let mut last = f64::INFINITY;
    for _ in 0..SWEEPS {
        for row in r.iter_mut() {
            let m = median(row);
            row.iter_mut().for_each(|x| *x -= m);
        }
        if !columns {
            break;
        }
        for c in 0..width {
            let m = median(&r.iter().map(|row| row[c]).collect::<Vec<_>>());
            r.iter_mut().for_each(|row| row[c] -= m);
        }
        let total: f64 = r.iter().flatten().map(|x| x.abs()).sum();
        if (last - total).abs() <= 1e-9 * total {
            break;
        }
        last = total;
    }
    r
}

/// The order statistic of a row or column taken as its level: the `⌈0.3 n⌉`-th smallest
/// (the minimum of a row of three, the third of ten), low enough that bursts covering most
/// of a row or round do not become its level.
pub const LEVEL_QUANTILE: f64 = 0.3;

/// Alternations of row and column levels: the second settles the rows on the columns'
/// levels; more change nothing that matters to the screen.
const ALTERNATIONS: usize = 2;

/// The residuals of the low fit of `table[row][column]` (a complete table): each row's level
/// is the [`LEVEL_QUANTILE`] order statistic of its cells less their columns' levels, each
/// column's the same of its cells less their rows' levels, alternated twice; the fit adds the
/// median of every cell's offset from its two levels, so that a typical cell's residual is
/// near 0.
pub fn low_fit_residuals(table: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let width = table.first().map_or(0, Vec::len);
    let low = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        order_statistic(&v, LEVEL_QUANTILE)
    };
    let mut column_levels = vec![0.0; width];
    let mut row_levels = vec![0.0; table.len()];
    for _ in 0..ALTERNATIONS {
        row_levels = table
            .iter()
            .map(|row| low(row.iter().zip(&column_levels).map(|(x, c)| x - c).collect()))
            .collect();
        if table.is_empty() {
            break;
        }
        column_levels = (0..width)
            .map(|j| {
                low(table
                    .iter()
                    .zip(&row_levels)
                    .map(|(row, r)| row[j] - r)
                    .collect())
            })
            .collect();
    }
    let offsets: Vec<Vec<f64>> = table
        .iter()
        .zip(&row_levels)
        .map(|(row, r)| {
            row.iter()
                .zip(&column_levels)
                .map(|(x, c)| x - r - c)
                .collect()
        })
        .collect();
    let offset = median(&offsets.iter().flatten().copied().collect::<Vec<_>>());
    offsets
        .into_iter()
        .map(|row| row.into_iter().map(|x| x - offset).collect())
        .collect()
}

/// The scale of the low fit's `residuals`: the lower quartile of their absolute values over Φ⁻¹(5/8), leaving
/// out residuals of exactly 0 (a cell the fit passes through says nothing of the spread, and
/// identical counts would give a scale of 0). Robust to outlying cells on up to three
/// quarters of the table; 0 or NaN when nothing spreads.
fn low_fit_scale(residuals: &[Vec<f64>]) -> f64 {
    let mut absolute: Vec<f64> = residuals
        .iter()
        .flatten()
        .map(|x| x.abs())
        .filter(|x| *x != 0.0)
        .collect();
    if absolute.is_empty() {
        return 0.0;
    }
    absolute.sort_by(f64::total_cmp);
    order_statistic(&absolute, 0.25) / LOWER_QUARTILE_OF_ABS_NORMAL
}

/// `table[row][column]` with the cells of its [`low_fit_residuals`] beyond
/// `cut` times their scale (the lower quartile of the absolute residuals over Φ⁻¹(5/8))
/// replaced by the fit, at most `most` of them (the farthest), and how many were.
///
/// Why low levels: a load burst only slows executions down. With 3 rounds, a row holding two
/// burst cells has a burst for its median, so median polish takes the one clean cell for the
/// outlier and replaces it, manufacturing a row 20 % off; under the within-round permutations
/// of the blocked F test two bursts land in one permuted row often, which fattens the
/// polished statistic's null distribution and took its power against a lumpy layout effect
/// through bursts from 87 % to 48 % (issue 55). A row's low order statistic (its minimum
/// with 3 rounds) stays on the clean cell. Not the screen that sets executions aside: its
/// scale varies more from table to table than the polish's, so a cut that keeps clean
/// tables whole lies further out in standard deviations (about 12 against 6 for 10 × 3).
pub fn low_fit_screened(table: &[Vec<f64>], cut: f64, most: usize) -> (Vec<Vec<f64>>, usize) {
    let residuals = low_fit_residuals(table);
    let scale = low_fit_scale(&residuals);
    replaced_by_fit(table, &residuals, cut * scale, most)
}

/// `table` with at most `most` of its cells whose `residuals` (cell less fit) exceed `bound`
/// in absolute value replaced by the fit, the farthest first, and how many were.
///
/// Why a most: each replaced cell costs the residual a degree of freedom, and a screen that
/// replaces more than a few cells no longer removes bursts but the data. On a small table
/// of a program with sub-millisecond executions (4 × 3, timer-grained noise) the screens
/// replaced 6 to 13 of 12 and 20 cells, leaving an F on "−2" degrees of freedom. Which cells
/// go depends only on their residuals, so a screen whose residuals follow the rows of a
/// column (`column_screened`) still does.
fn replaced_by_fit(
    table: &[Vec<f64>],
    residuals: &[Vec<f64>],
    bound: f64,
    most: usize,
) -> (Vec<Vec<f64>>, usize) {
    let mut screened = table.to_vec();
    if !(bound.is_finite() && bound > 0.0) {
        return (screened, 0);
    }
    let mut beyond: Vec<(usize, usize, f64)> = residuals
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().enumerate().map(move |(j, r)| (i, j, *r)))
        .filter(|(_, _, r)| r.abs() > bound)
        .collect();
    beyond.sort_by(|a, b| b.2.abs().total_cmp(&a.2.abs()));
    beyond.truncate(most);
    for &(i, j, residual) in &beyond {
        screened[i][j] -= residual;
    }
    let replaced = beyond.len();
    (screened, replaced)
}

/// One cell beyond the cut-off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutlyingCell {
    pub row: usize,
    pub column: usize,
    /// Its residual.
    pub residual: f64,
}

/// The cells of `residuals` whose absolute value exceeds `cut` times the residuals' scale
/// (`MAD_TO_SD ×` the median absolute residual, leaving out residuals of exactly 0: a cell
/// the fit passes through, such as the median of a row of three, says nothing of the spread
/// and would shrink the scale), largest first, at most `most` of them.
/// None when the scale is 0 or not finite (no spread to judge against) or `most` is 0.
pub fn outlying_cells(residuals: &[Vec<f64>], cut: f64, most: usize) -> Vec<OutlyingCell> {
    let absolute: Vec<f64> = residuals
        .iter()
        .flatten()
        .map(|x| x.abs())
        .filter(|x| *x != 0.0)
        .collect();
    let scale = MAD_TO_SD * median(&absolute);
    if !(scale.is_finite() && scale > 0.0) {
        return Vec::new();
    }
    let mut cells: Vec<OutlyingCell> = residuals
        .iter()
        .enumerate()
        .flat_map(|(row, r)| {
            r.iter()
                .enumerate()
                .map(move |(column, &residual)| OutlyingCell {
                    row,
                    column,
                    residual,
                })
        })
        .filter(|c| c.residual.abs() > cut * scale)
        .collect();
    cells.sort_by(|a, b| b.residual.abs().total_cmp(&a.residual.abs()));
    cells.truncate(most);
    cells
}

/// The smallest cut-off of [`outlying_cells`] at which clean tables of this shape lose no
/// cell in more than `false_rate` of cases, estimated by seeded simulation.
///
/// Why a cut per shape: the polish's residuals of a small table are shrunk towards 0 (a row
/// of 3 has one residual of exactly 0 and the other two pulled in), so their MAD-based scale
/// is only 0.6–0.85 of the noise's standard deviation, and a fixed cut of 5 set aside an
/// execution of 8.7 % (10 × 3) to 14.7 % (10 × 8) of clean normal stores (issue 55). The cut
/// here is the `1 − false_rate` quantile of `max |residual| / scale` over
/// [`CALIBRATION_TABLES`] tables of independent standard normal cells of shape `rows ×
/// columns`, polished as the screen polishes them (`polish_columns`); the quantile's own
/// Monte Carlo error is a few per cent of the cut. The stream is fixed (seed 55), so a shape
/// always gets the same cut; results are kept for the process's life.
pub fn calibrated_cut(rows: usize, columns: usize, polish_columns: bool, false_rate: f64) -> f64 {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Key = (usize, usize, bool, u64);
    static CUTS: OnceLock<Mutex<HashMap<Key, f64>>> = OnceLock::new();
    let key = (rows, columns, polish_columns, false_rate.to_bits());
    let cuts = CUTS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(cut) = cuts.lock().ok().and_then(|c| c.get(&key).copied()) {
        return cut;
    }
    let cut = simulated_cut(rows, columns, polish_columns, false_rate);
    if let Ok(mut c) = cuts.lock() {
        c.insert(key, cut);
    }
    cut
}

/// Clean tables simulated per shape by [`calibrated_cut`]: at a rate of 0.5 %, the quantile
/// rests on the 40 largest.
pub const CALIBRATION_TABLES: usize = 8_000;

/// [`calibrated_cut`] without the cache.
fn simulated_cut(rows: usize, columns: usize, polish_columns: bool, false_rate: f64) -> f64 {
    let mut rng = crate::seeded::SeededRng::new(55, "median-polish-cut");
    let mut largest: Vec<f64> = (0..CALIBRATION_TABLES)
        .map(|_| {
            let table: Vec<Vec<f64>> = (0..rows)
                .map(|_| (0..columns).map(|_| rng.normal()).collect())
                .collect();
            largest_scaled_residual(&median_polish_residuals(&table, polish_columns))
        })
        .filter(|x| x.is_finite())
        .collect();
    largest.sort_by(f64::total_cmp);
    if largest.is_empty() {
        return f64::INFINITY;
    }
    let rank = ((1.0 - false_rate.clamp(0.0, 1.0)) * largest.len() as f64).ceil() as usize;
    largest[rank.clamp(1, largest.len()) - 1]
}

/// `max |residual|` in units of the residuals' scale (as [`outlying_cells`] measures it); NaN
/// without a scale.
fn largest_scaled_residual(residuals: &[Vec<f64>]) -> f64 {
    let absolute: Vec<f64> = residuals
        .iter()
        .flatten()
        .map(|x| x.abs())
        .filter(|x| *x != 0.0)
        .collect();
    let scale = MAD_TO_SD * median(&absolute);
    let top = absolute.iter().copied().fold(0.0, f64::max);
    if scale > 0.0 {
        top / scale
    } else {
        f64::NAN
    }
}

/// Φ⁻¹(5/8): the lower quartile of |Z| for a standard normal Z.
const LOWER_QUARTILE_OF_ABS_NORMAL: f64 = 0.318_639_363_964_375;

/// `table[row][column]` screened within each column alone, and how many cells were
/// replaced: a cell further than `cut` times the scale from its column's centre is replaced
/// by that centre, at most `most` of them (the farthest).
///
/// The centre of a column is its `level_quantile` order statistic plus the median, over
/// every cell, of the cells' offsets from their column's order statistic: a load burst only
/// slows executions down, so with a low quantile (0.3) a burst covering more than half a
/// round does not become that round's level, while the pooled offset puts the centre back
/// on the typical cell. The scale is the lower quartile of the cells' absolute deviations
/// from their centres over Φ⁻¹(5/8) (normal-consistent), which bursts and a layout effect
/// on up to three quarters of the cells cannot inflate much.
///
/// What makes this screen useful to a randomisation test: it does not depend on which row
/// holds which value of a column. Permuting the rows of any column permutes its screened
/// cells the same way, so the permutation test of the screened table is that of the whole
/// procedure, and no permuted table can gain a far-off row from the screen (which a fit
/// with row effects does: two far values in one permuted row make it replace the third).
/// The price: a row off by more than the cut in every column is replaced too, so the
/// screen is one of several statistics of a family (`blocked_f::blocked_f_family`).
pub fn column_screened(
    table: &[Vec<f64>],
    cut: f64,
    level_quantile: f64,
    most: usize,
) -> (Vec<Vec<f64>>, usize) {
    let width = table.first().map_or(0, Vec::len);
    let levels: Vec<f64> = (0..width)
        .map(|c| {
            let mut column: Vec<f64> = table.iter().map(|row| row[c]).collect();
            column.sort_by(f64::total_cmp);
            order_statistic(&column, level_quantile)
        })
        .collect();
    let offsets: Vec<f64> = table
        .iter()
        .flat_map(|row| row.iter().zip(&levels).map(|(x, l)| x - l))
        .collect();
    let offset = median(&offsets);
    let centres: Vec<f64> = levels.iter().map(|l| l + offset).collect();
    let mut absolute: Vec<f64> = table
        .iter()
        .flat_map(|row| row.iter().zip(&centres).map(|(x, m)| (x - m).abs()))
        .collect();
    absolute.sort_by(f64::total_cmp);
    let scale = order_statistic(&absolute, 0.25) / LOWER_QUARTILE_OF_ABS_NORMAL;
    let residuals: Vec<Vec<f64>> = table
        .iter()
        .map(|row| row.iter().zip(&centres).map(|(x, m)| x - m).collect())
        .collect();
    replaced_by_fit(table, &residuals, cut * scale, most)
}

/// The `q` order statistic of `sorted` (not empty): its `⌈q n⌉`-th smallest value.
fn order_statistic(sorted: &[f64], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// How many robust standard deviations `values[j]` sits from the median of the others:
/// `(values[j] − median(others)) / (MAD_TO_SD · MAD(others))`; infinite (signed) when the
/// others do not spread and `values[j]` differs, NaN with fewer than 2 others.
pub fn robust_distance(values: &[f64], j: usize) -> f64 {
    let others: Vec<f64> = values
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != j)
        .map(|(_, v)| *v)
        .collect();
    if others.len() < 2 {
        return f64::NAN;
    }
    let centre = median(&others);
    let deviations: Vec<f64> = others.iter().map(|v| (v - centre).abs()).collect();
    let scale = MAD_TO_SD * median(&deviations);
    let d = values[j] - centre;
    if scale > 0.0 {
        d / scale
    } else if d == 0.0 {
        0.0
    } else {
        d.signum() * f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closed form: an exactly additive table (row + column effects) plus one cell displaced
    /// upwards polishes, and low-fits, to residuals of 0 everywhere but that cell, which keeps
    /// its displacement (every row and column median ignores the one odd value).
    #[test]
    fn an_additive_table_leaves_only_the_displaced_cell() {
        let rows = [0.0, 0.3, -0.2, 0.1, 0.05];
        let cols = [0.0, 0.02, -0.01];
        let mut t: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| cols.iter().map(|c| 5.0 + r + c).collect())
            .collect();
        t[3][1] += 0.2;
        // The low fit too: no row's or column's low order statistic is the odd value.
        for r in [median_polish_residuals(&t, true), low_fit_residuals(&t)] {
            for (i, row) in r.iter().enumerate() {
                for (j, x) in row.iter().enumerate() {
                    let expected = if (i, j) == (3, 1) { 0.2 } else { 0.0 };
                    assert!((x - expected).abs() < 1e-12, "({i}, {j}) = {x}");
                }
            }
        }
    }

    #[test]
    fn an_outlying_cell_is_replaced_by_the_additive_fit() {
        // Row and column effects plus seeded noise of SD 0.001.
        let mut rng = crate::seeded::SeededRng::new(5, "test");
        let mut t: Vec<Vec<f64>> = (0..6)
            .map(|r| {
                (0..3)
                    .map(|c| r as f64 + 0.1 * c as f64 + 0.001 * rng.normal())
                    .collect()
            })
            .collect();
        let clean = t.clone();
        t[2][1] += 1.0;
        // The wild cell is replaced; so are a few clean ones in a table this small (the low
        // fit's scale varies from table to table), each moved by a few noise SDs at most.
        let (fitted, replaced) = low_fit_screened(&t, 8.0, 99);
        assert!((1..=4).contains(&replaced), "{replaced}");
        for (row, (f, c)) in fitted.iter().zip(&clean).enumerate() {
            for (column, (a, b)) in f.iter().zip(c).enumerate() {
                assert!((a - b).abs() < 0.005, "({row}, {column}): {a} against {b}");
            }
        }
        let (again, _) = low_fit_screened(&clean, 8.0, 99);
        for (f, c) in again.iter().flatten().zip(clean.iter().flatten()) {
            assert!((f - c).abs() < 0.005, "{f} against {c}");
        }
    }

    /// Both screens replace at most `most` cells, the farthest first: a table with four wild
    /// cells keeps the two nearest of them when `most` is 2.
    #[test]
    fn screens_replace_at_most_the_farthest_cells() {
        let mut g = crate::seeded::SeededRng::new(3, "most");
        let mut t: Vec<Vec<f64>> = (0..10)
            .map(|_| (0..3).map(|c| 0.01 * g.normal() + c as f64).collect())
            .collect();
        for (row, jump) in [(1, 0.5), (3, 0.2), (5, 0.4), (7, 0.3)] {
            t[row][1] += jump;
        }
        for screened in [
            low_fit_screened(&t, 8.0, 2),
            column_screened(&t, 4.0, 0.3, 2),
        ] {
            let (s, replaced) = screened;
            assert_eq!(replaced, 2, "{s:?}");
            let changed: Vec<usize> = (0..10).filter(|&r| s[r] != t[r]).collect();
            assert_eq!(changed, [1, 5], "{s:?}");
        }
        assert_eq!(low_fit_screened(&t, 8.0, 0), (t.clone(), 0));
    }

    #[test]
    fn without_columns_residuals_are_deviations_from_the_row_median() {
        let r = median_polish_residuals(&[vec![1.0, 5.0, 2.0], vec![3.0, 3.0, 4.0]], false);
        assert_eq!(r, vec![vec![-1.0, 3.0, 0.0], vec![0.0, 0.0, 1.0]]);
    }

    /// A binary hit by bursts in two of its three rounds: the low fit stays on its clean
    /// execution and replaces the two bursts (median polish took the burst for
    /// the row's level and set the clean execution aside, issue 55).
    #[test]
    fn two_bursts_in_a_row_of_three_are_the_outliers_not_the_clean_cell() {
        let mut g = crate::seeded::SeededRng::new(9, "two-bursts");
        let mut t: Vec<Vec<f64>> = (0..10)
            .map(|_| {
                (0..3)
                    .map(|c| 0.01 * g.normal() + 0.05 * c as f64)
                    .collect()
            })
            .collect();
        t[4][0] += 0.2;
        t[4][2] += 0.2;
        let (screened, replaced) = low_fit_screened(&t, 8.0, 99);
        assert_eq!(replaced, 2, "{screened:?}");
        assert_eq!(screened[4][1], t[4][1]);
        assert!(screened[4][0] < t[4][0] - 0.15 && screened[4][2] < t[4][2] - 0.15);
        // Median polish does the opposite: the clean cell is the row's outlier.
        let polished = median_polish_residuals(&t, true);
        assert!(polished[4][1] < -0.15, "{polished:?}");
    }

    #[test]
    fn outlying_cells_are_bounded_largest_first_and_need_a_scale() {
        // Residuals ±1 around (zeros left out), two wild ones: scale = 1.4826 · 1.
        let r = vec![
            vec![1.0, -1.0, 0.0, 1.0],
            vec![-1.0, 20.0, 1.0, 0.0],
            vec![0.0, 1.0, -9.0, -1.0],
        ];
        let all = outlying_cells(&r, 5.0, 10);
        assert_eq!(
            all.iter().map(|c| (c.row, c.column)).collect::<Vec<_>>(),
            [(1, 1), (2, 2)]
        );
        // -9 is 6.07 scales out: inside a cut of 6.5.
        assert_eq!(outlying_cells(&r, 6.5, 10).len(), 1);
        assert_eq!(outlying_cells(&r, 5.0, 1).len(), 1);
        assert!(outlying_cells(&[vec![0.0, 0.0, 3.0]], 5.0, 10).is_empty());
    }

    /// The calibrated cut keeps clean tables whole at its rate, checked on tables drawn
    /// from a stream other than the calibration's: 2 000 clean 10 × 3 and 10 × 8 tables
    /// lose a cell in at most 0.5 % + 3 standard errors (0.47 %) of cases. A fixed cut of 5
    /// loses one in more than 5 % of them (the 8.7 % and 14.7 %): the test has teeth.
    #[test]
    fn the_calibrated_cut_keeps_clean_tables_whole() {
        for (rows, columns) in [(10, 3), (10, 8)] {
            let cut = calibrated_cut(rows, columns, true, 0.005);
            let mut rng = crate::seeded::SeededRng::new(7, "clean-tables");
            let (mut lost_calibrated, mut lost_fixed) = (0, 0);
            for _ in 0..2000 {
                let t: Vec<Vec<f64>> = (0..rows)
                    .map(|_| (0..columns).map(|_| rng.normal()).collect())
                    .collect();
                let r = median_polish_residuals(&t, true);
                lost_calibrated += usize::from(!outlying_cells(&r, cut, 99).is_empty());
                lost_fixed += usize::from(!outlying_cells(&r, 5.0, 99).is_empty());
            }
            assert!(
                lost_calibrated <= 19,
                "{rows} x {columns}: cut {cut}, {lost_calibrated}"
            );
            assert!(lost_fixed > 100, "{rows} x {columns}: {lost_fixed}");
            // The same shape always gets the same cut; a wilder burst is still set aside.
            assert_eq!(cut, calibrated_cut(rows, columns, true, 0.005));
            assert!(cut < 12.0, "{cut}");
        }
    }

    /// The round screen removes a burst that covers six of a round's ten cells (a median
    /// would have taken it for the round's level), keeps a row 3 % off in every round, and
    /// does not depend on which row holds which value of a round.
    #[test]
    fn the_column_screen_removes_a_wide_burst_and_follows_the_rows() {
        let mut g = crate::seeded::SeededRng::new(8, "column-screen");
        let mut t: Vec<Vec<f64>> = (0..10)
            .map(|r| {
                (0..3)
                    .map(|c| 0.01 * g.normal() + if r == 9 { 0.03 } else { 0.0 } + c as f64)
                    .collect()
            })
            .collect();
        for row in t.iter_mut().take(6) {
            row[2] += 0.2;
        }
        let (screened, replaced) = column_screened(&t, 4.0, 0.3, 99);
        assert_eq!(replaced, 6, "{screened:?}");
        for row in &screened[..6] {
            assert!((row[2] - 2.0).abs() < 0.03, "{row:?}");
        }
        assert_eq!(screened[9], t[9]);
        // Rows 0 and 7 swap their values of round 2: so do their screened cells.
        let mut swapped = t.clone();
        (swapped[0][2], swapped[7][2]) = (t[7][2], t[0][2]);
        let (again, _) = column_screened(&swapped, 4.0, 0.3, 99);
        assert_eq!(again[0][2], screened[7][2]);
        assert_eq!(again[7][2], screened[0][2]);
        assert_eq!(again[3], screened[3]);
    }

    #[test]
    fn robust_distance_of_one_value_from_the_others() {
        // Others 1, 2, 3, 4, 5: median 3, MAD 1.
        let v = [1.0, 2.0, 3.0, 4.0, 5.0, 13.0];
        assert!((robust_distance(&v, 5) - 10.0 / MAD_TO_SD).abs() < 1e-12);
        assert!(robust_distance(&[2.0, 2.0, 2.0, 3.0], 3).is_infinite());
        assert_eq!(robust_distance(&[2.0, 2.0, 2.0], 0), 0.0);
        assert!(robust_distance(&[1.0, 2.0], 0).is_nan());
    }
}
