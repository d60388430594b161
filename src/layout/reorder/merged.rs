//! Program-wide reordering with one `ld -r` of all the program's objects: the mechanism that
//! moves code on every linker (bfd, gold, lld, mold) while symbol resolution stays the
//! baseline's.
//!
//! ```text
//! ld.bfd -r a.o b.o c.o -T order.ld -o merged.o      (objects in the recorded order)
//! order.ld:  SECTIONS {
//!              .text.unlikely.lr0 0 : { "b.o"(.text.unlikely.g) }
//!              .text.lr1 0 : { "c.o"(.text.h) }
//!              .text.lr2 0 : { "a.o"(.text.f) }  ... }
//! ```
//!
//! Why this shape:
//! * **Resolution pinned.** The linker keeps the first COMDAT copy and the first weak
//!   definition it meets; the objects go to `ld -r` in the recorded order, so the copies
//!   kept are the baseline's, whatever the seed (measured: permuting the objects on the link
//!   line instead changes which copy of an inline function wins).
//! * **Placement by section order.** Every final linker places the input sections of one
//!   object in their section-table order (within gcc's groups for bfd and gold), so the order
//!   of the output sections of `merged.o` *is* the program's function order. No output
//!   section is added to the program (no `.text.rand`), and the start-up files keep their
//!   places around the program's code (`_start` first, as in an ordinary build).
//! * **One output section per input section**, named `<group>.lr<k>` (`.text.lr7`,
//!   `.text.unlikely.lr3`, ...): the name still matches its group's pattern in the final
//!   link's default script, so gcc's groups are gathered as usual, and `--gc-sections` can
//!   still drop each function on its own.
//! * The script goes *after* the objects: a file named in a script before it appears on the
//!   command line is loaded at the script's place, which would change the resolution order.
//!
//! Sections not listed (`.init`, data, `.eh_frame`, debug info) are orphans that `ld -r`
//! keeps under their own names, after the listed ones. COMDAT members (C++ inline and
//! template functions) are only placed by the script when their groups are dissolved after
//! de-duplication (`--force-group-allocation`, see [`merge_objects`]); otherwise they stay
//! orphans too.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::script::{check_section_name, object_pattern};
use super::DataEntry;
use crate::layout::object_file::TextGroup;

/// One code section of one object, as a merged order lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MergedEntry {
    /// The object, spelled exactly as on the `ld -r` command line.
    pub(crate) object: PathBuf,
    /// The section's name in that object.
    pub(crate) section: String,
    /// Its gcc group (decides the output section's name).
    pub(crate) group: TextGroup,
}

/// The `ld -r` script placing `entries` in the given order, one output section each.
///
/// Guarantees: one output section per distinct (object, section) entry, at its first place;
/// each named `<group's merged name>.lr<k>` with `k` its rank, so it classifies back to its
/// group ([`TextGroup::of`]); entries of the `Other` group are refused. Errors name the file
/// or section that a script cannot spell literally.
///
/// `data`: the static-data sections placed after the code, one output section each
/// ([`super::data_script_lines`]); empty without `build --data-order`, which leaves the
/// script as it was.
pub(crate) fn merged_script(entries: &[MergedEntry], data: &[DataEntry]) -> Result<String> {
    let mut script = String::from(
        "/* Written by layoutrand: the program's functions in a chosen order. */\nSECTIONS\n{\n",
    );
    let mut seen = std::collections::HashSet::new();
    let mut k = 0usize;
    for e in entries {
        if !seen.insert((&e.object, &e.section)) {
            continue;
        }
        let Some(prefix) = e.group.merged_section_name() else {
            bail!(
                "section {} of {} is not ordinary code: it cannot be reordered",
                e.section,
                e.object.display()
            );
        };
        check_section_name(&e.section)?;
        let file = object_pattern(&e.object)?;
        writeln!(script, "  {prefix}.lr{k} 0 : {{ {file}({}) }}", e.section)
            .expect("writing to a String");
        k += 1;
    }
    script.push_str(&super::data_script_lines(data)?);
    script.push_str("}\n");
    Ok(script)
}

