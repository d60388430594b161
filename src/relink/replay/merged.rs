//! The part of a relink that every binary of a program shares, made once: the program's
//! objects merged by one `ld.bfd -r` with their code sections indexed (COMDAT groups kept
//! together), the archives' member counts, and the writing of the merged object in each
//! binary's order. Each seed then only permutes, writes and links.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::Program;
use crate::layout::archive;
use crate::layout::data_sections::{self, DataFamily};
use crate::layout::object_file::{self, TextGroup, TextSection};
use crate::layout::reorder::{self, DataEntry, MergedEntry};
use crate::relink::link_command::{separating_argument, which};
use crate::relink::linker::Mechanism;
use crate::seeded::SeededRng;
use crate::wrap::record::InputKind;

/// Subdirectory of the record directory holding each program's objects merged once.
pub(crate) const MERGED_DIR: &str = "merged";

/// The seed-independent part of a merged relink, computed once per program.
#[derive(Debug)]
pub(super) struct Prepared {
    /// The number of members of each archive on the link line (in link-line order).
    member_counts: Vec<usize>,
    /// The objects merged once (`None`: the program has no objects).
    merged: Option<MergedModules>,
}

/// A program's objects, merged once, with what each binary's order is drawn from.
#[derive(Debug)]
struct MergedModules {
    /// Per object (recorded input index), its code sections as ordered: COMDAT sections
    /// included (see `Program::merge`).
    ordered_of: std::collections::HashMap<usize, Vec<TextSection>>,
    /// The baseline's order when the merged object as `ld -r` wrote it is not (COMDAT
    /// sections kept in their groups, placed by no script); `None`: the object is the baseline.
    baseline: Option<Vec<MergedEntry>>,
    /// The static-data sections the merged object's script placed, in their identity order
    /// (ranks); empty without `build --data-order`.
    data: Vec<DataEntry>,
    /// The merged object's path.
    path: PathBuf,
    /// Its sections, indexed.
    object: MergedObject,
}

impl Program {
    /// The merged mechanisms: the objects (in the recorded order) become one `ld.bfd -r`
    /// object with their code in the binary's order, at the first object's place; for a
    /// seed, each archive is replaced by a copy with its members permuted (and, below
    /// `link` granularity, each member reordered). `seed` `None`: the identity order.
    pub(super) fn merge(
        &self,
        seed: Option<u64>,
        paths: &mut [PathBuf],
        object_order: &mut Vec<usize>,
        work: &Path,
    ) -> Result<()> {
        let inputs = &self.record.inputs;
        let objects: Vec<usize> = (0..inputs.len())
            .filter(|&i| inputs[i].kind == InputKind::Object)
            .collect();
        let archives: Vec<usize> = (0..inputs.len())
            .filter(|&i| inputs[i].kind == InputKind::Archive)
            .collect();
        let prepared = self.prepared(paths, &objects, &archives)?;
        let (module_order, member_orders) =
            self.draw_orders(seed, &objects, &prepared.member_counts);
        // The functions of `moves` found in the merged object.
        let mut found = Found::new();
        if let Some(merged) = &prepared.merged {
            let first = objects[0];
            found = self.place_merged(merged, seed, &module_order, first, paths, work)?;
            *object_order = vec![objects[0]];
        }
        let Some(seed) = seed else {
            return Ok(());
        };
        found.extend(self.reorder_archives(seed, &archives, &member_orders, paths, work)?);
        self.check_padded(&found, !archives.is_empty())
    }

