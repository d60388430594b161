//! The relinker behind `layoutrand build`: run the user's build once under the shim, then
//! relink every recorded program once for the baseline and once per seed, verify each
//! binary, write the manifest.
//!
//! * [`recorded_build`]: the build command under the shim;
//! * [`linker`]: the linkers and the ordering mechanism for each granularity;
//! * [`replay`]: one relink of one program for the baseline or a seed;
//! * [`lto_once`]: a `-flto` program relinked from its own link's code (kept by the shim),
//!   or from code generated once more;
//! * [`as_built`]: in what the baseline differs from the binary the build made;
//! * [`binaries`]: baseline and seeds, in parallel, verified;
//! * [`driver`]: all of it, writing the [manifest](crate::files::manifest); [`rebuild`]: `--rebuild`, one full build
//!   per binary in a copy of the tree, each link randomised as it happens (see [`live`]);
//! * [`pinned`]: `--pin FILE`, each seed's pinned functions placed at the pin's offsets;
//! * [`variant`]: `--variant NAME`, one version of the program among several, with the
//!   seeds of the others;
//! * [`extend`]: more seeds for a finished relink build, from its recording;
//! * [`achieved`]: what each program's seeds can move (refusing objects without
//!   per-function sections under `module`/`global`);
//! * [`isolate`]: programs that cannot be randomised left out, distinct layouts counted;
//! * [`projection`]: the cost of many seeds (SIGINT/SIGTERM keep finished seeds: crate::signals);
//! * [`source_tree`]: whether a build was made from a given source tree (`experiment`'s
//!   reuse of one);
//! * [`toolchain`]: versions for the manifest (the closing table is
//!   [`crate::report::build_summary`]).

pub(crate) mod achieved;
pub(crate) mod as_built;
pub mod binaries;
pub mod driver;
pub mod extend;
pub(crate) mod isolate;
pub(crate) mod link_command;
pub mod linker;
pub mod live;
pub(crate) mod lto_once;
pub mod options;
pub(crate) mod pinned;
pub(crate) mod programs;
pub mod projection;
pub(crate) mod rebuild;
pub(crate) mod recorded_build;
pub mod replay;
pub(crate) mod source_tree;
pub(crate) mod toolchain;
pub mod variant;
