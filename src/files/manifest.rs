//! `DIR/manifest.json`: what `layoutrand build` produced, read by `run` and `report`.
//!
//! The schema is documented in `docs/formats.md`; change it only additively, and bump
//! [`MANIFEST_SCHEMA`] when a reader could misread an old file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::layout::distance::LayoutDistance;
use crate::layout::offsets::OffsetSpread;
use crate::layout::same_code::CodeCheck;

/// Version of the manifest format written by this build of the tool.
pub const MANIFEST_SCHEMA: u32 = 1;

/// File name of the manifest inside an output directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// How the seeds' binaries were produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BuildMode {
    /// One recorded build, then each seed relinked from the recorded objects.
    Relink,
    /// One full build per seed in a separate copy of the source tree.
    Rebuild,
}

/// What is randomised (Kalibera & Jones 2013 §8: link order, or function order within or
/// across modules; or, as lld's `--randomize-section-padding`, only the padding in front of
/// functions, the build's order kept).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    /// Object files on the link line and members of each static archive are permuted.
    Link,
    /// `Link`, plus a random function order inside each object file (module).
    #[default]
    Module,
    /// All functions of the program in one random order (as under LTO).
    Global,
    /// Nothing reordered: the build's link and function order kept, only the seeded padding
    /// of `build --pad` (required) varies. The estimand is the program as shipped with its
    /// functions' addresses jittered, not any layout its code could have.
    None,
}

impl Granularity {
    /// The name as `--granularity` takes it and the manifest stores it (`"module"`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Granularity::Link => "link",
            Granularity::Module => "module",
            Granularity::Global => "global",
            Granularity::None => "none",
        }
    }

    /// The estimand in words, as reports name it: `"module granularity"`, or for
    /// [`Granularity::None`] `"padding only, order kept"`.
    pub(crate) fn estimand(self) -> &'static str {
        match self {
            Granularity::Link => "link granularity",
            Granularity::Module => "module granularity",
            Granularity::Global => "global granularity",
            Granularity::None => "padding only, order kept",
        }
    }
}

/// The whole manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Manifest {
    /// [`MANIFEST_SCHEMA`] of the writer.
    pub schema: u32,
    /// `layoutrand` version that wrote the file.
    pub tool_version: String,
    /// First line of `--version` of each tool used (cc, ld, ...), by tool name.
    pub toolchain: BTreeMap<String, String>,
    /// The build command as given after `--`.
    pub build_command: Vec<String>,
    /// Directory the build command ran in.
    pub build_dir: PathBuf,
    /// Relink or rebuild.
    pub mode: BuildMode,
    /// What was randomised.
    pub granularity: Granularity,
    /// `build --pad MAX`: the most filler bytes a seed puts in front of each function
    /// (0: none, and in manifests written before padding existed).
    #[serde(default)]
    pub pad: u64,
    /// `build --data-order`: each seed also permutes the program's static data sections
    /// (absent, i.e. false: only code moves, as in manifests written before it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub data_order: bool,
    /// The relinks were linked without their debug information (`--strip-debug`; `build`
    /// without `--keep-debug`). Absent, i.e. false: kept, as in manifests written before
    /// it, and by `--rebuild`, whose builds are the build's own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strip_debug: bool,
    /// `build --pin FILE`: the pin every seed of the programs it names was placed by
    /// (`None`: no pin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<crate::files::pin::PinFile>,
    /// Linker used for the relinks: `bfd`, `gold`, `lld`, `mold` (or `mixed`).
    pub linker: String,
    /// How the programs were relinked: each distinct mechanism and linker (the summary says
    /// them in words). Empty in older manifests, which stored [`Manifest::recorded_mechanism`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mechanisms: Vec<Relinking>,
    /// What manifests written before [`Manifest::mechanisms`] stored instead: the mechanism
    /// in words. Read, never written.
    #[serde(default, rename = "mechanism", skip_serializing)]
    #[schemars(skip)]
    pub recorded_mechanism: Option<String>,
    /// Wall time of the recorded (plain) build, in seconds.
    pub recorded_build_seconds: f64,
    /// Wall time of all relinks (baseline and seeds), in seconds.
    pub relink_seconds: f64,
    /// Wall time of the whole `build`, in seconds, from its start to the manifest written:
    /// the recorded build, the relinks and every other step (clearing the output directory,
    /// checking the seeds' layouts, writing the manifest), so that the summary's time line
    /// accounts for all of it. Absent in older manifests, for `--rebuild`, and after
    /// `--extend` (whose own relinks are added to `relink_seconds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_seconds: Option<f64>,
    /// The default-layout build made from the same recording.
    pub baseline: BinarySet,
    /// One entry per seed, in seed order.
    pub seeds: Vec<BinarySet>,
    /// A copy of each program's binary as the user's build made it (kind
    /// [`SetKind::AsBuilt`], label `as-built`): a fixed layout measured beside the baseline,
    /// never one of the random layouts (under `--rebuild`, what the baseline build's links
    /// wrote before their live relinks). Absent in manifests written before it (and in
    /// `--rebuild` manifests before it was kept there too), and when a program's own binary
    /// was gone or unreadable after the build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_built: Option<BinarySet>,
    /// Per program (in name order): whether it is randomised or left out, how many distinct
    /// layouts its seeds have, which seeds coincide, and what moved. Empty in manifests
    /// written before it existed, and in a build interrupted before its seeds were checked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<ProgramSummary>,
    /// The variants of the program built with `build --variant NAME`, in build order; empty
    /// for a build without variants. Each is a whole build of its own, in `DIR/NAME/`, with
    /// every path relative to `DIR`; all share the seeds of the first. The fields above
    /// then repeat the first variant's, so a reader of one variant reads the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantBuild>,
}