    /// The binary's module order (of `objects`) and member order of each archive (of
    /// `counts` members): the recorded orders for the baseline or padding only, else drawn
    /// from the seed.
    fn draw_orders(
        &self,
        seed: Option<u64>,
        objects: &[usize],
        counts: &[usize],
    ) -> (Vec<usize>, Vec<Vec<usize>>) {
        let mut module_order = objects.to_vec();
        let mut member_orders: Vec<Vec<usize>> = counts.iter().map(|&n| (0..n).collect()).collect();
        // Padding only: every binary keeps the recorded module and member orders.
        let ordered = self.mechanism != Mechanism::Padded;
        let Some(seed) = seed.filter(|_| ordered) else {
            return (module_order, member_orders);
        };
        let mut object_rng = self.rng(seed, "link-order");
        let mut member_rngs: Vec<SeededRng> = (0..counts.len())
            .map(|k| self.rng(seed, &format!("archive-members:{k}")))
            .collect();
        let movable = objects.len() > 1 || counts.iter().any(|&c| c > 1);
        // A seed draws again (from the same streams, so still determined by the seed)
        // while both equal the recorded order, so that programs of few modules do not give
        // seeds identical to the baseline.
        loop {
            module_order = objects.to_vec();
            object_rng.shuffle(&mut module_order);
            member_orders = member_rngs
                .iter_mut()
                .zip(counts)
                .map(|(rng, &n)| rng.permutation(n))
                .collect();
            let identity = module_order == objects
                && member_orders
                    .iter()
                    .all(|o| o.iter().enumerate().all(|(a, &b)| a == b));
            if !identity || !movable {
                return (module_order, member_orders);
            }
        }
    }

    /// Puts the merged object, in the binary's module order, at the first object's place
    /// (`first`) in `paths` (the object as `ld -r` wrote it when that is already the order); returns
    /// the functions of [`Program::moves`] found in it.
    fn place_merged(
        &self,
        merged: &MergedModules,
        seed: Option<u64>,
        module_order: &[usize],
        first: usize,
        paths: &mut [PathBuf],
        work: &Path,
    ) -> Result<Found> {
        let entries = match seed {
            None => merged.baseline.clone(),
            Some(_) => {
                let modules: Vec<(usize, Vec<TextSection>)> = module_order
                    .iter()
                    .map(|&i| (i, merged.ordered_of[&i].clone()))
                    .collect();
                Some(self.merged_entries(seed, paths, &modules))
            }
        };
        // Its own stream, drawn after the code's: a seed's code order is the same with and
        // without the data order.
        let data_order = match seed {
            Some(seed) if !merged.data.is_empty() => {
                let families: Vec<DataFamily> = merged.data.iter().map(|e| e.family).collect();
                reorder::shuffle_data(&families, &mut self.rng(seed, "data-order"))
            }
            _ => Vec::new(),
        };
        let mut found = Found::new();
        paths[first] = match entries {
            None => merged.path.clone(),
            Some(entries) => {
                let reordered = work.join("merged.o");
                let mut padding = seed.map(|s| self.rng(s, "padding"));
                let pad = padding.as_mut().map(|rng| (self.pad, rng));
                let order = Order {
                    code: &entries,
                    data: &data_order,
                };
                found = merged
                    .object
                    .write_order(order, pad, &self.moves, &reordered)
                    .with_context(|| format!("program {}", self.name))?;
                reordered
            }
        };
        Ok(found)
    }

    /// Replaces each archive in `paths` by a copy with its members in the binary's order
    /// (and, below `link` granularity, each member's code reordered); returns the functions
    /// of [`Program::moves`] found in a member.
    fn reorder_archives(
        &self,
        seed: u64,
        archives: &[usize],
        member_orders: &[Vec<usize>],
        paths: &mut [PathBuf],
        work: &Path,
    ) -> Result<Found> {
        let mut found = Found::new();
        for ((k, &i), order) in archives.iter().enumerate().zip(member_orders) {
            let rebuilt = work.join(format!("archive-{k}.a"));
            if self.mechanism == Mechanism::MergedLink {
                archive::write_reordered(&paths[i], &rebuilt, order)?;
            } else {
                found.extend(self.reorder_archive(seed, i, &paths[i], order, &rebuilt)?);
            }
            paths[i] = rebuilt;
        }
        Ok(found)
    }

