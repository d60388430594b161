//! `layoutrand pin DIR`: a controlled layout for a layout-sensitive program, made from an
//! experiment and its `explain` answer, as a pin file (`crate::files::pin`) that
//! `build --pin FILE` applies to every seed.
//!
//! The pin copies the placement of the functions explain's profile saw execute (the program's
//! own and the build's libraries' it loads, at most 1,000: [`PIN_RULE`]) from the fastest of
//! the experiment's random layouts: each one's start modulo the instruction cache's set
//! period, in its own object (a library's entry in the pin places the library's functions
//! when every seed relinks it). That keeps, in every seed, each such function's offset in its
//! lines, 32-byte windows and page, the sets its lines map to, and so every set conflict among
//! them: all the placement features `explain` screens; `build --pin` also gives each lines of
//! its own. It reads the experiment and the binary's ELF; it runs nothing and writes only
//! the pin file. Whether the pin works is measured, not assumed: build with the pin and run
//! (the spread between the pinned seeds against the experiment's).

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::analysis::answers::experiment::{load, Experiment};
use crate::analysis::answers::series::BinaryData;
use crate::analysis::explain::{Explanation, HotFunction, HotRule};
use crate::analysis::pin::{placements, Freedom, LeftFree, PinAnswer};
use crate::explain::image::Image;
use crate::files::manifest::{BinarySet, Manifest};
use crate::files::pin::{PinFile, PinSource, ProgramPin, MAX_PINNED, PIN_SCHEMA};
use crate::layout::binary::Function;

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
    let manifest = exp.manifest.as_ref().with_context(|| {
        format!(
            "{} has no manifest.json: pin reads the binaries the build made",
            dir.display()
        )
    })?;
    let (fastest, set) = fastest_layout(layouts, manifest)?;
    let path = crate::explain::verified(dir, set, &explanation.program)?;
    let image = Image::of_named(set, &explanation.libraries);
    let functions = image.functions(dir, set, &path)?;
    let period = crate::explain::confirm::set_period(&explanation.cache);
    let line = explanation.cache.line;
    let hot = hot_functions(dir, &explanation, &image, &functions)?;
    let means: Vec<f64> = layouts.iter().map(BinaryData::mean).collect();
    let source = |ir_share| PinSource {
        binary: fastest.binary.clone(),
        metric: explanation.metric.clone(),
        unit: explanation.unit.clone(),
        mean: fastest.mean(),
        median: crate::stats::sample::median(&means),
        layouts: layouts.len(),
        ir_share,
    };
    let (programs, left_free) = pinned_objects(
        &image,
        &functions,
        &hot,
        (period, line),
        &explanation.program,
        &source,
    );
    if programs.is_empty() {
        bail!(
            "none of the {} hot functions of {} has a name of its own in {}: nothing to pin",
            hot.len(),
            explanation.program,
            path.display()
        );
    }
    let pin = PinFile {
        schema: PIN_SCHEMA,
        programs,
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
        program: explanation.program.clone(),
        libraries: explanation.libraries.clone(),
        left_free,
        cache: explanation.cache,
        simulated: crate::files::metric::is_cachegrind_spec(&exp.header.metric),
        layout_share: explanation.layout_share,
        report_settled: explanation.report_settled,
    })
}

/// The fastest of `layouts` (the lowest mean: explain refuses rates) and its binary set.
fn fastest_layout<'a>(
    layouts: &'a [BinaryData],
    manifest: &'a Manifest,
) -> Result<(&'a BinaryData, &'a BinarySet)> {
    let fastest = layouts
        .iter()
        .min_by(|a, b| a.mean().total_cmp(&b.mean()))
        .context("no random layout was measured")?;
    let seed = fastest.seed.context("the fastest layout has no seed")?;
    let set = (manifest.seeds.iter())
        .find(|s| s.seed == Some(seed))
        .with_context(|| format!("the manifest has no seed {seed}"))?;
    Ok((fastest, set))
}

/// The pin's entries: the program's (named `program`) and each library's of the `image`
/// whose `hot` functions can be placed (each at its start modulo `period` in `functions`, the
/// image's, within its own object, in lines of `line` bytes of its own), and the hot
/// functions left free. A library's are left
/// free when the period exceeds a page: its load address fixes only its offset in a page.
fn pinned_objects(
    image: &Image,
    functions: &[Function],
    hot: &[HotFunction],
    (period, line): (u64, u64),
    program: &str,
    source: &dyn Fn(f64) -> PinSource,
) -> (Vec<ProgramPin>, Vec<LeftFree>) {
    let mut programs = Vec::new();
    let mut left_free = Vec::new();
    let objects = std::iter::once(None).chain(image.libraries.iter().map(Some));
    for library in objects {
        let name = library.map(|l| l.name.clone());
        let own: Vec<HotFunction> = (hot.iter().filter(|h| h.library == name).cloned()).collect();
        if library.is_some() && period > crate::layout::features::PAGE {
            left_free.extend(own.iter().map(|h| LeftFree {
                name: h.name.clone(),
                library: name.clone(),
                why: Freedom::LibraryBeyondPage,
            }));
            continue;
        }
        let (pinned, free) = placements(&own, &image.part(functions, library), period);
        left_free.extend(free);
        if pinned.is_empty() {
            continue;
        }
        let ir_share = (own.iter())
            .filter(|h| pinned.iter().any(|p| p.name == h.name))
            .map(|h| h.ir_share)
            .sum();
        programs.push(ProgramPin {
            program: name.unwrap_or_else(|| program.to_string()),
            period,
            line,
            functions: pinned,
            source: source(ir_share),
        });
    }
    (programs, left_free)
}

/// The rule of the functions a pin places: every function of the program's own (and of the
/// build's libraries it loads) that the profile saw execute, hottest first, up to
/// [`MAX_PINNED`]: not only the hottest that cover 99 % of the instructions, as explain
/// screens, because a function that runs rarely still takes lines in the sets the hot ones
/// use, and misses there. opus_demo pinned by the 51 functions covering 99 % kept 61 % of its
/// spread in I1 misses; by all 96 it ran, 5 %.
pub(crate) const PIN_RULE: HotRule = HotRule {
    cover: 1.0,
    most: MAX_PINNED,
};

/// The hot functions to pin: by [`PIN_RULE`] from the profile `explain` kept
/// (`DIR/explain/profile/`), among the `functions` of the `image` (the program's and its
/// libraries', each labelled with its library); explain's hot functions when that profile
/// is gone.
fn hot_functions(
    dir: &Path,
    explanation: &Explanation,
    image: &Image,
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
    let mut hot = crate::explain::hotness::select_hot(&profile, &own, PIN_RULE);
    for h in &mut hot {
        h.library = (image.library_holding(functions, &h.name)).map(|l| l.name.clone());
    }
    Ok(hot)
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
