//! The answer of `layoutrand pin` (made in `crate::pin`, worded in `crate::report::pin`):
//! the pin file made, the hot functions it leaves free and why, and the figures its words
//! need; and the one computation, each hot function's placement modulo the set period.

use std::path::PathBuf;

use serde::Serialize;

use crate::analysis::explain::HotFunction;
use crate::files::pin::{PinFile, PinnedFunction};
use crate::layout::binary::Function;

/// A hot function the pin leaves free, and why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LeftFree {
    /// Its symbol name.
    pub(crate) name: String,
    /// The build's library it is in (its file name); `None` for the program's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) library: Option<String>,
    /// Why it is not pinned.
    pub(crate) why: Freedom,
}

/// Why a hot function is not pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Freedom {
    /// Several functions of the binary have its name (static functions of several files):
    /// a name cannot say which one to place.
    NameNotUnique,
    /// The binary the placement is copied from has no function of its name.
    NotInBinary,
    /// It is a library's, and the set period exceeds a page: a library loads at a
    /// page-aligned address the layout does not choose, so its offset modulo the period is
    /// not the library's to keep.
    LibraryBeyondPage,
}

/// What `pin` made: the pin file and what it leaves free.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PinAnswer {
    /// The output schema every command's JSON begins with (`crate::schema::OUTPUT_SCHEMA`).
    pub(crate) schema: u32,
    /// The layoutrand version that wrote the answer.
    pub(crate) tool_version: &'static str,
    /// The pin file written.
    pub(crate) pin: PinFile,
    /// Where it was written.
    pub(crate) written: PathBuf,
    /// The experiment directory it was made from.
    pub(crate) experiment: PathBuf,
    /// The program explained: the pin's entry of that name places its own functions, the
    /// others those of the build's libraries it loads (`libraries`).
    pub(crate) program: String,
    /// The build's libraries the program loads, whose hot functions explain found with its
    /// own: each seed relinks them, and the pin places their hot functions as the program's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) libraries: Vec<String>,
    /// The hot functions left free.
    pub(crate) left_free: Vec<LeftFree>,
    /// The instruction cache whose set period the offsets are taken modulo.
    pub(crate) cache: crate::layout::features::ICache,
    /// Whether the experiment measured under cachegrind, on that simulated cache; else on
    /// the machine, whose own cache the pin must then match.
    pub(crate) simulated: bool,
    /// Share of the variance between the random layouts (`explain`'s, the report's
    /// intraclass correlation; `None` when it could not be estimated).
    pub(crate) layout_share: Option<f64>,
    /// explain's [`crate::analysis::explain::ReportSettled`]: the report finds the layout's
    /// effect negligible, or none detectable, so a pin has little to steady (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) report_settled: Option<crate::analysis::explain::ReportSettled>,
}

/// The pinned placement of each function of `hot` in `functions` (one object's: the
/// program's or a library's, at its own addresses; its start modulo `period`, and its size),
/// hottest first, and the hot functions left free. A name several functions share (static
/// functions of several files, which a profile without debug information counts as one) is
/// pinned as each of them, told apart by its file, when each has a file of its own.
pub(crate) fn placements(
    hot: &[HotFunction],
    functions: &[Function],
    period: u64,
) -> (Vec<PinnedFunction>, Vec<LeftFree>) {
    let mut pinned = Vec::new();
    let mut left_free = Vec::new();
    for hot in hot {
        let named: Vec<&Function> = functions.iter().filter(|f| f.name == hot.name).collect();
        let shared = named.len() > 1;
        // The binary's reader qualifies a shared name by its file (`FunctionId::file`).
        let files: std::collections::BTreeSet<Option<&str>> =
            named.iter().map(|f| f.id.file.as_deref()).collect();
        let why = match named.as_slice() {
            [] => Freedom::NotInBinary,
            _ if shared && (files.len() < named.len() || files.contains(&None)) => {
                Freedom::NameNotUnique
            }
            _ => {
                pinned.extend(named.iter().map(|f| PinnedFunction {
                    name: hot.name.clone(),
                    file: f.id.file.clone().filter(|_| shared),
                    offset: f.address % period,
                    size: f.size,
                }));
                continue;
            }
        };
        left_free.push(LeftFree {
            name: hot.name.clone(),
            library: hot.library.clone(),
            why,
        });
    }
    (pinned, left_free)
}
