//! One store file, `results.jsonl`: the append-only, crash-safe record of an experiment's
//! measurements — its reader, its writer and its repair.
//!
//! One JSON record per line. The first line is a [`Header`]. Each execution appends its
//! [`Measurement`]s and then one [`Execution`] record that *commits* them, in a single
//! `write` followed by `fsync`, before the next execution starts. A reader keeps only
//! measurements whose execution record is present, so a crash (power loss, `kill -9`) can
//! at worst lose the execution that was being written, never corrupt or half-include one.
//! A torn last line is detected and dropped with a warning. The schema is documented in
//! `docs/formats.md`. This module knows one file only; a Slurm run's shard stores are
//! merged by the sibling module `shards`, and `crate::files::store::read_results` reads
//! either.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use crate::files::confined::{Entry, ExperimentDir};
use anyhow::{bail, Context, Result};
use nix::fcntl::{Flock, FlockArg};

use super::keys::KeyTable;
use super::warning::StoreWarning;
pub use crate::files::line::MAX_LINE_BYTES;
use crate::files::line::{blank_first_line, next_line, size_in_words, store_dir_of};
use crate::files::results::{
    Execution, ExecutionStatus, Extension, Finish, Header, Measurement, Record,
    MAX_STORED_EXECUTIONS, RESULTS_FILE, RESULTS_SCHEMA,
};

/// Everything a reader gets back from a store.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// The header, if the store has one.
    pub header: Option<Header>,
    /// Committed measurements, in file order.
    pub measurements: Vec<Measurement>,
    /// Execution records, in file order.
    pub executions: Vec<Execution>,
    /// Problems found while reading (torn last line, uncommitted measurements).
    pub warnings: Vec<StoreWarning>,
    /// Binaries added to the run after it started, in file order.
    pub extensions: Vec<Extension>,
    /// The ends of the `run` invocations that wrote the store, in file order.
    pub finishes: Vec<Finish>,
}

impl Results {
    /// The run's planned executions per binary: the header's, plus every extension's rounds.
    pub fn planned_executions(&self) -> Option<u32> {
        let h = self.header.as_ref()?;
        self.extensions
            .iter()
            .filter_map(|e| e.executions)
            .try_fold(h.executions, u32::checked_add)
    }

    /// Executions the run planned in all: every (program, variant, binary, data seed) cell
    /// times the planned executions per binary ([`Results::planned_executions`]), binaries
    /// added by extensions included; `None` without a header or beyond `u64`.
    pub(crate) fn planned_total(&self) -> Option<u64> {
        let h = self.header.as_ref()?;
        [
            h.programs.len() as u64,
            h.variants.len().max(1) as u64,
            self.planned_binaries().len() as u64,
            u64::from(self.planned_executions()?),
            u64::from(h.data_seeds.max(1)),
        ]
        .into_iter()
        .try_fold(1u64, u64::checked_mul)
    }

    /// Executions stored, whatever their status (each key once).
    pub(crate) fn stored_total(&self) -> u64 {
        let keys: std::collections::BTreeSet<_> = self.executions.iter().map(|e| e.key()).collect();
        keys.len() as u64
    }

    /// The run's planned binaries: the header's, then those of every extension.
    pub(crate) fn planned_binaries(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .header
            .as_ref()
            .map(|h| h.binaries.clone())
            .unwrap_or_default();
        for e in &self.extensions {
            all.extend(e.binaries.iter().cloned());
        }
        all
    }
}

/// How [`scan`] reads: its longest line and most executions (the limits are those of
/// every reader; the unit tests lower them), and whether the returned [`Results`] keeps the
/// execution records (a reader that needs them only one at a time, as `run --resume` does,
/// keeps memory bounded by the store's executions' keys alone).
#[derive(Debug, Clone, Copy)]
struct ScanOptions {
    max_line: usize,
    max_executions: u64,
    keep_executions: bool,
}

impl ScanOptions {
    const KEEP: ScanOptions = ScanOptions {
        max_line: MAX_LINE_BYTES,
        max_executions: MAX_STORED_EXECUTIONS,
        keep_executions: true,
    };
}

/// Reads the one store file `dir/results.jsonl`, keeping every committed measurement in
/// memory (see `crate::files::store::read_results` for the rules).
pub(crate) fn read_file(dir: &Path) -> Result<Results> {
    let mut measurements = Vec::new();
    let mut results = scan_file(dir, |_, mine| measurements.extend(mine))?;
    results.measurements = measurements;
    Ok(results)
}

/// Reads the one store file `dir/results.jsonl` in one streaming pass, handing each committed
/// execution with its measurements to `on_commit` (see `crate::files::store::scan_results`).
pub(crate) fn scan_file(
    dir: &Path,
    on_commit: impl FnMut(&Execution, Vec<Measurement>),
) -> Result<Results> {
    scan_file_with(dir, ScanOptions::KEEP, on_commit)
}

/// [`scan_file`], but the returned [`Results`] holds no execution records either: each is
/// only handed to `on_commit` (see `crate::files::store::scan_commits`).
pub(crate) fn scan_file_commits(
    dir: &Path,
    on_commit: impl FnMut(&Execution, Vec<Measurement>),
) -> Result<Results> {
    let options = ScanOptions {
        keep_executions: false,
        ..ScanOptions::KEEP
    };
    scan_file_with(dir, options, on_commit)
}

fn scan_file_with(
    dir: &Path,
    options: ScanOptions,
    on_commit: impl FnMut(&Execution, Vec<Measurement>),
) -> Result<Results> {
    let path = dir.join(RESULTS_FILE);
    // A FIFO or a device in place of the store would stall or flood the reader.
    let file = ExperimentDir::open(dir)?.open_regular(RESULTS_FILE)?;
    scan(
        BufReader::with_capacity(1 << 16, file),
        &path,
        options,
        on_commit,
    )
}

