//! The shim on its own, with the real compilers: called as `cc` through a link on PATH or as
//! the CMake launcher, it adds `-ffunction-sections` to compiles, records final links (also
//! under `make -j`, through `@file`s and compile-and-link calls), skips configure probes,
//! leaves `-o -` alone, and never breaks a build on an internal error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use layoutrand::wrap::record::{self, InputKind};

struct Shim {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    bin: PathBuf,
    record: PathBuf,
}

/// A shim directory, a record directory and a work directory with two C modules.
fn setup() -> Shim {
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("shims");
    layoutrand::wrap::install_shims(&bin, Path::new(env!("CARGO_BIN_EXE_layoutrand"))).unwrap();
    let dir = tmp.path().join("work");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.c"),
        "static int helper(int x) { return x * 3; }\nint fa(int x) { return helper(x) + 1; }\n\
         int fb(int x) { return x - 1; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.c"),
        "#include <stdio.h>\nint fa(int);\nstatic int helper(int x) { return x * 5; }\n\
         int main(void) { printf(\"%d\\n\", fa(2) + helper(1)); return 0; }\n",
    )
    .unwrap();
    let record = tmp.path().join("record");
    Shim {
        dir,
        bin,
        record,
        _tmp: tmp,
    }
}

impl Shim {
    /// `sh -c SCRIPT` in the work directory with the shim first on PATH and recording on.
    fn sh(&self, script: &str) -> Output {
        let path = format!("{}:{}", self.bin.display(), std::env::var("PATH").unwrap());
        let out = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(&self.dir)
            .env("PATH", path)
            .env(layoutrand::wrap::ENV_RECORD_DIR, &self.record)
            .env(layoutrand::wrap::ENV_SHIM_DIR, &self.bin)
            .env(
                layoutrand::wrap::ENV_REAL_PATH,
                std::env::var("PATH").unwrap(),
            )
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{script}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn links(&self) -> Vec<record::LinkRecord> {
        record::read_records(&self.record).unwrap()
    }
}

fn section_names(object: &Path) -> Vec<String> {
    let data = std::fs::read(object).unwrap();
    let file = object::File::parse(&*data).unwrap();
    use object::{Object, ObjectSection};
    file.sections()
        .filter_map(|s| s.name().ok().map(str::to_string))
        .collect()
}

#[test]
fn compiles_get_function_sections_and_links_are_recorded() {
    let s = setup();
    s.sh("cc -O2 -c a.c -o a.o && gcc -O2 -c main.c && cc -o prog main.o a.o && ./prog");
    assert!(section_names(&s.dir.join("a.o")).contains(&".text.fa".to_string()));
    assert!(section_names(&s.dir.join("main.o")).contains(&".text.startup.main".to_string()));
    let links = s.links();
    assert_eq!(links.len(), 1);
    let link = &links[0];
    assert_eq!(link.output, s.dir.join("prog"));
    assert_eq!(link.tool_name, "cc");
    assert_eq!(link.cwd, s.dir);
    let written: Vec<&str> = link.inputs.iter().map(|i| i.written.as_str()).collect();
    assert_eq!(written, ["main.o", "a.o"]);
    // The copies are the objects' bytes, named by their BLAKE3 hash.
    for input in &link.inputs {
        let original = std::fs::read(s.dir.join(&input.written)).unwrap();
        let copy = std::fs::read(s.record.join(record::BLOBS_DIR).join(&input.blob)).unwrap();
        assert_eq!(original, copy);
        assert!(input
            .blob
            .starts_with(blake3::hash(&original).to_hex().as_str()));
    }
    // PATH in the record is the real one: replaying never meets the shim.
    assert!(!link.env["PATH"].contains(s.bin.to_str().unwrap()));
}

#[test]
fn archives_behind_l_flags_are_copied() {
    let s = setup();
    s.sh("cc -c a.c && cc -c main.c && ar rcs libfa.a a.o && cc -o prog main.o -L. -lfa -lm && ./prog");
    let links = s.links();
    let kinds: Vec<(String, InputKind)> = links[0]
        .inputs
        .iter()
        .map(|i| (i.written.clone(), i.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("main.o".to_string(), InputKind::Object),
            ("-lfa".to_string(), InputKind::Archive)
        ],
        "-lm is the system's and stays as written"
    );
    let seen = std::fs::read_to_string(s.record.join(record::SEEN_LOG)).unwrap();
    assert!(seen.lines().any(|l| l.starts_with("ar\t")), "{seen}");
}

#[test]
fn response_files_are_expanded_for_the_record_and_passed_through() {
    let s = setup();
    std::fs::write(s.dir.join("objs.rsp"), "main.o 'a.o'\n").unwrap();
    s.sh("cc -c a.c && cc -c main.c && cc @objs.rsp -o prog && ./prog");
    let links = s.links();
    assert_eq!(links[0].args, ["main.o", "a.o", "-o", "prog"]);
    assert_eq!(links[0].inputs.len(), 2);
}

#[test]
fn compile_and_link_in_one_call_is_split_into_replayable_objects() {
    let s = setup();
    let out = s.sh("cc -O2 main.c a.c -o prog && ./prog");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "12");
    let links = s.links();
    assert_eq!(links[0].inputs.len(), 2);
    for input in &links[0].inputs {
        let blob = s.record.join(record::BLOBS_DIR).join(&input.blob);
        assert!(
            section_names(&blob).iter().any(|n| n.starts_with(".text.")),
            "{}",
            input.written
        );
    }
    // The temporary objects are gone from the record.
    let split: Vec<_> = std::fs::read_dir(s.record.join("split")).unwrap().collect();
    assert!(split.is_empty());
}

