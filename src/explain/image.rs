//! The code a program runs that its seeds relink: its own functions and those of the
//! build's shared libraries it loads (every seed relinks them with it), set in one address
//! space so that the screening, the set pressure and the confirmation read one list of
//! functions per binary.
//!
//! A library loads at a page-aligned address the layout does not choose (with ASLR off, the
//! same in every run), so its functions' offsets within a page, their lines and their cache
//! sets (when the set period is at most a page) are those of their addresses in the
//! library: each library is placed at its own multiple of [`LIBRARY_BASE`], far above the
//! program's code and aligned to any period, and its functions keep their own addresses
//! above it.

use std::path::Path;

use anyhow::{Context, Result};

use super::hotness::LoadedObject;
use crate::files::manifest::{Binary, BinarySet};
use crate::layout::binary::{self, Function};

/// Where the image's first library starts (the next one a multiple further): above any
/// program's code (a PIE's starts near 0, a fixed-address one at 4 MiB) and a multiple of
/// every cache's set period and of a page.
pub(crate) const LIBRARY_BASE: u64 = 1 << 40;

/// One of the build's shared libraries in the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImageLibrary {
    /// Its name in the manifest (its file name in the build).
    pub(crate) name: String,
    /// The name the program loads it by (its soname, else its file name): the file name it
    /// is staged under for a run.
    pub(crate) loaded_as: String,
    /// Its place in the image.
    pub(crate) base: u64,
}

/// The program and the build's libraries it loads, as [`Image::functions`] places them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Image {
    /// The libraries, in the manifest's order.
    pub(crate) libraries: Vec<ImageLibrary>,
}

impl Image {
    /// The libraries of `set` (the build's, as the manifest lists them) that the profiled
    /// process loaded (`objects`) from `staged`, where explain staged `set`'s libraries.
    pub(crate) fn of_loaded(set: &BinarySet, objects: &[LoadedObject], staged: &Path) -> Image {
        Image::of(set, |l| {
            let loaded_as = l.loaded_as();
            objects.iter().any(|o| {
                o.path.starts_with(staged) && o.path.file_name() == Some(loaded_as.as_ref())
            })
        })
    }

    /// The image of an explanation made on another binary set: the libraries of `set` named
    /// in `names` (an explanation's `libraries`), at the bases [`Image::of_loaded`] gave them.
    pub(crate) fn of_named(set: &BinarySet, names: &[String]) -> Image {
        Image::of(set, |l| names.contains(&l.name))
    }

    /// The libraries of `set` that `keep`, in the manifest's order, each at its base.
    fn of(set: &BinarySet, keep: impl Fn(&Binary) -> bool) -> Image {
        let libraries = (set.libraries.iter().filter(|l| keep(l)).enumerate())
            .map(|(k, l)| ImageLibrary {
                name: l.name.clone(),
                loaded_as: l.loaded_as(),
                base: (k as u64 + 1) * LIBRARY_BASE,
            })
            .collect();
        Image { libraries }
    }

    /// The image's functions in `set` (a binary set of the experiment in `dir`): those of
    /// `program` (its file) at their addresses, then each library's of `set`, checked as
    /// `run` checks it, at its address above the library's base.
    pub(crate) fn functions(
        &self,
        dir: &Path,
        set: &BinarySet,
        program: &Path,
    ) -> Result<Vec<Function>> {
        let mut all = binary::functions(program)?;
        for library in &self.libraries {
            let entry = (set.libraries.iter())
                .find(|l| l.name == library.name)
                .with_context(|| format!("{} has no library {}", set.label(), library.name))?;
            let path = crate::run::targets::verified_binary(dir, entry, "library", &set.label())?;
            all.extend(library.placed(binary::functions(&path)?));
        }
        Ok(all)
    }

    /// The library whose part of the image holds `address` (`None`: the program's).
    pub(crate) fn library_of(&self, address: u64) -> Option<&ImageLibrary> {
        self.libraries.iter().rev().find(|l| address >= l.base)
    }

    /// The library whose part of `functions` (an image's) holds the function named `name`
    /// (`None`: the program's, or no such function).
    pub(crate) fn library_holding(
        &self,
        functions: &[Function],
        name: &str,
    ) -> Option<&ImageLibrary> {
        let f = functions.iter().find(|f| f.name == name)?;
        self.library_of(f.address)
    }

