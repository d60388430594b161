//! Running an experiment's executions on a Slurm cluster (`layoutrand run --slurm`).
//!
//! The build stays on one machine; the executions spread over nodes. The submitter computes
//! the same seeded interleaved schedule as a local run, cuts it into shards (see
//! [`crate::files::store::shards`]), writes the [`plan`] and an `sbatch` array [`script`] into the
//! experiment directory and [`submit`]s it. Each array [`task`] runs one shard with the
//! local runner's building blocks into its own shard store, recording the machine of every
//! execution. [`status`] reads progress from the shard stores and task states from
//! `squeue` through the [`queue`] (never `sacct`, which needs the accounting daemon).
//! The workflow on a real cluster is in `docs/slurm.md`.

pub mod plan;
pub(crate) mod queue;
pub(crate) mod script;
pub mod status;
pub mod submit;
pub mod task;
