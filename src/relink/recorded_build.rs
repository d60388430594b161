//! Running the user's build command once under the shim: a shim directory first on PATH, the
//! record directory in the environment, the command in its own process group, its output
//! shown and the tail kept for the error message.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::signals::{self, Kept};
use crate::wrap::{self, record};

/// Lines of the build's output quoted when it fails.
const TAIL_LINES: usize = 30;

/// A finished recorded build.
#[derive(Debug)]
pub(crate) struct RecordedBuild {
    /// The final links the shim recorded (last link of each output).
    pub(crate) links: Vec<record::LinkRecord>,
    /// Wall time of the build command, seconds.
    pub(crate) seconds: f64,
    /// Internal errors the shim logged (each call went through unchanged).
    pub(crate) shim_errors: Vec<String>,
}

/// Runs `command` in `cwd` with the shim, recording into `record_dir` (created fresh).
/// `echo` shows the build's output as it comes; `extra_env` is added to the build's
/// environment (the live-relink settings of `--rebuild`).
// Long on purpose: one build under the shim, in order (environment, spawn and wait under
// the signals module's keeper, sign the records, gather the shims' errors, refuse a build
// that linked nothing); the marker folder must live for the whole build, so the steps share
// one scope.
pub(crate) fn run(
    command: &[String],
    cwd: &Path,
    record_dir: &Path,
    echo: bool,
    extra_env: &[(String, String)],
) -> Result<RecordedBuild> {
    if command.is_empty() {
        bail!(
            "no build command given: put it after `--`, e.g. `layoutrand build --seeds 5 -- make`"
        );
    }
    if let (Some(parent), Some(name)) = (record_dir.parent(), record_dir.file_name()) {
        crate::files::confined::ExperimentDir::open(parent)
            .and_then(|dir| dir.remove_dir_all(name))
            .with_context(|| format!("removing the old record {}", record_dir.display()))?;
    }
    // Where the first shim that cannot write the record says so (once for the build).
    let warned = tempfile::Builder::new()
        .prefix("layoutrand-shim")
        .tempdir()
        .context("creating a temporary folder")?;
    let marker = warned.path().join("unusable");
    let mut env = shim_environment(record_dir, extra_env)?;
    env.push((
        wrap::ENV_SHIM_WARNED.into(),
        marker.clone().into_os_string(),
    ));
    let start = Instant::now();
    let shown = crate::child::display_args(command);
    // SIGINT/SIGTERM kill the build's whole process group, and so does its end: nothing it
    // started outlives it (the signals module's one waiting).
    let kept = || Kept::NoRecord {
        command: shown.clone(),
        record: record_dir.to_path_buf(),
    };
    let waited = signals::until_interrupted_spawned(
        signals::Reach::Group,
        kept,
        || spawn(command, cwd, &env),
        |mut child, output| {
            let tail = read_output(output, echo)?;
            Ok((tail, child.wait()?))
        },
    )?;
    let (tail, status) =
        waited.with_context(|| format!("cannot run the build command `{shown}`"))?;
    let seconds = start.elapsed().as_secs_f64();
    if !status.success() {
        return Err(failure(command, status, &tail));
    }
    let links = program_links(record_dir)?;
    // What this build recorded is the user's own: a later `--extend` relinks from it.
    record::sign_records(record_dir);
    let mut shim_errors: Vec<String> = record::read_log(record_dir, record::ERRORS_LOG)
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default();
    let unusable = std::fs::read_to_string(&marker).ok();
    if let Some(why) = &unusable {
        shim_errors.insert(
            0,
            format!(
                "the record directory {} could not be written during the build ({why}): the \
                 calls from then on ran unchanged and unrecorded",
                record_dir.display()
            ),
        );
    }
    if links.is_empty() {
        bail!(
            "{}",
            no_link_message(command, cwd, record_dir, &shim_errors, unusable.is_some())
        );
    }
    Ok(RecordedBuild {
        links,
        seconds,
        shim_errors,
    })
}

/// The build's environment (besides what it inherits): the shims first on PATH, where the
/// shim finds the real tools and writes its record, and `extra_env`. Installs the shims.
fn shim_environment(
    record_dir: &Path,
    extra_env: &[(String, String)],
) -> Result<Vec<(OsString, OsString)>> {
    let shim_dir = record_dir.join("shims");
    let exe = std::env::current_exe().context("finding the layoutrand executable")?;
    wrap::install_shims(&shim_dir, &exe)?;
    let real_path = std::env::var_os("PATH").unwrap_or_default();
    let mut path_entries: Vec<PathBuf> = vec![shim_dir.clone()];
    path_entries.extend(std::env::split_paths(&real_path));
    let shim_path = std::env::join_paths(path_entries)?;
    let mut env: Vec<(OsString, OsString)> = extra_env
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    env.extend([
        ("PATH".into(), shim_path),
        (wrap::ENV_REAL_PATH.into(), real_path),
        (wrap::ENV_SHIM_DIR.into(), shim_dir.into_os_string()),
        (
            wrap::ENV_RECORD_DIR.into(),
            record_dir.as_os_str().to_owned(),
        ),
        // ccache would answer compiles from its cache without calling the shim.
        ("CCACHE_DISABLE".into(), "1".into()),
    ]);
    Ok(env)
}

