//! Reordering a relocatable object's code by permuting its section header table, without
//! running a linker: the per-seed step of every relink.
//!
//! Every final linker (bfd, gold, lld, mold) places the input sections of one object in
//! section-table order (within gcc's groups for bfd and gold), whatever their file offsets.
//! So an object whose code sections are listed in another order *is* that order of the
//! program's functions. Permuting the table touches no code: the section data stay where
//! they are; only the header entries move and every field that names a section by its index
//! is renumbered (symbols' `st_shndx` and the `SHT_SYMTAB_SHNDX` table, `sh_link`,
//! `sh_info` of relocation sections and `SHF_INFO_LINK` sections, `SHT_GROUP` member lists,
//! `e_shstrndx`). Each relocation section follows its moved target, as compilers and
//! `ld -r` emit them.
//!
//! Why not `ld -r` with a script per seed (the earlier mechanism): one linker process per
//! object and seed (ninja: 28 per seed) cost more than the final link itself; this rewrite
//! takes microseconds and gives the same placement.
//!
//! Optional padding ([`Padding`]) puts filler bytes in front of chosen sections: the section
//! grows at its start, and everything that addresses its contents follows (its symbols'
//! values, its relocations' offsets, and the addends of relocations against its section
//! symbol, e.g. `.eh_frame`, jump tables, debug info), so each function's code and size are
//! unchanged and only its address moves. Padding needs `RELA` relocations (x86-64, AArch64,
//! RISC-V...); `REL` objects (i386, 32-bit Arm) are refused.

use std::collections::{BTreeSet, HashMap};

use anyhow::{bail, ensure, Context, Result};

const SHT_SYMTAB: u32 = 2;
const SHT_RELA: u32 = 4;
const SHT_NOBITS: u32 = 8;
const SHT_REL: u32 = 9;
const SHT_GROUP: u32 = 17;
const SHT_SYMTAB_SHNDX: u32 = 18;
const SHF_INFO_LINK: u64 = 0x40;
const SHN_LORESERVE: u32 = 0xff00;
const SHN_XINDEX: u32 = 0xffff;
const STT_SECTION: u8 = 3;
const EM_386: u16 = 3;
const EM_X86_64: u16 = 62;

/// Filler bytes to put in front of sections: `(section index, bytes)`, at most one entry per
/// section, each a code section of the object.
pub type Padding = [(usize, u64)];

/// The object `data` with its sections `order` (indices into its section header table, each
/// at most once) listed in that order at the places those sections occupied, each followed
/// by its relocation sections; every other section keeps its index. `padding` puts filler
/// bytes (`int3` on x86, zeros elsewhere) in front of the given sections.
///
/// Guarantees: the section data and contents are unchanged (apart from padding, which
/// shifts the padded sections' symbols, relocation offsets and section-relative addends by
/// the padding); the result is a valid relocatable ELF object of the same class, byte order
/// and machine; the same input gives the same bytes. Errors: not a relocatable ELF object,
/// an index out of range or listed twice, a relocation, symbol or group section in
/// `order`, padding of a `REL` object or of a section without contents.
///
/// Filler `behind` some code sections (`(section index, bytes)`, at most one entry per
/// section) grows the section at its end, so its own contents keep their offsets and only
/// what the linker places after it moves, by the section's whole growth. `explain --confirm` moves one section by the filler in front of
/// it and takes the bytes back behind it up to a whole period of the cache's sets, so that
/// the code after it keeps every placement feature (see [`crate::explain::confirm`]).
pub fn reorder_sections(
    data: &[u8],
    order: &[usize],
    padding: &Padding,
    behind: &Padding,
) -> Result<Vec<u8>> {
    let elf = Elf::parse(data)?;
    let n = elf.sections.len();
    let mut moved: BTreeSet<usize> = BTreeSet::new();
    for &i in order {
        ensure!(
            i != 0,
            "section index 0 is the null section (the table's first entry, not a section of \
             the object): it cannot be reordered"
        );
        ensure!(
            i < n,
            "section index {i} is out of range (the object has {n})"
        );
        ensure!(
            moved.insert(i),
            "section {i} ({}) is listed twice",
            elf.name(i).map_or_else(
                || "its name unreadable".to_string(),
                |name| crate::printable::quoted_start(&name)
            )
        );
        let t = elf.sections[i].kind;
        ensure!(
            !matches!(
                t,
                SHT_SYMTAB | SHT_RELA | SHT_REL | SHT_GROUP | SHT_SYMTAB_SHNDX
            ),
            "section {i} is not code (type {t}): it cannot be reordered"
        );
    }
    // Relocation sections of moved sections travel with them.
    let mut relocs_of: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, s) in elf.sections.iter().enumerate() {
        if matches!(s.kind, SHT_RELA | SHT_REL) && moved.contains(&(s.info as usize)) {
            relocs_of.entry(s.info as usize).or_default().push(i);
        }
    }
    let travelling: BTreeSet<usize> = relocs_of.values().flatten().copied().collect();
    let mut slots = order.iter();
    let mut new_order = Vec::with_capacity(n);
    for i in 0..n {
        if moved.contains(&i) {
            let s = *slots.next().expect("one slot per moved section");
            new_order.push(s);
            new_order.extend(relocs_of.get(&s).into_iter().flatten());
        } else if !travelling.contains(&i) {
            new_order.push(i);
        }
    }
    debug_assert_eq!(new_order.len(), n);
    let mut new_index = vec![0u32; n];
    for (new, &old) in new_order.iter().enumerate() {
        new_index[old] = u32::try_from(new).context("too many sections")?;
    }
    elf.rewrite(&new_order, &new_index, padding, behind)
}

