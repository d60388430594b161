//! The four linkers and which ordering mechanism each offers for each granularity
//! (measured on Debian 12; see docs/build.md and DESIGN.md's table).

use anyhow::{bail, Result};

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
    pub fn name(self) -> &'static str {
        match self {
            Linker::Bfd => "bfd",
            Linker::Gold => "gold",
            Linker::Lld => "lld",
            Linker::Mold => "mold",
        }
    }

    /// The program name (`ld.bfd`, ...).
    pub fn program(self) -> String {
        format!("ld.{}", self.name())
    }

    /// Parses `bfd`, `gold`, `lld`, `mold` (also as the end of a path, as `--ld-path=` gives).
    pub fn parse(text: &str) -> Option<Linker> {
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
    pub fn of_record(record: &LinkRecord) -> Linker {
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
pub enum Mechanism {
    /// Object files and archive members permuted on the link line; nothing else.
    LinkOrder,
    /// Link order + each module's functions in a random order through an exact
    /// `INSERT BEFORE .text` script (bfd, lld).
    ModuleScript,
    /// Link order + each module relinked with `ld -r -T` in a random function order (any
    /// linker; gold and mold, which lack `INSERT`).
    ModuleRelocatable,
    /// One random order of all functions through an exact script (bfd, lld).
    GlobalScript,
    /// gold's `--section-ordering-file` with every function section in a random order
    /// (same-named statics of different modules stay together).
    GlobalSectionOrderingFile,
    /// mold's `--shuffle-sections=SEED` (moves data sections too).
    GlobalMoldShuffle,
    /// gcc `-flto`: the functions of the baseline binary, as the `.text.NAME` sections the
    /// LTO code generator emits under `-ffunction-sections`, in a random order through a
    /// script (bfd; lld for clang -flto).
    LtoScript,
    /// gcc `-flto` with gold: the same order as [`Mechanism::LtoScript`] through
    /// `--section-ordering-file`.
    LtoSectionOrderingFile,
}

impl Mechanism {
    /// Picks the mechanism, or says why none exists for this combination.
    /// `lto`: the link generates code (`-flto`); `gcc_ir`: with gcc (whose IR lld cannot read)
    /// rather than clang.
    pub fn choose(
        granularity: Granularity,
        linker: Linker,
        lto: bool,
        gcc_ir: bool,
    ) -> Result<Mechanism> {
        if lto {
            // Modules do not survive LTO: module granularity is the global order of the code
            // the LTO code generator produced (Kalibera & Jones' LTO variant).
            return Ok(match (granularity, linker) {
                (_, Linker::Lld) if gcc_ir => bail!(
                    "lld cannot link gcc -flto objects (it does not read GCC's IR): use \
                     --linker bfd, gold or mold"
                ),
                (Granularity::Link, _) => Mechanism::LinkOrder,
                (_, Linker::Bfd | Linker::Lld) => Mechanism::LtoScript,
                (_, Linker::Gold) => Mechanism::LtoSectionOrderingFile,
                (_, Linker::Mold) => Mechanism::GlobalMoldShuffle,
            });
        }
        Ok(match (granularity, linker) {
            (Granularity::Link, _) => Mechanism::LinkOrder,
            (Granularity::Module, Linker::Bfd | Linker::Lld) => Mechanism::ModuleScript,
            (Granularity::Module, Linker::Gold | Linker::Mold) => Mechanism::ModuleRelocatable,
            (Granularity::Global, Linker::Bfd | Linker::Lld) => Mechanism::GlobalScript,
            (Granularity::Global, Linker::Gold) => Mechanism::GlobalSectionOrderingFile,
            (Granularity::Global, Linker::Mold) => Mechanism::GlobalMoldShuffle,
        })
    }

    /// In words, for the manifest and the summary.
    pub fn describe(self, linker: Linker) -> String {
        let l = linker.name();
        match self {
            Mechanism::LinkOrder => format!("permuted objects and archive members, {l}"),
            Mechanism::ModuleScript => format!(
                "permuted objects and archive members + per-module function order by INSERT BEFORE .text script, {l}"
            ),
            Mechanism::ModuleRelocatable => format!(
                "permuted objects and archive members + per-module function order by ld.bfd -r -T, then {l}"
            ),
            Mechanism::GlobalScript => {
                format!("one global function order by INSERT BEFORE .text script, {l}")
            }
            Mechanism::GlobalSectionOrderingFile => {
                format!("one global section order by --section-ordering-file, {l}")
            }
            Mechanism::GlobalMoldShuffle => format!("--shuffle-sections=SEED, {l}"),
            Mechanism::LtoScript => format!(
                "-flto -ffunction-sections: post-LTO .text.<function> order by INSERT BEFORE .text script, {l}"
            ),
            Mechanism::LtoSectionOrderingFile => format!(
                "-flto -ffunction-sections: post-LTO .text.<function> order by --section-ordering-file, {l}"
            ),
        }
    }

    /// Whether the mechanism needs the baseline binary's function list.
    pub fn needs_baseline_functions(self) -> bool {
        matches!(
            self,
            Mechanism::LtoScript | Mechanism::LtoSectionOrderingFile
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
    fn every_linker_has_a_mechanism_for_every_granularity_without_lto() {
        for g in [Granularity::Link, Granularity::Module, Granularity::Global] {
            for l in [Linker::Bfd, Linker::Gold, Linker::Lld, Linker::Mold] {
                assert!(Mechanism::choose(g, l, false, false).is_ok(), "{g:?} {l:?}");
            }
        }
        assert_eq!(
            Mechanism::choose(Granularity::Module, Linker::Bfd, false, false).unwrap(),
            Mechanism::ModuleScript
        );
        assert_eq!(
            Mechanism::choose(Granularity::Module, Linker::Mold, false, false).unwrap(),
            Mechanism::ModuleRelocatable
        );
    }

    #[test]
    fn lld_refuses_gcc_lto() {
        let err = Mechanism::choose(Granularity::Global, Linker::Lld, true, true).unwrap_err();
        assert!(err.to_string().contains("GCC's IR"));
        // clang's bitcode is lld's own: allowed.
        assert_eq!(
            Mechanism::choose(Granularity::Global, Linker::Lld, true, false).unwrap(),
            Mechanism::LtoScript
        );
        assert_eq!(
            Mechanism::choose(Granularity::Module, Linker::Bfd, true, true).unwrap(),
            Mechanism::LtoScript
        );
    }
}
