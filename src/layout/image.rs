//! What two linked binaries hold beyond their function lists: the size of each allocated
//! section and each function's bytes. Two binaries can have the same functions (names and
//! sizes) at the same addresses and still differ: a relink through `ld -r` merges strings
//! otherwise (`.rodata` of another size), or puts other no-op padding inside a function. The
//! comparison of a baseline with the build's own binary ([`crate::build::as_built`]) uses
//! these to say what differs rather than "the same".

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use object::{Object, ObjectSection, SectionFlags};

use super::binary::Function;

/// A linked binary in memory, with its allocated sections.
pub struct Image {
    data: Vec<u8>,
    sections: Vec<Section>,
}

/// One allocated section of an [`Image`].
struct Section {
    name: String,
    address: u64,
    size: u64,
    /// `(offset, size)` in the file; `None` for a section without contents (`.bss`).
    file_range: Option<(u64, u64)>,
}

/// An allocated section whose size differs between two binaries, or that only one has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionDifference {
    /// The section's name (sizes of sections of the same name added up).
    pub name: String,
    /// Its size in the first binary (`None`: it has none).
    pub first: Option<u64>,
    /// Its size in the second binary (`None`: it has none).
    pub second: Option<u64>,
}

/// How many functions of two binaries hold other bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CodeDifferences {
    /// Functions compared (pairs of the same name and size).
    pub compared: usize,
    /// Of those, how many hold other bytes.
    pub differ: usize,
    /// Of those that differ, how many differ only in x86 no-op instructions (padding).
    pub only_nops: usize,
}

impl Image {
    /// Reads the ELF binary at `path`.
    pub fn read(path: &Path) -> Result<Image> {
        let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let sections = {
            let file = object::File::parse(&*data)
                .with_context(|| format!("{} is not an ELF binary", path.display()))?;
            file.sections()
                .filter(|s| match s.flags() {
                    SectionFlags::Elf { sh_flags } => {
                        sh_flags & u64::from(object::elf::SHF_ALLOC) != 0
                    }
                    _ => false,
                })
                .map(|s| {
                    let name = s.name().unwrap_or("").to_string();
                    let range = match s.kind() {
                        object::SectionKind::UninitializedData
                        | object::SectionKind::UninitializedTls => None,
                        _ => s.file_range(),
                    };
                    Section {
                        name,
                        address: s.address(),
                        size: s.size(),
                        file_range: range,
                    }
                })
                .collect()
        };
        Ok(Image { data, sections })
    }

    /// Each allocated section's size by name (sections of one name added up).
    pub fn section_sizes(&self) -> BTreeMap<&str, u64> {
        let mut sizes = BTreeMap::new();
        for section in &self.sections {
            *sizes.entry(section.name.as_str()).or_insert(0) += section.size;
        }
        sizes
    }

    /// The bytes of `size` bytes at `address`, when a section with contents holds them all.
    pub fn bytes_at(&self, address: u64, size: u64) -> Option<&[u8]> {
        let from = usize::try_from(self.file_offset(address, size)?).ok()?;
        self.data
            .get(from..from.checked_add(usize::try_from(size).ok()?)?)
    }

    /// Where in the file the `size` bytes at `address` are, when a section with contents
    /// holds them all.
    pub fn file_offset(&self, address: u64, size: u64) -> Option<u64> {
        let end = address.checked_add(size)?;
        let section = self.sections.iter().find(|s| {
            s.file_range.is_some()
                && s.address <= address
                && end <= s.address.saturating_add(s.size)
        })?;
        let (offset, file_size) = section.file_range?;
        let skip = address - section.address;
        (skip.checked_add(size)? <= file_size).then_some(offset + skip)
    }
}

/// The allocated sections of `first` and `second` that differ in size or exist in one only,
/// in name order.
pub fn section_differences(first: &Image, second: &Image) -> Vec<SectionDifference> {
    let (a, b) = (first.section_sizes(), second.section_sizes());
    let mut names: Vec<&str> = a.keys().chain(b.keys()).copied().collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| {
            let (x, y) = (a.get(name).copied(), b.get(name).copied());
            (x != y).then(|| SectionDifference {
                name: name.to_string(),
                first: x,
                second: y,
            })
        })
        .collect()
}

/// Compares the bytes of the functions `first_functions` of `first` with those of
/// `second_functions` of `second`, pair by pair (the lists hold the same functions in the
/// same order, as the caller has checked); a pair whose bytes cannot be read is not counted.
pub fn code_differences(
    first: &Image,
    first_functions: &[Function],
    second: &Image,
    second_functions: &[Function],
) -> CodeDifferences {
    let mut d = CodeDifferences::default();
    for (f, g) in first_functions.iter().zip(second_functions) {
        let (Some(x), Some(y)) = (
            first.bytes_at(f.address, f.size),
            second.bytes_at(g.address, g.size),
        ) else {
            continue;
        };
        d.compared += 1;
        if x != y {
            d.differ += 1;
            if without_nops(x) == without_nops(y) {
                d.only_nops += 1;
            }
        }
    }
    d
}

/// The x86 no-op instructions assemblers use for padding (Intel SDM vol. 2B, "NOP": the
/// recommended multi-byte sequences), longest first; each may carry extra `66` prefixes and
/// a `2e` segment prefix (`data16 cs nopw`).
const NOPS: [&[u8]; 7] = [
    &[0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0],
    &[0x0f, 0x1f, 0x80, 0, 0, 0, 0],
    &[0x0f, 0x1f, 0x44, 0, 0],
    &[0x0f, 0x1f, 0x40, 0],
    &[0x0f, 0x1f, 0x00],
    &[0x66, 0x90],
    &[0x90],
];

/// `code` with every x86 no-op sequence removed, byte-wise: a byte that only looks like one
/// inside another instruction is removed from both sides alike, so this serves to tell code
/// that differs only in padding.
fn without_nops(code: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        match nop_at(&code[i..]) {
            Some(len) => i += len,
            None => {
                out.push(code[i]);
                i += 1;
            }
        }
    }
    out
}

/// The length of the no-op sequence at the start of `code`, if one is there.
fn nop_at(code: &[u8]) -> Option<usize> {
    let mut at = code.iter().take_while(|&&b| b == 0x66).count();
    if code.get(at) == Some(&0x2e) {
        at += 1;
    }
    NOPS.iter()
        .find(|n| code[at..].starts_with(n))
        .map(|n| at + n.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_told_from_code() {
        // ret; then 7-byte nopl, then ret
        let a = [0xc3, 0x0f, 0x1f, 0x80, 0, 0, 0, 0, 0xc3];
        // ret; data16 cs nopw (10 bytes) then xchg %ax,%ax, then ret
        let b = [
            0xc3, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0, 0x66, 0x90, 0xc3,
        ];
        assert_eq!(without_nops(&a), [0xc3, 0xc3]);
        assert_eq!(without_nops(&b), [0xc3, 0xc3]);
        // mov $1,%eax; ret against mov $2,%eax; ret: not padding.
        let c = [0xb8, 1, 0, 0, 0, 0xc3];
        let d = [0xb8, 2, 0, 0, 0, 0xc3];
        assert_ne!(without_nops(&c), without_nops(&d));
        // A lone 66 prefix that starts no no-op stays.
        assert_eq!(without_nops(&[0x66, 0x89, 0xc8]), [0x66, 0x89, 0xc8]);
    }
}
