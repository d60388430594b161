//! The shim and the build never touch anything but regular files the build itself writes:
//! links to a character device (`-o /dev/null`) pass through unrecorded in every mode (the
//! recorded build, its relinks, `--rebuild`, `--extend`), and the device stays a device.
//!
//! The links go to a private device node (major 1, minor 3, like /dev/null) made with mknod
//! in a temporary directory, so that a bug cannot break the machine's /dev/null; the real one
//! is checked afterwards too.

use crate::build_support;

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use build_support::*;
use layoutrand::files::manifest::{BuildStatus, Manifest};

/// A private null device in `dir`, or the real /dev/null when this machine does not allow one
/// (no privilege for mknod, or a `nodev` file system).
fn null_device(dir: &Path) -> PathBuf {
    let node = dir.join("null");
    let made = std::process::Command::new("mknod")
        .args(["-m", "666"])
        .arg(&node)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if made && std::fs::OpenOptions::new().write(true).open(&node).is_ok() {
        node
    } else {
        PathBuf::from("/dev/null")
    }
}

fn assert_char_device(path: &Path, what: &str) {
    let meta = std::fs::symlink_metadata(path).unwrap();
    assert!(
        meta.file_type().is_char_device(),
        "{what}: {} is no longer a character device ({:?})",
        path.display(),
        meta.file_type()
    );
}

/// The multimodule fixture with extra links to `null`: objects linked to it, sources
/// compiled and linked to it in one call, and `-o-` spelled as one argument.
fn tree_linking_to(null: &Path) -> (tempfile::TempDir, PathBuf) {
    let (tmp, src) = fixture("multimodule");
    let makefile = std::fs::read_to_string(src.join("Makefile")).unwrap();
    let null = null.display();
    let extra = format!(
        "\t$(CC) $(CFLAGS) -o {null} $(OBJS)\n\
         \t$(CC) $(CFLAGS) main.c m1.c m2.c m3.c m4.c m5.c m6.c m7.c -o {null}\n\
         \t$(CC) -o{null} $(OBJS)\n"
    );
    let makefile = makefile.replace(
        "\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n",
        &format!("\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n{extra}"),
    );
    std::fs::write(src.join("Makefile"), makefile).unwrap();
    (tmp, src)
}

fn program_names(m: &Manifest) -> Vec<Vec<String>> {
    m.binary_sets()
        .map(|v| v.binaries.iter().map(|b| b.name.clone()).collect())
        .collect()
}

#[test]
fn links_to_a_device_pass_through_in_every_mode() {
    let dev = tempfile::tempdir().unwrap();
    let null = null_device(dev.path());

    // Record + relink, then --extend.
    let (_tmp, src) = tree_linking_to(&null);
    let out = src.parent().unwrap().join("out");
    let o = build(
        &src,
        &["--seeds", "2", "--out", out.to_str().unwrap()],
        &["make"],
    );
    assert_success(&o, "build");
    assert_char_device(&null, "after the recorded build and relinks");
    let m = Manifest::load(&out).unwrap();
    for names in program_names(&m) {
        assert_eq!(names, ["multimodule"], "the device link was recorded");
    }
    let o = build(
        &src,
        &["--extend", "--seeds", "3", "--out", out.to_str().unwrap()],
        &["make"],
    );
    assert_success(&o, "build --extend");
    assert_char_device(&null, "after --extend");
    assert_eq!(Manifest::load(&out).unwrap().seeds.len(), 3);

    // --rebuild: every binary's build runs the device links again, with live relinking on.
    let (_tmp2, src) = tree_linking_to(&null);
    let out = src.parent().unwrap().join("out");
    let o = build(
        &src,
        &["--rebuild", "--seeds", "2", "--out", out.to_str().unwrap()],
        &["make"],
    );
    assert_success(&o, "build --rebuild");
    assert_char_device(&null, "after --rebuild");
    let m = Manifest::load(&out).unwrap();
    for v in m.binary_sets() {
        assert_eq!(v.status, BuildStatus::Ok, "{}: {:?}", v.label(), v.error);
    }
    for names in program_names(&m) {
        assert_eq!(names, ["multimodule"]);
    }
    assert_char_device(Path::new("/dev/null"), "the machine's /dev/null");
}

