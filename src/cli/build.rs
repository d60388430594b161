//! `layoutrand build`: record one build of the program through the cc/ld shim, then relink
//! it once for the baseline and once per seed with a randomised code layout.

use anyhow::{bail, Context, Result};

use layoutrand::exit::Exit;
use layoutrand::files::manifest::Granularity;
use layoutrand::relink::driver::{self, BuildOptions};
use layoutrand::report::build_summary as summary;

pub use layoutrand::flags::build::BuildArgs as Args;

/// The seeds to build: `--seeds`/`--seed-base`, or for a variant added to an experiment the
/// seeds of its variants (given flags must then agree with them).
fn seeds(args: &Args) -> Result<Vec<u64>> {
    let asked = || {
        layoutrand::relink::projection::seed_range(
            args.seed_base.unwrap_or(1),
            args.seeds.unwrap_or(10),
            args.allow_many_seeds,
        )
    };
    let Some(name) = &args.variant else {
        return asked();
    };
    if args.extend {
        // The total wanted; the variant's own seeds must begin it (checked when extending).
        return asked();
    }
    layoutrand::relink::variant::dir_of(&args.out, name).context("--variant")?;
    let Some(shared) = layoutrand::relink::variant::shared_seeds(&args.out)? else {
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

/// The build, or the seeds added to one (`--extend`, from the user's own recording only),
/// of the whole program or of one variant.
fn build_or_extend(
    args: &Args,
    opts: &BuildOptions,
    granularity: Option<Granularity>,
) -> Result<layoutrand::relink::driver::BuildOutcome> {
    if args.extend {
        require_own_recording(args)?;
    }
    if let (Some(name), true) = (&args.variant, args.extend) {
        layoutrand::relink::variant::extend(opts, name, granularity)
    } else if let Some(name) = &args.variant {
        layoutrand::relink::variant::build(opts, name)
    } else if args.extend {
        layoutrand::relink::extend::extend(opts, granularity)
    } else {
        driver::build(opts)
    }
}

/// `--extend` relinks with the recorded tools, arguments, cwd and environment: only from a
/// recording of the user's own (see `layoutrand trust`).
fn require_own_recording(args: &Args) -> Result<()> {
    let uses = super::trust::Uses {
        manifest: true,
        links: true,
        ..Default::default()
    };
    super::trust::require_own(&args.out, "build --extend", uses, args.trust)?;
    if let Some(name) = &args.variant {
        let variant = layoutrand::relink::variant::dir_of(&args.out, name).context("--variant")?;
        super::trust::require_own(&variant, "build --extend", uses, args.trust)?;
    }
    Ok(())
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
    // The CPUs, within the bounds the flag's parser enforces.
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(layoutrand::flags::MAX_JOBS)
    });
    let granularity = args.granularity.map(Granularity::from);
    let opts = BuildOptions {
        command,
        build_dir: std::env::current_dir()?,
        out_dir: args.out.clone(),
        seeds: seeds(&args)?,
        granularity: granularity.unwrap_or(Granularity::Module),
        linker: args.linker.linker(),
        jobs,
        echo_build: !args.quiet,
        progress: layoutrand::progress::ProgressDisplay::for_stderr(),
        rebuild: args.rebuild,
        allow_many_seeds: args.allow_many_seeds,
        pad: args.pad,
        data_order: args.data_order,
        keep_debug: args.keep_debug,
        pin: args
            .pin
            .as_deref()
            .map(layoutrand::files::pin::PinFile::load)
            .transpose()?,
        programs: args.programs.clone(),
    };
    let outcome = build_or_extend(&args, &opts, granularity)?;
    for e in &outcome.shim_errors {
        layoutrand::diagnostic!(
            "layoutrand: warning: the shim passed a call through unrecorded: {e}"
        );
    }
    if let Some(name) = &args.variant {
        let all = layoutrand::files::manifest::Manifest::load(&args.out)?;
        let names: Vec<&str> = all.variants.iter().map(|v| v.name.as_str()).collect();
        layoutrand::outln!(
            "variant: {name} (built into {}; the variants of {} are {}, sharing their seeds)",
            args.out.join(name).display(),
            args.out.display(),
            names.join(", ")
        );
    }
    layoutrand::out!(
        "{}",
        layoutrand::printable::for_terminal(&summary::render(&outcome.manifest))
    );
    for line in layoutrand::report::words::build::notes(&outcome.notes) {
        layoutrand::outln!("{line}");
    }
    layoutrand::outln!(
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
