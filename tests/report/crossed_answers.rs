//! The other answers of a crossed (code × data) run (issue 35) on synthetic stores with
//! known truth: the mean's interval carries the data seeds' spread, the code-layout answer is
//! blocked on the data seed and judged against the noise within one, binaries identical
//! under each data seed are "no code-layout variation", the data layout gets its own
//! verdict, and one data seed changes nothing.

use crate::report_support;

use layoutrand::analysis::report::model::{SensitivityGrounds, SeriesReport, Verdict};
use report_support::{Crossed, Design};

/// The one series of a store of 10 binaries × `data_seeds` data seeds × 3 executions × 5
/// iterations whose values come from `gen`.
fn series_of(data_seeds: u32, gen: &mut Crossed) -> SeriesReport {
    let mut design = Design::new(10, 3 * data_seeds, 5);
    design.data_seeds = data_seeds;
    super::data_split::analysed(&design, gen, &report_support::all_ok).series[0].clone()
}

#[test]
fn a_data_effect_widens_the_mean_and_is_answered_on_its_own() {
    // The data layout moves the metric by 5 % (sd), the code not at all, little run noise.
    let mut gen = Crossed::new(1e6, [0.0, 0.05, 0.0, 0.002, 0.001], 35);
    let s = series_of(4, &mut gen);
    let crossed = s.crossed_mean.expect("the crossed design's interval");
    assert_eq!((crossed.code_seeds, crossed.data_seeds), (10, 4));
    // The mean over code and data layouts is uncertain by the 4 data seeds' spread (5 %/√4
    // times t on about 3 df: several %), not by the binaries' 0.1 % alone.
    let rel = s.relative_half_width.unwrap();
    assert!(rel > 0.02, "relative half-width {rel}");
    let ci = s.ci.unwrap();
    assert!(ci.lower > 0.0 && ci.lower < s.mean && s.mean < ci.upper);
    // The code answer is blocked on the data seed: not "cannot tell", and the variation it
    // would have found is the within-data-seed noise's, below the 1 % worth finding.
    assert_eq!(
        s.sensitivity.verdict,
        Verdict::NotDetected,
        "{:?}",
        s.sensitivity
    );
    let detectable = s.sensitivity.detectable_variation.unwrap();
    assert!(detectable < 0.01, "{detectable}");
    let data = s.data_sensitivity.expect("a data-layout answer");
    assert_eq!(data.verdict, Verdict::Detected);
    assert!(data.variation_ci.lower <= data.variation && data.variation <= data.variation_ci.upper);
    assert!((0.01..0.15).contains(&data.variation), "{data:?}");
    // The default layout is one more code layout: the data axis cancels in its shift, whose
    // interval is then a fraction of a percent wide, not the data seeds' several %.
    let shift_ci = s.shift.ci.expect("a shift interval");
    assert!(
        shift_ci.upper - shift_ci.lower < 0.02,
        "the shift carries the data axis: {:?}",
        s.shift
    );
}

#[test]
fn binaries_identical_under_each_data_seed_have_no_code_variation() {
    // A deterministic metric that only the data layout moves (the heap fixture's D1 misses).
    let mut gen = Crossed::new(1e6, [0.0, 0.05, 0.0, 0.0, 0.0], 7);
    let s = series_of(3, &mut gen);
    assert_eq!(s.sensitivity.verdict, Verdict::NotDetected);
    assert_eq!(
        s.sensitivity.grounds,
        SensitivityGrounds::NoCodeVariation { data_seeds: 3 }
    );
    assert!(
        s.sensitivity
            .text
            .starts_with("no code-layout variation at all"),
        "{}",
        s.sensitivity.text
    );
    assert_eq!(s.data_sensitivity.unwrap().verdict, Verdict::Detected);
    assert!(s.relative_half_width.unwrap() > 0.01);
}

#[test]
fn a_code_effect_stays_detected_with_data_seeds() {
    let mut gen = Crossed::new(1e6, [0.05, 0.0, 0.0, 0.002, 0.001], 11);
    let s = series_of(3, &mut gen);
    assert_eq!(
        s.sensitivity.verdict,
        Verdict::Detected,
        "{:?}",
        s.sensitivity
    );
    assert_ne!(s.data_sensitivity.unwrap().verdict, Verdict::Detected);
}

#[test]
fn one_data_seed_adds_no_crossed_answer() {
    let mut gen = Crossed::new(1e6, [0.02, 0.0, 0.0, 0.01, 0.001], 3);
    let s = series_of(1, &mut gen);
    assert!(s.crossed_mean.is_none() && s.data_sensitivity.is_none());
}
