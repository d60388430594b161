//! Helpers shared by the statistics modules' unit tests.

/// Whether `a` agrees with the reference value `b` to the relative tolerance `tol` (an exact
/// zero reference is matched only by a value within `tol · 1e-300`).
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-300)
}
