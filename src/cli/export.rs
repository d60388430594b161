//! `layoutrand export`: write an experiment's measurements as CSV or JSON.

use std::path::PathBuf;

use layoutrand::run::export::{export_rows, write_rows, ExportFormat};
use layoutrand::run::store::read_results;

/// Arguments of `layoutrand export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment directory holding results.jsonl.
    #[arg(default_value = layoutrand::analysis::vocabulary::DEFAULT_DIR)]
    pub dir: PathBuf,
    /// csv (program,binary,execution,iteration,value) or json.
    #[arg(long, default_value = "csv")]
    pub format: String,
    /// Metric to export (e.g. wall, cpu, max_rss, reported, Ir, estimated_cycles) [default: the
    /// run's --metric].
    #[arg(long)]
    pub metric: Option<String>,
    /// Also export warmup iterations (CSV gains a `warmup` column).
    #[arg(long)]
    pub include_warmup: bool,
    /// Write to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Runs `layoutrand export`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let format = match args.format.as_str() {
        "csv" => ExportFormat::Csv,
        "json" => ExportFormat::Json,
        other => anyhow::bail!("--format {other:?}: expected csv or json"),
    };
    let results = read_results(&args.dir)?;
    for w in &results.warnings {
        eprintln!("layoutrand: warning: {w}");
    }
    let rows = export_rows(&results, args.metric.as_deref(), args.include_warmup)?;
    match &args.output {
        Some(path) => {
            let mut buf = Vec::new();
            write_rows(&rows, format, args.include_warmup, &mut buf)?;
            layoutrand::files::write_atomically(path, &buf)?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            write_rows(&rows, format, args.include_warmup, &mut lock)?;
        }
    }
    Ok(0)
}
