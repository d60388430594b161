//! The table `layoutrand build` prints at the end: per program, how many seeds built, how
//! many distinct layouts they have, how far they are from the baseline; then the time spent
//! relinking against the time of the recorded build.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::files::manifest::{BinarySet, BuildStatus, Manifest, ProgramSummary};
use crate::report::words;

/// Per program: seeds built, their distinct fingerprints, Kendall distances, shares moved.
type ProgramTally<'a> = (usize, BTreeSet<&'a str>, Vec<f64>, Vec<f64>);

/// The line under the table that says what its two distance columns measure (a newcomer
/// cannot guess; issue 24). About 0.5 is the expected Kendall distance of a uniformly random
/// order; orders kept by the linker (gcc's hot/unlikely groups, `link` granularity's
/// functions within a module) pull it lower.
pub const LEGEND: &str = "legend: mean Kendall = share of function pairs ordered unlike in \
the baseline (0 same order, about 0.5 random, 1 reversed); mean moved = share of functions at \
a new address (0 to 100 %); both averaged over the seeds built\n";

/// The summary as text.
pub fn render(m: &Manifest) -> String {
    let mut out = seeds_table(m);
    let _ = writeln!(
        out,
        "relinked baseline + {} seeds in {:.2} s; the recorded build took {:.2} s (ratio {:.2})",
        m.seeds.len(),
        m.relink_seconds,
        m.recorded_build_seconds,
        m.relink_seconds / m.recorded_build_seconds.max(1e-9)
    );
    if let Some(total) = m.total_seconds {
        let rest = total - m.relink_seconds - m.recorded_build_seconds;
        let _ = writeln!(
            out,
            "the whole build took {total:.2} s: the recorded build {:.2} s, the relinks {:.2} s, \
             the other steps (clearing the output directory, checking the seeds' layouts, \
             writing the manifest) {:.2} s",
            m.recorded_build_seconds,
            m.relink_seconds,
            rest.max(0.0)
        );
    }
    let _ = writeln!(out, "mechanism: {}", words::build::mechanisms(m));
    if m.strip_debug {
        out.push_str(&debug_info_line(m));
    }
    if m.pad > 0 {
        out.push_str(&padding_lines(m));
    }
    if m.data_order {
        out.push_str(&data_order_lines(m));
    }
    if let Some(pin) = &m.pin {
        out.push_str(&pin_lines(pin, &m.baseline));
    }
    for p in &m.programs {
        program_notes(&mut out, m, p);
    }
    out.push_str(&as_built_lines(m));
    let failed: Vec<_> = m
        .seeds
        .iter()
        .filter(|v| v.status == BuildStatus::Failed)
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "{} seed(s) failed:", failed.len());
        for v in failed {
            let _ = writeln!(
                out,
                "  seed {}: {}",
                v.seed.unwrap_or_default(),
                v.error.as_deref().unwrap_or("unknown error")
            );
        }
    }
    out
}

/// The table of seeds per program (built, distinct, how far from the baseline), its legend
/// below it.
fn seeds_table(m: &Manifest) -> String {
    let mut out = String::new();
    let per_program = tally(m);
    let width = per_program
        .keys()
        .map(|k| k.len())
        .max()
        .unwrap_or(7)
        .max(7);
    let _ = writeln!(
        out,
        "{:<width$}  {:>9}  {:>9}  {:>12}  {:>10}",
        "program", "seeds ok", "distinct", "mean Kendall", "mean moved"
    );
    for (name, (ok, fps, kendall, moved)) in &per_program {
        let _ = writeln!(
            out,
            "{:<width$}  {:>9}  {:>9}  {:>12}  {:>10}",
            name,
            format!("{ok}/{}", m.seeds.len()),
            fps.len(),
            mean(kendall).map_or("-".into(), |x| format!("{x:.3}")),
            mean(moved).map_or("-".into(), |x| format!("{:.1} %", 100.0 * x)),
        );
    }
    out.push_str(LEGEND);
    out
}

/// `build` without `--keep-debug`: the relinks' debug information left out.
fn debug_info_line(m: &Manifest) -> String {
    let mold = match m.linker.as_str() {
        "mold" | "mixed" => {
            " (with mold, an archive member keeps its own: mold's --strip-debug drops symbols \
             too)"
        }
        _ => "",
    };
    format!(
        "debug information: left out of the relinks{mold}; the code and data are laid out the \
         same without it and the symbol table is kept (--keep-debug keeps it)\n"
    )
}

