//! What `build` did, in words: how each program was relinked (its mechanism and linker),
//! and why a program was left out of the seeds, from the manifest's enums and figures.

use crate::files::manifest::{
    BuildMode, BuildNote, BuildTool, Exclusion, LeftOut, Manifest, Mechanism, ProgramSummary,
    Relinking, ALL_PROGRAMS,
};

/// The lines `build` prints after its summary, one per note, except that the build's tools
/// left out for one reason share a line, where the first of them was (dash's build runs four
/// generators before it links dash: one line, not four).
pub fn notes(notes: &[BuildNote]) -> Vec<String> {
    // Each line, or for a group of tools the index of its group.
    let mut lines: Vec<Result<String, usize>> = Vec::new();
    let mut groups: Vec<(&BuildTool, Vec<&str>)> = Vec::new();
    for n in notes {
        match n {
            BuildNote::Tool { name, tool } => match groups.iter_mut().find(|(t, _)| *t == tool) {
                Some((_, names)) => names.push(name),
                None => {
                    lines.push(Err(groups.len()));
                    groups.push((tool, vec![name]));
                }
            },
            other => lines.push(Ok(note(other))),
        }
    }
    lines
        .into_iter()
        .map(|line| line.unwrap_or_else(|g| tools_note(groups[g].0, &groups[g].1)))
        .collect()
}

/// The note on the build's tools `names`, left out for the reason `tool`.
fn tools_note(tool: &BuildTool, names: &[&str]) -> String {
    match names {
        [_, _, ..] => format!(
            "note: {} are tools the build runs ({}), not its programs: not relinked (name one \
             in --programs to relink it)",
            super::and_list(names),
            tool_reason(tool, true)
        ),
        _ => format!(
            "note: {} is a tool the build runs ({}), not one of its programs: not relinked \
             (name it in --programs to relink it)",
            super::and_list(names),
            tool_reason(tool, false)
        ),
    }
}

/// Why a tool the build runs is one, for one tool or for several.
fn tool_reason(tool: &BuildTool, several: bool) -> String {
    match (tool, several) {
        (BuildTool::BuildScript, false) => "a cargo build script".to_string(),
        (BuildTool::BuildScript, true) => "cargo build scripts".to_string(),
        (BuildTool::ProcMacro, false) => "a Rust proc-macro library, loaded by rustc".to_string(),
        (BuildTool::ProcMacro, true) => "Rust proc-macro libraries, loaded by rustc".to_string(),
        (BuildTool::RanBeforeLinking { before }, false) => {
            format!("the build ran it before it linked {before}")
        }
        (BuildTool::RanBeforeLinking { before }, true) => {
            format!("the build ran each before it linked {before}")
        }
    }
}

/// One of the lines `build` prints after its summary (a tool's alone: [`notes`] words the
/// tools together).
fn note(n: &BuildNote) -> String {
    match n {
        BuildNote::Chosen {
            relinked,
            linked,
            others,
            libraries,
        } => format!(
            "note: relinked {relinked} of the {linked} programs the build linked (those \
             --programs names{}); not relinked: {} (add them to --programs, or `--programs \
             {ALL_PROGRAMS}`, to measure them)",
            match libraries.as_slice() {
                [] => String::new(),
                [one] => format!(", and {one}, a library of the build that they load"),
                many => format!(
                    ", and {}, libraries of the build that they load",
                    listed(many)
                ),
            },
            others.join(", ")
        ),
        BuildNote::Tool { name, tool } => tools_note(tool, &[name]),
        BuildNote::Plugins {
            plugins,
            programs,
            relinked,
        } => plugins_note(plugins, programs, relinked),
        BuildNote::Tests { tests, kept } => format!(
            "note: {} ({}: {}) not relinked, so each seed relinks only {}; to \
             measure a test program too, build with {}",
            crate::units::counted(tests.len(), "test program", "test programs"),
            if tests.len() == 1 {
                "by its name"
            } else {
                "by their names"
            },
            listed(tests),
            listed(kept),
            programs_and(kept, "NAME"),
        ),
        BuildNote::AsBuiltNotKept { why } => format!(
            "as built: not kept, so not measured ({why}); the baseline is the relinked default \
             layout only"
        ),
        BuildNote::Retried { seeds } => {
            let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
            format!(
                "relinking again the seeds that had failed or lacked a program: {}",
                seeds.join(", ")
            )
        }
        BuildNote::PinResized { program, functions } => format!(
            "the pin of {program}: {} differ in size from the layout the pin copies ({}), so at \
             the pin's offsets they span other cache lines than there; make the pin again from \
             an experiment with this code",
            crate::units::counted(functions.len(), "function", "functions"),
            functions.join(", ")
        ),
        BuildNote::Extended {
            new_seeds,
            seconds,
            seeds,
        } => format!(
            "--extend relinked {} in {seconds:.2} s; the table and the relink time above \
             count all {seeds} seeds of the manifest",
            crate::report::numfmt::counted(*new_seeds, "new seed", "new seeds")
        ),
    }
}

/// The note on the shared libraries no relinked program needs.
fn plugins_note(plugins: &[String], programs: &[String], relinked: &[String]) -> String {
    let (them, plugin) = if plugins.len() == 1 {
        ("it", "a plugin")
    } else {
        ("them", "plugins")
    };
    // A library none of the build's programs needs may be a plugin (gawk's extensions) or
    // one the build only installs for others (lame's libmp3lame.so, its own program linked
    // statically): either way nothing relinked loads it unless by `dlopen`.
    format!(
        "note: {} not relinked ({}): no program relinked ({}) lists {them} among the \
         libraries it needs, so none loads {them} unless at run time ({plugin}, or for \
         programs outside the build), and every seed would load the build's own copy; to \
         randomise one too, build with {}",
        crate::units::counted(plugins.len(), "shared library", "shared libraries"),
        listed(plugins),
        listed(programs),
        programs_and(relinked, "NAME"),
    )
}

