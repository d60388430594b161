#!/usr/bin/env bash
# Benchmark (not a test) of `layoutrand build` on real programs of some size: the cost of a
# build with N seeds against one plain build of the same tree.
#
#   benches/big_builds.sh [PROGRAM...]      # default: brotli gawk cpython ninja-lto
#   SOURCES=/work/big REPS=1 SEEDS=3 benches/big_builds.sh brotli gawk
#
# Parameters (benches/build_common.sh): REPS rounds (3), JOBS (2), SEEDS (30; CPython's
# default is 10), CARGO_TARGET_DIR (where layoutrand is built). Sources: Debian's, unpacked
# without Debian's patches (recipes/debian-source.sh --skip-patches); with SOURCES=DIR an
# already unpacked DIR/PACKAGE/src is copied instead (no download). The configure step runs
# once, outside the timed part, on the copy in the scratch directory.
#   brotli     Debian brotli 1.0.9: its top-level Makefile, `make brotli` (the default target
#              also runs the tests; CMake would need the launcher, since it writes absolute
#              compiler paths, in the plain build too): ~40 objects, one program.
#   gawk       Debian gawk 5.2: ./configure, `make`: gawk and, through libtool, the 14
#              extension libraries of extension/ (shared links, relinked per seed too);
#              doc/ and awklib/ are left out (Debian's source has no gawktexi.in for them).
#   cpython    Debian python3.11: ./configure, `make`: python, libpython3.11.a and the
#              extension modules built as shared objects.
#   ninja-lto  ninja with benches/ninja.mk and LTO=1 (gcc -flto=auto), as benches/build_lto.sh.
# Each round runs, in turn and each after `make clean` (benches/build_common.sh one_run):
#   plain   make -jJOBS [TARGET]
#   seeds   layoutrand build --seeds N -- make -jJOBS [TARGET]
# and the rounds interleave so that a drifting load hits both alike. Printed per program:
# the median wall and CPU (user + system of every process) time of each, the ratio of the
# medians and the median of the per-round ratios, the relinks' seconds and the last round's
# time line from the manifest (recorded build, relinks, other steps).
#
# Targets: 30 seeds of brotli and of gawk cost at most 1.10 times a plain build, 10 seeds of
# CPython at most 1.2 times, ninja-lto (30 seeds) at most 1.2 times; in wall and in CPU time.
#
# Measured 2026-12-04 on a 2-core VM shared with another session (load 2-3), gcc 12, REPS=1
# SEEDS=3 (a test of the script, not of the targets): brotli plain 9.54 s wall / 9.42 s CPU,
# 3 seeds 10.24 s / 9.72 s (wall 1.074, CPU 1.032; relinks 0.25 s); gawk plain 18.83 s /
# 18.75 s, 3 seeds 21.48 s / 20.12 s (wall 1.141, CPU 1.073; relinks 1.93 s for 4 x 15
# links, ~32 ms a link: at 30 seeds the 14 extension libraries' relinks alone would be ~15 s).
#
# Measured 2026-12-05 (relinks without debug information, the linker called directly), REPS=3
# to 5, three runs: brotli 1.054 / 1.035, 1.091 / 1.080 and 1.074 / 1.044 (wall / CPU), gawk
# 1.089 / 1.091, 1.152 / 1.127 and 1.063 / 1.053; CPython (REPS=1) 1.036 / 1.027;
# docs/build.md, "Limits", has the table.
#
# Measured 2026-12-06 (malloc keeping its large buffers in layoutrand and the linker), REPS=3:
# brotli 1.092 / 1.081 (per round 1.105 / 1.083, relinks 0.50 s), gawk 1.078 / 1.072 (per
# round 1.082 / 1.071, relinks 0.85 s); REPS=5 just after: brotli 1.105 / 1.092 (1.086 /
# 1.074), gawk 1.110 / 1.100 (1.151 / 1.138). Later that day, REPS=3 (load 0.3-1.7): brotli
# 1.105 / 1.090 (1.109 / 1.092, relinks 0.44 s), gawk 1.097 / 1.091 (1.095 / 1.089, relinks
# 0.76 s).
#
# Measured 2026-12-07 evening, nothing else running, REPS=7: brotli 1.134 / 1.101 (per round
# 1.114 / 1.091, relinks 0.53 s); then with the linker's heap on huge pages (18.9 against
# 22.2 ms a brotli link), three runs: brotli 1.089 / 1.088 (1.082 / 1.098, relinks 0.41 s),
# 1.006 / 1.008 (1.063 / 1.053) and 1.167 / 1.132 (1.082 / 1.071); gawk 1.092 / 1.095 (1.119 /
# 1.112, relinks 0.82 s), 1.068 / 1.051 (1.045 / 1.045) and 1.094 / 1.083 (1.087 / 1.087).
#
# Measured 2026-12-04 on the same 2-core VM, nothing else running (load 1.5-1.9), REPS=2,
# default seeds, build tools, tests and plugins left out (docs/build.md, "Which links are
# programs"): brotli plain 4.65 s wall / 9.03 s CPU, 30 seeds 5.30 s / 10.11 s (wall 1.139,
# CPU 1.119; relinks 0.56 s); gawk plain 9.62 s / 17.66 s, 30 seeds 11.22 s / 20.32 s (1.166
# / 1.151; relinks 1.41 s; gawk alone, its 14 extension libraries are plugins); CPython plain
# 69.24 s / 131.44 s, 10 seeds 74.62 s / 139.75 s (1.078 / 1.063; relinks 3.97 s; python
# alone: _freeze_module and _bootstrap_python are tools, _testembed a test, 76 extension
# modules plugins); ninja gcc LTO plain 7.28 s / 13.79 s, 30 seeds 8.45 s / 15.82 s (1.160 /
# 1.147; relinks 0.91 s). The per-round ratios equal the ratios of the medians.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
user_seeds=${SEEDS:-}
. "$root/benches/build_common.sh"

