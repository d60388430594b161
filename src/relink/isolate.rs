//! After the seeds: programs that cannot be randomised are left out instead of failing every
//! seed, and each program's distinct layouts and coinciding seeds are counted.
//!
//! A program is randomised when at least one of its seeds has a layout other than the
//! baseline's: its own (fingerprint), or that of a library of the build it loads (the
//! program's code may never move while its library's does, and the library's is its hot
//! code as often as not). One that is not (a program of one function, such as a test driver
//! with only `main`; or one whose link failed in every seed) is left out: its binaries are
//! removed from the seeds, its baseline stays, and the reason goes in the manifest. The other
//! programs' seeds are unaffected by it. Seeds that coincide with each other or with the
//! baseline are named: they are valid layouts (a small program has few), but they are not
//! independent samples.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::files::manifest::{
    Binary, BinarySet, BuildStatus, Exclusion, LeftOut, ProgramSummary, Relinking,
};

/// The final seeds and the per-program summaries.
#[derive(Debug)]
pub(crate) struct Finalized {
    /// The seeds, programs left out removed; a seed is failed only for the programs kept.
    pub(crate) seeds: Vec<BinarySet>,
    /// One summary per baseline program, in the baseline's order.
    pub(crate) programs: Vec<ProgramSummary>,
}

/// Decides which programs are left out and finalises the provisional `seeds` (see
/// [`super::binaries::build_seeds`]); removes the left-out programs' seed binaries and the
/// files of failed seeds from `out_dir`. `mechanism` describes a program's mechanism (for the
/// reason); `earlier` are the summaries of an earlier build (`--extend`): a program left out
/// there stays out.
pub(crate) fn finalize(
    baseline: &BinarySet,
    mut seeds: Vec<BinarySet>,
    mechanism: &dyn Fn(&str) -> Option<Relinking>,
    earlier: &[ProgramSummary],
    out_dir: &Path,
) -> Finalized {
    seeds.sort_by_key(|v| v.seed);
    let needed =
        |b: &Binary| crate::layout::dynamic::needed(&out_dir.join(&b.path)).unwrap_or_default();
    let loads = libraries_loaded(baseline, &needed);
    let mut programs = Vec::new();
    for base in baseline.all() {
        let name = base.name.as_str();
        let library = baseline.libraries.contains(base);
        if let Some(old) = earlier
            .iter()
            .find(|p| p.name == name && p.excluded.is_some())
        {
            programs.push(old.clone());
            continue;
        }
        let loaded = loads.get(name).map_or(&[][..], Vec::as_slice);
        programs.push(summary(
            baseline,
            (base, loaded),
            library,
            &seeds,
            mechanism,
        ));
    }
    drop_left_out(baseline, &mut seeds, &programs, out_dir);
    Finalized { seeds, programs }
}

/// The build's libraries (by name) that each binary of `baseline` loads: those its
/// `DT_NEEDED` entries name (`needed`; by soname, or by file name without one), directly or
/// through another of them, in the baseline's order of its libraries.
fn libraries_loaded(
    baseline: &BinarySet,
    needed: &dyn Fn(&Binary) -> Vec<String>,
) -> BTreeMap<String, Vec<String>> {
    let all: Vec<&Binary> = baseline.all().collect();
    let needs: Vec<Vec<String>> = all.iter().map(|b| needed(b)).collect();
    let programs = baseline.binaries.len();
    let loaded_as: Vec<Option<String>> = (all.iter().enumerate())
        .map(|(i, b)| (i >= programs).then(|| b.loaded_as()))
        .collect();
    let mut loads = BTreeMap::new();
    for (i, b) in all.iter().enumerate() {
        let roots: Vec<bool> = (0..all.len()).map(|j| j == i).collect();
        let loaded = crate::layout::dynamic::loaded_closure(&needs, &loaded_as, &roots);
        let libraries = (programs..all.len())
            .filter(|&j| loaded[j] && j != i)
            .map(|j| all[j].name.clone())
            .collect();
        loads.insert(b.name.clone(), libraries);
    }
    loads
}

/// The layout of `name` in `set` with the build's libraries it loads (`loaded`): its own
/// fingerprint, then each library's (`-` for one the set lacks); `None` without the
/// program.
fn layout_of(set: &BinarySet, name: &str, loaded: &[String]) -> Option<String> {
    let own = set.find(name)?.fingerprint.clone();
    let libraries = loaded.iter().map(|l| {
        set.libraries
            .iter()
            .find(|b| &b.name == l)
            .map_or("-", |b| b.fingerprint.as_str())
    });
    Some(
        std::iter::once(own.as_str())
            .chain(libraries)
            .collect::<Vec<_>>()
            .join("+"),
    )
}

