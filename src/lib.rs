//! layoutrand: benchmark native programs without being fooled by code layout.
//!
//! The crate's folders follow the data flow of an experiment:
//!
//! * [`wrap`] — the cc/ld shim that records one ordinary build;
//! * [`layout`] — ELF reading: function order, fingerprints, distances, reordering primitives;
//! * [`relink`] — `layoutrand build`: replays the recorded links once per seed, verifies,
//!   writes the manifest;
//! * [`run`] — the three-level executor (binaries × executions × iterations);
//! * [`files`] — the files an experiment keeps, among them the store of measurements;
//! * [`stats`] — pure statistics (Kalibera & Jones 2013, Georges et al. 2007, Touati et al.);
//! * [`analysis`] — the one engine that computes every answer: `analyze` on a CSV, and
//!   `report`, `dimension` and `compare` on an experiment directory ([`analysis::answers`]);
//! * [`report`] — renders those answers as text, Markdown, JSON, CSV and HTML, computing
//!   nothing.
//!
//! [`explain`] answers which function's placement makes a layout slow: it profiles the
//! default-layout binary for its hot functions, reads where each seed placed them, hands the
//! binaries' means and placements to [`analysis::explain`]'s screening (false discoveries
//! controlled), and confirms a culprit by relinks that move only that function. [`pin`]
//! turns its answer into a controlled layout: a pin file that `build --pin` applies to every
//! seed (its functions placed by [`relink`]).
//!
//! [`doctor`] says whether a machine is fit for an experiment (checks and a calibration of
//! its noise), from the run and stats stages' own code; its answer's model is
//! [`analysis::doctor`], its words [`report::doctor`].
//!
//! [`flags`] defines the flags of `build` and `run` once, as typed structs that the
//! [`experiment`] pipeline fills for its stages; clap's parser is derived on them only with
//! the `cli` feature, which the command line (`src/main.rs`, `src/cli/`) requires: the library
//! itself builds without clap.
//!
//! [`files`] holds the formats of the files an experiment directory keeps (manifest, results
//! store records, the store's reader and crash-safe writer) and the atomic write they share,
//! below every stage so that no stage imports another for a file's layout. [`seeded`] holds
//! the reproducible random streams every stage draws from. [`child`] starts nothing itself:
//! it finds programs on PATH and ties a child's life to layoutrand's, for every stage that
//! starts one. [`signals`] is what SIGINT and SIGTERM do in every stage (caught, forwarded,
//! restored) and the one error of a stage they stopped.
//!
//! The library's public surface is what the binary (`src/main.rs`, `src/cli/`), the
//! integration tests and the benches use; everything else is `pub(crate)`.

// The library exists for the binary and the tests: its documentation is read with the
// crate-private items (`cargo doc --document-private-items`, as .ci/run builds it), so a
// public item's doc may link to the private one that does the work.
#![allow(rustdoc::private_intra_doc_links)]

/// `eprintln!` that never panics. Messages on stderr are diagnostics: when stderr cannot be
/// written (a full disk behind `2>log`, a closed descriptor) a run, a build through the shim
/// or a report must go on, not die of `eprintln!`'s panic with the work half done.
#[macro_export]
macro_rules! diagnostic {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        // What it says may quote a file of an experiment directory: made printable.
        let text = ::std::format!($($arg)*);
        let _ = ::std::writeln!(
            ::std::io::stderr(),
            "{}",
            $crate::printable::for_terminal(&text)
        );
    }};
}

/// `print!` for a command's answer, through [`files::output::write_stdout`]: a failure to
/// write is returned with `?` (the calling function returns `anyhow::Result`), never a panic.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::files::output::write_stdout(&::std::format!($($arg)*))?
    };
}

/// `println!` for a command's answer: [`out!`] with a newline.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::files::output::write_stdout("\n")?
    };
    ($($arg:tt)*) => {
        $crate::files::output::write_stdout(&{
            let mut line = ::std::format!($($arg)*);
            line.push('\n');
            line
        })?
    };
}

pub mod analysis;
pub(crate) mod child;
pub mod doctor;
pub mod exit;
pub mod experiment;
pub mod explain;
pub mod files;
pub mod flags;
#[cfg(test)]
pub(crate) mod fuzz_support;
pub mod layout;
pub mod measurements;
pub mod pin;
pub mod printable;
pub mod progress;
pub mod relink;
pub mod report;
pub mod run;
pub(crate) mod schema;
/// The seeded random stream (in the stats crate, which needs it; one stream for all).
pub use layoutrand_stats::seeded;
pub mod signals;
/// Pure statistics: the `layoutrand-stats` crate of this workspace (`stats/`).
pub use layoutrand_stats as stats;
pub mod units;
pub(crate) mod wire;
pub mod wrap;
