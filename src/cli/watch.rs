//! `layoutrand watch BASE HEAD`: is the head slower than the base, whatever the layout? The
//! pull-request check (docs/ci.md).

use std::path::PathBuf;

use anyhow::Result;
use layoutrand::experiment::{run_watch, WatchRequest};
use layoutrand::files::cache_model::CacheModel;
use layoutrand::flags::build::{GranularityArg, LinkerArg};
use layoutrand::report::watch::WatchFormat;

/// The design docs/gate.md certifies: 30 seeds × 5 executions, threshold 0 % with a
/// confirmation round.
const DEFAULT_SEEDS: u32 = 30;
const DEFAULT_EXECUTIONS: u32 = 5;

/// Arguments of `layoutrand watch`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The base revision (a branch, tag, hash, `HEAD~1`) of the git repository of the
    /// current directory.
    pub base: String,
    /// The head revision, judged against the base.
    pub head: String,
    /// Build command, a shell script run with `sh -c` in each revision's worktree, in the
    /// directory that corresponds to the current one (e.g. "make -j2").
    #[arg(long = "build-cmd", value_name = "SCRIPT")]
    pub build_cmd: String,
    /// Output directory: the worktrees while it runs, each round's experiment, watch.json.
    #[arg(long, default_value = "layoutrand-out/watch")]
    pub out: PathBuf,
    /// Random layouts per revision (the same seeds for both) [default: 30].
    #[arg(long)]
    pub seeds: Option<u32>,
    #[command(flatten)]
    pub design: super::common::DesignArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// Fail when the whole interval says the head is slower than the base by more than this
    /// (`0`, `0.5%`, `0.005`) [default: 0; 0.1% with --metric cachegrind, whose counts move
    /// by parts per million between executions: docs/gate.md measured 4 false alerts in 100
    /// real A/A comparisons at 0, none at 0.5%].
    #[arg(long = "fail-if-slower", value_name = "PCT",
          value_parser = layoutrand::flags::share_arg, allow_hyphen_values = true)]
    pub fail_if_slower: Option<f64>,
    /// Fail on the first round's failure, without the confirmation round that docs/gate.md
    /// measured (more false alerts).
    #[arg(long = "no-confirmation")]
    pub no_confirmation: bool,
    /// What to randomise (as `build --granularity`).
    #[arg(long, value_enum)]
    pub granularity: Option<GranularityArg>,
    /// Linker for the relinks (as `build --linker`).
    #[arg(long, value_enum)]
    pub linker: Option<LinkerArg>,
    /// A pin file (`layoutrand pin`) both revisions are built with (as `build --pin`).
    #[arg(long, value_name = "FILE")]
    pub pin: Option<PathBuf>,
    #[command(flatten)]
    pub programs: layoutrand::flags::MeasuredProgramsArgs,
    /// With --metric cachegrind: the caches to simulate (as `run --cache-sim`).
    #[arg(long = "cache-sim", value_name = "MODEL", value_parser = layoutrand::flags::run::cache_sim_arg)]
    pub cache_sim: Option<CacheModel>,
    /// Standard output: the summary (text), a table for a pull request's comment
    /// (markdown), or OUT/watch.json (json).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,
    /// The benchmark command, after `--`, with {bin} where the binary goes; it runs in the
    /// head's worktree.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// `--format`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum FormatArg {
    /// The summary in lines, the verdict first.
    Text,
    /// A Markdown table (a pull request's comment, a CI job's summary).
    Markdown,
    /// OUT/watch.json as it is (docs/schemas/watch.schema.json).
    Json,
}

/// `--fail-if-slower`'s default under cachegrind (a share): far above the parts per million
/// its counts move between executions of one binary, far below a change worth gating.
const CACHEGRIND_THRESHOLD: f64 = 0.001;

/// `--fail-if-slower` as given, else its default for the metric.
fn threshold(args: &Args) -> f64 {
    let cachegrind = args
        .design
        .metric
        .as_deref()
        .is_some_and(layoutrand::files::metric::is_cachegrind_spec);
    args.fail_if_slower.unwrap_or(if cachegrind {
        CACHEGRIND_THRESHOLD
    } else {
        0.0
    })
}

/// Runs `layoutrand watch`.
pub fn run(args: Args) -> Result<i32> {
    let fail_if_slower = threshold(&args);
    let mut design = args.design;
    design.executions = Some(design.executions.unwrap_or(DEFAULT_EXECUTIONS));
    design.metric = Some(design.metric.unwrap_or_else(|| "wall".into()));
    let request = WatchRequest {
        base: args.base,
        head: args.head,
        build_command: args.build_cmd,
        run_command: args.command,
        out: args.out,
        seeds: args.seeds.unwrap_or(DEFAULT_SEEDS),
        design,
        limits: args.limits,
        fail_if_slower,
        confirmation: !args.no_confirmation,
        build: layoutrand::experiment::config::BuildConfig {
            granularity: args.granularity,
            linker: args.linker,
            pin: args.pin,
            ..Default::default()
        },
        programs: args.programs.programs,
        cache_sim: args.cache_sim,
        format: match args.format {
            FormatArg::Text => WatchFormat::Text,
            FormatArg::Markdown => WatchFormat::Markdown,
            FormatArg::Json => WatchFormat::Json,
        },
    };
    run_watch(&request).or_else(|err| super::common::exit_if_interrupted(err, "layoutrand watch"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Watch {
        #[command(flatten)]
        args: Args,
    }

    fn parsed(flags: &[&str]) -> Args {
        let argv = [
            &["watch", "main", "HEAD", "--build-cmd", "make"],
            flags,
            &["--", "{bin}"],
        ]
        .concat();
        Watch::parse_from(argv).args
    }

    /// The threshold: 0 by time, 0.1 % under cachegrind, what is given otherwise.
    #[test]
    fn the_default_threshold_follows_the_metric() {
        assert_eq!(threshold(&parsed(&[])), 0.0);
        assert_eq!(threshold(&parsed(&["--metric", "cachegrind"])), 0.001);
        let zero = parsed(&["--metric", "cachegrind", "--fail-if-slower", "0"]);
        assert_eq!(threshold(&zero), 0.0);
        assert_eq!(threshold(&parsed(&["--fail-if-slower", "2%"])), 0.02);
    }
}
