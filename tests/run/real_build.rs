//! `layoutrand run` on what the real `layoutrand build` produced: the manifest, paths and
//! labels it writes, run under cachegrind so the layouts' differences show exactly.

use crate::run_support;

use std::collections::BTreeMap;

use layoutrand::files::store::{read_results, ExecutionStatus};
use run_support::*;

#[test]
fn runs_the_binaries_of_a_real_build() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("src");
    std::fs::create_dir(&src).unwrap();
    for f in ["layout_a.c", "layout_b.c"] {
        std::fs::copy(fixture(f), src.join(f)).unwrap();
    }
    std::fs::write(
        src.join("Makefile"),
        "prog: layout_a.o layout_b.o\n\tgcc -O1 -o prog layout_a.o layout_b.o\n%.o: %.c\n\tgcc -O1 -c $< -o $@\n",
    )
    .unwrap();
    let out = d.path().join("out");
    let build = layoutrand()
        .current_dir(&src)
        .args(["build", "--seeds", "2", "--out"])
        .arg(&out)
        .args(["--", "make"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "layoutrand build failed:\n{stderr}");

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
    assert_eq!(h.binaries, vec!["baseline", "seed-1", "seed-2"]);
    assert_eq!(r.executions.len(), 6);
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
    let mut misses: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for m in r.measurements.iter().filter(|m| m.metric == "I1_misses") {
        misses.entry(m.binary.clone()).or_default().push(m.value);
    }
    assert_eq!(misses.len(), 3);
    for (v, values) in &misses {
        assert_eq!(values.len(), 2);
        assert_eq!(values[0], values[1], "{v}: cachegrind must repeat exactly");
    }
}
