//! LTO code generation once per program: a `-flto` link's code only exists after link-time
//! code generation, and generating it again for every seed costs a full LTO link per seed
//! and lets the seeds' code differ (the link order handed to LTO changes partitioning and
//! inlining). So the recorded link's LTO inputs are turned, once, into one ordinary
//! relocatable object with one section per function:
//!
//! ```text
//! gcc   OPTIONS main.o t1.o libx.a -r -flinker-output=nolto-rel -ffunction-sections -fuse-ld=bfd -o lto/<prog>-<key>.o
//! clang OPTIONS main.o t1.o libx.a -r -ffunction-sections -fuse-ld=lld -o lto/<prog>-<key>.o
//! ```
//!
//! (`-flinker-output=nolto-rel` makes gcc's linker plugin emit machine code rather than
//! LTO IR for `-r`; lld always generates LTO code with one section per function.) The link
//! is then rewritten to use that object in place of its LTO inputs, without `-flto`, and
//! every binary (baseline and seeds) is relinked from it by the merged mechanism like any
//! non-LTO program ([`super::linker::Mechanism::LtoOnce`]). Every seed holds the same code
//! by construction, and any final linker works, lld with gcc's LTO included.
//!
//! The inputs of the step are the link's objects and the static archives holding LTO IR
//! (their members' code is generated with the rest, as in the plain link); other archives,
//! libraries and linker options stay on the final link line. One difference from a plain
//! LTO link remains: for `-r` the linker cannot tell which global symbols the rest of the
//! link will use, so LTO keeps every global function global (it does not internalise
//! them); the code is that of an LTO build whose globals are all exported.
//!
//! The object is keyed by the link's arguments and inputs, so `--extend` reuses it and a
//! changed recording never does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::layout::{archive, object_file};
use crate::wrap::classify::{self, Span};
use crate::wrap::record::{self, InputKind, LinkRecord, LinkTool, RecordedInput};

/// Subdirectory of the record directory holding the generated LTO objects.
pub(crate) const LTO_DIR: &str = "lto";

/// Whether the link's driver is clang (its IR is LLVM bitcode, which lld reads).
pub(crate) fn is_clang(link: &LinkRecord) -> bool {
    crate::wrap::lto_keep::is_clang(&link.real_tool)
}

/// Whether `link` generates code at link time: `-flto` given, or an object holding LTO IR
/// (gcc and lld generate its code even without `-flto` on the link line).
pub(crate) fn generates_code(link: &LinkRecord, record_dir: &Path) -> bool {
    link.lto
        || link
            .inputs
            .iter()
            .filter(|i| i.kind == InputKind::Object)
            .any(|i| record::read_blob(record_dir, &i.blob).is_ok_and(|data| is_ir(&data)))
}

/// Where an LTO program's machine code comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LtoCode {
    /// The objects the user's own LTO link generated, kept by the shim (this many): the code
    /// is exactly the plain LTO build's.
    Kept(usize),
    /// Generated once more by a `-r` link (the objects could not be kept): no
    /// internalisation, so the code differs from the plain LTO build's.
    Regenerated,
}

