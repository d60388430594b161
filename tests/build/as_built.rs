//! The binary the user's build made is kept as the fixed layout `as-built`: a read-only copy
//! of the recorded link's output in the experiment directory, hashed in the manifest like
//! every binary, checked against the baseline (same functions, or the difference stated),
//! and never one of the seeds. A build that strips its own binary keeps none (its functions
//! cannot be checked) and says so.

use crate::build_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use build_support::{assert_success, build, fixture};
use layoutrand::files::manifest::{sha256_of_file, FunctionsDifference, Manifest, SetKind};

#[test]
fn the_builds_own_binary_is_kept_hashed_and_compared_with_the_baseline() {
    let (_tmp, src) = fixture("multimodule");
    let o = build(
        &src,
        &["--seeds", "2", "--linker", "bfd", "--out", "out"],
        &["make"],
    );
    assert_success(&o, "build");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let out = src.join("out");
    let m = Manifest::load(&out).unwrap();
    let set = m.as_built.as_ref().expect("the as-built set is recorded");
    assert_eq!((set.kind, set.seed), (Some(SetKind::AsBuilt), None));
    assert_eq!(set.label(), "as-built");
    let own = set.find("multimodule").expect("its program");
    assert_eq!(own.path, Path::new("as-built/multimodule"));
    let copy = out.join(&own.path);
    // The user's bytes, hashed as the manifest says, and read-only.
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(src.join("multimodule")).unwrap()
    );
    assert_eq!(own.sha256, sha256_of_file(&copy).unwrap());
    let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
    assert_eq!(mode & 0o222, 0, "writable copy: {mode:o}");
    // The ELF check against the baseline: the same functions (same code), and with bfd the
    // same order and addresses, the same section sizes and code bytes, in the manifest's
    // figures (the summary's words for them are pinned by tests/build/summary.rs).
    let base = m.baseline.find("multimodule").unwrap();
    assert_eq!(own.functions, base.functions);
    let code = own.code.as_ref().expect("same code as the baseline");
    assert_eq!(code.functions, base.functions, "{code:?}");
    assert_eq!(
        own.functions_versus_baseline,
        Some(FunctionsDifference::Same {
            functions: base.functions
        })
    );
    let bytes = own.bytes_versus_baseline.as_ref().expect("bytes compared");
    assert!(bytes.sections.is_empty(), "{bytes:?}");
    let compared = bytes.code.as_ref().expect("code compared: same addresses");
    assert_eq!((compared.compared, compared.differ), (base.functions, 0));
    // Never a seed: the seeds are the 2 asked for; the run's sets list it after the baseline.
    assert_eq!(m.seeds.len(), 2);
    assert!(m.seeds.iter().all(|s| s.seed.is_some() && s.kind.is_none()));
    let labels: Vec<String> = m.binary_sets().map(|s| s.label()).collect();
    assert_eq!(labels, ["baseline", "as-built", "seed-1", "seed-2"]);
    // The time line accounts for every step (copying the as-built binary is part of the
    // relinks' time): the whole build is at least the recorded build plus the relinks, and
    // the summary gives the rest.
    let total = m.total_seconds.expect("the whole build's time");
    assert!(
        total >= m.recorded_build_seconds + m.relink_seconds,
        "{total} < {} + {}",
        m.recorded_build_seconds,
        m.relink_seconds
    );
    let rest = total - m.recorded_build_seconds - m.relink_seconds;
    assert!(
        stdout.contains(&format!("the whole build took {total:.2} s: the recorded build {:.2} s, the relinks {:.2} s, the other steps (clearing the output directory, checking the seeds' layouts, writing the manifest) {rest:.2} s", m.recorded_build_seconds, m.relink_seconds)),
        "{stdout}"
    );
}

