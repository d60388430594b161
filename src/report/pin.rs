//! The words of `layoutrand pin`'s answer ([`crate::analysis::pin::PinAnswer`]).

use crate::analysis::pin::{Freedom, PinAnswer};
use crate::files::pin::ProgramPin;
use crate::report::numfmt::{percent, quantity};
use crate::units::counted;

/// Why a pin has little to steady where the report finds the layout's effect negligible, or
/// none detectable: the pin is still written (a controlled layout can serve for a
/// comparison), with what it can gain at most.
fn little_to_steady(settled: &crate::analysis::explain::ReportSettled) -> String {
    let (verdict, bound) = (settled.verdict, percent(settled.bound, 2));
    let found = match verdict {
        crate::analysis::vocabulary::Verdict::Negligible => format!(
            "negligible (the binaries' means vary by at most {bound} from one layout to another)"
        ),
        _ => format!("not detected (a variation of {bound} or more would have shown)"),
    };
    format!(
        "The report finds the layout's effect on this metric {found}, within the {} that \
         counts (--negligible): a pin can steady it by no more than that.",
        percent(settled.negligible, 2)
    )
}

/// The text `layoutrand pin` prints: what was pinned, from which layout, what is left free,
/// how to use it, and what a pin does not fix.
pub fn render(answer: &PinAnswer) -> String {
    let mut lines: Vec<String> = (answer.pin.programs.iter().enumerate())
        .map(|(k, program)| pinned(program, answer, k == 0))
        .collect();
    if let Some(first) = answer.pin.programs.first() {
        lines.push(format!(
            "Each starts at its offset modulo {} bytes, the period of the instruction cache's \
             sets ({} sets of {}-byte lines, {} ways){}.",
            first.period,
            answer.cache.sets,
            answer.cache.line,
            answer.cache.ways,
            if answer.pin.programs.len() > 1 {
                ", in its own program or library"
            } else {
                ""
            }
        ));
    }
    if let Some(share) = answer.layout_share {
        lines.push(format!(
            "The random layouts' share of the variance (the report's intraclass correlation): \
             {} (what a pin can remove is at most that share).",
            percent(share, 2)
        ));
    }
    if let Some(settled) = &answer.report_settled {
        lines.push(little_to_steady(settled));
    }
    if !answer.left_free.is_empty() {
        let free: Vec<String> = answer
            .left_free
            .iter()
            .map(|f| match &f.library {
                Some(library) => format!("{} in {library} ({})", f.name, freedom(f.why)),
                None => format!("{} ({})", f.name, freedom(f.why)),
            })
            .collect();
        lines.push(format!("Left free: {}.", free.join(", ")));
    }
    // Under cachegrind the cache is the run's model; on the machine, explain's model is
    // only right where the machine's own L1 instruction cache has its geometry (bc 1.07 by
    // wall time was told to measure under cachegrind).
    let measure = if answer.simulated {
        "measure the pinned build on that cache (under cachegrind, with the experiment's \
         `--cache-sim`)"
            .to_string()
    } else {
        let metric = answer
            .pin
            .programs
            .first()
            .map_or("", |p| p.source.metric.as_str());
        format!(
            "the L1 instruction cache the run's machine recorded (else explain's model; \
             `explain --icache` names another), and it holds only where the machine's own \
             has that geometry: measure the pinned build by {metric} on such a machine"
        )
    };
    lines.push(format!(
        "Written to {}. Build with it from a clean tree (`make clean` or the like, so that the \
         build compiles and links again): layoutrand build --pin {} --seeds N -- YOUR BUILD \
         COMMAND. It was made for an instruction cache of {} bytes ({} ways, {}-byte lines): \
         {measure}, and compare it with this experiment: `layoutrand compare {} PINNED_DIR` \
         shows both spreads and their ratio.",
        answer.written.display(),
        answer.written.display(),
        crate::report::numfmt::fixed(
            (answer.cache.sets * answer.cache.ways * answer.cache.line) as f64,
            0
        ),
        answer.cache.ways,
        answer.cache.line,
        answer.experiment.display()
    ));
    lines.push(NOT_FIXED.to_string());
    lines.join("\n") + "\n"
}

/// What a pin leaves to chance, whatever the program.
const NOT_FIXED: &str =
    "A pin fixes each pinned function's offset in its cache lines, 32-byte windows and page, and \
    the sets its lines map to, in every seed, and gives it lines of its own (filler, not another \
    function, in the rest of its first and last line). It does not fix the order of the \
    functions, so not their addresses (which pages the hot code shares, the sets of larger \
    caches), the functions left free or not hot, the data layout, nor another machine's caches. \
    Whether it steadies the program is measured, not assumed: build with it, run, and compare \
    the spread of the pinned seeds with this experiment's, and their mean: the layout it copies \
    was the fastest of several, and lines of their own make it another layout, which may be \
    slower than the typical one.";

