//! The four linkers and which ordering mechanism each offers for each granularity
//! (measured on Debian 12; see docs/build.md and docs/design.md's table).

pub use crate::files::manifest::{Granularity, Linker, Mechanism};
use crate::wrap::record::{LinkRecord, LinkTool};

impl Linker {
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
