//! Which functions matter: one run of the default-layout binary under cachegrind, its
//! instructions executed (`Ir`, independent of the layout) and first-level instruction cache
//! misses (`I1mr`, a second signal) per function.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::analysis::explain::Problem;
use crate::files::cache_model::CacheModel;
use crate::layout::binary::Function;
use crate::layout::features::{Phase, SharedHot, HOT_IN_PHASE, PHASE_BLOCKS};

/// The most hot functions screened (each adds one test per feature): explain's hot rule
/// (`crate::analysis::explain::HOT_RULE`) takes the fewest functions, hottest first, whose
/// instructions cover 99 % of the program's own, and at most this many.
pub(crate) const MAX_HOT: usize = crate::analysis::explain::HOT_RULE.most;

/// Defined with the screening that ranks by it (analysis sits below this orchestration).
pub(crate) use crate::analysis::explain::HotFunction;

pub(crate) use crate::run::callgrind::parse_callgrind_instructions;
pub(crate) use crate::run::metric::EventCounts;

/// The hot functions among `own` (the names of the program's own functions): the counts of
/// `profile` restricted to them (a library's code is not relinked, so it cannot be a
/// culprit), hottest first, cut by `rule` (explain's: `HOT_RULE`).
pub(crate) fn select_hot(
    profile: &BTreeMap<String, (f64, f64)>,
    own: &std::collections::BTreeSet<String>,
    rule: crate::analysis::explain::HotRule,
) -> Vec<HotFunction> {
    let mut mine: Vec<(&String, f64, f64)> = profile
        .iter()
        .filter(|(name, (ir, _))| own.contains(name.as_str()) && *ir > 0.0)
        .map(|(n, (ir, i1))| (n, *ir, *i1))
        .collect();
    let total: f64 = mine.iter().map(|m| m.1).sum();
    // Hottest first; the name breaks ties so the selection is deterministic.
    mine.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut covered = 0.0;
    let mut hot = Vec::new();
    for (name, ir, i1) in mine {
        // A rule covering everything takes every executed function, whatever the rounding
        // of the running sum.
        if hot.len() >= rule.most || (rule.cover < 1.0 && covered >= rule.cover * total) {
            break;
        }
        covered += ir;
        hot.push(HotFunction {
            name: name.clone(),
            ir,
            ir_share: ir / total,
            i1_misses: i1,
            library: None,
        });
    }
    hot
}

/// An object valgrind read symbols from in a process of the profiled program: a shared
/// library it loaded, and the separate debug file valgrind took its names from (when one
/// was found and valid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadedObject {
    /// The object's path.
    pub(crate) path: PathBuf,
    /// Its debug file (`/usr/lib/debug/.build-id/…`), whose `.symtab` names what valgrind
    /// names.
    pub(crate) debug: Option<PathBuf>,
}

/// The shared libraries the processes running `program` loaded, from valgrind's `-v`
/// log (`--PID-- Reading syms from PATH`, then `Considering DEBUG ..` and `.. build-id is
/// valid`): every object a process read after `program`, except valgrind's own (under a
/// `valgrind` directory), each once.
pub(crate) fn loaded_objects(log: &str, program: &Path) -> Vec<LoadedObject> {
    let same = |p: &Path| {
        let canon = |q: &Path| std::fs::canonicalize(q).unwrap_or_else(|_| q.to_path_buf());
        canon(p) == canon(program)
    };
    let mut per_pid: BTreeMap<&str, Vec<LoadedObject>> = BTreeMap::new();
    let mut considering: BTreeMap<&str, PathBuf> = BTreeMap::new();
    for line in log.lines() {
        let Some((pid, rest)) = line.strip_prefix("--").and_then(|l| l.split_once("-- ")) else {
            continue;
        };
        let rest = rest.trim_start();
        if let Some(path) = rest.strip_prefix("Reading syms from ") {
            per_pid.entry(pid).or_default().push(LoadedObject {
                path: PathBuf::from(path.trim_end()),
                debug: None,
            });
        } else if let Some(path) = rest.strip_prefix("Considering ") {
            let path = path.trim_end().trim_end_matches("..").trim_end();
            considering.insert(pid, PathBuf::from(path));
        } else if rest.starts_with(".. ") && rest.ends_with("is valid") {
            let candidate = considering.remove(pid);
            if let Some(last) = per_pid.get_mut(pid).and_then(|v| v.last_mut()) {
                last.debug = candidate;
            }
        }
    }
    let mut found: Vec<LoadedObject> = Vec::new();
    for objects in per_pid.values() {
        // A process that exec'd the program (a shell's `exec`) keeps its pid: its objects
        // after the program's are the program's.
        let Some(at) = objects.iter().position(|o| same(&o.path)) else {
            continue;
        };
        for o in &objects[at + 1..] {
            let valgrinds = o.path.components().any(|c| c.as_os_str() == "valgrind");
            if !valgrinds && !found.iter().any(|f| f.path == o.path) {
                found.push(o.clone());
            }
        }
    }
    found
}