/// The LTO link `link` of program `name` rewritten to use machine code instead of its LTO
/// inputs, with `lto` false: the objects the recorded link generated itself when the shim
/// kept them, otherwise the code generated once by a `-r` link (or the object an earlier
/// call made from the same recording).
///
/// Errors name the program and carry the compiler's message when the step fails (after a
/// retry with one partition for gcc), and refuse machine code that still holds LTO IR.
pub(crate) fn generate(
    link: &LinkRecord,
    record_dir: &Path,
    name: &str,
) -> Result<(LinkRecord, LtoCode)> {
    if link.tool != LinkTool::Driver {
        bail!("program {name}: an LTO link must go through the compiler driver");
    }
    let blob = |input: &RecordedInput| record_dir.join(record::BLOBS_DIR).join(&input.blob);
    if !link.lto_objects.is_empty() {
        if let Some(rewritten) = kept(link, record_dir, name)? {
            return Ok((rewritten, LtoCode::Kept(link.lto_objects.len())));
        }
    }
    let mut in_step = Vec::with_capacity(link.inputs.len());
    for input in &link.inputs {
        in_step.push(match input.kind {
            InputKind::Object => true,
            InputKind::Archive => archive_holds_ir(&blob(input))
                .with_context(|| format!("program {name}: archive {}", input.written))?,
        });
    }
    if !in_step.contains(&true) {
        bail!("program {name}: the LTO link has no object or LTO archive to generate code from");
    }
    let key = blake3::hash(
        serde_json::to_string(&(&link.args, &link.inputs, &link.real_tool))?.as_bytes(),
    )
    .to_hex();
    let dir = record_dir.join(LTO_DIR);
    crate::files::confined::ExperimentDir::open(record_dir)?.create_dir_all(LTO_DIR)?;
    let object = dir.join(format!("{}-{}.o", name.replace('/', "_"), &key[..16]));
    if !object.is_file() {
        if let Err(err) = run_step(link, &in_step, &blob, &object, name, &[]) {
            // gcc's partitioning has crashed lto1 (an internal compiler error in
            // add_symbol_to_partition_1 on ninja_test); one partition avoids it.
            if is_clang(link) {
                return Err(err);
            }
            run_step(
                link,
                &in_step,
                &blob,
                &object,
                name,
                &["-flto-partition=one"],
            )
            .map_err(|again| err.context(format!("and again with one partition: {again:#}")))?;
        }
    }
    check_output(&object).with_context(|| format!("program {name}: LTO code generation"))?;
    let stored = record::store_blob(record_dir, &object, InputKind::Object)?;
    let objects = [(object.clone(), stored)];
    Ok((
        rewrite(link, &in_step, &objects, name),
        LtoCode::Regenerated,
    ))
}

/// The link rewritten to use the objects its own LTO code generation produced
/// (`link.lto_objects`) in place of its LTO IR inputs (objects and archives holding IR); the
/// inputs without IR stay. `None` when no input holds IR (nothing to replace).
fn kept(link: &LinkRecord, record_dir: &Path, name: &str) -> Result<Option<LinkRecord>> {
    let blobs = record_dir.join(record::BLOBS_DIR);
    let mut in_step = Vec::with_capacity(link.inputs.len());
    for input in &link.inputs {
        let path = blobs.join(&input.blob);
        in_step.push(match input.kind {
            InputKind::Object => is_ir(&record::read_blob(record_dir, &input.blob)?),
            InputKind::Archive => archive_holds_ir(&path)
                .with_context(|| format!("program {name}: archive {}", input.written))?,
        });
    }
    if !in_step.contains(&true) {
        return Ok(None);
    }
    let mut objects = Vec::with_capacity(link.lto_objects.len());
    for stored in &link.lto_objects {
        let path = blobs.join(stored);
        check_output(&path).with_context(|| format!("program {name}: its LTO code"))?;
        objects.push((path, stored.clone()));
    }
    Ok(Some(rewrite(link, &in_step, &objects, name)))
}

/// Whether any member of the archive is LTO IR (gcc's `.gnu.lto_` sections or LLVM
/// bitcode).
fn archive_holds_ir(path: &Path) -> Result<bool> {
    Ok(archive::members_with_data(path)?
        .iter()
        .any(|(_, data)| is_ir(data)))
}

/// Whether `data` is LTO IR (LLVM bitcode, or an object with gcc's LTO sections, fat or
/// slim) rather than machine code alone.
pub(crate) fn is_ir(data: &[u8]) -> bool {
    data.starts_with(b"BC\xc0\xde") || object_file::has_gcc_lto_bytecode(data).unwrap_or(false)
}

