//! Issue 21 item 8: a store holding one value of 1e308 (finite, but its square overflows)
//! gets from `layoutrand report` the reason `layoutrand analyze` gives for the same
//! measurements — the overflow — in text and JSON, with the same exit status; not "fewer
//! than 2 randomised binaries" nor "every execution gave the same value".

use crate::report_support;
use crate::snapshot_support::in_dir;

use std::process::Output;

use report_support::{layoutrand, write_dir, Design};

/// Named by every reader when the spread overflows.
const OVERFLOW: &str = "range of double precision";

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn report_names_the_overflow_as_analyze_does() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("exp");
    std::fs::create_dir(&dir).unwrap();
    // Four randomised binaries plus the baseline, 2 executions of 2 iterations; one iteration
    // of seed 1 is 1e308, every other value near 1e6.
    write_dir(&dir, &Design::new(4, 2, 2), &mut |_, seed, e, i, _| {
        if seed == Some(1) && e == 0 && i == 0 {
            1e308
        } else {
            1e6 + 1e3 * seed.unwrap_or(0) as f64 + f64::from(e) + f64::from(i)
        }
    });

    // `analyze` on the same measurements, exported to CSV (the baseline left out: analyze
    // sees the randomised binaries, as report's interval does).
    let csv = tmp.path().join("m.csv");
    let exported = layoutrand(&["export", "-o", csv.to_str().unwrap()], &[&dir]);
    assert!(exported.status.success(), "{}", text(&exported));
    let all = std::fs::read_to_string(&csv).unwrap();
    let randomised: String = all
        .lines()
        .filter(|l| !l.contains(",baseline,"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(randomised.lines().count() == 1 + 4 * 2 * 2, "{randomised}");
    std::fs::write(&csv, randomised).unwrap();
    let analyze = layoutrand(
        &[
            "analyze",
            csv.to_str().unwrap(),
            "--levels",
            "binary,execution,iteration",
            "--value",
            "value",
        ],
        &[],
    );
    assert!(text(&analyze).contains(OVERFLOW), "{}", text(&analyze));

    let report = layoutrand(&["report"], &[&dir]);
    let words = text(&report);
    assert_eq!(report.status.code(), analyze.status.code(), "{words}");
    assert!(words.contains(OVERFLOW), "{words}");
    // The report, pinned whole: the overflow, never "fewer than 2", "same value", "0
    // binaries" nor "∞".
    insta::assert_snapshot!("report_text", in_dir(&words, tmp.path()));

    let json = layoutrand(&["report", "--format", "json"], &[&dir]);
    assert_eq!(json.status.code(), analyze.status.code());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let s = &v["series"][0];
    assert!(s["ci"].is_null(), "{s}");
    // The default layout is not "an ordinary layout" among layouts whose spread cannot be
    // computed (it printed a prediction interval "0 ns to ∞ s"), and no drift is made of
    // the arithmetic's noise (it printed "88.9 % faster").
    assert_eq!(s["default_layout"]["verdict"], "undetermined", "{s}");
    assert!(s["diagnostics"]["drift"].is_null(), "{s}");
    for field in [
        &s["interval_note"],
        &s["sensitivity"]["text"],
        &s["default_layout"]["text"],
        &s["diagnostics"]["drift_not_tested"],
        &s["summary"],
    ] {
        let field = field.as_str().unwrap();
        assert!(field.contains(OVERFLOW), "{field}");
    }
}
