//! What the shim does with one call: find the real tool, classify, add `-ffunction-sections`,
//! record final links, and run the real tool.
//!
//! The rule above all: never break a build. Any internal error is written to the record
//! directory's `errors.log` and the real tool runs with the original arguments.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};

use super::classify::{self, CallKind, Classified, Language, LinkInputArg, ToolKind};
use super::record::{self, LinkRecord, LinkTool, RecordedInput};
use super::{
    AfterLink, ENV_DATA_SECTIONS, ENV_NESTED, ENV_REAL_PATH, ENV_RECORD_DIR, ENV_SHIM_DIR,
};

/// The shim's view of its environment.
struct ShimEnv {
    /// Where records go; `None` outside `layoutrand build` (then: pure pass-through).
    record_dir: Option<PathBuf>,
    /// PATH without the shim directory: where real tools are looked up, and the PATH the
    /// real tools run with (so that `ccache gcc` or collect2 never finds the shim again).
    real_path: OsString,
    /// Set inside a link the shim itself runs (collect2 calling `ld`): pass through.
    nested: bool,
    /// `build --data-order`: compiles get `-fdata-sections` too ([`ENV_DATA_SECTIONS`]).
    data_sections: bool,
    /// Called after each recorded final link.
    after_link: AfterLink,
}

impl ShimEnv {
    fn from_env(after_link: AfterLink) -> ShimEnv {
        let shim_dir = std::env::var_os(ENV_SHIM_DIR).map(PathBuf::from);
        let real_path = std::env::var_os(ENV_REAL_PATH).unwrap_or_else(|| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let kept: Vec<PathBuf> = std::env::split_paths(&path)
                .filter(|p| Some(p) != shim_dir.as_ref())
                .collect();
            std::env::join_paths(kept).unwrap_or(path)
        });
        ShimEnv {
            record_dir: std::env::var_os(ENV_RECORD_DIR).map(PathBuf::from),
            real_path,
            nested: std::env::var_os(ENV_NESTED).is_some(),
            data_sections: std::env::var_os(ENV_DATA_SECTIONS).is_some_and(|v| v == "1"),
            after_link,
        }
    }

    /// The options a compile (or an LTO link, which generates code) of `c` gets: one section
    /// per function unless already asked, and under `build --data-order` one per static
    /// datum unless the user's flags say either way (a user's `-fno-data-sections` is kept:
    /// that module's data then moves as one section per kind).
    fn section_options(&self, c: &Classified) -> Vec<&'static str> {
        let mut options = Vec::new();
        if !c.function_sections {
            options.push("-ffunction-sections");
        }
        if self.data_sections && c.data_sections.is_none() {
            options.push("-fdata-sections");
        }
        options
    }

    fn log_error(&self, what: &str, err: &anyhow::Error) {
        if let Some(dir) = &self.record_dir {
            let line = format!("{what}: {err:#}");
            if let Err(unwritten) = record::append_line(dir, record::ERRORS_LOG, &line) {
                self.unusable(&format!("{unwritten:#} (logging: {line})"));
            }
        }
    }

    fn log_seen(&self, kind: &str, tool: &str, output: &str) {
        if let Some(dir) = &self.record_dir {
            let cwd = std::env::current_dir().unwrap_or_default();
            let line = format!("{kind}\t{tool}\t{output}\t{}", cwd.display());
            if let Err(unwritten) = record::append_line(dir, record::SEEN_LOG, &line) {
                self.unusable(&format!("{unwritten:#}"));
            }
        }
    }

    /// The record directory cannot be written (`why`): the call goes on unrecorded, as
    /// every call does, and the build is told once, by the first shim to create the
    /// marker `layoutrand build` named (each compile of a build is a process of its own).
    fn unusable(&self, why: &str) {
        let Some(marker) = std::env::var_os(super::ENV_SHIM_WARNED) else {
            return;
        };
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&marker);
        if let Ok(mut file) = created {
            let _ = std::io::Write::write_all(&mut file, why.as_bytes());
            let dir = self.record_dir.as_deref().unwrap_or(Path::new(""));
            crate::diagnostic!(
                "layoutrand shim: warning: cannot write the build's record in {} ({why}): the \
                 build goes on, its calls unchanged and unrecorded from here (said once per \
                 build)",
                crate::printable::for_terminal(&dir.display().to_string())
            );
        }
    }
}