/// The hot code of the shared libraries in `objects`: the functions of `profile` that are
/// not the program's own (`own`), executed at least `min_ir` instructions (the coldest hot
/// function's count, so that both sides are cut by one bar), hottest first, at most
/// [`MAX_HOT`], each placed at its address in the first object whose symbol table (its
/// debug file's, else its own, else its dynamic one) names it once. Also the objects placed
/// by their exported functions only and those whose symbols could not be read.
pub(crate) fn shared_hot(
    profile: &BTreeMap<String, (f64, f64)>,
    own: &std::collections::BTreeSet<String>,
    objects: &[LoadedObject],
    min_ir: f64,
) -> (Vec<SharedHot>, Vec<Problem>) {
    let mut warnings = Vec::new();
    let mut tables: Vec<(&LoadedObject, BTreeMap<String, Option<Function>>)> = Vec::new();
    for o in objects {
        let read = o.debug.as_deref().unwrap_or(&o.path);
        let listed = crate::layout::binary::functions(read).or_else(|e| {
            // Stripped, as distributions ship libraries: the exported functions still
            // place the code the profile names by them.
            let exported = crate::layout::binary::exported_functions(&o.path)
                .ok()
                .filter(|f| !f.is_empty())
                .ok_or(e)?;
            warnings.push(Problem::ExportedOnly {
                object: o.path.display().to_string(),
            });
            Ok::<_, anyhow::Error>(exported)
        });
        match listed {
            Ok(functions) => {
                let mut by_name: BTreeMap<String, Option<Function>> = BTreeMap::new();
                for f in functions {
                    by_name
                        .entry(f.name.clone())
                        .and_modify(|slot| *slot = None)
                        .or_insert(Some(f));
                }
                tables.push((o, by_name));
            }
            Err(e) => warnings.push(Problem::NoSymbols {
                object: o.path.display().to_string(),
                error: format!("{e:#}"),
            }),
        }
    }
    let mut candidates: Vec<(&String, f64)> = profile
        .iter()
        .filter(|(name, (ir, _))| !own.contains(name.as_str()) && *ir >= min_ir && *ir > 0.0)
        .map(|(name, (ir, _))| (name, *ir))
        .collect();
    candidates.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut hot = Vec::new();
    for (name, ir) in candidates {
        if hot.len() >= MAX_HOT {
            break;
        }
        let placed = tables.iter().find_map(|(o, table)| match table.get(name) {
            Some(Some(f)) => Some((o, f)),
            _ => None,
        });
        if let Some((o, f)) = placed {
            hot.push(SharedHot {
                name: name.clone(),
                object: o.path.display().to_string(),
                address: f.address,
                size: f.size,
                ir,
            });
        }
    }
    (hot, warnings)
}

/// The stderr of a profile run without valgrind's own `-v` lines (`--PID-- …`,
/// `==PID== …`): what the program said.
fn program_messages(stderr: &str) -> String {
    let valgrinds = |l: &str| {
        (l.starts_with("--") || l.starts_with("=="))
            && l[2..].starts_with(|c: char| c.is_ascii_digit())
    };
    let kept: Vec<&str> = stderr.lines().filter(|l| !valgrinds(l)).collect();
    kept.join("\n").trim_end().to_string()
}

/// Runs the valgrind command line `v` (its tool `tool`, for the messages) in `cwd` with
/// `env`, and returns its output; a failure of the run is an error with what the program
/// said.
fn run_valgrind(
    v: &[OsString],
    (cwd, env, ok): (Option<&Path>, &[(String, String)], &[i32]),
    tool: &str,
) -> Result<std::process::Output> {
    let mut cmd = crate::child::command(&v[0]);
    cmd.args(&v[1..]);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    cmd.envs(env.iter().map(|(k, val)| (k, val)));
    let kept = || crate::signals::Kept::Nothing {
        command: crate::child::display_args(v),
    };
    let out =
        crate::signals::output_until_interrupted(&mut cmd, crate::signals::Reach::Group, kept)?
            .with_context(|| {
                format!("cannot start valgrind (is it installed?) for the {tool} profile")
            })?;
    // valgrind ends with the program's own status: the run's `--ok-exit-codes` are ok too.
    let ended_ok = out
        .status
        .code()
        .is_some_and(|c| crate::run::settings::exit_ok(ok, c));
    if !ended_ok {
        bail!(
            "the profile run under {tool} failed ({}): {}",
            out.status,
            program_messages(&String::from_utf8_lossy(&out.stderr))
        );
    }
    Ok(out)
}

