//! What a program's seeds can actually move, from its recorded inputs, and the refusal to
//! degrade silently: under `module` or `global` granularity, compiled objects whose functions
//! share one `.text` section (built without `-ffunction-sections`, i.e. not through the shim:
//! a partly built tree, or CMake without the launcher) would keep their function order in
//! every seed while the summary claimed otherwise, so the build stops and names them.

use anyhow::{bail, Result};
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind, SymbolSection};

use super::linker::Mechanism;
use super::replay::Program;
use crate::files::manifest::{Achieved, Granularity, LtoCode};
use crate::layout::{archive, object_file};
use crate::wrap::record::InputKind;

/// How one module (object or archive member) can move.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Module {
    /// Its functions sit in sections of their own; this many (the most in one group) can be
    /// reordered.
    PerFunction(usize),
    /// Compiled code with several functions in one `.text` section.
    OneSection,
    /// Nothing to say (LTO IR, assembly, not ELF, no code).
    Other,
}

/// Scans `program`'s recorded objects and archive members. Under `module`/`global`, an
/// error names the modules without per-function sections and the fixes.
pub(crate) fn inspect(program: &Program, granularity: Granularity) -> Result<Achieved> {
    let lto = program.mechanism;
    let lto = matches!(lto, Mechanism::LtoOnce | Mechanism::LtoKept).then_some(lto);
    // An LTO program's functions are ordered globally whatever the granularity.
    let granularity = if lto.is_some() {
        Granularity::Global
    } else {
        granularity
    };
    let (linked, names) = linked_modules(program)?;
    let modules: Vec<(String, Module)> = linked
        .iter()
        .map(|(name, data)| (name.clone(), classify(data)))
        .collect();
    let whole: Vec<&str> = modules
        .iter()
        .filter(|(_, m)| *m == Module::OneSection)
        .map(|(n, _)| n.as_str())
        .collect();
    let reorders = matches!(granularity, Granularity::Module | Granularity::Global);
    if reorders && !whole.is_empty() {
        let shown: Vec<&str> = whole.iter().take(8).copied().collect();
        bail!(
            "program {}: {} module(s) were compiled without one section per function, so their \
             functions cannot move: {}{}. They were not compiled through the shim (built \
             before `layoutrand build` ran, or by a CMake build without the launcher). Fix: \
             `make clean` (or remove those objects) and build again; for CMake, configure with \
             -DCMAKE_C_COMPILER_LAUNCHER=layoutrand-launch (see docs/build.md); or ask for \
             link order only with --granularity link",
            program.name,
            whole.len(),
            shown.join(", "),
            match whole.len() - shown.len() {
                0 => String::new(),
                more => format!(" and {more} more"),
            }
        );
    }
    let objects = modules.len();
    let shuffled = modules
        .iter()
        .filter(|(_, m)| matches!(m, Module::PerFunction(n) if *n >= 2))
        .count();
    let functions_move = reorders && shuffled > 0;
    // Padding goes in front of every code section, one-section modules' included.
    let functions = linked
        .iter()
        .map(|(_, data)| functions_in(data, names.as_ref()))
        .sum();
    let with_code = modules
        .iter()
        .filter(|(_, m)| matches!(m, Module::PerFunction(n) if *n >= 1) || *m == Module::OneSection)
        .count();
    Ok(Achieved {
        objects,
        modules_with_function_order: if functions_move { shuffled } else { 0 },
        modules_one_section: whole.len(),
        modules_with_code: Some(with_code),
        functions_placed: Some(functions),
        granularity: Some(granularity),
        lto: lto.map(|m| match m {
            Mechanism::LtoKept => LtoCode::Kept,
            _ => LtoCode::GeneratedAgain,
        }),
        recorded_words: None,
    })
}

/// Each recorded object of `program` and each archive member its link took (named as the
/// link wrote it, a member as `archive(member)`) with its bytes. An archive's other members
/// are not in the binary and move nothing: nasm 2.16's ndisasm links 24 functions from its
/// archive of 75 members, and the summary said functions moved "within 50 of 83 modules".
/// With them, the names the binary defines, when it can tell.
fn linked_modules(program: &Program) -> Result<(Vec<NamedBytes>, Option<Names>)> {
    // A binary the names of which cannot be read (none, or stripped of its symbol table)
    // counts every member, as the link may have.
    let linked = crate::layout::binary::defined_names(&program.record.output)
        .ok()
        .filter(|names| !names.is_empty());
    let mut modules = Vec::new();
    for input in &program.record.inputs {
        match input.kind {
            InputKind::Object => modules.push((
                input.written.clone(),
                crate::wrap::record::read_blob(&program.record_dir, &input.blob)?,
            )),
            InputKind::Archive => {
                let blob = program
                    .record_dir
                    .join(crate::wrap::record::BLOBS_DIR)
                    .join(&input.blob);
                for (member, data) in archive::members_with_data(&blob)? {
                    if linked.as_ref().is_none_or(|names| taken(&data, names)) {
                        modules.push((format!("{}({})", input.written, member.name), data));
                    }
                }
            }
        }
    }
    Ok((modules, linked))
}

/// Symbol names, as the symbol tables spell them.
type Names = crate::layout::binary::SymbolNames;

/// A module's name (a member as `archive(member)`) and its bytes.
type NamedBytes = (String, Vec<u8>);

