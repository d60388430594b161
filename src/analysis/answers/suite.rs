//! A benchmark suite's cases taken together (`run --metric gbench|criterion|hyperfine|lines`):
//! every case is a series of its own with every answer one series gets, and here the
//! suite's claims are held together — the layout-sensitivity verdicts at a false discovery
//! rate (Benjamini–Hochberg over the cases' p-values), the cases ranked by how much the
//! layout moves them, and the suite's geometric mean over cases with an interval over the
//! binaries (Kalibera & Jones's top level), alone and as a ratio between variants. The
//! variants' per-case comparisons are held together by Bonferroni (`VariantOptions::suite_cases`).

use crate::analysis::effect::{Effect, EffectVerdict};
use crate::analysis::variants::PairComparison;
use crate::analysis::vocabulary::{Thresholds, Verdict};

use super::experiment::{variant_groups, Experiment, Series};
use super::model::{
    PartialCase, SensitivityGrounds, SensitivityOutcome, SeriesReport, Suite, SuiteCase,
    SuiteComparison, SuiteFdr,
};

/// Holds the layout-sensitivity verdicts of each suite's cases at the false discovery rate
/// `rate` (Benjamini & Hochberg 1995): a case's verdict "sensitive" (or "detectable but
/// negligible") stands only when its q-value among the suite's tested cases is within
/// `rate`; otherwise it becomes "cannot tell" ([`SensitivityOutcome::ChanceAcrossSuite`]).
/// Every tested case carries its q-value.
pub(crate) fn control_false_discoveries(
    experiment: &Experiment,
    series: &mut [SeriesReport],
    rate: f64,
) {
    for members in suite_members(experiment, series) {
        let tested: Vec<(usize, f64)> = members
            .iter()
            .filter_map(|&i| Some((i, series[i].sensitivity.p_value?)))
            .filter(|(_, p)| (0.0..=1.0).contains(p))
            .collect();
        let p: Vec<f64> = tested.iter().map(|(_, p)| *p).collect();
        let Ok(q) = crate::stats::fdr::benjamini_hochberg(&p) else {
            continue;
        };
        for ((i, _), q) in tested.iter().zip(q) {
            let sensitivity = &mut series[*i].sensitivity;
            sensitivity.suite_fdr = Some(SuiteFdr {
                q_value: q,
                cases: tested.len(),
                rate,
            });
            let rejected = matches!(&sensitivity.grounds,
                SensitivityGrounds::Tested(t) if t.outcome.rejects());
            if rejected && q > rate {
                if let SensitivityGrounds::Tested(t) = &mut sensitivity.grounds {
                    t.outcome = SensitivityOutcome::ChanceAcrossSuite;
                }
                sensitivity.verdict = Verdict::Undetermined;
            }
        }
    }
}

/// The false discovery rate of a report at `confidence`: `1 − confidence`, rounded to 12
/// decimals so that 95 % gives 0.05, not 0.050000000000000044.
pub(crate) fn false_discovery_rate(confidence: f64) -> f64 {
    ((1.0 - confidence) * 1e12).round() / 1e12
}

