//! The function order of a linked binary (executable or shared object), read from `.symtab`.
//!
//! This is what every seed's binary is verified with: the list of functions in address
//! order is the layout the randomisation produced, and its identity list is fingerprinted.
//! Functions are identified by name, qualified by their source file only when the name is
//! shared by several functions of the binary (same-named `static`s in different modules), so
//! that the identity of `main` does not depend on whether a linker kept it global (bfd, gold,
//! lld) or demoted it to a local after its `STT_FILE` symbol (mold).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{bail, Context, Result};
use object::read::elf::{ElfFile, FileHeader};
use object::{Object, ObjectSymbol, SymbolKind, SymbolSection};
use serde::{Deserialize, Serialize};

/// What a function is across binaries built from the same recording: its symbol name, plus
/// its source file when the name alone is ambiguous in the binary.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct FunctionId {
    /// The symbol name as in `.symtab` (mangled for C++).
    pub name: String,
    /// The `STT_FILE` name qualifying a name shared by several functions of the binary;
    /// `None` when the name is unique (the usual case).
    pub file: Option<String>,
}

/// One function of a linked binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Function {
    /// Identity used by [`crate::layout::fingerprint()`] and [`crate::layout::distance`].
    pub id: FunctionId,
    /// The symbol name (same as `id.name`).
    pub name: String,
    /// The source file named by the `STT_FILE` symbol preceding this symbol in `.symtab`, for
    /// local symbols (globals follow no meaningful `STT_FILE`); `None` when unknown.
    pub file: Option<String>,
    /// Virtual address of the function's first byte.
    pub address: u64,
    /// Size in bytes (`st_size`), always > 0.
    pub size: u64,
}

impl Function {
    /// A function whose identity is its bare name (no source file): synthetic layouts, as
    /// tests build them.
    pub fn named(name: &str, address: u64, size: u64) -> Function {
        Function {
            id: FunctionId {
                name: name.into(),
                file: None,
            },
            name: name.into(),
            file: None,
            address,
            size,
        }
    }
}

/// How a message names a function: `name`, or `name (file)` when functions of several
/// source files share the name and `file` says which.
pub fn qualified_name(name: &str, file: Option<&str>) -> String {
    match file {
        Some(file) => format!("{name} ({file})"),
        None => name.to_string(),
    }
}

/// A binary's functions in ascending address order.
///
/// Guarantees: only defined `STT_FUNC`/`STT_GNU_IFUNC` symbols with a size > 0 and a
/// section (not `SHN_ABS`); no PLT stubs (`name@plt`, mold's `name$plt`/`name$pltgot`);
/// one function per address — among aliases the one kept is the global before the weak
/// before the local, then the smallest name, so the choice is deterministic. Errors name the
/// path: missing file, not ELF, or no `.symtab` (a stripped binary cannot be verified).
pub fn functions(path: &Path) -> Result<Vec<Function>> {
    // Reading the whole file beats object's on-demand ReadCache even for binaries with large
    // debug sections: the cache pays per symbol-name lookup (benches/layout_functions.sh).
    let data =
        std::fs::read(path).with_context(|| format!("cannot read binary {}", path.display()))?;
    functions_from(data.as_slice())
        .with_context(|| format!("cannot list the functions of {}", path.display()))
}

/// Symbol names, as the symbol tables spell them.
pub(crate) type SymbolNames = std::collections::HashSet<Vec<u8>>;

/// The names of every symbol the binary at `path` defines in its symbol table (functions,
/// data, locals; empty for a binary stripped of it): what `build` asks of the build's own
/// binary to tell which archive members its link took. Errors name the path.
pub(crate) fn defined_names(path: &Path) -> Result<SymbolNames> {
    let data =
        std::fs::read(path).with_context(|| format!("cannot read binary {}", path.display()))?;
    let file = object::File::parse(data.as_slice())
        .with_context(|| format!("{} is not an ELF file", path.display()))?;
    Ok(file
        .symbols()
        .filter(|s| s.is_definition())
        .filter_map(|s| s.name_bytes().ok().map(<[u8]>::to_vec))
        .collect())
}

