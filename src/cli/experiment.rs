//! `layoutrand experiment` (not yet implemented).

/// Arguments of `layoutrand experiment`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Everything after the subcommand (placeholder until the subcommand is implemented).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

/// Runs `layoutrand experiment`.
pub fn run(_args: Args) -> anyhow::Result<i32> {
    anyhow::bail!("`layoutrand experiment` is not implemented yet")
}