/// A `-shared` link is recorded like a program's (marked `shared`), with its -fPIC objects,
/// so that `build` relinks the library per seed.
#[test]
fn shared_library_links_are_recorded() {
    let s = setup();
    s.sh("cc -fPIC -c a.c && cc -shared -Wl,-soname,liba.so.1 a.o -o liba.so.1.0");
    let links = s.links();
    assert_eq!(links.len(), 1);
    assert!(links[0].shared);
    assert!(links[0].output.ends_with("liba.so.1.0"));
    assert_eq!(links[0].inputs.len(), 1);
    let seen = std::fs::read_to_string(s.record.join(record::SEEN_LOG)).unwrap();
    assert!(
        seen.lines().any(|l| l.starts_with("shared-link\t")),
        "{seen}"
    );
}

#[test]
fn configure_probes_and_non_links_are_not_recorded() {
    let s = setup();
    std::fs::write(s.dir.join("conftest.c"), "int main(void) { return 0; }\n").unwrap();
    s.sh(
        "cc -o conftest conftest.c && cc -E a.c -o - >/dev/null && cc -E a.c >/dev/null && cc -M a.c >/dev/null \
         && cc -fsyntax-only a.c && cc --version >/dev/null && cc -S a.c -o - >/dev/null \
         && cc -c a.c && cc -r a.o -o ar.o",
    );
    assert!(s.links().is_empty());
    let seen = std::fs::read_to_string(s.record.join(record::SEEN_LOG)).unwrap();
    for kind in [
        "probe-link",
        "preprocess",
        "dependencies",
        "syntax-only",
        "info",
        "stdout-output",
        "relocatable-link",
    ] {
        assert!(
            seen.lines().any(|l| l.starts_with(&format!("{kind}\t"))),
            "{kind}: {seen}"
        );
    }
}

#[test]
fn concurrent_calls_under_make_j_each_record_safely() {
    let s = setup();
    let mut makefile = String::from("all:");
    for k in 0..8 {
        makefile.push_str(&format!(" p{k}"));
    }
    makefile.push('\n');
    for k in 0..8 {
        std::fs::write(
            s.dir.join(format!("m{k}.c")),
            format!("int main(void) {{ return {k}; }}\n"),
        )
        .unwrap();
        makefile.push_str(&format!(
            "p{k}: m{k}.c a.c\n\tcc -c m{k}.c && cc -o p{k} m{k}.o a.c\n"
        ));
    }
    std::fs::write(s.dir.join("Makefile"), makefile).unwrap();
    s.sh("make -j8");
    let links = s.links();
    let mut outputs: Vec<String> = links
        .iter()
        .map(|l| l.output.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    outputs.sort();
    assert_eq!(outputs, ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"]);
    assert!(!s.record.join(record::ERRORS_LOG).exists());
}

#[test]
fn an_internal_error_never_breaks_the_build() {
    let s = setup();
    // The record directory cannot be created (its parent is a file): the shim logs nothing
    // it can write, and the link still happens, unchanged.
    let blocker = s.dir.join("blocker");
    std::fs::write(&blocker, "not a directory").unwrap();
    let path = format!("{}:{}", s.bin.display(), std::env::var("PATH").unwrap());
    let out = Command::new("sh")
        .arg("-c")
        .arg("cc -c a.c && cc -c main.c && cc -o prog main.o a.o && ./prog")
        .current_dir(&s.dir)
        .env("PATH", path)
        .env(layoutrand::wrap::ENV_RECORD_DIR, blocker.join("record"))
        .env(layoutrand::wrap::ENV_SHIM_DIR, &s.bin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "12");
}

#[test]
fn outside_a_recording_the_shim_is_pure_pass_through() {
    let s = setup();
    let path = format!("{}:{}", s.bin.display(), std::env::var("PATH").unwrap());
    let out = Command::new("sh")
        .arg("-c")
        .arg("cc -O2 -c a.c -o a.o")
        .current_dir(&s.dir)
        .env("PATH", path)
        .env_remove(layoutrand::wrap::ENV_RECORD_DIR)
        .output()
        .unwrap();
    assert!(out.status.success());
    let names = section_names(&s.dir.join("a.o"));
    assert!(!names.contains(&".text.fa".to_string()), "{names:?}");
}

#[test]
fn the_launcher_form_records_calls_by_absolute_path() {
    let s = setup();
    let launcher = s.bin.join(layoutrand::wrap::LAUNCHER_NAME);
    let l = launcher.display();
    let exe = env!("CARGO_BIN_EXE_layoutrand");
    // CMake's form: LAUNCHER /usr/bin/cc ARGS; also `layoutrand launch` for a launcher list.
    s.sh(&format!(
        "{l} /usr/bin/cc -O2 -c a.c -o a.o && {exe} launch /usr/bin/cc -O2 -c main.c -o main.o \
         && {l} /usr/bin/cc main.o a.o -o prog && ./prog"
    ));
    assert!(section_names(&s.dir.join("a.o")).contains(&".text.fa".to_string()));
    assert!(section_names(&s.dir.join("main.o")).contains(&".text.startup.main".to_string()));
    let links = s.links();
    assert_eq!(links.len(), 1);
    assert_eq!(links[0].real_tool, Path::new("/usr/bin/cc"));
}

#[test]
fn a_direct_linker_call_from_gcc_is_not_recorded_twice() {
    let s = setup();
    // gcc's collect2 finds `ld` on PATH; the shim's `ld` must pass it through.
    s.sh("cc -c a.c && cc -c main.c && cc -fuse-ld=bfd -o prog main.o a.o && ./prog");
    assert_eq!(s.links().len(), 1);
    assert_eq!(s.links()[0].fuse_ld.as_deref(), Some("bfd"));
}
