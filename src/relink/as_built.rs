//! In what the baseline differs from the binary the user's build made ("as built"): the
//! baseline is relinked through the same mechanism as the seeds (with the identity order), so
//! it can differ from the recorded build's own output in its functions (not expected), their
//! order, or their addresses (the same order with other gaps, e.g. when the relink's inputs
//! are merged by `ld -r` and the final linker pads the merged sections differently). The
//! summary says which, per program, so that nobody takes the baseline for the shipped binary
//! when it is not.
//!
//! [`keep`] also copies the build's own binaries into the experiment directory as a fixed
//! layout of their own (label `as-built`), which `run` measures beside the baseline and the
//! report places among the random layouts as it places the baseline. In relink mode a
//! program's own binary is the recorded link's output in the user's tree; under
//! `--rebuild` it is the copy the shim keeps of the baseline build's link output before the
//! live relink replaces it ([`super::live`]): either way, what the user's link wrote.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::binaries::describe_program;
use super::replay::Program;
use crate::files::manifest::{
    binary_label, BinarySet, BuildStatus, FunctionsDifference, SetKind, AS_BUILT_LABEL,
};
use crate::layout::binary::{self, Function};
use crate::layout::image::{self, Image};
use crate::layout::{distance, same_code};

/// Copies every program's (and library's) binary as the user's build made it (`own`, one
/// path per program) to `out_dir/as-built/NAME`, read-only, and describes it as the baseline
/// is described (SHA-256, fingerprint, functions) with, against the baseline's functions
/// (`baseline`, one list per program in the order of `programs`), the same-code check, the
/// distance and [`compare`]'s words. `Err` says why there is no as-built set (a program's
/// own binary gone, or stripped so that its functions cannot be compared): the set is all
/// programs or none, since a command may run several of them together.
pub(crate) fn keep(
    programs: &[Program],
    own: &[PathBuf],
    baseline: &[Vec<Function>],
    out_dir: &Path,
) -> Result<BinarySet, String> {
    let mut set = BinarySet {
        seed: None,
        kind: Some(SetKind::AsBuilt),
        status: BuildStatus::Ok,
        error: None,
        binaries: Vec::new(),
        libraries: Vec::new(),
    };
    for ((program, own), base) in programs.iter().zip(own).zip(baseline) {
        let functions = binary::functions(own).map_err(|e| {
            format!(
                "{}: the build's own binary {} cannot be checked against the baseline ({e:#})",
                program.name,
                own.display()
            )
        })?;
        let dest = out_dir.join(AS_BUILT_LABEL).join(&program.name);
        let copied = copy_read_only(own, &dest)
            .and_then(|()| describe_program(out_dir, program, &dest, &functions, None, 0.0));
        let mut b = copied.map_err(|e| format!("{}: {e:#}", program.name))?;
        // Unlike a seed's, a difference in code is stated, not refused: this is the user's
        // binary whatever it holds.
        b.code = same_code::check(base, &functions).ok();
        b.distance = Some(distance::between(base, &functions));
        let base_path = out_dir.join(binary_label(None)).join(&program.name);
        b.functions_versus_baseline = Some(compare(&functions, base));
        match beyond_functions(own, &functions, &base_path, base) {
            Ok(d) => b.bytes_versus_baseline = Some(d),
            Err(e) => b.bytes_not_compared = Some(e),
        }
        set.add(b, program.is_library());
    }
    Ok(set)
}

/// The build's own binaries kept as the `as-built` layout ([`keep`]'s arguments) (the
/// build's summary says how the baseline differs from each, from the manifest), or a note
/// saying why they were not kept.
pub(crate) fn kept(
    programs: &[Program],
    own: &[PathBuf],
    baseline: &[Vec<Function>],
    out_dir: &Path,
    notes: &mut Vec<crate::files::manifest::BuildNote>,
) -> Option<BinarySet> {
    match keep(programs, own, baseline, out_dir) {
        Ok(set) => Some(set),
        Err(why) => {
            notes.push(crate::files::manifest::BuildNote::AsBuiltNotKept {
                why: format!("{why:#}"),
            });
            None
        }
    }
}