/// A build that strips its own binary after linking it: the baseline and seeds are relinked
/// from the recording as usual, no as-built set is recorded and the summary says why.
#[test]
fn a_stripped_own_binary_is_not_kept_and_the_summary_says_why() {
    let (_tmp, src) = fixture("multimodule");
    let o = build(
        &src,
        &["--seeds", "1", "--out", "out"],
        &["sh", "-c", "make && strip multimodule"],
    );
    assert_success(&o, "build");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let m = Manifest::load(&src.join("out")).unwrap();
    assert!(m.as_built.is_none(), "{:?}", m.as_built);
    assert!(m.baseline.find("multimodule").is_some());
    // The summary's line on it, pinned whole: not kept, because it was stripped.
    let as_built: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("as built:"))
        .collect();
    insta::assert_snapshot!(crate::snapshot_support::in_dir(
        &as_built.join("\n"),
        src.parent().unwrap()
    ));
    // A manifest without the field (as older builds wrote) reads as one without as-built.
    let text = std::fs::read_to_string(src.join("out/manifest.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(json.get("as_built").is_none(), "{text}");
}

/// The x86 no-op sequences the comparison recognises, as the test plants them.
const NOPS: [&[u8]; 4] = [
    &[0x0f, 0x1f, 0x44, 0, 0],
    &[0x0f, 0x1f, 0x40, 0],
    &[0x0f, 0x1f, 0x00],
    &[0x66, 0x90],
];

/// The build's own binary after the build changed it, as a post-link step may: the line
/// comparing it with the baseline says what differs beyond the same functions, order and
/// addresses. One function's no-op instruction replaced by one-byte nops, another
/// function's first byte changed: "the bytes of 2 of N functions differ: 1 only in no-op
/// padding, 1 in their instructions (NAME)"; an allocated section added by objcopy: "sections: .lrtest only in the
/// build's".
#[test]
fn what_differs_beyond_the_functions_places_is_said() {
    use layoutrand::layout::binary;
    use layoutrand::layout::image::Image;
    let (_tmp, src) = fixture("multimodule");
    // Labels aligned: the functions have no-op padding inside them.
    let make = "make 'CFLAGS=-O2 -g -falign-labels=16'";
    let o = build(
        &src,
        &["--seeds", "1", "--linker", "bfd", "--out", "out"],
        &["sh", "-c", make],
    );
    assert_success(&o, "build");
    // The plain build is deterministic: patch a copy of its binary, which the next build's
    // command puts in place of its own link's output.
    let own = src.join("multimodule");
    let image = Image::read(&own).unwrap();
    let functions = binary::functions(&own).unwrap();
    let mut bytes = std::fs::read(&own).unwrap();
    let mut padded = None;
    for (k, f) in functions.iter().enumerate() {
        let code = image.bytes_at(f.address, f.size).unwrap_or(&[]);
        let found = (1..code.len()).find_map(|i| {
            NOPS.iter()
                .find(|n| code[i..].starts_with(n))
                .map(|n| (i, n.len()))
        });
        if let Some((i, len)) = found {
            let at = image.file_offset(f.address, f.size).unwrap() as usize + i;
            bytes[at..at + len].fill(0x90);
            padded = Some(k);
            break;
        }
    }
    let padded = padded.expect("a function with a multi-byte no-op inside");
    let changed = functions
        .iter()
        .enumerate()
        .find(|(k, f)| {
            *k != padded
                && image
                    .bytes_at(f.address, f.size)
                    .is_some_and(|c| c[0] == 0xf3 || (0x40..0x60).contains(&c[0]))
        })
        .map(|(_, f)| f)
        .expect("a function starting with endbr64 or a REX/push byte");
    let at = image.file_offset(changed.address, changed.size).unwrap() as usize;
    bytes[at] ^= 0x01;
    std::fs::write(src.join("patched"), &bytes).unwrap();
    let o = build(
        &src,
        &["--seeds", "1", "--linker", "bfd", "--out", "out"],
        &[
            "sh",
            "-c",
            &format!("make clean >/dev/null && {make} && cp patched multimodule"),
        ],
    );
    assert_success(&o, "build with a patched binary");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let n = functions.len();
    assert!(
        stdout.contains(&format!(
            "baseline vs as built: program multimodule: the build's own binary's layout: same \
             {n} functions, order and addresses; the bytes of 2 of {n} functions differ: 1 \
             only in no-op padding, 1 in their instructions ({})\n",
            changed.name
        )),
        "{stdout}"
    );

    let o = build(
        &src,
        &["--seeds", "1", "--linker", "bfd", "--out", "out"],
        &[
            "sh",
            "-c",
            "make clean >/dev/null && make && objcopy --add-section .lrtest=Makefile \
             --set-section-flags .lrtest=alloc,readonly multimodule",
        ],
    );
    assert_success(&o, "build with a section added");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!(
            "program multimodule: the build's own binary's layout: same {n} functions, order \
             and addresses; sections: .lrtest only in the build's\n"
        )),
        "{stdout}"
    );
}