/// What one profile run shows: per-function `(Ir, I1mr)` totals summed over every process
/// it started, and valgrind's log (`-v`), which names the objects each process loaded.
pub(crate) struct Profile {
    /// Per-function totals.
    pub(crate) functions: BTreeMap<String, (f64, f64)>,
    /// valgrind's messages.
    pub(crate) log: String,
}

/// Runs `argv` (the benchmark command with the baseline binary in place of `{bin}`) once
/// under cachegrind simulating `model`, in `cwd` with `env` (the run's fixed environment; an
/// exit status of `ok`, the run's `--ok-exit-codes`, or 0 is a success), with its output
/// files in `scratch`, and returns the per-function counts summed over every process it
/// started and valgrind's log.
pub(crate) fn profile(
    argv: &[OsString],
    model: &CacheModel,
    how: (Option<&Path>, &[(String, String)], &[i32]),
    scratch: &Path,
) -> Result<Profile> {
    let (counts, log) = profile_counts(argv, model, how, scratch, true)?;
    if !(counts.events.iter().any(|e| e == "Ir") && counts.events.iter().any(|e| e == "I1mr")) {
        bail!("the cachegrind output lacks Ir or I1mr (was --cache-sim=yes given?)");
    }
    Ok(Profile {
        functions: instructions_and_misses(&counts),
        log,
    })
}

/// Per function of `counts`, its instructions executed (`Ir`) and first-level instruction
/// cache misses (`I1mr`), 0 where the files lack the event: the profile [`select_hot`] ranks.
pub(crate) fn instructions_and_misses(counts: &EventCounts) -> BTreeMap<String, (f64, f64)> {
    counts
        .functions
        .keys()
        .map(|name| {
            let get = |e: &str| counts.event(name, e).unwrap_or(0.0);
            (name.clone(), (get("Ir"), get("I1mr")))
        })
        .collect()
}

/// Runs `argv` once under cachegrind simulating `model` (as [`profile`]), and returns every
/// event per function summed over every process it started, with valgrind's log (`-v` when
/// `verbose`: the objects each process loaded).
pub(crate) fn profile_counts(
    argv: &[OsString],
    model: &CacheModel,
    how: (Option<&Path>, &[(String, String)], &[i32]),
    scratch: &Path,
    verbose: bool,
) -> Result<(EventCounts, String)> {
    let mut v = crate::run::metric::cachegrind_argv(scratch, Some(model), argv);
    // Symbol names as in .symtab, so they match the binary's functions (C++ included);
    // -v names the objects each process loads (the shared libraries' code).
    v.insert(1, "--demangle=no".into());
    if verbose {
        v.retain(|a| a != "--quiet");
        v.insert(1, "-v".into());
    }
    let out = run_valgrind(&v, how, "cachegrind")?;
    let totals = EventCounts::of_dir(scratch)?;
    if totals.functions.is_empty() {
        bail!(
            "valgrind wrote no cachegrind output in {}",
            scratch.display()
        );
    }
    Ok((totals, String::from_utf8_lossy(&out.stderr).into_owned()))
}