/// The error of a failed build command: its status and the last lines of its output.
fn failure(command: &[String], status: ExitStatus, tail: &VecDeque<String>) -> anyhow::Error {
    let status = match status.code() {
        Some(code) => format!("exit status {code}"),
        None => format!("signal {}", status.signal().unwrap_or(0)),
    };
    let output = if tail.is_empty() {
        "It printed nothing.".to_string()
    } else {
        let quoted: Vec<String> = tail.iter().map(|l| format!("  | {l}")).collect();
        format!("Last lines of its output:\n{}", quoted.join("\n"))
    };
    anyhow::anyhow!(
        "the build command `{}` failed ({status}); no binaries were produced. {output}",
        crate::child::display_args(command),
    )
}

/// The recorded links of programs, probes (links whose output the build deleted again) left
/// out; a note names the probes, and another the compile-and-link calls that ran unchanged.
fn program_links(record_dir: &Path) -> Result<Vec<record::LinkRecord>> {
    let links = record::read_records(record_dir)?;
    // A link whose output the build deleted again was a probe (zstd's Makefile links
    // `have_zlib` and friends to test for libraries, then removes them): not a program.
    // Only a regular file the link wrote is a program (never a device or a link to one).
    let (kept, probes): (Vec<_>, Vec<_>) = links
        .into_iter()
        .partition(|l| wrap::shim::is_regular_file(&l.output));
    for probe in &probes {
        record::discard_output(record_dir, &probe.output)?;
    }
    if !probes.is_empty() {
        let names: Vec<String> = probes
            .iter()
            .map(|l| l.output.display().to_string())
            .collect();
        crate::diagnostic!(
            "layoutrand: left out {} link(s) whose output the build deleted again (probes, not programs): {}",
            probes.len(),
            names.join(", ")
        );
    }
    let side = record::seen_outputs(record_dir, "side-output-link");
    if !side.is_empty() {
        crate::diagnostic!(
            "layoutrand: note: {} compile-and-link call(s) write side outputs named after their \
             objects (dependency files, coverage data, split DWARF, temporaries), so they ran \
             unchanged and are not randomised: {}. Compile with -c and link the objects to \
             randomise them.",
            side.len(),
            side.join(", ")
        );
    }
    Ok(kept)
}

/// Starts the build command in `cwd`, in its own process group, killed with layoutrand, its
/// stdin empty and its stdout and stderr one pipe (their lines interleave as on a terminal).
/// Returns the child and the pipe's reading end.
fn spawn(
    command: &[String],
    cwd: &Path,
    env: &[(OsString, OsString)],
) -> std::io::Result<(Child, std::fs::File)> {
    let (reading, writing) = nix::unistd::pipe()?;
    let mut cmd = crate::child::command(&command[0]);
    cmd.args(&command[1..])
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove(wrap::ENV_NESTED)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writing.try_clone()?))
        .stderr(Stdio::from(writing))
        .process_group(0);
    let child = cmd.spawn()?;
    // `cmd` holds the writing end: dropped here, the pipe ends when the build's processes
    // have all closed it.
    drop(cmd);
    Ok((child, reading.into()))
}

/// Reads the build's output to its end, showing it as it comes when `echo`; returns its last
/// [`TAIL_LINES`] lines.
fn read_output(output: std::fs::File, echo: bool) -> std::io::Result<VecDeque<String>> {
    let mut tail: VecDeque<String> = VecDeque::with_capacity(TAIL_LINES);
    let mut lines = BufReader::new(output);
    let mut line = Vec::new();
    loop {
        line.clear();
        if lines.read_until(b'\n', &mut line)? == 0 {
            return Ok(tail);
        }
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        if echo {
            // The user's own build, echoed as it wrote it (colours included): not a file of
            // an experiment directory, so not made printable as diagnostics are.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "{text}");
        }
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(text);
    }
}

