//! `layoutrand layout`: show a binary's function order and fingerprint, or the distances
//! between two binaries' layouts — the verification `build` runs on every seed, by hand.

use std::path::PathBuf;

use anyhow::{bail, Result};

use layoutrand::layout::shown::{DistanceReport, LayoutReport};
use layoutrand::report::export::layout_text::{render_distance, render_layout};

use super::common::OutputFormat as Format;

/// Arguments of `layoutrand layout`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One binary (show its function order), or two (show their distances; the first is
    /// the base). Binaries must keep their .symtab (not stripped).
    #[arg(required = true, num_args = 1..=2, value_name = "BINARY")]
    pub binaries: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Runs `layoutrand layout`.
pub fn run(args: Args) -> Result<i32> {
    let json = args.format == Format::Json;
    let text = match args.binaries.as_slice() {
        [binary] => {
            let report = LayoutReport::of(binary)?;
            if json {
                serde_json::to_string_pretty(&report)? + "\n"
            } else {
                render_layout(&report)
            }
        }
        [base, other] => {
            let report = DistanceReport::between(base, other)?;
            if json {
                serde_json::to_string_pretty(&report)? + "\n"
            } else {
                render_distance(&report)
            }
        }
        _ => bail!("give one binary or two"),
    };
    // Symbol names are the binary's bytes: a terminal escape in one is shown, not obeyed
    // (JSON escapes control characters itself).
    let text = match json {
        true => text,
        false => layoutrand::printable::for_terminal(&text).into_owned(),
    };
    layoutrand::out!("{text}");
    Ok(0)
}
