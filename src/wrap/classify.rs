//! Classifies one compiler-driver or linker command line: compile, final link, preprocess,
//! dependency generation, or something the shim leaves alone.
//!
//! The rules follow ccache's (src/ccache/argprocessing.cpp): a driver call is a link when it
//! has none of `-c`, `-S`, `-E`, `-fsyntax-only`; `-o -` is never touched; `@file` arguments
//! are expanded before classifying (by the caller, see [`super::atfile`]). Everything here is
//! pure: it looks only at the argument strings, never at the file system.

/// Which kind of program was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// A compiler driver: cc, gcc, g++, c++, clang, clang++, gfortran, f95, f77 (and
    /// versioned names).
    Driver,
    /// A linker called directly: ld, ld.bfd, ld.gold, ld.lld, ld.mold.
    Linker,
}

/// What a call does, as far as the shim cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// `-c` or `-S`: translate sources to objects (or assembly).
    Compile,
    /// A final link producing an executable.
    Link,
    /// A link producing a shared library (`-shared`): recorded and relinked per seed like a
    /// final link.
    SharedLink,
    /// A partial link (`-r`): its output is an object that a later final link consumes.
    RelocatableLink,
    /// `-E`: preprocessing only.
    Preprocess,
    /// `-M`/`-MM` without `-MD`/`-MMD`: dependency lists only.
    DependencyOnly,
    /// `-fsyntax-only`.
    SyntaxOnly,
    /// `--version`, `-print-*`, `-dump*`, `--help`, or no input at all.
    Info,
    /// `-o -`: output to stdout; never touched (as ccache does).
    StdoutOutput,
}

/// The language of a source file, as the driver would guess it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    /// C (`.c`, `.i`, `-x c`).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.C`, `.c++`, `.ii`, `-x c++`).
    Cxx,
    /// Assembly (`.s`, `.S`, `.sx`).
    Assembly,
    /// Fortran (`.f`, `.f90`, `.F90`, ..., `-x f95`): gfortran, like gcc, puts each function
    /// in a section of its own under `-ffunction-sections`.
    Fortran,
    /// Any other language the driver compiles (Objective-C, Go, D, Ada, CUDA, ...).
    OtherSource,
}

impl Language {
    /// Whether the shim adds `-ffunction-sections` to compiles of this language: the GCC and
    /// Clang front ends that honour it and that a split compile-and-link may compile alone.
    pub(crate) fn takes_function_sections(self) -> bool {
        matches!(self, Language::C | Language::Cxx | Language::Fortran)
    }
}

/// A contiguous run of arguments (start index, length) in the expanded argument list.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Span {
    /// Index of the first argument.
    pub(crate) start: usize,
    /// Number of arguments (1 for `-lfoo`, 2 for `-l foo`).
    pub(crate) len: usize,
}

/// A source file on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceArg {
    /// Where it is in the argument list.
    pub(crate) index: usize,
    /// The path as written.
    pub(crate) path: String,
    /// Its language.
    pub(crate) language: Language,
    /// Whether a `-x` option set the language (then the file name says nothing).
    pub(crate) explicit_language: bool,
}

/// A linker input on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkInputArg {
    /// A file (object, archive, shared library, linker script).
    File {
        /// Where it is.
        span: Span,
        /// The path as written.
        path: String,
    },
    /// `-lNAME` (or `-l NAME`, or `-l:file`).
    Library {
        /// Where it is.
        span: Span,
        /// `NAME` (for `-l:file`, `:file`).
        name: String,
    },
}

impl LinkInputArg {
    /// Where the input is on the command line.
    pub(crate) fn span(&self) -> Span {
        match self {
            LinkInputArg::File { span, .. } | LinkInputArg::Library { span, .. } => *span,
        }
    }
}

/// The result of classifying one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Classified {
    /// What the call does.
    pub(crate) kind: CallKind,
    /// Source files, in order.
    pub(crate) sources: Vec<SourceArg>,
    /// Linker inputs (objects, archives, `-l`), in order.
    pub(crate) link_inputs: Vec<LinkInputArg>,
    /// `-L` directories, in order.
    pub(crate) library_dirs: Vec<String>,
    /// The `-o` output and where it is on the command line.
    pub(crate) output: Option<(Span, String)>,
    /// `-flto` in effect (driver only).
    pub(crate) lto: bool,
    /// The `-fuse-ld=` value, if any (driver only).
    pub(crate) fuse_ld: Option<String>,
    /// `-static` given.
    pub(crate) static_link: bool,
    /// `-ffunction-sections` already in effect (driver only).
    pub(crate) function_sections: bool,
    /// The last of `-fdata-sections` (`Some(true)`) and `-fno-data-sections` (`Some(false)`)
    /// given, `None` when neither was (driver only).
    pub(crate) data_sections: Option<bool>,
}

