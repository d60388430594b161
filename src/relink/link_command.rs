//! The command line of a relink: the recorded link's arguments rewritten (a new output, the
//! inputs in a seeded order, the chosen linker), the tool to run, and the recorded directory
//! and environment to run it in. Pure functions of the recording, shared by the seeded
//! relinks ([`super::replay`]) and the LTO code generation ([`super::lto_once`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, Result};

use super::linker::Linker;
use crate::wrap::record::{InputKind, LinkRecord, LinkTool, RecordedInput};

/// The first argument between the first and the last object on the recorded link line
/// that is not itself an object and whose place matters to symbol resolution (an
/// archive, a library, a linker option, any other input file).
pub(crate) fn separating_argument(r: &LinkRecord) -> Option<String> {
    let objects: Vec<&RecordedInput> = r
        .inputs
        .iter()
        .filter(|i| i.kind == InputKind::Object)
        .collect();
    let (first, last) = (objects.first()?, objects.last()?);
    let in_object = |k: usize| {
        objects
            .iter()
            .any(|o| (o.span.start..o.span.start + o.span.len).contains(&k))
    };
    let in_output = |k: usize| {
        r.output_span
            .is_some_and(|s| (s.start..s.start + s.len).contains(&k))
    };
    let driver = r.tool == LinkTool::Driver;
    (first.span.start..last.span.start)
        .filter(|&k| !in_object(k) && !in_output(k))
        .map(|k| &r.args[k])
        .find(|a| {
            let positional_option =
                a.starts_with("-l") || a.starts_with("-Wl,") || a.starts_with("-Xlinker");
            !(driver && a.starts_with('-') && !positional_option)
        })
        .cloned()
}

/// The new command line: recorded arguments with the output, the inputs (objects in
/// `object_order`, all at the first object's place) and the linker replaced; with
/// `strip_debug`, the linker leaves the debug information out (`--strip-debug`: not loaded
/// when the program runs, so the layout of code and data is the same without it, and for a
/// program built with -g its relocations are a quarter to a third of the link's time). Not
/// mold: its `--strip-debug` drops symbols too (the whole table in mold 1.10, the local ones
/// in 2.0: its issue 1080), and the layout is checked by them; the merged object is made
/// without debug information all the same, so only an archive member's stays.
pub(crate) fn link_args(
    r: &LinkRecord,
    linker: Linker,
    paths: &[PathBuf],
    object_order: &[usize],
    out: &Path,
    strip_debug: bool,
) -> Vec<String> {
    let driver = r.tool == LinkTool::Driver;
    let mut starts = std::collections::HashMap::new();
    for (i, input) in r.inputs.iter().enumerate() {
        starts.insert(input.span.start, i);
    }
    let first_object = r.inputs.iter().position(|i| i.kind == InputKind::Object);
    let mut args = Vec::new();
    let mut k = 0;
    while k < r.args.len() {
        if let Some(span) = r.output_span.filter(|s| s.start == k) {
            args.push("-o".to_string());
            args.push(out.display().to_string());
            k += span.len;
            continue;
        }
        if let Some(&i) = starts.get(&k) {
            let input = &r.inputs[i];
            match input.kind {
                InputKind::Object if Some(i) == first_object => {
                    args.extend(object_order.iter().map(|&j| paths[j].display().to_string()));
                }
                InputKind::Object => {}
                InputKind::Archive => args.push(paths[i].display().to_string()),
            }
            k += input.span.len;
            continue;
        }
        let a = &r.args[k];
        if driver && (a.starts_with("-fuse-ld=") || a.starts_with("--ld-path=")) {
            k += 1;
            continue;
        }
        match side_file_span(&r.args[k..], driver) {
            SideFile::Span(n) => k += n,
            SideFile::Kept(Some(kept)) => {
                args.push(kept);
                k += 1;
            }
            SideFile::Kept(None) => {
                args.push(a.clone());
                k += 1;
            }
        }
    }
    if r.output_span.is_none() {
        args.push("-o".to_string());
        args.push(out.display().to_string());
    }
    if driver {
        args.push(format!("-fuse-ld={}", linker.name()));
    }
    if strip_debug && linker != Linker::Mold {
        args.push(
            if driver {
                "-Wl,--strip-debug"
            } else {
                "--strip-debug"
            }
            .to_string(),
        );
    }
    args
}