/// Runs the `-r` step into a temporary file and renames it to `object`.
fn run_step(
    link: &LinkRecord,
    in_step: &[bool],
    blob: &dyn Fn(&RecordedInput) -> PathBuf,
    object: &Path,
    name: &str,
    extra: &[&str],
) -> Result<()> {
    let starts = input_starts(link);
    let mut args: Vec<String> = Vec::new();
    let mut k = 0;
    while k < link.args.len() {
        if let Some(span) = link.output_span.filter(|s| s.start == k) {
            k += span.len;
            continue;
        }
        if let Some(&i) = starts.get(&k) {
            if in_step[i] {
                args.push(blob(&link.inputs[i]).display().to_string());
            }
            k += link.inputs[i].span.len;
            continue;
        }
        let a = &link.args[k];
        let with_value = classify::driver_option_takes_value(a) && k + 1 < link.args.len();
        let n = if with_value { 2 } else { 1 };
        if keeps_for_step(a) {
            args.extend_from_slice(&link.args[k..k + n]);
        }
        k += n;
    }
    args.push("-r".into());
    args.push("-ffunction-sections".into());
    if is_clang(link) {
        args.push("-fuse-ld=lld".into());
    } else {
        args.push("-flinker-output=nolto-rel".into());
        args.push("-fuse-ld=bfd".into());
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    let staged = object.with_extension("o.tmp");
    args.push("-o".into());
    args.push(staged.display().to_string());
    let output = super::link_command::tool_command(link, &link.real_tool)
        .args(&args)
        .output()
        .with_context(|| format!("cannot run {}", link.real_tool.display()))?;
    if !output.status.success() {
        if let Ok((dir, name)) = crate::files::confined::parent_of(&staged) {
            let _ = dir.remove_file(name);
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().take(12).collect();
        bail!(
            "program {name}: LTO code generation into one object (`{} ... -r`) failed ({}): {}",
            link.real_tool.display(),
            output.status,
            tail.join("\n    ")
        );
    }
    let (dir, name) = crate::files::confined::parent_of(object)?;
    let staged_name = staged.file_name().expect("a file name");
    dir.rename(staged_name, name)
        .with_context(|| format!("storing the LTO object {}", object.display()))
}

/// Where each recorded input starts on the command line: argument index → input index.
fn input_starts(link: &LinkRecord) -> HashMap<usize, usize> {
    link.inputs
        .iter()
        .enumerate()
        .map(|(i, input)| (input.span.start, i))
        .collect()
}

/// Whether an argument of the recorded link (not an input nor the output) goes to the `-r`
/// step: compiler options do (they steer LTO code generation); options of the final link
/// (linker options, libraries, `-pie`, `-static`, the linker choice) and files that are not
/// recorded inputs (shared libraries, linker scripts) do not.
fn keeps_for_step(a: &str) -> bool {
    const DROPPED: &[&str] = &[
        "-Xlinker",
        "-T",
        "-z",
        "-e",
        "-pie",
        "-no-pie",
        "-static",
        "-static-pie",
        "-shared",
        "-rdynamic",
        "-s",
        "-r",
    ];
    const DROPPED_PREFIXES: &[&str] = &[
        "-Wl,",
        "-l",
        "-T",
        "-fuse-ld=",
        "--ld-path=",
        "-flinker-output=",
    ];
    a.starts_with('-')
        && !DROPPED.contains(&a)
        && !DROPPED_PREFIXES.iter().any(|p| a.starts_with(p))
}

/// Options that ask the final link for LTO: left out once the code exists.
fn is_lto_option(a: &str) -> bool {
    a.starts_with("-flto")
        || a == "-fno-lto"
        || a.starts_with("-flinker-output=")
        || matches!(
            a,
            "-ffat-lto-objects"
                | "-fno-fat-lto-objects"
                | "-fuse-linker-plugin"
                | "-fno-use-linker-plugin"
        )
}

/// The generated object must be ordinary machine code.
fn check_output(object: &Path) -> Result<()> {
    let data = std::fs::read(object).with_context(|| format!("reading {}", object.display()))?;
    if is_ir(&data) {
        bail!(
            "{} still holds LTO IR instead of machine code (does this compiler support `-r` \
             with -flto?)",
            object.display()
        );
    }
    object_file::text_sections_from_bytes(&data)
        .with_context(|| format!("{} is not a relocatable object", object.display()))?;
    Ok(())
}

/// The link with the machine-code `objects` (path, blob) at its first LTO input's place, the
/// other LTO inputs and the LTO options left out; spans renumbered.
fn rewrite(
    link: &LinkRecord,
    in_step: &[bool],
    objects: &[(PathBuf, String)],
    name: &str,
) -> LinkRecord {
    let starts = input_starts(link);
    let mut args: Vec<String> = Vec::new();
    let mut inputs: Vec<RecordedInput> = Vec::new();
    let mut output_span = None;
    let mut placed = false;
    let mut k = 0;
    while k < link.args.len() {
        if let Some(span) = link.output_span.filter(|s| s.start == k) {
            output_span = Some(Span {
                start: args.len(),
                len: span.len,
            });
            args.extend_from_slice(&link.args[k..k + span.len]);
            k += span.len;
            continue;
        }
        if let Some(&i) = starts.get(&k) {
            let input = &link.inputs[i];
            if !in_step[i] {
                let mut kept = input.clone();
                kept.span.start = args.len();
                args.extend_from_slice(&link.args[k..k + input.span.len]);
                inputs.push(kept);
            } else if !placed {
                placed = true;
                for (n, (object, blob)) in objects.iter().enumerate() {
                    inputs.push(RecordedInput {
                        span: Span {
                            start: args.len(),
                            len: 1,
                        },
                        written: if objects.len() == 1 {
                            format!("the LTO code of {name}")
                        } else {
                            format!("the LTO code of {name} (partition {n})")
                        },
                        resolved: object.clone(),
                        kind: InputKind::Object,
                        blob: blob.clone(),
                    });
                    args.push(object.display().to_string());
                }
            }
            k += input.span.len;
            continue;
        }
        if !is_lto_option(&link.args[k]) {
            args.push(link.args[k].clone());
        }
        k += 1;
    }
    LinkRecord {
        args,
        inputs,
        output_span,
        lto: false,
        lto_objects: Vec::new(),
        ..link.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_link_options_stay_out_of_the_step() {
        for kept in [
            "-O2",
            "-flto=auto",
            "-march=native",
            "-ffunction-sections",
            "-g",
        ] {
            assert!(keeps_for_step(kept), "{kept}");
        }
        for dropped in [
            "-Wl,--gc-sections",
            "-lm",
            "-pie",
            "-static",
            "-fuse-ld=gold",
            "-Tlink.ld",
            "/usr/lib/libfoo.so",
        ] {
            assert!(!keeps_for_step(dropped), "{dropped}");
        }
        assert!(is_lto_option("-flto=8") && is_lto_option("-fno-fat-lto-objects"));
        assert!(!is_lto_option("-O2"));
    }

    fn input(start: usize, written: &str, kind: InputKind) -> RecordedInput {
        RecordedInput {
            span: Span { start, len: 1 },
            written: written.into(),
            resolved: written.into(),
            kind,
            blob: format!("{written}.blob"),
        }
    }

    #[test]
    fn the_rewritten_link_has_the_object_at_the_first_lto_inputs_place() {
        let args: Vec<String> = [
            "-O2", "-flto", "a.o", "-o", "p", "b.o", "libx.a", "liby.a", "-lm",
        ]
        .map(String::from)
        .to_vec();
        let link = LinkRecord {
            tool: LinkTool::Driver,
            tool_name: "gcc".into(),
            real_tool: "/usr/bin/gcc".into(),
            args,
            cwd: "/tmp".into(),
            env: Default::default(),
            inputs: vec![
                input(2, "a.o", InputKind::Object),
                input(5, "b.o", InputKind::Object),
                input(6, "libx.a", InputKind::Archive),
                input(7, "liby.a", InputKind::Archive),
            ],
            output_span: Some(Span { start: 3, len: 2 }),
            output: "/tmp/p".into(),
            lto: true,
            shared: false,
            lto_objects: Vec::new(),
            fuse_ld: None,
            seconds: 0.0,
            started_unix_nanos: 0,
        };
        let r = rewrite(
            &link,
            &[true, true, true, false],
            &[("/r/lto.o".into(), "h.o".into())],
            "p",
        );
        assert_eq!(r.args, ["-O2", "/r/lto.o", "-o", "p", "liby.a", "-lm"]);
        assert!(!r.lto);
        assert_eq!(r.inputs.len(), 2);
        assert_eq!(
            (r.inputs[0].span.start, r.inputs[0].blob.as_str()),
            (1, "h.o")
        );
        assert_eq!(
            (r.inputs[1].span.start, r.inputs[1].written.as_str()),
            (4, "liby.a")
        );
        assert_eq!(r.output_span, Some(Span { start: 2, len: 2 }));
    }
}
