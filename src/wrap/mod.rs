//! The cc/ld shim: classify each compiler or linker call, add `-ffunction-sections` to
//! compiles, record every final link, and pass everything else through untouched.
//!
//! `layoutrand` is a multi-call executable. `layoutrand build` makes a directory of symbolic
//! links named `cc`, `gcc`, `g++`, `clang`, `ld`, ... pointing at itself ([`install_shims`]),
//! puts it first on PATH and runs the user's build. Started under one of those names, the
//! executable finds the real tool further down PATH, records what it needs and runs it.
//!
//! For build systems that call compilers by absolute path (CMake), the launcher form
//! `layoutrand-launch TOOL ARGS...` (or `layoutrand launch TOOL ARGS...`) does the same for the
//! tool it is given: `cmake -DCMAKE_C_COMPILER_LAUNCHER=layoutrand-launch
//! -DCMAKE_CXX_COMPILER_LAUNCHER=layoutrand-launch -DCMAKE_C_LINKER_LAUNCHER=layoutrand-launch
//! -DCMAKE_CXX_LINKER_LAUNCHER=layoutrand-launch`. Outside `layoutrand build` both forms are
//! pure pass-through.

pub(crate) mod atfile;
pub mod classify;
pub(crate) mod lto_keep;
pub mod record;
pub(crate) mod shim;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use classify::tool_kind_of;

/// The record directory the shim writes into (set by `layoutrand build`).
pub const ENV_RECORD_DIR: &str = "LAYOUTRAND_RECORD_DIR";
/// PATH without the shim directory: where the real tools are found.
pub const ENV_REAL_PATH: &str = "LAYOUTRAND_REAL_PATH";
/// The shim directory itself.
pub const ENV_SHIM_DIR: &str = "LAYOUTRAND_SHIM_DIR";
/// A file name in a private folder of `layoutrand build` (outside the experiment
/// directory): the first shim whose record directory is unusable creates it (`O_EXCL`),
/// warns once for the whole build and leaves its reason there for `build` to report.
pub(crate) const ENV_SHIM_WARNED: &str = "LAYOUTRAND_SHIM_WARNED";
/// Set (to `1`) by `build --data-order`: compiles also get `-fdata-sections` (unless the user's
/// flags say `-fdata-sections` or `-fno-data-sections` themselves), so that each static
/// variable and constant is an input section of its own that a seed can move.
pub(crate) const ENV_DATA_SECTIONS: &str = "LAYOUTRAND_DATA_SECTIONS";
/// Set for the tools a recorded link runs (collect2 calling `ld`): those pass through.
pub(crate) const ENV_NESTED: &str = "LAYOUTRAND_NESTED";

/// Name of the launcher form (for CMake's `*_COMPILER_LAUNCHER` / `*_LINKER_LAUNCHER`).
pub const LAUNCHER_NAME: &str = "layoutrand-launch";

/// The names the shim directory provides: compiler drivers, linkers, and `ar` (watched only,
/// so that a build that archives but never links can be diagnosed).
pub(crate) const SHIM_NAMES: &[&str] = &[
    "cc", "gcc", "g++", "c++", "clang", "clang++", "gfortran", "f95", "f77", "ld", "ld.bfd",
    "ld.gold", "ld.lld", "ld.mold", "ar",
];

/// What the shim does right after it recorded a final link, given the record and the record
/// directory. The build stage provides it (the live relink of `build --rebuild`): the shim
/// comes first in the data flow and imports nothing of the stages after it. An error is
/// logged in `errors.log` and the build goes on with the ordinary link.
pub(crate) type AfterLink = fn(&record::LinkRecord, &Path) -> Result<()>;

/// If this process was started under a compiler or linker name (`cc`, `gcc`, `ld`, ...),
/// acts as the shim and returns its exit code; otherwise returns `None`. `after_link` runs
/// after each recorded final link.
pub fn run_as_shim_if_called_so(after_link: AfterLink) -> Option<i32> {
    let mut argv = std::env::args_os();
    let argv0 = argv.next()?;
    let name = Path::new(&argv0)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    let rest: Vec<OsString> = argv.collect();
    if name == LAUNCHER_NAME {
        return Some(launch(rest, after_link));
    }
    if name.starts_with("layoutrand") {
        if rest.first().is_some_and(|a| a == "launch") {
            return Some(launch(rest[1..].to_vec(), after_link));
        }
        return None;
    }
    if name == "ar" {
        return Some(shim::observe(&name, rest));
    }
    let kind = tool_kind_of(&name)?;
    Some(shim::run(&name, kind, rest, None, after_link))
}

/// The launcher form: `args` = the tool (a name or a path) followed by its arguments.
fn launch(mut args: Vec<OsString>, after_link: AfterLink) -> i32 {
    if args.is_empty() {
        crate::diagnostic!(
            "usage: {LAUNCHER_NAME} TOOL [ARGS...]  (a compiler launcher for CMake)"
        );
        return 2;
    }
    let tool = PathBuf::from(args.remove(0));
    let name = tool
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let explicit = tool.components().count() > 1 || tool.is_absolute();
    match tool_kind_of(&name) {
        Some(kind) => shim::run(&name, kind, args, explicit.then_some(tool), after_link),
        None => {
            // Not a compiler or linker (ccache, a script...): run it unchanged.
            use std::os::unix::process::CommandExt;
            // exec replaces this process: no child to keep.
            #[allow(clippy::disallowed_methods)]
            let err = std::process::Command::new(&tool).args(&args).exec();
            crate::diagnostic!("{LAUNCHER_NAME}: cannot run {}: {err}", tool.display());
            127
        }
    }
}

/// Fills `dir` with the shim links (every name of [`SHIM_NAMES`] and [`LAUNCHER_NAME`])
/// pointing at `exe`.
pub fn install_shims(dir: &Path, exe: &Path) -> Result<()> {
    let shims = crate::files::confined::ExperimentDir::create(dir)?;
    for name in SHIM_NAMES.iter().chain(std::iter::once(&LAUNCHER_NAME)) {
        shims
            .symlink(exe, name)
            .with_context(|| format!("creating the shim link {}", dir.join(name).display()))?;
    }
    Ok(())
}
