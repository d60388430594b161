//! Static archives (`.a`): list their members and write a copy with the members reordered.
//!
//! Linkers place the members they pull from an archive in member order, so shuffling the
//! members of a copy of each archive randomises the link order of library code. The copy is
//! written here in the GNU format rather than with `ar`: this keeps the original symbol index
//! (including symbols `gcc-ar` obtained from LTO bytecode through its plugin, which a plain
//! `ar s` would not see), and needs no `ar` on `PATH`. Headers are written deterministically
//! (date, uid, gid 0, mode 644, like `ar D`), so a given order always gives the same bytes.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use object::read::archive::ArchiveFile;
use serde::{Deserialize, Serialize};

/// One member of a static archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ArchiveMember {
    /// Position of the member in the archive (0-based), the handle used by
    /// [`write_reordered`]; names may repeat, positions do not.
    pub(crate) index: usize,
    /// The member's name (GNU long names resolved); not unique in general.
    pub name: String,
    /// Size of the member's data in bytes.
    pub size: u64,
    /// The symbols the archive's index attributes to this member, in index order.
    pub symbols: Vec<String>,
}

/// The members of the archive at `path`, in archive order.
///
/// Reads GNU (with long names and duplicate names), BSD and thin archives. Errors name the
/// path: unreadable, or not an archive.
pub fn members(path: &Path) -> Result<Vec<ArchiveMember>> {
    let data =
        std::fs::read(path).with_context(|| format!("cannot read archive {}", path.display()))?;
    let parsed = parse(&data).with_context(|| format!("cannot read archive {}", path.display()))?;
    Ok(describe(&parsed))
}

fn describe(parsed: &Parsed<'_>) -> Vec<ArchiveMember> {
    let mut symbols: Vec<Vec<String>> = vec![Vec::new(); parsed.members.len()];
    for (name, owner) in &parsed.symbols {
        symbols[*owner].push(String::from_utf8_lossy(name).into_owned());
    }
    parsed
        .members
        .iter()
        .zip(symbols)
        .enumerate()
        .map(|(index, (m, symbols))| ArchiveMember {
            index,
            name: m.name.clone(),
            size: m.size,
            symbols,
        })
        .collect()
}

/// The members of the archive at `path` with their bytes, for reading their code sections
/// ([`crate::layout::object_file::text_sections_from_bytes`]) without extracting them.
/// Thin archives give empty bytes (their members live outside the archive).
pub(crate) fn members_with_data(path: &Path) -> Result<Vec<(ArchiveMember, Vec<u8>)>> {
    let data =
        std::fs::read(path).with_context(|| format!("cannot read archive {}", path.display()))?;
    let parsed = parse(&data).with_context(|| format!("cannot read archive {}", path.display()))?;
    let described = describe(&parsed);
    Ok(described
        .into_iter()
        .zip(parsed.members.iter().map(|m| m.data.to_vec()))
        .collect())
}

/// Writes to `dst` a copy of the archive at `src` whose members come in `order`, a
/// permutation of the member positions of [`members`] (`order[k]` = position in `src` of the
/// k-th member of the copy).
///
/// Guarantees: the copy is a GNU archive accepted by ld.bfd, gold, lld and mold; every
/// member's bytes and name are preserved; the symbol index is the source's, with each entry
/// pointing at its member's new place and entries listed in the new member order (an archive
/// without an index gives a copy without one). Thin archives are refused (their members live
/// outside the archive). The file is written to a temporary name next to `dst` and renamed,
/// so `dst` is never left half-written.
pub fn write_reordered(src: &Path, dst: &Path, order: &[usize]) -> Result<()> {
    write_reordered_with(src, dst, order, &mut |_, _| Ok(None))
}

/// Gives the new bytes of the member at a position from its old bytes, or `None` to keep them.
pub(crate) type ReplaceMember<'a> = dyn FnMut(usize, &[u8]) -> Result<Option<Vec<u8>>> + 'a;