impl Classified {
    /// Whether any source is in a language `-ffunction-sections` is added for (C, C++,
    /// Fortran).
    pub(crate) fn has_sectioned_source(&self) -> bool {
        self.sources
            .iter()
            .any(|s| s.language.takes_function_sections())
    }

    /// The output file name as the tool would pick it (`a.out` for a link without `-o`).
    pub(crate) fn output_path(&self) -> Option<&str> {
        match (&self.output, &self.kind) {
            (Some((_, p)), _) => Some(p.as_str()),
            (None, CallKind::Link | CallKind::SharedLink) => Some("a.out"),
            _ => None,
        }
    }

    /// Whether this is an autoconf/CMake probe (`conftest`, `cmTC_`): never recorded.
    pub(crate) fn is_configure_probe(&self) -> bool {
        let probe = |p: &str| {
            let name = p.rsplit('/').next().unwrap_or(p);
            name.starts_with("conftest") || name.starts_with("cmTC_")
        };
        self.output_path().is_some_and(probe)
            || self.sources.iter().any(|s| probe(&s.path))
            || self.link_inputs.iter().any(|i| match i {
                LinkInputArg::File { path, .. } => probe(path),
                LinkInputArg::Library { .. } => false,
            })
    }
}

/// Whether the driver option `arg` takes the next argument as its value (`-o FILE`,
/// `-Xlinker ARG`, `-L DIR`, ...).
pub(crate) fn driver_option_takes_value(arg: &str) -> bool {
    DRIVER_OPTIONS_WITH_VALUE.contains(&arg)
}

/// Driver options whose value is the next argument.
const DRIVER_OPTIONS_WITH_VALUE: &[&str] = &[
    "-o",
    "-x",
    "-I",
    "-D",
    "-U",
    "-L",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-isysroot",
    "-imultilib",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-MF",
    "-MT",
    "-MQ",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xclang",
    "-mllvm",
    "-T",
    "-u",
    "-z",
    "-e",
    "--param",
    "-aux-info",
    "-arch",
    "-target",
    "--target",
    "--sysroot",
    "-B",
    "-dumpbase",
    "-dumpdir",
    "-dumpbase-ext",
    "-G",
    "-A",
    "--serialize-diagnostics",
    "-ccc-gcc-name",
    // gfortran: where module files go, and where intrinsic modules are found.
    "-J",
    "-fintrinsic-modules-path",
];

/// Linker options whose value is the next argument.
const LINKER_OPTIONS_WITH_VALUE: &[&str] = &[
    "-o",
    "-L",
    "-T",
    "-e",
    "-m",
    "-u",
    "-z",
    "-h",
    "-soname",
    "-rpath",
    "-rpath-link",
    "-dynamic-linker",
    "-I",
    "-Map",
    "-y",
    "-Y",
    "-a",
    "-A",
    "-b",
    "-c",
    "-F",
    "-f",
    "-G",
    "-R",
    "-plugin",
    "-plugin-opt",
    "--plugin",
    "--plugin-opt",
    "--sysroot",
    "--entry",
    "--library-path",
    "--output",
    "--script",
    "--undefined",
    "--version-script",
    "--dynamic-list",
    "--defsym",
    "--wrap",
    "--hash-style",
    "--build-id",
    "--exclude-libs",
    "-O",
    "--thread-count",
];

/// Classifies a call. `args` excludes `argv[0]` and has `@file`s already expanded.
pub(crate) fn classify(tool: ToolKind, args: &[String]) -> Classified {
    match tool {
        ToolKind::Driver => classify_driver(args),
        ToolKind::Linker => classify_linker(args),
    }
}

fn empty(kind: CallKind) -> Classified {
    Classified {
        kind,
        sources: Vec::new(),
        link_inputs: Vec::new(),
        library_dirs: Vec::new(),
        output: None,
        lto: false,
        fuse_ld: None,
        static_link: false,
        function_sections: false,
        data_sections: None,
    }
}