    /// The functions of `functions` (an image's) in `library`'s part (`None`: the
    /// program's), at their own addresses.
    pub(crate) fn part(
        &self,
        functions: &[Function],
        library: Option<&ImageLibrary>,
    ) -> Vec<Function> {
        let base = library.map_or(0, |l| l.base);
        functions
            .iter()
            .filter(|f| self.library_of(f.address) == library)
            .map(|f| Function {
                address: f.address - base,
                ..f.clone()
            })
            .collect()
    }

    /// `functions` (an image's) with `library`'s part (`None`: the program's) replaced by
    /// `own` (that object's functions at their own addresses, e.g. a relink's).
    pub(crate) fn replaced(
        &self,
        functions: &[Function],
        library: Option<&ImageLibrary>,
        own: Vec<Function>,
    ) -> Vec<Function> {
        let kept = functions
            .iter()
            .filter(|f| self.library_of(f.address) != library)
            .cloned();
        let moved = match library {
            Some(l) => l.placed(own),
            None => own,
        };
        let mut all: Vec<Function> = moved.into_iter().chain(kept).collect();
        all.sort_by_key(|f| f.address);
        all
    }
}

impl ImageLibrary {
    /// `functions` (the library's, at its own addresses) at their place in the image.
    fn placed(&self, functions: Vec<Function>) -> Vec<Function> {
        functions
            .into_iter()
            .map(|f| Function {
                address: f.address + self.base,
                ..f
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn library(name: &str, soname: Option<&str>) -> Binary {
        Binary {
            name: name.into(),
            path: PathBuf::from(format!("baseline/lib/{name}")),
            soname: soname.map(String::from),
            ..Default::default()
        }
    }

    /// Only the libraries the process loaded from the staging directory are the image's,
    /// matched by the name they are loaded by; each gets its own base, in the manifest's
    /// order; a function's part, and a part replaced, round-trip its addresses.
    #[test]
    fn the_image_holds_the_loaded_libraries_each_at_its_base() {
        let set = BinarySet {
            libraries: vec![
                library("liba.so", Some("liba.so.1")),
                library("libb.so", None),
                library("libc_own.so", None),
            ],
            seed: None,
            kind: None,
            status: crate::files::manifest::BuildStatus::Ok,
            error: None,
            binaries: Vec::new(),
        };
        let staged = Path::new("/x/explain/profile/lib");
        let object = |p: &str| LoadedObject {
            path: PathBuf::from(p),
            debug: None,
        };
        let objects = [
            object("/x/explain/profile/lib/liba.so.1"),
            object("/lib/x86_64-linux-gnu/libb.so"),
            object("/x/explain/profile/lib/libc_own.so"),
        ];
        let image = Image::of_loaded(&set, &objects, staged);
        let names: Vec<(&str, &str, u64)> = (image.libraries.iter())
            .map(|l| (l.name.as_str(), l.loaded_as.as_str(), l.base))
            .collect();
        assert_eq!(
            names,
            [
                ("liba.so", "liba.so.1", LIBRARY_BASE),
                ("libc_own.so", "libc_own.so", 2 * LIBRARY_BASE)
            ]
        );
        let functions = vec![
            Function::named("main", 0x1040, 20),
            Function::named("f", LIBRARY_BASE + 0x1100, 30),
            Function::named("g", 2 * LIBRARY_BASE + 0x1200, 40),
        ];
        let liba = &image.libraries[0];
        assert_eq!(image.library_of(0x1040), None);
        assert_eq!(image.library_of(LIBRARY_BASE + 0x1100), Some(liba));
        assert_eq!(image.library_holding(&functions, "f"), Some(liba));
        assert_eq!(image.library_holding(&functions, "main"), None);
        assert_eq!(
            image.part(&functions, Some(liba)),
            [Function::named("f", 0x1100, 30)]
        );
        assert_eq!(
            image.part(&functions, None),
            [Function::named("main", 0x1040, 20)]
        );
        let moved = image.replaced(
            &functions,
            Some(liba),
            vec![Function::named("f", 0x1140, 30)],
        );
        assert_eq!(moved[1], Function::named("f", LIBRARY_BASE + 0x1140, 30));
        assert_eq!(
            (moved[0].clone(), moved[2].clone()),
            (functions[0].clone(), functions[2].clone())
        );
    }
}
