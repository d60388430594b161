//! The `sbatch` array script of a Slurm run: one task per shard, each on a node of its own
//! (`--exclusive`, so no other job disturbs the measurements), at most `--max-nodes` at
//! once, logs in `DIR/slurm/logs`, and the task itself: `layoutrand run-shard`.

use std::path::Path;

use anyhow::{bail, Result};

use super::plan::{slurm_path, SlurmPlan, LOGS_DIR};

/// The `sbatch` options the script sets itself, long and short forms: given again through
/// `--slurm-arg` they would override it (`--array=0-3` submitted shards that do not exist).
const MANAGED_OPTIONS: &[(&str, Option<&str>)] = &[
    ("--array", Some("-a")),
    ("--output", Some("-o")),
    ("--error", Some("-e")),
    ("--chdir", Some("-D")),
    ("--job-name", Some("-J")),
    ("--nodes", Some("-N")),
    ("--ntasks", Some("-n")),
    ("--exclusive", None),
    ("--partition", Some("-p")),
];

/// The managed option `arg` sets (`--array=0-3`, `--array 0-3`, `-a0-3`, `-a 0-3`), if any.
fn managed_option(arg: &str) -> Option<&'static str> {
    let arg = arg.trim_start();
    MANAGED_OPTIONS.iter().find_map(|&(long, short)| {
        let long_hit = arg
            .strip_prefix(long)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['=', ' ']));
        let short_hit = short.is_some_and(|s| arg.starts_with(s) && !arg.starts_with("--"));
        (long_hit || short_hit).then_some(long)
    })
}

/// The script that runs `shards` (array indices) of the experiment in `dir` (absolute).
pub(crate) fn job_script(dir: &Path, plan: &SlurmPlan, shards: &[u32]) -> Result<String> {
    if shards.is_empty() {
        bail!("no shard to submit");
    }
    let cwd = plan
        .header
        .cwd
        .clone()
        .unwrap_or_else(|| dir.display().to_string());
    let logs = slurm_path(dir, LOGS_DIR);
    // `#SBATCH` lines are not shell: a path with blanks would be cut apart there.
    for (what, p) in [
        ("the experiment directory", logs.display().to_string()),
        ("the working directory", cwd.clone()),
    ] {
        if p.chars().any(char::is_whitespace) {
            bail!("{what} {p:?} contains blanks, which #SBATCH lines cannot carry: use a path without blanks");
        }
    }
    let mut s = String::new();
    s.push_str("#!/bin/sh\n");
    s.push_str(&format!(
        "# Written by `layoutrand run --slurm`: one array task per shard of the experiment in\n# {}; each runs its shard with the local runner into shards/NNNN/results.jsonl.\n",
        dir.display()
    ));
    s.push_str("#SBATCH --job-name=layoutrand\n");
    let list = shards
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    match plan.max_nodes {
        Some(n) => s.push_str(&format!("#SBATCH --array={list}%{n}\n")),
        None => s.push_str(&format!("#SBATCH --array={list}\n")),
    }
    s.push_str("#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --exclusive\n");
    s.push_str(&format!("#SBATCH --chdir={cwd}\n"));
    // `%` starts a filename pattern in --output (`%A`, `%a`): a literal one is written `%%`.
    s.push_str(&format!(
        "#SBATCH --output={}/task-%A_%a.out\n",
        logs.display().to_string().replace('%', "%%")
    ));
    if let Some(p) = &plan.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    for a in &plan.slurm_args {
        if a.contains('\n') {
            bail!("--slurm-arg {a:?}: one option per --slurm-arg, without line breaks");
        }
        if let Some(own) = managed_option(a) {
            bail!(
                "--slurm-arg {a:?}: layoutrand sets {own} itself (one array task per shard, \
                 its logs and working directory); leave it out (--partition and --max-nodes \
                 have flags of their own)"
            );
        }
        s.push_str(&format!("#SBATCH {a}\n"));
    }
    s.push_str(&format!(
        "exec {} run-shard --out {} --shard \"$SLURM_ARRAY_TASK_ID\" --token {}\n",
        shell_words::quote(&plan.layoutrand.display().to_string()),
        shell_words::quote(&dir.display().to_string()),
        shell_words::quote(&plan.token)
    ));
    Ok(s)
}

#[cfg(test)]
mod managed_tests {
    use super::managed_option;

    /// Issue 22: `--slurm-arg=--array=0-3`, `--output`, `--chdir` were passed on although the
    /// script sets them.
    #[test]
    fn options_the_script_sets_are_recognised_in_every_form() {
        for (arg, own) in [
            ("--array=0-3", "--array"),
            ("--array 0-3", "--array"),
            ("-a0-3", "--array"),
            ("--output=x.out", "--output"),
            ("-o x", "--output"),
            ("--error=e", "--error"),
            ("--chdir=/tmp", "--chdir"),
            ("-D/tmp", "--chdir"),
            ("--job-name=x", "--job-name"),
            ("--exclusive", "--exclusive"),
        ] {
            assert_eq!(managed_option(arg), Some(own), "{arg}");
        }
        for free in [
            "--time=02:00:00",
            "--account=x",
            "--mem=4G",
            "--arrayx",
            "-t 10",
        ] {
            assert_eq!(managed_option(free), None, "{free}");
        }
    }
}
