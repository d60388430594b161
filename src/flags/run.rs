//! The flags of `layoutrand run`, parsed by the command line and written back as argv by the
//! experiment pipeline's run stage.

use std::ffi::OsString;
use std::path::PathBuf;

use super::{Argv, DesignArgs, LimitArgs};
use crate::files::cache_model::CacheModel;

/// Arguments of `layoutrand run`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct RunArgs {
    /// Experiment directory: holds manifest.json from `layoutrand build`, receives
    /// results.jsonl.
    #[cfg_attr(feature = "cli", arg(long, default_value = crate::files::DEFAULT_DIR))]
    pub out: PathBuf,
    /// Programs (binary names in the manifest) that `{bin}` stands for, comma-separated
    /// [default: all].
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ','))]
    pub programs: Option<Vec<String>>,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub design: DesignArgs,
    /// Exclusive upper bound in bytes of the environment padding (a multiple of 16 is
    /// drawn per execution) [default: 4096].
    #[cfg_attr(feature = "cli", arg(long = "env-pad"))]
    pub env_pad: Option<u32>,
    /// Data seeds per binary (1 to 1000): each binary runs with K data layouts (a seeded
    /// stack padding and heap offset each, the same for seed j in every run), every round
    /// running each (binary, data seed) cell once in random order; --executions is then the
    /// executions per cell [default: 1, the padding drawn per execution].
    #[cfg_attr(feature = "cli", arg(long = "data-seeds", value_name = "K"))]
    pub data_seeds: Option<u32>,
    /// With --data-seeds: each data seed also sets malloc's mmap threshold to one of two
    /// levels (128 KiB: large blocks get their own page-aligned mapping; 32 MiB: they come
    /// from the heap and move with the heap offset), drawn from the data seed.
    #[cfg_attr(feature = "cli", arg(long = "vary-mmap-threshold"))]
    pub vary_mmap_threshold: bool,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub limits: LimitArgs,
    /// Seed of the interleaved schedule and of the paddings [default: from the clock,
    /// recorded].
    #[cfg_attr(feature = "cli", arg(long = "schedule-seed"))]
    pub schedule_seed: Option<u64>,
    /// Continue the interrupted run in --out, skipping committed executions (with --slurm:
    /// resubmit only the shards that are incomplete).
    #[cfg_attr(feature = "cli", arg(long))]
    pub resume: bool,
    /// With --resume: add K more execution rounds, each running every binary once in its own
    /// random order (a rounds store only), e.g. to re-measure a binary the report says a
    /// verdict rests on, interleaved with the others; resumable like any run.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "extend-executions",
            value_name = "K",
            requires = "resume",
            conflicts_with = "slurm"
        )
    )]
    pub extend_executions: Option<u32>,
    /// With --resume: rerun the command, cwd and environment of a store (or Slurm plan) that
    /// is not this user's own (received, edited, or written before layoutrand signed its
    /// directories), and adopt it; see `layoutrand trust`.
    #[cfg_attr(feature = "cli", arg(long, requires = "resume"))]
    pub trust: bool,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub slurm: SlurmArgs,
    /// Executions at once (1 to 1024). Only for deterministic metrics (cachegrind), whose
    /// values do not depend on what else runs; the store is the one a serial run writes
    /// [default: the number of cores with --metric cachegrind, else 1].
    #[cfg_attr(feature = "cli", arg(long, value_parser = super::jobs_arg))]
    pub jobs: Option<usize>,
    /// Allow --jobs above 1 with a time metric (wall, cpu, regex), whose values then include
    /// the parallel executions' contention.
    #[cfg_attr(feature = "cli", arg(long = "force-parallel"))]
    pub force_parallel: bool,
    /// Pin executions to these CPUs (e.g. 1 or 0,2-3; sched_setaffinity): with --jobs 1 to
    /// all of them, with --jobs N one CPU per parallel execution.
    #[cfg_attr(feature = "cli", arg(long))]
    pub cpus: Option<String>,
    /// With --metric cachegrind: the caches to simulate, as I1=SIZE,ASSOC,LINE, D1=... and
    /// LL=... (bytes, ways, bytes; comma-separated; a cache left out keeps the default)
    /// [default: I1=32768,8,64,D1=32768,8,64,LL=8388608,16,64, whatever the host's caches].
    #[cfg_attr(feature = "cli", arg(long = "cache-sim", value_name = "MODEL", value_parser = cache_sim_arg))]
    pub cache_sim: Option<CacheModel>,
    /// With a suite's metric: keep only the cases whose names REGEX matches (searched in the
    /// name; ^…$ for whole names). A timed suite's other cases are not stored; under
    /// cachegrind:SUITE only these are run (a criterion command names no filter of its own).
    #[cfg_attr(feature = "cli", arg(long, value_name = "REGEX"))]
    pub cases: Option<String>,
    /// The benchmark command, with {bin} (or {bin:NAME}) where the binary goes.
    #[cfg_attr(feature = "cli", arg(last = true))]
    pub command: Vec<String>,
}