fn classify_driver(args: &[String]) -> Classified {
    let mut c = empty(CallKind::Link);
    let mut flags = DriverFlags::default();
    let mut forced_language: Option<Option<Language>> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let next = args.get(i + 1).map(String::as_str);
        flags.note(a, &mut c);
        if let Some(taken) = take_output_or_library(&mut c, i, a, next, false) {
            i += taken;
            continue;
        }
        if a == "-x" || (a.starts_with("-x") && a.len() > 2 && !a.starts_with("-xarch")) {
            let lang = if a == "-x" {
                next.unwrap_or("")
            } else {
                &a[2..]
            };
            forced_language = Some(language_named(lang));
            i += if a == "-x" { 2 } else { 1 };
            continue;
        }
        if DRIVER_OPTIONS_WITH_VALUE.contains(&a) {
            i += 2;
            continue;
        }
        if a.starts_with('-') && a != "-" {
            i += 1;
            continue;
        }
        // A non-option: a source or a linker input. `-` is a source read from standard
        // input, in the language `-x` gives (the driver refuses it without one; the shim
        // leaves that refusal to it): `cc -x c -c - -o b.o` compiles like `cc -c b.c`.
        let language = match forced_language {
            Some(Some(l)) => Some((l, true)),
            Some(None) if a == "-" => Some((Language::OtherSource, true)),
            None if a == "-" => Some((Language::OtherSource, false)),
            Some(None) | None => language_of(a).map(|l| (l, false)),
        };
        match language {
            Some((language, explicit_language)) => c.sources.push(SourceArg {
                index: i,
                path: a.to_string(),
                language,
                explicit_language,
            }),
            None => c.link_inputs.push(LinkInputArg::File {
                span: Span { start: i, len: 1 },
                path: a.to_string(),
            }),
        }
        i += 1;
    }
    c.kind = flags.kind(&c);
    c
}

/// What the options of a compiler driver call say it does, gathered one argument at a time.
#[derive(Default)]
struct DriverFlags {
    compile_only: bool,
    assemble_only: bool,
    preprocess: bool,
    deps_only: bool,
    deps_side: bool,
    syntax_only: bool,
    info: bool,
    shared: bool,
    relocatable: bool,
}

impl DriverFlags {
    /// Notes what the argument `a` says, here or (LTO, static, function sections, linker) in `c`.
    fn note(&mut self, a: &str, c: &mut Classified) {
        match a {
            "-c" => self.compile_only = true,
            "-S" => self.assemble_only = true,
            "-E" => self.preprocess = true,
            "-M" | "-MM" => self.deps_only = true,
            "-MD" | "-MMD" => self.deps_side = true,
            "-fsyntax-only" => self.syntax_only = true,
            "-shared" => self.shared = true,
            "-r" | "-relocatable" | "-Wl,-r" | "-Wl,--relocatable" => self.relocatable = true,
            "-static" => c.static_link = true,
            "-flto" | "-flto=auto" | "-flto=thin" | "-flto=full" | "-flto=jobserver" => {
                c.lto = true
            }
            "-fno-lto" => c.lto = false,
            "-ffunction-sections" => c.function_sections = true,
            "-fno-function-sections" => c.function_sections = false,
            "-fdata-sections" => c.data_sections = Some(true),
            "-fno-data-sections" => c.data_sections = Some(false),
            "--version" | "-dumpversion" | "-dumpfullversion" | "-dumpmachine" | "-dumpspecs"
            | "--help" | "-###" | "-qversion" => self.info = true,
            _ => {}
        }
        if a.starts_with("-flto=") && a[6..].chars().all(|ch| ch.is_ascii_digit()) {
            c.lto = true;
        }
        if a.starts_with("-print-") || a.starts_with("--print-") || a.starts_with("--help=") {
            self.info = true;
        }
        if let Some(v) = a.strip_prefix("-fuse-ld=") {
            c.fuse_ld = Some(v.to_string());
        }
        if let Some(v) = a.strip_prefix("--ld-path=") {
            c.fuse_ld = Some(v.to_string());
        }
    }

