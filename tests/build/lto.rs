//! `-flto` programs: the machine code the recorded LTO link generated itself (gcc's ltrans
//! objects, clang's LTO objects) is kept by the shim and every binary is relinked from it, so
//! every seed holds exactly the baseline's code, which is the user's own LTO build's, on
//! every final linker, with gcc and clang.

use crate::build_support;

use std::path::Path;
use std::process::Command;

use crate::snapshot_support::in_dir;
use build_support::{
    assert_lto_code_kept, assert_success, build, build_three_seeds, check_binaries, fixture,
    function_list_differences, function_sizes, have, run, section_names,
};
use layoutrand::files::manifest::{Exclusion, Granularity, LeftOut, LtoCode, Manifest, Mechanism};
use layoutrand::layout::binary;

/// Builds the `lto` fixture with `cc` (and its usual linker: bfd for gcc, which lld cannot
/// serve), relinks with `linker`, 3 seeds, and checks: every seed built,
/// prints the baseline's output, passed the code check (same functions, same sizes), has
/// the baseline's sections (no section added) and `_start` in the baseline's place; the
/// LTO code is the recorded link's own (never generated again).
fn lto_case(cc: &str, linker: &str, granularity: &str) {
    assert!(have(cc), "{cc} is not installed");
    assert!(
        have(&format!("ld.{linker}")),
        "ld.{linker} is not installed"
    );
    let what = format!("{cc} -flto, {linker}, {granularity}");
    let (_tmp, dir) = fixture("lto");
    let out = build_three_seeds(&dir, granularity, linker, &["make", &format!("CC={cc}")]);
    assert_success(&out, &what);
    let out_dir = dir.join("out");
    let m = check_binaries(&out_dir, "ltoprog", 3, &what);
    // The mechanism: the LTO link's own code kept, relinked by the linker asked for.
    let relinked: Vec<(Mechanism, &str)> = (m.mechanisms.iter())
        .map(|r| (r.mechanism, r.linker.name()))
        .collect();
    assert_eq!(relinked, [(Mechanism::LtoKept, linker)], "{what}");
    assert_eq!(
        run(&dir.join("ltoprog")),
        run(&out_dir.join("baseline/ltoprog"))
    );
    assert_lto_code_kept(&out_dir, &what);
    let achieved = m.programs[0].achieved.as_ref().expect("achieved");
    // The LTO link's own code, its functions moved (in one module: across modules too).
    assert_eq!(achieved.lto, Some(LtoCode::Kept), "{what}: {achieved:?}");
    assert_eq!(achieved.granularity, Some(Granularity::Global), "{what}");
    assert!(
        achieved.modules_with_function_order >= 1,
        "{what}: {achieved:?}"
    );
    let base_path = out_dir.join(&m.baseline.binaries[0].path);
    let base_sections = section_names(&base_path);
    let base = binary::functions(&base_path).unwrap();
    let start_rank = |fs: &[binary::Function]| fs.iter().position(|f| f.name == "_start");
    for v in &m.seeds {
        let b = &v.binaries[0];
        let code = b.code.as_ref().expect("every seed is code-checked");
        assert_eq!(code.functions, base.len(), "{what}: seed {:?}", v.seed);
        let path = out_dir.join(&b.path);
        assert_eq!(
            section_names(&path),
            base_sections,
            "{what}: seed {:?} has other sections than the baseline",
            v.seed
        );
        let seed = binary::functions(&path).unwrap();
        assert_eq!(start_rank(&seed), start_rank(&base), "{what}: {:?}", v.seed);
    }
}

#[test]
fn gcc_lto_relinks_the_links_own_code_on_every_linker() {
    for linker in ["bfd", "gold", "lld", "mold"] {
        lto_case("gcc", linker, "module");
    }
}

#[test]
fn clang_lto_relinks_the_links_own_code() {
    lto_case("clang", "lld", "global");
    lto_case("clang", "bfd", "link");
}

