//! Replaying one recorded link for the baseline or one seed: the inputs in a seeded order,
//! archives rewritten with shuffled members, the function order imposed by the chosen
//! [`Mechanism`], and the real tool run again in the recorded directory and environment.
//!
//! Every random decision draws from its own stream, `SeededRng::new(seed, purpose)`, with the
//! purpose naming the decision and the program (`link-order:demo`,
//! `archive-members:demo:0`, ...), so a seed means the same layout of a program forever.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use super::linker::{Linker, Mechanism};
use super::lto_once;
use crate::files::manifest::Granularity;
use crate::layout::archive;
use crate::layout::object_file::{self, TextGroup, TextSection};
use crate::layout::reorder::{self, MergedEntry};
use crate::seeded::SeededRng;
use crate::wrap::record::{self, InputKind, LinkRecord, LinkTool, RecordedInput};

/// Subdirectory of the record directory holding each program's objects merged once.
pub const MERGED_DIR: &str = "merged";

/// One program to relink: its recording and how to randomise it.
#[derive(Debug, Clone)]
pub struct Program {
    /// Name used for the output file and in messages.
    pub name: String,
    /// The recorded link.
    pub record: LinkRecord,
    /// The linker to use.
    pub linker: Linker,
    /// The randomisation mechanism.
    pub mechanism: Mechanism,
    /// The record directory holding the input blobs.
    pub record_dir: PathBuf,
    /// `build --pad MAX`: seeds put up to this many bytes of filler in front of each moved
    /// code section (0: none; the baseline never gets any).
    pub pad: u64,
    /// `layoutrand explain --confirm`: this many more filler bytes in front of the code
    /// section of this function (by symbol name) in a seed's merged object, on top of the
    /// seed's own padding, so that only it and the code after it move (`None`: none).
    pub pad_before: Option<(String, u64)>,
    /// What every binary of the program shares (its modules' sections, the merged object
    /// and its index), made by the first link and reused by the others: a seed's own work is
    /// then its permutation, its final link and its checks.
    prepared: std::sync::OnceLock<std::sync::Arc<Prepared>>,
}

/// The seed-independent part of a merged relink, computed once per program.
#[derive(Debug)]
struct Prepared {
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
    /// The merged object's path.
    path: PathBuf,
    /// Its sections, indexed.
    object: MergedObject,
}

/// A finished link.
#[derive(Debug)]
pub struct Linked {
    /// Wall time of the whole relink (reordering included), seconds.
    pub seconds: f64,
}

impl Program {
    /// The program `name` of the recorded `link`, relinked with `linker` at `granularity`.
    /// An LTO link is relinked from the machine code its own link generated (kept by the
    /// shim), or, failing that, from code generated here once ([`lto_once::generate`]).
    pub fn new(
        name: String,
        link: &LinkRecord,
        linker: Linker,
        granularity: Granularity,
        record_dir: &Path,
    ) -> Result<Program> {
        let lto = lto_once::generates_code(link, record_dir);
        let mut mechanism = Mechanism::choose(granularity, lto);
        let record = if lto {
            let (record, code) = lto_once::generate(link, record_dir, &name)?;
            if let (lto_once::LtoCode::Kept(_), Mechanism::LtoOnce) = (code, mechanism) {
                mechanism = Mechanism::LtoKept;
            }
            record
        } else {
            link.clone()
        };
        Ok(Program {
            name,
            record,
            linker,
            mechanism,
            record_dir: record_dir.to_path_buf(),
            pad: 0,
            pad_before: None,
            prepared: Default::default(),
        })
    }

    /// Whether this is a shared library (a `-shared` link) rather than a program.
    pub fn is_library(&self) -> bool {
        self.record.shared
    }

    fn blob(&self, name: &str) -> PathBuf {
        self.record_dir.join(record::BLOBS_DIR).join(name)
    }

    fn rng(&self, seed: u64, purpose: &str) -> SeededRng {
        SeededRng::new(seed, &format!("{purpose}:{}", self.name))
    }