/// The hot code of one stretch of the profile: its instructions executed at least
/// [`HOT_IN_PHASE`] times, those of the objects relinked with the program (`image`: each
/// object's file and the base it is placed at in `functions`, the program's at 0) as
/// offsets in their functions (`functions`, the image's symbol tables; instructions
/// outside a uniquely named function left out), the other objects' at their addresses
/// (valgrind's own and unnamed code left out).
pub(crate) fn phase_of(
    counts: &BTreeMap<(String, u64), f64>,
    image: &[(PathBuf, u64)],
    functions: &[Function],
) -> Phase {
    let canon = |q: &Path| std::fs::canonicalize(q).unwrap_or_else(|_| q.to_path_buf());
    let image: Vec<(PathBuf, u64)> = image.iter().map(|(p, base)| (canon(p), *base)).collect();
    let mut sorted: Vec<&Function> = functions.iter().filter(|f| f.size > 0).collect();
    sorted.sort_by_key(|f| f.address);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for f in functions {
        *seen.entry(f.name.as_str()).or_default() += 1;
    }
    let mut phase = Phase {
        stretches: 1,
        ..Phase::default()
    };
    let mut base_of: BTreeMap<&str, Option<u64>> = BTreeMap::new();
    for ((object, address), ir) in counts {
        if *ir < HOT_IN_PHASE {
            continue;
        }
        let base = *base_of.entry(object.as_str()).or_insert_with(|| {
            let path = canon(Path::new(object));
            image
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, base)| *base)
        });
        if let Some(base) = base {
            let address = address + base;
            let at = sorted.partition_point(|f| f.address <= address);
            let Some(f) = at.checked_sub(1).map(|i| sorted[i]) else {
                continue;
            };
            if address < f.address + f.size && seen[f.name.as_str()] == 1 {
                phase.own.push((f.name.clone(), address - f.address, 1));
            }
        } else {
            let path = Path::new(object);
            let valgrinds = path.components().any(|c| c.as_os_str() == "valgrind");
            if path.is_absolute() && !valgrinds {
                phase.shared.push((object.clone(), *address, 1));
            }
        }
    }
    phase
}

/// The phases of the callgrind files in `dir` (each file one stretch of one process), the
/// empty ones left out and repeated ones (a loop running over several stretches) once,
/// with their number of stretches.
pub(crate) fn read_phases(
    dir: &Path,
    image: &[(PathBuf, u64)],
    functions: &[Function],
) -> Result<Vec<Phase>> {
    let mut phases = Vec::new();
    for (path, text) in crate::files::confined::read_outputs_named(dir, "callgrind.out.")? {
        let counts =
            parse_callgrind_instructions(&text).with_context(|| path.display().to_string())?;
        let phase = phase_of(&counts, image, functions);
        if !phase.own.is_empty() || !phase.shared.is_empty() {
            phases.push(phase);
        }
    }
    phases.sort();
    let mut distinct: Vec<Phase> = Vec::new();
    for phase in phases {
        match distinct.last_mut() {
            Some(last) if last.own == phase.own && last.shared == phase.shared => {
                last.stretches += phase.stretches;
            }
            _ => distinct.push(phase),
        }
    }
    Ok(distinct)
}

