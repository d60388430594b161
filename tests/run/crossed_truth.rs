//! Known truth end to end (issue 35): real builds run under cachegrind with several data
//! seeds, read back through `report --format json`. The heap fixture's D1 misses move with
//! the heap's offset only, so the data axis must carry the variance, the code share's
//! interval must include 0 and the code-layout answer must not be "cannot tell"; the demo's
//! I1 misses move with the code layout (and by a few counts in a million with the data
//! seed), so the code axis must carry the variance and the data's share be negligible.
//! Without valgrind the runs fail and so does the test.

use crate::run_support::*;

use serde_json::Value;

/// Builds `files` (copied from `fixtures/FIXTURE_NAME`) with `seeds` code seeds into `out`.
pub(crate) fn build(
    dir: &std::path::Path,
    fixture_name: &str,
    files: &[&str],
    seeds: u32,
) -> std::path::PathBuf {
    let src = dir.join("src");
    std::fs::create_dir(&src).unwrap();
    for f in files {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        std::fs::copy(fixtures.join(fixture_name).join(f), src.join(f)).unwrap();
    }
    let out = dir.join("out");
    build_with_make(&src, &out, seeds);
    out
}

/// Runs `out` under cachegrind with `data_seeds` data seeds, 2 executions per pair, and
/// returns the series of `metric` of the JSON report.
fn crossed_series(
    dir: &std::path::Path,
    out: &std::path::Path,
    data_seeds: &str,
    run_extra: &[&str],
    metric: &str,
) -> Value {
    run_in(out)
        .current_dir(dir.join("src"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .args(["--data-seeds", data_seeds, "--executions", "2"])
        .args(["--metric", "cachegrind", "--schedule-seed", "5"])
        .args(run_extra)
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success();
    let report = layoutrand()
        .args(["report", "--format", "json"])
        .arg(out)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&report.stdout).unwrap_or_else(|e| {
        panic!(
            "report printed no JSON ({e}): {}",
            String::from_utf8_lossy(&report.stderr)
        )
    });
    json["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["metric"] == metric)
        .unwrap_or_else(|| panic!("no series {metric}"))
        .clone()
}

fn share(series: &Value, component: &str) -> (f64, f64, f64) {
    let c = &series["variance_split"][component];
    (
        c["share"].as_f64().unwrap(),
        c["interval"]["lower"].as_f64().unwrap(),
        c["interval"]["upper"].as_f64().unwrap(),
    )
}

#[test]
fn the_heap_fixture_is_data_sensitive_and_the_demo_code_sensitive() {
    let d = tempfile::tempdir().unwrap();
    let heap_dir = d.path().join("heap");
    std::fs::create_dir(&heap_dir).unwrap();
    let out = build(
        &heap_dir,
        "heapalias",
        &["heapalias.c", "kernel.c", "Makefile"],
        4,
    );
    let heap = crossed_series(
        &heap_dir,
        &out,
        "4",
        &["--cache-sim", "D1=4096,1,64", "--", "{bin}"],
        "D1_misses",
    );
    let (data, _, _) = share(&heap, "data");
    let (_, code_lower, _) = share(&heap, "code");
    assert!(data >= 0.9, "data share {data}: {heap}");
    assert_eq!(
        code_lower, 0.0,
        "the code share's interval excludes 0: {heap}"
    );
    assert_eq!(heap["data_sensitivity"]["verdict"], "detected", "{heap}");
    // Identical binaries under each data seed: no code variation, stated as such.
    assert_eq!(heap["sensitivity"]["verdict"], "not_detected", "{heap}");
    // The mean's interval carries the data seeds' spread: it is not a point.
    let ci = &heap["ci"];
    assert!(
        ci["upper"].as_f64().unwrap() > ci["lower"].as_f64().unwrap(),
        "{heap}"
    );

    let demo_dir = d.path().join("demo");
    std::fs::create_dir(&demo_dir).unwrap();
    let files = [
        "Makefile", "demo.h", "hash.c", "interp.c", "main.c", "matrix.c", "sort.c",
    ];
    let out = build(&demo_dir, "demo", &files, 4);
    let demo = crossed_series(&demo_dir, &out, "2", &["--", "{bin}", "1"], "I1_misses");
    let (code, _, _) = share(&demo, "code");
    let (_, _, data_upper) = share(&demo, "data");
    assert!(code >= 0.9, "code share {code}: {demo}");
    // Under cachegrind a data seed moves the demo's counts by a few in a million (printf on
    // a shifted stack): a real effect, deterministic, of about 1e-7 of the mean, whose
    // share's interval may end just above 0 (1.5e-12 in one CI run; the test asserted
    // exactly 0 and failed now and then — issue 55's flaky test). What must hold: the
    // share is negligible and no data-layout sensitivity is claimed.
    assert!(
        data_upper <= 0.01,
        "the data share's interval reaches {data_upper}: {demo}"
    );
    assert_ne!(demo["data_sensitivity"]["verdict"], "detected", "{demo}");
    assert_eq!(demo["sensitivity"]["verdict"], "detected", "{demo}");
}
