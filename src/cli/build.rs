//! `layoutrand build`: record one build of the program through the cc/ld shim, then relink
//! it once for the baseline and once per seed with a randomised code layout.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use layoutrand::build::driver::{self, BuildOptions};
use layoutrand::build::interrupt::BuildInterrupted;
use layoutrand::build::linker::Linker;
use layoutrand::build::summary;
use layoutrand::exit::Exit;
use layoutrand::files::manifest::Granularity;

/// Arguments of `layoutrand build`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of seeds (randomised binaries) to build besides the baseline [default: 10; with
    /// --variant, the seeds of the variants already built].
    #[arg(long)]
    pub seeds: Option<u64>,
    /// First seed; the seeds are S, S+1, ..., S+N-1 [default: 1].
    #[arg(long)]
    pub seed_base: Option<u64>,
    /// Build this variant (a version of the program: other flags, compiler or sources) of an
    /// experiment comparing several, into OUT/NAME; the variants share their seeds.
    #[arg(long, value_name = "NAME", conflicts_with = "extend")]
    pub variant: Option<String>,
    /// Output directory (binaries and manifest.json).
    #[arg(long, default_value = layoutrand::analysis::vocabulary::DEFAULT_DIR)]
    pub out: PathBuf,
    /// What to randomise: link order, plus function order within modules, or one global
    /// function order; `none` keeps the build's order and varies only the padding (needs
    /// --pad) [default: module; with --extend, the recorded one].
    #[arg(long, value_enum)]
    pub granularity: Option<GranularityArg>,
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
    /// command is not run again and may be left out; the baseline and the seeds already built
    /// stay as they are). `--seeds N` is then the total number of seeds wanted.
    #[arg(long, conflicts_with = "rebuild")]
    pub extend: bool,
    /// Put a seeded amount of filler, 0 to MAX bytes (a multiple of each function's
    /// alignment), before every function of each seed, so the seeds also sample cache-line
    /// and page offsets [default: 0, none; at most 4096; not with --granularity link;
    /// required with --granularity none].
    #[arg(long, value_name = "MAX", value_parser = parse_pad, allow_negative_numbers = true)]
    pub pad: Option<u64>,
    /// Relink only these recorded programs (names as in the manifest), comma-separated
    /// [default: every program the build linked except its own tools, such as cargo build
    /// scripts].
    #[arg(long, value_delimiter = ',')]
    pub programs: Option<Vec<String>>,
    /// Allow more than 1000 seeds (the build prints the projected time and disk first).
    #[arg(long)]
    pub allow_many_seeds: bool,
    /// Do not show the build command's output.
    #[arg(long, short)]
    pub quiet: bool,
    /// The build command, after `--` (e.g. `-- make -j2`); with --extend, the recorded one
    /// when left out.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required_unless_present = "extend"
    )]
    pub command: Vec<String>,
}

/// The most parallel relinks (`--jobs`): each is a thread, and more than the cores buys
/// nothing.
const MAX_JOBS: usize = 1024;

/// `--pad`: bytes, at most [`driver::MAX_PAD`].
fn parse_pad(text: &str) -> Result<u64> {
    let bytes = layoutrand::units::parse_bytes(text)?;
    if bytes > driver::MAX_PAD {
        bail!("{bytes} bytes is more than {} (a page)", driver::MAX_PAD);
    }
    Ok(bytes)
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
    /// Nothing reordered: the build's order kept, only the padding (--pad) varies.
    None,
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

/// The seeds to build: `--seeds`/`--seed-base`, or for a variant added to an experiment the
/// seeds of its variants (given flags must then agree with them).
fn seeds(args: &Args) -> Result<Vec<u64>> {
    let asked = || {
        layoutrand::build::projection::seed_range(
            args.seed_base.unwrap_or(1),
            args.seeds.unwrap_or(10),
        )
    };
    let Some(name) = &args.variant else {
        return asked();
    };
    layoutrand::build::variant::check_name(name).context("--variant")?;
    let Some(shared) = layoutrand::build::variant::shared_seeds(&args.out)? else {
        return asked();
    };
    if (args.seeds.is_some() || args.seed_base.is_some()) && asked()? != shared {
        bail!(
            "the variants in {} use seeds {}; a variant must use the same (leave out --seeds and --seed-base)",
            args.out.display(),
            describe_seeds(&shared)
        );
    }
    Ok(shared)
}

fn describe_seeds(seeds: &[u64]) -> String {
    match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) => format!("{a} to {b} ({} seeds)", seeds.len()),
        _ => "none".to_string(),
    }
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
    if jobs > MAX_JOBS {
        bail!("--jobs {jobs}: at most {MAX_JOBS} parallel relinks (one thread each)");
    }
    let granularity = args.granularity.map(|g| match g {
        GranularityArg::Link => Granularity::Link,
        GranularityArg::Module => Granularity::Module,
        GranularityArg::Global => Granularity::Global,
        GranularityArg::None => Granularity::None,
    });
    let opts = BuildOptions {
        command,
        build_dir: std::env::current_dir()?,
        out_dir: args.out.clone(),
        seeds: seeds(&args)?,
        granularity: granularity.unwrap_or(Granularity::Module),
        linker: match args.linker {
            LinkerArg::Auto => None,
            LinkerArg::Bfd => Some(Linker::Bfd),
            LinkerArg::Gold => Some(Linker::Gold),
            LinkerArg::Lld => Some(Linker::Lld),
            LinkerArg::Mold => Some(Linker::Mold),
        },
        jobs,
        echo_build: !args.quiet,
        progress: layoutrand::progress::ProgressDisplay::for_stderr(),
        rebuild: args.rebuild,
        allow_many_seeds: args.allow_many_seeds,
        pad: args.pad,
        programs: args.programs.clone(),
    };
    let built = if let Some(name) = &args.variant {
        layoutrand::build::variant::build(&opts, name)
    } else if args.extend {
        layoutrand::build::extend::extend(&opts, granularity)
    } else {
        driver::build(&opts)
    };
    let outcome = match built {
        Ok(outcome) => outcome,
        Err(err) => match err.downcast_ref::<BuildInterrupted>() {
            Some(stop) => {
                layoutrand::diagnostic!("layoutrand: {stop}");
                return Ok(layoutrand::exit::interrupted_by(stop.signal));
            }
            None => return Err(err),
        },
    };
    for e in &outcome.shim_errors {
        layoutrand::diagnostic!(
            "layoutrand: warning: the shim passed a call through unrecorded: {e}"
        );
    }
    if let Some(name) = &args.variant {
        let all = layoutrand::files::manifest::Manifest::load(&args.out)?;
        let names: Vec<&str> = all.variants.iter().map(|v| v.name.as_str()).collect();
        println!(
            "variant: {name} (built into {}; the variants of {} are {}, sharing their seeds)",
            args.out.join(name).display(),
            args.out.display(),
            names.join(", ")
        );
    }
    print!("{}", summary::render(&outcome.manifest));
    for note in &outcome.notes {
        println!("{note}");
    }
    println!(
        "manifest: {}",
        args.out
            .join(layoutrand::files::manifest::MANIFEST_FILE)
            .display()
    );
    Ok(if driver::all_ok(&outcome.manifest) {
        Exit::Complete
    } else {
        Exit::GateFailed
    }
    .code())
}
