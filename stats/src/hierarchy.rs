//! Balanced nested (multi-level) measurements, as Kalibera & Jones 2013 §9.1 index them:
//! `Y_{j_n … j_1}` with `r_i` repetitions at level `i` (level 1 the lowest, e.g. iterations;
//! level `n` the highest, e.g. binaries).
//!
//! The estimators of eq. 1–4 assume every unit at a level has the same number of children;
//! [`HierarchyBuilder`] takes rows in any order, groups them by their ids and refuses
//! unbalanced or duplicated data with an error naming the unit and the counts, rather than
//! silently weighting some units more than others.

use std::collections::HashMap;

/// Why a set of rows does not form balanced nested data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HierarchyError {
    /// No level names were given.
    #[error("at least one level is needed")]
    NoLevels,
    /// A row had a different number of ids than there are levels.
    #[error("a row has {got} ids but there are {expected} levels")]
    WrongIdCount {
        /// Ids in the row.
        got: usize,
        /// Levels declared.
        expected: usize,
    },
    /// No rows at all.
    #[error("no measurements")]
    Empty,
    /// A value is NaN or infinite.
    #[error("{unit}: value {value} is not a finite number")]
    NotFinite {
        /// The measurement's full path, e.g. `binary a, execution 2, iteration 7`.
        unit: String,
        /// The offending value.
        value: f64,
    },
    /// Two rows have the same ids at every level.
    #[error("{unit} appears more than once")]
    Duplicate {
        /// The duplicated measurement's full path.
        unit: String,
    },
    /// A unit has a different number of children than the other units of its level.
    #[error("{unit} has {}, others have {expected}", units(*count, child_level))]
    Unbalanced {
        /// The odd unit's path, e.g. `binary seed-3`.
        unit: String,
        /// Its number of children.
        count: usize,
        /// The child level's name, e.g. `execution`.
        child_level: String,
        /// The number of children most units of that level have.
        expected: usize,
    },
}

/// Balanced nested data: every unit at a level has the same number of children.
///
/// Values are stored in nested order (the first top-level unit's values first); units keep
/// the order in which their ids first appeared.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    /// `r_1, …, r_n`: repetitions per level, lowest level first.
    repetitions: Vec<usize>,
    values: Vec<f64>,
    top_ids: Vec<String>,
}

impl Hierarchy {
    /// Builds a hierarchy from values already in nested order with the given repetitions
    /// per level (lowest first), naming the top-level units `0, 1, …`.
    pub fn from_nested(values: Vec<f64>, repetitions: Vec<usize>) -> Result<Self, HierarchyError> {
        if repetitions.is_empty() {
            return Err(HierarchyError::NoLevels);
        }
        if values.is_empty() || repetitions.contains(&0) {
            return Err(HierarchyError::Empty);
        }
        let expected: usize = repetitions.iter().product();
        if expected != values.len() {
            return Err(HierarchyError::WrongIdCount {
                got: values.len(),
                expected,
            });
        }
        if let Some((i, &v)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(HierarchyError::NotFinite {
                unit: format!("value #{}", i + 1),
                value: v,
            });
        }
        let top = *repetitions.last().expect("non-empty");
        Ok(Hierarchy {
            top_ids: (0..top).map(|i| i.to_string()).collect(),
            repetitions,
            values,
        })
    }

    /// The same data with the top-level units named `ids` (e.g. `seed-3`), so that two
    /// data sets can be matched unit by unit. `ids` must have one distinct name per unit.
    pub fn with_top_ids(mut self, ids: Vec<String>) -> Result<Self, HierarchyError> {
        if ids.len() != self.top_ids.len() {
            return Err(HierarchyError::WrongIdCount {
                got: ids.len(),
                expected: self.top_ids.len(),
            });
        }
        self.top_ids = ids;
        Ok(self)
    }

    /// The same data restricted to the top-level units at `indices` (in that order, e.g.
    /// the seeds two variants share). `None` when `indices` is empty or out of range.
    pub fn select_top(&self, indices: &[usize]) -> Option<Hierarchy> {
        if indices.is_empty() || indices.iter().any(|&k| k >= self.top_ids.len()) {
            return None;
        }
        let mut repetitions = self.repetitions.clone();
        *repetitions.last_mut().expect("a level") = indices.len();
        Some(Hierarchy {
            repetitions,
            values: indices
                .iter()
                .flat_map(|&k| self.top_unit_values(k).iter().copied())
                .collect(),
            top_ids: indices.iter().map(|&k| self.top_ids[k].clone()).collect(),
        })
    }

