//! `build --pin FILE`: a seed of a pinned program is its random layout with filler in front
//! of each pinned function, so that each starts at the pin's offset modulo the pin's period
//! ([`crate::files::pin`]).
//!
//! Where the seed's order puts a function is known only once linked, and filler in front of
//! one function moves everything after it (alignment gaps included, which may then grow or
//! shrink), so the seed is linked, read from its ELF, and linked again with the missing
//! filler, in address order, until every pinned function is in place: the first correction
//! usually places them all, a later one mends an alignment gap that changed. The binary kept
//! is the last link, whose placement was read from its own ELF.

use std::path::Path;

use anyhow::{bail, Result};

use super::replay::{Linked, MoveAlone, Program};
use crate::files::pin::{PinnedFunction, ProgramPin};
use crate::layout::binary::{self, Function};

/// The most links of one seed of a pinned program (each places at least one more pinned
/// function in address order, so this bounds a pathological program, not a normal one).
pub(crate) const MAX_LINKS: usize = 8;

/// Links `program` for `seed` into `out` (through `work`): a program without a pin once, a
/// pinned one until its pinned functions start at their offsets, each in lines of its own
/// (at most [`MAX_LINKS`] links); the seconds are those of every link.
pub(crate) fn link_seed(program: &Program, seed: u64, out: &Path, work: &Path) -> Result<Linked> {
    let Some(pin) = program.pin.clone() else {
        return program.link(Some(seed), out, work);
    };
    let mut placed = program.clone();
    let mut seconds = 0.0;
    for _ in 0..MAX_LINKS {
        let linked = placed.link(Some(seed), out, work)?;
        seconds += linked.seconds;
        let functions = binary::functions(out)?;
        let missing = missing_filler(&pin, &functions, &placed.moves)?;
        if missing.is_empty() {
            return Ok(Linked {
                seconds,
                copy_of: linked.copy_of,
            });
        }
        for filler in missing {
            let function = filler.function;
            match placed.moves.iter_mut().find(|m| moves(m, function)) {
                Some(m) => {
                    m.before += filler.before;
                    m.behind = filler.behind;
                }
                None => placed.moves.push(MoveAlone {
                    function: function.name.clone(),
                    file: function.file.clone(),
                    before: filler.before,
                    behind: filler.behind,
                }),
            }
        }
    }
    bail!(
        "the pinned functions of {} were not at their offsets after {MAX_LINKS} links of seed \
         {seed}",
        program.name
    )
}

/// Whether `m` is the filler of the pinned function `f` (its name and file).
fn moves(m: &MoveAlone, f: &PinnedFunction) -> bool {
    m.function == f.name && m.file == f.file
}

/// What a pinned function still needs for its place: filler to add in front of it, and the
/// filler it needs behind it.
#[derive(Debug, PartialEq)]
pub(crate) struct MissingFiller<'a> {
    /// The pinned function.
    pub(crate) function: &'a PinnedFunction,
    /// Bytes to add to the filler in front of it.
    pub(crate) before: u64,
    /// Bytes of filler behind its code, in all.
    pub(crate) behind: u64,
}

/// The filler each pinned function still needs (in address order), given the filler `moves`
/// already put in front of and behind the functions: first the filler behind it to the end
/// of its last line, then its shortfall to its offset modulo the period once the filler of
/// the functions before it has moved it; a whole period more when the filler in front of it
/// would not reach back to the start of its first line (another function's code would share
/// that line; a period moves nothing modulo the period, so no other pinned function leaves
/// its place). A function sharing a line with a different neighbour in each seed makes the
/// pinned seeds differ: opus_demo with every executed function of its own pinned varied by
/// 0.5 % in I1 misses, as much as unpinned. Empty: every pinned function is in place, in
/// lines of its own.
///
/// Fails when a pinned function is not in `functions` or is not the only one it names.
pub(crate) fn missing_filler<'a>(
    pin: &'a ProgramPin,
    functions: &[Function],
    moves: &[MoveAlone],
) -> Result<Vec<MissingFiller<'a>>> {
    let mut placed: Vec<(&Function, &PinnedFunction)> = Vec::with_capacity(pin.functions.len());
    for f in &pin.functions {
        let mut named = functions.iter().filter(|g| f.is(g));
        let Some(found) = named.next() else {
            bail!(
                "function {} of the pin is not in program {} (renamed or removed since the pin \
                 was made?): make the pin again with `layoutrand pin`",
                f.label(),
                pin.program
            );
        };
        if named.next().is_some() {
            bail!(
                "function {} of the pin names several functions of program {} (static \
                 functions of several files): it cannot be placed",
                f.label(),
                pin.program
            );
        }
        placed.push((found, f));
    }
    placed.sort_unstable_by_key(|(found, _)| found.address);
    let (period, line) = (pin.period, pin.line);
    let filler_now = |f: &PinnedFunction| {
        let moved = moves.iter().find(|m| self::moves(m, f));
        moved.map_or((0, 0), |m| (m.before, m.behind))
    };
    // Filler behind first, in a link of its own: how far it moves the code after it depends
    // on that code's alignment, which only the link knows.
    let behind: Vec<MissingFiller> = placed
        .iter()
        .map(|(found, f)| MissingFiller {
            function: f,
            before: 0,
            behind: (line - (f.offset + found.size) % line) % line,
        })
        .filter(|m| m.behind != filler_now(m.function).1)
        .collect();
    if !behind.is_empty() {
        return Ok(behind);
    }
    let mut shift = 0u64;
    let mut missing = Vec::new();
    for (found, f) in placed {
        let (in_front, behind) = filler_now(f);
        let now = (found.address + shift) % period;
        let mut before = (f.offset + period - now) % period;
        if in_front + before < f.offset % line {
            before += period;
        }
        if before > 0 {
            missing.push(MissingFiller {
                function: f,
                before,
                behind,
            });
            shift += before;
        }
    }
    Ok(missing)
}

