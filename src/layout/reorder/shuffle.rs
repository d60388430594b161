//! Seeded random function orders that respect gcc's code groups.

use crate::layout::object_file::{TextGroup, TextSection};
use crate::seeded::SeededRng;

use std::path::PathBuf;

/// A random order of one module's movable sections.
///
/// Guarantees: the result holds exactly the sections of `sections` that
/// [`TextSection::is_reorderable`] accepts (COMDAT and special sections are left out: they
/// stay where the linker puts them); groups come in their natural order
/// ([`TextGroup::REORDERABLE`]: unlikely, exit, startup, hot, normal) and each group's
/// sections are shuffled with `rng`'s Fisher–Yates. The same input and stream state give the
/// same order.
pub fn shuffle_within_groups(sections: &[TextSection], rng: &mut SeededRng) -> Vec<TextSection> {
    shuffle_grouped(
        sections
            .iter()
            .filter(|s| s.is_reorderable())
            .cloned()
            .collect(),
        |s| s.group,
        rng,
    )
}

/// A random order of all movable sections of a program, across modules (KJ's "global"
/// granularity).
///
/// `modules` pairs each object (as the link line names it) with its sections from
/// [`crate::layout::object_file::text_sections`]. Guarantees as for
/// [`shuffle_within_groups`], over the union: groups in natural order, each group shuffled
/// across modules, COMDAT and special sections left out, sections named twice in one object
/// listed once.
pub fn shuffle_global(
    modules: &[(PathBuf, Vec<TextSection>)],
    rng: &mut SeededRng,
) -> Vec<(PathBuf, String)> {
    let mut entries: Vec<(PathBuf, String, TextGroup)> = Vec::new();
    for (input, sections) in modules {
        let mut names_seen = std::collections::HashSet::new();
        for section in sections.iter().filter(|s| s.is_reorderable()) {
            if names_seen.insert(section.name.as_str()) {
                entries.push((input.clone(), section.name.clone(), section.group));
            }
        }
    }
    shuffle_grouped(entries, |e| e.2, rng)
        .into_iter()
        .map(|(input, name, _)| (input, name))
        .collect()
}

/// Stable partition by group (natural order), then a shuffle inside each group.
fn shuffle_grouped<T>(
    items: Vec<T>,
    group_of: impl Fn(&T) -> TextGroup,
    rng: &mut SeededRng,
) -> Vec<T> {
    let mut buckets: Vec<Vec<T>> = TextGroup::REORDERABLE.iter().map(|_| Vec::new()).collect();
    for item in items {
        let group = group_of(&item);
        if let Some(slot) = TextGroup::REORDERABLE.iter().position(|&g| g == group) {
            buckets[slot].push(item);
        }
    }
    let mut out = Vec::new();
    for mut bucket in buckets {
        rng.shuffle(&mut bucket);
        out.extend(bucket);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(index: usize, name: &str, comdat: bool) -> TextSection {
        TextSection {
            index,
            name: name.into(),
            size: 16,
            align: 16,
            group: TextGroup::of(name),
            comdat,
            functions: vec![],
        }
    }

    fn sample() -> Vec<TextSection> {
        vec![
            section(1, ".text", false),
            section(2, ".text.a", false),
            section(3, ".text.unlikely.a", false),
            section(4, ".text.b", false),
            section(5, ".text._Z1tIiEvv", true),
            section(6, ".text.startup.main", false),
            section(7, ".text.c", false),
            section(8, ".text.hot.h", false),
            section(9, ".init", false),
            section(10, ".text.unlikely.c", false),
        ]
    }

    #[test]
    fn groups_stay_together_in_natural_order_and_comdat_is_left_out() {
        let out = shuffle_within_groups(&sample(), &mut SeededRng::new(1, "test"));
        let groups: Vec<TextGroup> = out.iter().map(|s| s.group).collect();
        let mut sorted = groups.clone();
        sorted.sort();
        assert_eq!(groups, sorted);
        let mut indices: Vec<usize> = out.iter().map(|s| s.index).collect();
        indices.sort();
        assert_eq!(indices, vec![1, 2, 3, 4, 6, 7, 8, 10]);
    }

    #[test]
    fn deterministic_and_seed_dependent() {
        let names = |seed| -> Vec<String> {
            shuffle_within_groups(&sample(), &mut SeededRng::new(seed, "test"))
                .into_iter()
                .map(|s| s.name)
                .collect()
        };
        assert_eq!(names(3), names(3));
        // 4 normal sections and 2 unlikely ones: 48 arrangements; some seed among 1..20
        // must differ from seed 3 unless the shuffle ignored its stream.
        assert!((1..20).any(|s| names(s) != names(3)));
    }

    #[test]
    fn global_shuffle_mixes_modules_within_groups() {
        let a = PathBuf::from("a.o");
        let b = PathBuf::from("b.o");
        let modules = vec![(a.clone(), sample()), (b.clone(), sample())];
        let out = shuffle_global(&modules, &mut SeededRng::new(2, "test"));
        assert_eq!(out.len(), 16);
        let groups: Vec<TextGroup> = out.iter().map(|(_, n)| TextGroup::of(n)).collect();
        let mut sorted = groups.clone();
        sorted.sort();
        assert_eq!(groups, sorted);
        assert!(out.contains(&(b, ".text.hot.h".into())));
    }
}
