//! The cache model cachegrind simulates (`run --metric cachegrind [--cache-sim ...]`).
//!
//! Left to itself, valgrind takes the geometry of the host's caches (with adjustments: on a
//! VM it took an L3 as a 256 MiB direct-mapped last level), so two hosts simulate two
//! different machines and their counts cannot be compared. `run` therefore always passes a
//! geometry explicitly, [`CacheModel::DEFAULT`] unless `--cache-sim` names another, and
//! records it with valgrind's version in the store's header; `compare` warns when two stores
//! differ in either (docs/run.md).

use std::fmt;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// Defined with the layout features that map code onto its sets; its parsing and the
/// model of three caches live here.
pub(crate) use crate::layout::cache_geometry::CacheGeometry;

/// The three caches cachegrind simulates: first-level instruction and data, and the last
/// level (unified).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
// The wire spells the caches as cachegrind's flags do (`I1`, `D1`, `LL`); Rust fields are
// snake case, so these three renames stay: they spell one name in each language's case.
pub struct CacheModel {
    /// `--I1`.
    #[serde(rename = "I1")]
    pub i1: CacheGeometry,
    /// `--D1`.
    #[serde(rename = "D1")]
    pub d1: CacheGeometry,
    /// `--LL`.
    #[serde(rename = "LL")]
    pub ll: CacheGeometry,
}

/// valgrind refuses lines shorter than this (an instruction could straddle three lines).
const MIN_LINE: u64 = 16;
/// The largest cache accepted: 4 GiB, far above any real last level.
const MAX_SIZE: u64 = 1 << 32;

impl CacheGeometry {
    const fn new(size: u64, assoc: u64, line: u64) -> CacheGeometry {
        CacheGeometry { size, assoc, line }
    }

    /// Checks what valgrind's cachegrind requires of a cache (its `check_cache`): a line
    /// size that is a power of two of at least 16 bytes, and a number of sets
    /// (size / (assoc × line)) that is a whole power of two. `name` is the cache's option
    /// name for the message.
    pub(crate) fn check(&self, name: &str) -> Result<()> {
        let CacheGeometry { size, assoc, line } = *self;
        if size == 0 || assoc == 0 || size > MAX_SIZE {
            bail!("{name}: size and associativity must be positive, the size at most 4 GiB");
        }
        if !line.is_power_of_two() || line < MIN_LINE {
            bail!("{name}: the line size must be a power of two of at least {MIN_LINE} bytes");
        }
        let set_bytes = assoc.saturating_mul(line);
        if size % set_bytes != 0 || !(size / set_bytes).is_power_of_two() {
            bail!(
                "{name}: size / (associativity × line) must be a power of two (the \
                 number of sets), as valgrind requires"
            );
        }
        Ok(())
    }
}

impl fmt::Display for CacheGeometry {
    /// `size,assoc,line`, as valgrind's `--I1=` takes it.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{},{},{}", self.size, self.assoc, self.line)
    }
}

impl CacheModel {
    /// The default model: I1 and D1 of 32 KiB, 8-way, 64-byte lines (a common x86-64 first
    /// level) and an 8 MiB 16-way last level with 64-byte lines (8192 sets).
    pub const DEFAULT: CacheModel = CacheModel {
        i1: CacheGeometry::new(32 * 1024, 8, 64),
        d1: CacheGeometry::new(32 * 1024, 8, 64),
        ll: CacheGeometry::new(8 * 1024 * 1024, 16, 64),
    };

    /// Parses `--cache-sim`: `I1=SIZE,ASSOC,LINE`, `D1=...`, `LL=...`, comma-separated, in
    /// any order, each at most once; a cache left out keeps [`CacheModel::DEFAULT`]'s
    /// geometry. E.g. `I1=1024,2,64` or `I1=32768,8,64,D1=32768,8,64,LL=8388608,16,64`.
    /// An error says what is wrong, not the text (the caller names its option and value).
    pub fn parse(text: &str) -> Result<CacheModel> {
        let mut model = CacheModel::DEFAULT;
        let mut seen: Vec<&str> = Vec::new();
        let mut tokens = text.split(',').map(str::trim);
        while let Some(token) = tokens.next() {
            let Some((name, size)) = token.split_once('=') else {
                bail!("expected I1=SIZE,ASSOC,LINE, D1=... or LL=..., got {token:?}");
            };
            let slot = match name {
                "I1" => &mut model.i1,
                "D1" => &mut model.d1,
                "LL" => &mut model.ll,
                _ => bail!("unknown cache {name:?} (I1, D1 or LL)"),
            };
            if seen.contains(&name) {
                bail!("{name} is given twice");
            }
            seen.push(name);
            let number = |what: &str, t: Option<&str>| -> Result<u64> {
                let t = t.with_context(|| format!("{name} lacks its {what}"))?;
                t.parse::<u64>()
                    .with_context(|| format!("{name}'s {what} {t:?} is not a whole number"))
            };
            *slot = CacheGeometry {
                size: number("size", Some(size))?,
                assoc: number("associativity", tokens.next())?,
                line: number("line size", tokens.next())?,
            };
        }
        model.check()?;
        Ok(model)
    }