/// Per program of `m` (every program of the baseline, in name order): its tally over the
/// seeds built.
fn tally(m: &Manifest) -> BTreeMap<&str, ProgramTally<'_>> {
    let mut per_program: BTreeMap<&str, ProgramTally> = BTreeMap::new();
    for b in m.baseline.all() {
        per_program.entry(&b.name).or_default();
    }
    for v in m.seeds.iter().filter(|v| v.status == BuildStatus::Ok) {
        for b in v.all() {
            let e = per_program.entry(&b.name).or_default();
            e.0 += 1;
            e.1.insert(&b.fingerprint);
            if let Some(d) = &b.distance {
                e.2.push(d.kendall_tau);
                e.3.push(d.share_moved);
            }
        }
    }
    per_program
}

/// The lines about program `p` of `m` (appended to `out`): what its randomisation achieved,
/// why it is left out or not randomised, or which of its seeds coincide.
fn program_notes(out: &mut String, m: &Manifest, p: &ProgramSummary) {
    let what = if p.library { "library" } else { "program" };
    let reason = words::build::exclusion(p);
    if let (Some(a), None) = (&p.achieved, &p.excluded) {
        let _ = writeln!(
            out,
            "achieved: {what} {}: {}",
            p.name,
            words::setup::moved(a)
        );
    }
    copies_line(out, m, p, what);
    in_place_line(out, m, p, what);
    if m.baseline.find(&p.name).is_none() {
        let _ = writeln!(
            out,
            "error: {what} {} is not in the seeds nor the baseline: {}",
            p.name,
            reason.as_deref().unwrap_or("it could not be relinked")
        );
    } else if let (Some(reason), true) = (&reason, p.failed_in_every_seed) {
        let _ = writeln!(
            out,
            "error: {what} {} is left out of the seeds (its baseline is kept; `run` skips it \
             unless named): {reason}",
            p.name
        );
    } else if let (Some(reason), true) = (&reason, p.library) {
        let _ = writeln!(out, "note: library {} is not randomised: {reason}", p.name);
    } else if let Some(reason) = &reason {
        let _ = writeln!(
            out,
            "note: program {} is left out of the seeds (its baseline is kept; `run` skips it \
             unless named): {reason}",
            p.name
        );
    } else if !p.coinciding.is_empty() {
        let groups: Vec<String> = p.coinciding.iter().take(5).map(|g| g.join(" = ")).collect();
        let more = p.coinciding.len().saturating_sub(5);
        let _ = writeln!(
            out,
            "note: {what} {}: coinciding layouts: {}{}",
            p.name,
            groups.join("; "),
            if more > 0 {
                format!(" (and {more} more groups, see the manifest)")
            } else {
                String::new()
            }
        );
    }
}

/// Functions linked in place below which [`in_place_line`] says nothing: the C runtime's
/// start files bring about ten to every C program.
const IN_PLACE_WORTH_SAYING: usize = 20;

/// The line saying how many of `p`'s functions come from files linked in place, when they
/// are more than a tenth of its baseline's functions and at least
/// [`IN_PLACE_WORTH_SAYING`] (a Rust program with std's rlibs used in place, a static
/// link's libc; the C runtime's few start-file functions say nothing).
fn in_place_line(out: &mut String, m: &Manifest, p: &ProgramSummary, what: &str) {
    let (Some(placed), Some(base)) = (
        p.achieved.as_ref().and_then(|a| a.functions_placed),
        m.baseline.find(&p.name),
    ) else {
        return;
    };
    let all = base.functions;
    let in_place = all.saturating_sub(placed);
    if in_place * 10 <= all || in_place < IN_PLACE_WORTH_SAYING {
        return;
    }
    let _ = writeln!(
        out,
        "note: {what} {}: {} of its {all} functions are in the build's own objects, which the \
         seeds place; the other {in_place} come from files linked in place (system archives, \
         Rust's standard library, the C runtime's start files), which keep their order in \
         every seed and move only as a block",
        p.name,
        placed.min(all),
    );
}