/// The indices in `series` of each suite's cases, one group per program and variant.
fn suite_members(experiment: &Experiment, series: &[SeriesReport]) -> Vec<Vec<usize>> {
    type ProgramAndVariant<'a> = (&'a str, Option<&'a str>);
    let mut groups: Vec<(ProgramAndVariant, Vec<usize>)> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        if !experiment.is_case(&s.metric) {
            continue;
        }
        let key = (s.program.as_str(), s.variant.as_deref());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// Each suite's table and geometric mean (one per program and variant).
pub(crate) fn suites(
    experiment: &Experiment,
    series: &[SeriesReport],
    thresholds: &Thresholds,
) -> Vec<Suite> {
    suite_members(experiment, series)
        .into_iter()
        .map(|members| {
            let first = &series[members[0]];
            let (program, variant) = (&first.program, &first.variant);
            let mut cases: Vec<SuiteCase> = members.iter().map(|&i| case_row(&series[i])).collect();
            cases.sort_by(|a, b| {
                let key = |c: &SuiteCase| c.layout_variation.map(|v| -v);
                match (key(a), key(b)) {
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                }
                .then_with(|| a.case.cmp(&b.case))
            });
            let unit = Some(cases[0].unit.clone()).filter(|u| cases.iter().all(|c| &c.unit == u));
            let case_series: Vec<&Series> = case_series(experiment, program, variant.as_deref());
            Suite {
                program: program.clone(),
                variant: variant.clone(),
                sensitive: cases
                    .iter()
                    .filter(|c| c.verdict == Verdict::Detected)
                    .count(),
                cases_one_process: members
                    .iter()
                    .filter(|&&i| {
                        matches!(&series[i].sensitivity.grounds, SensitivityGrounds::Tested(t)
                            if t.outcome == SensitivityOutcome::OneProcessPerBinary)
                    })
                    .count(),
                false_discovery_rate: false_discovery_rate(thresholds.confidence),
                executions_per_binary: case_series
                    .iter()
                    .map(|s| s.executions_per_binary())
                    .min()
                    .unwrap_or(0),
                partial_cases: partial_cases(&case_series),
                cases,
                unit,
                geometric_mean: crate::stats::suite::geometric_mean_over_units(
                    &unit_case_means(&case_series),
                    thresholds.confidence,
                )
                .ok(),
            }
        })
        .collect()
}

/// The cases of `cases` (one suite's) that did not run in every execution of the randomised
/// binaries that ran some case of the suite, each with how many other such cases it never shared an execution with,
/// and which one when each of the two is the other's only such case (a rename between
/// executions leaves two cases that each ran where the other did not).
///
/// Cases that ran in the same executions are taken together, so the work grows with the
/// number of distinct sets of executions squared, not with the cases: a whole suite renamed
/// at once (names that carry the machine's core count, under Slurm) is two such sets.
fn partial_cases(cases: &[&Series]) -> Vec<PartialCase> {
    let mut universe: std::collections::BTreeMap<(&str, u32), usize> = Default::default();
    for s in cases {
        for b in &s.seeds {
            for e in &b.executions {
                let next = universe.len();
                universe
                    .entry((b.binary.as_str(), e.execution))
                    .or_insert(next);
            }
        }
    }
    // Each case's executions as a bit set over the universe.
    let words = universe.len().div_ceil(64);
    let ran_in: Vec<Vec<u64>> = cases
        .iter()
        .map(|s| {
            let mut bits = vec![0u64; words];
            for b in &s.seeds {
                for e in &b.executions {
                    let i = universe[&(b.binary.as_str(), e.execution)];
                    bits[i / 64] |= 1 << (i % 64);
                }
            }
            bits
        })
        .collect();
    let count = |bits: &[u64]| bits.iter().map(|w| w.count_ones() as usize).sum::<usize>();
    let of = universe.len();
    let mut groups: std::collections::BTreeMap<&[u64], Vec<usize>> = Default::default();
    for (i, bits) in ran_in.iter().enumerate() {
        if count(bits) < of {
            groups.entry(bits.as_slice()).or_default().push(i);
        }
    }
    let groups: Vec<(&[u64], Vec<usize>)> = groups.into_iter().collect();
    let disjoint = |a: &[u64], b: &[u64]| a.iter().zip(b).all(|(x, y)| x & y == 0);
    // Per group: how many partial cases never shared an execution with its cases, and the
    // one such case when there is exactly one.
    let never_with: Vec<(usize, Option<usize>)> = groups
        .iter()
        .map(|(bits, _)| {
            let others: Vec<&Vec<usize>> = groups
                .iter()
                .filter(|(other, _)| disjoint(bits, other))
                .map(|(_, members)| members)
                .collect();
            let n = others.iter().map(|m| m.len()).sum();
            (n, (n == 1).then(|| others[0][0]))
        })
        .collect();
    let group_of: std::collections::HashMap<usize, usize> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, (_, members))| members.iter().map(move |&i| (i, g)))
        .collect();
    let mut found: Vec<PartialCase> = group_of
        .iter()
        .map(|(&i, &g)| {
            let (n, only) = never_with[g];
            PartialCase {
                case: cases[i].metric.clone(),
                executions: count(&ran_in[i]),
                of,
                never_with_cases: n,
                // Each the other's only one: a rename, most likely.
                never_with_only: only
                    .filter(|j| never_with[group_of[j]].0 == 1)
                    .map(|j| cases[j].metric.clone()),
            }
        })
        .collect();
    found.sort_by(|a, b| crate::analysis::vocabulary::natural_order(&a.case, &b.case));
    found
}