    /// Number of levels `n`.
    pub fn levels(&self) -> usize {
        self.repetitions.len()
    }

    /// `r_1, …, r_n`: repetitions per level, lowest level first.
    pub fn repetitions(&self) -> &[usize] {
        &self.repetitions
    }

    /// All measurements in nested order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Number of measurements, `∏ r_i`.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always false: a hierarchy holds at least one measurement.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Ids of the top-level units, in order of first appearance.
    pub fn top_ids(&self) -> &[String] {
        &self.top_ids
    }

    /// The values under top-level unit `k` (nested order).
    pub fn top_unit_values(&self, k: usize) -> &[f64] {
        let size = self.values.len() / self.top_ids.len();
        &self.values[k * size..(k + 1) * size]
    }

    /// The means of the children of top-level unit `k` (e.g. one binary's execution means);
    /// with a single level, the unit's one value.
    pub fn child_means(&self, k: usize) -> Vec<f64> {
        let values = self.top_unit_values(k);
        let children = if self.repetitions.len() >= 2 {
            self.repetitions[self.repetitions.len() - 2]
        } else {
            1
        };
        values.chunks(values.len() / children).map(mean).collect()
    }

    /// `Ȳ_{j_n • … •}`: the mean of each top-level unit, in [`Hierarchy::top_ids`] order.
    pub fn top_means(&self) -> Vec<f64> {
        let size = self.values.len() / self.top_ids.len();
        self.values.chunks(size).map(mean).collect()
    }

    /// The grand mean `Ȳ` (equal to the mean of the top-level means on balanced data).
    pub fn mean(&self) -> f64 {
        mean(&self.values)
    }
}

use super::sample::mean;

/// A fast, non-cryptographic hasher (the multiply-rotate scheme of rustc's FxHasher) for the
/// builder's maps: the keys are the user's own ids, so hash flooding is no concern, and
/// SipHash dominated the time of loading 10⁶ rows.
#[derive(Debug, Default, Clone, Copy)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type IdMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<IdHasher>>;

/// One unit of the id trie.
#[derive(Debug)]
struct Node {
    /// Index of the parent unit one depth up (unused at depth 0).
    parent: u32,
    /// The unit's id, as a symbol of its depth's interner.
    id: u32,
    /// Children (units one depth down, or value indices at the last depth), in order of
    /// first appearance.
    children: Vec<u32>,
    /// At the depth above the values: the id symbol of each child value (duplicates are
    /// found at the end by sorting, which keeps each row free of a lookup in a map as large
    /// as the data).
    leaf_ids: Vec<u32>,
}

/// Collects rows (ids per level, highest level first, plus a value) in any order and
/// checks they form balanced nested data.
///
/// Ids are interned per level (a level's ids repeat across parents: iteration "1" exists in
/// every execution), and each depth above the values has one map from (parent, id symbol)
/// to child, so a row costs a few hash lookups and no allocation.
#[derive(Debug)]
pub struct HierarchyBuilder {
    level_names: Vec<String>,
    /// Per depth: id string → symbol, and symbol → id string.
    symbols: Vec<IdMap<Box<str>, u32>>,
    names: Vec<Vec<Box<str>>>,
    /// Per depth above the values: (parent index, id symbol) → child index.
    edges: Vec<IdMap<(u32, u32), u32>>,
    /// `nodes[d]`: the units at depth `d` (0 = top level) except the last depth, whose
    /// units are the values.
    nodes: Vec<Vec<Node>>,
    /// Children of the (implicit) root: indices into `nodes[0]`, or into `values` for one
    /// level (then `top_leaf_ids` holds their id symbols).
    top: Vec<u32>,
    top_leaf_ids: Vec<u32>,
    values: Vec<f64>,
}

