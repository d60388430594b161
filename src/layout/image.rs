//! What two linked binaries hold beyond their function lists: the size of each allocated
//! section and each function's bytes. Two binaries can have the same functions (names and
//! sizes) at the same addresses and still differ: a relink through `ld -r` merges strings
//! otherwise (`.rodata` of another size), or puts other no-op padding inside a function. The
//! comparison of a baseline with the build's own binary ([`crate::relink::as_built`]) uses
//! these to say what differs rather than "the same".

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use object::{Object, ObjectSection, SectionFlags};
use serde::{Deserialize, Serialize};

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

/// An allocated section whose size differs between a baseline and the build's own binary,
/// or that only one has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SectionDifference {
    /// The section's name (sizes of sections of the same name added up).
    pub name: String,
    /// Its size in the baseline, in bytes (`None`: it has none).
    pub baseline: Option<u64>,
    /// Its size in the build's own binary, in bytes (`None`: it has none).
    pub as_built: Option<u64>,
}

/// How many functions of two binaries hold other bytes, by kind of difference.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CodeDifferences {
    /// Functions compared (pairs of the same name and size).
    pub compared: usize,
    /// Of those, how many hold other bytes.
    pub differ: usize,
    /// Of those that differ, how many differ only in x86 no-op instructions (padding).
    pub padding_only: usize,
    /// Of those that differ, how many differ only in the 4-byte operands of PC-relative
    /// instructions (see [`only_displacements`]): the same instructions reaching code or data
    /// laid out elsewhere.
    pub displacements_only: usize,
    /// The names of the others: a difference in the instructions themselves.
    pub other: Vec<String>,
}

