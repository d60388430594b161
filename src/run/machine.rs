//! Which machine ran an execution: the Slurm node, the host, its CPU and kernel, and the
//! Slurm job and array task that ran it. Recorded on every execution of a Slurm run so the
//! analysis can treat the machine as a factor (see `docs/slurm.md`).

use serde::{Deserialize, Serialize};

use super::host::detect_host;

/// The machine and scheduler context of one execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Machine {
    /// Slurm's name of the node (`SLURMD_NODENAME`); on an emulated cluster several nodes
    /// share one host, so this, not the host name, tells them apart.
    pub node: Option<String>,
    /// Host name of the machine.
    pub hostname: Option<String>,
    /// `model name` from /proc/cpuinfo.
    pub cpu_model: Option<String>,
    /// Kernel release (`uname -r`).
    pub kernel: Option<String>,
    /// Slurm job id of the array (`SLURM_ARRAY_JOB_ID`).
    pub slurm_job: Option<String>,
    /// Slurm array task id (`SLURM_ARRAY_TASK_ID`).
    pub slurm_task: Option<u32>,
}

impl Machine {
    /// This process's machine, with the Slurm context from its environment.
    pub fn detect() -> Machine {
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

    /// The name the report groups executions by: the Slurm node, else the host name.
    pub fn label(&self) -> String {
        self.node
            .clone()
            .or_else(|| self.hostname.clone())
            .unwrap_or_else(|| "unknown".to_string())
    }
}
