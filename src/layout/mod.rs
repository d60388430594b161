//! ELF reading with `object`: the functions of objects, archives and binaries, a binary's
//! function order and fingerprint, distances between two layouts, and the reordering
//! primitives the build driver uses to produce randomised layouts.
//!
//! * [`binary`]: a linked binary's functions in address order (what a layout *is*);
//! * [`fingerprint()`]: a hash of that order; [`distance`]: how far two orders are apart;
//! * [`object_file`]: the code sections of a `.o` and gcc's code groups;
//! * [`data_sections`]: the static-data sections of a `.o` that `build --data-order` moves;
//! * [`archive`]: members of a static archive, and a copy with the members reordered;
//! * [`reorder`]: seeded shuffles, `ld -r` module reordering, the global order script;
//! * [`same_code`]: the invariant that a seed holds the baseline's code, only elsewhere;
//! * [`same_data`]: with `build --data-order`, the same data objects and bytes, only elsewhere;
//! * [`offsets`]: how many cache-line and page offsets a binary's functions start at;
//! * [`dynamic`]: a library's soname and an executable's loader;
//! * [`image`]: a binary's allocated sections and function bytes, to say what else differs;
//! * [`demangle`]: C++ and Rust names made readable for display.

pub mod archive;
pub mod binary;
pub mod cache_geometry;
pub(crate) mod data_sections;
pub(crate) mod demangle;
pub mod distance;
pub(crate) mod dynamic;
pub mod features;
mod fingerprint;
pub mod image;
pub mod object_file;
pub mod offsets;
pub mod reorder;
pub mod same_code;
pub mod same_data;
pub mod shown;

pub use fingerprint::{data_order, fingerprint, placement, with_data_order};
