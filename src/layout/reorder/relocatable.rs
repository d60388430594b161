//! Module-level reordering with `ld -r`: relink one object into an object whose code
//! sections come in a chosen order.
//!
//! The script lists each group's sections in the wanted order inside one output section
//! per group:
//!
//! ```text
//! SECTIONS {
//!   .text.unlikely 0 : { *(.text.unlikely.f9) *(.text.unlikely.f2) }
//!   .text.startup  0 : { *(.text.startup.main) }
//!   .text          0 : { *(.text) *(.text.f9) *(.text.f2) *(.text.f4) }
//! }
//! ```
//!
//! Why one output section per group rather than a single `.text`: the final link's default
//! script (bfd, and gold likewise) gathers `.text.unlikely*`, `.text.exit*`,
//! `.text.startup*` and `.text.hot*` input sections of all modules ahead of ordinary code.
//! A single merged `.text` would make a module's cold parts (`f.cold`) and `main` ordinary
//! code of that module, scattering cold code between hot functions: an unnatural layout
//! that no ordinary build produces. Named `.text.unlikely` etc., the merged sections still
//! match their group's pattern, so the final link groups them as it would have. (lld and
//! mold interleave groups per module unless `-z keep-text-section-prefix`; for them the
//! result is the module's groups in natural order, also what they would do by default.)
//!
//! Sections not named in the script are orphans, which `ld -r` keeps under their own names:
//! COMDAT sections stay in their groups (and are still de-duplicated at the final link),
//! `.eh_frame`, debug sections, `.note.GNU-stack` and data are carried over with their
//! relocations adjusted, so the program still unwinds and debuggers still map addresses.
//! The output sections get address 0, as binutils' own `-r` script does.

use std::path::Path;

use anyhow::{bail, ensure, Context, Result};

use super::script::check_section_name;
use crate::layout::object_file::{
    has_gcc_lto_bytecode, text_sections_from_bytes, TextGroup, TextSection,
};

/// The `ld -r` script placing an object's movable sections (`sections`, from
/// [`crate::layout::object_file::text_sections`]) in `order` (section names).
///
/// `order` must name every movable section ([`TextSection::is_reorderable`]) and nothing
/// else, each name as many times as the object has movable sections of that name (normally
/// once; a script cannot tell same-named sections apart, so they move together, placed at
/// the name's first occurrence). Sections may come in any order, but each group is gathered
/// in one output section and groups are emitted in natural order (so an order that
/// interleaves groups is applied per group). Errors say which name is missing, repeated or
/// unknown.
pub fn relocatable_script(sections: &[TextSection], order: &[String]) -> Result<String> {
    let mut movable: std::collections::BTreeMap<&str, (TextGroup, usize)> =
        std::collections::BTreeMap::new();
    for s in sections.iter().filter(|s| s.is_reorderable()) {
        movable.entry(s.name.as_str()).or_insert((s.group, 0)).1 += 1;
    }
    let fixed: std::collections::HashSet<&str> = sections
        .iter()
        .filter(|s| !s.is_reorderable())
        .map(|s| s.name.as_str())
        .collect();
    let mut listed: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut first_occurrences: Vec<&String> = Vec::new();
    for name in order {
        let Some(&(_, available)) = movable.get(name.as_str()) else {
            if fixed.contains(name.as_str()) {
                bail!("section {name} is in a COMDAT group or special: it cannot be reordered");
            }
            bail!("the object has no code section named {name}");
        };
        if fixed.contains(name.as_str()) {
            bail!("section name {name} is shared with a COMDAT section: a script cannot tell them apart");
        }
        let count = listed.entry(name.as_str()).or_insert(0);
        *count += 1;
        ensure!(
            *count <= available,
            "section {name} is listed {count} times in the order but the object has {available}"
        );
        if *count == 1 {
            check_section_name(name)?;
            first_occurrences.push(name);
        }
    }
    if let Some(missing) = movable.keys().find(|name| !listed.contains_key(*name)) {
        bail!("the order does not list section {missing}: it must list every movable section");
    }
    let mut script = String::from("/* Written by layoutrand: a randomised order of this module's functions. */\nSECTIONS\n{\n");
    for group in TextGroup::REORDERABLE {
        let names: Vec<&String> = first_occurrences
            .iter()
            .copied()
            .filter(|n| movable[n.as_str()].0 == group)
            .collect();
        if names.is_empty() {
            continue;
        }
        let output = group
            .merged_section_name()
            .expect("reorderable groups have a name");
        script.push_str(&format!("  {output} 0 :\n  {{\n"));
        for name in names {
            script.push_str(&format!("    *({name})\n"));
        }
        script.push_str("  }\n");
    }
    script.push_str("}\n");
    Ok(script)
}

