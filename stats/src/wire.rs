//! How the statistics' pairs are written in JSON, so that every output uses one shape
//! (docs/formats.md): a test's two degrees of freedom are `df_numerator` and
//! `df_denominator`, an interval kept as a tuple is `{"lower", "upper"}`.
//!
//! These are serde `serialize_with` helpers; the Rust types keep their tuples.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// A test's two degrees of freedom, written as `df_numerator` and `df_denominator` (use with
/// `#[serde(flatten, serialize_with = "…")]` so they sit beside the statistic). The struct is
/// what is written; a field written by [`df_pair`] names it in `#[schemars(with = …)]` so that
/// its JSON Schema says so.
#[derive(Serialize, schemars::JsonSchema)]
pub struct DfPair<T> {
    /// The numerator's degrees of freedom.
    pub df_numerator: T,
    /// The denominator's degrees of freedom.
    pub df_denominator: T,
}

/// Writes `(numerator, denominator)` degrees of freedom as two named fields.
pub fn df_pair<T: Serialize + Copy, S: Serializer>(df: &(T, T), s: S) -> Result<S::Ok, S::Error> {
    DfPair {
        df_numerator: df.0,
        df_denominator: df.1,
    }
    .serialize(s)
}

/// Like [`df_pair`] for degrees of freedom that may be absent: no field at all when `None`.
pub fn df_pair_opt<T: Serialize + Copy, S: Serializer>(
    df: &Option<(T, T)>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match df {
        Some(df) => df_pair(df, s),
        None => s.serialize_map(Some(0))?.end(),
    }
}

/// An interval kept as `(lower, upper)`, written as the one interval object's bounds (named in
/// `#[schemars(with = …)]` by the fields [`interval_pair`] writes).
#[derive(Serialize, schemars::JsonSchema)]
pub struct Bounds {
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
}

/// Writes `(lower, upper)` as `{"lower": …, "upper": …}`.
pub fn interval_pair<S: Serializer>(bounds: &(f64, f64), s: S) -> Result<S::Ok, S::Error> {
    Bounds {
        lower: bounds.0,
        upper: bounds.1,
    }
    .serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, schemars::JsonSchema)]
    struct Test {
        f: f64,
        #[serde(flatten, serialize_with = "df_pair")]
        #[schemars(with = "DfPair<usize>")]
        df: (usize, usize),
        #[serde(serialize_with = "interval_pair")]
        #[schemars(with = "Bounds")]
        ci: (f64, f64),
    }

    #[derive(Serialize, schemars::JsonSchema)]
    struct Maybe {
        f: f64,
        #[serde(flatten, serialize_with = "df_pair_opt")]
        #[schemars(with = "Option<DfPair<f64>>")]
        df: Option<(f64, f64)>,
    }

    #[test]
    fn pairs_are_named_fields() {
        let t = Test {
            f: 2.0,
            df: (3, 12),
            ci: (0.5, 1.5),
        };
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            json!({"f": 2.0, "df_numerator": 3, "df_denominator": 12,
                   "ci": {"lower": 0.5, "upper": 1.5}})
        );
        let some = Maybe {
            f: 1.0,
            df: Some((4.0, 10.0)),
        };
        assert_eq!(
            serde_json::to_value(&some).unwrap(),
            json!({"f": 1.0, "df_numerator": 4.0, "df_denominator": 10.0})
        );
        let none = Maybe { f: 1.0, df: None };
        assert_eq!(serde_json::to_value(&none).unwrap(), json!({"f": 1.0}));
    }
}