/// [`write_reordered`] with members' contents replaced: `replace(position, bytes)` gives the
/// new bytes of the member at `position` in `src`, or `None` to keep them. The symbol index
/// is the source's, so a replacement must define the same symbols (e.g. the same object
/// with its sections reordered).
pub(crate) fn write_reordered_with(
    src: &Path,
    dst: &Path,
    order: &[usize],
    replace: &mut ReplaceMember,
) -> Result<()> {
    let data =
        std::fs::read(src).with_context(|| format!("cannot read archive {}", src.display()))?;
    let parsed = parse(&data).with_context(|| format!("cannot read archive {}", src.display()))?;
    if parsed.thin {
        bail!(
            "{} is a thin archive (members stored outside it): reordering it is not supported",
            src.display()
        );
    }
    check_permutation(order, parsed.members.len())
        .with_context(|| format!("bad member order for {}", src.display()))?;
    let mut replaced: Vec<Option<Vec<u8>>> = Vec::with_capacity(parsed.members.len());
    for (position, member) in parsed.members.iter().enumerate() {
        replaced.push(
            replace(position, member.data)
                .with_context(|| format!("member {} of {}", member.name, src.display()))?,
        );
    }
    let contents: Vec<&[u8]> = parsed
        .members
        .iter()
        .zip(&replaced)
        .map(|(m, r)| r.as_deref().unwrap_or(m.data))
        .collect();
    let bytes = encode(&parsed, &contents, order);
    let dir = dst
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, &bytes)
        .with_context(|| format!("cannot write {}", tmp.path().display()))?;
    tmp.persist(dst)
        .with_context(|| format!("cannot write archive {}", dst.display()))?;
    Ok(())
}

fn check_permutation(order: &[usize], n: usize) -> Result<()> {
    ensure!(
        order.len() == n,
        "the order lists {} members but the archive has {n}",
        order.len()
    );
    let mut seen = vec![false; n];
    for &i in order {
        ensure!(
            i < n,
            "member position {i} is out of range (the archive has {n} members)"
        );
        ensure!(!seen[i], "member position {i} is listed twice");
        seen[i] = true;
    }
    Ok(())
}

struct Member<'a> {
    name: String,
    /// Declared size (thin members have no data here but do have a size).
    size: u64,
    data: &'a [u8],
}

struct Parsed<'a> {
    thin: bool,
    members: Vec<Member<'a>>,
    /// Index entries: symbol name and owning member position, in index order.
    symbols: Vec<(&'a [u8], usize)>,
    has_index: bool,
}

fn parse(data: &[u8]) -> Result<Parsed<'_>> {
    let archive =
        ArchiveFile::parse(data).map_err(|e| anyhow::anyhow!("not a valid archive: {e}"))?;
    let mut members = Vec::new();
    let mut position_of_header: HashMap<u64, usize> = HashMap::new();
    for member in archive.members() {
        let member = member.map_err(|e| anyhow::anyhow!("malformed member: {e}"))?;
        let name = String::from_utf8_lossy(member.name()).into_owned();
        if let Some(header) = member.header() {
            let offset = header as *const _ as usize - data.as_ptr() as usize;
            position_of_header.insert(offset as u64, members.len());
        }
        let bytes = member
            .data(data)
            .map_err(|e| anyhow::anyhow!("member {name}: {e}"))?;
        members.push(Member {
            name,
            size: member.size(),
            data: bytes,
        });
    }
    let mut symbols = Vec::new();
    let index = archive
        .symbols()
        .map_err(|e| anyhow::anyhow!("malformed symbol index: {e}"))?;
    let has_index = index.is_some();
    for symbol in index.into_iter().flatten() {
        let symbol = symbol.map_err(|e| anyhow::anyhow!("malformed symbol index: {e}"))?;
        let owner = position_of_header
            .get(&symbol.offset().0)
            .with_context(|| {
                format!(
                    "the symbol index points {} at offset {}, where no member starts",
                    String::from_utf8_lossy(symbol.name()),
                    symbol.offset().0
                )
            })?;
        symbols.push((symbol.name(), *owner));
    }
    Ok(Parsed {
        thin: archive.is_thin(),
        members,
        symbols,
        has_index,
    })
}

const MAGIC: &[u8] = b"!<arch>\n";
const HEADER_LEN: u64 = 60;

/// A GNU member header; `name` is already in its on-disk form (`foo.o/`, `/123`, `/`, `//`).
fn header(name: &str, mode: &str, size: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_LEN as usize);
    for (field, width) in [
        (name.to_string(), 16),
        ("0".to_string(), 12),
        ("0".to_string(), 6),
        ("0".to_string(), 6),
        (mode.to_string(), 8),
        (size.to_string(), 10),
    ] {
        h.extend_from_slice(field.as_bytes());
        h.resize(h.len() + width - field.len(), b' ');
    }
    h.extend_from_slice(b"`\n");
    h
}

fn padded(len: u64) -> u64 {
    len + (len & 1)
}

