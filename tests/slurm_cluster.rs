//! `layoutrand run --slurm` on a real (emulated, two-node) Slurm cluster: a dry run's
//! script, a complete run with `--wait`, the store read as one, the machine recorded per
//! execution and reported; a task cancelled mid-run, refused double submission, and a
//! resume that leaves every (binary, execution) stored exactly once.

mod run_support;
mod slurm_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use layoutrand::run::shards::{shard_dir, shard_stores};
use layoutrand::run::store::{read_results, ExecutionStatus, Results};
use run_support::{layoutrand, same_binary_experiment};
use slurm_support::Cluster;

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
        !r.warnings.iter().any(|w| w.contains("earlier shard")),
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
    // The report reads the shards as one store and has its machine section.
    let rep = lr(&cluster, work.path(), &["report", &full_s]).success();
    let text = stdout(&rep);
    assert!(text.contains("Machines"), "{text}");
    assert!(text.contains("n1") && text.contains("n2"), "{text}");
    lr(&cluster, work.path(), &["export", &full_s])
        .success()
        .stdout(predicates::str::contains("seed-2"));
    // A second submission of a started run is refused; a resume finds nothing to do.
    let again = lr(
        &cluster,
        work.path(),
        &[
            "run", "--out", &full_s, "--slurm", "--", "{bin}", "1", "200000",
        ],
    )
    .failure();
    assert!(
        stderr(&again).contains("already holds a Slurm run"),
        "{}",
        stderr(&again)
    );
    let resumed = lr(
        &cluster,
        work.path(),
        &["run", "--out", &full_s, "--slurm", "--resume"],
    )
    .success();
    assert!(
        stderr(&resumed).contains("nothing to submit"),
        "{}",
        stderr(&resumed)
    );
    let st = lr(&cluster, work.path(), &["status", &full_s]).success();
    assert!(
        stdout(&st).contains("12/12 executions; 4 of 4 shards complete"),
        "{}",
        stdout(&st)
    );

    // 3. Cancel mid-run, resume: still every cell exactly once.
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
    .failure();
    assert!(
        stderr(&busy).contains("still queued or running"),
        "{}",
        stderr(&busy)
    );
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
