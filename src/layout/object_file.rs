//! The executable sections of a relocatable object (`.o`): what can be reordered in it.
//!
//! Compiled with `-ffunction-sections`, every function sits in its own section, so a
//! module's function order is the order of these sections. gcc also sorts code by
//! temperature into section-name groups (`.text.unlikely.*` for cold code and `f.cold`
//! parts, `.text.startup.*` for `main` and static constructors, `.text.hot.*`,
//! `.text.exit.*`), which bfd and gold gather across modules; a randomised layout keeps those
//! groups, so each section is classified here exactly as binutils' default linker script
//! does. Sections in a group (`SHF_GROUP`: C++ inline functions and templates, COMDAT) are
//! marked, because they must stay in their group to be de-duplicated at the final link.

use std::path::Path;

use anyhow::{bail, Context, Result};
use object::{
    Object, ObjectComdat, ObjectSection, ObjectSymbol, SectionFlags, SymbolKind, SymbolSection,
};
use serde::{Deserialize, Serialize};

/// gcc's code groups, in the order binutils' default script places them inside `.text`
/// (`ld --verbose`): unlikely, exit, startup, hot, then ordinary code.
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
pub enum TextGroup {
    /// `.text.unlikely`, `.text.unlikely.*`, `.text.*_unlikely`: cold code, `f.cold` parts.
    Unlikely,
    /// `.text.exit`, `.text.exit.*`: code only run at exit.
    Exit,
    /// `.text.startup`, `.text.startup.*`: `main`, static constructors.
    Startup,
    /// `.text.hot`, `.text.hot.*`: functions marked or profiled hot.
    Hot,
    /// `.text` and every other `.text.*`: ordinary code.
    Normal,
    /// Any other executable section (`.init`, `.fini`, `.text.sorted.*`, `.gnu.linkonce.t.*`,
    /// user-named sections): placed by special rules, never reordered.
    Other,
}

impl TextGroup {
    /// Classifies an executable section by name, with binutils' default-script patterns.
    pub(crate) fn of(section_name: &str) -> TextGroup {
        let is = |prefix: &str| {
            section_name == prefix
                || section_name
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('.'))
        };
        if is(".text.unlikely")
            || (section_name.starts_with(".text.") && section_name.ends_with("_unlikely"))
        {
            TextGroup::Unlikely
        } else if is(".text.exit") {
            TextGroup::Exit
        } else if is(".text.startup") {
            TextGroup::Startup
        } else if is(".text.hot") {
            TextGroup::Hot
        } else if section_name.starts_with(".text.sorted.") {
            TextGroup::Other
        } else if is(".text") {
            TextGroup::Normal
        } else {
            TextGroup::Other
        }
    }

    /// Whether sections of this group may be reordered.
    pub(crate) fn is_reorderable(self) -> bool {
        self != TextGroup::Other
    }

    /// All reorderable groups in their natural (default-script) order.
    pub const REORDERABLE: [TextGroup; 5] = [
        TextGroup::Unlikely,
        TextGroup::Exit,
        TextGroup::Startup,
        TextGroup::Hot,
        TextGroup::Normal,
    ];

    /// The section name that the group's code is gathered into when a module is relinked
    /// with `ld -r`; each name still matches its group's pattern in the final link's default
    /// script. `None` for [`TextGroup::Other`].
    pub(crate) fn merged_section_name(self) -> Option<&'static str> {
        match self {
            TextGroup::Unlikely => Some(".text.unlikely"),
            TextGroup::Exit => Some(".text.exit"),
            TextGroup::Startup => Some(".text.startup"),
            TextGroup::Hot => Some(".text.hot"),
            TextGroup::Normal => Some(".text"),
            TextGroup::Other => None,
        }
    }
}

/// One executable section of a relocatable object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TextSection {
    /// Index of the section in the object's section header table.
    pub index: usize,
    /// Section name, e.g. `.text.main` or `.text.unlikely.parse`.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Required alignment in bytes.
    pub(crate) align: u64,
    /// The gcc group the section belongs to.
    pub group: TextGroup,
    /// The section is a member of a section group (`SHF_GROUP`, normally COMDAT: C++ inline
    /// functions, templates): it must be left where it is.
    pub comdat: bool,
    /// Names of the function symbols (`STT_FUNC`/`STT_GNU_IFUNC`) defined in the section, by
    /// ascending offset then name (one for `-ffunction-sections` code; several when a
    /// module was compiled without it; `f.cold` for a cold part).
    pub functions: Vec<String>,
}

impl TextSection {
    /// Whether the section may be moved: in a reorderable group and not in a COMDAT group.
    pub fn is_reorderable(&self) -> bool {
        self.group.is_reorderable() && !self.comdat
    }
}

/// The executable sections of the relocatable object at `path`, in section-table order.
///
/// Works for gcc and clang objects, C and C++. Errors, naming the path: unreadable, not
/// ELF (e.g. LLVM bitcode from `-flto`), or not relocatable (a linked binary).
pub fn text_sections(path: &Path) -> Result<Vec<TextSection>> {
    let data =
        std::fs::read(path).with_context(|| format!("cannot read object {}", path.display()))?;
    text_sections_from_bytes(&data)
        .with_context(|| format!("cannot list the code sections of {}", path.display()))
}

