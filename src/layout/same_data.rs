//! The invariant of `build --data-order`: "same code, different data layout". A seed must hold
//! the baseline's static data objects, each of the same size and with the same contents,
//! only at other addresses; and its functions the baseline's bytes, but for the operands
//! that reach the moved data.
//!
//! Data objects are the binary's `STT_OBJECT` and `STT_TLS` symbols
//! ([`super::binary::data_objects_from_bytes`]), identified like functions (name, qualified by
//! its source file when shared). Their contents may differ where they hold an address: a
//! pointer to a moved object has another value. A differing aligned 8-byte word (or 4-byte
//! word, for 32-bit absolute addresses) counts as "the same pointer, relocated" when in both
//! binaries it points to the same place of the same symbol (function or data object, same
//! offset), or, for a target without a symbol (a string literal, a merged constant), to the
//! same bytes up to the first NUL (at most [`TARGET_BYTES`] bytes). Anything else is a
//! difference. Dynamic relocations are not read: a pointer whose slot the linker left 0 (lld
//! under PIE) compares equal.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::binary::{self, Function, FunctionId};
use super::image::{self, Image};

/// What the data check of one seed compared, for the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DataCheck {
    /// Data objects compared by identity and size (all of the binary's).
    pub objects: usize,
    /// Of those, how many are at another address than in the baseline.
    pub moved: usize,
    /// The hash of the objects' order (identities in address order,
    /// [`crate::layout::data_order`]): equal for two binaries whose data comes in the same
    /// order.
    pub order: String,
    /// Of those, how many have contents in the file (not `.bss`/`.tbss`) that were compared
    /// byte by byte.
    pub contents: usize,
    /// Words that differ only as a pointer to the same place, relocated.
    pub pointers: usize,
    /// Functions whose bytes were compared.
    pub functions: usize,
    /// Of those, how many differ (only in PC-relative displacements: the same instructions
    /// reaching data laid out otherwise).
    pub functions_displaced: usize,
}

/// How many bytes of a pointer's target without a symbol are compared (up to its first NUL).
pub(crate) const TARGET_BYTES: u64 = 256;

/// A binary read for the data check: its image, functions and data objects.
pub struct Placed {
    image: Image,
    functions: Vec<Function>,
    objects: Vec<Function>,
}

impl Placed {
    /// Reads the linked binary at `path`.
    pub fn read(path: &std::path::Path) -> Result<Placed> {
        let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let functions = binary::functions_from_bytes(&data)
            .with_context(|| format!("the functions of {}", path.display()))?;
        let objects = binary::data_objects_from_bytes(&data)
            .with_context(|| format!("the data objects of {}", path.display()))?;
        Ok(Placed {
            image: Image::read(path)?,
            functions,
            objects,
        })
    }

    /// Its data objects in address order.
    pub fn objects(&self) -> &[Function] {
        &self.objects
    }

    /// The symbol holding `address` and the offset into it (functions and data objects).
    fn resolve(&self, address: u64) -> Option<(&FunctionId, u64)> {
        [&self.objects, &self.functions]
            .into_iter()
            .find_map(|list| {
                let at = list.partition_point(|f| f.address <= address);
                let f = list.get(at.checked_sub(1)?)?;
                (address - f.address < f.size).then(|| (&f.id, address - f.address))
            })
    }

    /// The bytes at `address` up to and including the first NUL, at most [`TARGET_BYTES`].
    fn target_bytes(&self, address: u64) -> Option<&[u8]> {
        let bytes = self.image.bytes_from(address, TARGET_BYTES)?;
        let end = bytes
            .iter()
            .position(|&b| b == 0)
            .map_or(bytes.len(), |n| n + 1);
        Some(&bytes[..end])
    }
}

/// Checks `seed` against `baseline` (same objects, sizes and contents modulo relocated
/// pointers; same functions' bytes modulo PC-relative displacements). `Err` names the first
/// object or function that differs and how.
pub fn check(baseline: &Placed, seed: &Placed) -> Result<DataCheck> {
    let base: BTreeMap<&FunctionId, &Function> =
        baseline.objects.iter().map(|f| (&f.id, f)).collect();
    let other: BTreeMap<&FunctionId, &Function> = seed.objects.iter().map(|f| (&f.id, f)).collect();
    if let Some(id) = base.keys().find(|id| !other.contains_key(*id)) {
        bail!(
            "data object {} of the baseline is not in this seed",
            id.name
        );
    }
    if let Some(id) = other.keys().find(|id| !base.contains_key(*id)) {
        bail!(
            "data object {} of this seed is not in the baseline",
            id.name
        );
    }
    let mut check = DataCheck {
        objects: base.len(),
        moved: 0,
        order: super::data_order(&seed.objects),
        contents: 0,
        pointers: 0,
        functions: 0,
        functions_displaced: 0,
    };
    for (id, a) in &base {
        let b = other[id];
        if a.size != b.size {
            bail!(
                "data object {} is {} bytes in the baseline and {} bytes in this seed",
                id.name,
                a.size,
                b.size
            );
        }
        check.moved += usize::from(a.address != b.address);
        let (Some(x), Some(y)) = (
            baseline.image.bytes_at(a.address, a.size),
            seed.image.bytes_at(b.address, b.size),
        ) else {
            continue;
        };
        check.contents += 1;
        let x = Contents {
            placed: baseline,
            bytes: x,
            address: a.address,
        };
        let y = Contents {
            placed: seed,
            bytes: y,
            address: b.address,
        };
        check.pointers += same_contents(&x, &y).with_context(|| {
            format!(
                "data object {} holds other contents than in the baseline",
                id.name
            )
        })?;
    }
    check_functions(baseline, seed, &mut check)?;
    Ok(check)
}