/// One variant (a version of the program: other flags, compiler or sources) of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VariantBuild {
    /// The name given to `build --variant`.
    pub name: String,
    /// Its build: baseline, seeds and summaries, paths relative to the experiment directory
    /// (its `variants` is empty).
    pub build: Manifest,
}

/// What the seeds of one program achieved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProgramSummary {
    /// The program name (as in [`Binary::name`]).
    pub name: String,
    /// Whether this is a shared library (in [`BinarySet::libraries`]) rather than a program.
    /// A library with nothing to move is not left out of the seeds (their programs load
    /// it): [`ProgramSummary::excluded`] then only says why it is not randomised.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub library: bool,
    /// Why the program was left out of the seeds (its baseline is kept); `None`: randomised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<Exclusion>,
    /// Whether it was left out because its link failed in every seed (`excluded` names the
    /// first error): a failed build of it, not a program with nothing to move; `build`
    /// exits 1 ([`crate::relink::driver::all_ok`]). Absent (false) in older manifests.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed_in_every_seed: bool,
    /// How it was relinked (the mechanism a program with nothing to move went through);
    /// absent for a program that could not be relinked, and in older manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relinking: Option<Relinking>,
    /// Number of distinct layouts (fingerprints) among the seeds that built it.
    pub distinct_layouts: usize,
    /// Groups of binaries with the same layout, each of two or more labels (`baseline`,
    /// `seed-N`) in seed order: seeds that coincide with each other or with the baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coinciding: Vec<Vec<String>>,
    /// What the seeds can move, from the recorded inputs (`None` in older manifests and for
    /// `--rebuild`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub achieved: Option<Achieved>,
}

/// Why a program was left out of the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Exclusion {
    /// The reason, as data.
    Known(LeftOut),
    /// An older manifest's reason, in words. Read, never written.
    Recorded(String),
}

/// Why a program was left out of the seeds, as data (the summary words it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum LeftOut {
    /// Its link failed in every seed.
    LinkFailedInEverySeed {
        /// The first seed's error that names it (a linker's message); `None` when no seed's
        /// error names it.
        first_error: Option<String>,
    },
    /// Every seed that built it has the baseline's layout: the mechanism has nothing to
    /// move (one function; or one object, with one function or under `--granularity link`).
    NothingToMove {
        /// Seeds that built it.
        built: usize,
        /// Seeds.
        seeds: usize,
    },
    /// Its baseline could not be relinked.
    NotRelinked {
        /// The compiler's or linker's message.
        error: String,
        /// The programs that did relink (`--programs` with them leaves this one out).
        relinked: Vec<String>,
    },
}