/// Linker options that write a file of their own beside the binary: its map, a list of its
/// inputs (`--dependency-file`), an import library, lld's reproduce archive and reports. A
/// relink leaves them out: run in the recorded directory, every seed would overwrite the
/// build's own file (which describes the build's binary) with its own, and two concurrent
/// links would write one path; no byte of the binary depends on them.
const SIDE_FILE_OPTIONS: &[&str] = &[
    "-Map",
    "--Map",
    "--dependency-file",
    "--out-implib",
    "--reproduce",
    "--why-extract",
    "--print-archive-stats",
];

/// How a linker argument stands to [`SIDE_FILE_OPTIONS`]: `Some(false)` such an option with
/// its file attached (`-Map=F`), `Some(true)` one whose file is the next argument, `None`
/// any other.
fn side_file_option(arg: &str) -> Option<bool> {
    SIDE_FILE_OPTIONS
        .iter()
        .find_map(|o| match arg.strip_prefix(o) {
            Some("") => Some(true),
            Some(rest) if rest.starts_with('=') => Some(false),
            _ => None,
        })
}

/// What a relink does with the recorded arguments starting at `args[0]`.
enum SideFile {
    /// Leave out this many arguments: a side-file option and its file.
    Span(usize),
    /// Keep the argument: as it is (`None`), or a driver's `-Wl,` list without its side-file
    /// options.
    Kept(Option<String>),
}

/// The side-file options ([`SIDE_FILE_OPTIONS`]) at the start of `args`: a linker's
/// `-Map F` or `-Map=F`; through a driver, `-Xlinker -Map -Xlinker F`, `-Xlinker -Map=F` and
/// the items of a `-Wl,` list (`-Wl,--cref,-Map,F` keeps `-Wl,--cref`).
fn side_file_span(args: &[String], driver: bool) -> SideFile {
    let next_is_file = |at: usize| side_file_option(args.get(at).map_or("", String::as_str));
    if !driver {
        return match next_is_file(0) {
            Some(file_follows) => SideFile::Span(1 + usize::from(file_follows)),
            None => SideFile::Kept(None),
        };
    }
    if args[0] == "-Xlinker" {
        return match next_is_file(1) {
            Some(true) if args.get(2).is_some_and(|a| a == "-Xlinker") => SideFile::Span(4),
            Some(_) => SideFile::Span(2),
            None => SideFile::Kept(None),
        };
    }
    let Some(list) = args[0].strip_prefix("-Wl,") else {
        return SideFile::Kept(None);
    };
    let mut kept = Vec::new();
    let mut items = list.split(',');
    while let Some(item) = items.next() {
        match side_file_option(item) {
            Some(true) => drop(items.next()),
            Some(false) => {}
            None => kept.push(item),
        }
    }
    match kept.len() == list.split(',').count() {
        true => SideFile::Kept(None),
        false if kept.is_empty() => SideFile::Span(1),
        false => SideFile::Kept(Some(format!("-Wl,{}", kept.join(",")))),
    }
}

/// The program to run: the recorded driver, or for a direct linker call the chosen
/// linker.
pub(crate) fn command_for(
    record: &LinkRecord,
    linker: Linker,
    args: Vec<String>,
) -> Result<(PathBuf, Vec<String>)> {
    match record.tool {
        LinkTool::Driver => Ok((record.real_tool.clone(), args)),
        LinkTool::Linker => Ok((which(&linker.program())?, args)),
    }
}