/// The `--slurm` flags of `layoutrand run`.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SlurmArgs {
    /// Run the executions on a Slurm cluster: shards of the schedule as one `sbatch` array
    /// job, one exclusive node per task (see docs/slurm.md). --out must be on storage every
    /// node sees.
    #[cfg_attr(feature = "cli", arg(long))]
    pub slurm: bool,
    /// With --slurm: the Slurm partition.
    #[cfg_attr(feature = "cli", arg(long, requires = "slurm"))]
    pub partition: Option<String>,
    /// With --slurm: at most this many tasks (nodes) at once.
    #[cfg_attr(feature = "cli", arg(long = "max-nodes", requires = "slurm"))]
    pub max_nodes: Option<u32>,
    /// With --slurm: one more `sbatch` option (e.g. --slurm-arg=--time=02:00:00);
    /// repeatable.
    #[cfg_attr(
        feature = "cli",
        arg(long = "slurm-arg", requires = "slurm", allow_hyphen_values = true)
    )]
    pub slurm_arg: Vec<String>,
    /// With --slurm: number of shards (array tasks), each a block of rounds of the schedule
    /// [default: --executions, one round each].
    #[cfg_attr(feature = "cli", arg(long, requires = "slurm"))]
    pub shards: Option<u32>,
    /// With --slurm: node-local folder for the fixed binary path [default: /tmp/layoutrand].
    #[cfg_attr(feature = "cli", arg(long = "node-dir", requires = "slurm"))]
    pub node_dir: Option<PathBuf>,
    /// With --slurm: block until every task ended; exit 4 when some shard is incomplete.
    #[cfg_attr(feature = "cli", arg(long, requires = "slurm"))]
    pub wait: bool,
    /// With --slurm: write the plan and the job script, submit nothing.
    #[cfg_attr(feature = "cli", arg(long = "dry-run", requires = "slurm"))]
    pub dry_run: bool,
}

impl Default for RunArgs {
    /// What `layoutrand run` with no flags means (the command left empty).
    fn default() -> Self {
        RunArgs {
            out: PathBuf::from(crate::files::DEFAULT_DIR),
            programs: None,
            design: DesignArgs::default(),
            env_pad: None,
            data_seeds: None,
            vary_mmap_threshold: false,
            limits: LimitArgs::default(),
            schedule_seed: None,
            resume: false,
            extend_executions: None,
            trust: false,
            slurm: SlurmArgs::default(),
            jobs: None,
            force_parallel: false,
            cpus: None,
            cache_sim: None,
            cases: None,
            command: Vec::new(),
        }
    }
}

impl RunArgs {
    /// The subcommand that parses these arguments.
    pub(crate) const SUBCOMMAND: &'static str = "run";

    /// `run ARGS...`: the argv that `layoutrand` parses back into `self` (every field is
    /// destructured, so a new flag does not compile until it is written here too).
    pub fn to_argv(&self) -> Vec<OsString> {
        let RunArgs {
            out,
            programs,
            design,
            env_pad,
            data_seeds,
            vary_mmap_threshold,
            limits,
            schedule_seed,
            resume,
            extend_executions,
            trust,
            slurm,
            jobs,
            force_parallel,
            cpus,
            cache_sim,
            cases,
            command,
        } = self;
        let mut argv = Argv::default();
        argv.0.push(Self::SUBCOMMAND.into());
        argv.path("--out", out);
        argv.list("--programs", programs);
        design.push_argv(&mut argv);
        argv.value("--env-pad", env_pad);
        argv.value("--data-seeds", data_seeds);
        argv.flag("--vary-mmap-threshold", *vary_mmap_threshold);
        limits.push_argv(&mut argv);
        argv.value("--schedule-seed", schedule_seed);
        argv.flag("--resume", *resume);
        argv.value("--extend-executions", extend_executions);
        argv.flag("--trust", *trust);
        slurm.push_argv(&mut argv);
        argv.value("--jobs", jobs);
        argv.flag("--force-parallel", *force_parallel);
        argv.value("--cpus", cpus);
        argv.value("--cache-sim", cache_sim);
        argv.value("--cases", cases);
        argv.trailing(command);
        argv.0
    }
}