/// The granularity a program actually gets: how many modules it has and in how many of them
/// the function order is randomised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Achieved {
    /// Modules (objects and archive members) of the build linked into the program: with two
    /// or more, the link order moves them.
    pub objects: usize,
    /// Modules whose function order is randomised (0 under `link`).
    pub modules_with_function_order: usize,
    /// Compiled modules with all their functions in one `.text` section (only possible under
    /// `link`: `module` and `global` refuse them).
    pub modules_one_section: usize,
    /// Modules with code, which `--granularity none` pads (a one-section module's code
    /// included). Absent in older manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modules_with_code: Option<usize>,
    /// Functions the recorded objects and archive members define: the code the seeds place.
    /// The binary's other functions come from files linked in place (the C runtime's start
    /// files, system archives, Rust's standard library), which no seed moves relative to
    /// each other. Absent in older manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions_placed: Option<usize>,
    /// The granularity the program got: the build's, or `global` for an LTO program (modules
    /// do not survive LTO). Absent in older manifests, which stored [`Achieved::recorded_words`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Granularity>,
    /// For an LTO program: whose code its seeds order. Absent: not LTO (or an older manifest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lto: Option<LtoCode>,
    /// What manifests written before the figures above stored instead: the same in words.
    /// Read, never written; the summary shows it only for such a manifest.
    #[serde(default, rename = "words", skip_serializing)]
    #[schemars(skip)]
    pub recorded_words: Option<String>,
}

/// Whose code an LTO program's seeds put in a random order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LtoCode {
    /// The machine code the user's own LTO link generated, kept by the shim.
    Kept,
    /// LTO code generated once more into one relocatable object (`-r`: globals not
    /// internalised), since the link's own could not be kept.
    GeneratedAgain,
}

impl Manifest {
    /// The names of the programs left out of the seeds (see [`ProgramSummary::excluded`]);
    /// never a library (each seed keeps its own copy of every library).
    pub fn excluded_programs(&self) -> Vec<&str> {
        self.programs
            .iter()
            .filter(|p| p.excluded.is_some() && !p.library)
            .map(|p| p.name.as_str())
            .collect()
    }
}

/// `--programs all`: every recorded link, the build's tools and tests included.
pub const ALL_PROGRAMS: &str = "all";

/// A tool the build runs itself rather than one of its products: never relinked unless
/// named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildTool {
    /// A cargo build script (`build_script_build-<hash>`): run by cargo during the build.
    BuildScript,
    /// A Rust proc-macro library: loaded by rustc during the build.
    ProcMacro,
    /// A program the build ran (read it after linking it) before it linked `before`, another
    /// of its programs: a generator of the build's own code, such as CPython's
    /// `_freeze_module`.
    RanBeforeLinking {
        /// The program linked after the run.
        before: String,
    },
}

/// What `build` says after its summary, as figures and names
/// (`crate::report::words::build::note` words it); not stored.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildNote {
    /// `--programs` chose some of the programs the build linked.
    Chosen {
        /// Programs relinked.
        relinked: usize,
        /// Programs the build linked.
        linked: usize,
        /// The others, not relinked.
        others: Vec<String>,
        /// The build's shared libraries relinked because a named program loads them (not
        /// named themselves).
        libraries: Vec<String>,
    },
    /// A tool the build runs, left out.
    Tool {
        /// Its name.
        name: String,
        /// What it is.
        tool: BuildTool,
    },
    /// Test programs left out (by their names) while other programs remain.
    Tests {
        /// The tests.
        tests: Vec<String>,
        /// The programs relinked.
        kept: Vec<String>,
    },
    /// Shared libraries that no program relinked loads (none names them in its `DT_NEEDED`,
    /// directly or through another library): plugins, opened by `dlopen` if at all, left out.
    Plugins {
        /// The libraries.
        plugins: Vec<String>,
        /// The programs relinked.
        programs: Vec<String>,
        /// Everything relinked: the programs and the libraries they load.
        relinked: Vec<String>,
    },
    /// The binaries as built could not be kept, so are not measured.
    AsBuiltNotKept {
        /// Why (the error met).
        why: String,
    },
    /// `--extend` relinks again seeds that had failed or lacked a program.
    Retried {
        /// Those seeds.
        seeds: Vec<u64>,
    },
    /// Pinned functions whose size differs from the size in the layout the pin copies (at
    /// the pin's offsets they span other cache lines than there).
    PinResized {
        /// The program.
        program: String,
        /// The functions.
        functions: Vec<String>,
    },
    /// What `--extend` added, against the summary's counts of the whole manifest.
    Extended {
        /// New seeds relinked.
        new_seeds: usize,
        /// Their relink time in seconds.
        seconds: f64,
        /// Seeds of the manifest.
        seeds: usize,
    },
}

