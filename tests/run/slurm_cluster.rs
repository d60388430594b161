//! `layoutrand run --slurm` on a real (emulated, two-node) Slurm cluster: a dry run's
//! script, a complete run with `--wait`, the store read as one, the machine recorded per
//! execution and reported; a task cancelled mid-run, refused double submission, and a
//! resume that leaves every (binary, execution) stored exactly once; and the same schedule
//! run locally and on the cluster giving reports of the same structure, levels and verdicts.

use crate::run_support;
use crate::slurm_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use layoutrand::files::store::shards::{shard_dir, shard_stores};
use layoutrand::files::store::{read_results, ExecutionStatus, Results, StoreWarning};
use run_support::{experiment, fixture, gcc, layoutrand, same_binary_experiment, TestBinarySet};
use slurm_support::Cluster;

use crate::in_dir;

/// `text` with the experiments' folder `work` written `[dir]`, and what Slurm decides written
/// as placeholders: the job of a task (`5_2` is `[job]_2`, the column's padding one space),
/// the node a task ran on and the list of tasks still queued or running with their states.
fn said(text: &str, work: &Path) -> String {
    crate::snapshot_support::redact(
        &in_dir(text, work),
        &[
            (r"\(\d+_\d+ [A-Z]+(, \d+_\d+ [A-Z]+)*\)", "([tasks])"),
            (r"\b\d+_(\d+)\b *", "[job]_$1 "),
            (r"\bn[12]$", "[node]"),
        ],
    )
}