fn case_row(s: &SeriesReport) -> SuiteCase {
    SuiteCase {
        case: s.metric.clone(),
        mean: s.mean,
        unit: s.unit.clone(),
        layout_variation: s.sensitivity.layout_variation,
        p_value: s.sensitivity.p_value,
        q_value: s.sensitivity.suite_fdr.map(|f| f.q_value),
        verdict: s.sensitivity.verdict,
    }
}

/// The experiment's case series of `program` and `variant`.
pub(crate) fn case_series<'a>(
    experiment: &'a Experiment,
    program: &str,
    variant: Option<&str>,
) -> Vec<&'a Series> {
    experiment
        .series
        .iter()
        .filter(|s| {
            s.program == program && s.variant.as_deref() == variant && experiment.is_case(&s.metric)
        })
        .collect()
}

/// `[binary][case]`: each randomised binary's mean of each case, for the binaries that ran
/// every case (a binary missing one is left out of the suite's mean).
fn unit_case_means(cases: &[&Series]) -> Vec<Vec<f64>> {
    let Some(first) = cases.first() else {
        return Vec::new();
    };
    first
        .seeds
        .iter()
        .filter_map(|binary| {
            cases
                .iter()
                .map(|c| {
                    let b = c.seeds.iter().find(|b| b.binary == binary.binary)?;
                    Some(b.mean()).filter(|m| m.is_finite())
                })
                .collect::<Option<Vec<f64>>>()
        })
        .collect()
}

/// Each variant's suite against its base's (the first variant, as the comparisons take it),
/// per program: the ratio of the geometric means over the cases both measured.
pub(crate) fn suite_comparisons(
    experiment: &Experiment,
    comparisons: &[PairComparison],
    thresholds: &Thresholds,
    fail_if_slower: Option<f64>,
) -> Vec<SuiteComparison> {
    let mut out = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for group in variant_groups(&experiment.series) {
        let first = &experiment.series[group[0]];
        if !experiment.is_case(&first.metric) || done.contains(&first.program.as_str()) {
            continue;
        }
        done.push(&first.program);
        let variants: Vec<Option<&str>> = group
            .iter()
            .map(|&i| experiment.series[i].variant.as_deref())
            .collect();
        let Some(Some(base)) = variants.first().copied() else {
            continue;
        };
        let base_series = case_series(experiment, &first.program, Some(base));
        for new in variants.iter().skip(1).flatten() {
            let new_series = case_series(experiment, &first.program, Some(new));
            let verdicts = comparisons
                .iter()
                .filter(|c| c.program == first.program && c.new == *new)
                .filter(|c| experiment.is_case(&c.metric))
                .map(|c| c.pair.effect.verdict);
            let sides = ((base, &base_series[..]), (*new, &new_series[..]));
            out.extend(suite_ratio(
                (&first.program, None),
                sides,
                verdicts,
                thresholds,
                fail_if_slower,
            ));
        }
    }
    out
}

/// One side of a suite's comparison: its label (a variant's name, or `base`/`new` for two
/// experiments) and its cases' series.
pub(crate) type SuiteSide<'a> = (&'a str, &'a [&'a Series]);