/// The archive bytes: `parsed`'s names and index, member `i` holding `contents[i]`, members
/// in `order`.
fn encode(parsed: &Parsed<'_>, contents: &[&[u8]], order: &[usize]) -> Vec<u8> {
    let (on_disk_name, long_names) = member_names(parsed, order);
    // The index lists symbols in the new member order.
    let mut new_position = vec![0usize; order.len()];
    for (k, &i) in order.iter().enumerate() {
        new_position[i] = k;
    }
    let mut entries: Vec<(usize, &[u8])> = parsed
        .symbols
        .iter()
        .map(|&(name, owner)| (new_position[owner], name))
        .collect();
    entries.sort_by_key(|&(position, _)| position); // stable: keeps index order per member

    let names_len: u64 = entries.iter().map(|(_, n)| n.len() as u64 + 1).sum();
    let member_len = |k: usize| padded(contents[order[k]].len() as u64);
    let members_total: u64 = (0..order.len()).map(|k| HEADER_LEN + member_len(k)).sum();
    let long_names_total = if long_names.is_empty() {
        0
    } else {
        HEADER_LEN + padded(long_names.len() as u64)
    };
    // 32-bit offsets unless the archive is too large for them.
    let index_size = |word: u64| word * (1 + entries.len() as u64) + names_len;
    let rough_end =
        MAGIC.len() as u64 + HEADER_LEN + padded(index_size(8)) + long_names_total + members_total;
    let word: u64 = if rough_end > u64::from(u32::MAX) {
        8
    } else {
        4
    };
    let index_total = if parsed.has_index {
        HEADER_LEN + padded(index_size(word))
    } else {
        0
    };

    let first_member = MAGIC.len() as u64 + index_total + long_names_total;
    let mut member_offsets = Vec::with_capacity(order.len());
    let mut at = first_member;
    for k in 0..order.len() {
        member_offsets.push(at);
        at += HEADER_LEN + member_len(k);
    }

    let mut out = Vec::with_capacity(at as usize);
    out.extend_from_slice(MAGIC);
    if parsed.has_index {
        write_index(
            &mut out,
            &entries,
            &member_offsets,
            (word, index_size(word)),
        );
    }
    if !long_names.is_empty() {
        out.extend(header("//", "", long_names.len() as u64));
        out.extend_from_slice(&long_names);
        if long_names.len() & 1 == 1 {
            out.push(b'\n');
        }
    }
    for (k, &i) in order.iter().enumerate() {
        debug_assert_eq!(out.len() as u64, member_offsets[k]);
        let data = contents[i];
        out.extend(header(&on_disk_name[k], "644", data.len() as u64));
        out.extend_from_slice(data);
        if data.len() & 1 == 1 {
            out.push(b'\n');
        }
    }
    out
}

/// The name of each member of `order` as its header writes it (`name/`, or `/OFFSET` into
/// the long-name table), and that table: names that do not fit "name/" in 16 bytes, or
/// contain a slash or space (which the short form cannot represent).
fn member_names(parsed: &Parsed<'_>, order: &[usize]) -> (Vec<String>, Vec<u8>) {
    let mut long_names = Vec::new();
    let mut on_disk_name = Vec::with_capacity(order.len());
    for &i in order {
        let name = &parsed.members[i].name;
        if name.len() <= 15 && !name.contains('/') && !name.contains(' ') {
            on_disk_name.push(format!("{name}/"));
        } else {
            on_disk_name.push(format!("/{}", long_names.len()));
            long_names.extend_from_slice(name.as_bytes());
            long_names.extend_from_slice(b"/\n");
        }
    }
    (on_disk_name, long_names)
}

/// Appends the symbol index: the (member position, symbol name) `entries` with the members'
/// offsets `member_offsets`, in words of `word` bytes (`size` bytes in all, then padding).
fn write_index(
    out: &mut Vec<u8>,
    entries: &[(usize, &[u8])],
    member_offsets: &[u64],
    (word, size): (u64, u64),
) {
    out.extend(header(if word == 8 { "/SYM64/" } else { "/" }, "0", size));
    let put = |out: &mut Vec<u8>, v: u64| {
        if word == 8 {
            out.extend_from_slice(&v.to_be_bytes());
        } else {
            out.extend_from_slice(&(v as u32).to_be_bytes());
        }
    };
    put(out, entries.len() as u64);
    for &(position, _) in entries {
        put(out, member_offsets[position]);
    }
    for &(_, name) in entries {
        out.extend_from_slice(name);
        out.push(0);
    }
    if size & 1 == 1 {
        out.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_sixty_bytes_and_left_aligned() {
        let h = header("foo.o/", "644", 1234);
        assert_eq!(h.len(), 60);
        assert_eq!(&h[..16], b"foo.o/          ");
        assert_eq!(&h[48..58], b"1234      ");
        assert_eq!(&h[58..], b"`\n");
    }

    #[test]
    fn permutations_are_checked() {
        assert!(check_permutation(&[1, 0, 2], 3).is_ok());
        assert!(check_permutation(&[1, 0], 3).is_err());
        assert!(check_permutation(&[1, 1, 0], 3).is_err());
        assert!(check_permutation(&[0, 1, 3], 3).is_err());
    }
}
