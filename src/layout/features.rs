//! Where a function sits relative to the front end's fixed-size units: the features
//! `layoutrand explain` tests against the binaries' means.
//!
//! A function's speed can depend on its placement through the units the instruction fetch
//! works in: the cache line (a function starting late in a line needs one more line for its
//! first bytes), the 32-byte fetch/decode window (Intel's decoded-instruction cache is
//! indexed by 32-byte windows), the 4 KiB page (one more iTLB entry), and the L1
//! instruction cache set its lines map to (more hot lines in a set than the cache has ways
//! evict each other: conflict misses). Every feature is read from the function's address and
//! size only, so it is exact for the binary as linked; PIE binaries load at a page-aligned
//! base, which keeps every offset below 4 KiB.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::binary::Function;
use super::cache_geometry::CacheGeometry;

/// Bytes of a page (x86-64 and AArch64 base pages).
pub(crate) const PAGE: u64 = 4096;
/// Bytes of a fetch/decode window.
pub(crate) const WINDOW: u64 = 32;

/// The instruction cache the set features are computed for: line size, number of sets and
/// ways (by default the I1 of [`crate::files::cache_model::CacheModel::DEFAULT`]: 32 KiB, 8-way,
/// 64-byte lines, so 64 sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ICache {
    /// Line size in bytes (a power of two).
    pub(crate) line: u64,
    /// Number of sets.
    pub(crate) sets: u64,
    /// Ways per set.
    pub(crate) ways: u64,
}

impl ICache {
    /// The geometry of a simulated cache (checked by the cache model: sets a power of two).
    pub(crate) fn from_geometry(g: &CacheGeometry) -> ICache {
        ICache {
            line: g.line,
            sets: (g.size / (g.assoc * g.line)).max(1),
            ways: g.assoc,
        }
    }
}

/// One placement feature of one function.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
// snake_case puts no underscore before digits (`offset_mod16`): the three renames below
// spell the wire's names, and their aliases read the answers stored before.
pub(crate) enum Feature {
    /// 1 when the function starts in the upper half of a cache line, else 0.
    UpperHalfLine,
    /// The start address modulo 16 (`offset_mod_16`; stored as `offset_mod16` before).
    #[serde(rename = "offset_mod_16", alias = "offset_mod16")]
    OffsetMod16,
    /// The start address modulo 32 (`offset_mod_32`; stored as `offset_mod32` before).
    #[serde(rename = "offset_mod_32", alias = "offset_mod32")]
    OffsetMod32,
    /// The start address modulo the line size.
    OffsetModLine,
    /// How many 32-byte windows the function's bytes span (`windows_32`, as
    /// [`Feature::name`]; stored answers written as `windows32` are still read).
    #[serde(rename = "windows_32", alias = "windows32")]
    Windows32,
    /// How many cache lines the function's bytes span.
    Lines,
    /// 1 when the function's bytes cross a 4 KiB page boundary, else 0.
    CrossesPage,
    /// 1 when one of the function's lines maps to a set holding more hot lines than the
    /// cache has ways, else 0.
    OverfullSet,
}

/// Every feature, in the order reports list them.
pub(crate) const FEATURES: [Feature; 8] = [
    Feature::UpperHalfLine,
    Feature::OffsetMod16,
    Feature::OffsetMod32,
    Feature::OffsetModLine,
    Feature::Windows32,
    Feature::Lines,
    Feature::CrossesPage,
    Feature::OverfullSet,
];

/// The features a simulated cache can feel (cachegrind: lines, sets and ways, nothing
/// finer than a line, no pages or TLBs): a function's start within a line, the lines it
/// spans and its sets. Screening only these for a cachegrind metric keeps the features that
/// cannot act from raising every test's bar (issue 49: the one false finding on six nulls
/// was "crosses a 4 KiB page", which cachegrind cannot feel).
pub(crate) const CACHE_FEATURES: [Feature; 4] = [
    Feature::UpperHalfLine,
    Feature::OffsetModLine,
    Feature::Lines,
    Feature::OverfullSet,
];

