//! The static-data sections of a relocatable object that `build --data-order` moves, and the
//! output-section family each belongs to.
//!
//! With `-fdata-sections` gcc and clang put each static variable or constant in a section of
//! its own (`.data.counter`, `.rodata.table`, `.bss.buffer`, `.data.rel.ro.vtable`,
//! `.tdata.x`); every final linker's default layout gathers each family into one output
//! section (`.data`, `.rodata`, `.bss`, `.data.rel.ro`, `.tdata`, `.tbss`) in input order, so
//! the order of those input sections is the order of the program's data. What is not moved,
//! and why:
//! * mergeable sections (`SHF_MERGE`: string literals `.rodata.str1.1`, constants
//!   `.rodata.cst16`): the linker merges their contents across objects, so their order is
//!   its own, not the inputs';
//! * sections of a COMDAT group (C++ inline variables, template statics, vtables of inline
//!   classes): they must stay with their group;
//! * common symbols (`-fcommon`, gcc's default before gcc 10): they have no section until
//!   the final link allocates them;
//! * anything else (`.init_array`, `.eh_frame`, `.got`, notes), which has a fixed layout.

use anyhow::{Context, Result};
use object::{Object, ObjectComdat, ObjectSection, SectionFlags};

/// The output section a static-data input section is gathered into by the default layout of
/// bfd, gold, lld and mold, in the order they place them (TLS first, then the relocated
/// read-only data, read-only data, data, zeroed data).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum DataFamily {
    /// `.tdata`, `.tdata.*`: initialised thread-local data.
    Tdata,
    /// `.tbss`, `.tbss.*`: zeroed thread-local data.
    Tbss,
    /// `.data.rel.ro.local`, `.data.rel.ro.local.*`: read-only after relocation, local targets.
    DataRelRoLocal,
    /// `.data.rel.ro`, `.data.rel.ro.*`: read-only after relocation.
    DataRelRo,
    /// `.rodata`, `.rodata.*` (not mergeable): constants.
    Rodata,
    /// `.data`, `.data.*` (`.data.rel`, `.data.rel.local` included): initialised data.
    Data,
    /// `.bss`, `.bss.*`: zeroed data.
    Bss,
}

impl DataFamily {
    /// Every family, in the order [`DataFamily`] lists them.
    pub(crate) const ALL: [DataFamily; 7] = [
        DataFamily::Tdata,
        DataFamily::Tbss,
        DataFamily::DataRelRoLocal,
        DataFamily::DataRelRo,
        DataFamily::Rodata,
        DataFamily::Data,
        DataFamily::Bss,
    ];

    /// The family of the input section `name` (`None`: not static data this module moves).
    pub(crate) fn of(name: &str) -> Option<DataFamily> {
        let is = |prefix: &str| name == prefix || name.starts_with(&format!("{prefix}."));
        // Longest prefixes first: `.data.rel.ro.local.x` is also a `.data.` name.
        if is(".data.rel.ro.local") {
            Some(DataFamily::DataRelRoLocal)
        } else if is(".data.rel.ro") {
            Some(DataFamily::DataRelRo)
        } else if is(".tdata") {
            Some(DataFamily::Tdata)
        } else if is(".tbss") {
            Some(DataFamily::Tbss)
        } else if is(".rodata") {
            Some(DataFamily::Rodata)
        } else if is(".data") {
            Some(DataFamily::Data)
        } else if is(".bss") {
            Some(DataFamily::Bss)
        } else {
            None
        }
    }

    /// The name that keeps a section in this family in every final linker's default layout:
    /// the merged object's output sections are `<name>.lrd<k>`.
    pub(crate) fn merged_section_name(self) -> &'static str {
        match self {
            DataFamily::Tdata => ".tdata",
            DataFamily::Tbss => ".tbss",
            DataFamily::DataRelRoLocal => ".data.rel.ro.local",
            DataFamily::DataRelRo => ".data.rel.ro",
            DataFamily::Rodata => ".rodata",
            DataFamily::Data => ".data",
            DataFamily::Bss => ".bss",
        }
    }

    /// The family and rank `k` of a merged object's output section `<family>.lrd<k>`
    /// (`None` for any other name, relocation sections `.rela.data.lrd<k>` included).
    pub(crate) fn of_merged(name: &str) -> Option<(DataFamily, usize)> {
        let (prefix, rank) = name.rsplit_once(".lrd")?;
        let rank = rank.parse().ok()?;
        DataFamily::ALL
            .into_iter()
            .find(|f| f.merged_section_name() == prefix)
            .map(|f| (f, rank))
    }
}