/// Finds `name` on `path`, skipping anything that is this executable (no recursion).
pub(crate) fn find_real_tool(name: &str, path: &OsString) -> Option<PathBuf> {
    let me = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    std::env::split_paths(path).find_map(|dir| {
        let candidate = dir.join(name);
        let meta = std::fs::metadata(&candidate).ok()?;
        use std::os::unix::fs::PermissionsExt;
        if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
            return None;
        }
        let canonical = candidate.canonicalize().ok()?;
        (Some(&canonical) != me.as_ref()).then_some(candidate)
    })
}

/// Runs the shim for a call of `tool_name` (a compiler or linker name) with `args`.
/// `explicit_real` is the real tool when known (launcher mode); `after_link` runs after each
/// recorded final link. Returns the exit code.
pub(crate) fn run(
    tool_name: &str,
    kind: ToolKind,
    args: Vec<OsString>,
    explicit_real: Option<PathBuf>,
    after_link: AfterLink,
) -> i32 {
    let ctx = ShimEnv::from_env(after_link);
    let real = match explicit_real.or_else(|| find_real_tool(tool_name, &ctx.real_path)) {
        Some(r) => r,
        None => {
            crate::diagnostic!(
                "layoutrand shim: cannot find the real `{tool_name}` on PATH (after the shim directory)"
            );
            return 127;
        }
    };
    if ctx.record_dir.is_none() || ctx.nested {
        return exec(&real, &args, &ctx);
    }
    match plan(&ctx, tool_name, kind, &real, &args) {
        Ok(Plan::Exec(new_args)) => exec(&real, &new_args, &ctx),
        Ok(Plan::Done(code)) => code,
        Err(err) => {
            // Seen too, so that a build whose only link was not recorded is not said to
            // have called no tool at all.
            ctx.log_seen("not-recorded", tool_name, "");
            ctx.log_error(&format!("{tool_name} {args:?}"), &err);
            exec(&real, &args, &ctx)
        }
    }
}

/// Passes a call of a tool the shim only watches (`ar`) through, noting it in `seen.log`.
pub(crate) fn observe(tool_name: &str, args: Vec<OsString>) -> i32 {
    let ctx = ShimEnv::from_env(|_, _| Ok(()));
    let Some(real) = find_real_tool(tool_name, &ctx.real_path) else {
        crate::diagnostic!("layoutrand shim: cannot find the real `{tool_name}` on PATH");
        return 127;
    };
    if !ctx.nested {
        let target = args
            .iter()
            .skip(1)
            .find(|a| !a.to_string_lossy().starts_with('-'))
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default();
        ctx.log_seen(tool_name, tool_name, &target);
    }
    exec(&real, &args, &ctx)
}

enum Plan {
    /// Replace this process by the real tool with these arguments.
    Exec(Vec<OsString>),
    /// The shim ran the tool itself (a recorded link) and this is its exit code.
    Done(i32),
}

fn plan(
    ctx: &ShimEnv,
    tool_name: &str,
    kind: ToolKind,
    real: &Path,
    args: &[OsString],
) -> Result<Plan> {
    let utf8: Vec<String> = args
        .iter()
        .map(|a| {
            a.to_str()
                .map(str::to_string)
                .ok_or_else(|| anyhow!("argument {a:?} is not UTF-8; passed through"))
        })
        .collect::<Result<_>>()?;
    let cwd = std::env::current_dir()?;
    let expanded = super::atfile::expand(&utf8, &cwd);
    let c = classify::classify(kind, &expanded);
    let output = c.output_path().unwrap_or("").to_string();
    match c.kind {
        CallKind::Compile => {
            ctx.log_seen("compile", tool_name, &output);
            let mut new_args = args.to_vec();
            if kind == ToolKind::Driver && c.has_sectioned_source() {
                new_args.extend(ctx.section_options(&c).into_iter().map(OsString::from));
            }
            Ok(Plan::Exec(new_args))
        }
        CallKind::Link | CallKind::SharedLink if c.is_configure_probe() => {
            ctx.log_seen("probe-link", tool_name, &output);
            Ok(Plan::Exec(args.to_vec()))
        }
        CallKind::Link | CallKind::SharedLink if !output_may_be_replaced(&cwd.join(&output)) => {
            // `-o /dev/null`, a FIFO, a symbolic link...: the shim only ever records (and a
            // live relink only ever replaces) a regular file the link itself writes.
            ctx.log_seen("non-regular-output", tool_name, &output);
            Ok(Plan::Exec(args.to_vec()))
        }
        CallKind::Link | CallKind::SharedLink
            if !c.sources.is_empty() && classify::side_output_option(&expanded).is_some() =>
        {
            let option = classify::side_output_option(&expanded).unwrap_or_default();
            ctx.log_seen(
                "side-output-link",
                tool_name,
                &format!("{output} ({option})"),
            );
            Ok(Plan::Exec(args.to_vec()))
        }
        // A shared library is recorded like a program: its seeds are relinked the same way,
        // and `run` makes each seed's programs load that seed's copy.
        CallKind::Link | CallKind::SharedLink => {
            let record_dir = ctx.record_dir.as_deref().expect("checked by caller");
            record_link(
                ctx, record_dir, tool_name, kind, real, args, expanded, c, cwd,
            )
        }
        other => {
            let label = match other {
                CallKind::RelocatableLink => "relocatable-link",
                CallKind::Preprocess => "preprocess",
                CallKind::DependencyOnly => "dependencies",
                CallKind::SyntaxOnly => "syntax-only",
                CallKind::StdoutOutput => "stdout-output",
                _ => "info",
            };
            ctx.log_seen(label, tool_name, &output);
            Ok(Plan::Exec(args.to_vec()))
        }
    }
}

