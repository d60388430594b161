//! Reordering primitives the build driver composes into randomised links.
//!
//! * [`shuffle_within_groups`] / [`shuffle_global`]: a seeded random function order that
//!   keeps gcc's hot/normal/unlikely/startup/exit groups together and in their natural order
//!   and never touches COMDAT sections;
//! * [`merge_objects`]: one `ld -r` of all objects in the recorded order with their code in a
//!   chosen order: the relink mechanism on every linker (symbol resolution stays the
//!   baseline's, no section is added, start-up code keeps its place);
//! * [`reorder_sections`]: an object's code in another order by permuting its section
//!   header table, without a linker (the per-seed step: objects are merged once, archive
//!   members are used as they are);
//! * [`draw_padding`]: seeded filler in front of code sections (`build --pad`), multiples
//!   of each section's alignment, applied by [`reorder_sections`];
//! * [`shuffle_data`], [`DataEntry`]: the static data in a seeded order (`build
//!   --data-order`), placed by the merged object's script and the same table permutation;

mod data;
mod merged;
mod padding;
mod script;
mod section_table;
mod shuffle;

pub(crate) use data::{data_script_lines, distinct as distinct_data, shuffle_data, DataEntry};
pub(crate) use merged::{merge_objects, merged_script, MergedEntry, Merging};
pub(crate) use padding::draw_padding;
pub(crate) use script::check_output_dir;
pub use section_table::{reorder_sections, Padding};
pub use shuffle::{shuffle_global, shuffle_within_groups};
