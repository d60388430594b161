//! `layoutrand layout`: show a binary's function order and fingerprint, or the distances
//! between two binaries' layouts — the verification `build` runs on every seed, by hand.

use std::path::PathBuf;

use anyhow::{bail, Result};
use serde::Serialize;

use layoutrand::layout::{self, binary::Function, distance::Comparison};

/// Output formats of `layoutrand layout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Text,
    /// One JSON document for programs.
    Json,
}

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

/// Version of `layout --format json` (both forms); changes when a reader could misread it.
const LAYOUT_SCHEMA: u32 = layoutrand::analysis::vocabulary::OUTPUT_SCHEMA;

/// A binary's layout as printed in JSON.
#[derive(Debug, Serialize)]
struct LayoutReport<'a> {
    schema: u32,
    tool_version: &'static str,
    path: &'a std::path::Path,
    fingerprint: String,
    functions: &'a [Function],
}

/// Two binaries' distances as printed in JSON.
#[derive(Debug, Serialize)]
struct DistanceReport<'a> {
    schema: u32,
    tool_version: &'static str,
    base: &'a std::path::Path,
    other: &'a std::path::Path,
    base_fingerprint: String,
    other_fingerprint: String,
    #[serde(flatten)]
    comparison: Comparison,
}

/// Runs `layoutrand layout`.
pub fn run(args: Args) -> Result<i32> {
    match args.binaries.as_slice() {
        [binary] => show_one(binary, args.format),
        [base, other] => show_two(base, other, args.format),
        _ => bail!("give one binary or two"),
    }
}

fn show_one(path: &std::path::Path, format: Format) -> Result<i32> {
    let functions = layout::binary::functions(path)?;
    let fingerprint = layout::fingerprint(&functions);
    match format {
        Format::Json => {
            let report = LayoutReport {
                schema: LAYOUT_SCHEMA,
                tool_version: env!("CARGO_PKG_VERSION"),
                path,
                fingerprint,
                functions: &functions,
            };
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
        Format::Text => {
            println!("binary       {}", path.display());
            println!("fingerprint  {fingerprint}");
            println!("functions    {}", functions.len());
            println!();
            println!("{:<18}  {:>8}  name, demangled  (file)", "address", "size");
            for f in &functions {
                let file = f
                    .file
                    .as_deref()
                    .map(|s| format!("  ({s})"))
                    .unwrap_or_default();
                let name = layout::demangle::demangle(&f.name);
                println!("{:#018x}  {:>8}  {name}{file}", f.address, f.size);
            }
        }
    }
    Ok(0)
}

fn show_two(base: &std::path::Path, other: &std::path::Path, format: Format) -> Result<i32> {
    let base_functions = layout::binary::functions(base)?;
    let other_functions = layout::binary::functions(other)?;
    let comparison = layout::distance::compare(&base_functions, &other_functions);
    let report = DistanceReport {
        schema: LAYOUT_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        base,
        other,
        base_fingerprint: layout::fingerprint(&base_functions),
        other_fingerprint: layout::fingerprint(&other_functions),
        comparison,
    };
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Text => {
            let d = &report.comparison.distance;
            println!(
                "base                   {} ({})",
                base.display(),
                report.base_fingerprint
            );
            println!(
                "other                  {} ({})",
                other.display(),
                report.other_fingerprint
            );
            println!(
                "functions              {} common, {} only in base, {} only in other",
                report.comparison.common,
                report.comparison.only_in_base,
                report.comparison.only_in_other
            );
            println!("kendall_tau            {:.6}", d.kendall_tau);
            println!("share_moved            {:.6}", d.share_moved);
            println!("share_mod64_changed    {:.6}", d.share_mod64_changed);
            println!("share_mod4096_changed  {:.6}", d.share_mod4096_changed);
        }
    }
    Ok(0)
}