#[allow(clippy::too_many_arguments)]
// Long on purpose: the link's story in order (compile apart, LTO options, copy inputs, run,
// record), each step a function; the record is assembled from what each step returned.
fn record_link(
    ctx: &ShimEnv,
    record_dir: &Path,
    tool_name: &str,
    kind: ToolKind,
    real: &Path,
    args: &[OsString],
    expanded: Vec<String>,
    c: Classified,
    cwd: PathBuf,
) -> Result<Plan> {
    let line = LinkLine {
        run_args: args.to_vec(),
        record_args: expanded,
        split_objects: Vec::new(),
        classified: c,
    };
    let LinkLine {
        mut run_args,
        mut record_args,
        split_objects,
        classified: c,
    } = match sources_compiled_apart(ctx, record_dir, real, kind, line)? {
        Ok(line) => line,
        Err(code) => return Ok(Plan::Done(code)),
    };
    if kind == ToolKind::Driver && c.lto {
        // Under -flto the code is generated at link time: one section per function there too.
        let options = ctx.section_options(&c);
        run_args.extend(options.iter().map(OsString::from));
        record_args.extend(options.iter().map(|o| o.to_string()));
    }
    let inputs = copy_inputs(record_dir, &c, &cwd)?;
    let started_unix_nanos = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let output = cwd.join(c.output_path().unwrap_or("a.out"));
    // Under LTO, the compiler keeps the code it generates in the recording: every relink
    // then uses the user's own LTO code (src/wrap/lto_keep.rs).
    let keep = (kind == ToolKind::Driver && c.lto)
        .then(|| LtoKeep::new(record_dir, real, &record_args, &output, started_unix_nanos))
        .flatten();
    if let Some(keep) = &keep {
        run_args.extend(keep.args.iter().map(OsString::from));
    }
    let (status, seconds) = run_link(ctx, real, &run_args, &split_objects);
    let lto_objects = match &keep {
        Some(keep) => keep.finish(record_dir, &status),
        None => Vec::new(),
    };
    let code = exit_code(status?);
    let shared = c.kind == CallKind::SharedLink;
    if !linked(ctx, tool_name, code, shared, &output) {
        return Ok(Plan::Done(code));
    }
    if !shared {
        mark_unread(&output);
    }
    let env = recorded_env(ctx);
    let link = LinkRecord {
        tool: match kind {
            ToolKind::Driver => LinkTool::Driver,
            ToolKind::Linker => LinkTool::Linker,
        },
        tool_name: tool_name.to_string(),
        real_tool: real.to_path_buf(),
        args: record_args,
        cwd,
        env,
        inputs,
        output_span: c.output.as_ref().map(|(span, _)| *span),
        output,
        lto: c.lto,
        shared,
        lto_objects,
        fuse_ld: c.fuse_ld.clone(),
        seconds,
        started_unix_nanos,
    };
    save_link(ctx, record_dir, &link);
    Ok(Plan::Done(code))
}

/// A link's command line: the arguments that run (the original ones, with their @files,
/// unless sources had to be compiled separately first), those recorded (expanded), the
/// objects compiled for it separately, and its classification.
struct LinkLine {
    run_args: Vec<OsString>,
    record_args: Vec<String>,
    split_objects: Vec<PathBuf>,
    classified: Classified,
}

