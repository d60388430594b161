//! One program that cannot be randomised (only `main`) is left out with a note instead of
//! failing every seed of every program; distinct layouts and coinciding seeds are reported per
//! program; more than 1000 seeds need a flag; an interrupted build keeps its finished seeds
//! and `--extend` continues it.

use crate::build_support;

use std::path::Path;

use crate::snapshot_support::{in_dir, redact};
use build_support::*;
use layoutrand::files::manifest::{BuildStatus, Manifest};

/// A message or summary of a build in `tmp`, with that directory written `[dir]` and its
/// times (`2.69 s`, `ratio 0.05`) written `[t]`.
fn pinned(text: &[u8], tmp: &Path) -> String {
    crate::summary::without_times(&in_dir(&String::from_utf8_lossy(text), tmp))
}

/// The multimodule fixture plus `onlymain` (one function) and `twofn` (two movable
/// functions in two modules: two possible layouts, so seeds must coincide).
fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, src) = fixture("multimodule");
    std::fs::write(
        src.join("onlymain.c"),
        "#include <stdio.h>\nint main(void) { puts(\"only main\"); return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("fa.c"),
        "__attribute__((noinline)) int fa(int x) { return x * 3 + 1; }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("fb.c"),
        "__attribute__((noinline)) int fb(int x) { return x * 5 - 2; }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("twomain.c"),
        "#include <stdio.h>\nint fa(int);\nint fb(int);\n\
         int main(void) { printf(\"%d\\n\", fa(2) + fb(3)); return 0; }\n",
    )
    .unwrap();
    let makefile = std::fs::read_to_string(src.join("Makefile")).unwrap();
    let makefile = makefile.replacen(
        "multimodule: $(OBJS)",
        "all: multimodule onlymain twofn\n\n\
         onlymain: onlymain.o\n\t$(CC) $(CFLAGS) -o $@ onlymain.o\n\n\
         twofn: twomain.o fa.o fb.o\n\t$(CC) $(CFLAGS) -o $@ twomain.o fa.o fb.o\n\n\
         multimodule: $(OBJS)",
        1,
    );
    std::fs::write(src.join("Makefile"), makefile).unwrap();
    (tmp, src)
}

fn out_of(src: &Path) -> String {
    src.parent().unwrap().join("out").display().to_string()
}

#[test]
fn a_program_with_nothing_to_move_is_left_out_and_coinciding_seeds_are_named() {
    let (_tmp, src) = tree();
    let out = out_of(&src);
    let o = build(&src, &["--seeds", "5", "--out", &out], &["make", "-j2"]);
    assert_success(&o, "build");
    // The summary, pinned whole, says onlymain is left out and names twofn's coinciding
    // layouts.
    insta::assert_snapshot!(pinned(&o.stdout, src.parent().unwrap()));
    let m = check_binaries(Path::new(&out), "multimodule", 5, "multimodule");
    for v in &m.seeds {
        assert_eq!(v.status, BuildStatus::Ok, "{:?}", v.error);
        let names: Vec<&str> = v.binaries.iter().map(|b| b.name.as_str()).collect();
        assert!(!names.contains(&"onlymain"), "{names:?}");
        assert!(Path::new(&out)
            .join(v.label())
            .join("multimodule")
            .is_file());
        assert!(!Path::new(&out).join(v.label()).join("onlymain").exists());
    }
    // The baseline keeps it.
    assert!(m.baseline.binaries.iter().any(|b| b.name == "onlymain"));
    let summary = |name: &str| m.programs.iter().find(|p| p.name == name).unwrap();
    assert!(summary("onlymain").excluded.is_some());
    assert_eq!(summary("multimodule").distinct_layouts, 5);
    assert!(summary("multimodule").coinciding.is_empty());
    let two = summary("twofn");
    assert_eq!(two.excluded, None, "twofn: {:?}", two.excluded);
    // Few layouts are possible (two functions to order, three modules): 5 seeds must repeat.
    assert!(two.distinct_layouts < 5);
    assert!(!two.coinciding.is_empty());
    assert!(two.coinciding.iter().all(|g| g.len() >= 2));
    assert_eq!(m.excluded_programs(), ["onlymain"]);

    // --extend keeps it out.
    let o = build(
        &src,
        &["--extend", "--seeds", "6", "--out", &out],
        &["make", "-j2"],
    );
    assert_success(&o, "build --extend");
    let m = Manifest::load(Path::new(&out)).unwrap();
    assert_eq!(m.seeds.len(), 6);
    assert!(m.seeds[5].binaries.iter().all(|b| b.name != "onlymain"));
    assert_eq!(m.excluded_programs(), ["onlymain"]);
}