/// `layoutrand ARGS` with the cluster's configuration, in `cwd`, under a time limit.
fn lr(cluster: &Cluster, cwd: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    layoutrand()
        .env("SLURM_CONF", &cluster.conf)
        .current_dir(cwd)
        .timeout(Duration::from_secs(120))
        .args(args)
        .assert()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// Every (binary, execution) of the merged store, asserting each appears once and ended
/// well, and that the shard files themselves hold no duplicate.
fn cells_once(dir: &Path) -> (Results, BTreeSet<(String, u32)>) {
    let r = read_results(dir).unwrap();
    let mut cells = BTreeSet::new();
    for e in &r.executions {
        assert_eq!(e.status, ExecutionStatus::Ok, "{e:?}");
        assert!(
            cells.insert((e.binary.clone(), e.execution)),
            "stored twice: {e:?}"
        );
    }
    let mut raw = 0;
    for (_, sd) in shard_stores(dir).unwrap() {
        raw += read_results(&sd).unwrap().executions.len();
    }
    assert_eq!(raw, r.executions.len(), "a shard file holds a duplicate");
    assert!(
        !r.warnings
            .iter()
            .any(|w| matches!(w, StoreWarning::InEarlierShard { .. })),
        "{:?}",
        r.warnings
    );
    (r, cells)
}

fn expected_cells(binaries: &[&str], executions: u32) -> BTreeSet<(String, u32)> {
    binaries
        .iter()
        .flat_map(|v| (0..executions).map(move |e| (v.to_string(), e)))
        .collect()
}

#[test]
fn slurm_runs_dry_run_complete_run_cancel_and_resume() {
    let cluster = Cluster::start();
    let work = tempfile::tempdir().unwrap();
    let node_dir = work.path().join("node-local");
    let node_dir_s = node_dir.display().to_string();
    let binaries = ["baseline", "seed-1", "seed-2"];

    // 1. Dry run: the script is written and says what it must; nothing is submitted.
    let dry = work.path().join("dry");
    std::fs::create_dir_all(&dry).unwrap();
    same_binary_experiment(&dry, "iters", "iters.c", 2);
    let dry_s = dry.display().to_string();
    lr(
        &cluster,
        work.path(),
        &[
            "run",
            "--out",
            &dry_s,
            "--slurm",
            "--dry-run",
            "--executions",
            "4",
            "--max-nodes",
            "2",
            "--partition",
            "debug",
            "--slurm-arg=--time=00:10:00",
            "--node-dir",
            &node_dir_s,
            "--schedule-seed",
            "3",
            "--",
            "{bin}",
            "1",
            "1000",
        ],
    )
    .success();
    let script = std::fs::read_to_string(dry.join("slurm/job.sbatch")).unwrap();
    let token = std::fs::read_to_string(dry.join("slurm/shared-storage-marker")).unwrap();
    for line in [
        "#SBATCH --array=0,1,2,3%2\n",
        "#SBATCH --nodes=1\n",
        "#SBATCH --exclusive\n",
        "#SBATCH --partition=debug\n",
        "#SBATCH --time=00:10:00\n",
        &format!("#SBATCH --chdir={}\n", work.path().display()),
        &format!("--token {token}\n"),
        " run-shard --out ",
    ] {
        assert!(script.contains(line), "{line:?} missing from\n{script}");
    }
    assert!(!dry.join("slurm/jobs.jsonl").exists());
    assert!(shard_stores(&dry).unwrap().is_empty());

    // 2. A complete run with --wait: every cell once, both nodes, machine per execution.
    let full = work.path().join("full");
    std::fs::create_dir_all(&full).unwrap();
    same_binary_experiment(&full, "iters", "iters.c", 2);
    let full_s = full.display().to_string();
    let started = Instant::now();
    let a = lr(
        &cluster,
        work.path(),
        &[
            "run",
            "--out",
            &full_s,
            "--slurm",
            "--wait",
            "--executions",
            "4",
            "--max-nodes",
            "2",
            "--node-dir",
            &node_dir_s,
            "--schedule-seed",
            "5",
            "--",
            "{bin}",
            "1",
            "200000",
        ],
    )
    .success();
    eprintln!("complete run: {:?}", started.elapsed());
    let job = stdout(&a).lines().next().unwrap().trim().to_string();
    assert!(job.parse::<u64>().is_ok(), "job id {job:?}\n{}", stderr(&a));
    let (r, cells) = cells_once(&full);
    assert_eq!(cells, expected_cells(&binaries, 4));
    let mut nodes_of_variant: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in &r.executions {
        let m = e.machine.as_ref().expect("machine recorded per execution");
        assert_eq!(m.slurm_job.as_deref(), Some(job.as_str()));
        assert!(m.slurm_task.is_some_and(|t| t < 4), "{m:?}");
        assert!(m.kernel.is_some() && m.hostname.is_some() && m.cpu_model.is_some());
        nodes_of_variant
            .entry(e.binary.clone())
            .or_default()
            .insert(m.node.clone().expect("node name"));
    }
    let nodes: BTreeSet<&String> = nodes_of_variant.values().flatten().collect();
    assert_eq!(
        nodes.into_iter().cloned().collect::<Vec<_>>(),
        ["n1", "n2"],
        "both nodes ran tasks"
    );
    // The report reads the shards as one store and has its machine section, with both nodes.
    let rep = report_json(&cluster, work.path(), &full_s);
    let rows: Vec<&str> = rep["machines"][0]["machines"]
        .as_array()
        .expect("a machines section")
        .iter()
        .map(|row| row["machine"].as_str().unwrap())
        .collect();
    assert_eq!(rows, ["n1", "n2"], "{}", rep["machines"]);
    // So does export: every binary's rows.
    let csv = stdout(&lr(&cluster, work.path(), &["export", &full_s]).success());
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "binary").expect("{csv}");
    let exported: BTreeSet<&str> = lines.map(|l| l.split(',').nth(column).unwrap()).collect();
    assert_eq!(exported, BTreeSet::from(binaries), "{csv}");
    // A second submission of a started run is refused; a resume finds nothing to do.
    let again = lr(
        &cluster,
        work.path(),
        &[
            "run", "--out", &full_s, "--slurm", "--", "{bin}", "1", "200000",
        ],
    )
    .code(2);
    insta::assert_snapshot!(said(&stderr(&again), work.path()));
    let resumed = lr(
        &cluster,
        work.path(),
        &["run", "--out", &full_s, "--slurm", "--resume"],
    )
    .success();
    insta::assert_snapshot!(said(&stderr(&resumed), work.path()));
    let st = lr(&cluster, work.path(), &["status", &full_s]).success();
    insta::assert_snapshot!(said(&stdout(&st), work.path()));

    // 3. The same schedule locally and on the cluster: reports of the same structure.
    local_and_slurm_reports_agree(&cluster, work.path(), &node_dir_s);

    // 4. Cancel mid-run, resume: still every cell exactly once.
    let cut = work.path().join("cut");
    std::fs::create_dir_all(&cut).unwrap();
    same_binary_experiment(&cut, "iters", "iters.c", 2);
    let cut_s = cut.display().to_string();
    // Executions of ~0.15 s; two shards of 2 rounds × 3 binaries = 6 executions each.
    let a = lr(
        &cluster,
        work.path(),
        &[
            "run",
            "--out",
            &cut_s,
            "--slurm",
            "--executions",
            "4",
            "--shards",
            "2",
            "--max-nodes",
            "2",
            "--node-dir",
            &node_dir_s,
            "--schedule-seed",
            "9",
            "--",
            "{bin}",
            "1",
            "150000000",
        ],
    )
    .success();
    let job = stdout(&a).lines().next().unwrap().trim().to_string();
    // Wait until some execution is committed but the run is not complete, then cancel.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let done: usize = (0..2)
            .filter(|k| shard_dir(&cut, *k).join("results.jsonl").exists())
            .map(|k| read_results(&shard_dir(&cut, k)).unwrap().executions.len())
            .sum();
        if done >= 1 {
            assert!(done < 12, "the run finished before it could be cancelled");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no execution committed within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // While its tasks are queued or running, a second submission is refused.
    let busy = lr(
        &cluster,
        work.path(),
        &["run", "--out", &cut_s, "--slurm", "--resume"],
    )
    .code(2);
    insta::assert_snapshot!(said(&stderr(&busy), work.path()));
    cluster.client("scancel", &[&job]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while cluster
        .task_states(&job)
        .iter()
        .any(|s| !matches!(s.as_str(), "CANCELLED" | "COMPLETED" | "FAILED"))
    {
        assert!(Instant::now() < deadline, "the cancelled tasks did not end");
        std::thread::sleep(Duration::from_millis(100));
    }
    let partial = read_results(&cut).unwrap().executions.len();
    assert!(partial < 12, "cancelling left {partial} executions");
    let st = lr(&cluster, work.path(), &["status", &cut_s]).success();
    assert!(stdout(&st).contains("CANCELLED"), "{}", stdout(&st));
    // Resume with a quicker command is refused (another experiment); without one it runs
    // what is missing.
    lr(
        &cluster,
        work.path(),
        &[
            "run", "--out", &cut_s, "--slurm", "--resume", "--", "{bin}", "1", "5",
        ],
    )
    .failure();
    lr(
        &cluster,
        work.path(),
        &["run", "--out", &cut_s, "--slurm", "--resume", "--wait"],
    )
    .success();
    let (_, cells) = cells_once(&cut);
    assert_eq!(cells, expected_cells(&binaries, 4));
}

/// `report DIR --format json`, parsed.
fn report_json(cluster: &Cluster, cwd: &Path, dir: &str) -> serde_json::Value {
    let a = lr(cluster, cwd, &["report", dir, "--format", "json"]).success();
    serde_json::from_slice(&a.get_output().stdout).unwrap()
}

/// Runs one experiment twice with the same schedule seed and flags, locally and with
/// `--slurm --wait`, and checks that the two reports agree in structure (series, levels and
/// their counts, verdicts), that only the Slurm report has a machine section (with both
/// nodes and per-machine means recomputed here from the store), and that `export` and
/// `status` read the sharded store like a local one.
///
/// The metric is deterministic, so no verdict can flip: a wrapper runs the binary, then
/// prints three values `level + padding/256 + 3·iteration`, the level told by the binary's
/// SHA-256 and the padding being the execution's `LAYOUTRAND_PAD`, which the schedule seed
/// fixes per (binary, execution) in both runs. Both stores thus hold the same values;
/// only where they were measured differs.
fn local_and_slurm_reports_agree(cluster: &Cluster, work: &Path, node_dir: &str) {
    let build = work.join("agree-build");
    std::fs::create_dir_all(&build).unwrap();
    // Four different binaries with known levels: the baseline far below the seeds, the
    // seeds 100 apart, the execution noise (padding/256) between 0 and 15.
    let flags = ["-O0", "-O1", "-O2", "-Os"];
    let levels = [1000u32, 2000, 2100, 2200];
    let mut sets: Vec<TestBinarySet> = Vec::new();
    let mut shas = BTreeSet::new();
    let mut cases = String::new();
    for (k, (flag, level)) in flags.iter().zip(levels).enumerate() {
        let exe = build.join(format!("iters{k}"));
        gcc(&exe, &[fixture("iters.c")], &[flag]);
        let sha = layoutrand::files::manifest::sha256_of_file(&exe).unwrap();
        cases.push_str(&format!("{sha}) b={level};; "));
        shas.insert(sha);
        sets.push(((k > 0).then_some(k as u64), vec![("iters", exe)]));
    }
    assert_eq!(shas.len(), 4, "the four builds differ");
    let script = format!(
        r#""$0" 1 1000 >/dev/null || exit 1; h=$(sha256sum "$0" | cut -c1-64); case $h in {cases}*) echo "unknown binary $h" >&2; exit 3;; esac; p=$((${{#LAYOUTRAND_PAD}} / 256)); for i in 0 1 2; do echo "value $((b + p + 3 * i))"; done"#
    );
    let mut dirs = Vec::new();
    for (name, slurm) in [
        ("agree-local", &[][..]),
        (
            "agree-slurm",
            &[
                "--slurm",
                "--wait",
                "--max-nodes",
                "2",
                "--node-dir",
                node_dir,
            ][..],
        ),
    ] {
        let dir = work.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        experiment(&dir, &sets);
        let dir_s = dir.display().to_string();
        let mut args = vec![
            "run",
            "--out",
            &dir_s,
            "--executions",
            "4",
            "--schedule-seed",
            "11",
            "--metric",
            r"regex:value (\d+)",
        ];
        args.extend_from_slice(slurm);
        args.extend_from_slice(&["--", "sh", "-c", &script, "{bin}"]);
        lr(cluster, work, &args).success();
        dirs.push(dir_s);
    }
    let (local_s, slurm_s) = (&dirs[0], &dirs[1]);
    let (local, slurm) = (
        report_json(cluster, work, local_s),
        report_json(cluster, work, slurm_s),
    );

    // The same series, in the same order, with the same levels and repetition counts.
    let series = |v: &serde_json::Value| v["series"].as_array().unwrap().clone();
    let (ls, ss) = (series(&local), series(&slurm));
    let key = |s: &serde_json::Value| {
        (
            s["program"].clone(),
            s["metric"].clone(),
            s["variant"].clone(),
        )
    };
    let keys: Vec<_> = ls.iter().map(key).collect();
    assert_eq!(keys, ss.iter().map(key).collect::<Vec<_>>());
    let metrics: Vec<&str> = ls.iter().map(|s| s["metric"].as_str().unwrap()).collect();
    assert_eq!(
        metrics[0], "reported",
        "the asked-for metric first: {metrics:?}"
    );
    assert!(metrics.contains(&"wall"), "{metrics:?}");
    assert!(ls
        .iter()
        .all(|s| s["program"] == "iters" && s["variant"].is_null()));
    let level_counts = |s: &serde_json::Value| {
        s["levels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["name"].clone(), l["repetitions"].clone()))
            .collect::<Vec<_>>()
    };
    for (l, s) in ls.iter().zip(&ss) {
        assert_eq!(level_counts(l), level_counts(s), "{}", l["metric"]);
    }
    // The deterministic series: three levels (3 iterations, 4 executions, 3 seeds), the
    // same figures and the same verdicts, and the verdicts the levels imply.
    let (l, s) = (&ls[0], &ss[0]);
    assert_eq!(
        level_counts(l),
        [("iteration", 3), ("execution", 4), ("binary", 3)]
            .map(|(n, r)| (serde_json::json!(n), serde_json::json!(r)))
    );
    let close = |a: &serde_json::Value, b: &serde_json::Value| {
        let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    };
    assert!(
        close(&l["mean"], &s["mean"]),
        "{} vs {}",
        l["mean"],
        s["mean"]
    );
    for (a, b) in l["levels"]
        .as_array()
        .unwrap()
        .iter()
        .zip(s["levels"].as_array().unwrap())
    {
        assert!(
            close(&a["s2"], &b["s2"]) && close(&a["t2"], &b["t2"]),
            "{a} vs {b}"
        );
    }
    for part in ["sensitivity", "shift"] {
        assert_eq!(l[part]["verdict"], "detected", "{part}: {}", l[part]);
        assert_eq!(l[part]["verdict"], s[part]["verdict"], "{part}");
        assert_eq!(l[part]["text"], s[part]["text"], "{part}");
    }
    assert!(
        l["shift"]["ratio"].as_f64().unwrap() < 1.0,
        "the baseline is the lowest"
    );
    for (l, s) in ls.iter().zip(&ss) {
        for part in ["sensitivity", "shift"] {
            assert!(l[part]["verdict"].is_string() && s[part]["verdict"].is_string());
        }
    }

    // Machines: none recorded locally; on the cluster one section per series, both nodes.
    assert!(local.get("machines").is_none(), "{}", local["machines"]);
    let machines = slurm["machines"].as_array().expect("a machines section");
    assert_eq!(machines.len(), ss.len());
    for (m, s) in machines.iter().zip(&ss) {
        assert_eq!((&m["program"], &m["metric"]), (&s["program"], &s["metric"]));
    }
    // Per-machine means of the deterministic series, recomputed from the store.
    let r = read_results(Path::new(slurm_s)).unwrap();
    let mut node_of = BTreeMap::new();
    for e in &r.executions {
        let node = e
            .machine
            .as_ref()
            .and_then(|m| m.node.clone())
            .expect("node");
        node_of.insert((e.binary.clone(), e.execution), node);
    }
    let mut per_execution: BTreeMap<(String, u32), Vec<f64>> = BTreeMap::new();
    for m in r.measurements.iter().filter(|m| m.metric == "reported") {
        per_execution
            .entry((m.binary.clone(), m.execution))
            .or_default()
            .push(m.value);
    }
    let mut per_node: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (k, v) in &per_execution {
        assert_eq!(v.len(), 3);
        per_node
            .entry(node_of[k].clone())
            .or_default()
            .push(v.iter().sum::<f64>() / 3.0);
    }
    assert_eq!(
        per_node.keys().map(String::as_str).collect::<Vec<_>>(),
        ["n1", "n2"],
        "both nodes ran executions of the comparison run"
    );
    let rows = machines[0]["machines"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    for (row, (node, means)) in rows.iter().zip(&per_node) {
        assert_eq!(row["machine"], node.as_str());
        assert_eq!(row["executions"], means.len());
        let mean = means.iter().sum::<f64>() / means.len() as f64;
        assert!(
            close(&row["mean"], &serde_json::json!(mean)),
            "{row} vs {mean}"
        );
        assert!(row["offset"].as_f64().is_some_and(f64::is_finite), "{row}");
    }
    let m = &machines[0];
    let p = m["component"]["p_value"]
        .as_f64()
        .expect("a machine component with two machines");
    assert_eq!(m["differ"], p < 0.05, "{m}");
    let warned = slurm["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .unwrap()
            .starts_with("iters reported: the machines differ")
    });
    assert_eq!(warned, p < 0.05, "{}", slurm["warnings"]);
    // The text reports: a Machines section on the cluster only.
    let text = |dir: &str| stdout(&lr(cluster, work, &["report", dir]).success());
    let machine_headings = |dir: &str| -> Vec<String> {
        text(dir)
            .lines()
            .filter(|l| l.starts_with("Machines"))
            .map(String::from)
            .collect()
    };
    assert_eq!(machine_headings(local_s), Vec::<String>::new());
    insta::assert_snapshot!(machine_headings(slurm_s).join("\n"));
    let html =
        |dir: &str| stdout(&lr(cluster, work, &["report", dir, "--format", "html"]).success());
    assert!(!html(local_s).contains("id=\"machines\""));
    let slurm_html = html(slurm_s);
    assert!(slurm_html.contains("<section id=\"machines\">"));
    for node in ["n1", "n2"] {
        assert!(
            slurm_html.contains(&format!("<tr><td>{node}</td>")),
            "{node}"
        );
    }

    // The sharded store reads like a local one: the same export, a complete status.
    let export = |dir: &str| {
        let mut rows: Vec<String> = stdout(&lr(cluster, work, &["export", dir]).success())
            .lines()
            .map(String::from)
            .collect();
        rows.sort();
        rows
    };
    let (le, se) = (export(local_s), export(slurm_s));
    // The Slurm store records each execution's machine, a last column the local one lacks.
    let (mut se, machines): (Vec<String>, BTreeSet<String>) = se
        .iter()
        .map(|row| {
            let (rest, machine) = row.rsplit_once(',').unwrap();
            (rest.to_string(), machine.to_string())
        })
        .unzip();
    se.sort();
    assert!(machines.contains("machine"), "{machines:?}");
    assert!(
        machines
            .iter()
            .all(|m| ["machine", "n1", "n2"].contains(&m.as_str())),
        "{machines:?}"
    );
    // The local store has none: its export keeps the columns `analyze` reads.
    assert!(le
        .iter()
        .all(|r| !r.ends_with(",machine") && !r.ends_with(",n1") && !r.ends_with(",n2")));
    assert_eq!(
        le.len(),
        1 + 4 * 4 * 3,
        "header and 4 binaries × 4 executions × 3 values"
    );
    assert_eq!(le, se, "the same values whichever runner measured them");
    let st = stdout(&lr(cluster, work, &["status", slurm_s]).success());
    insta::assert_snapshot!(said(&st, work));
}
