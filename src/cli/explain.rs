//! `layoutrand explain DIR`: which hot function's placement goes with the layout effect.

use std::path::PathBuf;

use layoutrand::explain::{explain, variants_asked, Answer, ExplainOptions};
use layoutrand::report::export::explain as render;

/// `explain --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text for people.
    Text,
    /// One JSON object (docs/explain.md).
    Json,
    /// One self-contained HTML page with a plot per culprit.
    Html,
}

/// Arguments of `layoutrand explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The program to explain [default: the first measured].
    #[arg(long)]
    pub program: Option<String>,
    /// The recorded metric to explain: a name in the store (e.g. `I1_misses` of a
    /// cachegrind run) [default: the one asked of `run`].
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,
    /// In an experiment with variants: explain only this variant [default: each variant,
    /// each on its own binaries].
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,
    /// `--confidence` and `--negligible` of the confirmation's verdict (as `report`'s).
    #[command(flatten)]
    pub verdict: super::common::VerdictArgs,
    /// False discovery rate of the screening (Benjamini–Hochberg), e.g. 5% or 0.05.
    #[arg(long, default_value = "5%", value_parser = layoutrand::flags::share_arg)]
    pub fdr: f64,
    /// Random permutations per test (raised to 10 × tests / FDR when below).
    #[arg(long, default_value_t = 9999)]
    pub permutations: usize,
    /// Seed of the permutation tests [default: 1]. Not the layout seeds of `build
    /// --seed-base`, nor the bootstrap's `--bootstrap-seed`.
    #[arg(long = "permutation-seed", value_name = "S")]
    pub permutation_seed: Option<u64>,
    /// Deprecated spelling of --permutation-seed (warns on stderr).
    #[arg(long = "seed", hide = true, conflicts_with = "permutation_seed")]
    pub seed: Option<u64>,
    /// The instruction cache of the set features, SIZE,ASSOC,LINE in bytes [default: the
    /// run's simulated I1; for a timed run, the L1 instruction cache its machine recorded;
    /// else 32768,8,64].
    #[arg(long, value_name = "SIZE,ASSOC,LINE")]
    pub icache: Option<String>,
    /// Confirm the strongest suspects (at most 3): relink seeds with only the suspect
    /// moved, run them against their controls, and give the causal ratio.
    #[arg(long)]
    pub confirm: bool,
    /// With --confirm: the number of seeds relinked per suspect (pairs measured).
    #[arg(long, default_value_t = 10)]
    pub confirm_seeds: usize,
    /// Run the profile (the run's command under cachegrind) and, with --confirm, relink
    /// from a directory that is not your own (received, edited, or written before
    /// layoutrand signed its directories), and adopt it; see `layoutrand trust`.
    #[arg(long)]
    pub trust: bool,
    /// Write the answer to this file (atomically: a reader never sees half of it) instead
    /// of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// The permutation tests' seed, by either spelling (warning on the deprecated one).
fn permutation_seed(args: &Args) -> u64 {
    super::common::seed_by_either_spelling(args.permutation_seed, args.seed, "--permutation-seed")
}

/// The hotness profile runs the store header's command (in its cwd, with its environment);
/// --confirm also relinks from the recording: the experiment's, or each explained
/// variant's in `DIR/NAME` (as `build --variant NAME --extend` checks it).
fn require_own(args: &Args) -> anyhow::Result<()> {
    let dir = args.dir.path();
    let what = if args.confirm {
        "explain --confirm"
    } else {
        "explain (its profile runs the run's command)"
    };
    let uses = super::trust::Uses {
        manifest: args.confirm,
        header: true,
        links: args.confirm,
        plan: false,
    };
    super::trust::require_own(&dir, what, uses, args.trust)?;
    if !args.confirm {
        return Ok(());
    }
    let manifest = match layoutrand::files::manifest::Manifest::load(&dir) {
        Ok(m) => m,
        // explain itself says what is missing.
        Err(_) => return Ok(()),
    };
    let recording = super::trust::Uses {
        manifest: true,
        links: true,
        ..Default::default()
    };
    for name in variants_asked(&manifest, args.variant.as_deref())? {
        let variant = layoutrand::relink::variant::dir_of(&dir, name)?;
        super::trust::require_own(&variant, what, recording, args.trust)?;
    }
    Ok(())
}

/// Runs `layoutrand explain`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let cache = match &args.icache {
        Some(text) => Some(
            layoutrand::files::cache_model::CacheModel::parse(&format!("I1={text}"))
                .map_err(|e| anyhow::anyhow!("--icache {text:?}: {e:#}"))?
                .i1,
        ),
        None => None,
    };
    let options = ExplainOptions {
        program: args.program.clone(),
        metric: args.metric.clone(),
        variant: args.variant.clone(),
        thresholds: args.verdict.thresholds()?,
        progress: true,
        fdr: args.fdr,
        permutations: args.permutations,
        seed: permutation_seed(&args),
        cache,
        confirm_seeds: if args.confirm { args.confirm_seeds } else { 0 },
    };
    require_own(&args)?;
    let text = match explain(&args.dir.path(), &options)? {
        Answer::One(e) => match args.format {
            Format::Text => render::text(&e),
            Format::Json => render::json(&e)?,
            Format::Html => layoutrand::report::export::explain_html::html(&e),
        },
        Answer::Variants(v) => match args.format {
            Format::Text => render::variants_text(&v),
            Format::Json => render::variants_json(&v)?,
            Format::Html => layoutrand::report::export::explain_html::variants_html(&v),
        },
    };
    let text = match args.format {
        Format::Json => text,
        Format::Text | Format::Html => layoutrand::printable::for_terminal(&text).into_owned(),
    };
    match &args.output {
        Some(path) => {
            layoutrand::files::output::write_output(path, &args.dir.path(), text.as_bytes())?
        }
        None => super::common::write_stdout(&text)?,
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Explain {
        #[command(flatten)]
        args: Args,
    }

    fn seed_of(argv: &[&str]) -> u64 {
        let parsed =
            Explain::try_parse_from(std::iter::once("explain").chain(argv.iter().copied()));
        permutation_seed(&parsed.unwrap_or_else(|e| panic!("{argv:?}: {e}")).args)
    }

    /// `--permutation-seed` names the permutation tests' seed; `--seed`, its old spelling,
    /// still means it; both at once are refused.
    #[test]
    fn the_permutation_seed_by_its_name_and_its_old_spelling() {
        assert_eq!(seed_of(&[]), 1);
        assert_eq!(seed_of(&["--permutation-seed", "7"]), 7);
        assert_eq!(seed_of(&["--seed", "8"]), 8);
        assert!(
            Explain::try_parse_from(["explain", "--seed", "1", "--permutation-seed", "2"]).is_err()
        );
    }
}