/// A linker the relinks can use.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Linker {
    /// GNU ld (ld.bfd), Debian's default.
    Bfd,
    /// GNU gold.
    Gold,
    /// LLVM lld.
    Lld,
    /// mold.
    Mold,
}

impl Linker {
    /// The short name (`bfd`, `gold`, `lld`, `mold`), as `-fuse-ld=` takes it and the
    /// manifest writes it.
    pub fn name(self) -> &'static str {
        match self {
            Linker::Bfd => "bfd",
            Linker::Gold => "gold",
            Linker::Lld => "lld",
            Linker::Mold => "mold",
        }
    }
}

/// How a program's function order is randomised for one granularity and linker.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// The objects merged by one `ld.bfd -r` in the recorded order (symbol resolution stays
    /// the baseline's) with whole modules in a random order, each keeping its function
    /// order; the members of each static archive permuted.
    MergedLink,
    /// [`Mechanism::MergedLink`] with each module's functions shuffled within gcc's groups;
    /// each archive member reordered by its own `ld.bfd -r`.
    MergedModule,
    /// The objects' functions in one random order across modules (within gcc's groups),
    /// merged by one `ld.bfd -r`; archive members as for [`Mechanism::MergedModule`].
    MergedGlobal,
    /// `-flto` (gcc or clang): the LTO code generated once into one relocatable object with
    /// a section per function ([`crate::relink::lto_once`]), then relinked like
    /// [`Mechanism::MergedGlobal`]: its functions in one random order (within gcc's groups),
    /// whatever the granularity, since modules do not survive LTO.
    LtoOnce,
    /// `-flto` (gcc or clang): the machine code the user's own LTO link generated (gcc's
    /// ltrans objects, clang's LTO objects), kept by the shim (`wrap::lto_keep`),
    /// relinked like [`Mechanism::MergedGlobal`]: the code, internalisation and inlining are
    /// exactly the plain LTO build's.
    LtoKept,
    /// `--granularity none`: the objects merged as for [`Mechanism::MergedModule`], but every
    /// binary keeps the baseline's module, member and function order; a seed only puts its
    /// padding (`build --pad`) in front of the code sections (LLVM lld's
    /// `--randomize-section-padding`). Under LTO, the LTO code is padded the same way.
    Padded,
}

/// How one program was relinked: its mechanism and linker.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub struct Relinking {
    /// How its order is randomised.
    pub mechanism: Mechanism,
    /// The linker of its final links.
    pub linker: Linker,
    /// Its final links ran that linker directly, with the command the recorded compiler
    /// driver would have given it, once a link through the driver and the same link run
    /// directly had written the same bytes (absent, i.e. false: through the driver, or a
    /// direct linker call recorded as such).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub direct: bool,
}

/// In what the baseline's function list differs from a fixed layout's (the build's own
/// binary): the first of these that holds, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FunctionsDifference {
    /// Other functions: this many (name, size) pairs only in the build's binary, and only in
    /// the baseline.
    OtherFunctions {
        /// (name, size) pairs only in the build's binary.
        only_own: usize,
        /// (name, size) pairs only in the baseline.
        only_baseline: usize,
    },
    /// The same functions in another order.
    OtherOrder {
        /// The first rank (from 0) at which the two orders differ.
        first_difference: usize,
        /// The number of functions.
        functions: usize,
    },
    /// The same functions, order and addresses.
    Same {
        /// The number of functions.
        functions: usize,
    },
    /// The same functions and order, every one moved by the same number of bytes (the
    /// start-up code before them takes another size in the relink).
    Shifted {
        /// The number of functions.
        functions: usize,
        /// The baseline's address minus the build's, in bytes.
        by: i64,
    },
    /// The same functions and order, some at other addresses (other gaps between sections).
    OtherGaps {
        /// Functions at other addresses.
        moved: usize,
        /// The number of functions.
        functions: usize,
    },
}

/// Everything a manifest holds on how the baseline differs from a fixed layout's binary,
/// gathered for the words ([`Binary::versus_baseline`]).
#[derive(Debug, Clone, PartialEq)]
pub struct VersusBaseline {
    /// The function lists compared.
    pub functions: Option<FunctionsDifference>,
    /// Sections and bytes compared.
    pub bytes: Option<crate::layout::image::BytesDifference>,
    /// Why sections and bytes were not compared.
    pub bytes_not_compared: Option<String>,
    /// An older manifest's words.
    pub recorded: Option<String>,
}