# source_tree PACKAGE: a private copy of PACKAGE's unpacked source (from $SOURCES/PACKAGE/src when
# SOURCES is set, else fetched); prints its directory.
source_tree() {
  if [ -n "${SOURCES:-}" ] && [ -d "$SOURCES/$1/src" ]; then
    cp -a "$SOURCES/$1/src" "$work/$1"
    echo "$work/$1"
  else
    debian_source --skip-patches "$1"
  fi
}
# configure_quietly: ./configure, its output kept in $work/configure.log.
configure_quietly() {
  ./configure >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log" >&2; exit 1; }
}

# debian_version: the Debian version of the source in the current directory.
debian_version() { sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog; }
# setup_PROGRAM: changes into the configured tree; sets make_args, prog_seeds and target.
setup_brotli() {
  local src; src=$(source_tree brotli) || exit 3; cd "$src"
  make_args=(brotli); prog_seeds=$seeds; target=1.10
  version="brotli $(debian_version)"
}
setup_gawk() {
  local src; src=$(source_tree gawk) || exit 3; cd "$src"
  configure_quietly
  # Debian's source lacks the manual's gawktexi.in (its patches skip doc/): the top Makefile
  # leaves doc/, awklib/ (whose programs are extracted from it) and test/ out of the build.
  sed -i 's/^SUBDIRS = .*/SUBDIRS = support . extension extras po/' Makefile
  make_args=(); prog_seeds=$seeds; target=1.10
  version="gawk $(debian_version)"
}
setup_cpython() {
  local src; src=$(source_tree python3.11) || exit 3; cd "$src"
  configure_quietly
  make_args=(); prog_seeds=${user_seeds:-10}; target=1.2
  version="CPython $(debian_version)"
}
setup_ninjalto() {
  ninja_source || exit 3
  make_args=(LTO=1); prog_seeds=$seeds; target=1.2
  version="ninja $(sed -n 's/.*kNinjaVersion = "\(.*\)".*/\1/p' src/version.cc) LTO=1"
}

programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(brotli gawk cpython ninja-lto)
for program in "${programs[@]}"; do
  case $program in brotli | gawk | cpython | ninja-lto) ;; *)
    echo "big_builds.sh: unknown program $program (brotli, gawk, cpython, ninja-lto)" >&2; exit 2 ;;
  esac
done
printf 'make -j%s, median of %s interleaved round(s)\n' "$jobs" "$reps"
for program in "${programs[@]}"; do
  p=${program//-/}
  "setup_$p"
  out="$work/out-$p"
  eval "run_${p}_plain() { make -s -j\"\$jobs\" \"\${make_args[@]}\"; }"
  eval "run_${p}_seeds() { \"\$bin\" build -q --seeds \"\$prog_seeds\" --out \"$out\" -- make -s -j\"\$jobs\" \"\${make_args[@]}\"; }"
  load=$(cut -d' ' -f1 /proc/loadavg)
  interleave "${p}_plain" "${p}_seeds"
  n=$(find "$out/seed-$prog_seeds" -maxdepth 1 -type f | wc -l)
  [ "$n" -gt 0 ] || { echo "big_builds.sh: $program: no binaries in $out/seed-$prog_seeds" >&2; exit 1; }
  printf '%s (%s seeds, %s binaries per seed; load %s before, %s after)\n' "$version" \
    "$prog_seeds" "$n" "$load" "$(cut -d' ' -f1 /proc/loadavg)"
  row "${p}_plain" "${p}_plain" "" "$program: plain build"
  row "${p}_seeds" "${p}_plain" "$target" "$program: build --seeds $prog_seeds"
  printf '  relinks (baseline + %s seeds, wall) %s s; last round: %s\n' "$prog_seeds" \
    "$(relink_seconds "$out")" "$(time_line "$out")"
done