/// A program compiled twice from C with only its data laid out otherwise (a larger read-only
/// table before the variables): its functions keep their addresses and instructions, and
/// their references to the data move, so every function that differs differs only in
/// PC-relative displacements; the same program with one instruction changed has that
/// function named as a difference in its instructions.
#[test]
fn a_data_layout_change_differs_only_in_displacements() {
    use layoutrand::layout::binary;
    use layoutrand::layout::image::{code_differences, section_differences, Image};
    let tmp = tempfile::tempdir().unwrap();
    let compile = |name: &str, table: usize, extra: &str| {
        let src = tmp.path().join(format!("{name}.c"));
        std::fs::write(
            &src,
            format!(
                "static volatile int counter;\n\
                 static const char table[{table}] = {{1, 2, 3}};\n\
                 __attribute__((noinline)) int look(int i) {{ return table[i & 3] + counter{extra}; }}\n\
                 int main(int argc, char **argv) {{ (void)argv; counter = argc; return look(argc); }}\n"
            ),
        )
        .unwrap();
        let out = tmp.path().join(name);
        let ok = std::process::Command::new("cc")
            .args(["-O2", "-o"])
            .arg(&out)
            .arg(&src)
            .status()
            .unwrap()
            .success();
        assert!(ok, "cc {name}");
        let functions = binary::functions(&out).unwrap();
        (Image::read(&out).unwrap(), functions)
    };
    let (base, base_functions) = compile("small", 16, "");
    let (moved, moved_functions) = compile("large", 4096, "");
    let (changed, changed_functions) = compile("changed", 16, " * 3");
    let places = |fs: &[binary::Function]| -> Vec<(String, u64, u64)> {
        fs.iter()
            .map(|f| (f.name.clone(), f.address, f.size))
            .collect()
    };
    assert_eq!(places(&base_functions), places(&moved_functions));
    let d = code_differences(&base, &base_functions, &moved, &moved_functions);
    assert_eq!(d.compared, base_functions.len(), "{d:?}");
    assert!(d.differ >= 2, "look and main reach the data: {d:?}");
    assert_eq!(d.displacements_only, d.differ, "{d:?}");
    assert!(d.other.is_empty() && d.padding_only == 0, "{d:?}");
    let sections = section_differences(&base, &moved);
    let rodata = sections
        .iter()
        .find(|s| s.name == ".rodata")
        .expect("{sections:?}");
    // The table grows by 4080 bytes; the section's alignment may round it up a little.
    let grown = rodata.as_built.unwrap() - rodata.baseline.unwrap();
    assert!((4080..4080 + 64).contains(&grown), "{sections:?}");
    if places(&base_functions) == places(&changed_functions) {
        let d = code_differences(&base, &base_functions, &changed, &changed_functions);
        assert_eq!(d.other, ["look"], "{d:?}");
    } else {
        // Another size moves the functions after it: the comparison pairs by name and size.
        let look = |fs: &[binary::Function]| fs.iter().find(|f| f.name == "look").unwrap().size;
        assert_ne!(look(&base_functions), look(&changed_functions));
    }
}