impl Feature {
    /// The JSON name (`upper_half_line`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Feature::UpperHalfLine => "upper_half_line",
            Feature::OffsetMod16 => "offset_mod_16",
            Feature::OffsetMod32 => "offset_mod_32",
            Feature::OffsetModLine => "offset_mod_line",
            Feature::Windows32 => "windows_32",
            Feature::Lines => "lines",
            Feature::CrossesPage => "crosses_page",
            Feature::OverfullSet => "overfull_set",
        }
    }

    /// Whether the feature is 0/1 (else a count or an offset).
    pub(crate) fn is_binary(self) -> bool {
        matches!(
            self,
            Feature::UpperHalfLine | Feature::CrossesPage | Feature::OverfullSet
        )
    }
}

/// Number of `width`-byte aligned blocks the bytes `[address, address + size)` touch (size 0
/// counts as 1 byte).
pub(crate) fn blocks_spanned(address: u64, size: u64, width: u64) -> u64 {
    let last = address + size.max(1) - 1;
    last / width - address / width + 1
}

/// The cache sets of the lines the bytes `[address, address + size)` occupy, one per line.
pub fn sets_of(address: u64, size: u64, cache: &ICache) -> Vec<u64> {
    let first = address / cache.line;
    let last = (address + size.max(1) - 1) / cache.line;
    (first..=last).map(|l| l % cache.sets).collect()
}

/// The cache lines `[address, address + len)` occupies (len 0 counts as 1 byte).
fn lines_of(address: u64, len: u64, cache: &ICache) -> std::ops::RangeInclusive<u64> {
    address / cache.line..=(address + len.max(1) - 1) / cache.line
}

/// A hot function of a shared library the program loads: code that shares the
/// instruction cache with the program's hot functions without being relinked, so at the
/// same place in every layout. Its address is its place in the library's own address
/// space; a library loads at a page-aligned address, so its cache sets are those the
/// process runs with when the cache's set period (sets × line) is at most a page (with
/// ASLR off, as `run` runs, the base is also the same in every run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct SharedHot {
    /// The symbol name, as the profile names it.
    pub(crate) name: String,
    /// The library's path.
    pub(crate) object: String,
    /// Its address in the library.
    pub(crate) address: u64,
    /// Its size in bytes.
    pub(crate) size: u64,
    /// Instructions executed in it in the profile run.
    pub(crate) ir: f64,
}

/// The profile's time line is cut into stretches of this many basic blocks (callgrind's
/// `--dump-every-bb`): code counted as running together is code executed often within one
/// stretch (about 2.5 million instructions in an interpreter's loop).
pub(crate) const PHASE_BLOCKS: u64 = 500_000;
/// An instruction is hot in a stretch when it executed at least this many times in it
/// (once every 2,500 basic blocks on average): a line it sits in is fetched often enough
/// there to be evicted and fetched again. Chosen with [`CROWDED_STRETCHES`] on issue 33's
/// Lua case and `fixtures/explain_set` (docs/explain.md): on Lua, at 500 the thrashed
/// set's functions are seen crowded in fewer of the slow layouts, at 1,000 in none.
pub(crate) const HOT_IN_PHASE: f64 = 200.0;
/// A set crowds a function when it holds more hot lines than the cache has ways, one of
/// them the function's, in at least this many stretches (or in every stretch, when the
/// profile had fewer): a conflict of one stretch alone is often one of its boundaries (the
/// loader's code of the program's start and the first rounds of its loop counted as
/// running together).
pub(crate) const CROWDED_STRETCHES: u64 = 2;

/// Code that ran together: the bytes executed often within one stretch of the profile
/// run (a phase, `explain`'s hotness profile), the unit the set pressure counts hot lines
/// in. The program's bytes are offsets in its functions, so they follow each function
/// wherever a layout puts it; a shared library's stay at their addresses (it is not
/// relinked).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Phase {
    /// The program's hot bytes: (function, offset in it, length).
    pub(crate) own: Vec<(String, u64, u64)>,
    /// The shared libraries' hot bytes: (library's path, address in it, length).
    pub(crate) shared: Vec<(String, u64, u64)>,
    /// How many stretches of the profile ran exactly this hot code (a loop runs over
    /// several).
    pub(crate) stretches: u64,
}