/// The header of the store in `dir`, parsed by the store's own parser from the very first
/// line whose MAC verified under this user's key ([`crate::files::trust::read_verified`]):
/// the only header a resumed run takes its command, working directory and environment from.
/// `None` when there is no store.
pub(crate) fn verified_header(dir: &Path) -> Result<Option<crate::files::trust::Verified<Header>>> {
    use crate::files::trust::{read_verified, Kind};
    let path = dir.join(RESULTS_FILE);
    read_verified(dir, Path::new(RESULTS_FILE), Kind::StoreHeader, |line| {
        let mut whole = line.to_vec();
        whole.push(b'\n');
        parse_results(&whole, &path)?
            .header
            .with_context(|| format!("{} has no header on its first line", path.display()))
    })
}

/// Parses the bytes of a store; `path` is used in messages only.
pub fn parse_results(bytes: &[u8], path: &Path) -> Result<Results> {
    let mut measurements = Vec::new();
    let mut results = scan(bytes, path, ScanOptions::KEEP, |_, mine| {
        measurements.extend(mine)
    })?;
    results.measurements = measurements;
    Ok(results)
}

/// The reader behind [`scan_file`] and [`parse_results`]: one line at a time.
fn scan(
    mut reader: impl BufRead,
    path: &Path,
    options: ScanOptions,
    mut on_commit: impl FnMut(&Execution, Vec<Measurement>),
) -> Result<Results> {
    let mut scan = Scan {
        path,
        results: Results::default(),
        pending: Vec::new(),
        committed_at: KeyTable::default(),
        options,
    };
    let mut line = Vec::new();
    let mut lineno = 0;
    loop {
        lineno += 1;
        let Some((body, complete)) =
            next_line(&mut reader, &mut line, path, lineno, options.max_line)?
        else {
            break;
        };
        if body.iter().all(u8::is_ascii_whitespace) {
            if lineno == 1 {
                bail!(blank_first_line(path));
            }
            continue;
        }
        let Some(record) = scan.parse(body, complete, lineno)? else {
            break;
        };
        match record {
            Record::Header(h) => scan.header(h, lineno)?,
            Record::Measurement(m) => scan.measurement(m, lineno),
            Record::Extension(x) => scan.results.extensions.push(x),
            Record::Finish(f) => scan.results.finishes.push(f),
            Record::Execution(e) => scan.execution(e, lineno, &mut on_commit)?,
        }
    }
    if !scan.pending.is_empty() {
        scan.results.warnings.push(StoreWarning::Unfinished {
            path: path.to_path_buf(),
            measurements: scan.pending.len(),
        });
    }
    Ok(scan.results)
}

/// The state of [`scan`] between lines.
struct Scan<'p> {
    path: &'p Path,
    results: Results,
    /// Measurements read since the last execution record.
    pending: Vec<Measurement>,
    /// The line of each committed execution: one recorded twice makes the store invalid for
    /// every reader (report, export, compare, resume), not only for those that would notice
    /// its values twice.
    committed_at: KeyTable<usize>,
    /// Its limits, and whether `results.executions` keeps every execution record.
    options: ScanOptions,
}

impl Scan<'_> {
    /// The record on line `lineno`; `None` for a torn last line (an interrupted write: the
    /// reading stops there, with a warning), an error for a malformed complete one.
    fn parse(&mut self, body: &[u8], complete: bool, lineno: usize) -> Result<Option<Record>> {
        match serde_json::from_slice(body) {
            Ok(r) => Ok(Some(r)),
            Err(e) if !complete => {
                self.results.warnings.push(StoreWarning::TornLine {
                    path: self.path.to_path_buf(),
                    line: lineno,
                    error: e.to_string(),
                });
                Ok(None)
            }
            Err(e) => bail!(
                "{}:{lineno}: not a layoutrand result record: {e}; `layoutrand repair {}` keeps \
                 every valid record in a new store and moves this file aside",
                self.path.display(),
                store_dir_of(self.path)
            ),
        }
    }

    /// The header, refused when of a newer schema or a second one.
    fn header(&mut self, h: Header, lineno: usize) -> Result<()> {
        if h.schema > RESULTS_SCHEMA {
            bail!(
                "{} was written with results schema {} by layoutrand {}; this layoutrand ({}) reads up to schema {}",
                self.path.display(),
                h.schema,
                h.tool_version,
                env!("CARGO_PKG_VERSION"),
                RESULTS_SCHEMA
            );
        }
        if self.results.header.is_some() {
            bail!(
                "{}:{lineno}: a second header record; `layoutrand repair {}` keeps every valid \
                 record in a new store and moves this file aside",
                self.path.display(),
                store_dir_of(self.path)
            );
        }
        if lineno != 1 {
            // The header's MAC covers the first line (`read_header_line`): a header read from
            // any other line would be one no signature check looked at.
            bail!(
                "{}:{lineno}: a header record on line {lineno}: a store's header is its first \
                 line, so this store was edited; `layoutrand repair {}` keeps every valid \
                 record in a new store and moves this file aside",
                self.path.display(),
                store_dir_of(self.path)
            );
        }
        if let Err(why) = h.check_names() {
            bail!(
                "{}:{lineno}: the header is refused: {why}",
                self.path.display()
            );
        }
        self.results.header = Some(h);
        Ok(())
    }

    /// A measurement, pending until its execution record commits it.
    fn measurement(&mut self, m: Measurement, lineno: usize) {
        // An execution's batch is contiguous and always starts with the same (iteration,
        // metric). A measurement of another execution, or the batch's first key again,
        // means the pending ones were left uncommitted by a crash and their execution
        // was run again: drop them.
        let stale = self.pending.first().is_some_and(|p| {
            p.key_ref() != m.key_ref()
                || (p.iteration, p.metric.as_str()) == (m.iteration, m.metric.as_str())
        });
        if stale {
            self.results.warnings.push(StoreWarning::Uncommitted {
                path: self.path.to_path_buf(),
                line: lineno,
                measurements: self.pending.len(),
            });
            self.pending.clear();
        }
        self.pending.push(m);
    }

    /// An execution record: commits its pending measurements (handed to `on_commit`), unless
    /// it is recorded twice (an error).
    fn execution(
        &mut self,
        mut e: Execution,
        lineno: usize,
        on_commit: &mut impl FnMut(&Execution, Vec<Measurement>),
    ) -> Result<()> {
        self.admit(&e, lineno)?;
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|m| m.key_ref() == e.key_ref());
        if !others.is_empty() {
            self.results.warnings.push(StoreWarning::WithoutExecution {
                path: self.path.to_path_buf(),
                line: lineno,
                measurements: others.len(),
            });
        }
        if mine.iter().any(|m| !m.value.is_finite()) {
            self.results.warnings.push(StoreWarning::NullValue {
                path: self.path.to_path_buf(),
                line: lineno,
                execution: e.execution,
                program: e.program.clone(),
                binary: e.binary.clone(),
            });
            e.status = ExecutionStatus::Metric;
            e.output_tail = Some(
                "a measured value was not finite (stored as null by an older layoutrand)"
                    .to_string(),
            );
            on_commit(&e, Vec::new());
        } else {
            on_commit(&e, mine);
        }
        if self.options.keep_executions {
            self.results.executions.push(e);
        }
        Ok(())
    }

    /// Why execution record `e` on line `lineno` is refused, if it is: a name holding a
    /// control character, more executions than a run plans, or an execution recorded twice.
    fn admit(&mut self, e: &Execution, lineno: usize) -> Result<()> {
        let path = self.path.display();
        if [
            Some(e.program.as_str()),
            Some(e.binary.as_str()),
            e.variant.as_deref(),
        ]
        .into_iter()
        .flatten()
        .any(crate::printable::has_control)
        {
            bail!(
                "{path}:{lineno}: an execution record of {:?} {:?} is refused: a name holds a \
                 control character or a newline",
                e.program,
                e.binary
            );
        }
        if self.committed_at.len() as u64 >= self.options.max_executions {
            bail!(
                "{path}:{lineno}: more than {} executions, the most one run may plan: not a \
                 store layoutrand wrote",
                self.options.max_executions
            );
        }
        if let Some(first) = self.committed_at.insert(e.key_ref(), lineno) {
            bail!(
                "{path}:{lineno}: execution {} of {} {}{} is recorded twice (first on line \
                 {first}): the store was edited or concatenated; `layoutrand repair {}` \
                 keeps the first and moves this file aside",
                e.execution,
                e.program,
                e.binary,
                e.variant
                    .as_deref()
                    .map(|v| format!(" ({v})"))
                    .unwrap_or_default(),
                store_dir_of(self.path)
            );
        }
        Ok(())
    }
}