    /// The kind of the call with these options and the inputs and output of `c`.
    fn kind(&self, c: &Classified) -> CallKind {
        if c.output.as_ref().is_some_and(|(_, p)| p == "-") {
            CallKind::StdoutOutput
        } else if self.info {
            // `-###`, `--help`, `--version`, `-print-*` print and stop (or only show what
            // would run), whatever the inputs: never recorded, never run twice.
            CallKind::Info
        } else if self.preprocess {
            CallKind::Preprocess
        } else if self.deps_only && !self.deps_side {
            CallKind::DependencyOnly
        } else if self.syntax_only {
            CallKind::SyntaxOnly
        } else if self.compile_only || self.assemble_only {
            CallKind::Compile
        } else if c.sources.is_empty()
            && !c
                .link_inputs
                .iter()
                .any(|i| matches!(i, LinkInputArg::File { .. }))
        {
            // No input files at all (`gcc -v`, `gcc -lm`): nothing to link.
            CallKind::Info
        } else {
            link_kind(self.relocatable, self.shared)
        }
    }
}

fn classify_linker(args: &[String]) -> Classified {
    let mut c = empty(CallKind::Link);
    let (mut shared, mut relocatable) = (false, false);
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let next = args.get(i + 1).map(String::as_str);
        match a {
            "-r" | "-i" | "--relocatable" | "-Ur" => relocatable = true,
            "-shared" | "-Bshareable" | "--shared" => shared = true,
            "-static" | "-Bstatic" => c.static_link = true,
            _ => {}
        }
        if let Some(taken) = take_output_or_library(&mut c, i, a, next, true) {
            i += taken;
            continue;
        }
        if LINKER_OPTIONS_WITH_VALUE.contains(&a) {
            i += 2;
            continue;
        }
        if a.starts_with('-') {
            i += 1;
            continue;
        }
        c.link_inputs.push(LinkInputArg::File {
            span: Span { start: i, len: 1 },
            path: a.to_string(),
        });
        i += 1;
    }
    // No inputs: `ld --version`, `ld -v`, `ld --help`, or nothing to link.
    c.kind = if c.link_inputs.is_empty() {
        CallKind::Info
    } else {
        link_kind(relocatable, shared)
    };
    c
}

/// Takes the output (`-o`), library (`-l`) or library-directory (`-L`) option at `args[i]`
/// (`a`, followed by `next`) into `c` and returns how many arguments it spans, or `None` for
/// any other argument. Drivers and linkers spell these options alike; `gnu_long` also accepts
/// GNU ld's `--output`, `--library` and `--library-path` (with a separate or an `=` value),
/// which only a linker takes.
fn take_output_or_library(
    c: &mut Classified,
    i: usize,
    a: &str,
    next: Option<&str>,
    gnu_long: bool,
) -> Option<usize> {
    let long = |name: &str| gnu_long && a == name;
    let long_value = |prefix: &str| a.strip_prefix(prefix).filter(|_| gnu_long);
    if a == "-o" || long("--output") {
        if let Some(v) = next {
            c.output = Some((Span { start: i, len: 2 }, v.to_string()));
        }
        return Some(2);
    }
    if let Some(v) =
        long_value("--output=").or_else(|| a.strip_prefix("-o").filter(|v| !v.is_empty()))
    {
        c.output = Some((Span { start: i, len: 1 }, v.to_string()));
        return Some(1);
    }
    if a == "-l" || long("--library") {
        if let Some(v) = next {
            c.link_inputs.push(LinkInputArg::Library {
                span: Span { start: i, len: 2 },
                name: v.to_string(),
            });
        }
        return Some(2);
    }
    if let Some(v) = a.strip_prefix("-l").or_else(|| long_value("--library=")) {
        c.link_inputs.push(LinkInputArg::Library {
            span: Span { start: i, len: 1 },
            name: v.to_string(),
        });
        return Some(1);
    }
    if a == "-L" || long("--library-path") {
        if let Some(v) = next {
            c.library_dirs.push(v.to_string());
        }
        return Some(2);
    }
    if let Some(v) = long_value("--library-path=").or_else(|| a.strip_prefix("-L")) {
        c.library_dirs.push(v.to_string());
        return Some(1);
    }
    None
}

/// The kind of a call that links: partial (`-r`) before shared (`-shared`) before final.
fn link_kind(relocatable: bool, shared: bool) -> CallKind {
    if relocatable {
        CallKind::RelocatableLink
    } else if shared {
        CallKind::SharedLink
    } else {
        CallKind::Link
    }
}