/// Why nothing can be relinked: what the shim saw instead, and the likely cause.
/// `unusable`: the shim could not write the record (what it saw is then unknown).
fn no_link_message(
    command: &[String],
    cwd: &Path,
    record_dir: &Path,
    errors: &[String],
    unusable: bool,
) -> String {
    let seen = record::seen_summary(record_dir);
    let mut msg = format!(
        "the build command `{}` succeeded but no final link of an executable was recorded",
        crate::child::display_args(command)
    );
    if unusable {
        msg.push_str(
            ".\n  The shim could not write the record (see its errors below): its calls ran \
             unchanged and unrecorded. Make the output directory writable (free space, remove \
             what replaced its .record folder) and build again.",
        );
    } else if seen.is_empty() {
        msg.push_str(
            ".\n  The shim saw no compiler, linker or ar call at all: the build called its tools by \
             absolute path, or had nothing to do (already built? run `make clean` first).",
        );
    } else {
        let counts: Vec<String> = seen.iter().map(|(k, n)| format!("{n} × {k}")).collect();
        msg.push_str(&format!(".\n  Calls seen: {}.", counts.join(", ")));
        let only_archives = seen.keys().all(|k| k == "ar" || k == "compile");
        if only_archives && seen.contains_key("ar") {
            msg.push_str(
                "\n  The build only compiled and archived (ar): it produces a static library, \
                 not a program. Build a program that links it.",
            );
        }
        if seen.contains_key("not-recorded") {
            msg.push_str(
                "\n  The shim could not record some calls (each ran as it was): see its errors \
                 below.",
            );
        } else if seen.contains_key("probe-link") && !seen.contains_key("link") {
            msg.push_str("\n  Only configure probes (conftest) linked: did the build itself run?");
        } else if !seen.contains_key("compile") {
            // An up-to-date tree whose Makefile still links feature probes (zstd's
            // have_pthread, ...) on every run: the probes are seen, the program is not.
            msg.push_str(
                "\n  The build compiled nothing: was it already built? Run `make clean` first.",
            );
        }
    }
    if let Some(hint) = cmake_hint(cwd, seen.is_empty()) {
        msg.push_str(&hint);
    }
    if !errors.is_empty() {
        msg.push_str(&format!("\n  Shim errors:\n    {}", errors.join("\n    ")));
    }
    msg
}

/// A CMake build tree calls its compilers by the absolute paths in CMakeCache.txt, past the
/// shim: say how to use the launcher instead, or, where the cache already sets it for every
/// language and the shim saw no call (`nothing_seen`), that the build had nothing to do (the
/// launcher would have shown its calls); with calls seen through it, no hint.
fn cmake_hint(cwd: &Path, nothing_seen: bool) -> Option<String> {
    let cache = std::fs::read_to_string(cwd.join("CMakeCache.txt")).ok()?;
    let entry = |key: &str| {
        cache.lines().find_map(|l| {
            let (name, value) = l.split_once('=')?;
            (name.split(':').next() == Some(key)).then(|| value.trim().to_string())
        })
    };
    let absolute: Vec<(&str, String)> = [("C", "C"), ("CXX", "C++")]
        .into_iter()
        .filter_map(|(lang, word)| {
            let path = entry(&format!("CMAKE_{lang}_COMPILER"))?;
            path.starts_with('/')
                .then_some((lang, format!("{word} compiler ({path})")))
        })
        .collect();
    let through_launcher = |lang: &str| {
        entry(&format!("CMAKE_{lang}_COMPILER_LAUNCHER")).is_some_and(|l| is_our_launcher(&l))
    };
    let (launched, bypassing): (Vec<_>, Vec<_>) = absolute
        .into_iter()
        .partition(|(lang, _)| through_launcher(lang));
    if bypassing.is_empty() {
        return (nothing_seen && !launched.is_empty()).then(|| {
            "\n  CMakeCache.txt already calls the compilers through layoutrand's launcher, which \
             would have shown their calls: the build had nothing to do. Run `make clean` (or \
             `cmake --build . --target clean`), then layoutrand build again."
                .to_string()
        });
    }
    let langs: Vec<&str> = bypassing.iter().map(|(lang, _)| *lang).collect();
    let settings: Vec<String> = langs
        .iter()
        .flat_map(|lang| {
            [
                format!("-DCMAKE_{lang}_COMPILER_LAUNCHER={}", wrap::LAUNCHER_NAME),
                format!("-DCMAKE_{lang}_LINKER_LAUNCHER={}", wrap::LAUNCHER_NAME),
            ]
        })
        .collect();
    let named: Vec<&str> = bypassing.iter().map(|(_, named)| named.as_str()).collect();
    let already = launched
        .iter()
        .map(|(_, named)| format!(" (the {named} already goes through it)"))
        .collect::<String>();
    Some(format!(
        "\n  CMakeCache.txt names the {} by absolute path, with no layoutrand launcher{}, \
         so the shim on PATH is bypassed for {}. Configure with the launcher:\n    cmake {} ...\n  (or \
         `\"/path/to/layoutrand;launch\"` in place of {}), then `make clean` and run layoutrand \
         build again.",
        named.join(" and the "),
        already,
        if bypassing.len() == 1 { "it" } else { "them" },
        settings.join(" "),
        wrap::LAUNCHER_NAME
    ))
}

/// A CMake launcher setting that goes through layoutrand: `layoutrand-launch` (by name or
/// path) or the list form `/path/to/layoutrand;launch`.
fn is_our_launcher(setting: &str) -> bool {
    let mut parts = setting.split(';');
    let tool = parts.next().unwrap_or("");
    let base = tool.rsplit('/').next().unwrap_or(tool);
    base == wrap::LAUNCHER_NAME || (base == "layoutrand" && parts.next() == Some("launch"))
}
