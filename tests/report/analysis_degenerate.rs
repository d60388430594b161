//! Degenerate inputs of the analysis engine through the CLI (issue 10): every one gives an
//! answer with exit 0 or a precise refusal, never a panic, an `inf` or a `NaN`.

use crate::csv_support;
use crate::snapshot_support::redact;

use csv_support::{analyze_args, arg, compare_args, layoutrand, temp_csv};
use serde_json::Value;

/// Runs and returns (exit code, stdout, stderr), every temporary CSV file (`temp_csv`)
/// written `[temp.csv]`.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = layoutrand().args(args).output().unwrap();
    let named = |text: &[u8]| {
        redact(
            &String::from_utf8_lossy(text),
            &[(r#"[^\s:"'`]*\.tmp[A-Za-z0-9]+\.csv"#, "[temp.csv]")],
        )
    };
    (
        out.status.code().unwrap_or(-1),
        named(&out.stdout),
        named(&out.stderr),
    )
}

const CONSTANT_5: &str = "binary,execution,value\nb1,0,5\nb1,1,5\nb2,0,5\nb2,1,5\n";
const CONSTANT_6: &str = "binary,execution,value\nb1,0,6\nb1,1,6\nb2,0,6\nb2,1,6\n";

#[test]
fn compare_of_two_zero_variance_sides_answers_instead_of_panicking() {
    // The reproduction of issue 10: exit 101 (FreedomInvalid in tdist.rs) before.
    let (a, b) = (temp_csv(CONSTANT_5), temp_csv(CONSTANT_6));
    let args = compare_args(arg(&a), arg(&b), "binary,execution", "value", &[]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}{err}");
    // The text, pinned whole: 20.0 % slower, no Welch test (not computable).
    insta::assert_snapshot!("zero_variance_text", out);
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let (code, out, err) = run(&json);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["direction"], "slower");
    assert_eq!(v["effect"]["verdict"], "higher");
    assert!(v["welch"].is_null());
}

#[test]
fn all_values_equal_is_worded_as_a_tie() {
    let (a, b) = (temp_csv(CONSTANT_5), temp_csv(CONSTANT_5));
    let (code, out, err) = run(&compare_args(
        arg(&a),
        arg(&b),
        "binary,execution",
        "value",
        &[],
    ));
    assert_eq!(code, 0, "{err}");
    // The text, pinned whole: a tie, neither faster nor slower.
    insta::assert_snapshot!(out);
}

#[test]
fn a_tiny_but_certain_difference_is_detectable_but_negligible() {
    // 0.3 % apart with 0.01 % noise: detected, but within the default 1 % threshold.
    let mut base = String::from("binary,value\n");
    let mut new = String::from("binary,value\n");
    for i in 0..8 {
        let noise = 1.0 + 1e-4 * f64::from(i % 3);
        base.push_str(&format!("b{i},{}\n", 1000.0 * noise));
        new.push_str(&format!("b{i},{}\n", 1003.0 * noise));
    }
    let (a, b) = (temp_csv(&base), temp_csv(&new));
    let common = compare_args(arg(&a), arg(&b), "binary", "value", &[]);
    let (code, out, _) = run(&common);
    assert_eq!(code, 0);
    // Each text pinned whole: detectable but negligible at the default threshold; at 0.1 %,
    // new is 0.300000 % slower (as many digits as the interval needs), not negligible.
    insta::assert_snapshot!("default_threshold", out);
    let mut strict = common.to_vec();
    strict.extend(["--negligible", "0.1%"]);
    let (code, out, _) = run(&strict);
    assert_eq!(code, 0);
    assert!(out.starts_with("base"), "{out}");
    insta::assert_snapshot!("strict_threshold", out);
}

#[test]
fn values_near_the_largest_double_give_a_finite_mean_and_no_nan() {
    let f = temp_csv("b,v\nx,1.7e308\ny,1.6e308\nz,1.5e308\n");
    let args = analyze_args(arg(&f), "b", "v", &[]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    // The text, pinned whole: a mean of 1.600e308, no NaN, no inf.
    insta::assert_snapshot!(out);
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let (_, out, _) = run(&json);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!((v["mean"].as_f64().unwrap() / 1.6e308 - 1.0).abs() < 1e-12);
}

#[test]
fn a_huge_bootstrap_is_refused_before_allocating() {
    let f = temp_csv("b,v\nx,1\ny,2\nz,3\n");
    let (code, _, err) = run(&analyze_args(
        arg(&f),
        "b",
        "v",
        &["--bootstrap", "100000000000"],
    ));
    assert_eq!(code, 2);
    // The message, pinned whole: at most 10000000 resamples.
    insta::assert_snapshot!(err);
}

#[test]
fn one_unit_gives_an_answer_with_reasons() {
    let f = temp_csv("b,v\nx,1\n");
    let (code, out, err) = run(&analyze_args(arg(&f), "b", "v", &[]));
    assert_eq!(code, 0, "{err}");
    // The text, pinned whole: no confidence interval is possible, and why.
    insta::assert_snapshot!(out);
}

#[test]
fn percent_and_fraction_mean_the_same() {
    let (a, b) = (temp_csv(CONSTANT_5), temp_csv(CONSTANT_6));
    let with = |gate: &str| {
        run(&compare_args(
            arg(&a),
            arg(&b),
            "binary,execution",
            "value",
            &["--fail-if-slower", gate],
        ))
        .0
    };
    // 20 % slower: fails a 10 % gate written either way, passes a 30 % one.
    assert_eq!(with("10%"), 1);
    assert_eq!(with("0.1"), 1);
    assert_eq!(with("30%"), 0);
    assert_ne!(with("10"), 0);
}
