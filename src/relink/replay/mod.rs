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

mod direct;
mod merged;
mod same_link;
use merged::Prepared;
use same_link::{LinkInputs, Made};

/// One program to relink: its recording and how to randomise it.
#[derive(Debug, Clone)]
pub struct Program {
    /// Name used for the output file and in messages.
    pub(crate) name: String,
    /// The recorded link.
    pub(crate) record: LinkRecord,
    /// The linker to use.
    pub(crate) linker: Linker,
    /// The randomisation mechanism.
    pub(crate) mechanism: Mechanism,
    /// The record directory holding the input blobs.
    pub(crate) record_dir: PathBuf,
    /// `build --pad MAX`: seeds put up to this many bytes of filler in front of each moved
    /// code section (0: none; the baseline never gets any).
    pub(crate) pad: u64,
    /// `build --data-order`: the program's static data sections are placed by the merged
    /// object's script too and permuted per seed (stream `data-order:<program>`).
    pub(crate) data_order: bool,
    /// The relinks leave the debug information out (`build` without `--keep-debug`): the
    /// merged object and the final links are made with `--strip-debug`.
    pub(crate) strip_debug: bool,
    /// Functions whose code sections get more filler in a seed's relink: the one
    /// `layoutrand explain --confirm` moves alone, or those a pin places
    /// (`crate::relink::pinned`). Empty: none.
    pub(crate) moves: Vec<MoveAlone>,
    /// `build --pin FILE`: the placement each seed gives the program's pinned functions
    /// ([`crate::relink::pinned`]); `None`: not pinned.
    pub(crate) pin: Option<std::sync::Arc<crate::files::pin::ProgramPin>>,
    /// What every binary of the program shares (its modules' sections, the merged object
    /// and its index), made by the first link and reused by the others: a seed's own work is
    /// then its permutation, its final link and its checks.
    prepared: std::sync::OnceLock<std::sync::Arc<Prepared>>,
    /// Nothing of its code can move ([`Program::nothing_moves`]): unless padded, data
    /// ordered, pinned or moved, every seed's binary is a copy of the baseline's.
    pub(crate) unmoved: bool,
    /// The outputs of its links so far, by what went into them: a binary whose link takes
    /// the same inputs as an earlier one is a copy of its output ([`same_link`]).
    made: std::sync::Arc<Made>,
    /// Whether its links run the linker directly rather than through the recorded driver,
    /// decided by its first link through the driver ([`direct`]): `None` until then.
    direct: std::sync::OnceLock<Option<direct::DirectLink>>,
}

/// `explain --confirm`'s move of one function (by symbol name): `before` more filler bytes
/// in front of the code section defining it, on top of the seed's own padding, and
/// `behind` bytes after that section's code, so that the code after the section moves by
/// `before + behind` (a whole period of the cache's sets: every placement feature of that
/// code unchanged) while the section itself moves by `before`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MoveAlone {
    /// The function's symbol name.
    pub(crate) function: String,
    /// Its source file (`STT_FILE`), when functions of several files share the name.
    pub(crate) file: Option<String>,
    /// Filler bytes in front of its section (a multiple of the section's alignment).
    pub(crate) before: u64,
    /// Filler bytes behind its section's code.
    pub(crate) behind: u64,
}

impl MoveAlone {
    /// How a message (and the set of moves found) names it: `name`, or `name (file)`.
    pub(crate) fn label(&self) -> String {
        crate::layout::binary::qualified_name(&self.function, self.file.as_deref())
    }
}

/// A finished link.
#[derive(Debug)]
pub(crate) struct Linked {
    /// Wall time of the whole relink (reordering included), seconds.
    pub(crate) seconds: f64,
    /// The earlier output this binary is a copy of, its link having taken the same inputs
    /// (`None`: the linker ran).
    pub(crate) copy_of: Option<PathBuf>,
}

