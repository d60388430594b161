//! Shared helpers of the `layout_*` integration tests: compile the fixtures in
//! `fixtures/layout/` once per test process with the real compilers, link with the real
//! linkers, run the results.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use layoutrand::layout::binary::Function;

/// The linkers every layout primitive is checked with (`gcc -fuse-ld=NAME`).
pub const LINKERS: [&str; 4] = ["bfd", "gold", "lld", "mold"];

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/layout")
}

/// Runs a command in `cwd`, panicking with its stderr if it fails; returns stdout.
pub fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("cannot run {cmd:?}: {e} (is the toolchain installed? see scripts/setup.sh)")
    });
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The C fixture compiled with gcc -O2 -g -ffunction-sections into a temporary directory:
/// module objects `main.o util.o calc.o errlog.o` and the archive `libfix.a` (members
/// `libmember_with_a_long_name.o`, `dup.o` from dup1/, `dup.o` from dup2/), and
/// `padding.o` (not part of the program; shifts addresses when linked first).
pub struct CBuild {
    pub dir: tempfile::TempDir,
}

impl CBuild {
    pub const MODULES: [&'static str; 4] = ["main", "util", "calc", "errlog"];

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The module objects as named on the link line (relative to the build directory).
    pub fn objects(&self) -> Vec<String> {
        Self::MODULES.iter().map(|m| format!("{m}.o")).collect()
    }

    /// The whole program's link inputs: the module objects, then the archive.
    pub fn program(&self) -> Vec<String> {
        let mut inputs = self.objects();
        inputs.push("libfix.a".into());
        inputs
    }

    /// Links `inputs` (relative to the build directory) with `linker` into `out`.
    pub fn link(&self, linker: &str, inputs: &[String], extra: &[String], out: &str) -> PathBuf {
        let mut cmd = Command::new("gcc");
        cmd.current_dir(self.dir.path())
            .arg(format!("-fuse-ld={linker}"))
            .args(extra)
            .args(inputs)
            .arg("-o")
            .arg(out);
        run_ok(&mut cmd);
        self.path(out)
    }
}

pub fn c_build() -> &'static CBuild {
    static BUILD: OnceLock<CBuild> = OnceLock::new();
    BUILD.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let src = fixtures().join("c");
        let compile = |source: &str, object: &Path| {
            run_ok(
                Command::new("gcc")
                    .current_dir(&src)
                    .args(["-O2", "-g", "-ffunction-sections", "-c", source, "-o"])
                    .arg(object),
            );
        };
        for m in CBuild::MODULES {
            compile(&format!("{m}.c"), &dir.path().join(format!("{m}.o")));
        }
        for sub in ["dup1", "dup2"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
            compile(&format!("{sub}/dup.c"), &dir.path().join(sub).join("dup.o"));
        }
        compile("padding.c", &dir.path().join("padding.o"));
        compile(
            "libmember_with_a_long_name.c",
            &dir.path().join("libmember_with_a_long_name.o"),
        );
        run_ok(Command::new("ar").current_dir(dir.path()).args([
            "qcsD",
            "libfix.a",
            "libmember_with_a_long_name.o",
            "dup1/dup.o",
            "dup2/dup.o",
        ]));
        CBuild { dir }
    })
}

/// Runs a fixture binary with no arguments and returns its stdout; it must exit 0.
pub fn run_binary(binary: &Path) -> String {
    run_ok(&mut Command::new(binary))
}

/// The names of `functions` (in address order) that belong to a module: names in `names`
/// that are either global (no file) or local to the module's source file `source`.
pub fn module_sequence(functions: &[Function], names: &[String], source: &str) -> Vec<String> {
    functions
        .iter()
        .filter(|f| names.contains(&f.name))
        .filter(|f| f.file.as_deref().is_none_or(|file| file == source))
        .map(|f| f.name.clone())
        .collect()
}