/// The functions' bytes, pair by pair (the code check has made sure the lists hold the same
/// functions): equal, or different only in PC-relative displacements.
fn check_functions(baseline: &Placed, seed: &Placed, check: &mut DataCheck) -> Result<()> {
    let by_id: BTreeMap<&FunctionId, &Function> =
        seed.functions.iter().map(|f| (&f.id, f)).collect();
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for f in &baseline.functions {
        if let Some(g) = by_id.get(&f.id) {
            first.push(f.clone());
            second.push((*g).clone());
        }
    }
    let d = image::code_differences(&baseline.image, &first, &seed.image, &second);
    if let Some(name) = d.other.first() {
        bail!("function {name} holds other instructions than in the baseline");
    }
    if d.padding_only > 0 {
        bail!(
            "{} functions hold other no-op padding than in the baseline",
            d.padding_only
        );
    }
    check.functions = d.compared;
    check.functions_displaced = d.displacements_only;
    Ok(())
}

/// One data object's bytes as placed in a binary: the binary, the bytes, their address.
struct Contents<'a> {
    placed: &'a Placed,
    bytes: &'a [u8],
    address: u64,
}

/// Compares one object's bytes in the baseline (`x`) and in a seed (`y`): `Ok` with the
/// number of words that differ only as relocated pointers, absolute (8 or 4 bytes) or
/// relative (4 bytes, an offset from the object's start or from the word itself, as in
/// LLVM's relative lookup tables `reltable.*` under ThinLTO), `Err` at the first other
/// difference.
fn same_contents(x: &Contents, y: &Contents) -> Result<usize> {
    let (a, b) = (x.bytes, y.bytes);
    let mut pointers = 0;
    let mut at = 0;
    while let Some(j) = (at..a.len()).find(|&j| a[j] != b[j]) {
        let word = [8usize, 4].into_iter().find_map(|width| {
            let start = j / width * width;
            let end = start + width;
            let (p, q) = (a.get(start..end)?, b.get(start..end)?);
            let same = same_target(x.placed, p, y.placed, q)
                || (width == 4 && same_relative_target(x, y, start));
            same.then_some(end)
        });
        match word {
            Some(end) => {
                pointers += 1;
                at = end;
            }
            None => bail!(
                "byte {j} is {:#04x} in the baseline and {:#04x} here",
                a[j],
                b[j]
            ),
        }
    }
    Ok(pointers)
}

/// Whether the 4-byte words at `offset` of `x` and `y`, read as signed offsets from the
/// object's start or from the word's own address, reach the same offset of the same symbol
/// in both binaries.
fn same_relative_target(x: &Contents, y: &Contents, offset: usize) -> bool {
    let relative = |c: &Contents| {
        let word = c.bytes.get(offset..offset + 4)?;
        Some(i64::from(i32::from_le_bytes(word.try_into().ok()?)) as u64)
    };
    let (Some(p), Some(q)) = (relative(x), relative(y)) else {
        return false;
    };
    [0, offset as u64].into_iter().any(|from| {
        same_place(
            x.placed,
            x.address.wrapping_add(from).wrapping_add(p),
            y.placed,
            y.address.wrapping_add(from).wrapping_add(q),
        )
    })
}

/// Whether the little-endian words `x` (in `a`) and `y` (in `b`) are pointers to the same
/// place: the same offset of the same symbol, or equal bytes where neither has one.
fn same_target(a: &Placed, x: &[u8], b: &Placed, y: &[u8]) -> bool {
    same_place(a, le_value(x), b, le_value(y))
}

/// Whether the address `p` in `a` and the address `q` in `b` are the same place: the same
/// offset of the same symbol, or, where neither has one (a merged string), the same bytes.
fn same_place(a: &Placed, p: u64, b: &Placed, q: u64) -> bool {
    match (a.resolve(p), b.resolve(q)) {
        (Some(s), Some(t)) => s == t,
        (None, None) => match (a.target_bytes(p), b.target_bytes(q)) {
            (Some(s), Some(t)) => !s.is_empty() && s == t,
            _ => false,
        },
        _ => false,
    }
}

/// The little-endian unsigned value of up to 8 bytes (x86-64, AArch64, RISC-V).
fn le_value(word: &[u8]) -> u64 {
    word.iter()
        .rev()
        .fold(0u64, |v, &byte| v << 8 | u64::from(byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_little_endian() {
        assert_eq!(le_value(&[0x02, 0x01, 0, 0]), 0x0102);
        assert_eq!(
            le_value(&[0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0x80]),
            0x8000_0000_1234_5678
        );
        assert_eq!(le_value(&[0xff; 8]), u64::MAX);
    }
}