/// Why a program whose objects hold LTO IR but whose link has no `-flto` is refused, and the
/// fix. The linker generated that code itself with the link's options, which the shim does
/// not keep (it keeps the code of `-flto` links, [`crate::wrap::lto_keep`]), and code
/// generated again by a `-r` link is not the build's (on the `lto` fixture, 13 functions of
/// other sizes; the globals not internalised). Every binary measured would be
/// another program than the user's.
fn lto_without_flto(name: &str) -> String {
    format!(
        "program {name}: its objects hold LTO IR (compiled with -flto) but its link has no \
         -flto, so its code is generated by the link, which layoutrand cannot keep: relinked, \
         it would be another program than the one the build made. Link with -flto too (the \
         compile's -flto options on the link line, e.g. `make LDFLAGS=-flto`; with CMake, \
         -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON), or compile without -flto"
    )
}

impl Program {
    /// Its mechanism and linker, as the manifest stores them.
    pub(crate) fn relinking(&self) -> crate::files::manifest::Relinking {
        crate::files::manifest::Relinking {
            mechanism: self.mechanism,
            linker: self.linker,
            direct: self.direct.get().is_some_and(Option::is_some),
        }
    }

    /// The program `name` of the recorded `link`, relinked with `linker` at `granularity`.
    /// An LTO link is relinked from the machine code its own link generated (kept by the
    /// shim), or, failing that, from code generated here once ([`lto_once::generate`]).
    pub(crate) fn new(
        name: String,
        link: &LinkRecord,
        linker: Linker,
        granularity: Granularity,
        record_dir: &Path,
    ) -> Result<Program> {
        let lto = lto_once::generates_code(link, record_dir);
        let mut mechanism = Mechanism::choose(granularity, lto);
        if lto && !link.lto {
            bail!("{}", lto_without_flto(&name));
        }
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
            data_order: false,
            strip_debug: false,
            moves: Vec::new(),
            pin: None,
            prepared: Default::default(),
            unmoved: false,
            made: Default::default(),
            direct: Default::default(),
        })
    }

    /// Notes what its seeds can move (`achieved`, from [`crate::relink::achieved`]): when
    /// none of its code can (one module, no function order drawn), every binary that is not
    /// padded, data-ordered, pinned or moved either has the baseline's layout, so it is a
    /// copy of the baseline's rather than another link ([`Program::all_unmoved`]).
    pub(crate) fn nothing_moves(&mut self, achieved: &crate::files::manifest::Achieved) {
        self.unmoved = achieved.objects <= 1 && achieved.modules_with_function_order == 0;
    }

    /// Whether every binary of it has the baseline's layout: nothing of its code moves
    /// ([`Program::nothing_moves`]) and nothing else does (checked at each link: a copy of
    /// it made to pad or move a function, as `explain --confirm` and pins do, moves).
    fn all_unmoved(&self) -> bool {
        self.unmoved
            && self.pad == 0
            && !self.data_order
            && self.pin.is_none()
            && self.moves.is_empty()
    }

    /// Whether this is a shared library (a `-shared` link) rather than a program.
    pub(crate) fn is_library(&self) -> bool {
        self.record.shared
    }

    fn blob(&self, name: &str) -> PathBuf {
        self.record_dir.join(record::BLOBS_DIR).join(name)
    }

    fn rng(&self, seed: u64, purpose: &str) -> SeededRng {
        SeededRng::new(seed, &format!("{purpose}:{}", self.name))
    }

    /// Links the program for `seed` (`None`: the baseline, recorded order) into `out`, using
    /// `work` (emptied first) for intermediate files; or copies an earlier output whose link
    /// took the same inputs ([`same_link`]; for a program of which nothing moves, the
    /// baseline's, without drawing the seed's orders).
    pub(crate) fn link(&self, seed: Option<u64>, out: &Path, work: &Path) -> Result<Linked> {
        let start = Instant::now();
        // `out` and `work` lie in the experiment directory that holds the recording: made
        // through the confined writer, so a planted seed-N or .work link is refused.
        let root = crate::files::confined::ExperimentDir::open(
            self.record_dir.parent().unwrap_or(Path::new(".")),
        )?;
        let (out_rel, work_rel) = (root.rel(out)?, root.rel(work)?);
        root.remove_dir_all(work_rel)?;
        root.create_dir_all(work_rel)?;
        if let Some(dir) = out_rel.parent() {
            root.create_dir_all(dir)?;
        }
        // A directory where the output goes is not ours to delete: the linker refuses it
        // with its own message, and this seed is marked failed like any failed link.
        if root.entry(out_rel)? != crate::files::confined::Entry::Dir {
            root.remove_file(out_rel)?;
        }
        let (slot, command) = if self.all_unmoved() {
            (self.made.slot(&LinkInputs::unmoved()), None)
        } else {
            let (program, args) = self.link_command(seed, out, work)?;
            let inputs = LinkInputs::of(&program, &args, &self.record, out, work)?;
            (self.made.slot(&inputs), Some((program, args)))
        };
        // Held while linking: a binary whose link takes these inputs waits, then copies.
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(earlier) = same_link::earlier(&slot) {
            if root.copy_in(&earlier, out_rel, None).is_ok() {
                return Ok(Linked {
                    seconds: start.elapsed().as_secs_f64(),
                    copy_of: Some(earlier),
                });
            }
            // Gone meanwhile: linked like any other.
            let _ = root.remove_file(out_rel);
        }
        let (program, args) = match command {
            Some(command) => command,
            None => self.link_command(seed, out, work)?,
        };
        let output = self.run_link(&program, &args, out, work)?;
        if !output.status.success() {
            let _ = root.remove_file(out_rel);
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
        same_link::keep(&mut slot, out)?;
        Ok(Linked {
            seconds: start.elapsed().as_secs_f64(),
            copy_of: None,
        })
    }

    /// Runs the link `program args` writing `out`: as the linker the driver would call once
    /// the program's first link through the driver showed that this writes the same bytes
    /// ([`direct`]; checked by linking that binary again directly into `work`), else as
    /// recorded.
    fn run_link(
        &self,
        program: &Path,
        args: &[String],
        out: &Path,
        work: &Path,
    ) -> Result<std::process::Output> {
        let direct = self.direct.get().and_then(|d| d.as_ref());
        if let Some((d, direct_args)) = direct.and_then(|d| Some((d, d.args_for(args)?))) {
            return tool_command(&self.record, &d.linker)
                .args(&direct_args)
                .output()
                .with_context(|| format!("cannot run {}", d.linker.display()));
        }
        let driver_link = || {
            tool_command(&self.record, program)
                .args(args)
                .output()
                .with_context(|| format!("cannot run {}", program.display()))
        };
        if self.direct.get().is_some() {
            return driver_link();
        }
        // The first link through the driver: the direct form is asked for and linked into a
        // scratch file while the driver links (the two write different files), so that the
        // check adds no wait before the seeds on a machine with a core to spare.
        let (output, trial) = std::thread::scope(|scope| {
            let trial = scope.spawn(|| self.direct_trial(program, args, out, work));
            (driver_link(), trial.join().ok().flatten())
        });
        let output = output?;
        if output.status.success() {
            self.direct.get_or_init(|| {
                let (d, scratch) = trial?;
                (read_whole(out)? == read_whole(&scratch)?).then_some(d)
            });
        }
        Ok(output)
    }

    /// The direct form of the driver's link `program args` and the scratch file of `work`
    /// it linked that binary into, for [`Program::run_link`] to compare with what the
    /// driver writes into `out`; `None` when there is no direct form or its link failed.
    fn direct_trial(
        &self,
        program: &Path,
        args: &[String],
        out: &Path,
        work: &Path,
    ) -> Option<(direct::DirectLink, PathBuf)> {
        let d = direct::DirectLink::find(&self.record, program, args)?;
        let scratch = work.join("direct-check");
        let (out_arg, scratch_arg) = (out.display().to_string(), scratch.display().to_string());
        let to_scratch: Vec<String> = args
            .iter()
            .map(|a| match *a == out_arg {
                true => scratch_arg.clone(),
                false => a.clone(),
            })
            .collect();
        let linked = tool_command(&self.record, &d.linker)
            .args(d.args_for(&to_scratch)?)
            .output()
            .ok()?;
        // The scratch file goes with `work`, removed after each binary.
        linked.status.success().then_some((d, scratch))
    }

    /// The tool and arguments of the link for `seed` into `out`, its inputs written to
    /// `work` in the seed's orders.
    fn link_command(
        &self,
        seed: Option<u64>,
        out: &Path,
        work: &Path,
    ) -> Result<(PathBuf, Vec<String>)> {
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
        let args = link_args(
            &self.record,
            self.linker,
            &paths,
            &object_order,
            out,
            self.strip_debug,
        );
        command_for(&self.record, self.linker, args)
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
    ) -> Result<merged::Found> {
        let mut found = merged::Found::new();
        archive::write_reordered_with(path, out, order, &mut |k, bytes| {
            let mut rng = self.rng(seed, &format!("member-order:{i}:{k}"));
            let mut padding = self.rng(seed, &format!("padding:{i}:{k}"));
            let shuffle = (self.mechanism != Mechanism::Padded).then_some(&mut rng);
            // The functions of `moves` this member defines: their sections get more.
            let moved: Vec<(usize, u64, u64)> = self
                .moves
                .iter()
                .filter_map(|m| {
                    let index = text_symbol_section(bytes, &m.function, m.file.as_deref())?;
                    found.insert(m.label());
                    Some((index, m.before, m.behind))
                })
                .collect();
            reorder_object(bytes, shuffle, (self.pad, &mut padding), &moved)
        })
        .with_context(|| format!("archive {}", self.record.inputs[i].written))?;
        Ok(found)
    }
}