/// `line` with its source files compiled separately first, each replaced by its object
/// (recorded like any other input); unchanged without sources; `Err(code)` when a
/// compilation failed (the user's build then fails as it would have).
fn sources_compiled_apart(
    ctx: &ShimEnv,
    record_dir: &Path,
    real: &Path,
    kind: ToolKind,
    mut line: LinkLine,
) -> Result<std::result::Result<LinkLine, i32>> {
    if line.classified.sources.is_empty() {
        return Ok(Ok(line));
    }
    match split_compile(ctx, record_dir, real, &line.record_args, &line.classified)? {
        Split::Objects(objects) => {
            for (source, object) in line.classified.sources.iter().zip(&objects) {
                line.record_args[source.index] = object.display().to_string();
            }
            line.run_args = line.record_args.iter().map(OsString::from).collect();
            line.classified = classify::classify(kind, &line.record_args);
            line.split_objects = objects;
            Ok(Ok(line))
        }
        Split::Failed(code) => Ok(Err(code)),
    }
}

/// Runs the real link (`real` with `run_args`, not shimmed again) and removes the objects
/// compiled for it separately (`split_objects`); returns its status and its seconds.
fn run_link(
    ctx: &ShimEnv,
    real: &Path,
    run_args: &[OsString],
    split_objects: &[PathBuf],
) -> (Result<std::process::ExitStatus>, f64) {
    let start = Instant::now();
    let status = real_command(real, run_args, ctx)
        .env(ENV_NESTED, "1")
        .status()
        .with_context(|| format!("running {}", real.display()));
    let seconds = start.elapsed().as_secs_f64();
    for object in split_objects {
        if let Ok((dir, name)) = crate::files::confined::parent_of(object) {
            let _ = dir.remove_file(name);
        }
    }
    (status, seconds)
}

/// Writes the record of `link`, then relinks it at once when the build is live; a record
/// that cannot be written is logged (the user's build goes on).
fn save_link(ctx: &ShimEnv, record_dir: &Path, link: &LinkRecord) {
    if let Err(err) = record::write_record(record_dir, link) {
        ctx.log_error(
            &format!("recording the link of {}", link.output.display()),
            &err,
        );
        return;
    }
    live_relink(ctx, record_dir, link);
}

/// Sets the access time of the program just linked at `output` to its modification time,
/// so that the first read of it by the build (running it, e.g. CPython's `_freeze_module`)
/// moves the access time past it (under the default `relatime` mount as under
/// `strictatime`): `crate::relink::programs` then knows the build ran it. Best effort: a
/// file system mounted `noatime`, or one that refuses, leaves it unknown.
fn mark_unread(output: &Path) {
    let Ok(file) = std::fs::File::open(output) else {
        return;
    };
    if let Ok(modified) = file.metadata().and_then(|m| m.modified()) {
        let _ = file.set_times(std::fs::FileTimes::new().set_accessed(modified));
    }
}

/// Whether the link (of `tool_name`, a shared one when `shared`) that ended with `code`
/// left a regular file at `output` to record; logs what it was either way.
fn linked(ctx: &ShimEnv, tool_name: &str, code: i32, shared: bool, output: &Path) -> bool {
    ctx.log_seen(
        match (code == 0, shared) {
            (true, false) => "link",
            (true, true) => "shared-link",
            (false, _) => "failed-link",
        },
        tool_name,
        &output.display().to_string(),
    );
    if code != 0 {
        return false;
    }
    if !is_regular_file(output) {
        // The link wrote no regular file there (the path became a device or a link
        // meanwhile): nothing the build could relink.
        ctx.log_seen(
            "non-regular-output",
            tool_name,
            &output.display().to_string(),
        );
        return false;
    }
    true
}

/// The environment variables a link is recorded with ([`record::RECORDED_ENV`]), `PATH`
/// being the real tools' one rather than the shims'.
fn recorded_env(ctx: &ShimEnv) -> BTreeMap<String, String> {
    record::RECORDED_ENV
        .iter()
        .filter_map(|name| {
            let value = if *name == "PATH" {
                Some(ctx.real_path.clone())
            } else {
                std::env::var_os(name)
            };
            Some((name.to_string(), value?.to_string_lossy().into_owned()))
        })
        .collect()
}

/// Where one LTO link keeps the code it generates, and the options that ask for it.
struct LtoKeep {
    /// A directory of its own under the recording (removed after the link).
    dir: PathBuf,
    /// Added to the link's arguments as it runs (not to the recorded ones).
    args: Vec<String>,
    clang: bool,
    output_name: String,
}

