//! The flags of `layoutrand build`, parsed by the command line and written back as argv by
//! the experiment pipeline's build stage.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Argv;
use crate::files::manifest::Granularity;
use crate::relink::linker::Linker;

/// Arguments of `layoutrand build`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct BuildArgs {
    /// Number of seeds (randomised binaries) to build besides the baseline [default: 10; with
    /// --variant, the seeds of the variants already built].
    #[cfg_attr(feature = "cli", arg(long))]
    pub seeds: Option<u64>,
    /// First seed; the seeds are S, S+1, ..., S+N-1 [default: 1].
    #[cfg_attr(feature = "cli", arg(long))]
    pub seed_base: Option<u64>,
    /// Build this variant (a version of the program: other flags, compiler or sources) of an
    /// experiment comparing several, into OUT/NAME; the variants share their seeds (with
    /// --extend: add seeds to that variant, each variant in turn, to keep them paired).
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub variant: Option<String>,
    /// Output directory (binaries and manifest.json).
    #[cfg_attr(feature = "cli", arg(long, default_value = crate::files::DEFAULT_DIR))]
    pub out: PathBuf,
    /// What to randomise: link order, plus function order within modules, or one global
    /// function order; `none` keeps the build's order and varies only the padding (needs
    /// --pad) [default: module; with --extend, the recorded one].
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub granularity: Option<GranularityArg>,
    /// Linker for the relinks (`auto`: the one each link of the build used).
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = LinkerArg::Auto))]
    pub linker: LinkerArg,
    /// Relinks at once (each a thread; 1 to 1024) [default: the number of CPUs].
    #[cfg_attr(feature = "cli", arg(long, value_parser = super::jobs_arg))]
    pub jobs: Option<usize>,
    /// Build each seed by a full rebuild in a copy of the tree (for builds whose links cannot
    /// be replayed).
    #[cfg_attr(feature = "cli", arg(long))]
    pub rebuild: bool,
    /// Add seeds to the build already in --out, relinked from its recording (the build
    /// command is not run again and may be left out; the baseline and the seeds already built
    /// stay as they are). `--seeds N` is then the total number of seeds wanted.
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "rebuild"))]
    pub extend: bool,
    /// With --extend: relink from a recording that is not this user's own (received, edited,
    /// or written before layoutrand signed its directories), and adopt it; see `layoutrand
    /// trust`.
    #[cfg_attr(feature = "cli", arg(long, requires = "extend"))]
    pub trust: bool,
    /// Put a seeded amount of filler, 0 to MAX bytes (a multiple of each function's
    /// alignment), before every function of each seed, so the seeds also sample cache-line
    /// and page offsets [default: 0, none; at most 4096; not with --granularity link;
    /// required with --granularity none].
    #[cfg_attr(feature = "cli", arg(long, value_name = "MAX", value_parser = pad_arg, allow_negative_numbers = true))]
    pub pad: Option<u64>,
    /// Also permute each seed's static data (`.data`, `.rodata`, `.bss`, `.data.rel.ro`,
    /// `.tdata`, `.tbss` input sections, one per object with -fdata-sections, which the
    /// shim adds to compiles) from a stream of its own, so a seed's code order is the same
    /// with and without it [default: off; with --extend, the recorded setting].
    #[cfg_attr(feature = "cli", arg(long))]
    pub data_order: bool,
    /// Keep the debug information (the `.debug_*` sections of a build with -g) in the
    /// relinked binaries. Without it the relinks are linked with --strip-debug: the debug
    /// information is not loaded when the program runs, the code and data are laid out the
    /// same without it, and linking it is a quarter to a third of each relink's time; the
    /// symbol table is kept either way, so profilers still name the functions [default: left
    /// out; with --extend, the recorded setting].
    #[cfg_attr(feature = "cli", arg(long))]
    pub keep_debug: bool,
    /// Pin the functions of the programs a pin file names (made by `layoutrand pin`): each
    /// seed keeps its random layout but starts each pinned function at the pin's offset
    /// modulo the instruction cache's set period, in lines of its own [default: none; with
    /// --extend, the recorded pin; not with --granularity link or --rebuild].
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub pin: Option<PathBuf>,
    /// Relink only these recorded programs (names as in the manifest), comma-separated;
    /// `all`: every program the build linked [default: every program and library but the
    /// build's own tools (cargo build scripts, Rust proc macros) and, when it linked other
    /// programs too, its test programs (by name: `*_test`, `test_*`, ...)].
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ','))]
    pub programs: Option<Vec<String>>,
    /// Allow more than 1000 seeds (the build prints the projected time and disk first).
    #[cfg_attr(feature = "cli", arg(long))]
    pub allow_many_seeds: bool,
    /// Do not show the build command's output.
    #[cfg_attr(feature = "cli", arg(long, short))]
    pub quiet: bool,
    /// The build command, after `--` (e.g. `-- make -j2`); with --extend, the recorded one
    /// when left out.
    #[cfg_attr(
        feature = "cli",
        arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            required_unless_present = "extend"
        )
    )]
    pub command: Vec<String>,
}