impl SlurmArgs {
    fn push_argv(&self, argv: &mut Argv) {
        let SlurmArgs {
            slurm,
            partition,
            max_nodes,
            slurm_arg,
            shards,
            node_dir,
            wait,
            dry_run,
        } = self;
        argv.flag("--slurm", *slurm);
        argv.value("--partition", partition);
        argv.value("--max-nodes", max_nodes);
        for a in slurm_arg {
            argv.attached("--slurm-arg", a);
        }
        argv.value("--shards", shards);
        if let Some(dir) = node_dir {
            argv.path("--node-dir", dir);
        }
        argv.flag("--wait", *wait);
        argv.flag("--dry-run", *dry_run);
    }
}

/// The parser of `--cache-sim MODEL`, through the one parser ([`CacheModel::parse`]).
// A clap value parser: only the command line (the `cli` feature) calls it.
#[cfg(feature = "cli")]
pub fn cache_sim_arg(text: &str) -> Result<CacheModel, String> {
    CacheModel::parse(text).map_err(|e| format!("{e:#}"))
}

/// Round trips through clap's parser, so only with the command line (feature `cli`).
#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;
    use clap::Parser;
    use std::time::Duration;

    /// The subcommand as the command line declares it (`Command::Run(RunArgs)`).
    #[derive(Debug, Parser)]
    enum Stage {
        Run(RunArgs),
    }

    fn round_trip(args: &RunArgs) -> RunArgs {
        let argv = std::iter::once(OsString::from("layoutrand")).chain(args.to_argv());
        match Stage::try_parse_from(argv) {
            Ok(Stage::Run(parsed)) => parsed,
            Err(e) => panic!("{:?} does not parse back: {e}", args.to_argv()),
        }
    }

    #[test]
    fn run_args_survive_to_argv_and_back() {
        let local = RunArgs {
            out: PathBuf::from("out dir"),
            programs: Some(vec!["gzip".into()]),
            design: DesignArgs {
                executions: Some(4),
                iterations: Some(10),
                warmup: Some(2),
                metric: Some("regex:time=(\\S+) -x".into()),
                ok_exit_codes: vec![10, 20],
            },
            env_pad: Some(512),
            data_seeds: Some(3),
            vary_mmap_threshold: true,
            limits: LimitArgs {
                timeout: Some(Duration::from_millis(2500)),
                budget: Some(Duration::from_secs(5400)),
                wait_for_quiet: Some(Duration::from_secs(30)),
            },
            schedule_seed: Some(42),
            resume: true,
            extend_executions: Some(3),
            trust: true,
            slurm: SlurmArgs::default(),
            jobs: Some(2),
            force_parallel: true,
            cpus: Some("0,2-3".into()),
            cache_sim: Some(CacheModel::parse("I1=16384,4,64").unwrap()),
            cases: Some("^BM_(a|b)/".into()),
            command: vec!["{bin}".into(), "-d".into(), "--".into()],
        };
        assert_eq!(round_trip(&local), local);
        let slurm = RunArgs {
            slurm: SlurmArgs {
                slurm: true,
                partition: Some("short".into()),
                max_nodes: Some(3),
                slurm_arg: vec!["--time=02:00:00".into(), "-N1".into()],
                shards: Some(6),
                node_dir: Some(PathBuf::from("/scratch/x")),
                wait: true,
                dry_run: true,
            },
            command: vec!["{bin}".into()],
            ..RunArgs::default()
        };
        assert_eq!(round_trip(&slurm), slurm);
        assert_eq!(round_trip(&RunArgs::default()), RunArgs::default());
    }
}