    /// Checks the three caches against valgrind's requirements (see [`CacheGeometry`]).
    pub(crate) fn check(&self) -> Result<()> {
        self.i1.check("I1")?;
        self.d1.check("D1")?;
        self.ll.check("LL")
    }

    /// valgrind's options for this model: `--I1=...`, `--D1=...`, `--LL=...`.
    pub(crate) fn valgrind_args(&self) -> [String; 3] {
        [
            format!("--I1={}", self.i1),
            format!("--D1={}", self.d1),
            format!("--LL={}", self.ll),
        ]
    }
}

impl fmt::Display for CacheModel {
    /// `I1=...,D1=...,LL=...`, which [`CacheModel::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "I1={},D1={},LL={}", self.i1, self.d1, self.ll)
    }
}

/// One way the cachegrind set-ups of two stores (a comparison's base and new) differ, or
/// cannot be told to agree (`None`: not recorded, i.e. valgrind's own host-derived model or
/// an unknown version); `crate::report::words::experiment` says it. Counts from two models
/// are counts of two simulated machines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupDifference {
    /// The cache models differ, or neither store recorded its own.
    Models {
        /// The base's model.
        base: Option<CacheModel>,
        /// The new store's model.
        new: Option<CacheModel>,
    },
    /// The valgrind versions differ, or neither store recorded its own.
    Versions {
        /// The base's version.
        base: Option<String>,
        /// The new store's version.
        new: Option<String>,
    },
}

/// What differs between the cachegrind set-ups of a base and a new store, each given as
/// its model and valgrind version; empty when they agree.
pub(crate) fn setup_differences(
    (model_base, version_base): (Option<&CacheModel>, Option<&str>),
    (model_new, version_new): (Option<&CacheModel>, Option<&str>),
) -> Vec<SetupDifference> {
    let mut out = Vec::new();
    if model_base != model_new || model_base.is_none() {
        out.push(SetupDifference::Models {
            base: model_base.copied(),
            new: model_new.copied(),
        });
    }
    if version_base != version_new || version_base.is_none() {
        out.push(SetupDifference::Versions {
            base: version_base.map(str::to_string),
            new: version_new.map(str::to_string),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_valid_and_reads_back() {
        CacheModel::DEFAULT.check().unwrap();
        let text = CacheModel::DEFAULT.to_string();
        assert_eq!(text, "I1=32768,8,64,D1=32768,8,64,LL=8388608,16,64");
        assert_eq!(CacheModel::parse(&text).unwrap(), CacheModel::DEFAULT);
        assert_eq!(
            CacheModel::DEFAULT.valgrind_args(),
            ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"]
        );
    }

    #[test]
    fn a_partial_model_keeps_the_default_for_the_rest() {
        let m = CacheModel::parse("LL=4194304,16,64, I1=1024,2,64").unwrap();
        assert_eq!(m.i1, CacheGeometry::new(1024, 2, 64));
        assert_eq!(m.d1, CacheModel::DEFAULT.d1);
        assert_eq!(m.ll, CacheGeometry::new(4 << 20, 16, 64));
    }

    #[test]
    fn what_valgrind_refuses_is_refused_with_the_reason() {
        for (text, reason) in [
            ("I1=32768,8", "lacks its line size"),
            ("I1=32768,8,48", "power of two of at least 16"),
            ("I1=32768,8,8", "power of two of at least 16"),
            // 12 MiB / (16 × 64) = 12288 sets: not a power of two (a real 12 MiB L3).
            ("LL=12582912,16,64", "must be a power of two"),
            ("LL=8388608,0,64", "must be positive"),
            ("D1=x,8,64", "\"x\" is not a whole number"),
            ("L2=32768,8,64", "unknown cache \"L2\""),
            ("I1=1024,2,64,I1=1024,2,64", "I1 is given twice"),
            ("32768,8,64", "expected I1=SIZE"),
        ] {
            let err = format!("{:#}", CacheModel::parse(text).unwrap_err());
            assert!(err.contains(reason), "{text}: {err}");
        }
    }

    #[test]
    fn differences_are_named_and_unknown_models_are_not_taken_as_equal() {
        let tiny = CacheModel::parse("I1=1024,2,64").unwrap();
        let d = Some(&CacheModel::DEFAULT);
        let v = Some("valgrind-3.19.0");
        assert!(setup_differences((d, v), (d, v)).is_empty());
        assert_eq!(
            setup_differences((d, v), (Some(&tiny), v)),
            [SetupDifference::Models {
                base: Some(CacheModel::DEFAULT),
                new: Some(tiny)
            }]
        );
        assert_eq!(
            setup_differences((d, v), (d, Some("valgrind-3.22.0"))),
            [SetupDifference::Versions {
                base: v.map(str::to_string),
                new: Some("valgrind-3.22.0".into())
            }]
        );
        // Two old stores: nothing says they simulated the same machine.
        assert_eq!(
            setup_differences((None, None), (None, None)),
            [
                SetupDifference::Models {
                    base: None,
                    new: None
                },
                SetupDifference::Versions {
                    base: None,
                    new: None
                }
            ]
        );
    }
}
