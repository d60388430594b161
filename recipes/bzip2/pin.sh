#!/usr/bin/env bash
# bzip2 1.0.8 (Debian source package bzip2, upstream Makefile): random layouts against layouts
# pinned by `layoutrand pin` (docs/pin.md), under cachegrind with a small instruction cache.
#
#   recipes/bzip2/pin.sh [OUT]        (default: layoutrand-out/bzip2-pin; must not exist yet)
#
# Steps, each a plain layoutrand command (the script echoes them):
#   1. fetch the source (recipes/debian-source.sh --skip-patches), generate a 0.7 MB input;
#   2. build 20 random seeds (module granularity), check each with upstream's sample files;
#   3. run each once under cachegrind with I1=4096,2,64 (the counts are deterministic);
#   4. layoutrand explain OUT/random --metric I1_misses; layoutrand pin OUT/random -o OUT/pin.json;
#   5. make clean; build 20 seeds again with --pin OUT/pin.json, check them, run them the same way;
#   6. layoutrand compare OUT/random OUT/pinned: the spread of each side with its interval,
#      their ratio, and the pinned mean against the random median layout.
#
# Why a script and not an experiment file: an experiment file cannot choose the cachegrind
# model (`run --cache-sim`) nor pass `build --pin`. With cachegrind's default 32 KiB 8-way
# I1, bzip2's hot code fits and its I1 misses hardly move (2,026 to 2,045 over 20 seeds);
# in a 4 KiB 2-way I1, mainSort and mainGtU evict each other in some layouts.
# Needs dpkg-dev, valgrind, gcc and make; LAYOUTRAND names the binary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LR=${LAYOUTRAND:-layoutrand}
OUT=${1:-layoutrand-out/bzip2-pin}
CACHE=I1=4096,2,64
SEEDS=20
BUILD=(make -j2 libbz2.a bzip2 bzip2recover)
RUN=(sh -c 'exec {bin:bzip2} -9 -c input.txt > /dev/null')
[ -e "$OUT" ] && { echo "pin.sh: $OUT exists; choose another directory" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
x() { echo "+ $*" >&2; "$@"; }

src=$("$here/../debian-source.sh" --skip-patches bzip2 "$OUT/source")
cd "$src"
seq 1 20000 | sed 's/$/ layoutrand reference input/' > input.txt

check() { # every binary of DIR passes upstream's sample comparisons
  local b
  for b in "$1"/baseline/bzip2 "$1"/seed-*/bzip2; do
    "$b" -1 < sample1.ref | cmp - sample1.bz2
    "$b" -3 < sample3.ref | cmp - sample3.bz2
    "$b" -d < sample2.bz2 | cmp - sample2.ref
  done
}
side() { # side DIR [build flags]: build, check, run under cachegrind
  local dir=$1; shift
  x make clean >/dev/null
  x "$LR" build --seeds "$SEEDS" --granularity module --programs bzip2 "$@" --out "$dir" -- "${BUILD[@]}"
  check "$dir"
  x "$LR" run --out "$dir" --metric cachegrind --cache-sim "$CACHE" --executions 1 --timeout 600 -- "${RUN[@]}"
}

side "$OUT/random"
x "$LR" explain "$OUT/random" --metric I1_misses
x "$LR" pin "$OUT/random" -o "$OUT/pin.json"
side "$OUT/pinned" --pin "$OUT/pin.json"

x "$LR" compare "$OUT/random" "$OUT/pinned" --metric I1_misses --metric estimated_cycles
