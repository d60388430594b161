//! `run --data-seeds` (issue 35): a data seed names one data layout — the same stack and
//! heap addresses in every run and for every binary — and different data seeds move the
//! stack by their paddings' difference and the heap by their heap offsets' difference.

use crate::run_support;

use std::collections::BTreeMap;

use layoutrand::files::store::{read_results, ExecutionStatus, Results};
use run_support::*;

/// Runs `run --data-seeds 3` of the addresses fixture into `dir` (2 binaries of one
/// executable, 2 executions per cell) with a private cache, and returns the store.
fn run_addresses(dir: &std::path::Path, cache: &std::path::Path, schedule_seed: &str) -> Results {
    same_binary_experiment(dir, "addresses", "addresses.c", 1);
    let assert = run_in(dir)
        .env("XDG_CACHE_HOME", cache)
        .args(["--data-seeds", "3", "--executions", "2"])
        .args(["--schedule-seed", schedule_seed, "--iterations", "2"])
        .args(["--metric", r"regex:addr (\d+)", "--", "{bin}"])
        .assert()
        .success();
    let r = read_results(dir).unwrap();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        r.header.as_ref().unwrap().aslr_disabled,
        "this host forbids disabling ASLR, so the address proof cannot run: {stderr}"
    );
    assert!(
        r.executions.iter().all(|e| e.status == ExecutionStatus::Ok),
        "{stderr}"
    );
    r
}

/// Per data seed: (env_pad, heap_offset) recorded, and every (stack, heap) address seen.
type ByDataSeed = BTreeMap<u64, ((u32, u32), Vec<(u64, u64)>)>;

fn addresses_by_data_seed(r: &Results) -> ByDataSeed {
    let mut out: ByDataSeed = BTreeMap::new();
    for e in &r.executions {
        let value = |iteration: u32| {
            r.measurements
                .iter()
                .find(|m| {
                    (&m.binary, m.execution, m.iteration) == (&e.binary, e.execution, iteration)
                })
                .unwrap()
                .value as u64
        };
        let seed = e.data_seed.expect("every execution records its data seed");
        let offset = e.heap_offset.expect("a dynamic binary's heap is moved");
        let entry = out.entry(seed).or_insert(((e.env_pad, offset), Vec::new()));
        assert_eq!(
            entry.0,
            (e.env_pad, offset),
            "data seed {seed} changed layout"
        );
        entry.1.push((value(0), value(1)));
    }
    out
}

#[test]
fn a_data_seed_names_the_same_addresses_and_seeds_differ_by_their_offsets() {
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let (first, second) = (d.path().join("a"), d.path().join("b"));
    let a = addresses_by_data_seed(&run_addresses(&first, &cache, "1"));
    let b = addresses_by_data_seed(&run_addresses(&second, &cache, "2"));
    assert_eq!(a.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    // Same data seed: one stack and one heap address over both binaries, all replicates and
    // both runs (different schedules).
    for (seed, (layout, addrs)) in &a {
        assert_eq!(addrs.len(), 2 * 2, "data seed {seed}");
        let (b_layout, b_addrs) = &b[seed];
        assert_eq!(layout, b_layout);
        for x in addrs.iter().chain(b_addrs) {
            assert_eq!(*x, addrs[0], "data seed {seed}: {addrs:?} {b_addrs:?}");
        }
    }
    // Different data seeds: the stack moves down by the padding difference, the heap up by
    // the heap offset difference (the library's request makes malloc's chunk exactly the
    // offset + 32 bytes, so no rounding is left).
    let ((pad1, heap1), addrs1) = &a[&1];
    for ((pad, heap), addrs) in a.values() {
        let (stack, block) = addrs[0];
        assert_eq!(
            addrs1[0].0 as i64 - stack as i64,
            i64::from(*pad) - i64::from(*pad1),
            "{a:?}"
        );
        assert_eq!(
            block as i64 - addrs1[0].1 as i64,
            i64::from(*heap) - i64::from(*heap1),
            "{a:?}"
        );
    }
    let distinct: std::collections::BTreeSet<u32> = a.values().map(|((_, h), _)| *h).collect();
    assert_eq!(
        distinct.len(),
        3,
        "the golden data seeds 1..3 have distinct offsets"
    );
    exported_rows_carry_the_data_layout(&first, &a);
}

/// `export` of a store with data seeds ends each row with the execution's data seed, padding
/// and heap offset, as recorded.
fn exported_rows_carry_the_data_layout(dir: &std::path::Path, recorded: &ByDataSeed) {
    let out = layoutrand().arg("export").arg(dir).assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "program,binary,layout,execution,iteration,value,data_seed,env_pad,heap_offset"
    );
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let seed: u64 = f[6].parse().unwrap();
        let ((pad, heap), _) = recorded[&seed];
        assert_eq!(
            (f[7], f[8]),
            (pad.to_string().as_str(), heap.to_string().as_str())
        );
        // Execution r·K + (j − 1) has data seed j.
        assert_eq!(f[3].parse::<u64>().unwrap() % 3 + 1, seed, "{line}");
        rows += 1;
    }
    assert_eq!(
        rows,
        2 * 3 * 2 * 2,
        "2 binaries × 3 data seeds × 2 executions × 2 values"
    );
}