/// `--extend` relinks from the same kept LTO objects: the extra seeds pass the code check
/// against the first build's baseline and no code is generated.
#[test]
fn extend_reuses_the_lto_objects() {
    let (_tmp, dir) = fixture("lto");
    let out = build(&dir, &["--seeds", "2", "--out", "out"], &["make"]);
    assert_success(&out, "lto build");
    let out = build(
        &dir,
        &["--seeds", "4", "--extend", "--out", "out"],
        &["make"],
    );
    assert_success(&out, "lto --extend");
    let m = Manifest::load(&dir.join("out")).unwrap();
    assert_eq!(m.seeds.len(), 4);
    assert!(m.seeds.iter().all(|v| v.binaries[0].code.is_some()));
    assert_lto_code_kept(&dir.join("out"), "lto --extend");
}

/// The baseline is the user's LTO program: its functions (name and size) are those of the
/// binary the recorded build made (`-flto` with the shim's `-ffunction-sections`), at the
/// same addresses; and against a plain `-flto` build made without the shim, the same
/// functions, only the `.cold` parts gcc splits off differ in size: without one section per
/// function the assembler encodes their jumps back into the hot part in 2 bytes instead of 5
/// (the price of `-ffunction-sections`, the same without LTO).
#[test]
fn the_lto_baseline_has_the_plain_lto_builds_functions() {
    let (_tmp, dir) = fixture("lto");
    let out = build(&dir, &["--seeds", "2", "--out", "out"], &["make"]);
    assert_success(&out, "lto build");
    let recorded = dir.join("ltoprog");
    let baseline = dir.join("out/baseline/ltoprog");
    let (rec, base) = (function_sizes(&recorded), function_sizes(&baseline));
    let differences = function_list_differences("the recorded build", &rec, "the baseline", &base);
    assert!(differences.is_empty(), "{differences:#?}");
    let addresses = |p: &Path| {
        binary::functions(p)
            .unwrap()
            .into_iter()
            .map(|f| (f.name, f.address))
            .collect::<Vec<_>>()
    };
    assert_eq!(addresses(&recorded), addresses(&baseline));
    // gcc without the shim: neither -ffunction-sections nor the kept temporaries.
    let plain = Command::new("make")
        .args(["-s", "clean", "ltoprog"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let plain = function_sizes(&dir.join("ltoprog"));
    assert!(plain.len() > 20, "{plain:?}");
    let differences =
        function_list_differences("the plain -flto build", &plain, "the baseline", &base);
    let not_cold: Vec<&String> = differences
        .iter()
        .filter(|d| !d.contains(".cold:") || d.contains("only in"))
        .collect();
    assert!(not_cold.is_empty(), "{differences:#?}");
}

/// A compiler that fails for one program: `ltoprog`, `prog2` and `prog3` are linked from the
/// same LTO objects by a `gcc` wrapper earlier on PATH that (outside the recorded build's own
/// links) dies with an internal compiler error when it links `prog2`, and on a `-r` LTO
/// link unless given `-flto-partition=one` (the crash gcc 12 had on ninja_test). `prog3`
/// keeps its own temporaries (`-save-temps`), so its code is generated once more by the
/// `-r` fallback, which is retried with one partition and succeeds. `prog2` is left out with
/// the compiler's message, the others get every seed, and the exit status is 1.
#[test]
fn a_program_whose_lto_relink_fails_is_isolated_with_the_compilers_message() {
    let (_tmp, dir) = fixture("lto");
    let objs = "main.o t1.o t2.o t3.o t4.o t5.o t6.o";
    let mut makefile = std::fs::read_to_string(dir.join("Makefile")).unwrap();
    makefile = makefile.replacen(
        "ltoprog: $(OBJS)",
        &format!(
            "all: ltoprog prog2 prog3\n\nprog2: $(OBJS)\n\t$(CC) $(CFLAGS) -flto -o $@ {objs}\n\n\
             prog3: $(OBJS)\n\t$(CC) $(CFLAGS) -flto -save-temps -o $@ {objs}\n\n\
             ltoprog: $(OBJS)"
        ),
        1,
    );
    std::fs::write(dir.join("Makefile"), makefile).unwrap();
    let bin = dir.join("fakebin");
    std::fs::create_dir(&bin).unwrap();
    let real_gcc = which("gcc");
    let fake = bin.join("gcc");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nout=; prev=; r=0; one=0\n\
             for a in \"$@\"; do\n  [ \"$prev\" = -o ] && out=$a\n  [ \"$a\" = -r ] && r=1\n  \
             [ \"$a\" = -flto-partition=one ] && one=1\n  prev=$a\ndone\n\
             if [ -z \"$LAYOUTRAND_NESTED\" ]; then\n  \
             case $out in */prog2) echo 'lto1: internal compiler error: Segmentation fault' >&2; exit 1;; esac\n  \
             if [ $r = 1 ] && [ $one = 0 ]; then echo 'lto1: internal compiler error: in add_symbol_to_partition_1' >&2; exit 1; fi\n\
             fi\nexec {} \"$@\"\n",
            real_gcc.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(&dir)
        .env("PATH", path)
        .args(["build", "-q", "--seeds", "2", "--out", "out", "--", "make"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // The summary, pinned whole (times written [t]), says prog2 is left out with the
    // compiler's message; the manifest keeps that message as the reason.
    insta::assert_snapshot!(
        "summary",
        crate::summary::without_times(&in_dir(&String::from_utf8_lossy(&out.stdout), &dir))
    );
    let m = Manifest::load(&dir.join("out")).unwrap();
    let prog2 = m.programs.iter().find(|p| p.name == "prog2").unwrap();
    match &prog2.excluded {
        Some(Exclusion::Known(LeftOut::NotRelinked { error, relinked })) => {
            assert!(!error.is_empty());
            assert_eq!(relinked, &["ltoprog", "prog3"]);
        }
        other => panic!("prog2 not left out as not relinked: {other:?}"),
    }
    assert!(m.baseline.find("prog2").is_none());
    assert_eq!(m.seeds.len(), 2);
    for v in &m.seeds {
        assert_eq!(
            v.status,
            layoutrand::files::manifest::BuildStatus::Ok,
            "{v:?}"
        );
        for name in ["ltoprog", "prog3"] {
            let b = v.find(name).unwrap_or_else(|| panic!("{name} in {v:?}"));
            assert!(b.code.is_some(), "{name}: {v:?}");
        }
        assert!(v.find("prog2").is_none());
    }
    // The mechanisms: the LTO link's own code kept (ltoprog) and prog3's generated once more.
    let relinked: Vec<Mechanism> = m.mechanisms.iter().map(|r| r.mechanism).collect();
    assert_eq!(relinked, [Mechanism::LtoOnce, Mechanism::LtoKept]);
}

/// The file `program` is on PATH.
fn which(program: &str) -> std::path::PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
}

/// Objects compiled with `-flto` but linked without it: the linker generated their code
/// itself and kept nothing, so a relink would measure another program than the build's; the
/// program is refused with the fix (exit 2: it was the only one).
#[test]
fn objects_holding_ir_linked_without_flto_are_refused_with_the_fix() {
    let (_tmp, dir) = fixture("lto");
    let objs = "main.o t1.o t2.o t3.o t4.o t5.o t6.o";
    let command = format!("make {objs} && gcc -O2 -o ltoprog {objs}");
    let out = build(
        &dir,
        &["--seeds", "2", "--out", "out"],
        &["sh", "-c", &command],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The message, pinned whole, says no program could be relinked, why and the fix.
    insta::assert_snapshot!(crate::snapshot_support::stderr_in(&out, &dir));
    assert!(!dir.join("out/baseline/ltoprog").exists());
}