/// A shared library's exported functions, from its dynamic symbol table: for a library
/// whose `.symtab` was stripped (as distributions ship them), the functions a profiler names
/// in it (valgrind reads the same table) at their addresses; its local functions are not in
/// the table. Guarantees as for [`functions`].
pub fn exported_functions(path: &Path) -> Result<Vec<Function>> {
    let data =
        std::fs::read(path).with_context(|| format!("cannot read binary {}", path.display()))?;
    symbols_from(data.as_slice(), Wanted::Functions, Table::Dynamic)
        .with_context(|| format!("cannot list the exported functions of {}", path.display()))
}

/// [`functions`] on an ELF image already in memory.
pub(crate) fn functions_from_bytes(data: &[u8]) -> Result<Vec<Function>> {
    functions_from(data)
}

/// A binary's static data objects (`STT_OBJECT` and `STT_TLS` symbols) in ascending address
/// order, each with the identity, file, address and size a [`Function`] has (the record
/// every layout comparison takes). Guarantees as for [`functions`] (defined, sized, in a
/// section, one per address by the same preference, names qualified by their file when
/// shared); a thread-local's address is its place in the TLS template (`PT_TLS`'s address
/// plus its offset), where its initial bytes are.
pub fn data_objects_from_bytes(data: &[u8]) -> Result<Vec<Function>> {
    symbols_from(data, Wanted::DataObjects, Table::Full)
}

/// Which symbol table a reading lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Table {
    /// `.symtab`, every function.
    Full,
    /// `.dynsym`, the exported ones.
    Dynamic,
}

/// Which symbols a reading lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Functions,
    DataObjects,
}

fn functions_from<'data, R: object::ReadRef<'data>>(data: R) -> Result<Vec<Function>> {
    symbols_from(data, Wanted::Functions, Table::Full)
}

fn symbols_from<'data, R: object::ReadRef<'data>>(
    data: R,
    wanted: Wanted,
    table: Table,
) -> Result<Vec<Function>> {
    match object::FileKind::parse(data) {
        Ok(object::FileKind::Elf64) => {
            read_elf::<object::elf::FileHeader64<object::Endianness>, R>(data, wanted, table)
        }
        Ok(object::FileKind::Elf32) => {
            read_elf::<object::elf::FileHeader32<object::Endianness>, R>(data, wanted, table)
        }
        Ok(kind) => bail!("not an ELF file (it is {kind:?})"),
        Err(_) => bail!("not an ELF file (unrecognised format)"),
    }
}

/// Rank of a binding when choosing among aliases: lower is preferred.
fn binding_rank(global: bool, weak: bool) -> u8 {
    match (global, weak) {
        (_, true) => 1,
        (true, false) => 0,
        (false, false) => 2,
    }
}

fn is_plt_stub(name: &str) -> bool {
    name.ends_with("@plt") || name.ends_with("$plt") || name.ends_with("$pltgot")
}

struct Candidate {
    name: String,
    file: Option<String>,
    address: u64,
    size: u64,
    rank: u8,
}