/// How [`merge_objects`] merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Merging {
    /// The COMDAT groups are de-duplicated (keeping the first copy in `objects` order) and
    /// then become ordinary sections of the merged object (`--force-group-allocation`), so
    /// the script can place their code (C++ inline and template functions) like any other;
    /// only safe when no other input of the final link holds a group of the same signature
    /// (it would no longer be de-duplicated against these). Without it, `ld -r` leaves group
    /// members where it meets them, whatever the script says (after the listed sections, in
    /// object order).
    pub(crate) dissolve_comdats: bool,
    /// The debug information (`.debug_*` sections) is left out (`--strip-debug`): the
    /// relinks are linked without it (see [`crate::relink::link_command::link_args`]), and
    /// each seed's copy of the merged object is then a fraction of its size.
    pub(crate) strip_debug: bool,
}

/// Runs `ld -r` (`ld`: ld.bfd) on `objects` in that order with [`merged_script`]'s script
/// for `entries` and `data`, writing `out`; `script_path` receives the script.
///
/// `how`: see [`Merging`].
///
/// Guarantees: the objects' code in `entries`' order in `out` and in any final link of it;
/// COMDAT groups de-duplicated keeping the first copy in `objects` order; the linker's
/// message in the error when it fails.
pub(crate) fn merge_objects(
    objects: &[PathBuf],
    entries: &[MergedEntry],
    data: &[DataEntry],
    how: Merging,
    script_path: &Path,
    out: &Path,
    ld: &Path,
) -> Result<()> {
    std::fs::write(script_path, merged_script(entries, data)?)
        .with_context(|| format!("cannot write {}", script_path.display()))?;
    let mut command = crate::child::command(ld);
    command.arg("-r");
    if how.dissolve_comdats {
        command.arg("--force-group-allocation");
    }
    if how.strip_debug {
        command.arg("--strip-debug");
    }
    if !objects_need_executable_stack(objects)? {
        // ld.bfd takes an object without a `.note.GNU-stack` section (rustc's `symbols.o`,
        // hand-written assembly) as needing an executable stack and marks `out` so; lld and
        // mold take it as not needing one, and lld then refuses the merged object ("requires
        // an executable stack"). Only an explicit executable note asks for one.
        command.args(["-z", "noexecstack"]);
    }
    let output = command
        .args(objects)
        .arg("-T")
        .arg(script_path)
        .arg("-o")
        .arg(out)
        .output()
        .with_context(|| format!("cannot run the linker {}", ld.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().take(12).collect();
        bail!(
            "`{} -r` merging {} objects failed ({}): {}",
            ld.display(),
            objects.len(),
            output.status,
            tail.join("\n    ")
        );
    }
    Ok(())
}

/// Whether any of `objects` marks its stack executable: a `.note.GNU-stack` section with
/// the `SHF_EXECINSTR` flag (what gcc emits for nested-function trampolines). A missing note
/// does not count (see [`merge_objects`]); a file that is not an object does not either.
fn objects_need_executable_stack(objects: &[PathBuf]) -> Result<bool> {
    use object::{Object, ObjectSection, SectionFlags};
    for path in objects {
        let data =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let Ok(file) = object::File::parse(&*data) else {
            continue;
        };
        let executable = file.section_by_name(".note.GNU-stack").is_some_and(|s| {
            matches!(s.flags(), SectionFlags::Elf { sh_flags }
                if sh_flags & u64::from(object::elf::SHF_EXECINSTR) != 0)
        });
        if executable {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(object: &str, section: &str) -> MergedEntry {
        MergedEntry {
            object: object.into(),
            section: section.into(),
            group: TextGroup::of(section),
        }
    }

    #[test]
    fn one_output_section_per_entry_named_after_its_group() {
        let s = merged_script(
            &[
                e("b.o", ".text.g"),
                e("a.o", ".text.unlikely.f"),
                e("b.o", ".text.g"),
                e("a.o", ".text.startup.main"),
            ],
            &[],
        )
        .unwrap();
        insta::assert_snapshot!(s);
        assert_eq!(s.matches("(.text.g)").count(), 1);
        for name in [".text.lr0", ".text.unlikely.lr1", ".text.startup.lr2"] {
            assert_ne!(TextGroup::of(name), TextGroup::Other);
        }
    }

    #[test]
    fn special_sections_and_unsafe_names_are_refused() {
        assert!(merged_script(&[e("a.o", ".init")], &[]).is_err());
        let err = merged_script(&[e("a*.o", ".text.f")], &[]).unwrap_err();
        insta::assert_snapshot!(format!("{err:#}"));
    }
}