    /// Fails when [`Program::moves`] names a function that was found nowhere (not in
    /// `found`): padding it silently would leave every binary unpadded.
    fn check_padded(&self, found: &Found, has_archives: bool) -> Result<()> {
        let missing = self
            .moves
            .iter()
            .map(super::MoveAlone::label)
            .find(|f| !found.contains(f));
        match missing {
            Some(function) => bail!(
                "no function {function} in the program's own objects or its static archives' \
                 members{}",
                if self.mechanism == Mechanism::MergedLink && has_archives {
                    " (at link granularity archive members are not padded)"
                } else {
                    ""
                }
            ),
            _ => Ok(()),
        }
    }

    /// The seed-independent part of [`Program::merge`] (made by the first binary to ask,
    /// then shared): `paths` are still the recorded inputs' copies, the same for every
    /// binary.
    fn prepared(
        &self,
        paths: &[PathBuf],
        objects: &[usize],
        archives: &[usize],
    ) -> Result<std::sync::Arc<Prepared>> {
        if let Some(prepared) = self.prepared.get() {
            return Ok(prepared.clone());
        }
        let mut member_counts = Vec::new();
        for &i in archives {
            member_counts.push(archive::members(&paths[i])?.len());
        }
        let merged = if objects.is_empty() {
            None
        } else {
            Some(self.merge_modules(paths, objects, archives)?)
        };
        let prepared = Prepared {
            member_counts,
            merged,
        };
        // Binaries linked in parallel may each have prepared it; they agree, one is kept.
        Ok(self
            .prepared
            .get_or_init(|| std::sync::Arc::new(prepared))
            .clone())
    }

    /// Merges the program's objects once by `ld -r` and indexes the merged object's code
    /// sections, with the order each binary's is drawn from (part of [`Program::prepared`]).
    fn merge_modules(
        &self,
        paths: &[PathBuf],
        objects: &[usize],
        archives: &[usize],
    ) -> Result<MergedModules> {
        if let Some(arg) = separating_argument(&self.record) {
            bail!(
                "program {}: its objects are separated on the link line by `{arg}`; merging \
                 them would change which archive members and libraries resolve their \
                 symbols (put the objects together on the link line)",
                self.name
            );
        }
        let dissolve = self.comdats_can_move(paths, objects, archives)?;
        let sections_of = self.modules_text_sections(paths, objects, dissolve)?;
        // The order's view of the sections: COMDAT sections that `ld -r` keeps in their
        // groups (not placed by its script, see `comdats_can_move`) are still ordered by
        // the permuted section table, which keeps their groups whole, so they take their
        // place in the baseline (the plain build's order) and move in the seeds.
        let ordered_of: std::collections::HashMap<usize, Vec<TextSection>> = sections_of
            .iter()
            .map(|(&i, sections)| {
                let mut sections = sections.clone();
                for s in &mut sections {
                    s.comdat = false;
                }
                (i, sections)
            })
            .collect();
        let in_order = |of: &std::collections::HashMap<usize, Vec<TextSection>>| {
            objects
                .iter()
                .map(|&i| (i, of[&i].clone()))
                .collect::<Vec<_>>()
        };
        let identity = self.merged_entries(None, paths, &in_order(&sections_of));
        let files: Vec<PathBuf> = objects.iter().map(|&i| paths[i].clone()).collect();
        let data = match self.data_order {
            true => self.modules_data_sections(paths, objects)?,
            false => Vec::new(),
        };
        let merged = self
            .merged_once(
                &files,
                &identity,
                &data,
                reorder::Merging {
                    dissolve_comdats: dissolve,
                    strip_debug: self.strip_debug,
                },
            )
            .with_context(|| format!("program {}", self.name))?;
        let object = MergedObject::read(&merged, &identity)
            .with_context(|| format!("program {}", self.name))?;
        let ordered_identity = self.merged_entries(None, paths, &in_order(&ordered_of));
        Ok(MergedModules {
            ordered_of,
            // Every section placed by the script: the merged object is the baseline.
            baseline: (ordered_identity.len() != identity.len()).then_some(ordered_identity),
            data: reorder_distinct(&data),
            path: merged,
            object,
        })
    }

