#!/usr/bin/env bash
# Benchmark (not a test) of `layoutrand build --granularity none --pad MAX` (padding only, the
# build's order kept) against a plain build and against shuffles with the same padding, on
# ninja (C++, no LTO).
#
#   benches/build_padding.sh          # REPS=3 JOBS=2 SEEDS=30 PAD=256 by default
#
# ninja comes from Debian's ninja-build source (recipes/debian-source.sh --skip-patches) and
# is built by benches/ninja.mk. Each round runs, in turn and each after `make clean`:
#   plain    make -jJOBS LTO=0
#   none     layoutrand build --seeds N --granularity none --pad PAD   (padding only)
#   module   layoutrand build --seeds N --granularity module --pad PAD (shuffles + padding)
# Padding only rewrites the same section tables as a shuffle (with the identity order), so
# its cost should be that of `module`: the target is none / plain <= 1.1 in CPU time, as for
# relinks without LTO (benches/build_ninja.sh). Rounds interleave the labels so that a
# drifting load hits all alike; printed: the median of each, the ratio of the medians and the
# median of the per-round ratios, and the relinks' own wall time from each manifest.
#
# Measured 2026-11-25 on a 2-core VM shared with four other builds and test runs (load 9
# before; gcc 12, binutils 2.40), REPS=2 SEEDS=10: plain 51.24 s wall / 17.49 s CPU; none
# 64.75 s / 18.50 s (CPU ratio 1.058 of the medians, 1.058 per round; wall 1.264 / 1.271);
# module 61.66 s / 18.07 s (CPU 1.034 / 1.034; wall 1.203 / 1.206). Relinks (baseline + 10
# seeds, wall): none 3.67 s, module 3.55 s: padding only costs what a shuffle costs.
# Again with REPS=3 SEEDS=30 (load 8.4 before): plain 24.63 s wall / 16.08 s CPU; none
# 20.86 s / 17.67 s (CPU 1.099 / 1.099 per round, at the target; wall 0.847, the load
# drifting between labels); module 23.99 s / 18.02 s (CPU 1.121 / 1.147; wall 0.974 /
# 0.984). Relinks (baseline + 30 seeds, wall): none 3.36 s, module 3.00 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/benches/build_common.sh"
pad=${PAD:-256}
ninja_source || exit 3

seeds_build() { "$bin" build -q --seeds "$seeds" --pad "$pad" "$@" -- make -s -j"$jobs" LTO=0; }
run_plain() { make -s -j"$jobs" LTO=0; }
run_none() { seeds_build --granularity none --out "$work/none"; }
run_module() { seeds_build --granularity module --out "$work/module"; }
printf 'ninja %s, make -j%s, %s seeds, --pad %s, median of %s interleaved round(s), load %s\n' \
  "$(sed -n 's/.*kNinjaVersion = "\(.*\)".*/\1/p' src/version.cc)" "$jobs" "$seeds" "$pad" \
  "$reps" "$(cut -d' ' -f1 /proc/loadavg)"
interleave plain none module
"$work/none/seed-$seeds/ninja" --version >/dev/null
row plain plain "" "plain build"
row none plain 1.1 "build --granularity none (padding only)"
row module plain "" "build --granularity module (shuffles)"
printf '  relink seconds (baseline + %s seeds, wall): none %s, module %s\n' "$seeds" \
  "$(relink_seconds "$work/none")" "$(relink_seconds "$work/module")"