    /// Links the program for `seed` (`None`: the baseline, recorded order) into `out`, using
    /// `work` (emptied first) for intermediate files.
    pub fn link(&self, seed: Option<u64>, out: &Path, work: &Path) -> Result<Linked> {
        let start = Instant::now();
        if work.exists() {
            std::fs::remove_dir_all(work)?;
        }
        std::fs::create_dir_all(work)?;
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let _ = std::fs::remove_file(out);

        let inputs = &self.record.inputs;
        for input in inputs {
            let blob = self.blob(&input.blob);
            if !blob.is_file() {
                bail!(
                    "the recorded copy of {} ({}) is missing from {}",
                    input.written,
                    input.blob,
                    self.record_dir.display()
                );
            }
        }
        // Input paths on the new link line, per recorded input (same index).
        let mut paths: Vec<PathBuf> = inputs.iter().map(|i| self.blob(&i.blob)).collect();
        let object_slots: Vec<usize> = (0..inputs.len())
            .filter(|&i| inputs[i].kind == InputKind::Object)
            .collect();
        let mut object_order = object_slots.clone();
        // Every mechanism is merged: the baseline goes through it with the identity order.
        self.merge(seed, &mut paths, &mut object_order, work)?;

        let args = self.link_args(&paths, &object_order, out);
        let (program, args) = self.command_for(args)?;
        let output = tool_command(&self.record, &program)
            .args(&args)
            .output()
            .with_context(|| format!("cannot run {}", program.display()))?;
        if !output.status.success() {
            let _ = std::fs::remove_file(out);
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            bail!(
                "relinking {} failed ({}): {}",
                self.name,
                output.status,
                tail.join("\n    ")
            );
        }
        if !out.is_file() {
            bail!("relinking {} produced no {}", self.name, out.display());
        }
        Ok(Linked {
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// The merged mechanisms: the objects (in the recorded order) become one `ld.bfd -r`
    /// object with their code in the binary's order, at the first object's place; for a
    /// seed, each archive is replaced by a copy with its members permuted (and, below
    /// `link` granularity, each member reordered). `seed` `None`: the identity order.
    fn merge(
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
        let counts = &prepared.member_counts;
        // Module order and member orders. A seed draws again (from the same streams, so
        // still determined by the seed) while both equal the recorded order, so that
        // programs of few modules do not give seeds identical to the baseline.
        let mut module_order = objects.clone();
        let mut member_orders: Vec<Vec<usize>> = counts.iter().map(|&n| (0..n).collect()).collect();
        // Padding only: every binary keeps the recorded module and member orders.
        let ordered = self.mechanism != Mechanism::Padded;
        if let Some(seed) = seed.filter(|_| ordered) {
            let mut object_rng = self.rng(seed, "link-order");
            let mut member_rngs: Vec<SeededRng> = (0..archives.len())
                .map(|k| self.rng(seed, &format!("archive-members:{k}")))
                .collect();
            let movable = objects.len() > 1 || counts.iter().any(|&c| c > 1);
            loop {
                module_order = objects.clone();
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
                    break;
                }
            }
        }
        if let Some(merged) = &prepared.merged {
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
            paths[objects[0]] = match entries {
                None => merged.path.clone(),
                Some(entries) => {
                    let reordered = work.join("merged.o");
                    let mut padding = seed.map(|s| self.rng(s, "padding"));
                    let pad = padding.as_mut().map(|rng| (self.pad, rng));
                    merged
                        .object
                        .write_order(&entries, pad, self.pad_before.as_ref(), &reordered)
                        .with_context(|| format!("program {}", self.name))?;
                    reordered
                }
            };
            *object_order = vec![objects[0]];
        }
        let Some(seed) = seed else {
            return Ok(());
        };
        for ((k, &i), order) in archives.iter().enumerate().zip(&member_orders) {
            let rebuilt = work.join(format!("archive-{k}.a"));
            if self.mechanism == Mechanism::MergedLink {
                archive::write_reordered(&paths[i], &rebuilt, order)?;
            } else {
                self.reorder_archive(seed, i, &paths[i], order, &rebuilt)?;
            }
            paths[i] = rebuilt;
        }
        Ok(())
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
        let inputs = &self.record.inputs;
        let mut member_counts = Vec::new();
        for &i in archives {
            member_counts.push(archive::members(&paths[i])?.len());
        }
        let mut prepared = Prepared {
            member_counts,
            merged: None,
        };
        if !objects.is_empty() {
            if let Some(arg) = self.separating_argument() {
                bail!(
                    "program {}: its objects are separated on the link line by `{arg}`; merging \
                     them would change which archive members and libraries resolve their \
                     symbols (put the objects together on the link line)",
                    self.name
                );
            }
            let dissolve = self.comdats_can_move(paths, objects, archives)?;
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
            let merged = self
                .merged_once(&files, &identity, dissolve)
                .with_context(|| format!("program {}", self.name))?;
            let object = MergedObject::read(&merged, &identity)
                .with_context(|| format!("program {}", self.name))?;
            let ordered_identity = self.merged_entries(None, paths, &in_order(&ordered_of));
            prepared.merged = Some(MergedModules {
                ordered_of,
                // Every section placed by the script: the merged object is the baseline.
                baseline: (ordered_identity.len() != identity.len()).then_some(ordered_identity),
                path: merged,
                object,
            });
        }
        // Binaries linked in parallel may each have prepared it; they agree, one is kept.
        Ok(self
            .prepared
            .get_or_init(|| std::sync::Arc::new(prepared))
            .clone())
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

    /// The first argument between the first and the last object on the recorded link line
    /// that is not itself an object and whose place matters to symbol resolution (an
    /// archive, a library, a linker option, any other input file).
    fn separating_argument(&self) -> Option<String> {
        let r = &self.record;
        let objects: Vec<&RecordedInput> = r
            .inputs
            .iter()
            .filter(|i| i.kind == InputKind::Object)
            .collect();
        let (first, last) = (objects.first()?, objects.last()?);
        let in_object = |k: usize| {
            objects
                .iter()
                .any(|o| (o.span.start..o.span.start + o.span.len).contains(&k))
        };
        let in_output = |k: usize| {
            r.output_span
                .is_some_and(|s| (s.start..s.start + s.len).contains(&k))
        };
        let driver = r.tool == LinkTool::Driver;
        (first.span.start..last.span.start)
            .filter(|&k| !in_object(k) && !in_output(k))
            .map(|k| &r.args[k])
            .find(|a| {
                let positional_option =
                    a.starts_with("-l") || a.starts_with("-Wl,") || a.starts_with("-Xlinker");
                !(driver && a.starts_with('-') && !positional_option)
            })
            .cloned()
    }

    /// Writes `out`: the archive at `path` (recorded input `i`) with its members in `order`,
    /// each member's functions in a random order (its section table permuted, see
    /// [`reorder::reorder_sections`]: no linker runs).
    fn reorder_archive(
        &self,
        seed: u64,
        i: usize,
        path: &Path,
        order: &[usize],
        out: &Path,
    ) -> Result<()> {
        archive::write_reordered_with(path, out, order, &mut |k, bytes| {
            let mut rng = self.rng(seed, &format!("member-order:{i}:{k}"));
            let mut padding = self.rng(seed, &format!("padding:{i}:{k}"));
            let shuffle = (self.mechanism != Mechanism::Padded).then_some(&mut rng);
            reorder_object(bytes, shuffle, (self.pad, &mut padding))
        })
        .with_context(|| format!("archive {}", self.record.inputs[i].written))
    }

    /// The program's objects merged by one `ld.bfd -r` in the recorded order with `identity`
    /// (each module's code in its own order), made once per recording and kept in
    /// `.record/merged/` (so `--extend` reuses it); every binary's order is then a
    /// permutation of its section table ([`MergedObject::write_order`]).
    fn merged_once(
        &self,
        files: &[PathBuf],
        identity: &[MergedEntry],
        dissolve: bool,
    ) -> Result<PathBuf> {
        let script = reorder::merged_script(identity)?;
        let key =
            blake3::hash(serde_json::to_string(&(files, dissolve, &script))?.as_bytes()).to_hex();
        let dir = self.record_dir.join(MERGED_DIR);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
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
            dissolve,
            &staging.path().join("merged.ld"),
            &staged,
            &which("ld.bfd")?,
        )?;
        std::fs::rename(&staged, &merged)
            .with_context(|| format!("storing {}", merged.display()))?;
        Ok(merged)
    }

    /// The new command line: recorded arguments with the output, the inputs (objects in
    /// `object_order`, all at the first object's place) and the linker replaced.
    fn link_args(&self, paths: &[PathBuf], object_order: &[usize], out: &Path) -> Vec<String> {
        let r = &self.record;
        let driver = r.tool == LinkTool::Driver;
        let mut starts = std::collections::HashMap::new();
        for (i, input) in r.inputs.iter().enumerate() {
            starts.insert(input.span.start, i);
        }
        let first_object = r.inputs.iter().position(|i| i.kind == InputKind::Object);
        let mut args = Vec::new();
        let mut k = 0;
        while k < r.args.len() {
            if let Some(span) = r.output_span.filter(|s| s.start == k) {
                args.push("-o".to_string());
                args.push(out.display().to_string());
                k += span.len;
                continue;
            }
            if let Some(&i) = starts.get(&k) {
                let input = &r.inputs[i];
                match input.kind {
                    InputKind::Object if Some(i) == first_object => {
                        args.extend(object_order.iter().map(|&j| paths[j].display().to_string()));
                    }
                    InputKind::Object => {}
                    InputKind::Archive => args.push(paths[i].display().to_string()),
                }
                k += input.span.len;
                continue;
            }
            let a = &r.args[k];
            if driver && (a.starts_with("-fuse-ld=") || a.starts_with("--ld-path=")) {
                k += 1;
                continue;
            }
            args.push(a.clone());
            k += 1;
        }
        if r.output_span.is_none() {
            args.push("-o".to_string());
            args.push(out.display().to_string());
        }
        if driver {
            args.push(format!("-fuse-ld={}", self.linker.name()));
        }
        args
    }

    /// The program to run: the recorded driver, or for a direct linker call the chosen
    /// linker.
    fn command_for(&self, args: Vec<String>) -> Result<(PathBuf, Vec<String>)> {
        match self.record.tool {
            LinkTool::Driver => Ok((self.record.real_tool.clone(), args)),
            LinkTool::Linker => Ok((which(&self.linker.program())?, args)),
        }
    }
}

/// `program` set up to run as the recorded link ran: in its directory, with its recorded
/// environment and without the shim's variables (a relink is never recorded again).
pub(crate) fn tool_command(record: &LinkRecord, program: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(&record.cwd);
    for var in [
        crate::wrap::ENV_RECORD_DIR,
        crate::wrap::ENV_REAL_PATH,
        crate::wrap::ENV_SHIM_DIR,
        crate::wrap::ENV_NESTED,
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in &record.env {
        cmd.env(k, v);
    }
    cmd
}

/// The object `bytes` with its movable sections shuffled within groups from `shuffle` (its
/// section table permuted; `None`: kept in their order, for padding only) and, when
/// `pad.0 > 0`, padded from the stream `pad.1` (one draw per movable section, in
/// section-table order); `None` when there is nothing to change (fewer than two movable
/// sections or no shuffle, and no padding) or it is not a relocatable ELF object.
fn reorder_object(
    bytes: &[u8],
    shuffle: Option<&mut SeededRng>,
    pad: (u64, &mut SeededRng),
) -> Result<Option<Vec<u8>>> {
    let Ok(sections) = object_file::text_sections_from_bytes(bytes) else {
        return Ok(None);
    };
    let moves = shuffle.is_some();
    let shuffled = match shuffle {
        Some(rng) => reorder::shuffle_within_groups(&sections, rng),
        None => sections
            .into_iter()
            .filter(|s| s.is_reorderable())
            .collect(),
    };
    let mut movable: Vec<(usize, u64)> = shuffled.iter().map(|s| (s.index, s.align)).collect();
    movable.sort_unstable();
    let padding = reorder::draw_padding(&movable, pad.0, pad.1);
    if (shuffled.len() < 2 || !moves) && padding.is_empty() {
        return Ok(None);
    }
    // Without a shuffle the sections keep their places (`movable` is in table order).
    let order: Vec<usize> = if moves {
        shuffled.iter().map(|s| s.index).collect()
    } else {
        movable.iter().map(|&(index, _)| index).collect()
    };
    reorder::reorder_sections(bytes, &order, &padding).map(Some)
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
}

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
        let file = object::File::parse(&*data)
            .with_context(|| format!("reading the merged object {}", merged.display()))?;
        for section in object::Object::sections(&file) {
            if object::ObjectSection::kind(&section) != object::SectionKind::Text {
                continue; // `.rela.text.lr<k>` travels with its section
            }
            let name = object::ObjectSection::name(&section).unwrap_or("");
            let index = object::ObjectSection::index(&section).0;
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
        })
    }