impl Binary {
    /// The name a program loads this library by: its soname, else its file name (the name
    /// it is staged under for a run).
    pub(crate) fn loaded_as(&self) -> String {
        self.soname.clone().unwrap_or_else(|| self.name.clone())
    }

    /// How the baseline differs from this binary (an as-built one), `None` when the manifest
    /// says nothing of it.
    pub fn versus_baseline(&self) -> Option<VersusBaseline> {
        let v = VersusBaseline {
            functions: self.functions_versus_baseline,
            bytes: self.bytes_versus_baseline.clone(),
            bytes_not_compared: self.bytes_not_compared.clone(),
            recorded: self.recorded_versus_baseline.clone(),
        };
        (v.functions.is_some() || v.recorded.is_some()).then_some(v)
    }
}

/// The baseline, one seed, or the build's own binaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BinarySet {
    /// The seed, or `None` for the baseline (and the as-built set).
    pub seed: Option<u64>,
    /// Which fixed layout a set without a seed is: absent for the baseline and the seeds
    /// (the seed says which), `as_built` for [`Manifest::as_built`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<SetKind>,
    /// `ok`, or `failed` with [`BinarySet::error`] saying why.
    pub status: BuildStatus,
    /// The linker's (or verifier's) message when the binary failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The programs built for this binary (one per recorded final link of an executable).
    pub binaries: Vec<Binary>,
    /// The shared libraries built for this binary (one per recorded `-shared` link), which
    /// its programs load at run time; empty when the build links none (and in manifests
    /// written before libraries were relinked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub libraries: Vec<Binary>,
}

/// A set of binaries that is neither the baseline nor a seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SetKind {
    /// The user's build's own binaries, copied as they were made (the order and addresses
    /// the build's linker chose, which the relinked baseline need not keep).
    AsBuilt,
}

/// Whether a binary was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BuildStatus {
    /// All binaries linked and verified.
    Ok,
    /// At least one link or verification failed; see the error.
    Failed,
}

/// One linked program of one binary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Binary {
    /// Program name: the recorded link's output file name (e.g. `demo`).
    pub name: String,
    /// Path relative to the output directory.
    pub path: PathBuf,
    /// SHA-256 of the file, hex.
    pub sha256: String,
    /// Hash of the ordered list of function identities (see `layout`).
    pub fingerprint: String,
    /// Number of functions in the binary's text.
    pub functions: usize,
    /// Distances to the baseline's binary of the same name (`None` for the baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<LayoutDistance>,
    /// Wall time of this link, in seconds.
    pub link_seconds: f64,
    /// For a shared library: its `DT_SONAME`, the name its programs load it by (`None` for
    /// programs and for a library without one, which is then loaded by its file name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soname: Option<String>,
    /// For a seed: what the check that it holds the baseline's code (same functions, same
    /// sizes) compared; absent for the baseline and in manifests written before the check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<CodeCheck>,
    /// How many distinct start offsets mod 64 and mod 4096 its functions have (the check of
    /// `build --pad`); absent in manifests written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offsets: Option<OffsetSpread>,
    /// For an as-built binary: in what the baseline's function list differs from its
    /// (functions, their order, their addresses; see `relink::as_built`); absent otherwise
    /// and in older manifests (which stored [`Binary::recorded_versus_baseline`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions_versus_baseline: Option<FunctionsDifference>,
    /// For an as-built binary: what differs beyond the function list, as figures (the
    /// sections of other sizes; the functions' bytes by kind of difference); absent otherwise,
    /// in older manifests, and when the two binaries could not be read
    /// ([`Binary::bytes_not_compared`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_versus_baseline: Option<crate::layout::image::BytesDifference>,
    /// For an as-built binary whose sections and bytes could not be compared with the
    /// baseline's: the reader's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_not_compared: Option<String>,
    /// What manifests written before the figures above stored instead: the difference in
    /// words. Read, never written.
    #[serde(default, rename = "versus_baseline", skip_serializing)]
    #[schemars(skip)]
    pub recorded_versus_baseline: Option<String>,
    /// For a seed of a `build --data-order` build: what the check that it holds the
    /// baseline's data objects (same sizes and contents, pointers relocated) and code bytes
    /// compared, and how many objects moved; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<crate::layout::same_data::DataCheck>,
    /// For a seed: the binary (`baseline`, `seed-N`) whose file this one is a copy of,
    /// because its link took the same inputs (same objects in the same order, same command:
    /// the linker would have written the same bytes); absent when it was linked, and in
    /// older manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_of: Option<String>,
}

