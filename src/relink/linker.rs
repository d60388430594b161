//! The four linkers and which ordering mechanism each offers for each granularity
//! (measured on Debian 12; see docs/build.md and docs/design.md's table).

use crate::files::manifest::Granularity;
use crate::wrap::record::{LinkRecord, LinkTool};

/// A linker the relinks can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Linker {
    /// GNU ld (ld.bfd), Debian's default.
    Bfd,
    /// GNU gold.
    Gold,
    /// LLVM lld.
    Lld,
    /// mold.
    Mold,
}

impl Linker {
    /// The short name (`bfd`, `gold`, `lld`, `mold`), as `-fuse-ld=` takes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Linker::Bfd => "bfd",
            Linker::Gold => "gold",
            Linker::Lld => "lld",
            Linker::Mold => "mold",
        }
    }

    /// The program name (`ld.bfd`, ...).
    pub(crate) fn program(self) -> String {
        format!("ld.{}", self.name())
    }

    /// Parses `bfd`, `gold`, `lld`, `mold` (also as the end of a path, as `--ld-path=` gives).
    pub(crate) fn parse(text: &str) -> Option<Linker> {
        let base = text.rsplit('/').next().unwrap_or(text);
        let base = base.strip_prefix("ld.").unwrap_or(base);
        match base {
            "bfd" | "ld" => Some(Linker::Bfd),
            "gold" => Some(Linker::Gold),
            "lld" | "ld.lld" => Some(Linker::Lld),
            "mold" => Some(Linker::Mold),
            _ => None,
        }
    }

    /// The linker a recorded link used: its `-fuse-ld=`, the linker it called, or bfd.
    pub(crate) fn of_record(record: &LinkRecord) -> Linker {
        match record.tool {
            LinkTool::Driver => record
                .fuse_ld
                .as_deref()
                .and_then(Linker::parse)
                .unwrap_or(Linker::Bfd),
            LinkTool::Linker => Linker::parse(&record.tool_name).unwrap_or(Linker::Bfd),
        }
    }
}

/// How a program's function order is randomised for one granularity and linker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Mechanism {
    /// The objects merged by one `ld.bfd -r` in the recorded order (symbol resolution stays
    /// the baseline's) with whole modules in a random order, each keeping its function
    /// order; the members of each static archive permuted.
    MergedLink,
    /// [`Mechanism::MergedLink`] with each module's functions shuffled within gcc's groups;
    /// each archive member reordered by its own `ld.bfd -r`.
    MergedModule,
    /// The objects' functions in one random order across modules (within gcc's groups),
    /// merged by one `ld.bfd -r`; archive members as for [`Mechanism::MergedModule`].
    MergedGlobal,
    /// `-flto` (gcc or clang): the LTO code generated once into one relocatable object with
    /// a section per function ([`super::lto_once`]), then relinked like
    /// [`Mechanism::MergedGlobal`]: its functions in one random order (within gcc's groups),
    /// whatever the granularity, since modules do not survive LTO.
    LtoOnce,
    /// `-flto` (gcc or clang): the machine code the user's own LTO link generated (gcc's
    /// ltrans objects, clang's LTO objects), kept by the shim ([`crate::wrap::lto_keep`]),
    /// relinked like [`Mechanism::MergedGlobal`]: the code, internalisation and inlining are
    /// exactly the plain LTO build's.
    LtoKept,
    /// `--granularity none`: the objects merged as for [`Mechanism::MergedModule`], but every
    /// binary keeps the baseline's module, member and function order; a seed only puts its
    /// padding (`build --pad`) in front of the code sections (LLVM lld's
    /// `--randomize-section-padding`). Under LTO, the LTO code is padded the same way.
    Padded,
}

impl Mechanism {
    /// Picks the mechanism. `lto`: the link generates code (`-flto`).
    pub(crate) fn choose(granularity: Granularity, lto: bool) -> Mechanism {
        match (granularity, lto) {
            // Nothing moves, so LTO code is padded like any other (see `Program::new`).
            (Granularity::None, _) => Mechanism::Padded,
            // Modules do not survive LTO: every other granularity is the global order of the
            // code the LTO code generator produced once (Kalibera & Jones' LTO case).
            (_, true) => Mechanism::LtoOnce,
            (Granularity::Link, false) => Mechanism::MergedLink,
            (Granularity::Module, false) => Mechanism::MergedModule,
            (Granularity::Global, false) => Mechanism::MergedGlobal,
        }
    }

    /// In words, for the manifest and the summary.
    pub(crate) fn describe(self, linker: Linker) -> String {
        let l = linker.name();
        let merged = "objects merged once by ld.bfd -r in the recorded order (resolution pinned); \
                      per seed, its section table permuted";
        let members = "archive members permuted and their section tables reordered";
        match self {
            Mechanism::MergedLink => {
                format!("{merged}: modules in a random order; archive members permuted; then {l}")
            }
            Mechanism::MergedModule => format!(
                "{merged}: modules in a random order and functions shuffled within each; \
                 {members}; then {l}"
            ),
            Mechanism::MergedGlobal => {
                format!("{merged}: all functions in one random order; {members}; then {l}")
            }
            Mechanism::LtoKept => format!(
                "-flto: the LTO link's own code kept (its partitions' objects, a section per \
                 function) and merged once by ld.bfd -r; per seed, its section table permuted: \
                 its functions in one random order; {members}; then {l}"
            ),
            Mechanism::Padded => format!(
                "objects merged once by ld.bfd -r in the recorded order (resolution pinned); per \
                 seed, seeded padding in front of each function, every order kept (modules, \
                 archive members, functions); then {l}"
            ),
            Mechanism::LtoOnce => format!(
                "-flto: code generated once more into one object with a section per function \
                 (-r: the link's own code could not be kept, globals not internalised); \
                 per seed, its section table permuted: its functions in one random order; \
                 {members}; then {l}"
            ),
        }
    }

    /// Whether the baseline is linked through the mechanism too (with the identity order).
    #[cfg(test)]
    pub(crate) fn is_merged(self) -> bool {
        matches!(
            self,
            Mechanism::MergedLink
                | Mechanism::MergedModule
                | Mechanism::MergedGlobal
                | Mechanism::LtoOnce
                | Mechanism::LtoKept
                | Mechanism::Padded
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_linker_names_and_paths() {
        assert_eq!(Linker::parse("gold"), Some(Linker::Gold));
        assert_eq!(Linker::parse("/usr/bin/ld.lld"), Some(Linker::Lld));
        assert_eq!(Linker::parse("ld.mold"), Some(Linker::Mold));
        assert_eq!(Linker::parse("ld"), Some(Linker::Bfd));
        assert_eq!(Linker::parse("wild"), None);
    }

    #[test]
    fn every_granularity_has_a_mechanism_and_lto_is_code_generated_once() {
        assert_eq!(
            Mechanism::choose(Granularity::Module, false),
            Mechanism::MergedModule
        );
        assert_eq!(
            Mechanism::choose(Granularity::Link, false),
            Mechanism::MergedLink
        );
        for g in [Granularity::Link, Granularity::Module, Granularity::Global] {
            assert_eq!(Mechanism::choose(g, true), Mechanism::LtoOnce);
        }
        assert!(Mechanism::LtoOnce.is_merged());
        // Padding only keeps the order whether or not the link generates code.
        assert_eq!(
            Mechanism::choose(Granularity::None, false),
            Mechanism::Padded
        );
        assert_eq!(
            Mechanism::choose(Granularity::None, true),
            Mechanism::Padded
        );
    }
}