/// The code the set pressure counts beside the hot functions' placement: the shared
/// libraries' hot functions, and the phases of the code that ran when the profile gave
/// them (which then replace whole functions: only the lines that ran often, in the
/// stretch they ran in, are counted).
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct RunningCode {
    /// The shared libraries' hot functions (counted whole when there are no phases).
    pub(crate) shared: Vec<SharedHot>,
    /// The phases of the profile run; empty when it gave none.
    #[serde(skip)]
    pub(crate) phases: std::sync::Arc<Vec<Phase>>,
}

/// Where one binary's hot functions sit: what every feature of each of them is computed
/// from. The one definition of the features, shared by the screening (each seed's binary)
/// and the confirmation (a seed as built and its relink, read from their ELF files), so
/// that both read the same value for the same placement; the set pressure in particular
/// needs every hot line's place, not the function's alone.
#[derive(Debug, Clone)]
pub(crate) struct HotPlacement {
    cache: ICache,
    /// The screened hot functions as placed.
    functions: BTreeMap<String, Function>,
    /// The start of every function the phases name (the hot functions included).
    placed: BTreeMap<String, u64>,
    /// The code that runs together; without a profile's phases, one phase of every hot
    /// function's whole bytes (and the shared libraries' hot functions').
    phases: std::sync::Arc<Vec<Phase>>,
    /// Whether `phases` came from the profile (else built from whole functions).
    profiled: bool,
    /// Per phase: hot lines per set.
    pressure: Vec<BTreeMap<u64, u64>>,
}

/// The functions of `all` found under a unique name.
fn unique_by_name(all: &[Function]) -> BTreeMap<&str, &Function> {
    let mut by_name: BTreeMap<&str, Vec<&Function>> = BTreeMap::new();
    for f in all {
        by_name.entry(f.name.as_str()).or_default().push(f);
    }
    by_name
        .into_iter()
        .filter_map(|(n, fs)| match fs.as_slice() {
            [f] => Some((n, *f)),
            _ => None,
        })
        .collect()
}