/// The first driver option with which a compile-and-link call (`cc a.c b.c -o p`) writes or
/// reads files named after its output or objects: dependency files (`-MD`, `-MMD`, `-MF`),
/// coverage notes and counts (`--coverage`, `-fprofile-arcs`, `-ftest-coverage`,
/// `-fprofile-generate`), profiles read back (`-fprofile-use`, `-fauto-profile`,
/// `-fbranch-probabilities`), split DWARF (`-gsplit-dwarf`), temporaries (`-save-temps`),
/// dumps (`-fdump-*`), stack-usage files (`-fstack-usage`, `-fcallgraph-info`). Splitting
/// such a call into separate compiles would put those files elsewhere or miss the profiles,
/// so the shim passes it through unrecorded.
pub(crate) fn side_output_option(args: &[String]) -> Option<&str> {
    const EXACT: &[&str] = &[
        "-MD",
        "-MMD",
        "-MF",
        "--coverage",
        "-fprofile-arcs",
        "-ftest-coverage",
        "-fbranch-probabilities",
        "-gsplit-dwarf",
        "-fstack-usage",
    ];
    const PREFIXES: &[&str] = &[
        "-MF",
        "-fprofile-generate",
        "-fprofile-use",
        "-fauto-profile",
        "-fcs-profile-generate",
        "-save-temps",
        "-fdump-",
        "-fcallgraph-info",
        "-Wp,-MD",
        "-Wp,-MMD",
    ];
    args.iter()
        .map(String::as_str)
        .find(|a| EXACT.contains(a) || PREFIXES.iter().any(|p| a.starts_with(p)))
}

/// The language a `-x` value names (`None` for `-x none` and unknown names).
fn language_named(name: &str) -> Option<Language> {
    match name {
        "c" | "cpp-output" | "c-header" => Some(Language::C),
        "c++" | "c++-cpp-output" | "c++-header" => Some(Language::Cxx),
        "assembler" | "assembler-with-cpp" => Some(Language::Assembly),
        "f77" | "f77-cpp-input" | "f95" | "f95-cpp-input" => Some(Language::Fortran),
        "none" => None,
        _ => Some(Language::OtherSource),
    }
}

/// The language the driver guesses from a file name, or `None` for linker inputs.
pub(crate) fn language_of(path: &str) -> Option<Language> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e)?;
    match ext {
        "c" | "i" | "h" => Some(Language::C),
        "cc" | "cp" | "cxx" | "cpp" | "CPP" | "c++" | "C" | "ii" | "hh" | "hpp" | "hxx" | "H"
        | "tcc" => Some(Language::Cxx),
        "s" | "S" | "sx" => Some(Language::Assembly),
        "f" | "for" | "ftn" | "F" | "FOR" | "fpp" | "FPP" | "FTN" | "f90" | "f95" | "f03"
        | "f08" | "F90" | "F95" | "F03" | "F08" => Some(Language::Fortran),
        "m" | "mi" | "mm" | "M" | "mii" | "go" | "d" | "di" | "dd" | "ads" | "adb" | "cu" => {
            Some(Language::OtherSource)
        }
        _ => None,
    }
}

