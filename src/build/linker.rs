//! The four linkers and which ordering mechanism each offers for each granularity
//! (measured on Debian 12; see docs/build.md and docs/design.md's table).

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
    /// gcc `-flto`: the functions of the baseline binary, as the `.text.NAME` sections the
    /// LTO code generator emits under `-ffunction-sections`, in a random order through a
    /// script (bfd; lld for clang -flto).
    LtoScript,
    /// gcc `-flto` with gold: the same order as [`Mechanism::LtoScript`] through
    /// `--section-ordering-file`.
    LtoSectionOrderingFile,
    /// `-flto` with mold, which has no ordering file: `--shuffle-sections=SEED` (moves data
    /// sections too).
    LtoMoldShuffle,
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
            // Modules do not survive LTO: every granularity is the global order of the code
            // the LTO code generator produced (Kalibera & Jones' LTO variant). The objects
            // stay in the recorded order: LTO's partitioning and inlining follow it.
            return Ok(match linker {
                Linker::Lld if gcc_ir => bail!(
                    "lld cannot link gcc -flto objects (it does not read GCC's IR): use \
                     --linker bfd, gold or mold"
                ),
                Linker::Bfd | Linker::Lld => Mechanism::LtoScript,
                Linker::Gold => Mechanism::LtoSectionOrderingFile,
                Linker::Mold => Mechanism::LtoMoldShuffle,
            });
        }
        Ok(match granularity {
            Granularity::Link => Mechanism::MergedLink,
            Granularity::Module => Mechanism::MergedModule,
            Granularity::Global => Mechanism::MergedGlobal,
        })
    }

    /// In words, for the manifest and the summary.
    pub fn describe(self, linker: Linker) -> String {
        let l = linker.name();
        let merged = "objects merged by ld.bfd -r in the recorded order (resolution pinned)";
        match self {
            Mechanism::MergedLink => format!(
                "{merged}, modules in a random order; archive members permuted; then {l}"
            ),
            Mechanism::MergedModule => format!(
                "{merged}, modules in a random order and functions shuffled within each; \
                 archive members permuted and reordered by ld.bfd -r; then {l}"
            ),
            Mechanism::MergedGlobal => format!(
                "{merged}, all functions in one random order; archive members permuted and \
                 reordered by ld.bfd -r; then {l}"
            ),
            Mechanism::LtoScript => format!(
                "-flto -ffunction-sections: post-LTO .text.<function> order by INSERT BEFORE .text script, {l}"
            ),
            Mechanism::LtoSectionOrderingFile => format!(
                "-flto -ffunction-sections: post-LTO .text.<function> order by --section-ordering-file, {l}"
            ),
            Mechanism::LtoMoldShuffle => format!("-flto: --shuffle-sections=SEED, {l}"),
        }
    }

    /// Whether the mechanism needs the baseline binary's function list.
    pub fn needs_baseline_functions(self) -> bool {
        matches!(
            self,
            Mechanism::LtoScript | Mechanism::LtoSectionOrderingFile
        )
    }

    /// Whether the baseline is linked through the mechanism too (with the identity order).
    pub fn is_merged(self) -> bool {
        matches!(
            self,
            Mechanism::MergedLink | Mechanism::MergedModule | Mechanism::MergedGlobal
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
            Mechanism::MergedModule
        );
        assert_eq!(
            Mechanism::choose(Granularity::Link, Linker::Mold, false, false).unwrap(),
            Mechanism::MergedLink
        );
        assert_eq!(
            Mechanism::choose(Granularity::Link, Linker::Mold, true, true).unwrap(),
            Mechanism::LtoMoldShuffle
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
