//! What the dynamic loader needs of a linked binary: a shared library's `DT_SONAME` (the
//! name its programs' `DT_NEEDED` entries load it by) and an executable's `PT_INTERP` (the
//! loader that resolves those names at run time).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use object::elf;
use object::read::elf::{Dyn, FileHeader, ProgramHeader};
use object::Endianness;

/// What `elf64` or `elf32` (by the file's class) reads of the ELF file at `path`; `None` for
/// a file that is not ELF. `what` names the part read, for the error.
fn read_elf<T>(
    path: &Path,
    what: &str,
    elf64: &dyn Fn(&[u8]) -> object::read::Result<Option<T>>,
    elf32: &dyn Fn(&[u8]) -> object::read::Result<Option<T>>,
) -> Result<Option<T>> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let parsed = match object::FileKind::parse(&*data) {
        Ok(object::FileKind::Elf64) => elf64(&data),
        Ok(object::FileKind::Elf32) => elf32(&data),
        _ => return Ok(None),
    };
    parsed.with_context(|| format!("reading {what} of {}", path.display()))
}

/// Which of a set of linked files are loaded with the ones marked in `roots`: each root,
/// and each shared library (`loaded_as[j]`: the name it is loaded by, its soname or else
/// its file name; `None` for a program) that a loaded file lists among its `DT_NEEDED`
/// (`needed[i]`), directly or through another such library. The one rule of which of the
/// build's libraries a program loads.
pub(crate) fn loaded_closure(
    needed: &[Vec<String>],
    loaded_as: &[Option<String>],
    roots: &[bool],
) -> Vec<bool> {
    let mut loaded = roots.to_vec();
    let mut pending: Vec<usize> = (0..loaded.len()).filter(|&i| loaded[i]).collect();
    while let Some(i) = pending.pop() {
        for (j, name) in loaded_as.iter().enumerate() {
            let wanted = name.as_ref().is_some_and(|n| needed[i].contains(n));
            if !loaded[j] && wanted {
                loaded[j] = true;
                pending.push(j);
            }
        }
    }
    loaded
}

/// The `DT_SONAME` of the ELF file at `path`; `None` when it has none (an executable, or a
/// library linked without `-soname`).
pub(crate) fn soname(path: &Path) -> Result<Option<String>> {
    Ok(dynamic_strings(path, elf::DT_SONAME)?.into_iter().next())
}

/// The `DT_NEEDED` entries of the ELF file at `path`: the names of the libraries the loader
/// loads with it (empty for a static executable or a non-ELF file).
pub(crate) fn needed(path: &Path) -> Result<Vec<String>> {
    dynamic_strings(path, elf::DT_NEEDED)
}

/// The strings of the dynamic section's entries of `tag` in the ELF file at `path`, in order.
fn dynamic_strings(path: &Path, tag: u32) -> Result<Vec<String>> {
    fn of<H: FileHeader<Endian = Endianness>>(
        data: &[u8],
        tag: u32,
    ) -> object::read::Result<Option<Vec<String>>> {
        let header = H::parse(data)?;
        let endian = header.endian()?;
        let sections = header.sections(endian, data)?;
        let Some((dynamic, link)) = sections.dynamic(endian, data)? else {
            return Ok(Some(Vec::new()));
        };
        let strings = sections.strings(endian, data, link)?;
        let mut found = Vec::new();
        for d in dynamic.iter().filter(|d| d.tag32(endian) == Some(tag)) {
            found.push(String::from_utf8_lossy(d.string(endian, strings)?).into_owned());
        }
        Ok(Some(found))
    }
    let read = read_elf(
        path,
        "the dynamic section",
        &|d| of::<elf::FileHeader64<Endianness>>(d, tag),
        &|d| of::<elf::FileHeader32<Endianness>>(d, tag),
    );
    Ok(read?.unwrap_or_default())
}

/// The program interpreter (`PT_INTERP`, e.g. `/lib64/ld-linux-x86-64.so.2`) of the ELF
/// file at `path`; `None` for a static executable (which loads no library) or a non-ELF
/// file (a script).
pub(crate) fn interpreter(path: &Path) -> Result<Option<PathBuf>> {
    read_elf(
        path,
        "the program headers",
        &interpreter_of::<elf::FileHeader64<Endianness>>,
        &interpreter_of::<elf::FileHeader32<Endianness>>,
    )
}

fn interpreter_of<H: FileHeader<Endian = Endianness>>(
    data: &[u8],
) -> object::read::Result<Option<PathBuf>> {
    let header = H::parse(data)?;
    let endian = header.endian()?;
    for segment in header.program_headers(endian, data)? {
        if let Some(interp) = segment.interpreter(endian, data)? {
            return Ok(Some(PathBuf::from(
                String::from_utf8_lossy(interp).into_owned(),
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_library_has_a_soname_and_an_executable_an_interpreter() {
        // The test binary itself is a dynamically linked executable without a soname.
        let me = std::env::current_exe().unwrap();
        assert_eq!(soname(&me).unwrap(), None);
        let interp = interpreter(&me).unwrap().expect("a dynamic executable");
        assert!(interp.is_file(), "{}", interp.display());
        // The loader is itself a shared object with a soname.
        let name = soname(&interp).unwrap().expect("ld.so has a soname");
        assert!(name.starts_with("ld-linux"), "{name}");
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        assert_eq!(soname(&script).unwrap(), None);
        assert_eq!(interpreter(&script).unwrap(), None);
    }
}