#[test]
fn information_calls_and_side_outputs_are_never_split_or_recorded() {
    // `-###` only shows what would run; `-MD` and `--coverage` write files named after the
    // output and the sources of the one call: all must run as the plain build runs them.
    let extra = "\t$(CC) -### main.c m1.c -o never 2> hashes.txt\n\
                 \t$(CC) -O2 -MD main.c m1.c m2.c m3.c m4.c m5.c m6.c m7.c -o withdeps\n\
                 \t$(CC) -O2 --coverage main.c m1.c m2.c m3.c m4.c m5.c m6.c m7.c -o withcov\n";
    let with_extra = |src: &Path| {
        let makefile = std::fs::read_to_string(src.join("Makefile")).unwrap();
        let makefile = makefile.replace(
            "\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n",
            &format!("\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n{extra}"),
        );
        std::fs::write(src.join("Makefile"), makefile).unwrap();
    };
    let (_plain_tmp, plain) = fixture("multimodule");
    with_extra(&plain);
    let status = std::process::Command::new("make")
        .current_dir(&plain)
        .output()
        .unwrap();
    assert!(status.status.success());
    let (_tmp, src) = fixture("multimodule");
    with_extra(&src);
    let out = src.parent().unwrap().join("out");
    let o = build(
        &src,
        &["--seeds", "2", "--out", out.to_str().unwrap()],
        &["make"],
    );
    assert_success(&o, "build");
    // Its note, pinned whole, names the side outputs and the object they came with.
    insta::assert_snapshot!(crate::snapshot_support::stderr_in(
        &o,
        src.parent().unwrap()
    ));
    // -### compiled nothing and linked nothing.
    assert!(!src.join("never").exists());
    let hashes = std::fs::read_to_string(src.join("hashes.txt")).unwrap();
    assert!(hashes.contains("cc1"), "{hashes}");
    // Every file is where the plain build puts it (gcc names the .d and .gcno files after
    // the output: withdeps.d, withcov-m1.gcno), and no side output went to the record.
    let files = |dir: &Path| -> std::collections::BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "out")
            .collect()
    };
    let plain_files = files(&plain);
    assert!(
        plain_files.iter().any(|n| n.ends_with(".d"))
            && plain_files.iter().any(|n| n.ends_with(".gcno")),
        "{plain_files:?}"
    );
    assert_eq!(files(&src), plain_files);
    for entry in walkdir::WalkDir::new(&out) {
        let p = entry.unwrap().path().to_path_buf();
        let ext = p.extension().map(|e| e.to_string_lossy().into_owned());
        assert!(
            !matches!(ext.as_deref(), Some("d" | "gcno" | "gcda")),
            "side output in the record: {}",
            p.display()
        );
    }
    let m = Manifest::load(&out).unwrap();
    for names in program_names(&m) {
        assert_eq!(names, ["multimodule"]);
    }
    // The coverage program, run, writes its counts next to the plain build's notes.
    let run = std::process::Command::new(src.join("withcov"))
        .current_dir(&src)
        .output()
        .unwrap();
    assert!(run.status.success());
    let gcda: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".gcda"))
        .collect();
    assert!(!gcda.is_empty(), "no .gcda in the tree");
}

/// A link that writes a map and a dependency file (`-Wl,-Map=`, `-Wl,--dependency-file=`):
/// the relinks leave both out, so the files in the tree stay the build's own, byte for byte
/// (before the fix each seed's relink wrote its map over the build's, the last seed's kept),
/// and the binaries are the same as without the options.
#[test]
fn a_links_map_and_dependency_file_stay_the_builds_own() {
    let side_files = "-Wl,-Map=calc.map -Wl,--dependency-file=calc.deps";
    let (_tmp, src) = fixture("archive");
    let cflags = format!("CFLAGS=-O2 {side_files}");
    let o = build(&src, &["--seeds", "3", "--out", "out"], &["make", &cflags]);
    assert_success(&o, "build");
    // The relinks' inputs lie in out/.work: a map or dependency list naming them is a relink's.
    for file in ["calc.map", "calc.deps"] {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        assert!(
            !text.contains("/out/"),
            "{file} in the tree is a relink's: {text}"
        );
    }
    assert!(!src.join("out/seed-1/calc.map").exists());
    // The options change no byte of a binary: the same seeds without them link the same.
    let (_tmp, plain_src) = fixture("archive");
    let o = build(&plain_src, &["--seeds", "3", "--out", "out"], &["make"]);
    assert_success(&o, "build without the options");
    let with = Manifest::load(&src.join("out")).unwrap();
    let without = Manifest::load(&plain_src.join("out")).unwrap();
    let hashes = |m: &Manifest| -> Vec<String> {
        m.binary_sets()
            .filter(|set| set.seed.is_some())
            .map(|set| set.find("calc").unwrap().sha256.clone())
            .collect()
    };
    assert_eq!(hashes(&with).len(), 3);
    assert_eq!(hashes(&with), hashes(&without));
}
