//! `layoutrand export`: write an experiment's measurements as CSV or JSON.

use std::path::PathBuf;

use layoutrand::run::export::{export_store, ExportFormat};

/// Arguments of `layoutrand export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
    /// csv (program,[variant,]binary,layout,execution,iteration,value[,warmup][,machine]) or
    /// json; `machine` (the Slurm node) only when the store records one per execution.
    #[arg(long, default_value_t = ExportFormat::Csv, value_parser = parse_format)]
    pub format: ExportFormat,
    /// Recorded metric to export: a name in the store (e.g. wall, cpu, max_rss, reported, Ir,
    /// estimated_cycles), not a `run --metric` spec [default: the one `run --metric` asked
    /// for].
    #[arg(long)]
    pub metric: Option<String>,
    /// Also export warmup iterations (CSV gains a `warmup` column).
    #[arg(long)]
    pub include_warmup: bool,
    /// Write to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// `--format`: the library's [`ExportFormat`] names (the library does not depend on clap).
fn parse_format(text: &str) -> Result<ExportFormat, String> {
    text.parse().map_err(|e| format!("{e}"))
}

/// Runs `layoutrand export`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let export = |out: &mut dyn std::io::Write| {
        export_store(
            &args.dir.path(),
            args.metric.as_deref(),
            args.include_warmup,
            args.format,
            out,
        )
    };
    let warnings = match &args.output {
        Some(path) => {
            let mut warnings = Vec::new();
            layoutrand::files::output::write_output_with(path, &args.dir.path(), |out| {
                warnings = export(out)?;
                Ok(())
            })?;
            warnings
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let warnings = export(&mut out)?;
            std::io::Write::flush(&mut out)
                .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))?;
            warnings
        }
    };
    for w in &warnings {
        layoutrand::diagnostic!("layoutrand: warning: {w}");
    }
    Ok(0)
}