/// `new`'s suite of `program` (and `variant`, comparing two experiments) against `base`'s:
/// the ratio of the geometric means over the
/// cases both measured (Welch's interval over each side's binaries, see
/// [`crate::stats::suite::geometric_mean_ratio`]), its verdict and gate, and how many cases
/// moved each way by their own comparisons (`case_verdicts`); `None` when the ratio cannot be
/// had (fewer than two binaries a side that ran every case).
pub(crate) fn suite_ratio(
    (program, variant): (&str, Option<&str>),
    (base, new): (SuiteSide, SuiteSide),
    case_verdicts: impl Iterator<Item = EffectVerdict> + Clone,
    thresholds: &Thresholds,
    fail_if_slower: Option<f64>,
) -> Option<SuiteComparison> {
    // The cases both sides measured, in one order.
    let (b, n): (Vec<&Series>, Vec<&Series>) = base
        .1
        .iter()
        .filter_map(|b| Some((*b, *new.1.iter().find(|n| n.metric == b.metric)?)))
        .unzip();
    let ratio = crate::stats::suite::geometric_mean_ratio(
        &unit_case_means(&b),
        &unit_case_means(&n),
        thresholds.confidence,
    )
    .ok()?;
    let is_time = b.first()?.is_time();
    let effect = Effect::classify(
        ratio.estimate,
        Some((ratio.lower, ratio.upper)),
        thresholds,
        is_time,
    );
    let count = |verdict: EffectVerdict| case_verdicts.clone().filter(|v| *v == verdict).count();
    Some(SuiteComparison {
        program: program.to_string(),
        variant: variant.map(str::to_string),
        base: base.0.to_string(),
        new: new.0.to_string(),
        cases: b.len(),
        ratio,
        verdict: effect.verdict,
        is_time,
        cases_lower: count(EffectVerdict::Lower),
        cases_higher: count(EffectVerdict::Higher),
        slower_beyond_threshold: effect.slower_beyond(fail_if_slower, b.first()?.is_rate()),
        gated: fail_if_slower.is_some(),
        detectable_excess: crate::stats::mde::noncentrality_for_power(
            ratio.df,
            1.0 - thresholds.confidence,
            crate::stats::mde::DEFAULT_POWER,
        )
        .map(|lambda| lambda * ratio.log_std_error)
        .filter(|e| e.is_finite()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::answers::series::{BinaryData, ExecutionData};

    /// A case `name` that ran in `executions` of each of two binaries.
    fn case(name: &str, executions: std::ops::Range<u32>) -> Series {
        let binary = |label: &str| BinaryData {
            binary: label.into(),
            seed: None,
            executions: executions
                .clone()
                .map(|execution| ExecutionData {
                    execution,
                    schedule_index: 0,
                    wall_ns: 0,
                    data_seed: None,
                    warmup: Vec::new(),
                    live: vec![1.0],
                })
                .collect(),
        };
        Series {
            program: "p".into(),
            variant: None,
            metric: name.into(),
            unit: "ns".into(),
            seeds: vec![binary("seed-1"), binary("seed-2")],
            baseline: None,
            as_built: None,
            warmup_discarded: 0,
            rounds: false,
            later_phases: Default::default(),
            binary_cost_seconds: None,
        }
    }

    fn partial(cases: &[Series]) -> Vec<(String, usize, usize, Option<String>)> {
        partial_cases(&cases.iter().collect::<Vec<_>>())
            .into_iter()
            .map(|p| (p.case, p.executions, p.never_with_cases, p.never_with_only))
            .collect()
    }

    /// One case renamed from execution 2 on: the two names are each other's only case never
    /// run with; a case dropped after execution 3 shared executions with both.
    #[test]
    fn a_renamed_case_is_paired_with_its_new_name() {
        let cases = [
            case("full", 0..4),
            case("old", 0..2),
            case("new", 2..4),
            case("dropped", 0..3),
        ];
        assert_eq!(
            partial(&cases),
            [
                ("dropped".to_string(), 6, 0, None),
                ("new".to_string(), 4, 1, Some("old".to_string())),
                ("old".to_string(), 4, 1, Some("new".to_string())),
            ]
        );
    }

    /// 300 cases renamed at once: no case ran in every execution, each name never ran with
    /// the 300 of the other set, and no pair is singled out.
    #[test]
    fn a_suite_renamed_at_once_pairs_no_case() {
        let mut cases = Vec::new();
        for i in 0..300 {
            cases.push(case(&format!("a{i}"), 0..2));
            cases.push(case(&format!("b{i}"), 2..4));
        }
        let found = partial(&cases);
        assert_eq!(found.len(), 600);
        assert!(found
            .iter()
            .all(|(_, e, n, only)| *e == 4 && *n == 300 && only.is_none()));
    }
}
