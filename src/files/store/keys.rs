//! Execution keys held compactly: a reader that must remember every execution of a store (to
//! refuse one recorded twice; `run --resume`, to skip the slots done) keeps four numbers per
//! execution, not three strings, so its memory stays small for the largest store a run may
//! plan (issue 34, attack 11).

use std::collections::HashMap;

use crate::files::results::ExecutionKeyRef;

/// A map from execution keys (program, variant, binary, execution) to `V`, its names
/// interned: a key costs four `u32` (and the map's slot) whatever the names' lengths, each
/// distinct name being held once.
#[derive(Debug, Clone)]
pub(crate) struct KeyTable<V> {
    /// Each distinct name and its number, from 1 (0 stands for "no variant").
    names: HashMap<Box<str>, u32>,
    entries: HashMap<[u32; 4], V>,
}

impl<V> Default for KeyTable<V> {
    fn default() -> Self {
        KeyTable {
            names: HashMap::new(),
            entries: HashMap::new(),
        }
    }
}

impl<V> KeyTable<V> {
    /// Sets `key`'s value; the value it had before, if any.
    pub(crate) fn insert(&mut self, key: ExecutionKeyRef<'_>, value: V) -> Option<V> {
        let (program, variant, binary, execution) = key;
        let packed = [
            self.intern(program),
            variant.map_or(0, |v| self.intern(v)),
            self.intern(binary),
            execution,
        ];
        self.entries.insert(packed, value)
    }

    /// `key`'s value, if it has one.
    pub(crate) fn get(&self, key: ExecutionKeyRef<'_>) -> Option<&V> {
        let (program, variant, binary, execution) = key;
        let variant = match variant {
            None => 0,
            Some(v) => *self.names.get(v)?,
        };
        let packed = [
            *self.names.get(program)?,
            variant,
            *self.names.get(binary)?,
            execution,
        ];
        self.entries.get(&packed)
    }

    /// Whether `key` has a value.
    pub(crate) fn contains(&self, key: ExecutionKeyRef<'_>) -> bool {
        self.get(key).is_some()
    }

    /// How many keys have a value.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key has a value.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of `name`, given it now if it has none. Names are counted in `u32`: a
    /// store holds at most `MAX_STORED_EXECUTIONS` executions (three names each), far below.
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.names.get(name) {
            return n;
        }
        let n = u32::try_from(self.names.len() + 1).unwrap_or(u32::MAX);
        self.names.insert(name.into(), n);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_every_part_and_none_is_not_a_variant_name() {
        let mut t = KeyTable::default();
        assert_eq!(t.insert(("p", None, "seed-1", 0), 1), None);
        assert_eq!(t.insert(("p", Some("O2"), "seed-1", 0), 2), None);
        assert_eq!(t.insert(("p", None, "seed-1", 1), 3), None);
        assert_eq!(t.insert(("q", None, "seed-1", 0), 4), None);
        assert_eq!(t.insert(("p", None, "seed-2", 0), 5), None);
        // The names are shared between parts: a program named like a binary stays apart.
        assert_eq!(t.insert(("seed-1", None, "p", 0), 6), None);
        assert_eq!(t.len(), 6);
        assert_eq!(t.insert(("p", None, "seed-1", 0), 7), Some(1));
        assert_eq!(t.get(("p", None, "seed-1", 0)), Some(&7));
        assert_eq!(t.get(("p", Some("O2"), "seed-1", 0)), Some(&2));
        assert!(!t.contains(("p", Some("O3"), "seed-1", 0)));
        assert!(!t.contains(("p", None, "seed-1", 2)));
        assert!(!t.contains(("r", None, "seed-1", 0)));
        assert_eq!(t.len(), 6);
    }
}
