//! Which machine runs this process: the Slurm node, the host, its CPU and kernel, and the
//! Slurm job and array task (the record type is [`crate::files::results::Machine`]).

pub(crate) use crate::files::results::Machine;

use super::host::detect_host;

/// This process's machine, with the Slurm context from its environment.
pub(crate) fn detect_machine() -> Machine {
    let host = detect_host();
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    Machine {
        node: var("SLURMD_NODENAME"),
        hostname: host.hostname,
        cpu_model: host.cpu_model,
        kernel: host.kernel,
        slurm_job: var("SLURM_ARRAY_JOB_ID").or_else(|| var("SLURM_JOB_ID")),
        slurm_task: var("SLURM_ARRAY_TASK_ID").and_then(|t| t.parse().ok()),
    }
}