impl HierarchyBuilder {
    /// A builder for levels with these names, highest level first (e.g.
    /// `["binary", "execution", "iteration"]`); the names appear in error messages.
    pub fn new<S: AsRef<str>>(level_names: &[S]) -> Result<Self, HierarchyError> {
        let n = level_names.len();
        if n == 0 {
            return Err(HierarchyError::NoLevels);
        }
        Ok(HierarchyBuilder {
            level_names: level_names.iter().map(|s| s.as_ref().to_string()).collect(),
            symbols: (0..n).map(|_| IdMap::default()).collect(),
            names: vec![Vec::new(); n],
            edges: (0..n).map(|_| IdMap::default()).collect(),
            nodes: (0..n.saturating_sub(1)).map(|_| Vec::new()).collect(),
            top: Vec::new(),
            top_leaf_ids: Vec::new(),
            values: Vec::new(),
        })
    }

    /// Adds one measurement identified by `ids` (one per level, highest first).
    pub fn push<S: AsRef<str>>(&mut self, ids: &[S], value: f64) -> Result<(), HierarchyError> {
        let n = self.level_names.len();
        if ids.len() != n {
            return Err(HierarchyError::WrongIdCount {
                got: ids.len(),
                expected: n,
            });
        }
        if !value.is_finite() {
            return Err(HierarchyError::NotFinite {
                unit: self.path(ids, n),
                value,
            });
        }
        // The root is parent u32::MAX at depth 0.
        let mut parent = u32::MAX;
        for (depth, id) in ids.iter().enumerate() {
            let id = id.as_ref();
            let last = depth + 1 == n;
            let sym = match self.symbols[depth].get(id) {
                Some(&s) => s,
                None => {
                    let s = self.names[depth].len() as u32;
                    self.symbols[depth].insert(id.into(), s);
                    self.names[depth].push(id.into());
                    s
                }
            };
            if last {
                let index = self.values.len() as u32;
                self.values.push(value);
                if depth == 0 {
                    self.top.push(index);
                    self.top_leaf_ids.push(sym);
                } else {
                    let unit = &mut self.nodes[depth - 1][parent as usize];
                    unit.children.push(index);
                    unit.leaf_ids.push(sym);
                }
                break;
            }
            let next = self.nodes[depth].len() as u32;
            let child = *self.edges[depth].entry((parent, sym)).or_insert(next);
            if child == next {
                self.nodes[depth].push(Node {
                    parent,
                    id: sym,
                    children: Vec::new(),
                    leaf_ids: Vec::new(),
                });
                if depth == 0 {
                    self.top.push(child);
                } else {
                    self.nodes[depth - 1][parent as usize].children.push(child);
                }
            }
            parent = child;
        }
        Ok(())
    }

    /// Checks balance and returns the hierarchy.
    pub fn finish(self) -> Result<Hierarchy, HierarchyError> {
        let n = self.level_names.len();
        if self.values.is_empty() {
            return Err(HierarchyError::Empty);
        }
        self.check_duplicates()?;
        let mut repetitions = vec![0usize; n];
        repetitions[n - 1] = self.top.len();
        // Each depth's units must have the same number of children (the majority count).
        for depth in 0..n - 1 {
            let units = &self.nodes[depth];
            let mut tally: HashMap<usize, usize> = HashMap::new();
            for u in units {
                *tally.entry(u.children.len()).or_default() += 1;
            }
            let expected = tally
                .iter()
                .max_by_key(|&(count, freq)| (*freq, *count))
                .map(|(count, _)| *count)
                .expect("non-empty depth");
            if let Some(k) = units.iter().position(|u| u.children.len() != expected) {
                return Err(HierarchyError::Unbalanced {
                    unit: self.unit_path(depth, k as u32),
                    count: units[k].children.len(),
                    child_level: self.level_names[depth + 1].clone(),
                    expected,
                });
            }
            repetitions[n - 2 - depth] = expected;
        }
        // Lay the values out in nested order by walking the trie depth first.
        let mut ordered = Vec::with_capacity(self.values.len());
        if n == 1 {
            ordered.extend(self.top.iter().map(|&c| self.values[c as usize]));
        } else {
            let mut stack: Vec<(usize, u32)> = self.top.iter().rev().map(|&c| (0, c)).collect();
            while let Some((depth, node)) = stack.pop() {
                let unit = &self.nodes[depth][node as usize];
                if depth + 2 == n {
                    ordered.extend(unit.children.iter().map(|&c| self.values[c as usize]));
                } else {
                    stack.extend(unit.children.iter().rev().map(|&c| (depth + 1, c)));
                }
            }
        }
        let top_ids = if n == 1 {
            self.top_leaf_ids
                .iter()
                .map(|&sym| self.names[0][sym as usize].to_string())
                .collect()
        } else {
            self.top
                .iter()
                .map(|&c| self.names[0][self.nodes[0][c as usize].id as usize].to_string())
                .collect()
        };
        Ok(Hierarchy {
            repetitions,
            values: ordered,
            top_ids,
        })
    }

