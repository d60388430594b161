//! A real autotools program, tried as a new user would: the Debian source package of gzip,
//! unpacked without Debian's patches (`--skip-patches`), `./configure`d, and built with
//! `layoutrand build --seeds 3 -- make`. Checks the three promises of a randomised build on
//! it: the baseline's layout equals the plain build's (the recorded build's own `gzip`);
//! every seed holds the same code in another layout (the manifest's code check, and distinct
//! fingerprints); and every seed passes gzip's own test suite (`make check`, with the seed's
//! binary in place of the built one). The suite's `list-big` (gzip -1 of a 4 GiB file of
//! zeros: 29 of the suite's 33 s here, and the same code path as its other compressions) runs
//! on the first seed only; the other seeds run every other test of the suite.
//!
//! Needs the Debian archive: ignored by default, failing when the archive cannot be reached;
//! .ci/run runs it.

use crate::build_support;

use build_support::{assert_success, build, fetch_debian_source, layout_distance, run_in};
use serde_json::Value;
use std::path::Path;

/// The suite's expensive test, run on the first seed only.
const EXPENSIVE_TEST: &str = "list-big";

/// gzip's test names (tests/Makefile.am's `TESTS`, a backslash-continued list).
fn gzip_test_names(src: &Path) -> Vec<String> {
    let am = std::fs::read_to_string(src.join("tests/Makefile.am")).unwrap();
    let start = am
        .find("\nTESTS =")
        .expect("tests/Makefile.am has no TESTS")
        + 1;
    let mut names = Vec::new();
    for line in am[start..].lines() {
        let body = line.trim_start_matches("TESTS =").trim_end();
        names.extend(
            body.trim_end_matches('\\')
                .split_whitespace()
                .map(String::from),
        );
        if !body.ends_with('\\') {
            break;
        }
    }
    names
}

#[test]
#[ignore = "needs the Debian archive (network); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn gzip_from_debian_with_autotools_every_seed_passes_make_check() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fetch_debian_source("gzip", tmp.path(), true);
    run_in(&src, &["./configure", "-q"]);
    let out_dir = tmp.path().join("out");
    let out = build(
        &src,
        &["--seeds", "3", "--out", out_dir.to_str().unwrap()],
        &["make", "-j2"],
    );
    assert_success(&out, "layoutrand build");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("manifest.json")).unwrap())
            .unwrap();
    let gzip_of = |entry: &Value| -> Value {
        assert_eq!(entry["status"], "ok", "{entry}");
        entry["binaries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == "gzip")
            .unwrap_or_else(|| panic!("no gzip in {entry}"))
            .clone()
    };
    let baseline = gzip_of(&manifest["baseline"]);

    // The baseline's layout is the plain build's: the recorded build left its own gzip.
    let plain = src.join("gzip");
    let d = layout_distance(&plain, &out_dir.join(baseline["path"].as_str().unwrap()));
    assert_eq!(d["base_fingerprint"], d["other_fingerprint"], "{d}");
    assert_eq!(d["distance"]["share_moved"], 0.0, "{d}");

    let seeds = manifest["seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 3);
    let mut fingerprints = std::collections::BTreeSet::from([baseline["fingerprint"].to_string()]);
    // `make check` runs the suite against ./gzip; keep the plain one to put back.
    let plain_copy = tmp.path().join("gzip.plain");
    std::fs::copy(&plain, &plain_copy).unwrap();
    let every_test = gzip_test_names(&src);
    assert!(
        every_test.len() > 20 && every_test.iter().any(|t| t == EXPENSIVE_TEST),
        "gzip's TESTS: {every_test:?}"
    );
    let cheaper: Vec<&str> = every_test
        .iter()
        .map(String::as_str)
        .filter(|t| *t != EXPENSIVE_TEST)
        .collect();
    let cheaper_tests = format!("TESTS={}", cheaper.join(" "));
    for (i, seed) in seeds.iter().enumerate() {
        let gzip = gzip_of(seed);
        fingerprints.insert(gzip["fingerprint"].to_string());
        // Same code: the verifier compared every function's symbol and size.
        let code = &gzip["code"];
        assert_eq!(code["functions"], baseline["functions"], "{gzip}");
        assert!(code["bytes"].as_u64().unwrap() > 0, "{gzip}");
        let binary = out_dir.join(gzip["path"].as_str().unwrap());
        let d = layout_distance(&plain, &binary);
        assert_eq!(d["only_in_base"], 0, "{d}");
        assert_eq!(d["only_in_other"], 0, "{d}");
        assert!(d["distance"]["share_moved"].as_f64().unwrap() > 0.5, "{d}");
        // gzip's own suite, with this seed as ./gzip (newer than its objects: not rebuilt).
        std::fs::copy(&binary, &plain).unwrap();
        let (check, expected) = if i == 0 {
            (vec!["make", "-j2", "check"], every_test.len())
        } else {
            (vec!["make", "-j2", "check", &cheaper_tests], cheaper.len())
        };
        let log = run_in(&src, &check);
        assert!(
            !log.contains("CCLD     gzip"),
            "make check relinked gzip instead of testing the seed:\n{log}"
        );
        let summary = std::fs::read_to_string(src.join("tests/test-suite.log")).unwrap();
        assert!(
            summary.contains("# FAIL:  0") && !summary.contains("# PASS:  0"),
            "seed {}: {summary}",
            seed["seed"]
        );
        assert!(
            summary.contains(&format!("# TOTAL: {expected}\n")),
            "seed {}: {expected} tests should have run: {summary}",
            seed["seed"]
        );
    }
    std::fs::copy(&plain_copy, &plain).unwrap();
    assert_eq!(
        fingerprints.len(),
        4,
        "baseline and 3 seeds: distinct layouts"
    );
}