/// At most [`LISTED`] of `names`, comma-separated, then how many more.
fn listed(names: &[String]) -> String {
    match names.len().checked_sub(LISTED) {
        Some(more) if more > 0 => format!("{}, and {more} more", names[..LISTED].join(", ")),
        _ => names.join(", "),
    }
}

/// Names a build note lists before it counts the rest.
const LISTED: usize = 8;

/// The `--programs` that relinks `programs` and `name` too (`--programs all` beside it when
/// the programs are too many to spell out).
fn programs_and(programs: &[String], name: &str) -> String {
    if programs.len() > LISTED {
        format!("`--programs all` (every program the build linked), or `--programs` naming {name} and the ones to keep")
    } else {
        format!(
            "`--programs {},{name}` (or `--programs {ALL_PROGRAMS}` for every program the build \
             linked)",
            programs.join(",")
        )
    }
}

/// The manifest's mechanisms in words, each distinct one once (in the order of their
/// words), after the rebuild's words under `--rebuild`; an older manifest's own words.
pub(crate) fn mechanisms(m: &Manifest) -> String {
    if m.mechanisms.is_empty() {
        return m.recorded_mechanism.clone().unwrap_or_default();
    }
    let rebuild = if m.mode == BuildMode::Rebuild {
        "full rebuild per seed; "
    } else {
        ""
    };
    let mut words: Vec<String> = (m.mechanisms.iter())
        .map(|r| format!("{rebuild}{}", relinking(*r)))
        .collect();
    words.sort();
    words.dedup();
    words.join("; ")
}

/// How one program is relinked, e.g. `objects merged once by ld.bfd -r in the recorded
/// order (resolution pinned); per seed, its section table permuted: modules in a random
/// order; archive members permuted; then bfd`.
pub(crate) fn relinking(r: Relinking) -> String {
    let l = match r.direct {
        true => format!(
            "{}, called directly (the same bytes as through the compiler driver, checked)",
            r.linker.name()
        ),
        false => r.linker.name().to_string(),
    };
    let merged = "objects merged once by ld.bfd -r in the recorded order (resolution pinned); \
                  per seed, its section table permuted";
    let members = "archive members permuted and their section tables reordered";
    match r.mechanism {
        Mechanism::MergedLink => {
            format!("{merged}: modules in a random order; archive members permuted; then {l}")
        }
        Mechanism::MergedModule => format!(
            "{merged}: modules in a random order and functions shuffled within each; \
             {members}; then {l}"
        ),
        Mechanism::MergedGlobal => {
            format!("{merged}: all functions in one random order; {members}; then {l}")
        }
        Mechanism::LtoKept => format!(
            "-flto: the LTO link's own code kept (its partitions' objects, a section per \
             function) and merged once by ld.bfd -r; per seed, its section table permuted: \
             its functions in one random order; {members}; then {l}"
        ),
        Mechanism::Padded => format!(
            "objects merged once by ld.bfd -r in the recorded order (resolution pinned); per \
             seed, seeded padding in front of each function, every order kept (modules, \
             archive members, functions); then {l}"
        ),
        Mechanism::LtoOnce => format!(
            "-flto: code generated once more into one object with a section per function \
             (-r: the link's own code could not be kept, globals not internalised); \
             per seed, its section table permuted: its functions in one random order; \
             {members}; then {l}"
        ),
    }
}

/// Why program `p` was left out of the seeds (or, for a library, is not randomised); `None`
/// when it is randomised.
pub(crate) fn exclusion(p: &ProgramSummary) -> Option<String> {
    Some(match p.excluded.as_ref()? {
        Exclusion::Recorded(words) => words.clone(),
        Exclusion::Known(LeftOut::LinkFailedInEverySeed { first_error }) => format!(
            "its link failed in every seed ({})",
            first_error.as_deref().unwrap_or("no seed built it")
        ),
        Exclusion::Known(LeftOut::NothingToMove { built, seeds }) => format!(
            "its layout equals the baseline's in every seed ({built} of {seeds}): it has \
             nothing the seeds move (one object whose functions cannot trade places: one \
             function, or one per group the linker places apart, such as `main` in \
             .text.startup beside one other function; or one object under `--granularity \
             link`){}",
            if p.library {
                "; each seed keeps its copy, which its programs load"
            } else {
                ""
            }
        ),
        Exclusion::Known(LeftOut::NotRelinked { error, relinked }) => {
            let hint = if relinked.is_empty() {
                String::new()
            } else {
                format!(
                    " (to leave it out, build with `--programs {}`)",
                    relinked.join(",")
                )
            };
            format!("it could not be relinked: {error}{hint}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tools left out for one reason share a line at the first one's place (dash
    /// 0.5.12: four generators the build ran before it linked dash); a tool of another
    /// reason keeps its own line, the other notes theirs.
    #[test]
    fn tools_left_out_for_one_reason_share_a_line() {
        let ran = |name: &str| BuildNote::Tool {
            name: name.into(),
            tool: BuildTool::RanBeforeLinking {
                before: "dash".into(),
            },
        };
        let notes = [
            ran("mknodes"),
            BuildNote::Tests {
                tests: vec!["dash_test".into()],
                kept: vec!["dash".into()],
            },
            ran("mksyntax"),
            BuildNote::Tool {
                name: "libderive.so".into(),
                tool: BuildTool::ProcMacro,
            },
            ran("mkinit"),
            ran("mksignames"),
        ];
        insta::assert_snapshot!(super::notes(&notes).join("\n"));
    }
}