    /// The objects' movable static-data sections (`build --data-order`), object by object in
    /// the recorded order, each object's in its section-table order: the identity order.
    fn modules_data_sections(
        &self,
        paths: &[PathBuf],
        objects: &[usize],
    ) -> Result<Vec<DataEntry>> {
        let mut entries = Vec::new();
        for &i in objects {
            let sections = data_sections::data_sections(&paths[i])
                .with_context(|| format!("module {}", self.record.inputs[i].written))?;
            entries.extend(sections.into_iter().map(|s| DataEntry {
                object: paths[i].clone(),
                section: s.name,
                family: s.family,
            }));
        }
        Ok(entries)
    }

    /// Each object's code sections (by recorded input index); with `dissolve`, COMDAT
    /// sections are marked ordinary.
    fn modules_text_sections(
        &self,
        paths: &[PathBuf],
        objects: &[usize],
        dissolve: bool,
    ) -> Result<std::collections::HashMap<usize, Vec<TextSection>>> {
        let inputs = &self.record.inputs;
        let mut sections_of = std::collections::HashMap::new();
        for &i in objects {
            let mut sections = object_file::text_sections(&paths[i])
                .with_context(|| format!("module {}", inputs[i].written))?;
            if dissolve {
                // Their groups become ordinary sections: C++ inline and template
                // functions move like the others.
                for s in &mut sections {
                    s.comdat = false;
                }
            }
            sections_of.insert(i, sections);
        }
        Ok(sections_of)
    }

