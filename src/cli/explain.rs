//! `layoutrand explain DIR`: which hot function's placement goes with the layout effect.

use std::path::PathBuf;

use layoutrand::explain::{explain, ExplainOptions};
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
    /// The experiment directory (manifest.json and results.jsonl); explain writes only
    /// into its `explain/` sub-directory.
    #[arg(default_value = layoutrand::analysis::vocabulary::DEFAULT_DIR)]
    pub dir: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The program to explain [default: the first measured].
    #[arg(long)]
    pub program: Option<String>,
    /// False discovery rate of the screening (Benjamini–Hochberg), e.g. 5% or 0.05.
    #[arg(long, default_value = "5%", value_parser = layoutrand::analysis::vocabulary::share_arg)]
    pub fdr: f64,
    /// Random permutations per test (raised to 10 × tests / FDR when below).
    #[arg(long, default_value_t = 9999)]
    pub permutations: usize,
    /// Seed of the permutation tests.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The instruction cache of the set features, SIZE,ASSOC,LINE in bytes [default: the
    /// run's simulated I1, else 32768,8,64].
    #[arg(long, value_name = "SIZE,ASSOC,LINE")]
    pub icache: Option<String>,
    /// Confirm the strongest suspects (at most 3): relink seeds with only the suspect
    /// moved, run them against their controls, and give the causal ratio.
    #[arg(long)]
    pub confirm: bool,
    /// With --confirm: the number of seeds relinked per suspect (pairs measured).
    #[arg(long, default_value_t = 10)]
    pub confirm_seeds: usize,
    /// Write the answer to this file (atomically: a reader never sees half of it) instead
    /// of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Runs `layoutrand explain`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let cache = match &args.icache {
        Some(text) => {
            Some(layoutrand::files::cache_model::CacheModel::parse(&format!("I1={text}"))?.i1)
        }
        None => None,
    };
    let options = ExplainOptions {
        program: args.program.clone(),
        fdr: args.fdr,
        permutations: args.permutations,
        seed: args.seed,
        cache,
        confirm_seeds: if args.confirm { args.confirm_seeds } else { 0 },
    };
    let e = explain(&args.dir, &options)?;
    let text = match args.format {
        Format::Text => render::text(&e),
        Format::Json => render::json(&e)?,
        Format::Html => layoutrand::report::export::explain_html::html(&e),
    };
    match &args.output {
        Some(path) => layoutrand::files::write_atomically(path, text.as_bytes())?,
        None => super::common::write_stdout(&text)?,
    }
    Ok(0)
}