/// What two binaries with the same functions hold otherwise: the allocated sections of
/// other sizes and, when every function is at the same address in both, their bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BytesDifference {
    /// The allocated sections that differ in size or exist in one only, in name order.
    pub sections: Vec<SectionDifference>,
    /// The functions' bytes compared (`None`: not every function is at the same address, so
    /// their bytes were not compared).
    pub code: Option<CodeDifferences>,
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
    pub(crate) fn section_sizes(&self) -> BTreeMap<&str, u64> {
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

    /// The bytes from `address` to the end of the section with contents holding it, at most
    /// `max` of them.
    pub(crate) fn bytes_from(&self, address: u64, max: u64) -> Option<&[u8]> {
        let section = self.sections.iter().find(|s| {
            s.file_range.is_some()
                && s.address <= address
                && address < s.address.saturating_add(s.size)
        })?;
        let size = (section.address + section.size - address).min(max);
        self.bytes_at(address, size)
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

/// The allocated sections of `baseline` and `own` (the build's binary) that differ in size
/// or exist in one only, in name order.
pub fn section_differences(baseline: &Image, own: &Image) -> Vec<SectionDifference> {
    let (a, b) = (baseline.section_sizes(), own.section_sizes());
    let mut names: Vec<&str> = a.keys().chain(b.keys()).copied().collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| {
            let (x, y) = (a.get(name).copied(), b.get(name).copied());
            (x != y).then(|| SectionDifference {
                name: name.to_string(),
                baseline: x,
                as_built: y,
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
        if x == y {
            continue;
        }
        d.differ += 1;
        if without_nops(x) == without_nops(y) {
            d.padding_only += 1;
        } else if only_displacements(x, y) {
            d.displacements_only += 1;
        } else {
            d.other.push(f.name.clone());
        }
    }
    d
}

/// Whether `x` and `y` (one function's bytes in two binaries) differ only inside the 4-byte
/// operands of PC-relative instructions: every differing byte lies in a field that, in both,
/// follows a `call`/`jmp` rel32 (`e8`, `e9`), a `jcc` rel32 (`0f 80`..`0f 8f`) or a ModRM
/// byte of RIP-relative addressing (mod 00, r/m 101) after a memory-operand opcode (Intel
/// SDM vol. 2A, 2.2.1.6 "RIP-Relative Addressing"). A byte-pattern test, not a decoder: an
/// immediate operand that happens to follow such bytes would be taken for a displacement,
/// so the test asks the pattern of both sides and at the same place; anything it cannot
/// place is a difference in code.
pub(crate) fn only_displacements(x: &[u8], y: &[u8]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let field_at =
        |k: usize| k + 4 <= x.len() && displacement_field(x, k) && displacement_field(y, k);
    // Each differing byte must lie in some field; fields are not chained from the first one
    // found, since bytes that only look like a RIP-relative operand (`add $5,%edi` is
    // `83 c7 05`, and `c7 05` reads as a ModRM memory form) can end inside the real one.
    (0..x.len())
        .filter(|&i| x[i] != y[i])
        .all(|i| (i.saturating_sub(3)..=i).any(field_at))
}

/// Whether the one-byte opcode `op` takes a ModRM memory operand in compiled code (Intel SDM
/// vol. 2D, appendix A, table A-2, the one-byte opcode map): `mov`, `lea`, `movslq`, the
/// arithmetic of 8 and 32/64 bits, `cmp`, `test`, `xchg`, `imul` with an immediate (`69`,
/// `6b`), `pop` to memory (`8f`), the group 1/2/3/5 forms (`or %al,flags(%rip)` is `08 05`,
/// `shll $3,n(%rip)` is `c1 25`), and the x87 escapes `d8`–`df` (`flds .LC(%rip)` is `d9
/// 05`: a table without them took lz4's floating-point constants for other code).
fn takes_modrm(op: u8) -> bool {
    matches!(op,
        0x00..=0x03 | 0x08..=0x0b | 0x10..=0x13 | 0x18..=0x1b | 0x20..=0x23 | 0x28..=0x2b
        | 0x30..=0x33 | 0x38..=0x3b | 0x63 | 0x69 | 0x6b | 0x80..=0x8b | 0x8d | 0x8f
        | 0xc0 | 0xc1 | 0xc6 | 0xc7 | 0xd0..=0xd3 | 0xd8..=0xdf | 0xf6 | 0xf7 | 0xfe | 0xff)
}

/// Whether the two-byte opcode `0f op` takes a ModRM operand (Intel SDM vol. 2D, appendix A,
/// table A-3, the two-byte opcode map): the SSE and SSE2 moves, arithmetic, logic, shuffles and
/// compares (`0f 10`–`17`, `28`–`2f`, `50`–`7f` but `77`, `c2`–`c6`, `d0`–`ff`: `pxor
/// .LC0(%rip),%xmm0` is `66 0f ef 05`), `cmovcc` (`40`–`4f`), `setcc` (`90`–`9f`), the bit
/// tests, `imul`, `cmpxchg`, `movzx`/`movsx`, `popcnt`, `xadd` (`a3`–`c1`, `c7`), and the
/// hint no-ops (`18`–`1f`). A table of the common ones missed clang's vector constants.
fn takes_modrm_0f(op: u8) -> bool {
    matches!(op,
        0x10..=0x1f | 0x28..=0x2f | 0x40..=0x4f | 0x50..=0x76 | 0x78..=0x7f | 0x90..=0x9f
        | 0xa3..=0xa5 | 0xab..=0xad | 0xaf..=0xb1 | 0xb3 | 0xb6..=0xc7 | 0xd0..=0xff)
}

/// Whether the 4 bytes at `k` of `code` are, by the bytes before them, a PC-relative
/// operand ([`only_displacements`]): a `call`/`jmp`/`jcc` rel32, or a RIP-relative ModRM
/// (`mod = 00`, `r/m = 101`) after an opcode that takes one, in the one-byte map, the
/// two-byte map (`0f xx`), the three-byte maps (`0f 38 xx`, `0f 3a xx`: every opcode takes
/// ModRM), a VEX-encoded instruction (`c5 P op ModRM`, `c4 P P op ModRM`: AVX code) or an
/// EVEX-encoded one (`62 P P P op ModRM`: AVX-512 code).
fn displacement_field(code: &[u8], k: usize) -> bool {
    let before = |n: usize| k.checked_sub(n).map(|i| code[i]);
    let rel32 = matches!(before(1), Some(0xe8 | 0xe9))
        || (before(2) == Some(0x0f) && before(1).is_some_and(|b| b & 0xf0 == 0x80));
    let rip_modrm = before(1).is_some_and(|m| m & 0xc7 == 0x05);
    let memory_opcode = before(2).is_some_and(takes_modrm)
        || (before(3) == Some(0x0f) && before(2).is_some_and(takes_modrm_0f))
        || (before(4) == Some(0x0f) && matches!(before(3), Some(0x38 | 0x3a)))
        || before(4) == Some(0xc5)
        || before(5) == Some(0xc4)
        || before(6) == Some(0x62);
    rel32 || (rip_modrm && memory_opcode)
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

    /// gcc's `t5_step` under LTO: `add $5,%edi` (`83 c7 05`) right before `call rel32`; the
    /// bytes `c7 05` also read as a RIP-relative ModRM form, whose "field" would end one
    /// byte short of the call's operand. A call elsewhere changes the operand's last bytes.
    #[test]
    fn a_call_after_bytes_that_look_rip_relative_is_a_displacement() {
        let a = [0x83, 0xc7, 0x05, 0xe8, 0x98, 0xfe, 0xff, 0xff, 0xc3];
        let b = [0x83, 0xc7, 0x05, 0xe8, 0x98, 0x1f, 0x00, 0x00, 0xc3];
        assert!(only_displacements(&a, &b));
        let mut c = b;
        c[8] = 0xc2;
        assert!(!only_displacements(&a, &c));
    }

    /// clang's vector constants under LTO (`-O2 -flto`, the staticdata fixture with
    /// `--data-order`): `pxor .LCPI(%rip),%xmm0` is `66 0f ef 05 disp32`, an SSE2 opcode
    /// the former table of common two-byte opcodes lacked, so every seed failed the check.
    /// The same for the three-byte map (`pshufb`: `66 0f 38 00 05`) and VEX (`vmovdqa
    /// .LC(%rip),%xmm0`: `c5 f9 6f 05`; `vpshufb`: `c4 e2 79 00 05`).
    #[test]
    fn sse_and_avx_rip_operands_are_displacements() {
        for prefix in [
            &[0x66, 0x0f, 0xef, 0x05][..],
            &[0x66, 0x0f, 0x38, 0x00, 0x05],
            &[0x66, 0x0f, 0x3a, 0x0f, 0x05],
            &[0xc5, 0xf9, 0x6f, 0x05],
            &[0xc4, 0xe2, 0x79, 0x00, 0x05],
        ] {
            let a = [prefix, &[0x34, 0x0c, 0, 0, 0xc3]].concat();
            let b = [prefix, &[0x10, 0x0d, 0, 0, 0xc3]].concat();
            assert!(only_displacements(&a, &b), "{prefix:02x?}");
            // The same bytes after an opcode that takes no ModRM (`0f 77`, emms) are code.
            let c = [&[0x0f, 0x77, 0x05][..], &[0x34, 0x0c, 0, 0, 0xc3]].concat();
            let d = [&[0x0f, 0x77, 0x05][..], &[0x10, 0x0d, 0, 0, 0xc3]].concat();
            assert!(!only_displacements(&c, &d));
        }
    }

    /// lz4 1.9.4 (gcc 12, `-O2`): `LZ4IO_displayCompressedFilesInfo` loads floating-point
    /// constants with x87 instructions (`flds .LC(%rip)` is `d9 05 disp32`, `fadds` `d8 05`,
    /// `fldt` `db 2d`), which the former table of one-byte opcodes lacked: every seed of
    /// `--data-order` failed, and the as-built comparison counted the function as other code.
    /// The same for `imul $7,n(%rip),%eax` (`6b 05 disp32 07`), `shll $3,n(%rip)` (`c1 25
    /// disp32 03`) and an AVX-512 load (`vmovdqu64 .LC(%rip),%zmm0`: `62 f1 fe 48 6f 05`).
    #[test]
    fn x87_imul_shift_and_evex_rip_operands_are_displacements() {
        for (prefix, after) in [
            (&[0xd9, 0x05][..], &[0xc3][..]),
            (&[0xd8, 0x05], &[0xc3]),
            (&[0xdb, 0x2d], &[0xc3]),
            (&[0x6b, 0x05], &[0x07, 0xc3]),
            (&[0xc1, 0x25], &[0x03, 0xc3]),
            (&[0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x05], &[0xc3]),
        ] {
            let a = [prefix, &[0xd3, 0x3c, 0, 0], after].concat();
            let b = [prefix, &[0x73, 0x3c, 0, 0], after].concat();
            assert!(only_displacements(&a, &b), "{prefix:02x?}");
            // Another immediate after the same displacement is other code.
            let mut c = b.clone();
            c[prefix.len() + 4] ^= 1;
            assert!(!only_displacements(&a, &c), "{prefix:02x?}");
        }
    }

    #[test]
    fn displacements_are_told_from_code() {
        // call rel32; mov 0x...(%rip),%eax; ret — then the same with other targets.
        let a = [0xe8, 1, 2, 3, 4, 0x8b, 0x05, 0x10, 0, 0, 0, 0xc3];
        let b = [0xe8, 9, 2, 3, 0, 0x8b, 0x05, 0x20, 0, 0, 0, 0xc3];
        assert!(only_displacements(&a, &b));
        // jne rel32 with another target.
        assert!(only_displacements(
            &[0x0f, 0x85, 1, 0, 0, 0],
            &[0x0f, 0x85, 2, 0, 0, 0]
        ));
        // add $imm32,%eax (05 imm32) is not RIP-relative: no memory opcode before the 05.
        assert!(!only_displacements(
            &[0x90, 0x05, 1, 0, 0, 0],
            &[0x90, 0x05, 2, 0, 0, 0]
        ));
        // Another instruction (ret against int3) is code, as is another length.
        let c = [0xe8, 1, 2, 3, 4, 0xc3];
        assert!(!only_displacements(&c, &[0xe8, 1, 2, 3, 4, 0xcc]));
        assert!(!only_displacements(&c, &c[..5]));
        // A difference just past the operand is not covered by it.
        assert!(!only_displacements(
            &[0xe9, 1, 0, 0, 0, 0x01],
            &[0xe9, 2, 0, 0, 0, 0x02]
        ));
    }
}