/// One section header, decoded.
#[derive(Debug, Clone)]
struct Section {
    kind: u32,
    flags: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// A parsed relocatable ELF object: enough to rewrite its section table.
struct Elf<'a> {
    data: &'a [u8],
    is64: bool,
    big: bool,
    machine: u16,
    shoff: usize,
    shentsize: usize,
    sections: Vec<Section>,
}

impl<'a> Elf<'a> {
    fn parse(data: &'a [u8]) -> Result<Elf<'a>> {
        ensure!(
            data.len() >= 52 && data.starts_with(b"\x7fELF"),
            "not an ELF object"
        );
        let is64 = match data[4] {
            1 => false,
            2 => true,
            c => bail!("unknown ELF class {c}"),
        };
        let big = match data[5] {
            1 => false,
            2 => true,
            d => bail!("unknown ELF byte order {d}"),
        };
        let mut elf = Elf {
            data,
            is64,
            big,
            machine: 0,
            shoff: 0,
            shentsize: 0,
            sections: Vec::new(),
        };
        ensure!(elf.u16(16)? == 1, "not a relocatable object (.o)");
        elf.machine = elf.u16(18)?;
        let (shoff, shentsize, shnum) = if is64 {
            (elf.u64(0x28)?, elf.u16(0x3a)?, elf.u16(0x3c)?)
        } else {
            (u64::from(elf.u32(0x20)?), elf.u16(0x2e)?, elf.u16(0x30)?)
        };
        elf.shoff = usize::try_from(shoff)?;
        elf.shentsize = usize::from(shentsize);
        ensure!(
            elf.shentsize == if is64 { 64 } else { 40 },
            "unexpected section header size {shentsize}"
        );
        ensure!(elf.shoff != 0, "the object has no section header table");
        let first = elf.section(0)?;
        let count = if shnum == 0 {
            usize::try_from(first.size)?
        } else {
            usize::from(shnum)
        };
        ensure!(
            elf.shoff
                .checked_add(count.checked_mul(elf.shentsize).context("overflow")?)
                .is_some_and(|end| end <= data.len()),
            "the section header table runs past the end of the file"
        );
        elf.sections = (0..count).map(|i| elf.section(i)).collect::<Result<_>>()?;
        Ok(elf)
    }

    /// The name of section `i` (from the section-name table), if the object holds one.
    fn name(&self, i: usize) -> Option<String> {
        let at = if self.is64 { 0x3e } else { 0x32 };
        let table = match u32::from(self.u16(at).ok()?) {
            SHN_XINDEX => self.sections.first()?.link,
            t => t,
        };
        let names = self
            .contents(self.sections.get(usize::try_from(table).ok()?)?)
            .ok()?;
        let start = names.start + usize::try_from(self.u32(self.header_at(i)).ok()?).ok()?;
        let bytes = self.data.get(start..names.end)?;
        let end = bytes.iter().position(|&b| b == 0)?;
        Some(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }

    fn header_at(&self, i: usize) -> usize {
        self.shoff + i * self.shentsize
    }

    fn section(&self, i: usize) -> Result<Section> {
        let h = self.header_at(i);
        Ok(if self.is64 {
            Section {
                kind: self.u32(h + 4)?,
                flags: self.u64(h + 8)?,
                offset: self.u64(h + 24)?,
                size: self.u64(h + 32)?,
                link: self.u32(h + 40)?,
                info: self.u32(h + 44)?,
                align: self.u64(h + 48)?,
                entsize: self.u64(h + 56)?,
            }
        } else {
            Section {
                kind: self.u32(h + 4)?,
                flags: u64::from(self.u32(h + 8)?),
                offset: u64::from(self.u32(h + 16)?),
                size: u64::from(self.u32(h + 20)?),
                link: self.u32(h + 24)?,
                info: self.u32(h + 28)?,
                align: u64::from(self.u32(h + 32)?),
                entsize: u64::from(self.u32(h + 36)?),
            }
        })
    }

    fn bytes<const N: usize>(&self, at: usize) -> Result<[u8; N]> {
        self.data
            .get(at..at + N)
            .and_then(|b| b.try_into().ok())
            .with_context(|| format!("the object ends before offset {at}"))
    }

    /// The `N`-byte integer at `at` in the object's byte order (`be` or `le` decodes it).
    fn int<const N: usize, T>(
        &self,
        at: usize,
        be: fn([u8; N]) -> T,
        le: fn([u8; N]) -> T,
    ) -> Result<T> {
        let b = self.bytes::<N>(at)?;
        Ok(if self.big { be(b) } else { le(b) })
    }

    fn u16(&self, at: usize) -> Result<u16> {
        self.int(at, u16::from_be_bytes, u16::from_le_bytes)
    }

    fn u32(&self, at: usize) -> Result<u32> {
        self.int(at, u32::from_be_bytes, u32::from_le_bytes)
    }

    fn u64(&self, at: usize) -> Result<u64> {
        self.int(at, u64::from_be_bytes, u64::from_le_bytes)
    }

    /// A word of the object's class (u32 or u64).
    fn word(&self, at: usize) -> Result<u64> {
        if self.is64 {
            self.u64(at)
        } else {
            self.u32(at).map(u64::from)
        }
    }

    fn contents(&self, s: &Section) -> Result<std::ops::Range<usize>> {
        if s.kind == SHT_NOBITS {
            return Ok(0..0);
        }
        let start = usize::try_from(s.offset)?;
        let end = start
            .checked_add(usize::try_from(s.size)?)
            .filter(|&e| e <= self.data.len())
            .context("a section runs past the end of the file")?;
        Ok(start..end)
    }

    /// Writes the object with its header table in `new_order` (old indices), renumbered by
    /// `new_index`, and `padding` applied.
    fn rewrite(
        &self,
        new_order: &[usize],
        new_index: &[u32],
        padding: &Padding,
        behind: &Padding,
    ) -> Result<Vec<u8>> {
        let n = self.sections.len();
        let mut out = Writer {
            data: self.data.to_vec(),
            big: self.big,
        };
        let pad = self.padding_of(padding)?;
        let tail = self.padding_of(behind)?;
        let padded = pad.iter().chain(&tail).any(|&p| p > 0);
        let renumber = |old: u32| -> u32 {
            if old > 0 && (old as usize) < n {
                new_index[old as usize]
            } else {
                old
            }
        };
        let symbol_shift = self.rewrite_symbols(&mut out, &renumber, &pad)?;
        if padded {
            self.shift_relocations(&mut out, &pad, &symbol_shift)?;
        }
        self.renumber_groups(&mut out, &renumber)?;
        let headers = if padded {
            self.append_padded(&mut out, &pad, &tail)?
        } else {
            self.sections.clone()
        };
        self.write_header_table(&mut out, new_order, &headers, &renumber, padded)?;
        Ok(out.data)
    }

    /// The padding of each section (by old index) from `padding`; only code can be padded.
    fn padding_of(&self, padding: &Padding) -> Result<Vec<u64>> {
        let n = self.sections.len();
        let mut pad = vec![0u64; n];
        for &(i, bytes) in padding {
            ensure!(i > 0 && i < n, "padded section {i} is out of range");
            ensure!(
                self.sections[i].kind != SHT_NOBITS && self.sections[i].flags & 0x4 != 0,
                "section {i} is not code: it cannot be padded"
            );
            pad[i] = bytes;
        }
        Ok(pad)
    }

    /// Renumbers the section index of every symbol of every symbol table (and, with `pad`,
    /// moves the value of those in padded sections). Returns per symbol table (by index)
    /// each symbol's shift and whether it is a section symbol, for the relocations.
    fn rewrite_symbols(
        &self,
        out: &mut Writer,
        renumber: &dyn Fn(u32) -> u32,
        pad: &[u64],
    ) -> Result<HashMap<usize, Vec<(u64, bool)>>> {
        let n = self.sections.len();
        let mut symbol_shift: HashMap<usize, Vec<(u64, bool)>> = HashMap::new();
        for (t, table) in self.sections.iter().enumerate() {
            if table.kind != SHT_SYMTAB {
                continue;
            }
            let shndx_table = self
                .sections
                .iter()
                .find(|s| s.kind == SHT_SYMTAB_SHNDX && s.link as usize == t)
                .map(|s| self.contents(s))
                .transpose()?;
            let range = self.contents(table)?;
            let entsize = if self.is64 { 24 } else { 16 };
            let count = range.len() / entsize;
            let mut shifts = Vec::with_capacity(count);
            for k in 0..count {
                let at = range.start + k * entsize;
                let (shndx_at, value_at, info_at) = if self.is64 {
                    (at + 6, at + 8, at + 4)
                } else {
                    (at + 14, at + 4, at + 12)
                };
                let stored = u32::from(self.u16(shndx_at)?);
                let extended_at = shndx_table.as_ref().map(|r| r.start + 4 * k);
                let old = if stored == SHN_XINDEX {
                    self.u32(extended_at.context("SHN_XINDEX without a SYMTAB_SHNDX table")?)?
                } else if stored >= SHN_LORESERVE {
                    shifts.push((0, false));
                    continue; // absolute, common, ...
                } else {
                    stored
                };
                let new = renumber(old);
                if stored == SHN_XINDEX {
                    out.put_u32(extended_at.expect("checked"), new);
                } else if new >= SHN_LORESERVE {
                    let ext = extended_at.with_context(|| {
                        "a symbol's section would need an extended index but the object has no \
                         SYMTAB_SHNDX table"
                    })?;
                    out.put_u16(shndx_at, SHN_XINDEX as u16);
                    out.put_u32(ext, new);
                } else {
                    out.put_u16(shndx_at, new as u16);
                }
                let shift = if (old as usize) < n {
                    pad[old as usize]
                } else {
                    0
                };
                let is_section_symbol = self.data[info_at] & 0xf == STT_SECTION;
                if shift > 0 && !is_section_symbol {
                    let value = self.word(value_at)?;
                    out.put_word(self.is64, value_at, value + shift);
                }
                shifts.push((shift, is_section_symbol));
            }
            symbol_shift.insert(t, shifts);
        }
        Ok(symbol_shift)
    }

    /// With padding: moves the offsets of relocations into padded sections and the addends
    /// of those against a padded section's symbol.
    fn shift_relocations(
        &self,
        out: &mut Writer,
        pad: &[u64],
        symbol_shift: &HashMap<usize, Vec<(u64, bool)>>,
    ) -> Result<()> {
        for s in &self.sections {
            if !matches!(s.kind, SHT_RELA | SHT_REL) {
                continue;
            }
            let target_shift = pad.get(s.info as usize).copied().unwrap_or(0);
            let shifts = symbol_shift
                .get(&(s.link as usize))
                .context("a relocation section without its symbol table")?;
            let range = self.contents(s)?;
            let entsize = usize::try_from(s.entsize)?;
            let rela = s.kind == SHT_RELA;
            ensure!(
                entsize
                    == match (self.is64, rela) {
                        (true, true) => 24,
                        (true, false) => 16,
                        (false, true) => 12,
                        (false, false) => 8,
                    },
                "unexpected relocation entry size {entsize}"
            );
            for k in 0..range.len() / entsize {
                let at = range.start + k * entsize;
                let word = if self.is64 { 8 } else { 4 };
                let info = self.word(at + word)?;
                let symbol = if self.is64 { info >> 32 } else { info >> 8 } as usize;
                let (sym_shift, is_section_symbol) =
                    shifts.get(symbol).copied().unwrap_or((0, false));
                let addend_shift = if is_section_symbol { sym_shift } else { 0 };
                if target_shift == 0 && addend_shift == 0 {
                    continue;
                }
                ensure!(
                    rela,
                    "padding needs RELA relocations; this object uses REL (i386 or 32-bit Arm)"
                );
                if target_shift > 0 {
                    let offset = self.word(at)?;
                    out.put_word(self.is64, at, offset + target_shift);
                }
                if addend_shift > 0 {
                    let addend = self.word(at + 2 * word)?;
                    let shifted = if self.is64 {
                        addend.wrapping_add(addend_shift)
                    } else {
                        u64::from((addend as u32).wrapping_add(addend_shift as u32))
                    };
                    out.put_word(self.is64, at + 2 * word, shifted);
                }
            }
        }
        Ok(())
    }

    /// Renumbers the member lists of section groups.
    fn renumber_groups(&self, out: &mut Writer, renumber: &dyn Fn(u32) -> u32) -> Result<()> {
        for s in &self.sections {
            if s.kind != SHT_GROUP {
                continue;
            }
            let range = self.contents(s)?;
            for at in (range.start + 4..range.end).step_by(4) {
                let old = self.u32(at)?;
                out.put_u32(at, renumber(old));
            }
        }
        Ok(())
    }

    /// Appends the padded sections' new contents (the padding `pad`, the old bytes, the
    /// filler `tail`) and returns the section headers with their new offsets and sizes.
    fn append_padded(&self, out: &mut Writer, pad: &[u64], tail: &[u64]) -> Result<Vec<Section>> {
        let mut headers: Vec<Section> = self.sections.clone();
        let fill = if matches!(self.machine, EM_386 | EM_X86_64) {
            0xcc
        } else {
            0
        };
        for (i, (&bytes, &behind)) in pad.iter().zip(tail).enumerate() {
            if bytes == 0 && behind == 0 {
                continue;
            }
            let s = &self.sections[i];
            let range = self.contents(s)?;
            let align = usize::try_from(s.align.max(1))?;
            let start = out.data.len().div_ceil(align) * align;
            out.data.resize(start, 0);
            out.data.resize(start + usize::try_from(bytes)?, fill);
            out.data.extend_from_slice(&self.data[range]);
            let end = out.data.len() + usize::try_from(behind)?;
            out.data.resize(end, fill);
            headers[i].offset = start as u64;
            headers[i].size = s.size + bytes + behind;
        }
        Ok(headers)
    }

    /// Writes the section header table in `new_order`, renumbered (appended when `padded`,
    /// in place otherwise), and points the file header at it.
    fn write_header_table(
        &self,
        out: &mut Writer,
        new_order: &[usize],
        headers: &[Section],
        renumber: &dyn Fn(u32) -> u32,
        padded: bool,
    ) -> Result<()> {
        let n = self.sections.len();
        let (shoff_at, shstrndx_at) = if self.is64 {
            (0x28, 0x3e)
        } else {
            (0x20, 0x32)
        };
        let shstrndx = u32::from(self.u16(shstrndx_at)?);
        // The header table, in the new order, renumbered.
        let table_at = if padded {
            let at = out.data.len().div_ceil(8) * 8;
            out.data.resize(at + n * self.shentsize, 0);
            at
        } else {
            self.shoff
        };
        for (new, &old) in new_order.iter().enumerate() {
            let src = self.header_at(old);
            let dst = table_at + new * self.shentsize;
            out.data[dst..dst + self.shentsize]
                .copy_from_slice(&self.data[src..src + self.shentsize]);
            let h = &headers[old];
            // sh_link names a section in a relocatable object, except in section 0, where
            // it holds e_shstrndx when that is extended.
            let link = if old != 0 || shstrndx == SHN_XINDEX {
                renumber(h.link)
            } else {
                h.link
            };
            let info_is_index =
                matches!(h.kind, SHT_RELA | SHT_REL) || h.flags & SHF_INFO_LINK != 0;
            let info = if info_is_index && old != 0 {
                renumber(h.info)
            } else {
                h.info
            };
            if self.is64 {
                out.put_u64(dst + 24, h.offset);
                out.put_u64(dst + 32, h.size);
                out.put_u32(dst + 40, link);
                out.put_u32(dst + 44, info);
            } else {
                out.put_u32(dst + 16, h.offset as u32);
                out.put_u32(dst + 20, h.size as u32);
                out.put_u32(dst + 24, link);
                out.put_u32(dst + 28, info);
            }
        }
        // The file header: table place and the section-name table's index.
        out.put_word(self.is64, shoff_at, table_at as u64);
        if shstrndx != SHN_XINDEX {
            let new = renumber(shstrndx);
            ensure!(
                new < SHN_LORESERVE,
                "the section-name table would need an extended index"
            );
            out.put_u16(shstrndx_at, new as u16);
        }
        Ok(())
    }
}

/// The output bytes with endian-aware stores.
struct Writer {
    data: Vec<u8>,
    big: bool,
}

impl Writer {
    fn put(&mut self, at: usize, le: &[u8], be: &[u8]) {
        let bytes = if self.big { be } else { le };
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn put_u16(&mut self, at: usize, v: u16) {
        self.put(at, &v.to_le_bytes(), &v.to_be_bytes());
    }

    fn put_u32(&mut self, at: usize, v: u32) {
        self.put(at, &v.to_le_bytes(), &v.to_be_bytes());
    }

    fn put_u64(&mut self, at: usize, v: u64) {
        self.put(at, &v.to_le_bytes(), &v.to_be_bytes());
    }

    fn put_word(&mut self, is64: bool, at: usize, v: u64) {
        if is64 {
            self.put_u64(at, v);
        } else {
            self.put_u32(at, v as u32);
        }
    }
}