#[test]
fn more_than_a_thousand_seeds_need_a_flag_and_show_the_cost() {
    let (_tmp, src) = fixture("multimodule");
    let out = out_of(&src);
    let o = build(&src, &["--seeds", "1001", "--out", &out], &["make"]);
    assert_eq!(o.status.code(), Some(2));
    // The message, pinned whole, projects the cost (written [t], [size]: the machine's) and
    // names the flag.
    insta::assert_snapshot!(redact(
        &pinned(&o.stderr, src.parent().unwrap()),
        &[(
            r"about (\[t\] s|\d+(\.\d+)? (min|h)) and \d+(\.\d+)? (MB|GB)",
            "about [t] and [size]"
        )]
    ));
    assert!(!Path::new(&out).join("seed-1").exists());
}

#[test]
fn an_interrupted_build_keeps_its_finished_seeds_and_extend_continues() {
    let (_tmp, src) = fixture("multimodule");
    let out = src.parent().unwrap().join("out");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_layoutrand"))
        .current_dir(&src)
        .args(["build", "-q", "--jobs", "1", "--seeds", "900", "--out"])
        .arg(&out)
        .args(["--", "make"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        let seeds = Manifest::load(&out).map(|m| m.seeds.len()).unwrap_or(0);
        if seeds >= 2 {
            break;
        }
        assert!(
            start.elapsed().as_secs() < 60,
            "no seed was saved within 60 s"
        );
        assert!(child.try_wait().unwrap().is_none(), "the build ended early");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success());
    // The message, pinned whole, gives the seeds kept (written [n]) and the command that
    // continues (no build command needed after `--`).
    let stderr = pinned(&o.stderr, src.parent().unwrap());
    insta::assert_snapshot!(redact(&stderr, &[(r"after \d+ of", "after [n] of")]));
    let m = Manifest::load(&out).unwrap();
    let kept = m.seeds.len();
    assert!(
        stderr.contains(&format!("after {kept} of 900 seeds")),
        "the seeds said kept are not the manifest's {kept}: {stderr}"
    );
    assert!((2..900).contains(&kept), "{kept} seeds");
    for v in &m.seeds {
        assert_eq!(v.status, BuildStatus::Ok, "{:?}", v.error);
        for b in &v.binaries {
            assert!(out.join(&b.path).is_file(), "{}", b.path.display());
        }
    }
    let o = build(
        &src,
        &[
            "--extend",
            "--seeds",
            &(kept + 2).to_string(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_success(&o, "build --extend without the build command");
    check_binaries(&out, "multimodule", kept + 2, "after --extend");
}

/// The multimodule fixture plus a cargo-style build script (`build_script_build-<hash>`, two
/// modules), linked and run by the build itself.
fn tree_with_build_script() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, src) = fixture("multimodule");
    let makefile = std::fs::read_to_string(src.join("Makefile")).unwrap();
    let makefile = makefile.replacen(
        "multimodule: $(OBJS)",
        "all: multimodule\n\n\
         build_script_build-0123456789abcdef: main.o m1.o m2.o m3.o m4.o m5.o m6.o m7.o\n\
         \t$(CC) $(CFLAGS) -o $@ main.o m1.o m2.o m3.o m4.o m5.o m6.o m7.o\n\n\
         multimodule: $(OBJS) build_script_build-0123456789abcdef\n\
         \t./build_script_build-0123456789abcdef > /dev/null\n",
        1,
    );
    std::fs::write(src.join("Makefile"), makefile).unwrap();
    (tmp, src)
}

/// A build script is not one of the build's programs: it gets no baseline nor seeds and the
/// summary says so; `--programs` relinks exactly the programs it names (the build script
/// included) and refuses an unknown name with the recorded ones. Every program's baseline is
/// compared with the binary the build made ("baseline vs as built": with bfd, the same
/// functions, order and addresses).
#[test]
fn build_scripts_are_not_programs_unless_named() {
    let (_tmp, src) = tree_with_build_script();
    let out = out_of(&src);
    let o = build(&src, &["--seeds", "2", "--out", &out], &["make"]);
    assert_success(&o, "build");
    let stdout = pinned(&o.stdout, src.parent().unwrap());
    let m = Manifest::load(Path::new(&out)).unwrap();
    let names: Vec<&str> = m
        .baseline
        .binaries
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["multimodule"], "{stdout}");
    // The summary, pinned whole, notes the build script as a tool the build runs and
    // compares the baseline with the build's own binary.
    insta::assert_snapshot!("build_script_summary", stdout);

    let o = build(
        &src,
        &[
            "--seeds",
            "2",
            "--out",
            &out,
            "--programs",
            "build_script_build-0123456789abcdef,multimodule",
        ],
        &["sh", "-c", "make clean >/dev/null && make"],
    );
    assert_success(&o, "build --programs");
    let m = Manifest::load(Path::new(&out)).unwrap();
    assert_eq!(m.baseline.binaries.len(), 2);
    assert!(m
        .seeds
        .iter()
        .all(|v| v.find("build_script_build-0123456789abcdef").is_some()));

    let o = build(
        &src,
        &["--seeds", "2", "--out", &out, "--programs", "nosuch"],
        &["sh", "-c", "make clean >/dev/null && make"],
    );
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    // The message, pinned whole, names the unknown program and the recorded ones.
    insta::assert_snapshot!("unknown_program", pinned(&o.stderr, src.parent().unwrap()));
}

/// Test programs (by their names) are not relinked by default when the build linked other
/// programs too, and the summary names them and says how to relink them; `--programs all`
/// relinks every program; a build whose only program is a test relinks it.
#[test]
fn test_programs_are_left_out_unless_nothing_else_is_linked() {
    let (_tmp, src) = fixture("multimodule");
    let out = out_of(&src);
    let objs = "main.o m1.o m2.o m3.o m4.o m5.o m6.o m7.o";
    let with_tests = format!(
        "make clean >/dev/null && make && cc -O2 -g -o db_test {objs} && \
         cc -O2 -g -o test-util {objs}"
    );
    let names = |m: &Manifest| -> Vec<String> {
        m.baseline.binaries.iter().map(|b| b.name.clone()).collect()
    };
    let o = build(
        &src,
        &["--seeds", "2", "--out", &out],
        &["sh", "-c", &with_tests],
    );
    assert_success(&o, "build with test programs");
    let stdout = pinned(&o.stdout, src.parent().unwrap());
    let m = Manifest::load(Path::new(&out)).unwrap();
    assert_eq!(names(&m), ["multimodule"], "{stdout}");
    assert!(m.seeds.iter().all(|v| v.binaries.len() == 1), "{stdout}");
    // Measuring a test program left out: run says why it is missing and how to get it.
    let o = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(&src)
        .args([
            "run",
            "--out",
            &out,
            "--executions",
            "1",
            "--",
            "{bin:db_test}",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    // run's message, pinned whole, says why db_test is missing and how to get it; the
    // build's summary, pinned whole, names the test programs not relinked and the flag.
    insta::assert_snapshot!(
        "run_of_a_test_program",
        pinned(&o.stderr, src.parent().unwrap())
    );
    insta::assert_snapshot!("summary_with_tests_left_out", stdout);

    let o = build(
        &src,
        &["--seeds", "2", "--out", &out, "--programs", "all"],
        &["sh", "-c", &with_tests],
    );
    assert_success(&o, "build --programs all");
    let m = Manifest::load(Path::new(&out)).unwrap();
    assert_eq!(names(&m), ["db_test", "multimodule", "test-util"]);
    assert!(m.seeds.iter().all(|v| v.binaries.len() == 3));

    let o = build(
        &src,
        &["--seeds", "2", "--out", &out, "--programs", "db_test"],
        &["sh", "-c", &with_tests],
    );
    assert_success(&o, "build --programs db_test");
    assert_eq!(
        names(&Manifest::load(Path::new(&out)).unwrap()),
        ["db_test"]
    );
    insta::assert_snapshot!(
        "summary_of_db_test_alone",
        pinned(&o.stdout, src.parent().unwrap())
    );

    let only_a_test = format!("make clean >/dev/null && make {objs} && cc -O2 -o unit_test {objs}");
    let o = build(
        &src,
        &["--seeds", "2", "--out", &out],
        &["sh", "-c", &only_a_test],
    );
    assert_success(&o, "build of a test program alone");
    assert_eq!(
        names(&Manifest::load(Path::new(&out)).unwrap()),
        ["unit_test"]
    );
}