/// Whether the archive member `data` is in the binary whose symbols are `names`: the linker
/// takes a member to define a symbol the link needs, so one of its global definitions is
/// then the binary's. A member whose symbols do not say (not an object, or LTO bytecode,
/// whose symbols the plugin gives) counts as taken.
fn taken(data: &[u8], names: &Names) -> bool {
    if object_file::has_gcc_lto_bytecode(data).unwrap_or(true) {
        return true;
    }
    let Ok(file) = object::File::parse(data) else {
        return true;
    };
    file.symbols()
        .filter(|s| s.is_definition() && s.is_global())
        .filter_map(|s| s.name_bytes().ok())
        .any(|name| names.contains(name))
}

/// The functions (text symbols at distinct places) the object `data` defines, of them only
/// those the binary kept when its names are known (`--gc-sections` drops the others); 0
/// when it is not an object file.
fn functions_in(data: &[u8], kept: Option<&Names>) -> usize {
    object::File::parse(data).map_or(0, |file| text_starts(&file, kept).len())
}

/// The places (section index, address) of the text symbols of `file` (named in `kept`,
/// when given), distinct, in order.
fn text_starts(file: &object::File, kept: Option<&Names>) -> Vec<(usize, u64)> {
    let mut starts: Vec<(usize, u64)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text)
        .filter(|s| kept.is_none_or(|names| s.name_bytes().is_ok_and(|n| names.contains(n))))
        .filter_map(|s| match s.section() {
            SymbolSection::Section(i) => Some((i.0, s.address())),
            _ => None,
        })
        .collect();
    starts.sort_unstable();
    starts.dedup();
    starts
}

fn classify(data: &[u8]) -> Module {
    if object_file::has_gcc_lto_bytecode(data).unwrap_or(true) {
        return Module::Other;
    }
    let Ok(file) = object::File::parse(data) else {
        return Module::Other;
    };
    // A compiler (not an assembler) made it: gcc and clang write a `.comment` section.
    let compiled = file.section_by_name(".comment").is_some();
    let starts = text_starts(&file, None);
    let in_plain_text = starts
        .iter()
        .filter(|(i, _)| {
            file.section_by_index(object::SectionIndex(*i))
                .is_ok_and(|s| s.name() == Ok(".text"))
        })
        .count();
    if compiled && in_plain_text >= 2 {
        return Module::OneSection;
    }
    match object_file::text_sections_from_bytes(data) {
        Ok(sections) => Module::PerFunction(largest_group(&sections)),
        Err(_) => Module::Other,
    }
}

/// The most movable function sections that share one group (`.text.*`, `.text.startup.*`,
/// ...): the linker's script places each group apart, so sections of different groups never
/// trade places (a `main` in `.text.startup.main` and one `.text.usage` keep their order in
/// every seed), and only sections of one group can be shuffled.
fn largest_group(sections: &[object_file::TextSection]) -> usize {
    let mut by_group = std::collections::BTreeMap::new();
    for s in sections
        .iter()
        .filter(|s| s.is_reorderable() && !s.functions.is_empty())
    {
        *by_group.entry(s.group).or_insert(0) += 1;
    }
    by_group.into_values().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn classify_file(path: &Path) -> Module {
        classify(&std::fs::read(path).unwrap())
    }

    const TWO_FUNCTIONS: &str = "int f(int x) { return x + 1; }\nint g(int x) { return x * 2; }\n";

    fn compile(dir: &Path, flags: &[&str]) -> std::path::PathBuf {
        compile_source(dir, TWO_FUNCTIONS, flags)
    }

    fn compile_source(dir: &Path, source: &str, flags: &[&str]) -> std::path::PathBuf {
        let src = dir.join("m.c");
        std::fs::write(&src, source).unwrap();
        let obj = dir.join(format!("m{}.o", flags.len()));
        let ok = crate::child::command("cc")
            .args(["-O2", "-c"])
            .args(flags)
            .arg(&src)
            .arg("-o")
            .arg(&obj)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        obj
    }

    #[test]
    fn objects_without_function_sections_are_recognised() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(classify_file(&compile(dir.path(), &[])), Module::OneSection);
        assert_eq!(
            classify_file(&compile(dir.path(), &["-ffunction-sections"])),
            Module::PerFunction(2)
        );
    }

    /// gcc -O2 puts `main` in `.text.startup.main`, which the linker places apart from the
    /// `.text.*` sections: a module of `main` and one other function has nothing to shuffle
    /// (nettle 3.8's nettle-lfib-stream, whose seeds all kept the baseline's layout).
    #[test]
    fn functions_in_different_groups_do_not_count_as_movable() {
        let dir = tempfile::tempdir().unwrap();
        let source = "#include <stdio.h>\n\
            __attribute__((noinline)) static void usage(void) { puts(\"usage\"); }\n\
            int main(int argc, char **argv) { if (argc > 1) usage(); return 0; }\n";
        let obj = compile_source(dir.path(), source, &["-ffunction-sections"]);
        let sections =
            object_file::text_sections_from_bytes(&std::fs::read(&obj).unwrap()).unwrap();
        let names: Vec<&str> = sections.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&".text.startup.main"), "{names:?}");
        assert!(names.contains(&".text.usage"), "{names:?}");
        assert_eq!(classify_file(&obj), Module::PerFunction(1));
    }
}
