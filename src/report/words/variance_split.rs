//! "Where does the variation come from?" in words: the split of
//! [`crate::stats::variance_split`] into code, data, their interaction and run noise, each
//! share with its interval, largest first.

use crate::stats::variance_split::{Component, ComponentShare, VarianceSplit};

/// The sentence of `split`, e.g. "of the variation between executions, 61 % (45–75 %) is
/// where the data sits, 4 % (0–12 %) where the code sits, 35 % (26–47 %) run noise (95 %
/// intervals)."
pub fn sentence(split: &VarianceSplit) -> String {
    let mut shares: Vec<&ComponentShare> = split.shares.iter().collect();
    // Largest first; ties keep the model's order (a stable sort).
    shares.sort_by(|x, y| y.share.total_cmp(&x.share));
    let parts: Vec<String> = shares
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let verb = if k == 0 && s.component != Component::Run {
                "is "
            } else {
                ""
            };
            format!(
                "{} ({}–{} %) {verb}{}",
                whole_percent(s.share),
                whole_percent(s.interval.lower).trim_end_matches(" %"),
                whole_percent(s.interval.upper).trim_end_matches(" %"),
                what(s.component)
            )
        })
        .collect();
    format!(
        "of the variation between executions, {} ({} intervals).",
        parts.join(", "),
        crate::analysis::numfmt::level(split.confidence)
    )
}

/// What a component is, after its share.
fn what(component: Component) -> &'static str {
    match component {
        Component::Code => "where the code sits",
        Component::Data => "where the data sits",
        Component::CodeXData => "how a data layout's effect differs from binary to binary",
        Component::Run => "run noise",
    }
}

/// A share in whole percent, `61 %`; a share above 0 that rounds to 0 is `< 1 %`.
fn whole_percent(share: f64) -> String {
    let p = (100.0 * share).round();
    if p == 0.0 && share > 0.0 {
        "< 1 %".into()
    } else {
        format!("{p:.0} %")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::Interval;
    use crate::stats::variance_split::CrossedMeanSquares;

    fn share(component: Component, share: f64, lower: f64, upper: f64) -> ComponentShare {
        ComponentShare {
            component,
            variance: share,
            share,
            interval: Interval { lower, upper },
        }
    }

    #[test]
    fn the_largest_share_comes_first_with_every_interval() {
        let split = VarianceSplit {
            mean_squares: CrossedMeanSquares {
                code_seeds: 10,
                data_seeds: 6,
                replicates: 3,
                ms_code: 1.0,
                ms_data: 1.0,
                ms_code_x_data: 1.0,
                ms_run: 1.0,
            },
            shares: vec![
                share(Component::Code, 0.04, 0.0, 0.12),
                share(Component::Data, 0.61, 0.45, 0.75),
                share(Component::CodeXData, 0.002, 0.0, 0.05),
                share(Component::Run, 0.348, 0.26, 0.47),
            ],
            confidence: 0.95,
            draws: 1000,
        };
        assert_eq!(
            sentence(&split),
            "of the variation between executions, 61 % (45–75 %) is where the data sits, \
             35 % (26–47 %) run noise, 4 % (0–12 %) where the code sits, < 1 % (0–5 %) how a \
             data layout's effect differs from binary to binary (95 % intervals)."
        );
    }
}