/// [`text_sections`] on an object already in memory.
pub(crate) fn text_sections_from_bytes(data: &[u8]) -> Result<Vec<TextSection>> {
    let file = parse_relocatable(data)?;
    let mut in_group = std::collections::HashSet::new();
    for comdat in file.comdats() {
        in_group.extend(comdat.sections().map(|s| s.0));
    }
    let mut sections = Vec::new();
    for section in file.sections() {
        let SectionFlags::Elf { sh_flags } = section.flags() else {
            continue;
        };
        if sh_flags & u64::from(object::elf::SHF_EXECINSTR) == 0 {
            continue;
        }
        let name = section
            .name()
            .with_context(|| format!("section {} has no valid name", section.index().0))?
            .to_string();
        let grouped = sh_flags & u64::from(object::elf::SHF_GROUP) != 0
            || in_group.contains(&section.index().0);
        sections.push(TextSection {
            index: section.index().0,
            group: TextGroup::of(&name),
            name,
            size: section.size(),
            align: section.align(),
            comdat: grouped,
            functions: Vec::new(),
        });
    }
    let mut defined: Vec<(usize, u64, String)> = Vec::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Text {
            continue;
        }
        if let SymbolSection::Section(index) = symbol.section() {
            let name = symbol.name().context("a symbol name is not valid UTF-8")?;
            defined.push((index.0, symbol.address(), name.to_string()));
        }
    }
    defined.sort();
    for (index, _, name) in defined {
        if let Some(section) = sections.iter_mut().find(|s| s.index == index) {
            if !section.functions.contains(&name) {
                section.functions.push(name);
            }
        }
    }
    Ok(sections)
}

/// The signatures of the COMDAT groups of the relocatable object `data` (for C++, the
/// mangled name of the inline or template function or object the group holds).
pub(crate) fn comdat_signatures(data: &[u8]) -> Result<std::collections::BTreeSet<String>> {
    let file = parse_relocatable(data)?;
    let mut names = std::collections::BTreeSet::new();
    for comdat in file.comdats() {
        names.insert(
            comdat
                .name()
                .context("a COMDAT group's signature is not valid UTF-8")?
                .to_string(),
        );
    }
    Ok(names)
}

/// Whether the relocatable object carries GCC LTO bytecode (`.gnu.lto_*` sections): its
/// code is generated at link time, so its sections cannot be reordered before the link.
pub(crate) fn has_gcc_lto_bytecode(data: &[u8]) -> Result<bool> {
    let file = parse_relocatable(data)?;
    Ok(file
        .sections()
        .any(|s| s.name().is_ok_and(|n| n.starts_with(".gnu.lto_"))))
}

fn parse_relocatable(data: &[u8]) -> Result<object::File<'_>> {
    match object::FileKind::parse(data) {
        Ok(object::FileKind::Elf32 | object::FileKind::Elf64) => {}
        Ok(kind) => bail!("not an ELF object (it is {kind:?})"),
        Err(_) if data.starts_with(b"BC\xc0\xde") => {
            bail!(
                "not an ELF object: LLVM bitcode (clang -flto); its code is generated at link time"
            )
        }
        Err(_) => bail!("not an ELF object (unrecognised format)"),
    }
    let file = object::File::parse(data).context("malformed ELF object")?;
    if file.kind() != object::ObjectKind::Relocatable {
        bail!(
            "not a relocatable object (.o) but a {:?} ELF file",
            file.kind()
        );
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_follows_the_default_script() {
        assert_eq!(TextGroup::of(".text"), TextGroup::Normal);
        assert_eq!(TextGroup::of(".text.main"), TextGroup::Normal);
        assert_eq!(TextGroup::of(".text.unlikely"), TextGroup::Unlikely);
        assert_eq!(TextGroup::of(".text.unlikely.parse"), TextGroup::Unlikely);
        assert_eq!(TextGroup::of(".text.foo_unlikely"), TextGroup::Unlikely);
        assert_eq!(TextGroup::of(".text.startup.main"), TextGroup::Startup);
        assert_eq!(TextGroup::of(".text.startup"), TextGroup::Startup);
        assert_eq!(TextGroup::of(".text.hot.loop"), TextGroup::Hot);
        assert_eq!(TextGroup::of(".text.exit.fini_fn"), TextGroup::Exit);
        // A function merely named like a prefix is ordinary code.
        assert_eq!(TextGroup::of(".text.hotel"), TextGroup::Normal);
        assert_eq!(TextGroup::of(".text.startups"), TextGroup::Normal);
        assert_eq!(TextGroup::of(".text.sorted.0001"), TextGroup::Other);
        assert_eq!(TextGroup::of(".init"), TextGroup::Other);
        assert_eq!(TextGroup::of(".gnu.linkonce.t.foo"), TextGroup::Other);
        assert_eq!(TextGroup::of(".textual"), TextGroup::Other);
    }

    #[test]
    fn merged_names_classify_back_to_their_group() {
        for group in TextGroup::REORDERABLE {
            let name = group.merged_section_name().unwrap();
            assert_eq!(TextGroup::of(name), group, "{name}");
        }
        assert_eq!(TextGroup::Other.merged_section_name(), None);
    }

    #[test]
    fn bitcode_is_named() {
        let err = text_sections_from_bytes(b"BC\xc0\xde\x35\x14\x00\x00").unwrap_err();
        assert!(format!("{err:#}").contains("LLVM bitcode"), "{err:#}");
    }
}