/// The line saying how many of `p`'s binaries are copies of an earlier link with the same
/// inputs (none: no line); `what` is `program` or `library`.
fn copies_line(out: &mut String, m: &Manifest, p: &ProgramSummary, what: &str) {
    let binaries: Vec<_> = m
        .seeds
        .iter()
        .filter_map(|v| v.find(&p.name))
        .chain(m.baseline.find(&p.name))
        .collect();
    let copies = binaries.iter().filter(|b| b.copy_of.is_some()).count();
    if copies == 0 {
        return;
    }
    let links = binaries.len() - copies;
    let _ = writeln!(
        out,
        "note: {what} {}: linked {} for its {} binaries; the other {copies} are copies of a \
         binary whose link took the same inputs (nothing of it moves, or a seed drew the same \
         order), so the linker was not run again",
        p.name,
        crate::report::numfmt::counted(links, "time", "times"),
        binaries.len(),
    );
}

/// Per program and library kept as built: how the baseline differs from it.
fn as_built_lines(m: &Manifest) -> String {
    let Some(set) = &m.as_built else {
        return String::new();
    };
    let mut out = String::new();
    let programs = set.binaries.iter().map(|b| ("program", b));
    for (what, b) in programs.chain(set.libraries.iter().map(|b| ("library", b))) {
        if let Some(v) = b.versus_baseline() {
            let _ = writeln!(
                out,
                "baseline vs as built: {what} {}: {}",
                b.name,
                words::versus_baseline::sentence(&v)
            );
        }
    }
    out
}

/// `build --pad`: per program, the spread of its function starts over cache-line and page
/// offsets in the seeds against the baseline, and how many functions changed cache-line
/// offset.
fn padding_lines(m: &Manifest) -> String {
    let mut out = format!(
        "padding: up to {} bytes before each function (multiples of its alignment)\n",
        m.pad
    );
    for base in m.baseline.all() {
        let seeds: Vec<_> = m
            .seeds
            .iter()
            .filter(|v| v.status == BuildStatus::Ok)
            .filter_map(|v| v.find(&base.name))
            .collect();
        let range = |f: &dyn Fn(&crate::layout::offsets::OffsetSpread) -> usize| {
            let xs: Vec<usize> = seeds
                .iter()
                .filter_map(|b| b.offsets.as_ref())
                .map(f)
                .collect();
            match (xs.iter().min(), xs.iter().max()) {
                (Some(a), Some(b)) if a == b => a.to_string(),
                (Some(a), Some(b)) => format!("{a}-{b}"),
                _ => "-".to_string(),
            }
        };
        let at_base = |f: &dyn Fn(&crate::layout::offsets::OffsetSpread) -> usize| {
            base.offsets
                .as_ref()
                .map_or("-".to_string(), |o| f(o).to_string())
        };
        let changed: Vec<f64> = seeds
            .iter()
            .filter_map(|b| b.distance.map(|d| d.share_mod64_changed))
            .collect();
        let _ = writeln!(
            out,
            "offsets: {}: distinct function start offsets mod 64 {} (baseline {}), mod 4096 {} \
             (baseline {}); cache-line offset changed for {} of functions",
            base.name,
            range(&|o| o.distinct_mod_64),
            at_base(&|o| o.distinct_mod_64),
            range(&|o| o.distinct_mod_4096),
            at_base(&|o| o.distinct_mod_4096),
            mean(&changed).map_or("-".into(), |x| format!("{:.1} %", 100.0 * x)),
        );
    }
    out
}

/// `build --pin FILE`: per pinned program, what every seed placed (each seed's binary was
/// read from its ELF with every pinned function at its offset, or the seed failed).
/// A library of the build (of `set`'s libraries) is named as one.
fn pin_lines(pin: &crate::files::pin::PinFile, set: &BinarySet) -> String {
    let mut out = String::new();
    for p in &pin.programs {
        let what = match set.libraries.iter().any(|l| l.name == p.program) {
            true => "library",
            false => "program",
        };
        let _ = writeln!(
            out,
            "pinned: {what} {}: in every seed, {} at {} modulo {} bytes, where {} of the \
             experiment had them; the rest of the layout random",
            p.program,
            crate::units::counted(p.functions.len(), "function", "functions"),
            match p.functions.len() {
                1 => "its offset",
                _ => "their offsets",
            },
            p.period,
            p.source.binary
        );
    }
    out
}

