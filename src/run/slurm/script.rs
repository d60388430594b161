//! The `sbatch` array script of a Slurm run: one task per shard, each on a node of its own
//! (`--exclusive`, so no other job disturbs the measurements), at most `--max-nodes` at
//! once, logs in `DIR/slurm/logs`, and the task itself: `layoutrand run-shard`.

use std::path::Path;

use anyhow::{bail, Result};

use super::plan::{slurm_path, SlurmPlan, LOGS_DIR};

/// The script that runs `shards` (array indices) of the experiment in `dir` (absolute).
pub fn job_script(dir: &Path, plan: &SlurmPlan, shards: &[u32]) -> Result<String> {
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
    s.push_str(&format!(
        "#SBATCH --output={}/task-%A_%a.out\n",
        logs.display()
    ));
    if let Some(p) = &plan.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    for a in &plan.slurm_args {
        if a.contains('\n') {
            bail!("--slurm-arg {a:?}: one option per --slurm-arg, without line breaks");
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
