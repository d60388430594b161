//! `layoutrand build`: record one build of the program through the cc/ld shim, then relink
//! it once for the baseline and once per seed with a randomised code layout.

use std::path::PathBuf;

use anyhow::{bail, Result};

use layoutrand::build::driver::{self, BuildOptions};
use layoutrand::build::linker::Linker;
use layoutrand::build::summary;
use layoutrand::files::manifest::Granularity;

/// Arguments of `layoutrand build`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of seeds (randomised binaries) to build besides the baseline.
    #[arg(long, default_value_t = 10)]
    pub seeds: u64,
    /// First seed; the seeds are S, S+1, ..., S+N-1.
    #[arg(long, default_value_t = 1)]
    pub seed_base: u64,
    /// Output directory (binaries and manifest.json).
    #[arg(long, default_value = layoutrand::analysis::vocabulary::DEFAULT_DIR)]
    pub out: PathBuf,
    /// What to randomise: link order, plus function order within modules, or one global
    /// function order.
    #[arg(long, value_enum, default_value_t = GranularityArg::Module)]
    pub granularity: GranularityArg,
    /// Linker for the relinks (`auto`: the one each link of the build used).
    #[arg(long, value_enum, default_value_t = LinkerArg::Auto)]
    pub linker: LinkerArg,
    /// Parallel relinks (default: the number of CPUs).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Build each seed by a full rebuild in a copy of the tree (for builds whose links cannot
    /// be replayed).
    #[arg(long)]
    pub rebuild: bool,
    /// Add seeds to the build already in --out, relinked from its recording (the build
    /// command is not run again; the baseline and the seeds already built stay as they are).
    /// `--seeds N` is then the total number of seeds wanted.
    #[arg(long, conflicts_with = "rebuild")]
    pub extend: bool,
    /// Allow more than 1000 seeds (the build prints the projected time and disk first).
    #[arg(long)]
    pub allow_many_seeds: bool,
    /// Do not show the build command's output.
    #[arg(long, short)]
    pub quiet: bool,
    /// The build command, after `--` (e.g. `-- make -j2`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub command: Vec<String>,
}

/// `--granularity` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum GranularityArg {
    /// Permute objects and archive members.
    Link,
    /// Link order plus a random function order inside each module.
    Module,
    /// All functions in one random order.
    Global,
}

/// `--linker` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LinkerArg {
    /// The linker the recorded build used.
    Auto,
    /// GNU ld.
    Bfd,
    /// GNU gold.
    Gold,
    /// LLVM lld.
    Lld,
    /// mold.
    Mold,
}

/// Runs `layoutrand build`.
pub fn run(args: Args) -> Result<i32> {
    let command = match args.command.first().map(String::as_str) {
        Some("--") => args.command[1..].to_vec(),
        _ => args.command.clone(),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let opts = BuildOptions {
        command,
        build_dir: std::env::current_dir()?,
        out_dir: args.out.clone(),
        seeds: (0..args.seeds).map(|i| args.seed_base + i).collect(),
        granularity: match args.granularity {
            GranularityArg::Link => Granularity::Link,
            GranularityArg::Module => Granularity::Module,
            GranularityArg::Global => Granularity::Global,
        },
        linker: match args.linker {
            LinkerArg::Auto => None,
            LinkerArg::Bfd => Some(Linker::Bfd),
            LinkerArg::Gold => Some(Linker::Gold),
            LinkerArg::Lld => Some(Linker::Lld),
            LinkerArg::Mold => Some(Linker::Mold),
        },
        jobs,
        echo_build: !args.quiet,
        progress: true,
        rebuild: args.rebuild,
        allow_many_seeds: args.allow_many_seeds,
    };
    let outcome = if args.extend {
        layoutrand::build::extend::extend(&opts)?
    } else {
        driver::build(&opts)?
    };
    for e in &outcome.shim_errors {
        eprintln!("layoutrand: warning: the shim passed a call through unrecorded: {e}");
    }
    print!("{}", summary::render(&outcome.manifest));
    println!(
        "manifest: {}",
        args.out
            .join(layoutrand::files::manifest::MANIFEST_FILE)
            .display()
    );
    Ok(if driver::all_ok(&outcome.manifest) {
        0
    } else {
        1
    })
}