/// The shim's own name for a tool name (`x86_64-linux-gnu-gcc-12` → driver), or `None` when
/// the name is not one the shim stands in for.
pub(crate) fn tool_kind_of(name: &str) -> Option<ToolKind> {
    if matches!(name, "ld" | "ld.bfd" | "ld.gold" | "ld.lld" | "ld.mold") {
        return Some(ToolKind::Linker);
    }
    // Strip a target triplet prefix (three or more dash-separated words before the tool).
    let base = [
        "clang++", "clang", "g++", "gcc", "c++", "cc", "gfortran", "f95", "f77",
    ]
    .iter()
    .find_map(|tool| {
        let at = name.rfind(tool)?;
        let (prefix, rest) = name.split_at(at);
        let suffix = &rest[tool.len()..];
        let prefix_ok = prefix.is_empty() || (prefix.ends_with('-') && prefix.len() > 1);
        let suffix_ok = suffix.is_empty()
            || (suffix.starts_with('-')
                && suffix.len() > 1
                && suffix[1..]
                    .chars()
                    .all(|ch| ch.is_ascii_digit() || ch == '.'));
        (prefix_ok && suffix_ok).then_some(*tool)
    });
    base.map(|_| ToolKind::Driver)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn driver(line: &str) -> Classified {
        classify(ToolKind::Driver, &args(line))
    }

    #[test]
    fn plain_compile_and_link() {
        let c = driver("-O2 -c foo.c -o foo.o");
        assert_eq!(c.kind, CallKind::Compile);
        assert_eq!(c.sources.len(), 1);
        assert_eq!(c.sources[0].language, Language::C);
        assert_eq!(c.output_path(), Some("foo.o"));

        let l = driver("-O2 -o prog main.o util.o -L. -lbz2 -lm");
        assert_eq!(l.kind, CallKind::Link);
        assert_eq!(l.output.as_ref().unwrap().0, Span { start: 1, len: 2 });
        assert_eq!(l.library_dirs, vec!["."]);
        let names: Vec<String> = l
            .link_inputs
            .iter()
            .map(|i| match i {
                LinkInputArg::File { path, .. } => path.clone(),
                LinkInputArg::Library { name, .. } => format!("lib:{name}"),
            })
            .collect();
        assert_eq!(names, ["main.o", "util.o", "lib:bz2", "lib:m"]);
    }

    #[test]
    fn link_without_output_writes_a_out() {
        let l = driver("main.o");
        assert_eq!(l.kind, CallKind::Link);
        assert_eq!(l.output_path(), Some("a.out"));
    }

    #[test]
    fn stdout_output_is_never_touched() {
        assert_eq!(driver("-c foo.c -o -").kind, CallKind::StdoutOutput);
        assert_eq!(driver("-E foo.c -o -").kind, CallKind::StdoutOutput);
        assert_eq!(driver("foo.o -o -").kind, CallKind::StdoutOutput);
    }

    #[test]
    fn preprocess_and_dependency_calls() {
        assert_eq!(driver("-E foo.c").kind, CallKind::Preprocess);
        assert_eq!(driver("-E -dM -x c /dev/null").kind, CallKind::Preprocess);
        assert_eq!(driver("-M foo.c").kind, CallKind::DependencyOnly);
        assert_eq!(driver("-MM -MF foo.d foo.c").kind, CallKind::DependencyOnly);
        // -MD/-MMD are side effects of a real compile.
        let c = driver("-MMD -MP -MF foo.d -MT foo.o -c foo.c -o foo.o");
        assert_eq!(c.kind, CallKind::Compile);
        assert_eq!(c.sources.len(), 1, "-MF/-MT values are not sources");
        assert_eq!(driver("-fsyntax-only foo.c").kind, CallKind::SyntaxOnly);
    }

    #[test]
    fn explicit_language_overrides_the_extension() {
        let c = driver("-x c -c weird.txt -o weird.o");
        assert_eq!(c.kind, CallKind::Compile);
        assert_eq!(c.sources[0].language, Language::C);
        assert!(c.sources[0].explicit_language);
        let cxx = driver("-xc++ -c a.inl");
        assert_eq!(cxx.sources[0].language, Language::Cxx);
        // -x none goes back to guessing: main.o is a linker input again.
        let mixed = driver("-x c a.h -x none main.o -o p");
        assert_eq!(mixed.sources.len(), 1);
        assert_eq!(mixed.link_inputs.len(), 1);
    }

    #[test]
    fn several_sources_and_outputs() {
        let c = driver("-c a.c b.cpp c.S");
        assert_eq!(c.kind, CallKind::Compile);
        let langs: Vec<Language> = c.sources.iter().map(|s| s.language).collect();
        assert_eq!(langs, [Language::C, Language::Cxx, Language::Assembly]);
        assert!(c.has_sectioned_source());
        assert!(!driver("-c start.S").has_sectioned_source());
        assert!(!driver("-c main.m").has_sectioned_source());
        // Compile-and-link in one call is a link with sources.
        let l = driver("-O2 a.c b.c -o prog -lm");
        assert_eq!(l.kind, CallKind::Link);
        assert_eq!(l.sources.len(), 2);
    }

    #[test]
    fn fortran_sources_take_function_sections() {
        let c = driver("-O2 -J mods -c vectors.f90 -o vectors.o");
        assert_eq!(c.kind, CallKind::Compile);
        assert_eq!(c.sources.len(), 1, "the -J value is not a source");
        assert!(
            c.link_inputs.is_empty(),
            "the -J value is not a linker input"
        );
        assert_eq!(c.sources[0].language, Language::Fortran);
        assert!(c.has_sectioned_source());
        for name in ["a.f", "a.F", "a.f77", "a.for", "a.F90", "a.f08"] {
            let lang = driver(&format!("-c {name}"))
                .sources
                .first()
                .map(|s| s.language);
            if name == "a.f77" {
                // gfortran does not know `.f77`: a linker input.
                assert_eq!(lang, None, "{name}");
            } else {
                assert_eq!(lang, Some(Language::Fortran), "{name}");
            }
        }
        let forced = driver("-x f95 -c kernel.inc");
        assert_eq!(forced.sources[0].language, Language::Fortran);
        // Compile-and-link with Fortran sources: a link the shim may split.
        let l = driver("-O2 a.f90 b.f90 -o prog");
        assert_eq!(l.kind, CallKind::Link);
        assert_eq!(l.sources.len(), 2);
    }

    #[test]
    fn linker_options_through_the_driver() {
        let l = driver("-Wl,--gc-sections -Wl,-Map,out.map -Xlinker -z -Xlinker now main.o -o p");
        assert_eq!(l.kind, CallKind::Link);
        assert_eq!(l.link_inputs.len(), 1, "-Xlinker values are not inputs");
        assert_eq!(
            driver("-fuse-ld=gold main.o").fuse_ld.as_deref(),
            Some("gold")
        );
        assert_eq!(
            driver("-Wl,-r a.o b.o -o c.o").kind,
            CallKind::RelocatableLink
        );
        assert_eq!(driver("-r a.o b.o -o c.o").kind, CallKind::RelocatableLink);
        assert_eq!(
            driver("-shared -fPIC a.o -o liba.so").kind,
            CallKind::SharedLink
        );
        let t = driver("-T script.ld main.o -o p");
        assert_eq!(t.link_inputs.len(), 1, "the -T value is not an object");
    }

    #[test]
    fn separate_lowercase_and_uppercase_l_values() {
        let l = driver("main.o -L dir -l z -o p");
        assert_eq!(l.library_dirs, vec!["dir"]);
        assert_eq!(
            l.link_inputs[1],
            LinkInputArg::Library {
                span: Span { start: 3, len: 2 },
                name: "z".into()
            }
        );
    }

    #[test]
    fn information_calls() {
        assert_eq!(driver("--version").kind, CallKind::Info);
        assert_eq!(driver("-v").kind, CallKind::Info);
        assert_eq!(driver("-dumpmachine").kind, CallKind::Info);
        assert_eq!(driver("-print-prog-name=ld").kind, CallKind::Info);
        assert_eq!(driver("-print-file-name=libc.a").kind, CallKind::Info);
        assert_eq!(driver("").kind, CallKind::Info);
        assert_eq!(driver("-lm").kind, CallKind::Info);
        // Standard input is an input (issue 34, attack 16): `-E -` preprocesses it.
        assert_eq!(driver("-E -").kind, CallKind::Preprocess);
        // With inputs too: these print or only show what would run.
        assert_eq!(driver("-### a.c b.c -o p").kind, CallKind::Info);
        assert_eq!(driver("--help a.c -o p").kind, CallKind::Info);
        assert_eq!(driver("--help=optimizers a.o -o p").kind, CallKind::Info);
        assert_eq!(driver("-print-search-dirs a.o").kind, CallKind::Info);
        // `-v` with inputs is a real (verbose) build.
        assert_eq!(driver("-v a.c -o p").kind, CallKind::Link);
    }

    /// Attack 16 of issue 34: a compile from standard input was taken for a version query,
    /// so its object lacked one section per function and the link was refused.
    #[test]
    fn standard_input_is_a_source_in_the_language_x_gives() {
        let c = driver("-O2 -x c -c - -o b.o");
        assert_eq!(c.kind, CallKind::Compile);
        assert_eq!(c.output_path(), Some("b.o"));
        assert_eq!(c.sources.len(), 1);
        let source = &c.sources[0];
        assert_eq!(
            (
                source.path.as_str(),
                source.language,
                source.explicit_language
            ),
            ("-", Language::C, true)
        );
        assert!(c.has_sectioned_source(), "-ffunction-sections is added");
        assert_eq!(driver("-xc++ -c -").sources[0].language, Language::Cxx);
        // Without -x the driver refuses it itself: no language, nothing added.
        let bare = driver("-c - -o b.o");
        assert_eq!(bare.kind, CallKind::Compile);
        assert!(!bare.has_sectioned_source());
        // A compile-and-link from standard input is a link with that source.
        let link = driver("-x c - -o prog");
        assert_eq!(link.kind, CallKind::Link);
        assert_eq!(link.sources[0].path, "-");
        // Still information calls, and `-o -` still means standard output.
        assert_eq!(driver("--version -x c -").kind, CallKind::Info);
        assert_eq!(driver("-x c -c - -o -").kind, CallKind::StdoutOutput);
    }

    #[test]
    fn side_output_options() {
        for line in [
            "-MD a.c b.c -o p",
            "-Wp,-MMD,.deps/a.d a.c -o p",
            "-MMD -MF deps a.c -o p",
            "--coverage a.c -o p",
            "-fprofile-generate=/tmp/prof a.c -o p",
            "-fprofile-use a.c -o p",
            "-fprofile-arcs -ftest-coverage a.c -o p",
            "-gsplit-dwarf a.c -o p",
            "-save-temps=obj a.c -o p",
            "-fdump-tree-all a.c -o p",
        ] {
            assert!(side_output_option(&args(line)).is_some(), "{line}");
        }
        assert_eq!(side_output_option(&args("-O2 -g -MT x a.c -o p")), None);
    }

    #[test]
    fn lto_and_function_sections_flags() {
        assert!(driver("-flto -O2 a.o -o p").lto);
        assert!(driver("-flto=4 a.o -o p").lto);
        assert!(driver("-flto=auto a.o -o p").lto);
        assert!(!driver("-flto -fno-lto a.o -o p").lto);
        assert!(driver("-ffunction-sections -c a.c").function_sections);
        assert!(!driver("-ffunction-sections -fno-function-sections -c a.c").function_sections);
        assert_eq!(driver("-c a.c").data_sections, None);
        assert_eq!(
            driver("-fno-data-sections -fdata-sections -c a.c").data_sections,
            Some(true)
        );
        assert_eq!(
            driver("-fdata-sections -fno-data-sections -c a.c").data_sections,
            Some(false)
        );
    }

    #[test]
    fn configure_probes_are_recognised() {
        assert!(driver("-o conftest conftest.c").is_configure_probe());
        assert!(driver("conftest.o -o conftest").is_configure_probe());
        assert!(driver("-c conftest.c").is_configure_probe());
        assert!(driver("CMakeFiles/cmTC_1a2b3.dir/x.o -o cmTC_1a2b3").is_configure_probe());
        assert!(!driver("main.o -o prog").is_configure_probe());
    }

    #[test]
    fn direct_linker_calls() {
        let ld = |l: &str| classify(ToolKind::Linker, &args(l));
        let l = ld("-o prog /usr/lib/crt1.o main.o -L. -lfoo -lc");
        assert_eq!(l.kind, CallKind::Link);
        assert_eq!(l.link_inputs.len(), 4);
        assert_eq!(ld("-r a.o b.o -o c.o").kind, CallKind::RelocatableLink);
        assert_eq!(ld("--version").kind, CallKind::Info);
        assert_eq!(ld("-v").kind, CallKind::Info);
        assert_eq!(ld("-shared a.o -o x.so").kind, CallKind::SharedLink);
        let m = ld("-m elf_x86_64 -dynamic-linker /lib64/ld.so -z relro a.o -o p");
        assert_eq!(m.link_inputs.len(), 1, "option values are not inputs");
    }

    #[test]
    fn tool_names() {
        for d in [
            "cc",
            "gcc",
            "g++",
            "c++",
            "clang",
            "clang++",
            "gcc-12",
            "clang-14",
            "clang++-14",
            "x86_64-linux-gnu-gcc",
            "x86_64-linux-gnu-g++-12",
            "gfortran",
            "gfortran-12",
            "x86_64-linux-gnu-gfortran-12",
            "f95",
            "f77",
        ] {
            assert_eq!(tool_kind_of(d), Some(ToolKind::Driver), "{d}");
        }
        for l in ["ld", "ld.bfd", "ld.gold", "ld.lld", "ld.mold"] {
            assert_eq!(tool_kind_of(l), Some(ToolKind::Linker), "{l}");
        }
        for other in [
            "layoutrand",
            "ar",
            "gccgo",
            "ccache",
            "make",
            "cc1",
            "-gcc",
            "gcc-x",
        ] {
            assert_eq!(tool_kind_of(other), None, "{other}");
        }
    }
}