pub use super::hash_cache::{sha256_of_file, SETTLED};

/// [`sha256_of_file`], computed again only when the file may have changed
/// ([`super::hash_cache`]: the hash kept with the file's identity, carried across our own
/// staging).
pub(crate) fn sha256_of_file_cached(path: &Path) -> Result<String> {
    super::hash_cache::sha256(path)
}

impl BinarySet {
    /// Its programs, then its libraries.
    pub fn all(&self) -> impl Iterator<Item = &Binary> {
        self.binaries.iter().chain(self.libraries.iter())
    }

    /// The program or library `name`.
    pub fn find(&self, name: &str) -> Option<&Binary> {
        self.all().find(|b| b.name == name)
    }

    /// Adds `binary` to the programs, or to the libraries when `library`.
    pub(crate) fn add(&mut self, binary: Binary, library: bool) {
        if library {
            self.libraries.push(binary);
        } else {
            self.binaries.push(binary);
        }
    }

    /// The label used in result stores and reports: `baseline`, `seed-N` or `as-built`.
    pub fn label(&self) -> String {
        match self.kind {
            Some(SetKind::AsBuilt) => AS_BUILT_LABEL.to_string(),
            None => binary_label(self.seed),
        }
    }
}

/// The label of the default-layout binary (built with the linker's own order) in result
/// stores, exports and reports.
pub(crate) const BASELINE_LABEL: &str = "baseline";

/// The label of the build's own binary ([`Manifest::as_built`]) in result stores, exports
/// and reports; also the name of its directory in the output directory.
pub(crate) const AS_BUILT_LABEL: &str = "as-built";

/// `baseline` for `None`, `seed-N` for `Some(N)`.
pub fn binary_label(seed: Option<u64>) -> String {
    match seed {
        None => BASELINE_LABEL.to_string(),
        Some(s) => format!("seed-{s}"),
    }
}

/// Refuses a name that holds a control character or a newline: names are printed one per
/// table cell and CSV field, and a terminal would act on an escape sequence.
fn check_printable(name: &str, what: &str) -> Result<()> {
    if crate::printable::has_control(name) {
        bail!(
            "{what} {name:?} holds a control character or a newline: names are printed one \
             per table cell and CSV field"
        );
    }
    Ok(())
}

/// What to say when `path`, a manifest, does not exist: the one case where building first is
/// the advice (a manifest that exists but is refused says why itself).
fn missing(path: &Path) -> String {
    format!(
        "cannot read {}: No such file or directory (run `layoutrand build` first, or pass the \
         directory it wrote)",
        path.display()
    )
}

impl Manifest {
    /// Reads and checks `dir/manifest.json`, only when it is a regular file (a FIFO would
    /// stall the reader) and not larger than a side file may be
    /// ([`crate::files::confined::read_side_file`]).
    pub fn load(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        let text = crate::files::confined::read_side_file(dir, MANIFEST_FILE)?
            .with_context(|| missing(&path))?;
        Manifest::parse(&path, text.as_bytes())
    }

    /// Reads `dir/manifest.json` to relink from it (`build --extend`, `explain --confirm`:
    /// its build settings choose the linker, granularity, padding and data order of the
    /// relinks): parsed and checked as [`Manifest::load`] does, from the very bytes whose MAC
    /// verified under this user's key; refused when it is not this user's own.
    pub fn load_verified(dir: &Path) -> Result<crate::files::trust::Verified<Manifest>> {
        use crate::files::trust::{read_verified, Kind};
        let path = dir.join(MANIFEST_FILE);
        read_verified(dir, Path::new(MANIFEST_FILE), Kind::Manifest, |bytes| {
            Manifest::parse(&path, bytes)
        })?
        .with_context(|| missing(&path))
    }