/// The object `bytes` with its movable sections shuffled within groups from `shuffle` (its
/// section table permuted; `None`: kept in their order, for padding only) and, when
/// `pad.0 > 0`, padded from the stream `pad.1` (one draw per movable section, in
/// section-table order), and `moved` (section index, filler in front of it, filler behind
/// it) moved further ([`MoveAlone`]); `None` when there is nothing to change (fewer than two
/// movable sections or no shuffle, and no padding) or it is not a relocatable ELF object.
fn reorder_object(
    bytes: &[u8],
    shuffle: Option<&mut SeededRng>,
    pad: (u64, &mut SeededRng),
    moved: &[(usize, u64, u64)],
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
    for &(index, bytes, tail) in moved {
        let align = movable
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, a)| *a)
            .context("the function's section in its archive member is not movable")?;
        if bytes % align.max(1) != 0 {
            bail!("{bytes} bytes would break its section's {align}-byte alignment");
        }
        add_filler(&mut padding, index, bytes);
        add_filler(&mut behind, index, tail);
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
    reorder::reorder_sections(bytes, &order, &padding, &behind).map(Some)
}

/// Adds `bytes` of filler to section `index`'s entry of `list` (a new entry when it has none).
fn add_filler(list: &mut Vec<(usize, u64)>, index: usize, bytes: u64) {
    if bytes == 0 {
        return;
    }
    match list.iter_mut().find(|(i, _)| *i == index) {
        Some(slot) => slot.1 += bytes,
        None => list.push((index, bytes)),
    }
}

/// The index of the section defining the function (text symbol) `name` in the object
/// `data`; `None` when it defines none (or is not an object).
pub(crate) fn text_symbol_section(data: &[u8], name: &str, in_file: Option<&str>) -> Option<usize> {
    use object::{Object, ObjectSymbol};
    let file = object::File::parse(data).ok()?;
    // A local symbol follows the `STT_FILE` symbol of its source file (as in the binary,
    // `crate::layout::binary`); `ld -r` keeps each input's.
    let mut current_file: Option<&str> = None;
    let found = file.symbols().find(|s| {
        if s.kind() == object::SymbolKind::File {
            current_file = s.name().ok();
            return false;
        }
        s.kind() == object::SymbolKind::Text
            && s.name() == Ok(name)
            && s.is_definition()
            && (in_file.is_none() || (s.is_local() && current_file == in_file))
    })?;
    found.section_index().map(|i| i.0)
}

/// The bytes of the regular file `path`, read through the one opener; `None` if it cannot be.
fn read_whole(path: &Path) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut crate::files::confined::open_regular(path).ok()?,
        &mut bytes,
    )
    .ok()?;
    Some(bytes)
}
