//! What the runner holds fixed really is fixed: ASLR off (a stack address that depends only
//! on the padding) and cachegrind counts that are exact on re-run and see a link-order change.

use crate::run_support;

use std::collections::BTreeMap;

use layoutrand::files::store::{read_results, ExecutionStatus};
use run_support::*;

#[test]
fn aslr_is_off_stack_address_depends_only_on_the_padding() {
    let d = tempfile::tempdir().unwrap();
    // Two binaries of the same binary: run from the same fixed path, they must see the same
    // stack, so any difference would come from the path or the environment.
    same_binary_experiment(d.path(), "stack", "stack.c", 1);
    let assert = run_in(d.path())
        .args([
            "--executions",
            "8",
            "--env-pad",
            "64",
            "--schedule-seed",
            "12",
        ])
        .args(["--metric", r"regex:stack (\d+)", "--", "{bin}"])
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    let h = r.header.as_ref().unwrap();
    // A host that forbids personality(ADDR_NO_RANDOMIZE) (a container's seccomp profile)
    // cannot give the proof: the run says so loudly, and this test fails rather than pass
    // without checking anything.
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(
        h.aslr_disabled,
        "this host forbids disabling ASLR, so the padding proof cannot run: {stderr}"
    );
    let pad_of: BTreeMap<(String, u32), u32> = r
        .executions
        .iter()
        .map(|e| ((e.binary.clone(), e.execution), e.env_pad))
        .collect();
    assert!(r.executions.iter().all(|e| e.status == ExecutionStatus::Ok));
    let mut by_pad: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for m in r.measurements.iter().filter(|m| m.metric == "reported") {
        let pad = pad_of[&(m.binary.clone(), m.execution)];
        by_pad.entry(pad).or_default().push(m.value as u64);
    }
    assert!(
        by_pad.len() >= 2,
        "16 draws from 4 paddings gave {by_pad:?}"
    );
    assert!(
        by_pad.values().any(|v| v.len() >= 2),
        "no padding repeated: {by_pad:?}"
    );
    for (pad, addrs) in &by_pad {
        assert!(
            addrs.iter().all(|a| *a == addrs[0]),
            "padding {pad}: addresses {addrs:?}"
        );
    }
    // More environment pushes the stack down by exactly the extra bytes: the kernel copies
    // the strings to the top of the stack and 16-aligns, and the paddings are multiples of 16.
    let (&p0, a0) = by_pad.iter().next().unwrap();
    for (&p, a) in &by_pad {
        assert_eq!(
            a0[0] as i64 - a[0] as i64,
            i64::from(p) - i64::from(p0),
            "{by_pad:?}"
        );
    }
}

#[test]
fn cachegrind_counts_are_exact_on_rerun_and_differ_between_link_orders() {
    let d = tempfile::tempdir().unwrap();
    let build = d.path().join("build");
    std::fs::create_dir_all(&build).unwrap();
    let a = object(&build, "layout_a.c", &["-O1"]);
    let b = object(&build, "layout_b.c", &["-O1"]);
    let ab = build.join("ab");
    let ba = build.join("ba");
    gcc(&ab, &[a.clone(), b.clone()], &["-fuse-ld=lld"]);
    gcc(&ba, &[b, a], &["-fuse-ld=lld"]);
    experiment(
        d.path(),
        &[(None, vec![("prog", ab)]), (Some(1), vec![("prog", ba)])],
    );
    // --env-pad 0: the padding is empty in every execution, so re-runs are identical.
    run_in(d.path())
        .args([
            "--executions",
            "2",
            "--env-pad",
            "0",
            "--metric",
            "cachegrind",
        ])
        .args(["--schedule-seed", "1", "--", "{bin}"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let r = read_results(d.path()).unwrap();
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{:?}",
        r.executions
    );
    let value = |binary: &str, execution: u32, metric: &str| {
        r.measurements
            .iter()
            .find(|m| m.binary == binary && m.execution == execution && m.metric == metric)
            .unwrap_or_else(|| panic!("no {metric} for {binary} #{execution}"))
            .value
    };
    for metric in ["Ir", "I1_misses", "D1_misses", "LL_misses"] {
        for v in ["baseline", "seed-1"] {
            assert_eq!(
                value(v, 0, metric),
                value(v, 1, metric),
                "{metric} of {v} re-run"
            );
        }
    }
    assert!(value("baseline", 0, "Ir") > 100_000.0);
    assert_ne!(
        value("baseline", 0, "I1_misses"),
        value("seed-1", 0, "I1_misses"),
        "the two link orders gave the same I1 misses"
    );
    // No wall/cpu values under valgrind: they would be valgrind's, not the program's.
    assert!(r.measurements.iter().all(|m| m.metric != "wall"));
}