/// One static-data section of a relocatable object that a seed may move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DataSection {
    /// Index of the section in the object's section header table.
    pub(crate) index: usize,
    /// Section name, e.g. `.rodata.table`.
    pub(crate) name: String,
    /// The output section it is gathered into.
    pub(crate) family: DataFamily,
}

/// The movable static-data sections of the relocatable object at `path`, in section-table
/// order: allocated, not executable, not mergeable, not in a section group, named in a
/// [`DataFamily`]. Errors name the path (unreadable, not a relocatable ELF object).
pub(crate) fn data_sections(path: &std::path::Path) -> Result<Vec<DataSection>> {
    let data =
        std::fs::read(path).with_context(|| format!("cannot read object {}", path.display()))?;
    data_sections_from_bytes(&data)
        .with_context(|| format!("cannot list the data sections of {}", path.display()))
}

/// [`data_sections`] on an object already in memory.
pub(crate) fn data_sections_from_bytes(data: &[u8]) -> Result<Vec<DataSection>> {
    let file = object::File::parse(data).context("not an object file")?;
    anyhow::ensure!(
        file.kind() == object::ObjectKind::Relocatable,
        "not a relocatable object"
    );
    let mut in_group = std::collections::HashSet::new();
    for comdat in file.comdats() {
        in_group.extend(comdat.sections().map(|s| s.0));
    }
    let excluded =
        u64::from(object::elf::SHF_EXECINSTR | object::elf::SHF_MERGE | object::elf::SHF_GROUP);
    let mut sections = Vec::new();
    for section in file.sections() {
        let SectionFlags::Elf { sh_flags } = section.flags() else {
            continue;
        };
        if sh_flags & u64::from(object::elf::SHF_ALLOC) == 0
            || sh_flags & excluded != 0
            || in_group.contains(&section.index().0)
        {
            continue;
        }
        let Ok(name) = section.name() else {
            continue;
        };
        if let Some(family) = DataFamily::of(name) {
            sections.push(DataSection {
                index: section.index().0,
                name: name.to_string(),
                family,
            });
        }
    }
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_by_name_longest_prefix_first() {
        assert_eq!(
            DataFamily::of(".data.rel.ro.local.vt"),
            Some(DataFamily::DataRelRoLocal)
        );
        assert_eq!(
            DataFamily::of(".data.rel.ro.tbl"),
            Some(DataFamily::DataRelRo)
        );
        assert_eq!(DataFamily::of(".data.rel.local.p"), Some(DataFamily::Data));
        assert_eq!(DataFamily::of(".data"), Some(DataFamily::Data));
        assert_eq!(DataFamily::of(".rodata.table"), Some(DataFamily::Rodata));
        assert_eq!(DataFamily::of(".bss.buffer"), Some(DataFamily::Bss));
        assert_eq!(DataFamily::of(".tbss.x"), Some(DataFamily::Tbss));
        assert_eq!(DataFamily::of(".tdata"), Some(DataFamily::Tdata));
        assert_eq!(DataFamily::of(".datax"), None);
        assert_eq!(DataFamily::of(".rodata1"), None);
        assert_eq!(DataFamily::of(".text.data"), None);
        assert_eq!(DataFamily::of(".init_array"), None);
    }

    #[test]
    fn merged_names_read_back_and_relocation_sections_do_not() {
        for family in DataFamily::ALL {
            let name = format!("{}.lrd12", family.merged_section_name());
            assert_eq!(DataFamily::of_merged(&name), Some((family, 12)), "{name}");
            assert_eq!(DataFamily::of(&name), Some(family), "{name}");
            assert_eq!(DataFamily::of_merged(&format!(".rela{name}")), None);
        }
        assert_eq!(DataFamily::of_merged(".text.lr3"), None);
        assert_eq!(DataFamily::of_merged(".data.lrdx"), None);
    }
}