/// The summary of program (or library) `base` of `baseline` over the provisional `seeds`,
/// its layout counted with the build's libraries it loads (`loaded`): left out when no
/// seed moved it, its distinct layouts, and the seeds that coincide.
fn summary(
    baseline: &BinarySet,
    (base, loaded): (&Binary, &[String]),
    library: bool,
    seeds: &[BinarySet],
    mechanism: &dyn Fn(&str) -> Option<Relinking>,
) -> ProgramSummary {
    let name = base.name.as_str();
    let built: Vec<(String, String)> = seeds
        .iter()
        .filter_map(|v| Some((v.label(), layout_of(v, name, loaded)?)))
        .collect();
    let base_layout = layout_of(baseline, name, loaded).unwrap_or_default();
    let randomised = built.iter().any(|(_, fp)| *fp != base_layout);
    let failed_in_every_seed = !seeds.is_empty() && !randomised && built.is_empty();
    let excluded = if seeds.is_empty() || randomised {
        None
    } else if built.is_empty() {
        let first_error = seeds
            .iter()
            .filter_map(|v| v.error.as_deref())
            .find(|e| e.contains(&format!("program {name}:")))
            .map(str::to_string);
        Some(LeftOut::LinkFailedInEverySeed { first_error })
    } else {
        Some(LeftOut::NothingToMove {
            built: built.len(),
            seeds: seeds.len(),
        })
    };
    let distinct: BTreeSet<&str> = built.iter().map(|(_, fp)| fp.as_str()).collect();
    let excluded = excluded.map(Exclusion::Known);
    let coinciding = if excluded.is_some() {
        Vec::new()
    } else {
        let mut groups: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        groups
            .entry(base_layout.as_str())
            .or_default()
            .push(baseline.label());
        for (label, fp) in &built {
            groups.entry(fp.as_str()).or_default().push(label.clone());
        }
        let mut groups: Vec<Vec<String>> = groups.into_values().filter(|g| g.len() > 1).collect();
        groups.sort_by_key(|g| seed_of(&g[0]));
        groups
    };
    ProgramSummary {
        name: name.to_string(),
        library,
        excluded,
        failed_in_every_seed,
        relinking: mechanism(name),
        distinct_layouts: distinct.len(),
        coinciding,
        achieved: None,
    }
}

/// Removes from `seeds` (and from `out_dir`) the binaries of the programs `programs` leaves
/// out, and fails (and removes) each seed that lacks a program kept.
fn drop_left_out(
    baseline: &BinarySet,
    seeds: &mut [BinarySet],
    programs: &[ProgramSummary],
    out_dir: &Path,
) {
    // A library is never left out: the seed's programs load the seed's copy (a library that
    // failed in every seed fails those seeds below).
    let left_out: BTreeSet<&str> = programs
        .iter()
        .filter(|p| p.excluded.is_some() && !p.library)
        .map(|p| p.name.as_str())
        .collect();
    let kept: Vec<&str> = baseline
        .all()
        .map(|b| b.name.as_str())
        .filter(|n| !left_out.contains(n))
        .collect();
    for v in seeds {
        for b in v
            .binaries
            .iter()
            .filter(|b| left_out.contains(b.name.as_str()))
        {
            if let Ok(dir) = crate::files::confined::ExperimentDir::open(out_dir) {
                let _ = dir.remove_file(&b.path);
            }
        }
        v.binaries.retain(|b| !left_out.contains(b.name.as_str()));
        let complete = kept.iter().all(|n| v.find(n).is_some());
        if complete {
            v.status = BuildStatus::Ok;
            v.error = None;
        } else {
            v.status = BuildStatus::Failed;
            // Nothing of a failed seed is left to be mistaken for a result.
            let _ = super::binaries::remove_below(out_dir, &out_dir.join(v.label()));
            v.binaries.clear();
            v.libraries.clear();
        }
    }
}

