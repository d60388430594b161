//! Replaying one recorded link for the baseline or one seed: the inputs in a seeded order,
//! archives rewritten with shuffled members, the function order imposed by the chosen
//! [`Mechanism`], and the real tool run again in the recorded directory and environment.
//!
//! Every random decision draws from its own stream, `SeededRng::new(seed, purpose)`, with the
//! purpose naming the decision and the program (`link-order:demo`,
//! `archive-members:demo:0`, ...), so a seed means the same layout of a program forever.
//!
//! Two seams: what every binary of a program shares, merged once (its objects by one
//! `ld -r`, in the private `merged` module), and the command line of each relink
//! ([`super::link_command`]); this module draws each seed's orders and runs the link.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::link_command::{command_for, link_args, tool_command};
use super::linker::{Linker, Mechanism};
use super::lto_once;
use crate::files::manifest::Granularity;
use crate::layout::archive;
use crate::layout::object_file;
use crate::layout::reorder;
use crate::seeded::SeededRng;
use crate::wrap::record::{self, InputKind, LinkRecord};

mod merged;
use merged::Prepared;
pub use merged::MERGED_DIR;

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
    /// `layoutrand explain --confirm`: the code section of one function moved alone in a
    /// seed's relink (`None`: none).
    pub pad_before: Option<MoveAlone>,
    /// What every binary of the program shares (its modules' sections, the merged object
    /// and its index), made by the first link and reused by the others: a seed's own work is
    /// then its permutation, its final link and its checks.
    prepared: std::sync::OnceLock<std::sync::Arc<Prepared>>,
}

/// `explain --confirm`'s move of one function (by symbol name): `before` more filler bytes
/// in front of the code section defining it, on top of the seed's own padding, and
/// `behind` bytes after that section's code, so that the code after the section moves by
/// `before + behind` (a whole period of the cache's sets: every placement feature of that
/// code unchanged) while the section itself moves by `before`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveAlone {
    /// The function's symbol name.
    pub function: String,
    /// Filler bytes in front of its section (a multiple of the section's alignment).
    pub before: u64,
    /// Filler bytes behind its section's code.
    pub behind: u64,
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

        let args = link_args(&self.record, self.linker, &paths, &object_order, out);
        let (program, args) = command_for(&self.record, self.linker, args)?;
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
    ) -> Result<bool> {
        let mut padded_before = false;
        archive::write_reordered_with(path, out, order, &mut |k, bytes| {
            let mut rng = self.rng(seed, &format!("member-order:{i}:{k}"));
            let mut padding = self.rng(seed, &format!("padding:{i}:{k}"));
            let shuffle = (self.mechanism != Mechanism::Padded).then_some(&mut rng);
            // `explain --confirm` on a function of this member: its section gets more.
            let before = self.pad_before.as_ref().and_then(|m| {
                text_symbol_section(bytes, &m.function).map(|index| (index, m.before, m.behind))
            });
            padded_before |= before.is_some();
            reorder_object(bytes, shuffle, (self.pad, &mut padding), before)
        })
        .with_context(|| format!("archive {}", self.record.inputs[i].written))?;
        Ok(padded_before)
    }
}

/// The object `bytes` with its movable sections shuffled within groups from `shuffle` (its
/// section table permuted; `None`: kept in their order, for padding only) and, when
/// `pad.0 > 0`, padded from the stream `pad.1` (one draw per movable section, in
/// section-table order), and `before` (section index, filler in front of it, filler behind
/// it) moved alone ([`MoveAlone`]); `None` when there is nothing to change (fewer than two
/// movable sections or no shuffle, and no padding) or it is not a relocatable ELF object.
fn reorder_object(
    bytes: &[u8],
    shuffle: Option<&mut SeededRng>,
    pad: (u64, &mut SeededRng),
    before: Option<(usize, u64, u64)>,
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
    let mut padding = reorder::draw_padding(&movable, pad.0, pad.1);
    let mut behind = Vec::new();
    if let Some((index, bytes, tail)) = before {
        let align = movable
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, a)| *a)
            .context("the function's section in its archive member is not movable")?;
        if bytes % align.max(1) != 0 {
            bail!("{bytes} bytes would break its section's {align}-byte alignment");
        }
        match padding.iter_mut().find(|(i, _)| *i == index) {
            Some(slot) => slot.1 += bytes,
            None => padding.push((index, bytes)),
        }
        behind.push((index, tail));
    }
    if (shuffled.len() < 2 || !moves) && padding.is_empty() && behind.is_empty() {
        return Ok(None);
    }
    // Without a shuffle the sections keep their places (`movable` is in table order).
    let order: Vec<usize> = if moves {
        shuffled.iter().map(|s| s.index).collect()
    } else {
        movable.iter().map(|&(index, _)| index).collect()
    };
    reorder::reorder_sections_padded(bytes, &order, &padding, &behind).map(Some)
}

/// The index of the section defining the function (text symbol) `name` in the object
/// `data`; `None` when it defines none (or is not an object).
pub(crate) fn text_symbol_section(data: &[u8], name: &str) -> Option<usize> {
    use object::{Object, ObjectSymbol};
    let file = object::File::parse(data).ok()?;
    let found = file.symbols().find(|s| {
        s.kind() == object::SymbolKind::Text && s.name() == Ok(name) && s.is_definition()
    })?;
    found.section_index().map(|i| i.0)
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