impl Default for BuildArgs {
    /// What `layoutrand build` with no flags means (the command left empty).
    fn default() -> Self {
        BuildArgs {
            seeds: None,
            seed_base: None,
            variant: None,
            out: PathBuf::from(crate::files::DEFAULT_DIR),
            granularity: None,
            linker: LinkerArg::Auto,
            jobs: None,
            rebuild: false,
            extend: false,
            trust: false,
            pad: None,
            data_order: false,
            keep_debug: false,
            pin: None,
            programs: None,
            allow_many_seeds: false,
            quiet: false,
            command: Vec::new(),
        }
    }
}

impl BuildArgs {
    /// The subcommand that parses these arguments.
    pub(crate) const SUBCOMMAND: &'static str = "build";

    /// `build ARGS...`: the argv that `layoutrand` parses back into `self` (every field is
    /// destructured, so a new flag does not compile until it is written here too).
    pub fn to_argv(&self) -> Vec<OsString> {
        let BuildArgs {
            seeds,
            seed_base,
            variant,
            out,
            granularity,
            linker,
            jobs,
            rebuild,
            extend,
            trust,
            pad,
            data_order,
            keep_debug,
            pin,
            programs,
            allow_many_seeds,
            quiet,
            command,
        } = self;
        let mut argv = Argv::default();
        argv.0.push(Self::SUBCOMMAND.into());
        argv.value("--seeds", seeds);
        argv.value("--seed-base", seed_base);
        argv.value("--variant", variant);
        argv.path("--out", out);
        argv.choice("--granularity", *granularity);
        argv.choice("--linker", Some(*linker));
        argv.value("--jobs", jobs);
        argv.flag("--rebuild", *rebuild);
        argv.flag("--extend", *extend);
        argv.flag("--trust", *trust);
        argv.value("--pad", pad);
        argv.flag("--data-order", *data_order);
        argv.flag("--keep-debug", *keep_debug);
        if let Some(pin) = pin {
            argv.path("--pin", pin);
        }
        argv.list("--programs", programs);
        argv.flag("--allow-many-seeds", *allow_many_seeds);
        argv.flag("--quiet", *quiet);
        argv.trailing(command);
        argv.0
    }
}

/// The parser of `--pad MAX`: bytes, at most [`crate::relink::driver::MAX_PAD`].
// A clap value parser: only the command line (the `cli` feature) calls it.
#[cfg(feature = "cli")]
pub(crate) fn pad_arg(text: &str) -> anyhow::Result<u64> {
    let bytes = crate::units::parse_bytes(text)?;
    if bytes > crate::relink::driver::MAX_PAD {
        anyhow::bail!(
            "{bytes} bytes is more than {} (a page)",
            crate::relink::driver::MAX_PAD
        );
    }
    Ok(bytes)
}

