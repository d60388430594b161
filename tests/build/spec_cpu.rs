//! recipes/spec-cpu/spec-cpu.sh, start to finish, against a stand-in suite laid out as SPEC
//! CPU 2017 lays out its benchmarks (no SPEC code): `benchspec/CPU/999.toy_r/{src,data}`, and
//! fake `runcpu` (build into `build/build_base_mine-m64.0000/`, skipping a built benchmark
//! without `--rebuild`; `--action=setup` makes `run/run_base_refrate_mine-m64.NNNN/` with the
//! inputs, `speccmds.cmd` and `compare.cmd`), `specinvoke -n` (prints a command file's shell
//! commands) and `specdiff` (exit 1 when the files differ). The workload has two
//! invocations, as perlbench, gcc, x264 and xz have several.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const RUNCPU: &str = r##"#!/bin/bash
set -e
action= rebuild=0 size=ref config= tune=base bench=
for a in "$@"; do
  case $a in
    --action=*) action=${a#*=} ;; --rebuild) rebuild=1 ;; --size=*) size=${a#*=} ;;
    --config=*) config=${a#*=} ;; --tune=*) tune=${a#*=} ;; -*) ;; *) bench=$a ;;
  esac
done
b=$SPEC/benchspec/CPU/$bench name=${bench#*.}
exe=$b/exe/${name}_${tune}.${config}-m64
case $action in
  build)
    if [ -x "$exe" ] && [ $rebuild = 0 ]; then echo "runcpu: $bench already built: skipped"; exit 0; fi
    build=$b/build/build_${tune}_${config}-m64.0000
    rm -rf "$build"; mkdir -p "$build" "$b/exe"; cp "$b"/src/*.c "$build/"
    (cd "$build" && for c in *.c; do gcc -O2 -g -c "$c"; done && gcc -O2 -g -o "$name" *.o)
    cp "$build/$name" "$exe" ;;
  setup)
    [ -x "$exe" ] || { echo "runcpu: $bench is not built" >&2; exit 1; }
    n=0
    while [ -d "$b/run/run_${tune}_${size}rate_${config}-m64.$(printf %04d $n)" ]; do n=$((n + 1)); done
    run=$b/run/run_${tune}_${size}rate_${config}-m64.$(printf %04d $n)
    mkdir -p "$run"; cp "$exe" "$b/data/${size}rate/input/"* "$run/"
    : > "$run/speccmds.cmd"; echo "cd $run" > "$run/compare.cmd"
    for i in "$b/data/${size}rate/input/"*.in; do
      f=$(basename "$i" .in)
      echo "../$(basename "$run")/$(basename "$exe") $f.in > $f.out 2>> $f.err" >> "$run/speccmds.cmd"
      echo "specdiff -m -l 10 $b/data/${size}rate/output/$f.out $f.out > $f.out.cmp" >> "$run/compare.cmd"
    done ;;
  *) echo "runcpu: action $action not faked" >&2; exit 1 ;;
esac
"##;

const SPECINVOKE: &str = r##"#!/bin/sh
[ "$1" = -n ] || { echo "specinvoke: only -n is faked" >&2; exit 1; }
echo "# specinvoke r0000 (stand-in)"
cat "${2:-speccmds.cmd}"
"##;

const SPECDIFF: &str = r##"#!/bin/sh
while [ $# -gt 2 ]; do case $1 in -l|-a|-r) shift 2 ;; *) shift ;; esac; done
cmp -s "$1" "$2" || { echo "*** Miscompare of $2"; exit 1; }
"##;

const TOY_MAIN: &str = r##"#include <stdio.h>
unsigned long mix(unsigned long h, long x);
long square(long x);
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "r");
    long x, sum = 0;
    unsigned long h = 14695981039346656037UL;
    if (!f) return 2;
    while (fscanf(f, "%ld", &x) == 1) { sum += square(x); h = mix(h, x); }
    printf("%s: sum of squares %ld, hash %lu\n", argv[1], sum, h);
    return 0;
}
"##;

const TOY_UTIL: &str = r##"__attribute__((noinline)) unsigned long mix(unsigned long h, long x) {
    return (h ^ (unsigned long)x) * 1099511628211UL;
}
__attribute__((noinline)) long square(long x) { return x * x; }
__attribute__((noinline)) long unused_cube(long x) { return x * x * x; }
"##;

fn write_executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The stand-in SPEC tree under `root` (its `bin/` holds the fake tools), with the expected
/// outputs of each input made by the toy built plainly, outside layoutrand.
fn stand_in_suite(root: &Path) -> PathBuf {
    let bench = root.join("benchspec/CPU/999.toy_r");
    for d in ["src", "data/refrate/input", "data/refrate/output"] {
        std::fs::create_dir_all(bench.join(d)).unwrap();
    }
    std::fs::write(bench.join("src/main.c"), TOY_MAIN).unwrap();
    std::fs::write(bench.join("src/util.c"), TOY_UTIL).unwrap();
    std::fs::write(bench.join("data/refrate/input/a.in"), "3 1 4 1 5 9 2 6\n").unwrap();
    std::fs::write(bench.join("data/refrate/input/b.in"), "27 18 28 -18 28\n").unwrap();
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    write_executable(&bin.join("runcpu"), RUNCPU);
    write_executable(&bin.join("specinvoke"), SPECINVOKE);
    write_executable(&bin.join("specdiff"), SPECDIFF);
    let plain = root.join("plain-toy");
    let cc = Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&plain)
        .arg(bench.join("src/main.c"))
        .arg(bench.join("src/util.c"))
        .status()
        .unwrap();
    assert!(cc.success());
    for f in ["a", "b"] {
        let input = format!("{f}.in");
        let out = Command::new(&plain)
            .arg(&input)
            .current_dir(bench.join("data/refrate/input"))
            .output()
            .unwrap();
        assert!(out.status.success());
        std::fs::write(
            bench.join(format!("data/refrate/output/{f}.out")),
            out.stdout,
        )
        .unwrap();
    }
    bin
}

fn recipe(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recipes/spec-cpu")
        .join(name)
}

/// The recipe builds the benchmark's seeds, sets up the reference run directory, validates
/// every binary (baseline, as built, 2 seeds) with specdiff on both invocations and measures
/// each; a binary whose output differs is refused by the check; and without `--rebuild` a
/// second build of the built benchmark links nothing (why the recipe passes it).
#[test]
fn the_spec_cpu_recipe_runs_start_to_finish_on_a_stand_in_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec");
    let bin = stand_in_suite(&spec);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let layoutrand = assert_cmd::cargo::cargo_bin("layoutrand");
    let out = spec.join("lr/999.toy_r");
    let o = Command::new(recipe("spec-cpu.sh"))
        .args(["999.toy_r", "mine"])
        .arg(&out)
        .args(["2", "1"])
        .current_dir(&spec)
        .env("SPEC", &spec)
        .env("PATH", &path)
        .env("LAYOUTRAND", &layoutrand)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!(
            "spec-invoke.sh: all 4 binaries of {} validate",
            out.display()
        )),
        "{stdout}"
    );
    let m = layoutrand::files::manifest::Manifest::load(&out).unwrap();
    assert_eq!(m.baseline.binaries[0].name, "toy_r");
    assert_eq!(m.seeds.len(), 2);
    // Every binary was measured: one execution each, every invocation in the run directory.
    let results = layoutrand::files::store::read_results(&out).unwrap();
    assert_eq!(results.executions.len(), 4, "{stdout}");
    let rundir = spec.join("benchspec/CPU/999.toy_r/run/run_base_refrate_mine-m64.0000");
    for f in ["a", "b"] {
        let expected = std::fs::read(spec.join(format!(
            "benchspec/CPU/999.toy_r/data/refrate/output/{f}.out"
        )))
        .unwrap();
        assert_eq!(
            std::fs::read(rundir.join(format!("{f}.out"))).unwrap(),
            expected
        );
    }

    // A binary that prints something else fails the validation, named.
    let o = Command::new(recipe("spec-invoke.sh"))
        .args(["check", "/bin/echo"])
        .arg(&rundir)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    // The script's message, pinned whole, names the benchmark whose output miscompares
    // (echo as the machine resolves it written [echo], the script's temporary directory
    // [tmp]).
    insta::assert_snapshot!(crate::snapshot_support::redact(
        &crate::snapshot_support::stderr_in(&o, &rundir),
        &[
            (r"(/usr)?/bin/echo:", "[echo]:"),
            (r"files kept in [^)]+\)", "files kept in [tmp])"),
        ]
    ));

    // runcpu skips a built benchmark without --rebuild: nothing is linked, nothing recorded.
    let mut cmd = Command::new(&layoutrand);
    cmd.args(["build", "-q", "--seeds", "1", "--out"])
        .arg(spec.join("lr/again"))
        .args([
            "--",
            "runcpu",
            "--config=mine",
            "--action=build",
            "999.toy_r",
        ])
        .current_dir(&spec)
        .env("SPEC", &spec)
        .env("PATH", &path);
    let o = cmd.output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}
