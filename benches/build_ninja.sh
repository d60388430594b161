#!/usr/bin/env bash
# Benchmark (not a test) of `layoutrand build` on ninja (C++), with and without gcc LTO.
#
#   benches/build_ninja.sh          # REPS=3 JOBS=2 SEEDS=30 by default
#
# ninja comes from Debian's ninja-build source (recipes/debian-source.sh --skip-patches) and
# is built by benches/ninja.mk (libninja.a + ninja.cc, as ninja's own build does; LTO=1 adds
# -flto=auto and gcc-ar). Each round runs, in turn and each after `make clean`:
#   plain1 / seeds1   make -jJOBS LTO=1 / layoutrand build --seeds N (LTO code generated once)
#   plain0 / seeds0   the same without LTO (relinks with the build's own linker, ld.bfd)
#   mold0             build --seeds N --linker mold without LTO (the relinks by mold)
#   shim0             make under the shim, recording only (no relinks)
# The rounds interleave the labels so that a drifting load hits all of them alike; the
# script prints the median wall and CPU time (user + system of every process) of each and
# the ratios the issue sets targets for: seedsN / plain <= 1.5 with LTO, <= 1.1 without;
# shim / plain <= 1.02 in CPU time. Each seed's relink ends in one final link of ninja, so
# without LTO N final links (about 0.13 s of CPU each with ld.bfd here) are the floor of
# the ratio for a program whose whole build takes about 33 s of CPU.
#
# Measured 2026-11-23 on a 2-core VM (gcc 12, binutils 2.40, mold 1.10), REPS=3 interleaved,
# load 0.89 before: gcc -flto 16.18 s plain, 22.80 s with 30 seeds (1.41 wall, 1.40 CPU);
# no LTO 15.03 s plain, 18.19 s with 30 seeds by ld.bfd (1.21 / 1.22; relinks 3.31 s wall),
# 16.53 s by mold (1.10 / 1.07; relinks 0.97 s). The shim row said 1.19 in CPU time, more
# than seeds0, which records the same build and relinks too: on this VM one build's CPU time
# drifts by 10-30 % within minutes, so three rounds cannot resolve a 2 % difference; see
# benches/shim_overhead.sh for the shim. Again after per-program preparation of the relinks
# (REPS=3, load 0.74; ratio of medians, then median of per-round ratios): LTO 1.276 / 1.401,
# bfd 1.225 / 1.198 (relinks 1.70 s wall, 10 % of the plain build's 16.30 s), mold 1.130 /
# 1.079, shim 0.855 / 0.951 (noise).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/benches/build_common.sh"
ninja_source || exit 3
make_shims

# seeds_build LTO OPTION...: layoutrand build --seeds N OPTION... -- make LTO=LTO
seeds_build() { local lto=$1; shift; "$bin" build -q --seeds "$seeds" "$@" -- make -s -j"$jobs" LTO="$lto"; }
run_plain1() { make -s -j"$jobs" LTO=1; }
run_seeds1() { seeds_build 1 --out "$work/out1"; }
run_plain0() { make -s -j"$jobs" LTO=0; }
run_seeds0() { seeds_build 0 --out "$work/out0"; }
run_mold0() { seeds_build 0 --linker mold --out "$work/outm"; }
run_shim0() { shim_make LTO=0; }
printf 'ninja %s (%s sources), make -j%s, %s seeds, median of %s interleaved round(s), load %s\n' \
  "$(sed -n 's/.*kNinjaVersion = "\(.*\)".*/\1/p' src/version.cc)" \
  "$(grep -o '[a-z_-]*\.cc' Makefile | sort -u | wc -l)" "$jobs" "$seeds" "$reps" \
  "$(cut -d' ' -f1 /proc/loadavg)"
interleave plain1 seeds1 plain0 seeds0 mold0 shim0
for out in out1 out0 outm; do
  "$work/$out/seed-$seeds/ninja" --version >/dev/null
done
row plain1 plain1 "" "gcc -flto: plain build"
row seeds1 plain1 1.5 "gcc -flto: build --seeds $seeds"
row plain0 plain0 "" "no LTO: plain build"
row seeds0 plain0 1.1 "no LTO: build --seeds $seeds"
row mold0 plain0 1.1 "no LTO: build --seeds $seeds --linker mold"
row shim0 plain0 1.02 "no LTO: under the shim, recording"
printf '  relink seconds (baseline + %s seeds, wall): LTO %s, bfd %s, mold %s\n' "$seeds" \
  "$(relink_seconds "$work/out1")" "$(relink_seconds "$work/out0")" "$(relink_seconds "$work/outm")"
