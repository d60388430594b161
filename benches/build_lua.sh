#!/usr/bin/env bash
# Benchmark (not a test) of `layoutrand build` on a real program of Lua's size.
#
#   benches/build_lua.sh            # REPS=3 JOBS=2 SEEDS=30 by default
#
# Lua 5.4 comes from Debian's source package (recipes/debian-source.sh). Debian's own
# Makefile needs libtool and builds everything twice (C and C++), so the bench builds the
# same 33 C files with a plain, upstream-style Makefile: liblua.a (ar) + lua + luac.
#
# Each round runs, in turn and each after `make clean` (interleaved, so that a drifting load
# hits all of them alike; the script prints the median wall and CPU time of each):
#   plain      make -jJOBS
#   shim       make -jJOBS with the shim first on PATH, recording (no relinks)
#   seeds0     layoutrand build --seeds 0  (recording + baseline relink + verification)
#   seedsN     layoutrand build --seeds N  (the default granularity, module)
#   padded     layoutrand build --seeds N --pad PAD  (PAD=256 by default; PAD=0 skips it)
# and the ratios the issue sets targets for: seedsN / plain <= 1.1 (no LTO), shim / plain
# <= 1.02 in CPU time (benches/shim_overhead.sh measures that one more finely).
#
# Measured 2026-11-23 (2-core VM, gcc 12, ld.bfd), REPS=3 interleaved, PAD=0, load 1.8:
# plain 5.28 s wall / 10.16 s CPU; shim 1.030 / 1.041; seeds0 0.944 / 0.965; 30 seeds
# 7.24 s, 1.372 wall / 1.359 CPU. Each seed is two final links (lua, luac), 47 ms each by
# ld.bfd (`--jobs 1`: relinks 3.14 s, of which the 60 seed links 2.84 s), so on a build of
# 10 s of CPU the links alone set a floor near 1.28: the 1.1 target needs a build whose
# compiles outweigh its links about ten to one. The shim rows of one build are noise at this
# size (an earlier sequential run said +13.9 %; 8 ABBA rounds right after: none). Again after
# the per-program preparation of relinks (REPS=5, PAD=0, load 1.86): plain 4.72 s / 9.19 s;
# 30 seeds 6.86 s, 1.452 wall / 1.432 CPU (per round the same); seeds0 1.006 / 1.002.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pad=${PAD:-256}
. "$root/benches/build_common.sh"
src=$(debian_source lua5.4) || exit 3
lua="$work/lua"
mkdir -p "$lua"
cp "$src"/src/*.c "$src"/src/*.h "$lua"/
cd "$lua"
# Debian's patched luaconf.h includes a header its debian/rules generates.
echo "#define DEB_HOST_MULTIARCH \"$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)\"" \
  > lua5.4-deb-multiarch.h
cat > Makefile <<'MK'
CFLAGS ?= -O2 -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX
CORE = lapi.o lcode.o lctype.o ldebug.o ldo.o ldump.o lfunc.o lgc.o llex.o lmem.o lobject.o \
       lopcodes.o lparser.o lstate.o lstring.o ltable.o ltm.o lundump.o lvm.o lzio.o
LIB = lauxlib.o lbaselib.o lcorolib.o ldblib.o liolib.o lmathlib.o loadlib.o loslib.o \
      lstrlib.o ltablib.o lutf8lib.o linit.o
all: lua luac
liblua.a: $(CORE) $(LIB)
	ar rcs $@ $^
lua: lua.o liblua.a
	$(CC) $(CFLAGS) -o $@ lua.o liblua.a -lm -ldl -Wl,-E
luac: luac.o liblua.a
	$(CC) $(CFLAGS) -o $@ luac.o liblua.a -lm -ldl
%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
clean:
	rm -f lua luac liblua.a *.o
MK

make_shims

run_plain() { make -s -j"$jobs"; }
run_shim() { shim_make; }
run_seeds0() { "$bin" build -q --seeds 0 --out "$work/out0" -- make -s -j"$jobs"; }
run_seedsN() { "$bin" build -q --seeds "$seeds" --out "$work/outN" -- make -s -j"$jobs"; }
run_padded() { "$bin" build -q --seeds "$seeds" --pad "$pad" --out "$work/outP" -- make -s -j"$jobs"; }
labels=(plain shim seeds0 seedsN)
[ "$pad" != 0 ] && labels+=(padded)
interleave "${labels[@]}"
test -x "$work/outN/seed-$seeds/lua"
[ "$pad" = 0 ] || test -x "$work/outP/seed-$seeds/lua"

printf 'lua 5.4 (%s objects, 2 programs), make -j%s, median of %s interleaved round(s), load %s\n' \
  "$(ls "$lua"/*.o 2>/dev/null | wc -l)" "$jobs" "$reps" "$(cut -d' ' -f1 /proc/loadavg)"
row plain plain "" "plain build"
row shim plain 1.02 "under the shim, recording"
row seeds0 plain "" "build --seeds 0"
row seedsN plain 1.1 "build --seeds $seeds"
if [ "$pad" != 0 ]; then
  row padded plain "" "build --seeds $seeds --pad $pad"
  rn=$(relink_seconds "$work/outN"); rp=$(relink_seconds "$work/outP")
  printf '  relinks (last run): %.2f s without --pad, %.2f s with --pad %s (ratio %.2f)\n' "$rn" "$rp" "$pad" "$(calc "$rp/$rn")"
fi