    /// Whether the objects' COMDAT groups may be dissolved after `ld -r` de-duplicated them
    /// (so that their functions move): only when no static archive of the link holds a
    /// group of the same signature, which the final link would otherwise no longer
    /// de-duplicate against the merged object's copy (it would add a second copy).
    fn comdats_can_move(
        &self,
        paths: &[PathBuf],
        objects: &[usize],
        archives: &[usize],
    ) -> Result<bool> {
        if archives.is_empty() {
            return Ok(true);
        }
        let mut in_objects = std::collections::BTreeSet::new();
        for &i in objects {
            let data = std::fs::read(&paths[i])?;
            in_objects.extend(object_file::comdat_signatures(&data).unwrap_or_default());
        }
        if in_objects.is_empty() {
            return Ok(true);
        }
        for &i in archives {
            for (_, data) in archive::members_with_data(&paths[i])? {
                let shared = object_file::comdat_signatures(&data)
                    .unwrap_or_default()
                    .intersection(&in_objects)
                    .next()
                    .is_some();
                if shared {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The merged order of the modules' code sections (modules already in the binary's
    /// order).
    fn merged_entries(
        &self,
        seed: Option<u64>,
        paths: &[PathBuf],
        modules: &[(usize, Vec<TextSection>)],
    ) -> Vec<MergedEntry> {
        let entry = |i: usize, s: &TextSection| MergedEntry {
            object: paths[i].clone(),
            section: s.name.clone(),
            group: s.group,
        };
        match (seed, self.mechanism) {
            (Some(seed), Mechanism::MergedGlobal | Mechanism::LtoOnce | Mechanism::LtoKept) => {
                let scripted: Vec<(PathBuf, Vec<TextSection>)> = modules
                    .iter()
                    .map(|(i, s)| (paths[*i].clone(), s.clone()))
                    .collect();
                reorder::shuffle_global(&scripted, &mut self.rng(seed, "global-order"))
                    .into_iter()
                    .map(|(object, section)| MergedEntry {
                        object,
                        group: TextGroup::of(&section),
                        section,
                    })
                    .collect()
            }
            (Some(seed), Mechanism::MergedModule) => modules
                .iter()
                .flat_map(|(i, sections)| {
                    let mut rng = self.rng(seed, &format!("module-order:{i}"));
                    reorder::shuffle_within_groups(sections, &mut rng)
                        .into_iter()
                        .map(|s| entry(*i, &s))
                        .collect::<Vec<_>>()
                })
                .collect(),
            // The baseline and link granularity: each module's sections in its own order.
            _ => modules
                .iter()
                .flat_map(|(i, sections)| {
                    sections
                        .iter()
                        .filter(|s| s.is_reorderable())
                        .map(|s| entry(*i, s))
                        .collect::<Vec<_>>()
                })
                .collect(),
        }
    }

    /// The program's objects merged by one `ld.bfd -r` in the recorded order with `identity`
    /// (each module's code in its own order), made once per recording and kept in
    /// `.record/merged/` (so `--extend` reuses it); every binary's order is then a
    /// permutation of its section table ([`MergedObject::write_order`]).
    fn merged_once(
        &self,
        files: &[PathBuf],
        identity: &[MergedEntry],
        data: &[DataEntry],
        how: reorder::Merging,
    ) -> Result<PathBuf> {
        let script = reorder::merged_script(identity, data)?;
        let key = blake3::hash(serde_json::to_string(&(files, how, &script))?.as_bytes()).to_hex();
        let dir = self.record_dir.join(MERGED_DIR);
        let root = crate::files::confined::ExperimentDir::open(&self.record_dir)?;
        root.create_dir_all(MERGED_DIR)?;
        let merged = dir.join(format!("{}-{}.o", self.name.replace('/', "_"), &key[..16]));
        if merged.is_file() {
            return Ok(merged);
        }
        // Built under a private name and renamed: seeds running in parallel never see a
        // half-written object.
        let staging = tempfile::Builder::new()
            .prefix(".merging-")
            .tempdir_in(&dir)
            .with_context(|| format!("creating a directory in {}", dir.display()))?;
        let staged = staging.path().join("merged.o");
        reorder::merge_objects(
            files,
            identity,
            data,
            how,
            &staging.path().join("merged.ld"),
            &staged,
            &which("ld.bfd")?,
        )?;
        root.rename(root.rel(&staged)?, root.rel(&merged)?)
            .with_context(|| format!("storing {}", merged.display()))?;
        Ok(merged)
    }
}

/// The merged object (made with the `identity` order by [`reorder::merge_objects`]), read
/// once per program, ready to be written with its code in any binary's order
/// ([`MergedObject::write_order`]). The merged object names the output section of the k-th
/// identity entry `<group>.lr<k>`, which is how its sections are found; an entry not in
/// `identity` is a COMDAT section that `ld -r` kept in its group under its own name (the
/// first copy of its group: later entries of the same name are the copies it discarded).
#[derive(Debug)]
struct MergedObject {
    /// Its path (its bytes are read again per binary rather than held: a build's programs
    /// are all prepared at once, and their merged objects may be large).
    path: PathBuf,
    /// The rank of each distinct (object, section) of the identity order.
    identity_ranks: std::collections::HashMap<(PathBuf, String), usize>,
    /// The section index of each script-placed section, by rank.
    index_of_rank: std::collections::HashMap<usize, usize>,
    /// Code sections not placed by the script, by name (`None`: the name is not unique).
    index_of_name: std::collections::HashMap<String, Option<usize>>,
    /// The alignment of each script-placed section, by rank (in rank order).
    align_of_rank: std::collections::BTreeMap<usize, u64>,
    /// The section index of each script-placed data section (`<family>.lrd<k>`), by rank.
    index_of_data_rank: std::collections::HashMap<usize, usize>,
}

/// A binary's order of the merged object's sections: its code (entries as the script lists
/// them) and its static data (ranks of [`MergedModules::data`]; empty: the identity order).
#[derive(Clone, Copy)]
struct Order<'a> {
    code: &'a [MergedEntry],
    data: &'a [usize],
}

/// The distinct entries of `data` (the ranks the merged object's script gave them).
fn reorder_distinct(data: &[DataEntry]) -> Vec<DataEntry> {
    reorder::distinct_data(data).into_iter().cloned().collect()
}

/// Filler per section, `(section index, bytes)`, as [`reorder::reorder_sections`]
/// takes it in front of and behind sections.
type PaddingList = Vec<(usize, u64)>;

/// The functions of [`Program::moves`] found where a relink looked.
pub(super) type Found = std::collections::BTreeSet<String>;

/// The distinct (object, section) pairs of `list`, at their first place.
fn distinct_sections(list: &[MergedEntry]) -> Vec<(PathBuf, String)> {
    let mut seen = std::collections::HashSet::new();
    list.iter()
        .filter(|e| seen.insert((&e.object, &e.section)))
        .map(|e| (e.object.clone(), e.section.clone()))
        .collect()
}

impl MergedObject {
    /// Reads the merged object `merged`, made with the `identity` order.
    fn read(merged: &Path, identity: &[MergedEntry]) -> Result<MergedObject> {
        let data =
            std::fs::read(merged).with_context(|| format!("reading {}", merged.display()))?;
        let identity_ranks = distinct_sections(identity)
            .into_iter()
            .enumerate()
            .map(|(k, e)| (e, k))
            .collect();
        let mut index_of_rank = std::collections::HashMap::new();
        let mut index_of_name: std::collections::HashMap<String, Option<usize>> =
            std::collections::HashMap::new();
        let mut align_of_rank = std::collections::BTreeMap::new();
        let mut index_of_data_rank = std::collections::HashMap::new();
        let file = object::File::parse(&*data)
            .with_context(|| format!("reading the merged object {}", merged.display()))?;
        for section in object::Object::sections(&file) {
            let name = object::ObjectSection::name(&section).unwrap_or("");
            let index = object::ObjectSection::index(&section).0;
            if let Some((_, rank)) = DataFamily::of_merged(name) {
                index_of_data_rank.insert(rank, index);
                continue;
            }
            if object::ObjectSection::kind(&section) != object::SectionKind::Text {
                continue; // `.rela.text.lr<k>` travels with its section
            }
            match name
                .rsplit_once(".lr")
                .and_then(|(_, k)| k.parse::<usize>().ok())
            {
                Some(rank) => {
                    index_of_rank.insert(rank, index);
                    align_of_rank.insert(rank, object::ObjectSection::align(&section));
                }
                None => {
                    index_of_name
                        .entry(name.to_string())
                        .and_modify(|i| *i = None)
                        .or_insert(Some(index));
                }
            }
        }
        Ok(MergedObject {
            path: merged.to_path_buf(),
            identity_ranks,
            index_of_rank,
            index_of_name,
            align_of_rank,
            index_of_data_rank,
        })
    }

    /// Writes to `out` this object with its code in the order of `entries`: its section
    /// table permuted. Every section placed by the script must be listed. `pad`: `(MAX,
    /// stream)` for `build --pad`, one draw per script-placed section in identity order (so
    /// padding never changes the order; the COMDAT sections kept in their groups are not
    /// padded). `moves`: more bytes in front of each of these functions' sections and
    /// behind them (see [`Program::moves`]); returns those found here.
    fn write_order(
        &self,
        binary_order: Order,
        pad: Option<(u64, &mut SeededRng)>,
        moves: &[super::MoveAlone],
        out: &Path,
    ) -> Result<Found> {
        let mut order = Vec::with_capacity(self.identity_ranks.len());
        let mut placed = std::collections::HashSet::new();
        let mut ranked = 0;
        for e in distinct_sections(binary_order.code) {
            match self.identity_ranks.get(&e) {
                // No section: a COMDAT copy that `ld -r` discarded for an earlier one.
                Some(rank) => {
                    if let Some(&index) = self.index_of_rank.get(rank) {
                        order.push(index);
                        ranked += 1;
                    }
                }
                None => {
                    if let Some(&Some(index)) = self.index_of_name.get(&e.1) {
                        if placed.insert(index) {
                            order.push(index);
                        }
                    }
                }
            }
        }
        // A section named by no entry keeps its place (the script's sections are all listed).
        if ranked != self.index_of_rank.len() {
            bail!(
                "the order lists {ranked} sections but the merged object has {}",
                self.index_of_rank.len()
            );
        }
        let padding = match pad {
            Some((max, rng)) => {
                let sections: Vec<(usize, u64)> = self
                    .align_of_rank
                    .iter()
                    .map(|(rank, &align)| (self.index_of_rank[rank], align))
                    .collect();
                reorder::draw_padding(&sections, max, rng)
            }
            None => Vec::new(),
        };
        let data = std::fs::read(&self.path)
            .with_context(|| format!("reading {}", self.path.display()))?;
        let (mut padding, mut behind, mut found) = (padding, Vec::new(), Found::new());
        for moved in moves {
            if self.pad_one(&data, &mut padding, &mut behind, moved)? {
                found.insert(moved.label());
            }
        }
        let order = self.with_data(order, binary_order.data)?;
        let bytes = reorder::reorder_sections(&data, &order, &padding, &behind)?;
        let (dir, name) = crate::files::confined::parent_of(out)?;
        dir.create_fresh(name)
            .and_then(|mut f| Ok(std::io::Write::write_all(&mut f, &bytes)?))
            .with_context(|| format!("writing {}", out.display()))?;
        Ok(found)
    }

    /// The section order `code` (indices of code sections, as [`reorder::reorder_sections`]
    /// takes them) with the data sections of the ranks `data` in that order at the places
    /// of the data sections: every code section goes to the place it takes without them
    /// (the slots of code and data are told apart by which sections hold them), so the data
    /// order never changes the code's. Ranks `ld -r` left without a section (empty) are
    /// skipped; `data` empty: the code order alone.
    fn with_data(&self, code: Vec<usize>, data: &[usize]) -> Result<Vec<usize>> {
        if data.is_empty() {
            return Ok(code);
        }
        let data: Vec<usize> = data
            .iter()
            .filter_map(|rank| self.index_of_data_rank.get(rank).copied())
            .collect();
        if data.len() != self.index_of_data_rank.len() {
            bail!(
                "the data order lists {} sections but the merged object has {}",
                data.len(),
                self.index_of_data_rank.len()
            );
        }
        let is_data: std::collections::HashSet<usize> = data.iter().copied().collect();
        let mut slots: Vec<usize> = code.iter().chain(&data).copied().collect();
        slots.sort_unstable();
        let (mut code, mut data) = (code.into_iter(), data.into_iter());
        slots
            .into_iter()
            .map(|slot| match is_data.contains(&slot) {
                true => data.next(),
                false => code.next(),
            })
            .collect::<Option<Vec<usize>>>()
            .context("a code section is also a data section")
    }

    /// Adds `moved.before` to `padding` in front of the script-placed section holding
    /// `moved.function` (which must keep its alignment: a multiple of it) and its filler to
    /// `behind`, and returns `true`; `false`, nothing added, when the program's own objects
    /// do not define the function (it may come from an archive member, padded apart).
    fn pad_one(
        &self,
        data: &[u8],
        padding: &mut PaddingList,
        behind: &mut PaddingList,
        moved: &super::MoveAlone,
    ) -> Result<bool> {
        let (function, bytes) = (moved.function.as_str(), moved.before);
        let Some(index) = super::text_symbol_section(data, function, moved.file.as_deref()) else {
            return Ok(false);
        };
        let align = self
            .index_of_rank
            .iter()
            .find(|(_, &i)| i == index)
            .map(|(rank, _)| self.align_of_rank[rank])
            .with_context(|| format!("{function}'s section is not placed by the order"))?;
        if bytes % align.max(1) != 0 {
            bail!("{function}: {bytes} bytes would break its section's {align}-byte alignment");
        }
        super::add_filler(padding, index, bytes);
        super::add_filler(behind, index, moved.behind);
        Ok(true)
    }
}
