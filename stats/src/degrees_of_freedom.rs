//! A test's two degrees of freedom, named as on the wire (docs/formats.md): `df_numerator` and
//! `df_denominator`, written beside the statistic (`#[serde(flatten)]`).

use serde::Serialize;

/// The numerator's and the denominator's degrees of freedom of an F-test (or of any test on
/// a ratio of two mean squares). Flattened into the test that carries it, so the two sit beside
/// the statistic; an absent `Option` writes neither.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DegreesOfFreedom<T> {
    /// The numerator's degrees of freedom.
    pub df_numerator: T,
    /// The denominator's degrees of freedom.
    pub df_denominator: T,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::Interval;
    use serde_json::json;

    #[derive(Serialize, schemars::JsonSchema)]
    struct Test {
        f: f64,
        #[serde(flatten)]
        df: DegreesOfFreedom<usize>,
        ci: Interval,
    }

    #[derive(Serialize, schemars::JsonSchema)]
    struct Maybe {
        f: f64,
        #[serde(flatten)]
        df: Option<DegreesOfFreedom<f64>>,
    }

    #[test]
    fn degrees_of_freedom_sit_beside_the_statistic() {
        let t = Test {
            f: 2.0,
            df: DegreesOfFreedom {
                df_numerator: 3,
                df_denominator: 12,
            },
            ci: Interval {
                lower: 0.5,
                upper: 1.5,
            },
        };
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            json!({"f": 2.0, "df_numerator": 3, "df_denominator": 12,
                   "ci": {"lower": 0.5, "upper": 1.5}})
        );
        let some = Maybe {
            f: 1.0,
            df: Some(DegreesOfFreedom {
                df_numerator: 4.0,
                df_denominator: 10.0,
            }),
        };
        assert_eq!(
            serde_json::to_value(&some).unwrap(),
            json!({"f": 1.0, "df_numerator": 4.0, "df_denominator": 10.0})
        );
        let none = Maybe { f: 1.0, df: None };
        assert_eq!(serde_json::to_value(&none).unwrap(), json!({"f": 1.0}));
    }
}