/// `program` set up to run as the recorded link ran: in its directory, with its recorded
/// environment and without the shim's variables (a relink is never recorded again); malloc
/// keeps its large buffers ([`KEEP_LARGE_BUFFERS`]).
pub(crate) fn tool_command(record: &LinkRecord, program: &Path) -> Command {
    let mut cmd = crate::child::command(program);
    cmd.current_dir(&record.cwd);
    for var in [
        crate::wrap::ENV_RECORD_DIR,
        crate::wrap::ENV_REAL_PATH,
        crate::wrap::ENV_SHIM_DIR,
        crate::wrap::ENV_NESTED,
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in &record.env {
        cmd.env(k, v);
    }
    if std::env::var_os(GLIBC_TUNABLES).is_none() && !record.env.contains_key(GLIBC_TUNABLES) {
        cmd.env(GLIBC_TUNABLES, KEEP_LARGE_BUFFERS);
    }
    cmd
}

/// The environment variable of glibc's tunables (glibc 2.26 on; others ignore it).
const GLIBC_TUNABLES: &str = "GLIBC_TUNABLES";

/// glibc's malloc hands each buffer over 128 KiB back to the kernel when it is freed and
/// faults it in anew on the next: ld.bfd does that for every section it reads, and a relink
/// of gawk took 35–38 ms instead of 42–46 ms with buffers up to 64 MiB kept (30 links each
/// way, interleaved). Most of what was left of its page faults went with a heap grown 64 MiB
/// at a time on transparent huge pages (`hugetlb=1` asks for them by `madvise`; glibc 2.35
/// on): a relink of brotli 18.9 ms instead of 22.2 ms (8 rounds of 40 links, interleaved,
/// each round faster). The tunables choose malloc's policy only, never an output byte
/// (compared); one the user or the recorded build set wins.
const KEEP_LARGE_BUFFERS: &str = "glibc.malloc.mmap_threshold=67108864:\
    glibc.malloc.trim_threshold=134217728:glibc.malloc.top_pad=67108864:glibc.malloc.hugetlb=1";

/// Finds `program` on PATH ([`crate::child::which`]), or says it is not installed.
pub(crate) fn which(program: &str) -> Result<PathBuf> {
    crate::child::which(program)
        .ok_or_else(|| anyhow!("`{program}` is not installed (not found on PATH)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrap::classify::Span;

    fn input(start: usize, kind: InputKind) -> RecordedInput {
        RecordedInput {
            span: Span { start, len: 1 },
            written: format!("in{start}"),
            resolved: format!("/w/in{start}").into(),
            kind,
            blob: format!("blob{start}"),
        }
    }

    /// A link recorded as `tool ARGS`, its inputs at the given places, `-o p` at `output`.
    fn record(
        tool: LinkTool,
        args: &[&str],
        inputs: &[(usize, InputKind)],
        output: Option<usize>,
    ) -> LinkRecord {
        LinkRecord {
            tool,
            tool_name: "cc".into(),
            real_tool: "/usr/bin/cc".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            cwd: "/w".into(),
            env: Default::default(),
            inputs: inputs.iter().map(|&(at, kind)| input(at, kind)).collect(),
            output_span: output.map(|start| Span { start, len: 2 }),
            output: "/w/p".into(),
            lto: false,
            shared: false,
            lto_objects: Vec::new(),
            fuse_ld: None,
            seconds: 0.0,
            started_unix_nanos: 0,
        }
    }

    fn paths(n: usize) -> Vec<PathBuf> {
        (0..n).map(|i| PathBuf::from(format!("/r/{i}"))).collect()
    }

    #[test]
    fn objects_go_in_the_seeds_order_at_the_first_objects_place() {
        use InputKind::{Archive, Object};
        // cc -O2 a.o -o p b.o -fuse-ld=gold libx.a c.o -lm
        let r = record(
            LinkTool::Driver,
            &[
                "-O2",
                "a.o",
                "-o",
                "p",
                "b.o",
                "-fuse-ld=gold",
                "libx.a",
                "c.o",
                "-lm",
            ],
            &[(1, Object), (4, Object), (6, Archive), (7, Object)],
            Some(2),
        );
        let args = link_args(
            &r,
            Linker::Mold,
            &paths(4),
            &[3, 0, 1],
            Path::new("/o/seed-1"),
            false,
        );
        assert_eq!(
            args,
            [
                "-O2",
                "/r/3",
                "/r/0",
                "/r/1",
                "-o",
                "/o/seed-1",
                "/r/2",
                "-lm",
                "-fuse-ld=mold"
            ]
        );
    }

    #[test]
    fn a_link_without_an_output_gets_one_and_a_direct_linker_no_fuse_ld() {
        use InputKind::Object;
        let r = record(
            LinkTool::Linker,
            &["a.o", "--ld-path=/x/ld.lld", "b.o"],
            &[(0, Object), (2, Object)],
            None,
        );
        let args = link_args(&r, Linker::Bfd, &paths(2), &[1, 0], Path::new("out"), false);
        // A linker's own `--ld-path=` is an ordinary argument to it: kept.
        assert_eq!(args, ["/r/1", "/r/0", "--ld-path=/x/ld.lld", "-o", "out"]);
        // Without debug information: the linker's own flag, or through the driver.
        let args = link_args(&r, Linker::Bfd, &paths(2), &[1, 0], Path::new("out"), true);
        assert_eq!(args.last().map(String::as_str), Some("--strip-debug"));
        let driven = LinkRecord {
            tool: LinkTool::Driver,
            ..r
        };
        let args = link_args(
            &driven,
            Linker::Bfd,
            &paths(2),
            &[1, 0],
            Path::new("out"),
            true,
        );
        assert_eq!(
            args[args.len() - 2..],
            ["-fuse-ld=bfd", "-Wl,--strip-debug"]
        );
    }

    #[test]
    fn a_relink_writes_no_map_or_other_side_file_of_the_build() {
        use InputKind::Object;
        let strings = |v: &[&str]| -> Vec<String> { v.iter().map(|a| a.to_string()).collect() };
        // cc a.o -Wl,-Map=p.map -Wl,--cref,-Map,q.map,-O1 -Xlinker -Map -Xlinker r.map
        //    -Xlinker --dependency-file=p.d -lm
        let driven = record(
            LinkTool::Driver,
            &[
                "a.o",
                "-Wl,-Map=p.map",
                "-Wl,--cref,-Map,q.map,-O1",
                "-Xlinker",
                "-Map",
                "-Xlinker",
                "r.map",
                "-Xlinker",
                "--dependency-file=p.d",
                "-lm",
                "-Wl,-Mapx",
            ],
            &[(0, Object)],
            None,
        );
        let args = link_args(&driven, Linker::Bfd, &paths(1), &[0], Path::new("o"), false);
        assert_eq!(
            args,
            strings(&[
                "/r/0",
                "-Wl,--cref,-O1",
                "-lm",
                "-Wl,-Mapx",
                "-o",
                "o",
                "-fuse-ld=bfd"
            ])
        );
        // ld a.o -Map p.map --Map=q.map --out-implib x.a -lc
        let direct = record(
            LinkTool::Linker,
            &[
                "a.o",
                "-Map",
                "p.map",
                "--Map=q.map",
                "--out-implib",
                "x.a",
                "-lc",
            ],
            &[(0, Object)],
            None,
        );
        let args = link_args(&direct, Linker::Bfd, &paths(1), &[0], Path::new("o"), false);
        assert_eq!(args, strings(&["/r/0", "-lc", "-o", "o"]));
    }

    #[test]
    fn what_separates_the_objects_is_found_and_driver_options_do_not_count() {
        use InputKind::{Archive, Object};
        let driver = |args: &[&str], inputs: &[(usize, InputKind)]| {
            separating_argument(&record(LinkTool::Driver, args, inputs, None))
        };
        // -O2 between objects is a driver option whose place does not matter; -lm's does.
        assert_eq!(
            driver(&["a.o", "-O2", "-lm", "b.o"], &[(0, Object), (3, Object)]).as_deref(),
            Some("-lm")
        );
        assert_eq!(
            driver(
                &["a.o", "-Wl,--as-needed", "b.o"],
                &[(0, Object), (2, Object)]
            )
            .as_deref(),
            Some("-Wl,--as-needed")
        );
        assert_eq!(
            driver(
                &["a.o", "libx.a", "b.o"],
                &[(0, Object), (1, Archive), (2, Object)]
            )
            .as_deref(),
            Some("libx.a")
        );
        assert_eq!(
            driver(&["a.o", "-O2", "b.o", "-lm"], &[(0, Object), (2, Object)]),
            None
        );
        assert_eq!(driver(&["a.o", "-lm"], &[(0, Object)]), None);
        // Called directly, a linker's options between objects may be positional (--whole-archive).
        let direct = record(
            LinkTool::Linker,
            &["a.o", "--no-as-needed", "b.o"],
            &[(0, Object), (2, Object)],
            None,
        );
        assert_eq!(
            separating_argument(&direct).as_deref(),
            Some("--no-as-needed")
        );
    }

    #[test]
    fn the_tool_runs_in_the_recorded_directory_with_the_recorded_environment_and_no_shim() {
        let mut r = record(LinkTool::Driver, &[], &[], None);
        r.env.insert("LANG".into(), "C".into());
        let cmd = tool_command(&r, Path::new("/usr/bin/cc"));
        assert_eq!(cmd.get_current_dir(), Some(Path::new("/w")));
        let envs: Vec<_> = cmd.get_envs().collect();
        assert!(envs.contains(&(
            std::ffi::OsStr::new("LANG"),
            Some(std::ffi::OsStr::new("C"))
        )));
        assert!(envs.contains(&(std::ffi::OsStr::new(crate::wrap::ENV_RECORD_DIR), None)));
    }
}
