#!/usr/bin/env bash
# Benchmark (not a test) of `layoutrand build` without LTO on zstd, a C program whose compiles
# outweigh its one final link (the build the cost model of docs/build.md expects to be cheap).
#
#   benches/build_zstd.sh           # REPS=3 JOBS=2 SEEDS=30 by default
#
# zstd comes from Debian's libzstd source (recipes/debian-source.sh --skip-patches) and is
# built by its own Makefile, `make -C programs zstd` (the library's and the program's C files,
# the x86-64 Huffman decoder in assembly, gzip and xz support when their libraries are
# installed), as a user would. Each round runs, in turn and each after `make clean`
# (interleaved, so that a drifting load hits all of them alike):
#   plain      make -jJOBS zstd
#   shim       the same under the shim, recording (no relinks)
#   seeds      layoutrand build --seeds N -- make -jJOBS zstd  (module, relinks by ld.bfd)
# and prints the median wall and CPU time of each with the ratios the issue sets targets for:
# seeds / plain <= 1.1 without LTO, shim / plain <= 1.02 in CPU time. Every seed of the last
# round must round-trip a file (compress, decompress, compare) before the figures print.
#
# Measured 2026-11-23 on a 2-core VM (gcc 12, binutils 2.40), REPS=7: plain 26.14 s wall /
# 50.35 s CPU; shim 1.005 / 1.002 (per round 1.005 / 1.002); 30 seeds 27.62 s, 1.057 wall /
# 1.045 CPU (per round 1.030 / 1.038); relinks 1.32 s wall. With REPS=3 and REPS=5 the same
# day: 1.034 and 1.134 wall: one build's time drifts by 10 % within minutes on this VM, so
# read the per-round ratios and run more rounds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/benches/build_common.sh"
src=$(debian_source --skip-patches libzstd) || exit 3
cd "$src/programs"
make_shims

run_plain() { make -s -j"$jobs" zstd; }
run_shim() { shim_make zstd; }
run_seeds() { "$bin" build -q --seeds "$seeds" --out "$work/out" -- make -s -j"$jobs" zstd; }
interleave plain shim seeds

head -c 4000000 "$bin" > "$work/sample"
for dir in "$work"/out/baseline "$work"/out/seed-*; do
  "$dir/zstd" -q -c "$work/sample" | "$dir/zstd" -q -d -c | cmp -s - "$work/sample" \
    || { echo "$dir/zstd does not round-trip a file" >&2; exit 1; }
done

printf 'zstd %s (%s C and assembly files), make -j%s, %s seeds, median of %s interleaved round(s), load %s\n' \
  "$("$work/out/baseline/zstd" -V | sed -n 's/.* v\([0-9.]*\).*/\1/p')" \
  "$(find ../lib . -maxdepth 2 \( -name '*.c' -o -name '*.S' \) | wc -l)" "$jobs" "$seeds" "$reps" \
  "$(cut -d' ' -f1 /proc/loadavg)"
row plain plain "" "plain build"
row shim plain 1.02 "under the shim, recording"
row seeds plain 1.1 "build --seeds $seeds (ld.bfd)"
printf '  relink seconds (baseline + %s seeds, wall): %s; every seed round-trips a file\n' \
  "$seeds" "$(relink_seconds "$work/out")"