/// The first line of a program's (or library's) pin: what it places, and (on the `first`
/// line; every entry copies the same layout) from which layout.
fn pinned(p: &ProgramPin, answer: &PinAnswer, first: bool) -> String {
    let s = &p.source;
    let slower = s.median / s.mean - 1.0;
    let program = &answer.program;
    let (what, of) = match (p.program == *program, answer.libraries.is_empty()) {
        (true, true) => (p.program.clone(), "its own instructions".to_string()),
        (true, false) => (
            p.program.clone(),
            format!("the instructions of {program}'s and its libraries' functions"),
        ),
        (false, _) => (
            format!("{}, the build's library {program} loads", p.program),
            format!("the instructions of {program}'s and its libraries' functions"),
        ),
    };
    let head = format!(
        "Pinned {} of {what} ({} of {of}{})",
        counted(hot_names(p), "executed function", "executed functions"),
        percent(s.ir_share, 3),
        shared_names(p)
    );
    if !first {
        return format!("{head}, from the same layout.");
    }
    format!(
        "{head} where {} had them, the fastest of {} random layouts ({} mean {}; the median \
         layout {}, {} more).",
        s.binary,
        s.layouts,
        s.metric,
        quantity(s.mean, &s.unit),
        quantity(s.median, &s.unit),
        percent(slower, 2)
    )
}

/// The hot functions' names a pin places: a name several functions share counts once, as
/// the profile counted it.
fn hot_names(p: &ProgramPin) -> usize {
    let names: std::collections::BTreeSet<&str> =
        p.functions.iter().map(|f| f.name.as_str()).collect();
    names.len()
}

/// The names a pin places as several functions, each with its file, as a clause (empty when
/// none).
fn shared_names(p: &ProgramPin) -> String {
    let mut files: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for f in &p.functions {
        if let Some(file) = &f.file {
            files.entry(f.name.as_str()).or_default().push(file);
        }
    }
    let clauses: Vec<String> = files
        .iter()
        .map(|(name, files)| {
            format!(
                "{name} as each of its {} functions, in {}",
                files.len(),
                crate::report::words::and_list(files)
            )
        })
        .collect();
    match clauses.as_slice() {
        [] => String::new(),
        _ => format!(
            "; {}: a profile without debug information counts the functions of one name as one",
            clauses.join("; ")
        ),
    }
}

/// Why a function is left free, in words.
fn freedom(why: Freedom) -> &'static str {
    match why {
        Freedom::NameNotUnique => "several functions have this name",
        Freedom::NotInBinary => "not in the binary copied",
        Freedom::LibraryBeyondPage => {
            "a library loads at a page boundary of its own, so only its offset in a page, not \
             in the longer set period, is the library's to keep"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::pin::LeftFree;
    use crate::files::pin::{PinFile, PinSource, PinnedFunction, ProgramPin};

    #[test]
    fn a_pin_is_said_with_its_source_what_it_leaves_free_and_what_it_does_not_fix() {
        let pinned = |name: &str, offset| PinnedFunction {
            name: name.into(),
            file: None,
            offset,
            size: 300,
        };
        let source = |ir_share| PinSource {
            binary: "seed-17".into(),
            metric: "wall".into(),
            unit: "ns".into(),
            mean: 1.234e9,
            median: 1.301e9,
            layouts: 30,
            ir_share,
        };
        let answer = PinAnswer {
            schema: 3,
            tool_version: "0",
            pin: PinFile {
                schema: 1,
                programs: [
                    ("lua", "luaV_execute", 48, 0.512),
                    ("liblua.so", "luaH_get", 1024, 0.4),
                ]
                .map(|(program, name, offset, share)| ProgramPin {
                    program: program.into(),
                    period: 4096,
                    line: 64,
                    functions: vec![pinned(name, offset)],
                    source: source(share),
                })
                .to_vec(),
            },
            written: "lua-pin.json".into(),
            experiment: "lua-out".into(),
            program: "lua".into(),
            libraries: vec!["liblua.so".into()],
            left_free: vec![
                LeftFree {
                    name: "helper".into(),
                    library: None,
                    why: Freedom::NameNotUnique,
                },
                LeftFree {
                    name: "luaL_check".into(),
                    library: Some("liblua.so".into()),
                    why: Freedom::NotInBinary,
                },
            ],
            cache: crate::layout::features::ICache {
                line: 64,
                sets: 64,
                ways: 8,
            },
            simulated: false,
            layout_share: Some(0.62),
            report_settled: None,
        };
        insta::assert_snapshot!(render(&answer));
        // Made from a cachegrind run: measured on that simulated cache.
        let simulated = PinAnswer {
            simulated: true,
            ..answer
        };
        insta::assert_snapshot!("made_under_cachegrind", render(&simulated));
        // Where the report finds the layout negligible: a pin has that little to steady.
        let negligible = PinAnswer {
            layout_share: Some(0.0),
            report_settled: Some(crate::analysis::explain::ReportSettled {
                verdict: crate::analysis::vocabulary::Verdict::Negligible,
                bound: 0.0065,
                negligible: 0.01,
            }),
            ..simulated
        };
        insta::assert_snapshot!("negligible_layout", render(&negligible));
    }
}