/// Relinks the object `obj_in` with `ld -r` (`ld` is the linker program; ld.bfd is the
/// reference) into `obj_out`, its movable sections in `order` (see [`relocatable_script`]).
///
/// Guarantees: within each group the module's code comes in `order` in `obj_out` and hence
/// in any final link (bfd, gold, lld, mold); COMDAT groups, `.eh_frame`, debug info and data
/// are preserved; `obj_out` is written through a temporary file and renamed, so it is never
/// half-written. Refuses objects carrying GCC LTO bytecode (their code does not exist
/// yet). Errors name the object and include the linker's message.
pub fn relocatable_reorder(
    obj_in: &Path,
    obj_out: &Path,
    order: &[String],
    ld: &Path,
) -> Result<()> {
    let data = std::fs::read(obj_in)
        .with_context(|| format!("cannot read object {}", obj_in.display()))?;
    let context = || format!("cannot reorder {}", obj_in.display());
    if has_gcc_lto_bytecode(&data).with_context(context)? {
        bail!(
            "cannot reorder {}: it holds GCC LTO bytecode; reorder after LTO code generation instead",
            obj_in.display()
        );
    }
    let sections = text_sections_from_bytes(&data).with_context(context)?;
    let script_text = relocatable_script(&sections, order).with_context(context)?;

    let out_dir = obj_out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut script = tempfile::Builder::new()
        .prefix("layoutrand-reorder-")
        .suffix(".ld")
        .tempfile_in(out_dir)
        .with_context(|| format!("cannot create a script file in {}", out_dir.display()))?;
    std::io::Write::write_all(&mut script, script_text.as_bytes())
        .with_context(|| format!("cannot write {}", script.path().display()))?;
    let staged = tempfile::Builder::new()
        .prefix("layoutrand-reorder-")
        .suffix(".o")
        .tempfile_in(out_dir)
        .with_context(|| format!("cannot create a temporary object in {}", out_dir.display()))?;

    let output = crate::child::command(ld)
        .arg("-r")
        .arg("-T")
        .arg(script.path())
        .arg(obj_in)
        .arg("-o")
        .arg(staged.path())
        .output()
        .with_context(|| format!("cannot run the linker {}", ld.display()))?;
    if !output.status.success() {
        bail!(
            "`{} -r` failed on {} ({}): {}",
            ld.display(),
            obj_in.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    staged
        .persist(obj_out)
        .with_context(|| format!("cannot write object {}", obj_out.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(name: &str, comdat: bool) -> TextSection {
        TextSection {
            index: 0,
            name: name.into(),
            size: 1,
            align: 1,
            group: TextGroup::of(name),
            comdat,
            functions: vec![],
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn script_has_one_output_section_per_group_in_natural_order() {
        let sections = [
            section(".text", false),
            section(".text.a", false),
            section(".text.unlikely.a", false),
            section(".text.b", false),
            section(".text.startup.main", false),
            section(".text._Z1tIiEvv", true),
        ];
        let script = relocatable_script(
            &sections,
            &names(&[
                ".text.b",
                ".text.startup.main",
                ".text",
                ".text.unlikely.a",
                ".text.a",
            ]),
        )
        .unwrap();
        let unlikely = script.find(".text.unlikely 0 :").unwrap();
        let startup = script.find(".text.startup 0 :").unwrap();
        let text = script.find(".text 0 :").unwrap();
        assert!(unlikely < startup && startup < text, "{script}");
        let b = script.find("*(.text.b)").unwrap();
        let plain = script.find("*(.text)\n").unwrap();
        let a = script.find("*(.text.a)").unwrap();
        assert!(text < b && b < plain && plain < a, "{script}");
        assert!(!script.contains("_Z1tIiEvv"));
    }

    #[test]
    fn same_named_sections_move_together() {
        // clang -fno-unique-section-names: every function in a section named `.text`.
        let sections = [
            section(".text", false),
            section(".text", false),
            section(".text.unlikely", false),
        ];
        let order = names(&[".text", ".text.unlikely", ".text"]);
        let script = relocatable_script(&sections, &order).unwrap();
        assert_eq!(script.matches("*(.text)\n").count(), 1, "{script}");
        let err = relocatable_script(
            &sections,
            &names(&[".text", ".text", ".text", ".text.unlikely"]),
        );
        insta::assert_snapshot!(format!("{:#}", err.unwrap_err()));
    }

    #[test]
    fn bad_orders_are_refused() {
        let sections = [
            section(".text.a", false),
            section(".text.b", false),
            section(".text._Z1t", true),
        ];
        let err = |order: &[&str]| {
            format!(
                "{:#}",
                relocatable_script(&sections, &names(order)).unwrap_err()
            )
        };
        let orders: [&[&str]; 4] = [
            &[".text.a"],
            &[".text.a", ".text.b", ".text.a"],
            &[".text.a", ".text.b", ".text.c"],
            &[".text.a", ".text.b", ".text._Z1t"],
        ];
        let messages: Vec<String> = orders
            .iter()
            .map(|order| format!("{order:?}: {}", err(order)))
            .collect();
        insta::assert_snapshot!(messages.join("\n"));
    }
}