/// The seed of a label, for ordering (`baseline` first).
fn seed_of(label: &str) -> Option<u64> {
    label.strip_prefix("seed-").and_then(|s| s.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::manifest::Binary;

    fn binary(name: &str, fp: &str, label: &str) -> Binary {
        Binary {
            name: name.into(),
            path: Path::new(label).join(name),
            sha256: String::new(),
            fingerprint: fp.into(),
            functions: 1,
            ..Default::default()
        }
    }

    fn set(seed: Option<u64>, bins: &[(&str, &str)], error: Option<&str>) -> BinarySet {
        let label = crate::files::manifest::binary_label(seed);
        BinarySet {
            seed,
            kind: None,
            status: if error.is_some() {
                BuildStatus::Failed
            } else {
                BuildStatus::Ok
            },
            error: error.map(str::to_string),
            binaries: bins.iter().map(|(n, f)| binary(n, f, &label)).collect(),
            libraries: Vec::new(),
        }
    }

    #[test]
    fn a_program_with_nothing_to_move_is_left_out_and_the_others_keep_their_seeds() {
        let dir = tempfile::tempdir().unwrap();
        let base = set(None, &[("big", "b0"), ("one", "o0")], None);
        let seeds = vec![
            set(Some(1), &[("big", "b1"), ("one", "o0")], None),
            set(Some(2), &[("big", "b2"), ("one", "o0")], None),
            set(Some(3), &[("big", "b1"), ("one", "o0")], None),
        ];
        let f = finalize(&base, seeds, &|_| None, &[], dir.path());
        assert!(f.seeds.iter().all(|v| v.status == BuildStatus::Ok));
        assert!(f.seeds.iter().all(|v| v.binaries.len() == 1));
        let big = &f.programs[0];
        assert_eq!(big.excluded, None);
        assert_eq!(big.distinct_layouts, 2);
        assert_eq!(big.coinciding, vec![vec!["seed-1", "seed-3"]]);
        let one = &f.programs[1];
        assert_eq!(
            one.excluded,
            Some(Exclusion::Known(LeftOut::NothingToMove {
                built: 3,
                seeds: 3
            }))
        );
        assert_eq!(one.distinct_layouts, 1);
        // Nothing to move is no failure: the build is complete.
        assert!(!one.failed_in_every_seed);
    }

    #[test]
    fn a_seed_fails_only_for_the_programs_kept_and_coincidence_with_the_baseline_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let base = set(None, &[("a", "a0"), ("b", "b0")], None);
        let seeds = vec![
            set(Some(2), &[("a", "a0")], Some("program b: boom")),
            set(Some(1), &[("a", "a1")], Some("program b: boom")),
            set(Some(3), &[], Some("program a: bad; program b: boom")),
        ];
        let f = finalize(&base, seeds, &|_| None, &[], dir.path());
        assert_eq!(f.programs[0].coinciding, vec![vec!["baseline", "seed-2"]]);
        let first_error = Some("program b: boom".to_string());
        assert_eq!(
            f.programs[1].excluded,
            Some(Exclusion::Known(LeftOut::LinkFailedInEverySeed {
                first_error
            }))
        );
        assert!(f.programs[1].failed_in_every_seed);
        assert!(!f.programs[0].failed_in_every_seed);
        let status: Vec<_> = f.seeds.iter().map(|v| (v.seed, v.status)).collect();
        assert_eq!(
            status,
            [
                (Some(1), BuildStatus::Ok),
                (Some(2), BuildStatus::Ok),
                (Some(3), BuildStatus::Failed)
            ]
        );
        // Left out earlier, left out now.
        let earlier = f.programs.clone();
        let g = finalize(&base, f.seeds, &|_| None, &earlier, dir.path());
        assert_eq!(g.programs[1], earlier[1]);
    }

    /// A program whose own code never moves but which loads a library of the build that
    /// does (directly or through another) is randomised: its layout is counted with the
    /// library's, so it is kept, with the library's distinct layouts and coincidences.
    #[test]
    fn a_program_whose_library_moves_is_randomised() {
        let with_libraries = |seed, p: &str, q: &str, r: &str| {
            let mut v = set(seed, &[("p", p)], None);
            let label = crate::files::manifest::binary_label(seed);
            v.libraries = vec![binary("libq.so", q, &label), binary("libr.so", r, &label)];
            v.libraries[0].soname = Some("libq.so.1".into());
            v
        };
        let base = with_libraries(None, "p0", "q0", "r0");
        // p loads libq.so.1 (by its soname), which loads libr.so (by its file name).
        let needed = |b: &Binary| match b.name.as_str() {
            "p" => vec!["libc.so.6".to_string(), "libq.so.1".to_string()],
            "libq.so" => vec!["libr.so".to_string()],
            _ => Vec::new(),
        };
        let loads = libraries_loaded(&base, &needed);
        assert_eq!(loads["p"], ["libq.so", "libr.so"]);
        assert_eq!(loads["libq.so"], ["libr.so"]);
        assert!(loads["libr.so"].is_empty());
        let seeds = vec![
            with_libraries(Some(1), "p0", "q0", "r1"),
            with_libraries(Some(2), "p0", "q0", "r2"),
            with_libraries(Some(3), "p0", "q0", "r1"),
        ];
        let p = summary(
            &base,
            (&base.binaries[0], &loads["p"]),
            false,
            &seeds,
            &|_| None,
        );
        assert_eq!(p.excluded, None);
        assert_eq!(p.distinct_layouts, 2);
        assert_eq!(p.coinciding, vec![vec!["seed-1", "seed-3"]]);
        // Without its libraries, the same program has nothing to move.
        let alone = summary(&base, (&base.binaries[0], &[]), false, &seeds, &|_| None);
        assert!(matches!(
            alone.excluded,
            Some(Exclusion::Known(LeftOut::NothingToMove { .. }))
        ));
    }
}
