//! Variants (versions of a program) in one experiment: `build --variant NAME` twice shares
//! the seeds; `run` interleaves the variants block by block (every block runs each variant's
//! binary of one seed back to back, in an order that varies); the store and `export` carry
//! the variant; `--resume` completes an interrupted variant run.

use crate::build_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use build_support::{assert_success, build, fixture};
use layoutrand::files::manifest::Manifest;
use layoutrand::files::store::read_results;

const EXECUTIONS: u32 = 3;

fn build_variant(dir: &Path, name: &str, flags: &str, extra: &[&str]) -> std::process::Output {
    let script = format!("make clean >/dev/null && make CFLAGS='{flags}'");
    let mut args = vec!["--out", "out", "--variant", name];
    args.extend_from_slice(extra);
    build(dir, &args, &["sh", "-c", &script])
}

fn run(dir: &Path, extra: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(dir)
        .args(["run", "--out", "out", "--executions"])
        .arg(EXECUTIONS.to_string())
        .args(["--schedule-seed", "5"])
        .args(extra)
        .args(["--", "{bin}"])
        .output()
        .unwrap()
}

#[test]
fn two_variants_share_seeds_and_run_interleaved_block_by_block() {
    let (_tmp, dir) = fixture("archive");
    assert_success(
        &build_variant(&dir, "O1", "-O1", &["--seeds", "3"]),
        "variant O1",
    );
    // A later variant takes the seeds from the manifest; other seeds are refused.
    let refused = build_variant(&dir, "O2", "-O2", &["--seeds", "5"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    insta::assert_snapshot!(String::from_utf8_lossy(&refused.stderr));
    let o2 = build_variant(&dir, "O2", "-O2", &[]);
    assert_success(&o2, "variant O2");

    let out = dir.join("out");
    let m = Manifest::load(&out).unwrap();
    let names: Vec<&str> = m.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["O1", "O2"]);
    // The summary printed is the O2 build's, not the first variant's (whose fields the top
    // manifest repeats): it names the variant and gives O2's own recorded build time.
    let stdout = String::from_utf8_lossy(&o2.stdout);
    // Its first line, pinned whole, names the variant.
    insta::assert_snapshot!(stdout.lines().next().unwrap_or_default());
    let took = format!(
        "the recorded build took {:.2} s",
        m.variants[1].build.recorded_build_seconds
    );
    assert!(stdout.contains(&took), "{took} not in: {stdout}");
    for v in &m.variants {
        let seeds: Vec<Option<u64>> = v.build.seeds.iter().map(|s| s.seed).collect();
        assert_eq!(seeds, [Some(1), Some(2), Some(3)], "{}", v.name);
        for set in v.build.binary_sets() {
            let b = &set.binaries[0];
            assert!(b.path.starts_with(&v.name), "{}", b.path.display());
            assert!(out.join(&b.path).is_file(), "{}", b.path.display());
        }
    }
    // The variants are other programs: -O1 and -O2 code differ.
    assert_ne!(
        m.variants[0].build.baseline.binaries[0].sha256,
        m.variants[1].build.baseline.binaries[0].sha256
    );
    // The top level repeats the first variant, for readers of one variant.
    assert_eq!(m.baseline, m.variants[0].build.baseline);

    assert_success(&run(&dir, &[]), "run");
    let r = read_results(&out).unwrap();
    assert_eq!(r.header.as_ref().unwrap().variants, ["O1", "O2"]);
    let mut executions = r.executions.clone();
    executions.sort_by_key(|e| e.schedule_index);
    // 5 binaries (baseline, as built, seeds 1–3) × 3 rounds = 15 blocks of 2 executions.
    assert_eq!(executions.len(), 30);
    let mut orders = BTreeSet::new();
    let mut blocks = BTreeSet::new();
    for block in executions.chunks(2) {
        let (a, b) = (&block[0], &block[1]);
        assert_eq!(
            (&a.program, &a.binary, a.execution),
            (&b.program, &b.binary, b.execution),
            "a block runs one binary's round in every variant, adjacently"
        );
        assert_eq!(b.schedule_index, a.schedule_index + 1);
        let order = (a.variant.clone().unwrap(), b.variant.clone().unwrap());
        assert_ne!(order.0, order.1);
        orders.insert(order);
        assert!(blocks.insert((a.binary.clone(), a.execution)));
    }
    assert_eq!(
        orders.len(),
        2,
        "the order inside blocks varies: {orders:?}"
    );
    // The blocks themselves are interleaved: not one binary's rounds in a row.
    let firsts: Vec<&str> = executions.chunks(2).map(|b| b[0].binary.as_str()).collect();
    assert!(
        firsts.windows(2).filter(|w| w[0] != w[1]).count() >= 5,
        "{firsts:?}"
    );
    for m in &r.measurements {
        assert!(m.variant.is_some());
    }

    // export: a `variant` column after `program`.
    let csv = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(["export"])
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&csv, "export");
    let text = String::from_utf8(csv.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("program,variant,binary,layout,execution,iteration,value")
    );
    let per_variant: BTreeMap<String, usize> = lines.fold(BTreeMap::new(), |mut acc, l| {
        *acc.entry(l.split(',').nth(1).unwrap().to_string())
            .or_default() += 1;
        acc
    });
    assert_eq!(
        per_variant,
        BTreeMap::from([("O1".to_string(), 15), ("O2".to_string(), 15)])
    );

    // Resume: cut the store after 9 executions (mid-block), then resume.
    let store = out.join("results.jsonl");
    let full = std::fs::read_to_string(&store).unwrap();
    let mut kept = String::new();
    let mut closed = 0;
    for line in full.lines() {
        if closed == 9 {
            break;
        }
        kept.push_str(line);
        kept.push('\n');
        if line.contains("\"record\":\"execution\"") {
            closed += 1;
        }
    }
    std::fs::write(&store, kept).unwrap();
    assert_success(&run(&dir, &["--resume"]), "run --resume");
    let r = read_results(&out).unwrap();
    let keys: BTreeSet<_> = r.executions.iter().map(|e| e.key()).collect();
    assert_eq!(keys.len(), 30, "every execution once after the resume");
    assert_eq!(r.executions.len(), 30);
    let indices: BTreeSet<u64> = r.executions.iter().map(|e| e.schedule_index).collect();
    assert_eq!(indices, (0..30).collect());
    // Each execution records the host around it (issue 55): the runner itself is runnable
    // when it samples, and a share of stolen time lies in [0, 1].
    for e in &r.executions {
        let host = e.host.expect("the host around every execution");
        assert!(host.running.is_some_and(|n| n >= 1), "{host:?}");
        assert!(
            host.steal.is_none_or(|s| (0.0..=1.0).contains(&s)),
            "{host:?}"
        );
    }

    // The report reads the variant store (one series per variant).
    let report = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(["report"])
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&report, "report");
}

