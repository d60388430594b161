//! No input makes the analysis engine panic (issue 10): random small hierarchies of
//! constants, ties, ordinary, tiny and huge values (near the largest double) go through
//! every command path of the library — analyze, compare (CSV and directory), report (all
//! five formats) and dimension — and each gives an answer or an error, never a panic.

use crate::report_support;

use std::path::Path;

use proptest::prelude::*;

use layoutrand::analysis::answers::builder::analyse;
use layoutrand::analysis::answers::dimension::{dimension, CostOverrides};
use layoutrand::analysis::answers::experiment::{from_parts, Experiment};
use layoutrand::analysis::compare::{compare, CompareOptions};
use layoutrand::analysis::single::{analyze, BootstrapOptions, Dataset};
use layoutrand::analysis::vocabulary::Thresholds;
use layoutrand::report::{export::exporter, Format};
use layoutrand::stats::hierarchy::Hierarchy;
use report_support::{manifest, results, Design};

/// Values of one kind: 0 constant, 1 ties (two values), 2 ordinary, 3 tiny, 4 huge, 5 with
/// zeros.
fn values(kind: u8, n: usize) -> BoxedStrategy<Vec<f64>> {
    let one = match kind {
        0 => Just(7.0).boxed(),
        1 => prop_oneof![Just(1.0), Just(2.0)].boxed(),
        2 => (1.0f64..1e3).boxed(),
        3 => (1e-310f64..1e-300).boxed(),
        4 => (1e307f64..1.79e308).boxed(),
        _ => prop_oneof![Just(0.0), 0.0f64..1.0].boxed(),
    };
    prop::collection::vec(one, n).boxed()
}

/// A random balanced design (binaries, executions, iterations) and its values.
fn data() -> impl Strategy<Value = (Vec<usize>, Vec<f64>)> {
    (1usize..5, 1usize..4, 1usize..4, 0u8..6)
        .prop_flat_map(|(b, e, i, kind)| (Just(vec![i, e, b]), values(kind, b * e * i)))
}

fn dataset(reps: &[usize], values: &[f64], name: &str) -> Dataset {
    Dataset {
        source: name.into(),
        value: "value".into(),
        levels: vec!["binary".into(), "execution".into(), "iteration".into()],
        hierarchy: Hierarchy::from_nested(values.to_vec(), reps.to_vec()).unwrap(),
    }
}

/// The same data as an experiment with a baseline (its values are the first binary's).
fn experiment(reps: &[usize], values: &[f64]) -> Experiment {
    let (i, e, b) = (reps[0], reps[1], reps[2]);
    let mut design = Design::new(b as u64, e as u32, i as u32);
    design.baseline = true;
    let r = results(&design, &mut |_, seed, execution, iteration, _| {
        let binary = seed.map_or(0, |s| s as usize - 1);
        values[(binary * e + execution as usize) * i + iteration as usize]
    });
    from_parts(Path::new("synthetic"), manifest(&design), r).unwrap()
}

proptest! {
    // Seeded: the same cases on every run (the project allows no unseeded randomness).
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_command_path_answers_without_panicking(
        (reps, a) in data(),
        (_, b_kind) in (Just(()), 0u8..6),
        negligible in prop_oneof![Just(0.0), Just(0.01), Just(0.5)],
    ) {
        let th = Thresholds { confidence: 0.95, negligible };
        let da = dataset(&reps, &a, "a");
        let boot = Some(BootstrapOptions { resamples: 100, seed: 3 });
        // Degenerate data still get an analysis (with reasons), not an error.
        let full = analyze(&da, &th, Some(&[1.0, 1.0, 1.0]), boot).unwrap();
        prop_assert!(full.mean.is_none_or(f64::is_finite));
        prop_assert!(full.ci.as_ref().is_none_or(|c| c.lower.is_finite() && c.upper.is_finite()));
        analyze(&da, &th, None, None).unwrap();
        // The second side: the same design with values of another kind.
        let runner_values: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(k, v)| match b_kind {
                0 => *v,
                1 => v * 1.003,
                2 => 5.0,
                3 => v + k as f64,
                4 => 1.7e308,
                _ => 0.0,
            })
            .collect();
        let db = dataset(&reps, &runner_values, "b");
        for is_time in [true, false] {
            let options = CompareOptions { thresholds: th, is_time, is_rate: false, bootstrap: boot, fail_if_slower: Some(0.02) };
            let c = compare(&da, &db, &options).unwrap();
            let summary = report_support::words(&c, "summary");
            prop_assert!(!summary.contains("NaN"), "{}", summary);
            compare(&db, &da, &options).unwrap();
        }
        let ea = experiment(&reps, &a);
        let eb = experiment(&reps, &runner_values);
        let report = analyse(&ea, &th).unwrap();
        for format in [Format::Text, Format::Markdown, Format::Json, Format::Csv, Format::Html] {
            exporter(format).export(&report).unwrap();
        }
        if let Ok(d) = dimension(&ea, CostOverrides::default(), &[0.01, 0.5], 0.95) {
            let _ = layoutrand::report::render_dimension::render_text(&d);
        }
        let options = CompareOptions { thresholds: th, is_time: true, is_rate: false, bootstrap: None, fail_if_slower: Some(0.0) };
        if let Ok(c) = layoutrand::analysis::answers::compare::compare(&ea, &eb, &options) {
            let _ = layoutrand::report::render_compare::render_text(&c);
        }
    }
}