/// `--granularity` values, and `[build] granularity` of an experiment file (same spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum GranularityArg {
    /// Permute objects and archive members.
    Link,
    /// Link order plus a random function order inside each module.
    Module,
    /// All functions in one random order.
    Global,
    /// Nothing reordered: the build's order kept, only the padding (--pad) varies.
    None,
}

impl From<GranularityArg> for Granularity {
    fn from(g: GranularityArg) -> Granularity {
        match g {
            GranularityArg::Link => Granularity::Link,
            GranularityArg::Module => Granularity::Module,
            GranularityArg::Global => Granularity::Global,
            GranularityArg::None => Granularity::None,
        }
    }
}

/// `--linker` values, and `[build] linker` of an experiment file (same spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum LinkerArg {
    /// The linker the recorded build used.
    Auto,
    /// GNU ld.
    Bfd,
    /// GNU gold.
    Gold,
    /// LLVM lld.
    Lld,
    /// mold.
    Mold,
}

impl LinkerArg {
    /// The linker to force, or `None` for `auto`.
    pub fn linker(self) -> Option<Linker> {
        match self {
            LinkerArg::Auto => None,
            LinkerArg::Bfd => Some(Linker::Bfd),
            LinkerArg::Gold => Some(Linker::Gold),
            LinkerArg::Lld => Some(Linker::Lld),
            LinkerArg::Mold => Some(Linker::Mold),
        }
    }
}

/// Round trips through clap's parser, so only with the command line (feature `cli`).
#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;
    use clap::Parser;

    /// The subcommand as the command line declares it (`Command::Build(BuildArgs)`).
    #[derive(Debug, Parser)]
    enum Stage {
        Build(BuildArgs),
    }

    fn round_trip(args: &BuildArgs) -> BuildArgs {
        let argv = std::iter::once(OsString::from("layoutrand")).chain(args.to_argv());
        match Stage::try_parse_from(argv) {
            Ok(Stage::Build(parsed)) => parsed,
            Err(e) => panic!("{:?} does not parse back: {e}", args.to_argv()),
        }
    }

    #[test]
    fn build_args_survive_to_argv_and_back() {
        let everything = BuildArgs {
            seeds: Some(12),
            seed_base: Some(7),
            variant: Some("o3".into()),
            out: PathBuf::from("/tmp/x y"),
            granularity: Some(GranularityArg::Global),
            linker: LinkerArg::Lld,
            jobs: Some(3),
            rebuild: true,
            extend: false,
            trust: false,
            pad: Some(256),
            data_order: true,
            keep_debug: true,
            pin: Some(PathBuf::from("pin file.json")),
            programs: Some(vec!["a".into(), "b".into()]),
            allow_many_seeds: true,
            quiet: true,
            command: vec![
                "make".into(),
                "-j2".into(),
                "--".into(),
                "CFLAGS=-O3".into(),
            ],
        };
        assert_eq!(round_trip(&everything), everything);
        let extend = BuildArgs {
            extend: true,
            trust: true,
            seeds: Some(20),
            granularity: Some(GranularityArg::None),
            ..BuildArgs::default()
        };
        assert_eq!(round_trip(&extend), extend);
        let plain = BuildArgs {
            command: vec!["make".into()],
            ..BuildArgs::default()
        };
        assert_eq!(round_trip(&plain), plain);
    }

    #[test]
    fn enum_spellings_are_the_same_in_toml_and_on_the_command_line() {
        use clap::ValueEnum;
        for g in GranularityArg::value_variants() {
            let cli = g.to_possible_value().unwrap().get_name().to_string();
            let toml_value: GranularityArg =
                serde_json::from_value(serde_json::Value::String(cli.clone())).unwrap();
            assert_eq!(toml_value, *g, "{cli}");
        }
        for l in LinkerArg::value_variants() {
            let cli = l.to_possible_value().unwrap().get_name().to_string();
            let toml_value: LinkerArg =
                serde_json::from_value(serde_json::Value::String(cli.clone())).unwrap();
            assert_eq!(toml_value, *l, "{cli}");
        }
    }
}
