//! `layoutrand pin DIR`: a pin file from an experiment and its explain answer.

use std::path::PathBuf;

use super::common::OutputFormat as Format;

/// Arguments of `layoutrand pin`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
    /// Where to write the pin file [default: DIR/pin.json].
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format of what was pinned.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Runs `layoutrand pin`.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let dir = args.dir.path();
    let output = args.output.unwrap_or_else(|| dir.join("pin.json"));
    let answer = layoutrand::pin::pin(&dir, &output)?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&answer)? + "\n",
        Format::Text => {
            layoutrand::printable::for_terminal(&layoutrand::report::pin::render(&answer))
                .into_owned()
        }
    };
    layoutrand::out!("{text}");
    Ok(0)
}