/// The heap fixture (fixtures/heapalias) built for real with 2 code seeds and run with 4 data
/// seeds under cachegrind with a direct-mapped 4 KiB D1: its D1 misses are the same for
/// every binary (code layout) of one data seed and differ between data seeds (the heap's
/// offset), the known truth the split of the variance is checked on.
#[test]
fn the_heap_fixture_misses_depend_on_the_data_seed_only() {
    let d = tempfile::tempdir().unwrap();
    let out = crate::crossed_truth::build(
        d.path(),
        "heapalias",
        &["heapalias.c", "kernel.c", "Makefile"],
        2,
    );
    let src = d.path().join("src");
    run_in(&out)
        .current_dir(&src)
        .env("XDG_CACHE_HOME", d.path().join("cache"))
        .args([
            "--data-seeds",
            "4",
            "--executions",
            "1",
            "--metric",
            "cachegrind",
        ])
        .args([
            "--cache-sim",
            "D1=4096,1,64",
            "--schedule-seed",
            "5",
            "--",
            "{bin}",
        ])
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success();
    let r = read_results(&out).unwrap();
    assert!(r.executions.iter().all(|e| e.status == ExecutionStatus::Ok));
    let seed_of: BTreeMap<(String, u32), u64> = r
        .executions
        .iter()
        .map(|e| ((e.binary.clone(), e.execution), e.data_seed.unwrap()))
        .collect();
    let mut misses: BTreeMap<u64, BTreeMap<String, f64>> = BTreeMap::new();
    for m in r.measurements.iter().filter(|m| m.metric == "D1_misses") {
        let seed = seed_of[&(m.binary.clone(), m.execution)];
        misses
            .entry(seed)
            .or_default()
            .insert(m.binary.clone(), m.value);
    }
    assert_eq!(misses.len(), 4);
    for (seed, by_binary) in &misses {
        // baseline, as-built, seed-1, seed-2
        assert_eq!(by_binary.len(), 4, "data seed {seed}: {by_binary:?}");
        let first = by_binary.values().next().unwrap();
        assert!(
            by_binary.values().all(|v| v == first),
            "data seed {seed}: the code layout changed the D1 misses: {misses:?}"
        );
    }
    let distinct: std::collections::BTreeSet<u64> = misses
        .values()
        .map(|b| *b.values().next().unwrap() as u64)
        .collect();
    assert!(
        distinct.len() >= 3,
        "the data seeds barely moved the misses: {misses:?}"
    );
}
