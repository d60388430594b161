//! `run --data-seeds` (issue 35): a data seed names one data layout — the same stack and
//! heap addresses in every run and for every binary — and different data seeds move the
//! stack by their paddings' difference and the heap by their heap offsets' difference.

use crate::run_support;

use std::collections::BTreeMap;

use layoutrand::files::store::{read_results, ExecutionStatus, Results};
use run_support::*;

/// Runs `run --data-seeds 3` of the addresses fixture into `dir` (2 binaries of one
/// executable, 2 executions per cell) with a private cache and the flags `more`, and returns
/// the store.
fn run_addresses(
    dir: &std::path::Path,
    cache: &std::path::Path,
    schedule_seed: &str,
    more: &[&str],
) -> Results {
    same_binary_experiment(dir, "addresses", "addresses.c", 1);
    let assert = run_in(dir)
        .env("XDG_CACHE_HOME", cache)
        .args(["--data-seeds", "3", "--executions", "2"])
        .args(more)
        .args(["--schedule-seed", schedule_seed, "--iterations", "3"])
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

/// What an execution records of its data layout: padding, heap offset, mmap threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Recorded {
    env_pad: u32,
    heap_offset: u32,
    mmap_threshold: Option<u32>,
}

/// The fixture's three addresses: a stack variable, a small block, a 1 MiB block.
type Addresses = [u64; 3];

/// Per data seed: the layout recorded, and the addresses of every execution.
type ByDataSeed = BTreeMap<u64, (Recorded, Vec<Addresses>)>;

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
        let recorded = Recorded {
            env_pad: e.env_pad,
            heap_offset: e.heap_offset.expect("a dynamic binary's heap is moved"),
            mmap_threshold: e.mmap_threshold,
        };
        let entry = out.entry(seed).or_insert((recorded, Vec::new()));
        assert_eq!(entry.0, recorded, "data seed {seed} changed layout");
        entry.1.push([value(0), value(1), value(2)]);
    }
    out
}

/// Every execution of one data seed saw the same addresses; from data seed to data seed the
/// stack moves down by the padding difference and the first block up by the heap offset
/// difference (the library's request makes malloc's chunk exactly the offset + 32 bytes, so
/// no rounding is left).
fn assert_the_offsets_move_the_addresses(a: &ByDataSeed) {
    assert_eq!(a.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    for (seed, (_, addrs)) in a {
        assert_eq!(addrs.len(), 2 * 2, "data seed {seed}");
        assert!(
            addrs.iter().all(|x| *x == addrs[0]),
            "data seed {seed}: {addrs:?}"
        );
    }
    let (first, addrs1) = &a[&1];
    for (layout, addrs) in a.values() {
        let [stack, block, _] = addrs[0];
        assert_eq!(
            addrs1[0][0] as i64 - stack as i64,
            i64::from(layout.env_pad) - i64::from(first.env_pad),
            "{a:?}"
        );
        assert_eq!(
            block as i64 - addrs1[0][1] as i64,
            i64::from(layout.heap_offset) - i64::from(first.heap_offset),
            "{a:?}"
        );
    }
}

#[test]
fn a_data_seed_names_the_same_addresses_and_seeds_differ_by_their_offsets() {
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let (first, second) = (d.path().join("a"), d.path().join("b"));
    let a = addresses_by_data_seed(&run_addresses(&first, &cache, "1", &[]));
    let b = addresses_by_data_seed(&run_addresses(&second, &cache, "2", &[]));
    assert_the_offsets_move_the_addresses(&a);
    // Same data seed, two runs with different schedules: the same layout and addresses.
    for (seed, entry) in &a {
        assert_eq!(&b[seed].0, &entry.0, "data seed {seed}");
        assert_eq!(b[seed].1[0], entry.1[0], "data seed {seed}");
    }
    let distinct: std::collections::BTreeSet<u32> =
        a.values().map(|(l, _)| l.heap_offset).collect();
    assert_eq!(
        distinct.len(),
        3,
        "the golden data seeds 1..3 have distinct offsets"
    );
    assert!(a.values().all(|(l, _)| l.mmap_threshold.is_none()));
    exported_rows_carry_the_data_layout(&first, &a);
}

/// `--vary-mmap-threshold`: each data seed also names malloc's mmap threshold (golden: data
/// seeds 1 and 3 the 32 MiB level, 2 the 128 KiB one). At 128 KiB the 1 MiB block gets its
/// own mapping: 16 bytes past a page boundary (glibc's chunk header), far from the heap. At
/// 32 MiB it comes from the heap right after the first block (whose 100-byte request takes a
/// 112-byte chunk), so it moves with the heap offset. The stack and the first block move as
/// without the flag, and the export carries the threshold.
#[test]
fn the_mmap_threshold_level_decides_where_a_large_block_sits() {
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let dir = d.path().join("a");
    let store = run_addresses(&dir, &cache, "1", &["--vary-mmap-threshold"]);
    assert!(store.header.as_ref().unwrap().vary_mmap_threshold);
    let a = addresses_by_data_seed(&store);
    assert_the_offsets_move_the_addresses(&a);
    let (low, high) = (128 * 1024, 32 * 1024 * 1024);
    let levels: Vec<Option<u32>> = a.values().map(|(l, _)| l.mmap_threshold).collect();
    assert_eq!(levels, [Some(high), Some(low), Some(high)]);
    for (seed, (layout, addrs)) in &a {
        let [_, block, large] = addrs[0];
        if layout.mmap_threshold == Some(high) {
            assert_eq!(large, block + 112, "data seed {seed}: {a:?}");
        } else {
            assert_eq!(large % 4096, 16, "data seed {seed}: {a:?}");
            assert!(large.abs_diff(block) > 1 << 30, "data seed {seed}: {a:?}");
        }
    }
    exported_rows_carry_the_data_layout(&dir, &a);
}

/// `export` of a store with data seeds ends each row with the execution's data seed, padding
/// and heap offset, as recorded, and its mmap threshold when the run varied it.
fn exported_rows_carry_the_data_layout(dir: &std::path::Path, recorded: &ByDataSeed) {
    let out = layoutrand().arg("export").arg(dir).assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines = csv.lines();
    let varied = recorded.values().any(|(l, _)| l.mmap_threshold.is_some());
    let head = "program,binary,layout,execution,iteration,value,data_seed,env_pad,heap_offset";
    assert_eq!(
        lines.next().unwrap(),
        if varied {
            format!("{head},mmap_threshold")
        } else {
            head.to_string()
        }
    );
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let seed: u64 = f[6].parse().unwrap();
        let (layout, _) = recorded[&seed];
        assert_eq!(
            (f[7], f[8]),
            (
                layout.env_pad.to_string().as_str(),
                layout.heap_offset.to_string().as_str()
            )
        );
        assert_eq!(
            f.get(9).map(|t| t.to_string()),
            layout.mmap_threshold.map(|t| t.to_string()),
            "{line}"
        );
        // Execution r·K + (j − 1) has data seed j.
        assert_eq!(f[3].parse::<u64>().unwrap() % 3 + 1, seed, "{line}");
        rows += 1;
    }
    assert_eq!(
        rows,
        2 * 3 * 2 * 3,
        "2 binaries × 3 data seeds × 2 executions × 3 values"
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
