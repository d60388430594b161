//! `layoutrand run` on what the real `layoutrand build` produced: the manifest, paths and
//! labels it writes, run under cachegrind so the layouts' differences show exactly.

use crate::run_support;

use std::collections::BTreeMap;

use layoutrand::files::store::{read_results, ExecutionStatus};
use run_support::*;

/// A source tree of two modules with its Makefile, in `d/src`.
fn two_module_tree(d: &std::path::Path) -> std::path::PathBuf {
    let src = d.join("src");
    std::fs::create_dir(&src).unwrap();
    for f in ["layout_a.c", "layout_b.c"] {
        std::fs::copy(fixture(f), src.join(f)).unwrap();
    }
    std::fs::write(
        src.join("Makefile"),
        "prog: layout_a.o layout_b.o\n\tgcc -O1 -o prog layout_a.o layout_b.o\n%.o: %.c\n\tgcc -O1 -c $< -o $@\n",
    )
    .unwrap();
    src
}

#[test]
fn runs_the_binaries_of_a_real_build() {
    let d = tempfile::tempdir().unwrap();
    let src = two_module_tree(d.path());
    let out = d.path().join("out");
    build_with_make(&src, &out, 2);

    run_in(&out)
        .current_dir(&src)
        .args([
            "--executions",
            "2",
            "--env-pad",
            "0",
            "--metric",
            "cachegrind",
        ])
        .args(["--schedule-seed", "3", "--", "{bin}"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success();
    let r = read_results(&out).unwrap();
    let h = r.header.as_ref().unwrap();
    assert_eq!(h.programs, vec!["prog"]);
    // The build's own binary (`as-built`) runs beside the baseline, before the seeds.
    assert_eq!(h.binaries, vec!["baseline", "as-built", "seed-1", "seed-2"]);
    assert_eq!(r.executions.len(), 8);
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
    let mut misses: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for m in r.measurements.iter().filter(|m| m.metric == "I1_misses") {
        misses.entry(m.binary.clone()).or_default().push(m.value);
    }
    assert_eq!(misses.len(), 4);
    for (v, values) in &misses {
        assert_eq!(values.len(), 2);
        assert_eq!(values[0], values[1], "{v}: cachegrind must repeat exactly");
    }
}

/// The build's own binary is measured as the fixed layout `as-built` and answered as the
/// default layout is, outside the random layouts' sample: the layouts' mean and its binary
/// level count only the seeds; the text, HTML and JSON reports state the same numbers.
#[test]
fn the_as_built_binary_is_run_and_answered_beside_the_layouts() {
    use layoutrand::report::numfmt::percent;
    let d = tempfile::tempdir().unwrap();
    let src = two_module_tree(d.path());
    let out = d.path().join("out");
    layoutrand()
        .current_dir(&src)
        .args(["build", "-q", "--seeds", "3", "--out"])
        .arg(&out)
        .args(["--", "make"])
        .assert()
        .success();
    run_in(&out)
        .current_dir(&src)
        .args(["--executions", "2", "--env-pad", "0", "--metric", "cpu"])
        .args(["--schedule-seed", "5", "--", "{bin}"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success();
    let report = |format: &str| {
        let o = layoutrand()
            .args(["report", "--format", format])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&report("json")).unwrap();
    let s = &json["series"][0];
    let a = &s["as_built"];
    assert!(a.is_object(), "no as_built answer: {s:#}");
    // The sample of layouts is the 3 seeds: the binary level has 3 repetitions and the mean
    // is the seeds' (balanced, so the mean of their means), not including as-built.
    let binary_level = s["levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "binary")
        .unwrap();
    assert_eq!(binary_level["repetitions"], 3, "{s:#}");
    let stats = s["binaries"].as_array().unwrap();
    let labels: Vec<&str> = stats
        .iter()
        .map(|b| b["binary"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["baseline", "as-built", "seed-1", "seed-2", "seed-3"]
    );
    let seed_means: Vec<f64> = stats[2..]
        .iter()
        .map(|b| b["mean"].as_f64().unwrap())
        .collect();
    let mean = s["mean"].as_f64().unwrap();
    assert!(
        (mean - seed_means.iter().sum::<f64>() / 3.0).abs() <= 1e-9 * mean,
        "{s:#}"
    );
    // Its own mean is the as-built binary's, and its percentile counts the seeds below it.
    let own = a["binary"]["mean"].as_f64().unwrap();
    assert_eq!(own, stats[1]["mean"].as_f64().unwrap());
    let below = seed_means.iter().filter(|m| **m < own).count() as f64;
    let ties = seed_means.iter().filter(|m| **m == own).count() as f64;
    assert_eq!(a["placement"]["percentile"], (below + ties / 2.0) / 3.0);
    assert_eq!(a["binary"]["executions"], 2);
    // The same numbers in the text report, and the difference from the baseline stated.
    let text = report("text");
    let unit = s["unit"].as_str().unwrap();
    // In the section's unit, chosen for the layouts' mean (as every line of a section is).
    let scale = layoutrand::report::numfmt::Scale::for_values(unit, mean);
    let own_line = match a["binary"]["ci"].as_object() {
        Some(ci) => scale.estimate(
            own,
            ci["lower"].as_f64().unwrap(),
            ci["upper"].as_f64().unwrap(),
            0.95,
        ),
        None => scale.quantity(own),
    };
    assert!(
        text.contains(&format!(
            "As built (the binary your build made): {own_line}"
        )),
        "{text}"
    );
    let placement = a["placement"]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("As built among random layouts: {placement}")),
        "{text}"
    );
    let percentile = a["placement"]["percentile"].as_f64().unwrap();
    // The JSON's mid-rank percentile counts a tie half below; the words then give the share
    // strictly below and the tied count instead (default_layout::rank_clause), so the two
    // agree only without a tie (a timing at the clock's resolution can tie).
    if !placement.contains(" equal it") {
        assert!(placement.contains(&percent(percentile, 2)), "{placement}");
    }
    let answer = a["text"].as_str().unwrap();
    // The plain build's binary and the baseline are one code layout when their fingerprints
    // agree: the answer then says so instead of calling it a layout of its own.
    let same = a["same_layout_as_baseline"]
        .as_bool()
        .expect("known from the manifest");
    let opening = if same {
        "The binary your build made (as built) has the default code layout"
    } else {
        "The binary your build made (as built) is "
    };
    assert!(answer.starts_with(opening), "{answer}");
    assert!(s["summary"].as_str().unwrap().contains(answer), "{s:#}");
    let versus = a["versus_baseline"].as_str().expect("stated");
    assert!(
        text.contains(&format!("Baseline vs as built: {versus}.")),
        "{text}"
    );
    let html = report("html");
    assert!(html.contains("id=\"as-built-0\""), "no as-built section");
}
