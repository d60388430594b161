//! `layoutrand generate`: the man pages, shell completions and JSON Schemas, made from the same clap
//! definitions that parse the command line (ripgrep's `--generate`), so they cannot drift from
//! the flags. `scripts/install.sh` runs it after `cargo install`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::CommandFactory;

/// Arguments of `layoutrand generate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// What to generate.
#[derive(Debug, clap::Subcommand)]
pub enum What {
    /// Man pages: layoutrand.1 and one layoutrand-COMMAND.1 per command, written into DIR.
    Man {
        /// The directory to write them into (e.g. ~/.local/share/man/man1); created if missing.
        dir: PathBuf,
    },
    /// The JSON Schema of every JSON output and file: one NAME.schema.json per output,
    /// written into DIR (docs/schemas/ holds them).
    Schemas {
        /// The directory to write them into; created if missing.
        dir: PathBuf,
    },
    /// A shell completion script, on standard output.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// Runs `layoutrand generate`.
pub fn run(args: Args) -> Result<i32> {
    match args.what {
        What::Man { dir } => {
            let written = write_man_pages(&dir)?;
            layoutrand::diagnostic!(
                "layoutrand generate: {} man page(s) written into {}",
                written.len(),
                dir.display()
            );
            Ok(0)
        }
        What::Schemas { dir } => {
            let written = write_schemas(&dir)?;
            layoutrand::diagnostic!(
                "layoutrand generate: {} JSON Schema(s) written into {}",
                written.len(),
                dir.display()
            );
            Ok(0)
        }
        What::Completions { shell } => {
            let mut command = super::Cli::command();
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command, "layoutrand", &mut out);
            use std::io::Write;
            std::io::stdout()
                .lock()
                .write_all(&out)
                .context("cannot write the completion script to standard output")?;
            Ok(0)
        }
    }
}

/// Writes `layoutrand.1` and a page per visible subcommand (`layoutrand-build.1`, …) into
/// `dir`; returns the paths written.
pub fn write_man_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    layoutrand::files::confined::ExperimentDir::create(dir)?;
    let mut command = super::Cli::command();
    command.build();
    let mut written = Vec::new();
    let mut page = |command: &clap::Command, name: &str| -> Result<()> {
        let mut roff = Vec::new();
        clap_mangen::Man::new(command.clone())
            .title(name.to_uppercase())
            .render(&mut roff)?;
        let path = dir.join(format!("{name}.1"));
        layoutrand::files::atomic::write_atomically(&path, &roff)?;
        written.push(path);
        Ok(())
    };
    page(&command, "layoutrand")?;
    for sub in documented(&command) {
        let name = format!("layoutrand-{}", sub.get_name());
        let sub = sub.clone().display_name(name.clone());
        page(&sub, &name)?;
    }
    Ok(written)
}

/// Writes `NAME.schema.json` for every output of [`super::schemas::all`] into `dir`; returns
/// the paths written.
pub fn write_schemas(dir: &Path) -> Result<Vec<PathBuf>> {
    layoutrand::files::confined::ExperimentDir::create(dir)?;
    let mut written = Vec::new();
    for output in super::schemas::all() {
        let path = dir.join(format!("{}.schema.json", output.name));
        let text = serde_json::to_string_pretty(&output.schema)? + "\n";
        layoutrand::files::atomic::write_atomically(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// The subcommands that get a man page: the visible ones, less clap's own `help`.
pub fn documented(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}