fn read_elf<'data, Elf: FileHeader<Endian = object::Endianness>, R: object::ReadRef<'data>>(
    data: R,
    wanted: Wanted,
    table: Table,
) -> Result<Vec<Function>> {
    let elf = ElfFile::<Elf, R>::parse(data).context("malformed ELF file")?;
    if elf.kind() == object::ObjectKind::Relocatable {
        bail!("this is a relocatable object (.o), not a linked binary: its functions have no final addresses");
    }
    if table == Table::Full && elf.symbol_table().is_none() {
        bail!("the binary has no .symtab (it was stripped): link it without -s / strip to verify its layout");
    }
    let tls_base = tls_address(&elf);
    let mut current_file: Option<String> = None;
    // One candidate per address; BTreeMap keeps address order.
    let mut by_address: BTreeMap<u64, Candidate> = BTreeMap::new();
    let symbols = match table {
        Table::Full => elf.symbols(),
        Table::Dynamic => elf.dynamic_symbols(),
    };
    for symbol in symbols {
        if symbol.kind() == SymbolKind::File {
            let name = symbol.name().unwrap_or("");
            current_file = (!name.is_empty()).then(|| name.to_string());
            continue;
        }
        let kind_wanted = match wanted {
            Wanted::Functions => symbol.kind() == SymbolKind::Text,
            Wanted::DataObjects => matches!(symbol.kind(), SymbolKind::Data | SymbolKind::Tls),
        };
        if !kind_wanted || symbol.size() == 0 {
            continue;
        }
        if !matches!(symbol.section(), SymbolSection::Section(_)) {
            continue;
        }
        let name = symbol.name().context("a symbol name is not valid UTF-8")?;
        if name.is_empty() || is_plt_stub(name) {
            continue;
        }
        let local = symbol.is_local();
        let candidate = Candidate {
            name: name.to_string(),
            file: if local { current_file.clone() } else { None },
            address: match symbol.kind() {
                SymbolKind::Tls => tls_base.wrapping_add(symbol.address()),
                _ => symbol.address(),
            },
            size: symbol.size(),
            rank: binding_rank(symbol.is_global(), symbol.is_weak()),
        };
        match by_address.get(&candidate.address) {
            Some(kept) if (kept.rank, &kept.name) <= (candidate.rank, &candidate.name) => {}
            _ => {
                by_address.insert(candidate.address, candidate);
            }
        }
    }
    Ok(with_identities(by_address.into_values().collect()))
}

/// The address of the binary's TLS template (`PT_TLS`), 0 when it has none.
fn tls_address<'data, Elf: FileHeader<Endian = object::Endianness>, R: object::ReadRef<'data>>(
    elf: &ElfFile<'data, Elf, R>,
) -> u64 {
    use object::read::elf::ProgramHeader;
    let endian = elf.endian();
    elf.elf_program_headers()
        .iter()
        .find(|h| h.p_type(endian) == object::elf::PT_TLS)
        .map_or(0, |h| h.p_vaddr(endian).into())
}

/// Qualifies names shared by several functions with their file.
fn with_identities(candidates: Vec<Candidate>) -> Vec<Function> {
    let mut name_count: HashMap<&str, usize> = HashMap::new();
    for c in &candidates {
        *name_count.entry(c.name.as_str()).or_default() += 1;
    }
    let ambiguous: Vec<bool> = candidates
        .iter()
        .map(|c| name_count[c.name.as_str()] > 1)
        .collect();
    candidates
        .into_iter()
        .zip(ambiguous)
        .map(|(c, ambiguous)| Function {
            id: FunctionId {
                name: c.name.clone(),
                file: if ambiguous { c.file.clone() } else { None },
            },
            name: c.name,
            file: c.file,
            address: c.address,
            size: c.size,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plt_stubs_are_recognised() {
        assert!(is_plt_stub("printf@plt"));
        assert!(is_plt_stub("printf$plt"));
        assert!(is_plt_stub("__cxa_finalize$pltgot"));
        assert!(!is_plt_stub("plt_helper"));
    }

    #[test]
    fn global_beats_weak_beats_local() {
        assert!(binding_rank(true, false) < binding_rank(false, true));
        assert!(binding_rank(false, true) < binding_rank(false, false));
    }

    #[test]
    fn non_elf_bytes_are_refused() {
        let err = functions_from_bytes(b"#!/bin/sh\necho hi\n").unwrap_err();
        assert!(format!("{err:#}").contains("not an ELF file"), "{err:#}");
    }
}
