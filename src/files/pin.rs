//! A pin file (`layoutrand pin` writes it, `build --pin FILE` reads it): the placement a
//! controlled layout gives each hot function of a program, kept in the user's repository.
//!
//! A pin fixes where each named function starts *modulo the cache's set period* (the number
//! of sets times the line size, at least a page): its offset within a cache line, a 32-byte
//! window and a page, and the instruction-cache sets its lines map to, so every placement
//! feature `explain` screens (`crate::layout::features`) and every set conflict among the
//! pinned functions is the same in every seed. The seeds still randomise everything else:
//! the order of all functions, the pinned ones included, and so their absolute addresses.
//! It is data only: names and numbers, which move code by filler and never run anything.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// Version of the pin file's format.
pub const PIN_SCHEMA: u32 = 1;

/// The largest set period a pin accepts: a function may get up to this much filler in front
/// of it, so a larger period would bloat the program by megabytes.
pub const MAX_PERIOD: u64 = 1 << 16;

/// The most functions one program's pin places.
pub const MAX_PINNED: usize = 1000;

/// The largest pin file read (bytes).
const MAX_PIN_BYTES: u64 = 4 << 20;

/// A pin file: one entry per pinned program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinFile {
    /// [`PIN_SCHEMA`].
    pub schema: u32,
    /// The programs pinned, each once.
    pub programs: Vec<ProgramPin>,
}

/// The placement of one program's hot functions, or one shared library's of the build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgramPin {
    /// The program's (or library's) name as `build` records it.
    pub program: String,
    /// The period (bytes) the offsets are taken modulo: the instruction cache's sets times
    /// its line size, at least a page; a power of two.
    pub period: u64,
    /// The instruction cache's line size (bytes), a power of two at most the period: each
    /// pinned function gets lines of its own (filler, not another function's code, in the
    /// rest of its first and last line), so which functions share a line with it cannot vary
    /// between seeds. Pins written before it was recorded read as 64.
    #[serde(default = "default_line")]
    pub line: u64,
    /// The pinned functions, hottest first.
    pub functions: Vec<PinnedFunction>,
    /// Where the placement was taken from.
    pub source: PinSource,
}

/// The line size of a pin that does not say it: every x86 instruction cache's, and
/// cachegrind's default.
fn default_line() -> u64 {
    64
}

/// One pinned function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinnedFunction {
    /// Its symbol name.
    pub name: String,
    /// The source file its symbol follows in `.symtab` (`STT_FILE`), when several functions
    /// of the program have its name (static functions of several files, dash's two
    /// `primary`s): the name and the file then say which; absent for a unique name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Where it starts, modulo the period (bytes).
    pub offset: u64,
    /// Its size in the binary the placement was taken from (bytes): a build whose function
    /// differs in size spans other lines at the same offset, which `build` says.
    pub size: u64,
}

impl PinnedFunction {
    /// Whether `f`, a function of a linked binary, is this one: its name, and its file when
    /// the pin names one.
    pub fn is(&self, f: &crate::layout::binary::Function) -> bool {
        f.name == self.name && (self.file.is_none() || f.file == self.file)
    }

    /// How a message names it: `name`, or `name (file)` when the name is shared.
    pub fn label(&self) -> String {
        crate::layout::binary::qualified_name(&self.name, self.file.as_deref())
    }
}

/// The layout a pin copies: the fastest of an experiment's random layouts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinSource {
    /// The binary whose placement is copied (`seed-N`).
    pub binary: String,
    /// The metric it was fastest in.
    pub metric: String,
    /// The metric's unit.
    pub unit: String,
    /// Its mean of the metric.
    pub mean: f64,
    /// The median of the random layouts' means (the typical layout the pin must not be
    /// slower than).
    pub median: f64,
    /// How many random layouts it was chosen from.
    pub layouts: usize,
    /// The share the pinned functions execute of the instructions of the explained program's
    /// own functions and of the build's libraries it loads (explain's profile).
    pub ir_share: f64,
}

impl PinFile {
    /// Reads and checks the pin file at `path` (a user's file, read as data).
    pub fn load(path: &Path) -> Result<PinFile> {
        let file = crate::files::confined::open_regular(path)
            .with_context(|| format!("cannot open the pin file {}", path.display()))?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_PIN_BYTES + 1), &mut text)
            .with_context(|| format!("cannot read the pin file {}", path.display()))?;
        if text.len() as u64 > MAX_PIN_BYTES {
            bail!(
                "{}: larger than {MAX_PIN_BYTES} bytes, which no pin file is",
                path.display()
            );
        }
        let pin: PinFile = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a pin file of this version (made by `layoutrand pin`)",
                path.display()
            )
        })?;
        pin.check()
            .with_context(|| format!("the pin file {}", path.display()))?;
        Ok(pin)
    }

    /// The checks a pin file must pass to be used: the schema, each program once, a period
    /// that is a power of two from a page to [`MAX_PERIOD`], offsets below it, and each
    /// function named once.
    pub fn check(&self) -> Result<()> {
        if self.schema != PIN_SCHEMA {
            bail!(
                "schema {} (this layoutrand reads schema {PIN_SCHEMA}): make it again with \
                 `layoutrand pin`",
                self.schema
            );
        }
        if self.programs.is_empty() {
            bail!("it pins no program");
        }
        let mut programs = BTreeSet::new();
        for p in &self.programs {
            if !programs.insert(p.program.as_str()) {
                bail!("program {} is pinned twice", p.program);
            }
            p.check()
                .with_context(|| format!("program {}", p.program))?;
        }
        Ok(())
    }

    /// The pin of the program `name`, if any.
    pub fn program(&self, name: &str) -> Option<&ProgramPin> {
        self.programs.iter().find(|p| p.program == name)
    }
}