/// `build --data-order`: what moves, and per program how many of its data objects moved in
/// the seeds, how many distinct data orders they have, and what the check compared.
fn data_order_lines(m: &Manifest) -> String {
    let mut out = String::from(
        "data order: each seed permutes the static data sections (.data, .rodata, .bss, \
         .data.rel.ro, .tdata, .tbss) within each output section; string literals and merged \
         constants, COMDAT data, common symbols and archive members' data stay in their order\n",
    );
    for base in m.baseline.all() {
        let checks: Vec<&crate::layout::same_data::DataCheck> = m
            .seeds
            .iter()
            .filter(|v| v.status == BuildStatus::Ok)
            .filter_map(|v| v.find(&base.name)?.data.as_ref())
            .collect();
        let Some(first) = checks.first() else {
            continue;
        };
        let moved: Vec<usize> = checks.iter().map(|c| c.moved).collect();
        let (low, high) = (moved.iter().min(), moved.iter().max());
        let orders: BTreeSet<&str> = checks.iter().map(|c| c.order.as_str()).collect();
        let share: Vec<f64> = checks
            .iter()
            .map(|c| c.moved as f64 / c.objects.max(1) as f64)
            .collect();
        let displaced: Vec<usize> = checks.iter().map(|c| c.functions_displaced).collect();
        let _ = writeln!(
            out,
            "data: {}: {} data objects, {} moved per seed ({} on average); {} distinct data \
             orders in {} seeds; same sizes and contents (pointers relocated), same code \
             bytes but for the PC-relative displacements of up to {} of {} functions",
            base.name,
            first.objects,
            match (low, high) {
                (Some(a), Some(b)) if a == b => a.to_string(),
                (Some(a), Some(b)) => format!("{a}-{b}"),
                _ => "-".to_string(),
            },
            mean(&share).map_or("-".into(), |x| format!("{:.1} %", 100.0 * x)),
            orders.len(),
            checks.len(),
            displaced.iter().max().copied().unwrap_or(0),
            first.functions,
        );
    }
    out
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::manifest::{Exclusion, LeftOut, Linker, Mechanism, Relinking};

    /// The summary's line on program 0 of `m`, which names it.
    fn line_on(m: &Manifest) -> String {
        let name = format!(" {} ", m.programs[0].name);
        let text = render(m);
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(&name)).collect();
        assert_eq!(lines.len(), 1, "{text}");
        lines[0].replace(&m.programs[0].name, "P")
    }

    /// A program whose link failed in every seed is an error of the build, said as such;
    /// one with nothing to move is a note saying what cannot move (the mechanism has the
    /// summary's line of its own); an older manifest's reason is said as it stored it.
    #[test]
    fn a_program_failing_in_every_seed_is_an_error_line() {
        let text = include_str!("../../tests/report/fixtures/explained/manifest.json");
        let mut m: Manifest = serde_json::from_str(text).unwrap();
        m.programs[0].achieved = None;
        m.programs[0].excluded = Some(Exclusion::Known(LeftOut::NothingToMove {
            built: 2,
            seeds: 3,
        }));
        m.programs[0].relinking = Some(Relinking {
            mechanism: Mechanism::MergedLink,
            linker: Linker::Lld,
            direct: false,
        });
        assert_eq!(
            line_on(&m),
            "note: program P is left out of the seeds (its baseline is kept; `run` skips it \
             unless named): its layout equals the baseline's in every seed (2 of 3): it has \
             nothing the seeds move (one object whose functions cannot trade places: one \
             function, or one per group the linker places apart, such as `main` in \
             .text.startup beside one other function; or one object under `--granularity \
             link`)"
        );
        m.programs[0].excluded = Some(Exclusion::Known(LeftOut::LinkFailedInEverySeed {
            first_error: Some("program x: boom".into()),
        }));
        m.programs[0].failed_in_every_seed = true;
        assert_eq!(
            line_on(&m),
            "error: program P is left out of the seeds (its baseline is kept; `run` skips it \
             unless named): its link failed in every seed (program x: boom)"
        );
        let older = r#""its layout equals the baseline's in every seed""#;
        m.programs[0].excluded = Some(serde_json::from_str(older).unwrap());
        m.programs[0].failed_in_every_seed = false;
        assert_eq!(
            line_on(&m),
            "note: program P is left out of the seeds (its baseline is kept; `run` skips it \
             unless named): its layout equals the baseline's in every seed"
        );
    }
}