/// Copies `from` to `to` (replacing a previous copy) and makes it read-only (r-x): the
/// manifest's hash then keeps describing it.
fn copy_read_only(from: &Path, to: &Path) -> anyhow::Result<()> {
    use anyhow::Context;
    let (dir, name) = crate::files::confined::make_parent_of(to)?;
    dir.copy_in(from, name, Some(0o555))
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))
}

/// The comparison of the function lists: functions (name and size), their order, their
/// addresses.
pub(crate) fn compare(own: &[Function], baseline: &[Function]) -> FunctionsDifference {
    let key = |f: &Function| (f.id.clone(), f.size);
    let count = |fs: &[Function]| {
        let mut m = BTreeMap::new();
        for f in fs {
            *m.entry(key(f)).or_insert(0usize) += 1;
        }
        m
    };
    let (a, b) = (count(own), count(baseline));
    if a != b {
        return FunctionsDifference::OtherFunctions {
            only_own: a.keys().filter(|k| !b.contains_key(*k)).count(),
            only_baseline: b.keys().filter(|k| !a.contains_key(*k)).count(),
        };
    }
    let order_own: Vec<_> = own.iter().map(key).collect();
    let order_base: Vec<_> = baseline.iter().map(key).collect();
    if order_own != order_base {
        let first = order_own
            .iter()
            .zip(&order_base)
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        return FunctionsDifference::OtherOrder {
            first_difference: first,
            functions: own.len(),
        };
    }
    let moved = own
        .iter()
        .zip(baseline)
        .filter(|(x, y)| x.address != y.address)
        .count();
    if moved == 0 {
        return FunctionsDifference::Same {
            functions: own.len(),
        };
    }
    let deltas: Vec<i128> = own
        .iter()
        .zip(baseline)
        .map(|(x, y)| i128::from(y.address) - i128::from(x.address))
        .collect();
    if deltas.iter().all(|d| *d == deltas[0]) {
        return FunctionsDifference::Shifted {
            functions: own.len(),
            by: i64::try_from(deltas[0]).unwrap_or(i64::MAX),
        };
    }
    FunctionsDifference::OtherGaps {
        moved,
        functions: own.len(),
    }
}

/// What differs beyond the function list: the sizes of the allocated sections, and, when
/// every function is at the same address in both, the bytes of each function by kind of
/// difference; `Err` says why the binaries could not be read.
fn beyond_functions(
    own: &Path,
    own_functions: &[Function],
    base: &Path,
    base_functions: &[Function],
) -> Result<image::BytesDifference, String> {
    let (own_image, base_image) = match (Image::read(own), Image::read(base)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Err(format!("{e:#}")),
    };
    let same_places = own_functions.len() == base_functions.len()
        && own_functions
            .iter()
            .zip(base_functions)
            .all(|(a, b)| a.address == b.address && a.size == b.size);
    Ok(image::BytesDifference {
        sections: image::section_differences(&base_image, &own_image),
        code: same_places.then(|| {
            image::code_differences(&base_image, base_functions, &own_image, own_functions)
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::binary::FunctionId;

    fn f(name: &str, address: u64, size: u64) -> Function {
        Function {
            id: FunctionId {
                name: name.into(),
                file: None,
            },
            name: name.into(),
            file: None,
            address,
            size,
        }
    }

    #[test]
    fn each_kind_of_difference_is_found() {
        use FunctionsDifference::*;
        let own = [f("a", 0x1000, 16), f("b", 0x1010, 32)];
        assert_eq!(compare(&own, &own), Same { functions: 2 });
        let shifted = [f("a", 0x0ff0, 16), f("b", 0x1000, 32)];
        assert_eq!(
            compare(&own, &shifted),
            Shifted {
                functions: 2,
                by: -16
            }
        );
        let gaps = [f("a", 0x1000, 16), f("b", 0x1020, 32)];
        assert_eq!(
            compare(&own, &gaps),
            OtherGaps {
                moved: 1,
                functions: 2
            }
        );
        let swapped = [f("b", 0x1000, 32), f("a", 0x1020, 16)];
        assert_eq!(
            compare(&own, &swapped),
            OtherOrder {
                first_difference: 0,
                functions: 2
            }
        );
        let other = [f("a", 0x1000, 16), f("b", 0x1010, 35)];
        assert_eq!(
            compare(&own, &other),
            OtherFunctions {
                only_own: 1,
                only_baseline: 1
            }
        );
    }
}