/// What [`repair_store`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    /// Lines of the damaged store.
    pub lines: usize,
    /// Lines kept in the new store.
    pub kept: usize,
    /// Each line left out, with why (`path:line: reason`).
    pub dropped: Vec<String>,
    /// Where the damaged original now is (`None` when nothing needed repair).
    pub moved_to: Option<PathBuf>,
}

/// Repairs `dir/results.jsonl` after it was damaged (a line edited, truncated in the middle
/// or doubled by a copy): every line that is a valid record and not the second copy of an
/// execution (nor a measurement of that copy) is kept, in order, in a new store written
/// atomically; the original is moved aside to `results.jsonl.damaged-N` (the first free N),
/// so nothing is lost. The new store then reads like any other: measurements whose
/// execution record was damaged are uncommitted and dropped by the reader, and `run
/// --resume` runs that execution again. Holds the store's lock, like a writer.
pub fn repair_store(dir: &Path) -> Result<Repair> {
    let path = dir.join(RESULTS_FILE);
    let root = ExperimentDir::open(dir)?;
    let lock = lock_for_repair(&root)?;
    let read = repair_lines(&lock, &path)?;
    refuse_newer_schema(&read, &path)?;
    let (lines, kept, dropped) = valid_lines(&read, &path);
    refuse_lost_header(&read, &dropped, &path)?;
    if dropped.is_empty() {
        return Ok(Repair {
            lines,
            kept: kept.len(),
            dropped,
            moved_to: None,
        });
    }
    let mut aside = None;
    for n in 1.. {
        let name = format!("{RESULTS_FILE}.damaged-{n}");
        if root.entry(&name)? == Entry::Missing {
            aside = Some(dir.join(name));
            break;
        }
    }
    let aside = aside.expect("a free name");
    // The original is kept under a new name (a hard link: both names exist until the
    // repaired store replaces the old one atomically).
    root.link_or_copy_in(&path, root.rel(&aside)?)
        .with_context(|| format!("cannot keep the damaged store as {}", aside.display()))?;
    crate::files::write_atomically_with(&path, |w| {
        for line in &kept {
            w.write_all(line)?;
        }
        Ok(())
    })?;
    // The repaired store must read as a valid one.
    parse_results(&root.read(RESULTS_FILE, u64::MAX)?, &path)
        .with_context(|| format!("the repaired {} does not read (a bug)", path.display()))?;
    Ok(Repair {
        lines,
        kept: kept.len(),
        dropped,
        moved_to: Some(aside),
    })
}

/// One line of a store read for repair.
enum RepairLine {
    /// Its bytes, with its newline unless it is a torn last line.
    Held(Vec<u8>),
    /// A line longer than [`MAX_LINE_BYTES`]: its length without the newline, and whether
    /// it has one. Never held whole (issue 54: repair read a store with a 2 GB line whole).
    TooLong(u64, bool),
}

impl RepairLine {
    /// Whether the line is blank (only whitespace); a line too long is not.
    fn is_blank(&self) -> bool {
        match self {
            RepairLine::Held(bytes) => bytes.iter().all(u8::is_ascii_whitespace),
            RepairLine::TooLong(..) => false,
        }
    }
}

/// The lines of the store `path`, read one at a time: a line over [`MAX_LINE_BYTES`] is
/// skipped as the reader passes it, so repair holds at most that much of it.
fn repair_lines(store: &File, path: &Path) -> Result<Vec<RepairLine>> {
    use crate::files::line::{read_bounded_line, skip_rest_of_line, BoundedLine};
    let cannot = || format!("cannot read {}", path.display());
    let mut reader = BufReader::new(from_start(store).with_context(cannot)?);
    let mut lines = Vec::new();
    let mut line = Vec::new();
    loop {
        match read_bounded_line(&mut reader, &mut line, MAX_LINE_BYTES).with_context(cannot)? {
            BoundedLine::End => return Ok(lines),
            BoundedLine::Read => lines.push(RepairLine::Held(std::mem::take(&mut line))),
            BoundedLine::TooLong => {
                let (rest, complete) = skip_rest_of_line(&mut reader).with_context(cannot)?;
                lines.push(RepairLine::TooLong(line.len() as u64 + rest, complete));
            }
        }
    }
}