impl LtoKeep {
    fn new(
        record_dir: &Path,
        real: &Path,
        args: &[String],
        output: &Path,
        nanos: u128,
    ) -> Option<LtoKeep> {
        let clang = super::lto_keep::is_clang(real);
        let output_name = output.file_name()?.to_string_lossy().into_owned();
        let rel =
            Path::new(super::lto_keep::TEMPS_DIR).join(format!("{nanos}-{}", std::process::id()));
        let dir = record_dir.join(&rel);
        let args = super::lto_keep::keep_args(clang, args, &dir, &output_name)?;
        crate::files::confined::ExperimentDir::create(record_dir)
            .and_then(|root| root.create_dir_all(&rel))
            .ok()?;
        Some(LtoKeep {
            dir,
            args,
            clang,
            output_name,
        })
    }

    /// After the link (`status`): the LTO code it generated, stored in the recording when
    /// it succeeded (see [`LtoKeep::store`]); its directory is removed either way, and the
    /// common parent too once no other link is using it.
    fn finish(&self, record_dir: &Path, status: &Result<std::process::ExitStatus>) -> Vec<String> {
        let objects = match status {
            Ok(s) if s.success() => self.store(record_dir),
            _ => Vec::new(),
        };
        if let Ok(root) = crate::files::confined::ExperimentDir::create(record_dir) {
            if let Ok(rel) = root.rel(&self.dir) {
                let _ = root.remove_dir_all(rel);
                let _ = root.remove_empty_dir(super::lto_keep::TEMPS_DIR);
            }
        }
        objects
    }

    /// Stores the objects the link kept as blobs, in partition order (none found: empty, and
    /// the build falls back to generating the code once more).
    fn store(&self, record_dir: &Path) -> Vec<String> {
        super::lto_keep::kept_objects(self.clang, &self.dir, &self.output_name)
            .iter()
            .map(|o| record::store_blob(record_dir, o, record::InputKind::Object))
            .collect::<Result<Vec<_>>>()
            .unwrap_or_default()
    }
}

/// Hands the recorded link to the build stage's hook (under `layoutrand build --rebuild`: the
/// live relink for the binary). A failure leaves the ordinary link in place and is logged.
fn live_relink(ctx: &ShimEnv, record_dir: &Path, link: &LinkRecord) {
    if let Err(err) = (ctx.after_link)(link, record_dir) {
        let what = format!("live relink of {}", link.output.display());
        ctx.log_error(&what, &err);
    }
}

enum Split {
    Objects(Vec<PathBuf>),
    Failed(i32),
}

/// Compiles the sources of a compile-and-link call (`cc -O2 a.c b.c -o prog`) one by one with
/// `-c -ffunction-sections`, so that the link that follows consumes objects a replay can
/// reorder. Returns the objects in source order.
fn split_compile(
    ctx: &ShimEnv,
    record_dir: &Path,
    real: &Path,
    args: &[String],
    c: &Classified,
) -> Result<Split> {
    if c.sources.iter().any(|s| s.path == "-") {
        bail!(
            "a compile-and-link call reading its source from standard input: not recorded \
             (the call ran as it was; compile that source with -c first to have its program \
             randomised)"
        );
    }
    if let Some(s) = c
        .sources
        .iter()
        .find(|s| s.explicit_language || s.language == Language::OtherSource)
    {
        bail!(
            "compile-and-link call with source {} (-x or a non-C/C++ language): not recorded",
            s.path
        );
    }
    let common = compile_options(args, c);
    let dir = record_dir.join("split");
    crate::files::confined::ExperimentDir::create(record_dir)?.create_dir_all("split")?;
    let mut objects = Vec::new();
    for (n, source) in c.sources.iter().enumerate() {
        let stem = Path::new(&source.path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let object = dir.join(format!("{}-{n}-{stem}.o", std::process::id()));
        let mut cmd = real_command(real, &[], ctx);
        cmd.args(&common)
            .arg("-c")
            .arg(&source.path)
            .arg("-o")
            .arg(&object);
        if source.language.takes_function_sections() {
            cmd.args(ctx.section_options(c));
        }
        let status = cmd.status()?;
        if !status.success() {
            return Ok(Split::Failed(exit_code(status)));
        }
        objects.push(object);
    }
    Ok(Split::Objects(objects))
}

/// The arguments of a compile-and-link call that each separate compilation keeps: all but
/// the sources, the link inputs, the output and the linker's options (`-Wl,`, `-L`,
/// `-Xlinker` and its argument).
fn compile_options<'a>(args: &'a [String], c: &Classified) -> Vec<&'a String> {
    let mut drop = vec![false; args.len()];
    for s in &c.sources {
        drop[s.index] = true;
    }
    for input in &c.link_inputs {
        let span = input.span();
        drop[span.start..span.start + span.len].fill(true);
    }
    if let Some((span, _)) = &c.output {
        drop[span.start..span.start + span.len].fill(true);
    }
    for (i, a) in args.iter().enumerate() {
        if a.starts_with("-Wl,") || a.starts_with("-L") {
            drop[i] = true;
        }
        if a == "-Xlinker" {
            drop[i] = true;
            if i + 1 < args.len() {
                drop[i + 1] = true;
            }
        }
    }
    args.iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(a, _)| a)
        .collect()
}

