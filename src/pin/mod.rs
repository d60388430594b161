//! `layoutrand pin DIR`: a controlled layout for a layout-sensitive program, made from an
//! experiment and its `explain` answer, as a pin file (`crate::files::pin`) that
//! `build --pin FILE` applies to every seed.
//!
//! The pin copies the placement of the hot functions of explain's profile (those covering
//! 99 % of the program's own instructions, at most 1,000: [`PIN_RULE`]) from the fastest of
//! the experiment's random layouts: each one's start modulo the instruction cache's set period. That keeps, in every
//! seed, each hot function's offset in its lines, 32-byte windows and page, the sets its
//! lines map to, and so every set conflict among them: all the placement features `explain`
//! screens. It reads the experiment and the binary's ELF; it runs nothing and writes only
//! the pin file. Whether the pin works is measured, not assumed: build with the pin and run
//! (the spread between the pinned seeds against the experiment's).

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::analysis::answers::experiment::{load, Experiment};
use crate::analysis::answers::series::BinaryData;
use crate::analysis::explain::{Explanation, HotFunction, HotRule};
use crate::analysis::pin::{placements, LibraryFree, PinAnswer};
use crate::files::pin::{PinFile, PinSource, ProgramPin, MAX_PINNED, PIN_SCHEMA};
use crate::layout::binary::{self, Function};

/// Makes the pin of the program `explain` last explained in `dir` and writes it to
/// `output`.
pub fn pin(dir: &Path, output: &Path) -> Result<PinAnswer> {
    let exp = load(dir)?;
    let Some(explanation) = crate::analysis::explain::stored(dir)? else {
        bail!(
            "{} holds no explain answer: run `layoutrand explain {}` first (the pin places the \
             hot functions it finds)",
            dir.join(crate::analysis::explain::EXPLAIN_DIR).display(),
            dir.display()
        );
    };
    if explanation.variant.is_some() {
        bail!("pin does not yet make a pin from a variant's explanation");
    }
    let layouts = measured_layouts(&exp, &explanation)?;
    let fastest = layouts
        .iter()
        .min_by(|a, b| a.mean().total_cmp(&b.mean()))
        .context("no random layout was measured")?;
    let manifest = exp.manifest.as_ref().with_context(|| {
        format!(
            "{} has no manifest.json: pin reads the binaries the build made",
            dir.display()
        )
    })?;
    let seed = fastest.seed.context("the fastest layout has no seed")?;
    let path = crate::explain::binary_path(dir, manifest, &explanation.program, Some(seed))?;
    let functions = binary::functions(&path)?;
    let period = crate::explain::confirm::set_period(&explanation.cache);
    let hot = hot_functions(dir, &explanation, &functions)?;
    let (pinned, left_free) = placements(&hot, &functions, period);
    if pinned.is_empty() {
        bail!(
            "none of the {} hot functions of {} has a name of its own in {}: nothing to pin",
            hot.len(),
            explanation.program,
            path.display()
        );
    }
    let ir_share = hot
        .iter()
        .filter(|h| pinned.iter().any(|p| p.name == h.name))
        .map(|h| h.ir_share)
        .sum();
    let means: Vec<f64> = layouts.iter().map(BinaryData::mean).collect();
    let pin = PinFile {
        schema: PIN_SCHEMA,
        programs: vec![ProgramPin {
            program: explanation.program.clone(),
            period,
            functions: pinned,
            source: PinSource {
                binary: fastest.binary.clone(),
                metric: explanation.metric.clone(),
                unit: explanation.unit.clone(),
                mean: fastest.mean(),
                median: crate::stats::sample::median(&means),
                layouts: layouts.len(),
                ir_share,
            },
        }],
    };
    pin.check().context("the pin made")?;
    let mut text = serde_json::to_string_pretty(&pin)?;
    text.push('\n');
    crate::files::output::write_output(output, dir, text.as_bytes())?;
    Ok(PinAnswer {
        schema: crate::schema::OUTPUT_SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        pin,
        written: output.to_path_buf(),
        experiment: dir.to_path_buf(),
        left_free,
        libraries_free: libraries_free(&explanation),
        cache: explanation.cache,
        simulated: crate::files::metric::is_cachegrind_spec(&exp.header.metric),
        layout_share: explanation.layout_share,
    })
}

/// The build's libraries whose hot functions explain screened with the program's, which the
/// pin leaves free (it places the program's own), with their count and share.
fn libraries_free(e: &Explanation) -> Vec<LibraryFree> {
    e.libraries
        .iter()
        .map(|library| {
            let hot = e.hot.iter().filter(|h| h.library.as_ref() == Some(library));
            LibraryFree {
                library: library.clone(),
                functions: hot.clone().count(),
                ir_share: hot.map(|h| h.ir_share).sum(),
            }
        })
        .filter(|l| l.functions > 0)
        .collect()
}

/// The rule of the functions a pin places: as explain's, the hottest until they cover 99 %
/// of the program's own instructions, but up to [`MAX_PINNED`] of them rather than the 50
/// explain screens (a program whose time is spread over a few hundred functions, as an
/// interpreter's opcode handlers, is steadied only when they are all placed).
pub(crate) const PIN_RULE: HotRule = HotRule {
    cover: crate::analysis::explain::HOT_RULE.cover,
    most: MAX_PINNED,
};

/// The hot functions to pin: by [`PIN_RULE`] from the profile `explain` kept
/// (`DIR/explain/profile/`), among the program's own `functions`; explain's hot functions
/// when that profile is gone.
fn hot_functions(
    dir: &Path,
    explanation: &Explanation,
    functions: &[Function],
) -> Result<Vec<HotFunction>> {
    let profile_dir = dir
        .join(crate::analysis::explain::EXPLAIN_DIR)
        .join(crate::explain::PROFILE_DIR);
    if !profile_dir.is_dir() {
        return Ok(explanation.hot.clone());
    }
    let counts = crate::run::metric::EventCounts::of_dir(&profile_dir)?;
    if counts.functions.is_empty() {
        return Ok(explanation.hot.clone());
    }
    let profile = crate::explain::hotness::instructions_and_misses(&counts);
    let own = functions.iter().map(|f| f.name.clone()).collect();
    Ok(crate::explain::hotness::select_hot(
        &profile, &own, PIN_RULE,
    ))
}

/// The random layouts of the explained program and metric, as the experiment measured them.
fn measured_layouts<'a>(exp: &'a Experiment, e: &Explanation) -> Result<&'a [BinaryData]> {
    let series = exp
        .series
        .iter()
        .find(|s| s.program == e.program && s.metric == e.metric && s.variant.is_none())
        .with_context(|| {
            format!(
                "the experiment has no measurements of {} with metric {}, which its explain \
                 answer is about: run `layoutrand explain` again",
                e.program, e.metric
            )
        })?;
    if series.seeds.len() < 2 {
        bail!(
            "{} has {} random layout of {}: a pin copies the fastest of several",
            exp.dir.display(),
            series.seeds.len(),
            e.program
        );
    }
    Ok(&series.seeds)
}