    /// Refuses two values with the same ids at every level.
    fn check_duplicates(&self) -> Result<(), HierarchyError> {
        let n = self.level_names.len();
        let duplicate = |syms: &[u32]| -> Option<u32> {
            let mut sorted = syms.to_vec();
            sorted.sort_unstable();
            sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
        };
        let leaf = &self.level_names[n - 1];
        if n == 1 {
            if let Some(sym) = duplicate(&self.top_leaf_ids) {
                return Err(HierarchyError::Duplicate {
                    unit: format!("{leaf} {}", self.names[0][sym as usize]),
                });
            }
            return Ok(());
        }
        for (k, unit) in self.nodes[n - 2].iter().enumerate() {
            if let Some(sym) = duplicate(&unit.leaf_ids) {
                return Err(HierarchyError::Duplicate {
                    unit: format!(
                        "{}, {leaf} {}",
                        self.unit_path(n - 2, k as u32),
                        self.names[n - 1][sym as usize]
                    ),
                });
            }
        }
        Ok(())
    }

    /// `binary a, execution 2, iteration 7` for the first `upto` ids.
    fn path<S: AsRef<str>>(&self, ids: &[S], upto: usize) -> String {
        self.level_names
            .iter()
            .zip(ids)
            .take(upto)
            .map(|(name, id)| format!("{name} {}", id.as_ref()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The path of unit `index` at `depth`, following parent links.
    fn unit_path(&self, depth: usize, index: u32) -> String {
        let mut ids: Vec<&str> = Vec::with_capacity(depth + 1);
        let mut node = index;
        for d in (0..=depth).rev() {
            let unit = &self.nodes[d][node as usize];
            ids.push(&self.names[d][unit.id as usize]);
            node = unit.parent;
        }
        ids.reverse();
        self.path(&ids, depth + 1)
    }
}

/// The levels layoutrand names itself (its result stores, `export`'s columns, the variants'
/// pairing by seed), with their English plurals.
const NAMED_LEVELS: [(&str, &str); 4] = [
    ("binary", "binaries"),
    ("execution", "executions"),
    ("iteration", "iterations"),
    ("seed", "seeds"),
];

/// The units of level `name` in the plural, for messages: a level layoutrand names itself in
/// English (`binary` → `binaries`); any other name (a column of the user's CSV) quoted and
/// never inflected (`b` → `"b" units`), so that every name reads right.
pub fn plural(name: &str) -> String {
    match NAMED_LEVELS.iter().find(|(one, _)| *one == name) {
        Some((_, many)) => (*many).to_string(),
        None => format!("\"{name}\" units"),
    }
}

/// `n` units of level `name`, in the singular for one: `1 binary`, `3 binaries`,
/// `1 "b" unit`, `3 "b" units` (see [`plural`]).
pub fn units(n: usize, name: &str) -> String {
    if n != 1 {
        format!("{n} {}", plural(name))
    } else if NAMED_LEVELS.iter().any(|(one, _)| *one == name) {
        format!("1 {name}")
    } else {
        format!("1 \"{name}\" unit")
    }
}

// Reference values are pasted exactly as R/scipy printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn build(rows: &[(&[&str], f64)], names: &[&str]) -> Result<Hierarchy, HierarchyError> {
        let mut b = HierarchyBuilder::new(names)?;
        for (ids, v) in rows {
            b.push(ids, *v)?;
        }
        b.finish()
    }

    #[test]
    fn groups_rows_in_any_order() {
        let rows: &[(&[&str], f64)] = &[
            (&["b", "1", "2"], 4.0),
            (&["a", "1", "1"], 1.0),
            (&["b", "1", "1"], 3.0),
            (&["a", "2", "1"], 5.0),
            (&["a", "1", "2"], 2.0),
            (&["b", "2", "1"], 7.0),
            (&["a", "2", "2"], 6.0),
            (&["b", "2", "2"], 8.0),
        ];
        let h = build(rows, &["binary", "execution", "iteration"]).unwrap();
        assert_eq!(h.levels(), 3);
        assert_eq!(h.repetitions(), &[2, 2, 2]);
        assert_eq!(h.top_ids(), &["b".to_string(), "a".to_string()]);
        // Units keep the order of first appearance at every level.
        assert_eq!(h.values(), &[4.0, 3.0, 7.0, 8.0, 1.0, 2.0, 5.0, 6.0]);
        assert_eq!(h.top_means(), vec![5.5, 3.5]);
        assert_eq!(h.mean(), 4.5);
    }

    #[test]
    fn unbalanced_unit_is_named_with_counts() {
        let mut b = HierarchyBuilder::new(&["binary", "execution"]).unwrap();
        for bin in ["s1", "s2", "seed-3", "s4"] {
            let n = if bin == "seed-3" { 4 } else { 5 };
            for e in 0..n {
                b.push(&[bin, &e.to_string()], 1.0).unwrap();
            }
        }
        let err = b.finish().unwrap_err();
        assert_eq!(
            err.to_string(),
            "binary seed-3 has 4 executions, others have 5"
        );
    }

    #[test]
    fn unbalanced_deep_unit_names_its_path() {
        let rows: &[(&[&str], f64)] = &[
            (&["a", "1", "1"], 1.0),
            (&["a", "1", "2"], 1.0),
            (&["a", "2", "1"], 1.0),
            (&["a", "2", "2"], 1.0),
            (&["b", "1", "1"], 1.0),
            (&["b", "1", "2"], 1.0),
            (&["b", "2", "1"], 1.0),
        ];
        let err = build(rows, &["binary", "execution", "iteration"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "binary b, execution 2 has 1 iteration, others have 2"
        );
    }

    #[test]
    fn duplicates_and_non_finite_values_are_refused() {
        let rows: &[(&[&str], f64)] = &[(&["a", "1"], 1.0), (&["a", "1"], 2.0)];
        let err = build(rows, &["binary", "iteration"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "binary a, iteration 1 appears more than once"
        );
        let rows: &[(&[&str], f64)] = &[(&["a", "1"], f64::NAN)];
        assert!(matches!(
            build(rows, &["binary", "iteration"]),
            Err(HierarchyError::NotFinite { .. })
        ));
        assert_eq!(build(&[], &["x"]), Err(HierarchyError::Empty));
    }

    #[test]
    fn one_level_is_a_plain_sample() {
        let rows: &[(&[&str], f64)] = &[(&["r1"], 2.0), (&["r2"], 4.0), (&["r3"], 9.0)];
        let h = build(rows, &["run"]).unwrap();
        assert_eq!(h.repetitions(), &[3]);
        assert_eq!(h.top_means(), vec![2.0, 4.0, 9.0]);
    }

    #[test]
    fn selecting_top_units_keeps_their_values_and_ids() {
        let h = Hierarchy::from_nested((1..=6).map(f64::from).collect(), vec![2, 3])
            .unwrap()
            .with_top_ids(vec!["a".into(), "b".into(), "c".into()])
            .unwrap();
        let s = h.select_top(&[2, 0]).unwrap();
        assert_eq!(s.values(), &[5.0, 6.0, 1.0, 2.0]);
        assert_eq!(s.repetitions(), &[2, 2]);
        assert_eq!(s.top_ids(), &["c".to_string(), "a".to_string()]);
        assert_eq!(h.child_means(1), vec![3.0, 4.0]);
        assert!(h.select_top(&[3]).is_none() && h.select_top(&[]).is_none());
    }

    #[test]
    fn from_nested_checks_sizes() {
        assert!(Hierarchy::from_nested(vec![1.0; 6], vec![3, 2]).is_ok());
        assert!(Hierarchy::from_nested(vec![1.0; 5], vec![3, 2]).is_err());
    }

    #[test]
    fn a_users_level_name_is_quoted_not_inflected() {
        assert_eq!(plural("binary"), "binaries");
        assert_eq!(plural("b"), "\"b\" units");
        assert_eq!(units(1, "binary"), "1 binary");
        assert_eq!(units(3, "execution"), "3 executions");
        assert_eq!(units(1, "b"), "1 \"b\" unit");
        assert_eq!(units(3, "b"), "3 \"b\" units");
    }
}