/// The pinned functions of `pin` whose size in `functions` (a build's baseline) differs from
/// the size the pin recorded: at their offsets they span other lines than in the layout the
/// pin copies, each named by [`PinnedFunction::label`] (its file beside a shared name).
pub(crate) fn resized(pin: &ProgramPin, functions: &[Function]) -> Vec<String> {
    pin.functions
        .iter()
        .filter(|f| {
            functions
                .iter()
                .find(|g| f.is(g))
                .is_some_and(|g| g.size != f.size)
        })
        .map(PinnedFunction::label)
        .collect()
}

/// Checks that `pin` can place the functions of `program`: a granularity whose seeds give
/// every function its own section-table entry.
pub(crate) fn check_mechanism(program: &Program) -> Result<()> {
    use super::linker::Mechanism;
    if program.mechanism == Mechanism::MergedLink {
        bail!(
            "program {}: --pin needs --granularity module, global or none (`link` moves whole \
             modules, so filler cannot go in front of each pinned function)",
            program.name
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::pin::{PinSource, PinnedFunction};

    fn pin(functions: &[(&str, u64)]) -> ProgramPin {
        ProgramPin {
            program: "demo".into(),
            period: 4096,
            // Every byte a line of its own: the offsets alone (lines are tested apart).
            line: 1,
            functions: functions
                .iter()
                .map(|&(name, offset)| PinnedFunction {
                    name: name.into(),
                    file: None,
                    offset,
                    size: 64,
                })
                .collect(),
            source: PinSource {
                binary: "seed-1".into(),
                metric: "instructions".into(),
                unit: "".into(),
                mean: 1.0,
                median: 1.0,
                layouts: 2,
                ir_share: 0.5,
            },
        }
    }

    /// The missing filler in front by the functions' names.
    fn named(missing: Vec<MissingFiller<'_>>) -> Vec<(&str, u64)> {
        missing
            .into_iter()
            .map(|m| (m.function.name.as_str(), m.before))
            .collect()
    }

    /// A function in place whose first line another function could share gets a whole period
    /// in front of it (the filler then fills that line; modulo the period nothing moves), and
    /// filler behind it to the end of its last line; with both in place it needs nothing.
    #[test]
    fn a_pinned_function_gets_lines_of_its_own() {
        let mut pin = pin(&[("b", 0x50)]);
        pin.line = 64;
        pin.functions[0].size = 40;
        let functions = [Function::named("b", 0x5050, 40)];
        let missing = missing_filler(&pin, &functions, &[]).unwrap();
        // 0x50 + 40 = 0x78: 8 bytes to the end of its line, first.
        assert_eq!(
            (missing.len(), missing[0].before, missing[0].behind),
            (1, 0, 8)
        );
        let moved = |before| MoveAlone {
            function: "b".into(),
            file: None,
            before,
            behind: 8,
        };
        let nothing_in_front = missing_filler(&pin, &functions, &[moved(0)]).unwrap();
        assert_eq!(
            (nothing_in_front[0].before, nothing_in_front[0].behind),
            (4096, 8)
        );
        assert!(missing_filler(&pin, &functions, &[moved(16)])
            .unwrap()
            .is_empty());
        // 15 bytes in front leave one byte of its line to the code before it.
        let short = missing_filler(&pin, &functions, &[moved(15)]).unwrap();
        assert_eq!((short[0].before, short[0].behind), (4096, 8));
    }

    #[test]
    fn filler_is_counted_in_address_order_after_the_filler_before() {
        // b comes first in the binary: 0x1010 → 0x1040 needs 48 bytes; a, at 0x2000, is
        // then at 0x2030 and needs (0x100 − 0x30) = 208 more to reach offset 0x100.
        let functions = [
            Function::named("a", 0x2000, 64),
            Function::named("b", 0x1010, 64),
        ];
        let pin = pin(&[("a", 0x100), ("b", 0x40)]);
        assert_eq!(
            named(missing_filler(&pin, &functions, &[]).unwrap()),
            [("b", 48), ("a", 208)]
        );
    }

    #[test]
    fn functions_in_place_need_nothing_and_an_offset_behind_wraps_a_period() {
        let functions = [
            Function::named("a", 0x3100, 64),
            Function::named("b", 0x5050, 64),
        ];
        assert!(
            missing_filler(&pin(&[("a", 0x100), ("b", 0x50)]), &functions, &[])
                .unwrap()
                .is_empty()
        );
        // b at offset 0x50 wants 0x40: almost a whole period further.
        let pin = pin(&[("b", 0x40)]);
        assert_eq!(
            named(missing_filler(&pin, &functions, &[]).unwrap()),
            [("b", 4096 - 0x10)]
        );
    }

    #[test]
    fn a_missing_or_ambiguous_function_is_refused_by_name() {
        let functions = [
            Function::named("a", 0x2000, 64),
            Function::named("a", 0x3000, 64),
        ];
        let gone = missing_filler(&pin(&[("gone", 0)]), &functions, &[]).unwrap_err();
        assert_eq!(
            gone.to_string(),
            "function gone of the pin is not in program demo (renamed or removed since the pin \
             was made?): make the pin again with `layoutrand pin`"
        );
        let twice = missing_filler(&pin(&[("a", 0)]), &functions, &[]).unwrap_err();
        assert_eq!(
            twice.to_string(),
            "function a of the pin names several functions of program demo (static functions \
             of several files): it cannot be placed"
        );
    }
}