    /// The manifest in `bytes` (read from `path`), its schema and paths checked.
    fn parse(path: &Path, bytes: &[u8]) -> Result<Manifest> {
        let manifest: Manifest = serde_json::from_slice(bytes)
            .with_context(|| format!("{} is not a valid layoutrand manifest", path.display()))?;
        if manifest.schema > MANIFEST_SCHEMA {
            bail!(
                "{} has manifest schema {} but this layoutrand ({}) reads up to {}: upgrade layoutrand",
                path.display(),
                manifest.schema,
                env!("CARGO_PKG_VERSION"),
                MANIFEST_SCHEMA
            );
        }
        manifest
            .check_paths()
            .with_context(|| format!("{} is refused", path.display()))?;
        Ok(manifest)
    }

    /// Checks every name and path of the manifest that becomes a file system path: program
    /// and library names and sonames are single file names, binary paths relative without
    /// `..`, variant names single file names (see [`crate::files::confined`]). A crafted
    /// manifest then cannot make `run` stage, write or execute anything outside the
    /// experiment directory.
    pub(crate) fn check_paths(&self) -> Result<()> {
        use crate::files::confined::{check_component, check_relative};
        let mut variant_names = std::collections::BTreeSet::new();
        for variant in &self.variants {
            check_component(&variant.name, "variant name")?;
            check_printable(&variant.name, "variant name")?;
            if !variant_names.insert(variant.name.as_str()) {
                bail!(
                    "variant {:?} is listed twice: both would be built into and run from one \
                     directory",
                    variant.name
                );
            }
            variant
                .build
                .check_paths()
                .with_context(|| format!("variant {:?}", variant.name))?;
        }
        for set in self.binary_sets() {
            let label = set.label();
            for b in set.all() {
                let at = || format!("{label}: binary {:?}", b.name);
                check_component(&b.name, "the name").with_context(at)?;
                check_printable(&b.name, "the name").with_context(at)?;
                check_relative(&b.path, "the path").with_context(at)?;
                if let Some(soname) = &b.soname {
                    check_component(soname, "the soname").with_context(at)?;
                }
            }
        }
        // Checked after the paths, whose refusals say more.
        for set in self.binary_sets() {
            let mut names = std::collections::BTreeSet::new();
            for b in set.all() {
                if !names.insert(b.name.as_str()) {
                    bail!(
                        "{}: binary {:?} is listed twice: a run would record each of its \
                         executions twice",
                        set.label(),
                        b.name
                    );
                }
            }
        }
        Ok(())
    }

    /// Writes the manifest atomically (temporary file, fsync, rename), so a reader never sees
    /// half a manifest, and signs it as this user's ([`crate::files::trust`]).
    pub fn save(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        let path = dir.join(MANIFEST_FILE);
        // Signed first: a crash between the two writes leaves the old or the new one verifying.
        crate::files::trust::sign_or_warn(
            dir,
            Path::new(MANIFEST_FILE),
            crate::files::trust::Kind::Manifest,
            text.as_bytes(),
        );
        crate::files::write_atomically(&path, text.as_bytes())
    }

    /// Each variant's build with its name, in build order; for a build without variants,
    /// the manifest itself with no name.
    pub fn variant_builds(&self) -> Vec<(Option<&str>, &Manifest)> {
        if self.variants.is_empty() {
            vec![(None, self)]
        } else {
            self.variants
                .iter()
                .map(|v| (Some(v.name.as_str()), &v.build))
                .collect()
        }
    }

    /// The baseline, the as-built set when there is one, then every seed, in that order.
    pub fn binary_sets(&self) -> impl Iterator<Item = &BinarySet> {
        std::iter::once(&self.baseline)
            .chain(self.as_built.iter())
            .chain(self.seeds.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file rewritten in place (same inode, same size) is hashed anew however soon after,
    /// and a settled file (a system program, changed long ago) gives the plain hash.
    #[test]
    fn the_cached_hash_follows_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("binary");
        std::fs::write(&path, b"first contents").unwrap();
        let first = sha256_of_file_cached(&path).unwrap();
        assert_eq!(first, sha256_of_file(&path).unwrap());
        std::fs::write(&path, b"other contents").unwrap();
        let second = sha256_of_file_cached(&path).unwrap();
        assert_ne!(first, second);
        assert_eq!(second, sha256_of_file(&path).unwrap());
        let settled = Path::new("/bin/sh");
        let plain = sha256_of_file(settled).unwrap();
        assert_eq!(sha256_of_file_cached(settled).unwrap(), plain);
        assert_eq!(sha256_of_file_cached(settled).unwrap(), plain);
    }
}