/// Refuses to repair a store whose header is of a newer schema than this layoutrand reads:
/// every line of it would look malformed here, and the repair would drop its header.
fn refuse_newer_schema(lines: &[RepairLine], path: &Path) -> Result<()> {
    /// The two fields of a header line that decide.
    #[derive(serde::Deserialize)]
    struct Head {
        record: String,
        schema: Option<u64>,
    }
    let first = lines.iter().find(|l| !l.is_blank()).and_then(|l| match l {
        RepairLine::Held(bytes) => Some(bytes.as_slice()),
        RepairLine::TooLong(..) => None,
    });
    if let Some(Ok(head)) = first.map(serde_json::from_slice::<Head>) {
        if head.record == "header" && head.schema.is_some_and(|s| s > u64::from(RESULTS_SCHEMA)) {
            bail!(
                "{} is a store of schema {} but this layoutrand ({}) reads up to {}: not \
                 repaired (upgrade layoutrand)",
                path.display(),
                head.schema.unwrap_or_default(),
                env!("CARGO_PKG_VERSION"),
                RESULTS_SCHEMA
            );
        }
    }
    Ok(())
}

/// The store file of `root` opened (a regular file, no link) and locked as a writer locks
/// it, so no run appends while it is repaired; refused when a run holds the lock.
fn lock_for_repair(root: &ExperimentDir) -> Result<Flock<File>> {
    let path = root.join(RESULTS_FILE);
    let file = root.open_regular(RESULTS_FILE).context("not repaired")?;
    lock_exclusive(file).map_err(|_| {
        anyhow::anyhow!(
            "another layoutrand run is writing to {}: stop it before repairing the store",
            path.display()
        )
    })
}

/// A second descriptor of the open store `file`, read from its first byte: the store is read
/// through the descriptor its opener checked, never reopened by name.
fn from_start(file: &File) -> std::io::Result<File> {
    use std::io::{Seek, SeekFrom};
    let mut read = file.try_clone()?;
    read.seek(SeekFrom::Start(0))?;
    Ok(read)
}

/// The store's lock: flock(2), exclusive, without waiting; held while the guard lives (a
/// crashed holder's lock goes with its descriptor). `Err` gives the file back when another
/// process holds it.
fn lock_exclusive(file: File) -> std::result::Result<Flock<File>, File> {
    Flock::lock(file, FlockArg::LockExclusiveNonblock).map_err(|(file, _)| file)
}

/// The lines of the damaged store `bytes` (read from `path`): how many, those kept (in
/// order), and each one left out with why (see [`repair_store`]). The first execution record
/// after a malformed line is left out with its measurements (unless measurements of another
/// execution come just before the damage, whose line it then was): the damaged line may have
/// been one of them, and an execution kept without it would have fewer values of one metric than
/// of the others (and `run --resume`, which runs only what has no record, would never
/// complete it).
/// Refuses a repair that would drop the store's header (its first line that is not blank,
/// e.g. one with a field out of range): the repaired store would have no header, and every
/// measurement of the run would go with it (issue 54, attack 7). The header is the user's to
/// mend by hand; nothing is changed.
fn refuse_lost_header(lines: &[RepairLine], dropped: &[String], path: &Path) -> Result<()> {
    let first = lines.iter().position(|l| !l.is_blank());
    let Some(first) = first else {
        return Ok(());
    };
    let at = format!("{}:{}: ", path.display(), first + 1);
    if let Some(why) = dropped.iter().find(|d| d.starts_with(&at)) {
        bail!(
            "{why}\nrepair refused, nothing changed: that line is the store's header, and a store \
             without one keeps none of its measurements; mend the header by hand (it is JSON, \
             one line) and run repair again"
        );
    }
    Ok(())
}

fn valid_lines<'b>(read: &'b [RepairLine], path: &Path) -> (usize, Vec<&'b [u8]>, Vec<String>) {
    let mut kept: Vec<&[u8]> = Vec::new();
    let mut dropped = Vec::new();
    let mut seen: std::collections::HashSet<crate::files::results::ExecutionKey> =
        std::collections::HashSet::new();
    let mut header_seen = false;
    // A malformed line since the last execution record, with the key of the measurement
    // before it (if any): the line may have been one of the next execution's measurements,
    // and that execution then goes whole (see `valid_lines`' doc).
    let mut damaged_after: Option<Option<crate::files::results::ExecutionKey>> = None;
    // Measurements waiting for their execution record: (index in `kept`, key).
    let mut pending: Vec<(usize, crate::files::results::ExecutionKey)> = Vec::new();
    let mut lines = 0;
    for (i, read_line) in read.iter().enumerate() {
        lines += 1;
        let lineno = i + 1;
        let line: &[u8] = match read_line {
            RepairLine::Held(bytes) => bytes,
            &RepairLine::TooLong(length, complete) => {
                let why = oversized_line(length, complete);
                dropped.push(format!("{}:{lineno}: {why}", path.display()));
                if complete && damaged_after.is_none() {
                    damaged_after = Some(pending.last().map(|(_, k)| k.clone()));
                }
                continue;
            }
        };
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        if body.iter().all(u8::is_ascii_whitespace) {
            // Every reader refuses a blank first line (the header's place): left out.
            if lineno == 1 {
                dropped.push(format!("{}:1: a blank first line", path.display()));
            }
            continue;
        }
        let mut drop_line =
            |why: String| dropped.push(format!("{}:{lineno}: {why}", path.display()));
        if line.last() != Some(&b'\n') {
            drop_line("a torn last line".into());
            continue;
        }
        let record: Record = match record_to_keep(body) {
            Ok(r) => r,
            Err(why) => {
                drop_line(why);
                if damaged_after.is_none() {
                    damaged_after = Some(pending.last().map(|(_, k)| k.clone()));
                }
                continue;
            }
        };
        match &record {
            // A header below other records would make the repaired store unreadable: every
            // reader takes the header from the first line only.
            Record::Header(h) if header_seen || h.schema > RESULTS_SCHEMA || !kept.is_empty() => {
                drop_line(
                    "a second header, one of a newer schema, or one after other records (a \
                     store's header is its first line)"
                        .into(),
                );
                continue;
            }
            Record::Header(_) => header_seen = true,
            Record::Measurement(m) => pending.push((kept.len(), m.key())),
            Record::Execution(e) => {
                let waiting = std::mem::take(&mut pending);
                let damage = damaged_after.take();
                if let Some(why) = settle_execution(e, waiting, damage, &mut seen, &mut kept) {
                    drop_line(why);
                    continue;
                }
            }
            Record::Extension(_) | Record::Finish(_) => {}
        }
        kept.push(line);
    }
    (lines, kept, dropped)
}

