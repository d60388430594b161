//! Keeping the machine code of the user's own LTO link. A `-flto` link generates its code at
//! link time, into temporary objects the compiler deletes afterwards. The shim asks the
//! compiler to keep them, in a directory of the recording, so that every relink uses exactly
//! the code of the user's link (internalisation, inlining and partitioning included) instead
//! of generating it again:
//!
//! * gcc: `-save-temps -dumpbase <dir>/<output name>`: lto-wrapper keeps its files, among
//!   them each partition's machine code, `<output name>.ltrans<N>.ltrans.o` (with one section
//!   per function: the shim also passes `-ffunction-sections`, which gcc hands to the ltrans
//!   compiles). `-dumpdir` would be the natural option, but gcc 12 then fails the link ("could
//!   not open arguments file"); `-dumpbase` with a directory writes every file there and
//!   nothing next to the output. The output itself is byte-identical to the link without
//!   these options.
//! * clang: `-Wl,-plugin-opt=obj-path=<dir>/<output name>.lto.o`, understood by lld and by
//!   LLVM's gold plugin (bfd, gold, mold): the LTO object is written there, for ThinLTO one
//!   per module as `.lto.o1`, `.lto.o2`, ... (clang passes `-ffunction-sections` to the code
//!   generator as `-plugin-opt=-function-sections`; lld always generates one section per
//!   function).
//!
//! A link that already names where its temporary files go (`-save-temps`, `-dumpbase`,
//! `-dumpdir`, `obj-path`, `--save-temps`) or keeps a ThinLTO cache is left as it is: its
//! code is then generated once more by [`crate::relink::lto_once`]'s fallback.

use std::path::{Path, PathBuf};

/// Subdirectory of the record directory where a link's LTO temporaries go while it runs.
pub(crate) const TEMPS_DIR: &str = "lto-temps";

/// Whether the compiler at `real` is clang (its LTO is LLVM's): judged by the file the path
/// resolves to (`cc` is often a link to gcc or to clang).
pub(crate) fn is_clang(real: &Path) -> bool {
    let named_clang = |p: &Path| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().contains("clang"))
    };
    named_clang(real) || real.canonicalize().is_ok_and(|p| named_clang(&p))
}

/// The options that make the compiler keep its LTO code in `dir`, for a link writing
/// `output_name`; `None` when the link's own options already decide where temporaries go.
pub(crate) fn keep_args(
    clang: bool,
    args: &[String],
    dir: &Path,
    output_name: &str,
) -> Option<Vec<String>> {
    let decided = args.iter().any(|a| {
        a.starts_with("-save-temps")
            || a.starts_with("-dumpbase")
            || a.starts_with("-dumpdir")
            || a.contains("obj-path")
            || a.contains("--save-temps")
            || a.contains("thinlto-cache")
            || a.contains("cache-dir")
    });
    if decided {
        return None;
    }
    let base = dir.join(output_name);
    Some(if clang {
        vec![format!("-Wl,-plugin-opt=obj-path={}.lto.o", base.display())]
    } else {
        vec![
            "-save-temps".to_string(),
            "-dumpbase".to_string(),
            base.display().to_string(),
        ]
    })
}

/// The objects the link left in `dir`, in partition order: gcc's
/// `<name>.ltrans<N>.ltrans.o`, clang's `<name>.lto.o`, `<name>.lto.o1`, ...
pub(crate) fn kept_objects(clang: bool, dir: &Path, output_name: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u64, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let rest = file.strip_prefix(output_name)?;
            partition_of(clang, rest).map(|n| (n, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// The partition number of a kept object from its name after the output name (`None`: not
/// one of the objects).
fn partition_of(clang: bool, rest: &str) -> Option<u64> {
    if clang {
        let n = rest.strip_prefix(".lto.o")?;
        if n.is_empty() {
            return Some(0);
        }
        n.parse().ok()
    } else {
        rest.strip_prefix(".ltrans")?
            .strip_suffix(".ltrans.o")?
            .parse()
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_read_from_the_names_compilers_write() {
        assert_eq!(partition_of(false, ".ltrans0.ltrans.o"), Some(0));
        assert_eq!(partition_of(false, ".ltrans12.ltrans.o"), Some(12));
        // The IR partition and the assembly are not machine-code objects.
        assert_eq!(partition_of(false, ".ltrans0.o"), None);
        assert_eq!(partition_of(false, ".ltrans0.ltrans.s"), None);
        assert_eq!(partition_of(true, ".lto.o"), Some(0));
        assert_eq!(partition_of(true, ".lto.o2"), Some(2));
        assert_eq!(partition_of(true, ".lto.o.tmp"), None);
    }

    #[test]
    fn kept_objects_come_in_partition_order() {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "p.ltrans10.ltrans.o",
            "p.ltrans2.ltrans.o",
            "p.ltrans2.o",
            "p.res",
            "q.ltrans0.ltrans.o",
        ] {
            std::fs::write(dir.path().join(f), b"").unwrap();
        }
        let names: Vec<String> = kept_objects(false, dir.path(), "p")
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["p.ltrans2.ltrans.o", "p.ltrans10.ltrans.o"]);
    }

    #[test]
    fn a_link_that_places_its_own_temporaries_is_left_alone() {
        let d = Path::new("/r/t");
        let args = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            keep_args(false, &args("-O2 -flto a.o -o p"), d, "p").unwrap(),
            ["-save-temps", "-dumpbase", "/r/t/p"]
        );
        assert_eq!(
            keep_args(true, &args("-flto=thin a.o -o p"), d, "p").unwrap(),
            ["-Wl,-plugin-opt=obj-path=/r/t/p.lto.o"]
        );
        assert!(keep_args(false, &args("-flto -save-temps a.o"), d, "p").is_none());
        assert!(keep_args(
            true,
            &args("-flto=thin -Wl,--thinlto-cache-dir=c a.o"),
            d,
            "p"
        )
        .is_none());
    }
}
