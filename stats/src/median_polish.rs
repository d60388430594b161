//! Which cells of a two-way table do not fit an additive model? Tukey's median polish
//! (Tukey, "Exploratory Data Analysis", 1977, ch. 11; the algorithm of R's `medpolish`:
//! alternate sweeps of row and column medians) gives a fit that a few wild cells cannot pull,
//! and the residuals' median absolute deviation, scaled by 1.4826 to estimate a normal
//! standard deviation (Hampel 1974; Rousseeuw & Croux 1993), a scale those cells cannot
//! inflate. A cell whose residual exceeds a cut-off times that scale is outlying.
//!
//! The report uses it to set aside executions hit by a load burst: rows are binaries,
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

/// `table` with each of its [`outlying_cells`] (`cut`, `most`; rows and columns polished)
/// replaced by the polish's fit there (its value less its residual).
pub fn outlying_cells_fitted(table: &[Vec<f64>], cut: f64, most: usize) -> Vec<Vec<f64>> {
    let residuals = median_polish_residuals(table, true);
    let mut fitted = table.to_vec();
    for c in outlying_cells(&residuals, cut, most) {
        fitted[c.row][c.column] -= c.residual;
    }
    fitted
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

    /// Closed form: an exactly additive table (row + column effects) plus one displaced cell
    /// polishes to residuals of 0 everywhere but that cell, which keeps its displacement
    /// (every row and column median ignores the one odd value).
    #[test]
    fn an_additive_table_leaves_only_the_displaced_cell() {
        let rows = [0.0, 0.3, -0.2, 0.1, 0.05];
        let cols = [0.0, 0.02, -0.01];
        let mut t: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| cols.iter().map(|c| 5.0 + r + c).collect())
            .collect();
        t[3][1] += 0.2;
        let r = median_polish_residuals(&t, true);
        for (i, row) in r.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                let expected = if (i, j) == (3, 1) { 0.2 } else { 0.0 };
                assert!((x - expected).abs() < 1e-12, "({i}, {j}) = {x}");
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
        let fitted = outlying_cells_fitted(&t, 5.0, 3);
        for (row, (f, c)) in fitted.iter().zip(&clean).enumerate() {
            for (column, (a, b)) in f.iter().zip(c).enumerate() {
                assert!((a - b).abs() < 0.01, "({row}, {column}): {a} against {b}");
            }
        }
        assert_eq!(outlying_cells_fitted(&clean, 5.0, 3), clean);
    }

    #[test]
    fn without_columns_residuals_are_deviations_from_the_row_median() {
        let r = median_polish_residuals(&[vec![1.0, 5.0, 2.0], vec![3.0, 3.0, 4.0]], false);
        assert_eq!(r, vec![vec![-1.0, 3.0, 0.0], vec![0.0, 0.0, 1.0]]);
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