/// Why a line [`repair_lines`] did not hold is left out: over the line limit (`complete`)
/// or torn off at the end of the file.
fn oversized_line(length: u64, complete: bool) -> String {
    if complete {
        format!(
            "a line longer than {} (of {length} bytes)",
            size_in_words(MAX_LINE_BYTES)
        )
    } else {
        "a torn last line".into()
    }
}

/// Settles the execution record `e` of a damaged store against the measurements waiting
/// for it (`waiting`: their places in `kept` and keys) and the damage since the last
/// execution record (`damage`, see [`why_left_out`]): `None` when it is kept; else why it
/// is left out, its measurements taken out of `kept` with it (of a second copy, the first
/// is the one kept).
fn settle_execution(
    e: &crate::files::results::Execution,
    waiting: Vec<(usize, crate::files::results::ExecutionKey)>,
    damage: Option<Option<crate::files::results::ExecutionKey>>,
    seen: &mut std::collections::HashSet<crate::files::results::ExecutionKey>,
    kept: &mut Vec<&[u8]>,
) -> Option<String> {
    let key = e.key();
    let mine: Vec<usize> = waiting
        .iter()
        .filter(|(_, k)| *k == key)
        .map(|(at, _)| *at)
        .collect();
    let (what, why) = why_left_out(damage, key, seen)?;
    let count = mine.len();
    for at in mine.into_iter().rev() {
        kept.remove(at);
    }
    Some(format!(
        "execution {} of {} {} {what} ({count} measurement(s) with it){why}",
        e.execution, e.program, e.binary
    ))
}

/// The record of a complete line `body` of a damaged store, or why [`valid_lines`] leaves
/// it out. (A line over [`MAX_LINE_BYTES`], which every reader refuses, never gets here:
/// [`repair_lines`] passes it without holding it.)
fn record_to_keep(body: &[u8]) -> std::result::Result<Record, String> {
    serde_json::from_slice(body).map_err(|e| format!("not a layoutrand result record: {e}"))
}

/// Why [`valid_lines`] leaves out the execution of `key` (what, then why), if it does: a
/// damaged line came after the last execution record (`damaged_after`, with the key of the
/// measurement just before it) and may have been one of its measurements, or it is a second
/// copy (`seen` holds the keys of those kept).
fn why_left_out(
    damaged_after: Option<Option<crate::files::results::ExecutionKey>>,
    key: crate::files::results::ExecutionKey,
    seen: &mut std::collections::HashSet<crate::files::results::ExecutionKey>,
) -> Option<(&'static str, &'static str)> {
    // Measurements of another execution just before the damage: the damaged line was theirs
    // (their execution record, or one of them), not this one's.
    let damaged_mine = damaged_after.is_some_and(|before| before.is_none_or(|b| b == key));
    if damaged_mine {
        Some((
            "left out whole",
            ": a damaged line before it may have been one of its measurements, and `run \
             --resume` runs it again",
        ))
    } else if !seen.insert(key) {
        Some(("recorded a second time", ""))
    } else {
        None
    }
}

/// Appends records to a store, one execution at a time.
#[derive(Debug)]
pub struct StoreWriter {
    file: Flock<File>,
    path: PathBuf,
}

impl StoreWriter {
    /// Opens `dir/results.jsonl` for appending, creating it if needed.
    ///
    /// If the file ends in anything uncommitted from an earlier crash (a torn line, the
    /// measurements of an execution whose record never came), that tail is cut off first, so
    /// new records start on a line of their own and no stale measurement sits beside the
    /// execution that is run again.
    pub fn open(dir: &Path) -> Result<StoreWriter> {
        let path = dir.join(RESULTS_FILE);
        // A store that is a symbolic link is refused: appending would write wherever it
        // points (a received experiment directory is data, never a key).
        let file = crate::files::confined::open_append_no_follow(&path, "the store")?;
        // One writer per store, and the lock comes before any repair: two runners appending
        // to one store would each run the executions the other has not committed yet.
        let file = lock_exclusive(file).map_err(|_| {
            anyhow::anyhow!(
                "another layoutrand run is writing to {} (it holds the store's lock): wait for it to finish or stop it, then resume",
                path.display()
            )
        })?;
        let reader = from_start(&file)
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .with_context(|| format!("cannot read {} to check it", path.display()))?;
        let (keep, len) = committed_length(reader)
            .with_context(|| format!("cannot read {} to check it", path.display()))?;
        if keep < len {
            file.set_len(keep)
                .with_context(|| format!("cannot repair {}", path.display()))?;
            file.sync_all()?;
        }
        Ok(StoreWriter { file, path })
    }

    /// Writes the store's header (its first line) and signs it as this user's
    /// ([`crate::files::trust`]): a resumed run reruns the command, cwd and environment it
    /// holds only while that MAC verifies.
    pub(crate) fn append_header(&mut self, header: Header) -> Result<()> {
        let line = serde_json::to_vec(&Record::Header(header))?;
        // Signed first: a crash after the header is written leaves it verifying.
        crate::files::trust::sign_or_warn(
            self.path.parent().unwrap_or(Path::new(".")),
            Path::new(RESULTS_FILE),
            crate::files::trust::Kind::StoreHeader,
            &line,
        );
        self.append_line(&line)
    }