impl HotPlacement {
    /// The placement of `hot` (one binary's hot functions, each name once) in `cache`, the
    /// set pressure counting every line of every hot function as running together.
    pub fn new<'a>(hot: impl IntoIterator<Item = &'a Function>, cache: &ICache) -> HotPlacement {
        let functions: BTreeMap<String, Function> = hot
            .into_iter()
            .map(|f| (f.name.clone(), f.clone()))
            .collect();
        let whole = Phase {
            own: functions
                .values()
                .map(|f| (f.name.clone(), 0, f.size.max(1)))
                .collect(),
            shared: Vec::new(),
            stretches: 1,
        };
        HotPlacement {
            cache: *cache,
            placed: functions
                .iter()
                .map(|(n, f)| (n.clone(), f.address))
                .collect(),
            functions,
            phases: std::sync::Arc::new(vec![whole]),
            profiled: false,
            pressure: Vec::new(),
        }
        .recounted()
    }

    /// The same placement with the hot code of shared libraries (`shared`, fixed in every
    /// layout) counted whole in the set pressure beside the program's hot functions (a
    /// placement with the profile's phases already counts the libraries' lines that ran).
    pub(crate) fn beside(mut self, shared: &[SharedHot]) -> HotPlacement {
        if self.profiled {
            return self;
        }
        let phases = std::sync::Arc::make_mut(&mut self.phases);
        for phase in phases.iter_mut() {
            phase.shared.extend(
                shared
                    .iter()
                    .map(|f| (f.object.clone(), f.address, f.size.max(1))),
            );
        }
        self.recounted()
    }

    /// The hot functions of `all` (a binary's functions) named in `hot`, each found under
    /// a unique name; the names missing or repeated are left out.
    pub(crate) fn of_binary<'a>(
        all: &[Function],
        hot: impl IntoIterator<Item = &'a str>,
        cache: &ICache,
    ) -> HotPlacement {
        let unique = unique_by_name(all);
        let found = hot.into_iter().filter_map(|h| unique.get(h).copied());
        HotPlacement::new(found, cache)
    }

    /// The hot functions of `all` named in `hot` with the code that runs beside them
    /// (`code`): the profile's phases, each phase's lines where this binary puts their
    /// functions (a function missing or repeated in `all` is not counted), or without
    /// phases every hot function's lines and the shared libraries' hot functions.
    pub(crate) fn running<'a>(
        all: &[Function],
        hot: impl IntoIterator<Item = &'a str>,
        cache: &ICache,
        code: &RunningCode,
    ) -> HotPlacement {
        let whole = HotPlacement::of_binary(all, hot, cache);
        if code.phases.is_empty() {
            return whole.beside(&code.shared);
        }
        let unique = unique_by_name(all);
        let mut placed = whole.placed.clone();
        for (name, _, _) in code.phases.iter().flat_map(|p| &p.own) {
            if let Some(f) = unique.get(name.as_str()) {
                placed.insert(name.clone(), f.address);
            }
        }
        HotPlacement {
            placed,
            phases: code.phases.clone(),
            profiled: true,
            ..whole
        }
        .recounted()
    }

    /// The lines of one phase where this placement puts them: the program's (`None`) and
    /// each library's.
    fn lines_in<'p>(&self, phase: &'p Phase) -> std::collections::BTreeSet<(Option<&'p str>, u64)> {
        let mut lines = std::collections::BTreeSet::new();
        for (name, offset, len) in &phase.own {
            if let Some(start) = self.placed.get(name) {
                lines.extend(lines_of(start + offset, *len, &self.cache).map(|l| (None, l)));
            }
        }
        for (object, address, len) in &phase.shared {
            lines.extend(lines_of(*address, *len, &self.cache).map(|l| (Some(object.as_str()), l)));
        }
        lines
    }

    /// The sets of the function `name`'s hot lines in `phase`.
    fn sets_in(&self, phase: &Phase, name: &str) -> Vec<u64> {
        let Some(start) = self.placed.get(name) else {
            return Vec::new();
        };
        phase
            .own
            .iter()
            .filter(|(n, _, _)| n == name)
            .flat_map(|(_, offset, len)| lines_of(start + offset, *len, &self.cache))
            .map(|l| l % self.cache.sets)
            .collect()
    }

    fn recounted(mut self) -> HotPlacement {
        self.pressure = self
            .phases
            .iter()
            .map(|phase| {
                let mut per_set = BTreeMap::new();
                for (_, l) in self.lines_in(phase) {
                    *per_set.entry(l % self.cache.sets).or_insert(0) += 1;
                }
                per_set
            })
            .collect();
        self
    }

    /// The hot functions' names.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.functions.keys().map(String::as_str)
    }

    /// The function `name` as placed; `None` when it is not one of the hot functions.
    pub(crate) fn function(&self, name: &str) -> Option<&Function> {
        self.functions.get(name)
    }

    /// The value of `feature` for the hot function `name`; `None` when it is not one.
    pub(crate) fn value(&self, feature: Feature, name: &str) -> Option<f64> {
        let f = self.functions.get(name)?;
        Some(match feature {
            Feature::OverfullSet => {
                if self.overfull_sets_of(name).is_empty() {
                    0.0
                } else {
                    1.0
                }
            }
            _ => value(feature, f, &self.cache),
        })
    }

    /// The sets crowding `name`, as (phase, set): per phase, the sets holding one of its
    /// hot lines and more hot lines than the cache has ways, kept for the sets that do so
    /// in at least [`CROWDED_STRETCHES`] stretches (every stretch, with fewer).
    fn overfull_sets_of(&self, name: &str) -> Vec<(usize, u64)> {
        let mut found = Vec::new();
        for (i, phase) in self.phases.iter().enumerate() {
            for s in self.sets_in(phase, name) {
                if self.pressure[i].get(&s).copied().unwrap_or(0) > self.cache.ways {
                    found.push((i, s));
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut stretches: BTreeMap<u64, u64> = BTreeMap::new();
        for (i, s) in &found {
            *stretches.entry(*s).or_default() += self.phases[*i].stretches;
        }
        let total: u64 = self.phases.iter().map(|p| p.stretches).sum();
        let needed = CROWDED_STRETCHES.min(total).max(1);
        found.retain(|(_, s)| stretches[s] >= needed);
        found
    }

    /// The other hot functions with a hot line in one of `name`'s overfull sets in the same
    /// phase: whom an order file should keep apart from it.
    pub(crate) fn set_partners(&self, name: &str) -> Vec<&str> {
        let full = self.overfull_sets_of(name);
        self.names()
            .filter(|g| *g != name)
            .filter(|g| {
                full.iter()
                    .any(|(i, s)| self.sets_in(&self.phases[*i], g).contains(s))
            })
            .collect()
    }

    /// The same placement with the hot function `name` at `address` instead (its lines
    /// counted in their new sets), everything else where it was.
    pub(crate) fn with_moved(&self, name: &str, address: u64) -> HotPlacement {
        let mut moved = self.clone();
        if let Some(f) = moved.functions.get_mut(name) {
            f.address = address;
        }
        if let Some(at) = moved.placed.get_mut(name) {
            *at = address;
        }
        moved.recounted()
    }

    /// The placement a targeted relink makes (`explain --confirm`): the hot function `name`
    /// moved by `pad` bytes, every function after it by `behind` (the set period, which
    /// keeps their sets), those before it where they were. A function sharing the suspect's
    /// section moves by `pad` in the relink, not `behind`: the ELF check of the relink
    /// judges what really moved.
    pub(crate) fn with_moved_alone(&self, name: &str, pad: u64, behind: u64) -> HotPlacement {
        let Some(start) = self.functions.get(name).map(|f| f.address) else {
            return self.clone();
        };
        let by = |address: u64| match address.cmp(&start) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => pad,
            std::cmp::Ordering::Greater => behind,
        };
        let mut moved = self.clone();
        for f in moved.functions.values_mut() {
            f.address += by(f.address);
        }
        for at in moved.placed.values_mut() {
            *at += by(*at);
        }
        moved.recounted()
    }

    /// Whether `set` holds more hot lines than the cache has ways (in some phase).
    #[cfg(test)]
    pub(crate) fn overfull(&self, set: u64) -> bool {
        self.pressure
            .iter()
            .any(|p| p.get(&set).copied().unwrap_or(0) > self.cache.ways)
    }
}

/// The value of `feature` for function `f` of a binary, for the features read from its
/// own address and size (the set pressure needs the whole placement:
/// [`HotPlacement::value`]).
fn value(feature: Feature, f: &Function, cache: &ICache) -> f64 {
    let bit = |b: bool| if b { 1.0 } else { 0.0 };
    match feature {
        Feature::UpperHalfLine => bit(f.address % cache.line >= cache.line / 2),
        Feature::OffsetMod16 => (f.address % 16) as f64,
        Feature::OffsetMod32 => (f.address % 32) as f64,
        Feature::OffsetModLine => (f.address % cache.line) as f64,
        Feature::Windows32 => blocks_spanned(f.address, f.size, WINDOW) as f64,
        Feature::Lines => blocks_spanned(f.address, f.size, cache.line) as f64,
        Feature::CrossesPage => bit(blocks_spanned(f.address, f.size, PAGE) > 1),
        Feature::OverfullSet => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::cache_model::CacheModel;

    /// A library's hot lines count in the set pressure: `a` alone in set 0 of a 2-set,
    /// 1-way cache is overfull once a library function's line falls there too, at any
    /// placement of `a` in that set, and a line of the same library counted twice is one.
    #[test]
    fn shared_library_lines_count_in_the_set_pressure() {
        let c = ICache {
            line: 64,
            sets: 2,
            ways: 1,
        };
        let all = vec![Function::named("a", 0, 64)];
        let lib = |name: &str, address: u64| SharedHot {
            name: name.into(),
            object: "/lib/libc.so.6".into(),
            address,
            size: 16,
            ir: 1.0,
        };
        let alone = HotPlacement::of_binary(&all, ["a"], &c);
        assert_eq!(alone.value(Feature::OverfullSet, "a"), Some(0.0));
        let shared = [lib("memcpy", 0x1000), lib("memset", 0x1010)]; // one line, set 0
        let crowded = HotPlacement::of_binary(&all, ["a"], &c).beside(&shared);
        assert_eq!(crowded.value(Feature::OverfullSet, "a"), Some(1.0));
        // Moved to set 1, a is alone again; the library's line stays in set 0.
        let moved = crowded.with_moved("a", 64);
        assert_eq!(moved.value(Feature::OverfullSet, "a"), Some(0.0));
        assert!(!moved.overfull(0));
        assert!(crowded.with_moved_alone("a", 128, 128).overfull(0));
        let other = [
            lib("memcpy", 0x1000),
            SharedHot {
                object: "/lib/libm.so.6".into(),
                ..lib("sin", 0x1000)
            },
        ];
        let two = HotPlacement::of_binary(&all, ["a"], &c).beside(&other);
        assert_eq!(two.pressure, vec![BTreeMap::from([(0, 3)])]);
    }

    /// With the profile's phases the set pressure counts the lines that ran often in one
    /// stretch, where each layout puts them: in a 2-set, 1-way cache, `a`'s hot byte at
    /// offset 100 (its second line) and `b`'s at offset 0 share set 1 only when `b` starts
    /// there; a set crowded in one stretch alone (`c` with `a`) is not counted, one crowded in
    /// two stretches (a phase of 2) is; `b`'s cold bytes are never counted.
    #[test]
    fn the_set_pressure_of_phases_follows_the_hot_lines() {
        let c = ICache {
            line: 64,
            sets: 2,
            ways: 1,
        };
        let own = |entries: &[(&str, u64)]| -> Vec<(String, u64, u64)> {
            entries
                .iter()
                .map(|(n, o)| (n.to_string(), *o, 1))
                .collect()
        };
        let phases = vec![
            Phase {
                own: own(&[("a", 100), ("b", 0)]),
                shared: Vec::new(),
                stretches: 2,
            },
            Phase {
                own: own(&[("a", 100), ("c", 0)]),
                shared: Vec::new(),
                stretches: 1,
            },
        ];
        let code = RunningCode {
            shared: Vec::new(),
            phases: std::sync::Arc::new(phases),
        };
        let layout = |b: u64, cc: u64| {
            vec![
                Function::named("a", 0, 128),
                Function::named("b", b, 256),
                Function::named("c", cc, 64),
            ]
        };
        // b at 0x200 (set 0) with a's hot line in set 1: no conflict; c in set 1 with a,
        // but in one stretch only.
        let apart = HotPlacement::running(&layout(0x200, 0x2c0), ["a", "b", "c"], &c, &code);
        assert_eq!(apart.value(Feature::OverfullSet, "a"), Some(0.0));
        assert_eq!(apart.value(Feature::OverfullSet, "c"), Some(0.0));
        // b at 0x240 (set 1): a's hot line and b's share set 1 in two stretches.
        let crowded = HotPlacement::running(&layout(0x240, 0x300), ["a", "b", "c"], &c, &code);
        assert_eq!(crowded.value(Feature::OverfullSet, "a"), Some(1.0));
        assert_eq!(crowded.value(Feature::OverfullSet, "b"), Some(1.0));
        assert_eq!(crowded.value(Feature::OverfullSet, "c"), Some(0.0));
        assert_eq!(crowded.set_partners("a"), vec!["b"]);
        // Moving b alone by one line takes its hot byte out of set 1 (whole functions
        // would still fill both sets: b spans 4 lines).
        let moved = crowded.with_moved("b", 0x280);
        assert_eq!(moved.value(Feature::OverfullSet, "a"), Some(0.0));
        let whole = HotPlacement::of_binary(&layout(0x280, 0x300), ["a", "b"], &c);
        assert_eq!(whole.value(Feature::OverfullSet, "a"), Some(1.0));
    }

    /// One spelling per feature: the JSON's is the name the text and docs use.
    #[test]
    fn json_spells_every_feature_as_its_name() {
        for f in FEATURES {
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
            assert_eq!(serde_json::from_str::<Feature>(&json).unwrap(), f);
        }
        for (old, f) in [
            ("windows32", Feature::Windows32),
            ("offset_mod16", Feature::OffsetMod16),
            ("offset_mod32", Feature::OffsetMod32),
        ] {
            let read: Feature = serde_json::from_str(&format!("\"{old}\"")).unwrap();
            assert_eq!(read, f);
        }
    }

    #[test]
    fn default_geometry_has_64_sets() {
        let c = ICache::from_geometry(&CacheModel::DEFAULT.i1);
        assert_eq!((c.line, c.sets, c.ways), (64, 64, 8));
    }

    #[test]
    fn features_of_known_placements() {
        let c = ICache {
            line: 64,
            sets: 64,
            ways: 8,
        };
        // 0x1030: 48 bytes into its line (upper half), 16 into its 32-byte window; 40 bytes
        // reach 0x1057: windows 0x1020 and 0x1040 (2), lines 0x1000 and 0x1040 (2), one page.
        let f = Function::named("f", 0x1030, 40);
        let v = |feature| value(feature, &f, &c);
        assert_eq!(v(Feature::UpperHalfLine), 1.0);
        assert_eq!(v(Feature::OffsetMod16), 0.0);
        assert_eq!(v(Feature::OffsetMod32), 16.0);
        assert_eq!(v(Feature::OffsetModLine), 48.0);
        assert_eq!(v(Feature::Windows32), 2.0);
        assert_eq!(v(Feature::Lines), 2.0);
        assert_eq!(v(Feature::CrossesPage), 0.0);
        // 0x1ff0 + 32 bytes crosses 0x2000; starts at 48 of its line.
        let g = Function::named("g", 0x1ff0, 32);
        assert_eq!(value(Feature::CrossesPage, &g, &c), 1.0);
        assert_eq!(value(Feature::UpperHalfLine, &g, &c), 1.0);
        // 31 is the lower half, 32 the upper.
        let h = Function::named("h", 0x101f, 1);
        assert_eq!(value(Feature::UpperHalfLine, &h, &c), 0.0);
        assert_eq!(blocks_spanned(0x1000, 64, 64), 1);
        assert_eq!(blocks_spanned(0x1001, 64, 64), 2);
        assert_eq!(blocks_spanned(0x1000, 0, 64), 1);
    }

    #[test]
    fn set_pressure_counts_distinct_hot_lines() {
        // A 2-set, 1-way cache of 64-byte lines: lines 0 and 2 share set 0, line 1 is set 1.
        let c = ICache {
            line: 64,
            sets: 2,
            ways: 1,
        };
        let a = Function::named("a", 0, 64); // line 0 → set 0
        let b = Function::named("b", 128, 10); // line 2 → set 0
        let d = Function::named("d", 64, 8); // line 1 → set 1
        let e = Function::named("e", 72, 8); // line 1 again: not a second line
        let p = HotPlacement::new([&a, &b, &d, &e], &c);
        assert_eq!(p.pressure, vec![BTreeMap::from([(0, 2), (1, 1)])]);
        assert_eq!(p.value(Feature::OverfullSet, "a"), Some(1.0));
        assert_eq!(p.value(Feature::OverfullSet, "d"), Some(0.0));
        assert_eq!(sets_of(120, 20, &c), vec![1, 0]);
    }

    /// The set pressure is a property of the whole placement: the same function reads 1 in
    /// an overfull set and 0 once moved out of it (or once its partner has), whoever asks.
    #[test]
    fn set_pressure_follows_every_hot_function_moved() {
        let c = ICache {
            line: 64,
            sets: 2,
            ways: 1,
        };
        let all = vec![
            Function::named("a", 0, 64),
            Function::named("b", 128, 64),
            Function::named("cold", 64, 64),
        ];
        let p = HotPlacement::of_binary(&all, ["a", "b"], &c);
        assert_eq!(p.value(Feature::OverfullSet, "a"), Some(1.0));
        assert_eq!(p.value(Feature::OverfullSet, "b"), Some(1.0));
        assert_eq!(p.value(Feature::OverfullSet, "cold"), None);
        // a moved to line 3 (set 1): both sets hold one hot line.
        let moved = p.with_moved("a", 192);
        assert_eq!(moved.value(Feature::OverfullSet, "a"), Some(0.0));
        assert_eq!(moved.value(Feature::OverfullSet, "b"), Some(0.0));
        assert_eq!(moved.value(Feature::UpperHalfLine, "a"), Some(0.0));
        assert!(p.overfull(0) && !moved.overfull(0));
    }
}