    /// Writes to `out` this object with its code in the order of `entries`: its section
    /// table permuted. Every section placed by the script must be listed. `pad`: `(MAX,
    /// stream)` for `build --pad`, one draw per script-placed section in identity order (so
    /// padding never changes the order; the COMDAT sections kept in their groups are not
    /// padded). `before`: `(function, bytes)` more in front of that function's section
    /// (see [`Program::pad_before`]).
    fn write_order(
        &self,
        entries: &[MergedEntry],
        pad: Option<(u64, &mut SeededRng)>,
        before: Option<&(String, u64)>,
        out: &Path,
    ) -> Result<()> {
        let mut order = Vec::with_capacity(self.identity_ranks.len());
        let mut placed = std::collections::HashSet::new();
        let mut ranked = 0;
        for e in distinct_sections(entries) {
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
        let padding = match before {
            Some((function, bytes)) => self.pad_one(&data, padding, function, *bytes)?,
            None => padding,
        };
        let bytes = reorder::reorder_sections(&data, &order, &padding)?;
        std::fs::write(out, bytes).with_context(|| format!("writing {}", out.display()))
    }
}

impl MergedObject {
    /// `padding` with `bytes` more in front of the script-placed section holding `function`
    /// (which must keep its alignment: `bytes` a multiple of it).
    fn pad_one(
        &self,
        data: &[u8],
        mut padding: Vec<(usize, u64)>,
        function: &str,
        bytes: u64,
    ) -> Result<Vec<(usize, u64)>> {
        let file = object::File::parse(data)
            .with_context(|| format!("reading the merged object {}", self.path.display()))?;
        let index = object::Object::symbols(&file)
            .find(|s| {
                object::ObjectSymbol::kind(s) == object::SymbolKind::Text
                    && object::ObjectSymbol::name(s) == Ok(function)
            })
            .and_then(|s| object::ObjectSymbol::section_index(&s))
            .map(|i| i.0)
            .with_context(|| format!("no function {function} in the program's own objects"))?;
        let align = self
            .index_of_rank
            .iter()
            .find(|(_, &i)| i == index)
            .map(|(rank, _)| self.align_of_rank[rank])
            .with_context(|| format!("{function}'s section is not placed by the order"))?;
        if bytes % align.max(1) != 0 {
            bail!("{function}: {bytes} bytes would break its section's {align}-byte alignment");
        }
        match padding.iter_mut().find(|(i, _)| *i == index) {
            Some(slot) => slot.1 += bytes,
            None => padding.push((index, bytes)),
        }
        Ok(padding)
    }
}

/// The members of a static archive with their bytes, in archive order.
pub fn archive_member_bytes(path: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let file = object::read::archive::ArchiveFile::parse(&*data)
        .with_context(|| format!("{} is not a static archive", path.display()))?;
    let mut members = Vec::new();
    for member in file.members() {
        let member = member.with_context(|| format!("reading a member of {}", path.display()))?;
        let name = String::from_utf8_lossy(member.name()).into_owned();
        let bytes = member
            .data(&*data)
            .with_context(|| format!("member {name} of {}", path.display()))?;
        members.push((name, bytes.to_vec()));
    }
    Ok(members)
}

/// Finds `program` on PATH ([`crate::run::preflight::which`]), or says it is not installed.
pub fn which(program: &str) -> Result<PathBuf> {
    crate::run::preflight::which(program)
        .ok_or_else(|| anyhow!("`{program}` is not installed (not found on PATH)"))
}