    fn append_line(&mut self, line: &[u8]) -> Result<()> {
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line);
        buf.push(b'\n');
        self.write_durably(&buf)
    }

    /// Writes `records` with one `write` and makes them durable with `fsync` before
    /// returning.
    pub fn append(&mut self, records: &[Record]) -> Result<()> {
        let mut buf = Vec::new();
        for r in records {
            serde_json::to_writer(&mut buf, r)?;
            buf.push(b'\n');
        }
        self.write_durably(&buf)
    }

    fn write_durably(&mut self, buf: &[u8]) -> Result<()> {
        self.file
            .write_all(buf)
            .with_context(|| format!("cannot write to {}", self.path.display()))?;
        self.file
            .sync_data()
            .with_context(|| format!("cannot sync {}", self.path.display()))?;
        Ok(())
    }
}

/// The length of the store's committed prefix, and the store's length: everything up to the
/// last complete header, execution or extension line is committed. What follows (a torn line,
/// measurements of an execution that never finished) is cut before appending, so that a
/// resumed run never leaves stale measurements beside the ones of the execution it runs again.
/// Streams the file and reads only each line's `record` tag.
fn committed_length(mut reader: impl BufRead) -> std::io::Result<(u64, u64)> {
    /// Just the tag of a record line.
    #[derive(serde::Deserialize)]
    struct Tag {
        record: String,
    }
    let mut committed = 0;
    let mut end = 0;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        end += read as u64;
        if line.last() != Some(&b'\n') {
            break; // a torn last line
        }
        match serde_json::from_slice::<Tag>(&line[..line.len() - 1]) {
            Ok(tag) if tag.record == "measurement" => {}
            // Anything else, including a malformed complete line (not ours to cut: the reader
            // reports it), ends the committed prefix here.
            _ => committed = end,
        }
    }
    Ok((committed, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::results::fixtures::{execution as fixture_execution, measurement};
    use std::fs::OpenOptions;

    fn m(binary: &str, execution: u32, iteration: u32, value: f64) -> Record {
        Record::Measurement(measurement(binary, execution, iteration, value))
    }

    #[test]
    fn stored_values_read_back_bit_for_bit() {
        // 1.1927248224440479 is the shortest text of its double; serde_json's default parser
        // read it one ULP off (as 1.192724822444048), which the `float_roundtrip` feature
        // fixes: a value read from a store must be the value measured.
        let x = 1.1927248224440479_f64;
        let text = serde_json::to_string(&x).unwrap();
        assert_eq!(
            serde_json::from_str::<f64>(&text).unwrap().to_bits(),
            x.to_bits()
        );
        let r = m("seed-1", 0, 0, x);
        let line = serde_json::to_string(&r).unwrap();
        match serde_json::from_str::<Record>(&line).unwrap() {
            Record::Measurement(back) => assert_eq!(back.value.to_bits(), x.to_bits()),
            other => panic!("read back as {other:?}"),
        }
    }

    fn e(binary: &str, execution: u32) -> Record {
        Record::Execution(Execution {
            env_pad: 16,
            ..fixture_execution(binary, execution, 0)
        })
    }

    #[test]
    fn committed_measurements_survive_and_torn_tail_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = StoreWriter::open(dir.path()).unwrap();
        w.append(&[
            m("baseline", 0, 0, 1.0),
            m("baseline", 0, 1, 2.0),
            e("baseline", 0),
        ])
        .unwrap();
        w.append(&[m("seed-1", 0, 0, 3.0)]).unwrap(); // never committed
        drop(w);
        // Simulate a torn write.
        let path = dir.path().join(RESULTS_FILE);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"record\":\"measure").unwrap();
        drop(f);
        let r = read_file(dir.path()).unwrap();
        assert_eq!(r.measurements.len(), 2);
        assert_eq!(r.executions.len(), 1);
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
        assert!(
            matches!(r.warnings[0], StoreWarning::TornLine { .. }),
            "{:?}",
            r.warnings
        );

        // Re-opening repairs the torn line; appending then works.
        let mut w = StoreWriter::open(dir.path()).unwrap();
        w.append(&[m("seed-1", 0, 0, 4.0), e("seed-1", 0)]).unwrap();
        let r = read_file(dir.path()).unwrap();
        assert_eq!(r.executions.len(), 2);
        assert_eq!(r.measurements.last().unwrap().value, 4.0);
    }

    #[test]
    fn header_without_the_additive_fields_still_reads() {
        // A schema-1 header as the first writers produced it, before `toolchain`, `cwd`,
        // `environment` and `pad_variable` existed.
        let line = r#"{"record":"header","schema":1,"tool_version":"0.1.0","command":["{bin}"],"programs":["p"],"variants":["baseline"],"metric":"wall","executions":2,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null},"started_unix":0.0}"#;
        let r = parse_results(format!("{line}\n").as_bytes(), Path::new("r")).unwrap();
        let h = r.header.unwrap();
        assert_eq!(h.schedule_seed, 7);
        assert!(h.toolchain.is_empty() && h.environment.is_empty() && h.cwd.is_none());
        // Schema 1 called the binary labels `variants`.
        assert_eq!(h.binaries, ["baseline"]);
        assert!(h.variants.is_empty());
    }

    #[test]
    fn a_schema_1_store_reads_its_variant_labels_as_binaries() {
        // Lines as layoutrand wrote them before schema 2 (`variant` was the binary's label),
        // then one execution appended by a resume with schema 2 (`binary`, and a `variant`
        // that now names a version of the program).
        let text = [
            r#"{"record":"header","schema":1,"tool_version":"0.1.0","command":["{bin}"],"programs":["p"],"variants":["baseline","seed-1"],"metric":"wall","executions":2,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null},"started_unix":0.0}"#,
            r#"{"record":"measurement","program":"p","variant":"seed-1","seed":1,"execution":0,"iteration":0,"warmup":false,"metric":"wall","value":5.0,"unit":"ns"}"#,
            r#"{"record":"execution","program":"p","variant":"seed-1","seed":1,"execution":0,"schedule_index":0,"env_pad":0,"start_unix":0.0,"wall_ns":1,"status":"ok","exit_code":0,"signal":null}"#,
            r#"{"record":"extension","variants":["seed-2"],"added_unix":1.0}"#,
            r#"{"record":"measurement","program":"p","binary":"seed-2","variant":"O3","seed":2,"execution":0,"iteration":0,"warmup":false,"metric":"wall","value":6.0,"unit":"ns"}"#,
            r#"{"record":"execution","program":"p","binary":"seed-2","variant":"O3","seed":2,"execution":0,"schedule_index":1,"env_pad":0,"start_unix":0.0,"wall_ns":1,"status":"ok","exit_code":0,"signal":null}"#,
        ]
        .join("\n")
            + "\n";
        let r = parse_results(text.as_bytes(), Path::new("r")).unwrap();
        assert_eq!(r.header.as_ref().unwrap().binaries, ["baseline", "seed-1"]);
        assert!(r.header.as_ref().unwrap().variants.is_empty());
        assert_eq!(r.planned_binaries(), ["baseline", "seed-1", "seed-2"]);
        let labels: Vec<(&str, Option<&str>)> = r
            .executions
            .iter()
            .map(|e| (e.binary.as_str(), e.variant.as_deref()))
            .collect();
        assert_eq!(labels, [("seed-1", None), ("seed-2", Some("O3"))]);
        let labels: Vec<(&str, Option<&str>)> = r
            .measurements
            .iter()
            .map(|m| (m.binary.as_str(), m.variant.as_deref()))
            .collect();
        assert_eq!(labels, [("seed-1", None), ("seed-2", Some("O3"))]);

        // A record with neither is refused, naming what is missing.
        let bad = r#"{"record":"execution","program":"p","seed":1,"execution":0,"schedule_index":0,"env_pad":0,"start_unix":0.0,"wall_ns":1,"status":"ok","exit_code":0,"signal":null}"#;
        let err = parse_results(format!("{bad}\n").as_bytes(), Path::new("r")).unwrap_err();
        insta::assert_snapshot!(format!("{err:#}"));
    }

    #[test]
    fn an_execution_run_again_after_a_crash_keeps_only_its_new_measurements() {
        // A crash after the measurements of seed-1 #0 reached the disk but before their
        // execution record; the resumed run executes seed-1 #0 again.
        let mut text = Vec::new();
        for r in [
            m("baseline", 0, 0, 1.0),
            e("baseline", 0),
            m("seed-1", 0, 0, 9.0),
            m("seed-1", 0, 1, 9.0),
            m("seed-1", 0, 0, 3.0),
            m("seed-1", 0, 1, 4.0),
            e("seed-1", 0),
        ] {
            serde_json::to_writer(&mut text, &r).unwrap();
            text.push(b'\n');
        }
        let r = parse_results(&text, Path::new("results.jsonl")).unwrap();
        let values: Vec<f64> = r.measurements.iter().map(|m| m.value).collect();
        assert_eq!(values, [1.0, 3.0, 4.0]);
        assert!(
            matches!(
                r.warnings.as_slice(),
                [StoreWarning::Uncommitted {
                    measurements: 2,
                    ..
                }]
            ),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn reopening_cuts_uncommitted_measurements() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = StoreWriter::open(dir.path()).unwrap();
        w.append(&[m("baseline", 0, 0, 1.0), e("baseline", 0)])
            .unwrap();
        w.append(&[m("seed-1", 0, 0, 9.0)]).unwrap();
        drop(w);
        let mut w = StoreWriter::open(dir.path()).unwrap();
        w.append(&[m("seed-1", 0, 0, 3.0), e("seed-1", 0)]).unwrap();
        // The file holds the four committed records and not the cut measurement.
        let text = std::fs::read_to_string(dir.path().join(RESULTS_FILE)).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        let r = read_file(dir.path()).unwrap();
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let values: Vec<f64> = r.measurements.iter().map(|m| m.value).collect();
        assert_eq!(values, [1.0, 3.0]);
    }

    #[test]
    fn a_second_writer_is_refused_while_the_first_is_open() {
        let dir = tempfile::tempdir().unwrap();
        let first = StoreWriter::open(dir.path()).unwrap();
        let err = StoreWriter::open(dir.path()).unwrap_err().to_string();
        insta::assert_snapshot!(err.replace(&dir.path().display().to_string(), "[dir]"));
        drop(first);
        StoreWriter::open(dir.path()).unwrap();
    }

    #[test]
    fn malformed_middle_line_is_an_error_with_its_line_number() {
        let bytes = b"{\"record\":\"execution\"}\n{nonsense}\n";
        let err = parse_results(bytes, Path::new("x/results.jsonl")).unwrap_err();
        insta::assert_snapshot!(format!("{err:#}"));
    }

    /// The store's lines with `records` one per line, and the scan of them under `options`.
    fn scan_records(records: &[Record], options: ScanOptions) -> Result<Results> {
        let mut text = Vec::new();
        for r in records {
            serde_json::to_writer(&mut text, r).unwrap();
            text.push(b'\n');
        }
        scan(&text[..], Path::new("d/results.jsonl"), options, |_, _| {})
    }

    #[test]
    fn an_overlong_line_is_refused_naming_its_line_and_the_limit() {
        let records = [m("baseline", 0, 0, 1.0), e("baseline", 0)];
        let longest = records
            .iter()
            .map(|r| serde_json::to_vec(r).unwrap().len())
            .max()
            .unwrap();
        let at = |max_line| ScanOptions {
            max_line,
            ..ScanOptions::KEEP
        };
        assert_eq!(
            scan_records(&records, at(longest))
                .unwrap()
                .executions
                .len(),
            1
        );
        let err = scan_records(&records, at(longest - 1)).unwrap_err();
        let line = 1 + records
            .iter()
            .position(|r| serde_json::to_vec(r).unwrap().len() == longest)
            .unwrap();
        let text = format!("{err:#}");
        assert_eq!(
            text,
            format!(
                "d/results.jsonl:{line}: a line longer than {} bytes is not a layoutrand result \
                 record (none is that long); the store is left as it is: `layoutrand repair d` \
                 keeps every valid record in a new store and moves this file aside",
                longest - 1
            )
        );
        assert_eq!(size_in_words(MAX_LINE_BYTES), "64 MiB");
    }

    #[test]
    fn more_executions_than_a_run_may_plan_are_refused_and_resume_keeps_no_records() {
        let records: Vec<Record> = (0..4)
            .flat_map(|i| [m("seed-1", i, 0, 1.0), e("seed-1", i)])
            .collect();
        let at = |max_executions| ScanOptions {
            max_executions,
            ..ScanOptions::KEEP
        };
        assert_eq!(scan_records(&records, at(4)).unwrap().executions.len(), 4);
        let err = format!("{:#}", scan_records(&records, at(3)).unwrap_err());
        insta::assert_snapshot!(err);
        // The lean reading hands every execution over and keeps none.
        let lean = ScanOptions {
            keep_executions: false,
            ..ScanOptions::KEEP
        };
        let mut handed = 0;
        let text: Vec<u8> = records
            .iter()
            .flat_map(|r| [serde_json::to_vec(r).unwrap(), b"\n".to_vec()].concat())
            .collect();
        let r = scan(&text[..], Path::new("r"), lean, |_, mine| {
            handed += mine.len()
        })
        .unwrap();
        assert_eq!((handed, r.executions.len()), (4, 0));
    }

    #[test]
    fn deeply_nested_brackets_are_refused_without_exhausting_the_stack() {
        // serde_json stops at 128 levels; 10^6 would overflow the stack of a recursive
        // parser without that limit.
        // Inside an object before its tag, where the tagged record buffers what it reads.
        let text = format!("{{\"x\":{}\n{{}}\n", "[".repeat(1_000_000));
        let err = format!(
            "{:#}",
            parse_results(text.as_bytes(), Path::new("r")).unwrap_err()
        );
        insta::assert_snapshot!(err);
    }

    /// A schema-1 header line (as in `header_without_the_additive_fields_still_reads`), with
    /// `command` as its command.
    fn header_line(command: &str) -> String {
        format!(
            r#"{{"record":"header","schema":1,"tool_version":"0.1.0","command":["{command}"],"programs":["p"],"variants":["baseline"],"metric":"wall","executions":2,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null}},"started_unix":0.0}}"#
        )
    }

    /// Issue 54, attack 1: the header a reader returns is always the line the MAC check
    /// reads (`read_header_line`), whatever comes before it. A blank first line, or a header
    /// below another line, is refused by both, naming the file and the line.
    #[test]
    fn the_header_read_is_exactly_the_line_its_mac_covers() {
        let own = header_line("own");
        let evil = header_line("evil");
        let exec = r#"{"record":"execution","program":"p","binary":"baseline","execution":0,"schedule_index":0,"env_pad":0,"start_unix":0.0,"wall_ns":1,"status":"ok","exit_code":0,"signal":null}"#;
        // Each refused store with whether its first line is blank (which the MAC check
        // refuses too); the messages are pinned below, the headers shortened.
        let refused: [(String, bool); 7] = [
            (format!("\n{evil}\n"), true),
            (format!(" \t\n{evil}\n"), true),
            (format!("\r\n{evil}\n"), true),
            ("\n".to_string(), true),
            (format!("{exec}\n{evil}\n"), false),
            (format!("{own}\n{evil}\n"), false),
            (format!("{{}}\n{evil}\n"), false),
        ];
        let path = Path::new("s/results.jsonl");
        let mut messages = String::new();
        for (text, blank) in &refused {
            let shown = format!(
                "{:?}",
                text.replace(&own, "OWN")
                    .replace(&evil, "EVIL")
                    .replace(exec, "EXEC")
            );
            let err = format!("{:#}", parse_results(text.as_bytes(), path).unwrap_err());
            messages.push_str(&format!("{shown}\n  read: {err}\n"));
            if *blank {
                let err = crate::files::line::read_header_line(text.as_bytes(), path).unwrap_err();
                messages.push_str(&format!("  header line: {err:#}\n"));
            }
        }
        insta::assert_snapshot!(messages);
        // What is read: the first line's bytes, with or without a newline or a carriage
        // return, whatever follows; nothing for an empty store.
        for text in [
            format!("{own}\n"),
            own.clone(),
            format!("{own}\r\n{exec}\n\n"),
            String::new(),
        ] {
            let read = parse_results(text.as_bytes(), path).unwrap().header;
            let signed = crate::files::line::read_header_line(text.as_bytes(), path).unwrap();
            let checked = match serde_json::from_slice::<Record>(&signed) {
                Ok(Record::Header(h)) => Some(h),
                _ => None,
            };
            assert_eq!(
                serde_json::to_string(&read).unwrap(),
                serde_json::to_string(&checked).unwrap(),
                "{text:?}"
            );
        }
    }

    /// A store refused for its blank first line, or a header below another record, is
    /// repaired into one every reader reads (the header kept when it can be).
    #[test]
    fn repair_takes_a_blank_first_line_out() {
        let own = header_line("own");
        let exec = r#"{"record":"execution","program":"p","binary":"baseline","execution":0,"schedule_index":0,"env_pad":0,"start_unix":0.0,"wall_ns":1,"status":"ok","exit_code":0,"signal":null}"#;
        for (text, header_kept) in [
            (format!("\n{own}\n{exec}\n"), true),
            (format!("{exec}\n{own}\n"), false),
        ] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(RESULTS_FILE), &text).unwrap();
            assert!(read_file(dir.path()).is_err());
            let repair = repair_store(dir.path()).unwrap();
            assert_eq!(repair.dropped.len(), 1, "{:?}", repair.dropped);
            let r = read_file(dir.path()).unwrap();
            assert_eq!(r.header.is_some(), header_kept, "{text:?}");
            assert_eq!(r.executions.len(), 1);
        }
    }
}