/// Copies the link's objects and archives (the build's own, not the system's) into the record.
fn copy_inputs(record_dir: &Path, c: &Classified, cwd: &Path) -> Result<Vec<RecordedInput>> {
    let mut inputs = Vec::new();
    for input in &c.link_inputs {
        let (resolved, written) = match input {
            LinkInputArg::File { path, .. } => (Some(cwd.join(path)), path.clone()),
            LinkInputArg::Library { name, .. } => (
                resolve_library(name, &c.library_dirs, cwd, c.static_link),
                format!("-l{name}"),
            ),
        };
        let Some(resolved) = resolved else { continue };
        if is_system_path(&resolved) {
            continue;
        }
        let Some(kind) = record::input_kind(&resolved) else {
            continue;
        };
        let blob = record::store_blob(record_dir, &resolved, kind)?;
        inputs.push(RecordedInput {
            span: input.span(),
            written,
            resolved,
            kind,
            blob,
        });
    }
    Ok(inputs)
}

/// The archive `-lNAME` names among the command line's `-L` directories, if the linker would
/// pick an archive there (a shared library found first is left to the linker).
fn resolve_library(name: &str, dirs: &[String], cwd: &Path, static_link: bool) -> Option<PathBuf> {
    for dir in dirs {
        let dir = cwd.join(dir);
        if let Some(file) = name.strip_prefix(':') {
            let p = dir.join(file);
            if p.is_file() {
                return Some(p);
            }
            continue;
        }
        if !static_link && dir.join(format!("lib{name}.so")).exists() {
            return None;
        }
        let archive = dir.join(format!("lib{name}.a"));
        if archive.is_file() {
            return Some(archive);
        }
    }
    None
}

/// Whether a link may write `output` as a regular file: it does not exist yet, or it is a
/// regular file (not a device such as `/dev/null`, a FIFO, a directory or a symbolic link).
pub(crate) fn output_may_be_replaced(output: &Path) -> bool {
    match std::fs::symlink_metadata(output) {
        Ok(meta) => meta.file_type().is_file(),
        Err(err) => err.kind() == std::io::ErrorKind::NotFound,
    }
}

/// Whether `path` is a regular file itself (a symbolic link is not).
pub(crate) fn is_regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Files of the installed system (libc's crt files, distribution libraries) are not copied:
/// they do not change between the recorded build and its replays. Rust's standard library
/// (the `.rlib`s of a toolchain's sysroot, `…/lib/rustlib/<target>/lib/`, wherever rustup
/// or a distribution put it) is the system's too: like libc.a it is used in place and its
/// members keep their order, so its code (and which of its members a link extracts) is the
/// plain build's in every seed.
fn is_system_path(path: &Path) -> bool {
    ["/usr/", "/lib/", "/lib64/", "/lib32/"]
        .iter()
        .any(|p| path.starts_with(p))
        || path.to_str().is_some_and(|p| p.contains("/lib/rustlib/"))
}

fn real_command(real: &Path, args: &[OsString], ctx: &ShimEnv) -> Command {
    // The user's compiler or linker, inside the user's build: the shim leaves its life to
    // the build (make's signals reach the whole process group), as the compiler it stands
    // for would.
    #[allow(clippy::disallowed_methods)]
    let mut cmd = Command::new(real);
    cmd.args(args).env("PATH", &ctx.real_path);
    cmd
}

fn exec(real: &Path, args: &[OsString], ctx: &ShimEnv) -> i32 {
    let err = real_command(real, args, ctx).exec();
    crate::diagnostic!("layoutrand shim: cannot run {}: {err}", real.display());
    127
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}