/// Runs `argv` once under callgrind (no cache simulation: only which instructions run
/// when), in `cwd` with `env`, cutting its time line every [`PHASE_BLOCKS`] basic blocks,
/// with its output files in `scratch`.
pub(crate) fn profile_phases(
    argv: &[OsString],
    how: (Option<&Path>, &[(String, String)], &[i32]),
    scratch: &Path,
) -> Result<()> {
    let mut v: Vec<OsString> = [
        "valgrind".to_string(),
        "--tool=callgrind".to_string(),
        "--dump-instr=yes".to_string(),
        "--dump-line=no".to_string(),
        "--cache-sim=no".to_string(),
        "--trace-children=yes".to_string(),
        "--quiet".to_string(),
        format!("--dump-every-bb={PHASE_BLOCKS}"),
        format!(
            "--callgrind-out-file={}/callgrind.out.%p",
            scratch.display()
        ),
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    v.extend(argv.iter().cloned());
    run_valgrind(&v, how, "callgrind")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_summed_per_function() {
        let text = "desc: I1 cache: 32768 B\ncmd: x\nevents: Ir I1mr ILmr\nfl=a.c\nfn=f\n\
                    1 10 2 1\n2 5\nfl=b.c\nfn=g\n3 7 1 0\nfn=f\n4 1 1 0\nsummary: 23 4 1\n";
        let t = EventCounts::parse(text).unwrap();
        assert_eq!(t.events, ["Ir", "I1mr", "ILmr"]);
        assert_eq!(t.functions["f"], [16.0, 3.0, 1.0]);
        assert_eq!(t.functions["g"], [7.0, 1.0, 0.0]);
        assert!(EventCounts::parse("fn=f\n1 2\n").is_err());
        // The derived metrics per function, by the run's own definitions.
        let i1 = t.metric("I1_misses").unwrap();
        assert_eq!((i1["f"], i1["g"]), (3.0, 1.0));
        assert_eq!(t.metric("ILmr").unwrap()["f"], 1.0);
        assert!(t.metric("D1_misses").is_none());
        // The profile `run` keeps of a binary is read back as it was counted.
        assert_eq!(EventCounts::parse(&t.to_text()).unwrap(), t);
    }

    /// The objects of the process that ran the program, with the debug file valgrind
    /// validated; valgrind's own preload and another process's objects left out.
    #[test]
    fn loaded_objects_are_read_from_valgrinds_log() {
        let log = "--10-- Reading syms from /bin/sh\n\
                   --10-- Reading syms from /lib/libc.so.6\n\
                   --11-- Reading syms from /nonexistent/prog\n\
                   --11-- Reading syms from /lib/ld-linux.so.2\n\
                   --11--   Considering /usr/lib/debug/.build-id/7e/bc.debug ..\n\
                   --11--   .. build-id is valid\n\
                   --11-- Reading syms from /usr/libexec/valgrind/vgpreload_core.so\n\
                   --11--    object doesn't have a symbol table\n\
                   --11-- Reading syms from /lib/libm.so.6\n\
                   --11--   Considering /usr/lib/debug/.build-id/d6/e6.debug ..\n\
                   --11--   .. CRC mismatch (computed 1 wanted 2)\n\
                   ==11== I   refs: 1\n";
        let found = loaded_objects(log, Path::new("/nonexistent/prog"));
        assert_eq!(
            found,
            vec![
                LoadedObject {
                    path: "/lib/ld-linux.so.2".into(),
                    debug: Some("/usr/lib/debug/.build-id/7e/bc.debug".into()),
                },
                LoadedObject {
                    path: "/lib/libm.so.6".into(),
                    debug: None,
                },
            ]
        );
    }

    /// A stretch's hot instructions: the program's and a relinked library's as offsets in
    /// their functions (not in a function, or in one whose name is not unique: left out),
    /// another library's at its address, valgrind's own left out, and those executed fewer
    /// than HOT_IN_PHASE times too.
    #[test]
    fn a_phase_holds_the_hot_instructions_by_function_and_offset() {
        let hot = HOT_IN_PHASE;
        let counts: BTreeMap<(String, u64), f64> = [
            ("/nonexistent/prog", 0x1010, hot),
            ("/nonexistent/prog", 0x1020, hot - 1.0),
            ("/nonexistent/prog", 0x2004, hot),
            ("/nonexistent/prog", 0x3000, hot),
            ("/nonexistent/prog", 0x5000, hot),
            ("/nonexistent/lib/libq.so", 0x508, hot),
            ("/lib/libc.so.6", 0x98930, hot * 10.0),
            ("/usr/libexec/valgrind/vgpreload_core.so", 0x10, hot),
            ("???", 0x10, hot),
        ]
        .into_iter()
        .map(|(o, a, ir)| ((o.to_string(), a), ir))
        .collect();
        let functions = vec![
            Function::named("f", 0x1000, 0x100),
            Function::named("g", 0x2000, 0x10),
            Function::named("twin", 0x3000, 0x10),
            Function::named("twin", 0x4000, 0x10),
            Function::named("q", super::super::image::LIBRARY_BASE + 0x500, 0x10),
        ];
        let image = [
            (PathBuf::from("/nonexistent/prog"), 0),
            (
                PathBuf::from("/nonexistent/lib/libq.so"),
                super::super::image::LIBRARY_BASE,
            ),
        ];
        let phase = phase_of(&counts, &image, &functions);
        assert_eq!(
            phase.own,
            vec![
                ("q".to_string(), 8, 1),
                ("f".to_string(), 0x10, 1),
                ("g".to_string(), 4, 1)
            ]
        );
        assert_eq!(
            phase.shared,
            vec![("/lib/libc.so.6".to_string(), 0x98930, 1)]
        );
        assert_eq!(phase.stretches, 1);
    }

    #[test]
    fn hot_rule_covers_99_percent_of_own_instructions() {
        // Own instructions: a 900, b 95, c 4, d 1 (1000): a + b = 99.5 % ≥ 99 %, so two.
        let p: BTreeMap<String, (f64, f64)> = [
            ("a", 900.0),
            ("b", 95.0),
            ("c", 4.0),
            ("d", 1.0),
            ("libc_thing", 5000.0),
        ]
        .into_iter()
        .map(|(n, ir)| (n.to_string(), (ir, 1.0)))
        .collect();
        let own = ["a", "b", "c", "d"].map(String::from).into_iter().collect();
        let hot = select_hot(&p, &own, crate::analysis::explain::HOT_RULE);
        let names: Vec<&str> = hot.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!((hot[0].ir_share - 0.9).abs() < 1e-12);
    }
}
