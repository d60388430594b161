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
/// pinned one until its pinned functions start at their offsets (at most [`MAX_LINKS`]
/// links); the seconds are those of every link.
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
        let missing = missing_filler(&pin, &functions)?;
        if missing.is_empty() {
            return Ok(Linked {
                seconds,
                copy_of: linked.copy_of,
            });
        }
        for (function, bytes) in missing {
            let same = |m: &&mut MoveAlone| m.function == function.name && m.file == function.file;
            match placed.moves.iter_mut().find(same) {
                Some(m) => m.before += bytes,
                None => placed.moves.push(MoveAlone {
                    function: function.name.clone(),
                    file: function.file.clone(),
                    before: bytes,
                    behind: 0,
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

/// The filler each pinned function still needs in front of it (function, bytes), in address
/// order: each function's shortfall to its offset modulo the period once the filler in front
/// of the functions before it has moved it. Empty: every pinned function is in place.
///
/// Fails when a pinned function is not in `functions` or is not the only one it names.
pub(crate) fn missing_filler<'a>(
    pin: &'a ProgramPin,
    functions: &[Function],
) -> Result<Vec<(&'a PinnedFunction, u64)>> {
    let mut placed: Vec<(u64, &PinnedFunction)> = Vec::with_capacity(pin.functions.len());
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
        placed.push((found.address, f));
    }
    placed.sort_unstable_by_key(|(address, _)| *address);
    let period = pin.period;
    let mut shift = 0u64;
    let mut missing = Vec::new();
    for (address, f) in placed {
        let now = (address + shift) % period;
        let bytes = (f.offset + period - now) % period;
        if bytes > 0 {
            missing.push((f, bytes));
            shift += bytes;
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

    /// The missing filler by the functions' names.
    fn named(missing: Vec<(&PinnedFunction, u64)>) -> Vec<(&str, u64)> {
        missing
            .into_iter()
            .map(|(f, bytes)| (f.name.as_str(), bytes))
            .collect()
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
            named(missing_filler(&pin, &functions).unwrap()),
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
            missing_filler(&pin(&[("a", 0x100), ("b", 0x50)]), &functions)
                .unwrap()
                .is_empty()
        );
        // b at offset 0x50 wants 0x40: almost a whole period further.
        let pin = pin(&[("b", 0x40)]);
        assert_eq!(
            named(missing_filler(&pin, &functions).unwrap()),
            [("b", 4096 - 0x10)]
        );
    }

    #[test]
    fn a_missing_or_ambiguous_function_is_refused_by_name() {
        let functions = [
            Function::named("a", 0x2000, 64),
            Function::named("a", 0x3000, 64),
        ];
        let gone = missing_filler(&pin(&[("gone", 0)]), &functions).unwrap_err();
        assert_eq!(
            gone.to_string(),
            "function gone of the pin is not in program demo (renamed or removed since the pin \
             was made?): make the pin again with `layoutrand pin`"
        );
        let twice = missing_filler(&pin(&[("a", 0)]), &functions).unwrap_err();
        assert_eq!(
            twice.to_string(),
            "function a of the pin names several functions of program demo (static functions \
             of several files): it cannot be placed"
        );
    }
}
