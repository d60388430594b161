//! The Slurm client commands layoutrand uses — `sbatch` to submit, `squeue` to read task
//! states — each under a timeout: when the controller is down they retry for a while and
//! would otherwise hang the caller. `sacct` is never used: it needs the accounting daemon,
//! which many clusters (and every test cluster) lack.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// How long one client command may take.
pub(crate) const CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

/// What a client command printed.
pub(crate) struct ClientOutput {
    /// Whether it exited 0.
    pub(crate) success: bool,
    /// Its stdout.
    pub(crate) stdout: String,
    /// Its stderr.
    pub(crate) stderr: String,
}

/// Runs `program args…`, killing it after `timeout`.
pub(crate) fn client(program: &str, args: &[String], timeout: Duration) -> Result<ClientOutput> {
    let mut child = crate::child::command(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| {
            format!("cannot run `{program}`: is Slurm's client installed and on PATH?")
        })?;
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    // Readers in threads: a full pipe would otherwise block the client before it exits.
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "`{}` did not answer within {} s: is the Slurm controller up?",
                crate::child::display_args(&[&[program.to_string()], args].concat()),
                timeout.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ok(ClientOutput {
        success: status.success(),
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}

/// Submits `script` with `sbatch --parsable` and returns the job id.
pub(crate) fn sbatch(script: &Path) -> Result<String> {
    let out = client(
        "sbatch",
        &["--parsable".to_string(), script.display().to_string()],
        CLIENT_TIMEOUT,
    )?;
    if !out.success {
        bail!("sbatch refused {}: {}", script.display(), out.stderr.trim());
    }
    parse_job_id(&out.stdout)
        .with_context(|| format!("sbatch printed no job id: {:?}", out.stdout.trim()))
}

/// The job id in `sbatch --parsable` output: `ID` or `ID;CLUSTER`.
fn parse_job_id(stdout: &str) -> Option<String> {
    let line = stdout.lines().map(str::trim).find(|l| !l.is_empty())?;
    let id = line.split(';').next()?.trim();
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then(|| id.to_string())
}

/// The state of one array task as `squeue` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskState {
    /// The array job's id.
    pub(crate) job: String,
    /// The array index (= the shard).
    pub(crate) task: u32,
    /// Slurm's state name: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
    pub(crate) state: String,
    /// The node it runs or ran on (empty while pending).
    pub(crate) node: String,
    /// Slurm's reason (why pending, why failed).
    pub(crate) reason: String,
}

impl TaskState {
    /// True while the task may still run or write: anything but a final state.
    pub(crate) fn is_active(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "COMPLETED"
                | "FAILED"
                | "CANCELLED"
                | "TIMEOUT"
                | "NODE_FAIL"
                | "PREEMPTED"
                | "OUT_OF_MEMORY"
                | "BOOT_FAIL"
                | "DEADLINE"
                | "SPECIAL_EXIT"
        )
    }
}

/// Separator of the fields in our `squeue` format.
const SEP: &str = "|";

/// Every task of `jobs` that `squeue` still knows (running, pending, or ended within the
/// controller's `MinJobAge`), with array tasks listed one by one.
pub(crate) fn squeue(jobs: &[String]) -> Result<Vec<TaskState>> {
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let args = vec![
        "--noheader".to_string(),
        "--array".to_string(),
        "--states=all".to_string(),
        format!("--jobs={}", jobs.join(",")),
        format!("--format=%F{SEP}%K{SEP}%T{SEP}%N{SEP}%r"),
    ];
    let out = client("squeue", &args, CLIENT_TIMEOUT)?;
    if !out.success {
        // Jobs the controller has already forgotten are no error: they ended long ago.
        if out.stderr.contains("Invalid job id") {
            return Ok(Vec::new());
        }
        bail!("squeue failed: {}", out.stderr.trim());
    }
    Ok(parse_squeue(&out.stdout))
}

/// Parses lines `ARRAY_JOB|TASK|STATE|NODE|REASON`; lines of non-array jobs or of an
/// aggregated pending range are skipped.
fn parse_squeue(stdout: &str) -> Vec<TaskState> {
    stdout
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.trim().splitn(5, SEP).collect();
            if f.len() < 4 {
                return None;
            }
            Some(TaskState {
                job: f[0].trim().to_string(),
                task: f[1].trim().parse().ok()?,
                state: f[2].trim().to_string(),
                node: f[3].trim().to_string(),
                reason: f.get(4).map(|r| r.trim().to_string()).unwrap_or_default(),
            })
        })
        .collect()
}

/// The nodes `sinfo` reports as not answering the controller (a `*` after the state:
/// `idle*`, `mixed*`) or down, failed or drained, each with that state. Empty when `sinfo`
/// itself fails: the caller only uses this to say more, never to decide.
pub(crate) fn troubled_nodes() -> Vec<(String, String)> {
    let args = [
        "--noheader".to_string(),
        "--Node".to_string(),
        format!("--format=%N{SEP}%T"),
    ];
    match client("sinfo", &args, CLIENT_TIMEOUT) {
        Ok(out) if out.success => parse_troubled_nodes(&out.stdout),
        _ => Vec::new(),
    }
}

/// Parses `NODE|STATE` lines, keeping the nodes in trouble (see [`troubled_nodes`]), each
/// once.
fn parse_troubled_nodes(stdout: &str) -> Vec<(String, String)> {
    let mut nodes: Vec<(String, String)> = Vec::new();
    for line in stdout.lines() {
        let Some((node, state)) = line.trim().split_once(SEP) else {
            continue;
        };
        let (node, state) = (node.trim(), state.trim().to_ascii_lowercase());
        let not_responding = state.ends_with('*');
        let down = ["down", "fail", "drain", "no_respond"]
            .iter()
            .any(|s| state.starts_with(s));
        if (not_responding || down) && !nodes.iter().any(|(n, _)| n == node) {
            nodes.push((node.to_string(), state));
        }
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinfo_lines_name_the_nodes_in_trouble_once() {
        let text = "n1|idle\nn2|idle*\nn3|down*\nn4|drained\nn2|idle*\nn5|mixed\nn6|allocated\n";
        assert_eq!(
            parse_troubled_nodes(text),
            [
                ("n2".to_string(), "idle*".to_string()),
                ("n3".to_string(), "down*".to_string()),
                ("n4".to_string(), "drained".to_string()),
            ]
        );
        assert!(parse_troubled_nodes("garbage\n").is_empty());
    }

    #[test]
    fn job_ids_with_and_without_cluster() {
        assert_eq!(parse_job_id("1234\n").as_deref(), Some("1234"));
        assert_eq!(parse_job_id("77;clusterA\n").as_deref(), Some("77"));
        assert_eq!(parse_job_id("Submitted batch job 5\n"), None);
        assert_eq!(parse_job_id(""), None);
    }

    #[test]
    fn squeue_lines_become_task_states() {
        let text = "12|0|COMPLETED|n1|None\n12|1|RUNNING|n2|None\n12|2|PENDING||JobArrayTaskLimit\n12|3-5%2|PENDING||Resources\n";
        let t = parse_squeue(text);
        assert_eq!(t.len(), 3);
        assert_eq!(t[1].node, "n2");
        assert!(!t[0].is_active() && t[1].is_active() && t[2].is_active());
        assert_eq!(t[2].reason, "JobArrayTaskLimit");
    }
}