/// The report compares the variants in the one engine, and `--fail-if-slower` gates on it.
/// The metric is read from a wrapper that prints a value ≈ 18 % higher for O2's binaries
/// than for O1's, with seeded noise, so the verdict is known whatever the machine.
#[test]
fn the_report_compares_variants_and_fail_if_slower_gates() {
    let (_tmp, dir) = fixture("archive");
    assert_success(
        &build_variant(&dir, "O1", "-O1", &["--seeds", "5"]),
        "variant O1",
    );
    assert_success(&build_variant(&dir, "O2", "-O2", &[]), "variant O2");
    // The runner runs every binary from one path (.run/bin/calc), so O1's binaries are
    // told apart by their SHA-256 (from the manifest).
    let m = Manifest::load(&dir.join("out")).unwrap();
    let o1: Vec<String> = m.variants[0]
        .build
        .binary_sets()
        .map(|set| set.binaries[0].sha256.clone())
        .collect();
    assert_eq!(o1.len(), 7, "baseline, as built and 5 seeds");
    // The noise is a fixed pseudo-random sequence (an LCG over a counter file kept beside the
    // experiment), so the test sees the same values on every run: /dev/urandom made it fail
    // about once in 25 runs.
    let counter = dir.join("noise-counter");
    let script = format!(
        r#"c=$(cat '{}' 2>/dev/null || echo 0); echo $((c + 1)) > '{}'; n=$(( (c * 89 + 41) % 256 )); h=$(sha256sum "$0" | cut -c1-64); case " {} " in *" $h "*) echo "value $((1000 + n))";; *) echo "value $((1200 + n))";; esac"#,
        counter.display(),
        counter.display(),
        o1.join(" ")
    );
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(&dir)
        .args(["run", "--out", "out", "--executions", "3"])
        // The noise sequence goes to the executions in schedule order: a fixed schedule
        // seed (not the clock's) gives every binary the same values on every run.
        .args(["--schedule-seed", "7"])
        .args(["--metric", r"regex:value (\d+)"])
        .args(["--", "sh", "-c", &script, "{bin}"])
        .output()
        .unwrap();
    assert_success(&out, "run");
    let report = |extra: &[&str]| {
        assert_cmd::Command::cargo_bin("layoutrand")
            .unwrap()
            .current_dir(&dir)
            .args(["report", "out"])
            .args(extra)
            .output()
            .unwrap()
    };
    let json = report(&["--format", "json"]);
    assert_success(&json, "report --format json");
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["schema"], 4);
    let series = v["series"].as_array().unwrap();
    let metric = series[0]["metric"].as_str().unwrap();
    let variants: Vec<&str> = series
        .iter()
        .filter(|s| s["metric"] == metric)
        .map(|s| s["variant"].as_str().unwrap())
        .collect();
    assert_eq!(variants, ["O1", "O2"], "{metric}");
    // One comparison per metric recorded (the regex value first, then wall time, …).
    let comparisons = v["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), series.len() / 2, "{v}");
    let c = &comparisons[0];
    assert_eq!(c["metric"], metric);
    assert_eq!(c["base"], "O1");
    assert_eq!(c["new"], "O2");
    let ratio = c["ratio"].as_f64().unwrap();
    assert!((1.1..1.3).contains(&ratio), "{c}");
    assert!(c["paired"]["ci"]["lower"].as_f64().unwrap() > 1.05, "{c}");
    assert_eq!(
        c["basis"], "paired",
        "the verdict rests on the pairs by seed: {c}"
    );
    assert_eq!(c["share_below"]["compared"], 5, "{c}");
    assert_eq!(c["share_below"]["below"], 0, "{c}");
    assert!(v["multiple"].as_array().unwrap().is_empty());

    // The text report of the same analysis (its wording for variants is pinned by
    // tests/report/snapshot.rs, a_variants_experiment_in_every_format) has O2's sections.
    let text = report(&[]);
    assert_success(&text, "report");
    let text = String::from_utf8_lossy(&text.stdout);
    // Titled `calc [O2] — reported`, with ` (unit)` after it when the metric has one.
    let o2_heading = format!("calc [O2] — {metric}");
    assert!(
        text.lines()
            .any(|l| l == o2_heading || l.starts_with(&format!("{o2_heading} ("))),
        "{text}"
    );

    // A reported value without a unit is not known to be better lower: its layouts are
    // "lower with O2", not said to favour it (as the wall and cpu times' are).
    assert!(
        text.contains("of 5 layouts lower with O2 (Wilson"),
        "{text}"
    );

    // The gate: 18 % higher is beyond 5 % (exit 1) and within 50 % (exit 0).
    let gated = report(&["--fail-if-slower", "5%"]);
    assert_eq!(gated.status.code(), Some(1), "{gated:?}");
    // The failure names what is slower: program, metric, the pair and its effect.
    // Pinned whole, the measured percentages written [p] (the first metric is `reported`).
    assert_eq!(metric, "reported");
    let stderr = String::from_utf8_lossy(&gated.stderr);
    insta::assert_snapshot!(crate::snapshot_support::redact(
        &stderr,
        &[(r"\d+(?:\.\d+)? %( to| higher| lower| or more)", "[p] %$1")]
    ));
    let passed = report(&["--fail-if-slower", "50%"]);
    assert_eq!(passed.status.code(), Some(0), "{passed:?}");
}