impl ProgramPin {
    fn check(&self) -> Result<()> {
        let page = crate::layout::features::PAGE;
        if !self.period.is_power_of_two() || !(page..=MAX_PERIOD).contains(&self.period) {
            bail!(
                "period {} bytes: a power of two from {page} to {MAX_PERIOD} bytes",
                self.period
            );
        }
        if !self.line.is_power_of_two() || self.line > self.period {
            bail!(
                "line {} bytes: a power of two up to the period, {} bytes",
                self.line,
                self.period
            );
        }
        if self.functions.is_empty() {
            bail!("no function is pinned");
        }
        if self.functions.len() > MAX_PINNED {
            bail!(
                "{} functions pinned: at most {MAX_PINNED}",
                self.functions.len()
            );
        }
        let mut names = BTreeSet::new();
        for f in &self.functions {
            if f.name.is_empty() {
                bail!("a pinned function has no name");
            }
            if !names.insert((f.name.as_str(), f.file.as_deref())) {
                bail!("function {} is pinned twice", f.label());
            }
            if f.offset >= self.period {
                bail!(
                    "function {}: offset {} is not below the period, {} bytes",
                    f.name,
                    f.offset,
                    self.period
                );
            }
        }
        // A name pinned without its file would be every function of that name.
        for f in self.functions.iter().filter(|f| f.file.is_none()) {
            if self.functions.iter().filter(|g| g.name == f.name).count() > 1 {
                bail!(
                    "function {} is pinned several times, not each with its file",
                    f.name
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pin(period: u64, functions: &[(&str, u64)]) -> PinFile {
        PinFile {
            schema: PIN_SCHEMA,
            programs: vec![ProgramPin {
                program: "demo".into(),
                period,
                line: 64,
                functions: functions
                    .iter()
                    .map(|&(name, offset)| PinnedFunction {
                        name: name.into(),
                        file: None,
                        offset,
                        size: 16,
                    })
                    .collect(),
                source: PinSource {
                    binary: "seed-1".into(),
                    metric: "wall".into(),
                    unit: "ns".into(),
                    mean: 1.0,
                    median: 1.0,
                    layouts: 2,
                    ir_share: 1.0,
                },
            }],
        }
    }

    /// Every pin a relink could not follow (a period of 0 would divide by zero) is refused
    /// with its reason, whether from a file or from a received manifest.
    #[test]
    fn a_pin_that_cannot_be_followed_is_refused_with_its_reason() {
        let refused = |p: PinFile| format!("{:#}", p.check().unwrap_err());
        let messages = [
            refused(pin(0, &[("f", 0)])),
            refused(pin(3000, &[("f", 0)])),
            refused(pin(1 << 20, &[("f", 0)])),
            refused(pin(4096, &[])),
            refused(pin(4096, &[("f", 4096)])),
            refused(pin(4096, &[("f", 0), ("f", 64)])),
            refused(pin(4096, &[("", 0)])),
            refused(PinFile {
                schema: 2,
                ..pin(4096, &[("f", 0)])
            }),
        ];
        insta::assert_snapshot!(messages.join("\n"));
        assert!(pin(4096, &[("f", 0), ("g", 4095)]).check().is_ok());
    }

    /// A name several functions share is pinned each with its file, never bare beside them
    /// nor twice with one file.
    #[test]
    fn a_shared_name_is_pinned_once_per_file() {
        let with_files = |files: &[Option<&str>]| {
            let mut p = pin(4096, &vec![("helper", 64); files.len()]);
            for (f, file) in p.programs[0].functions.iter_mut().zip(files) {
                f.file = file.map(String::from);
            }
            p.check().map_err(|e| format!("{e:#}"))
        };
        assert!(with_files(&[Some("m1.c"), Some("m2.c")]).is_ok());
        assert_eq!(
            with_files(&[Some("m1.c"), Some("m1.c")]).unwrap_err(),
            "program demo: function helper (m1.c) is pinned twice"
        );
        assert_eq!(
            with_files(&[Some("m1.c"), None]).unwrap_err(),
            "program demo: function helper is pinned several times, not each with its file"
        );
    }
}
